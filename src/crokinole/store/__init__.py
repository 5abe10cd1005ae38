"""Persistence behind a small interface: SQLite by default, through SQLAlchemy 2.

No SQL leaves this package: the server asks for tables and their events,
sheets, device records, accounts, ratings and practice in domain terms, and
hands over JSON dicts (the store knows no Table class).  The schema is
managed by Alembic migrations that run when a store is opened (or by
``crokinole db upgrade``).

One module per aggregate, each a part of the one :class:`Store`
(:mod:`~crokinole.store.store`): the database and its engine
(:mod:`~crokinole.store.database`), tables and their events
(:mod:`~crokinole.store.tables`), accounts and sessions
(:mod:`~crokinole.store.accounts`), bot accounts and their API tokens
(:mod:`~crokinole.store.bots`), ratings and the queue
(:mod:`~crokinole.store.ranked`), practice and drills
(:mod:`~crokinole.store.practice`), score sheets
(:mod:`~crokinole.store.sheets`), events and their logs
(:mod:`~crokinole.store.events`), what protocol-1 games left
(:mod:`~crokinole.store.legacy_rooms`, read-only); the values crossing the
interface are in :mod:`~crokinole.store.values`, the rows in
:mod:`~crokinole.store.models`.
"""

from crokinole.store.bots import ApiTokenData
from crokinole.store.database import (
    AccountTakenError,
    AlreadyPlayedError,
    AlreadyQueuedError,
    DeviceClaimedError,
    StoreConflictError,
    StoreDataError,
    StoreUnavailableError,
)
from crokinole.store.legacy_rooms import RoomData
from crokinole.store.store import Store
from crokinole.store.values import (
    AccountData,
    DeadlineIn,
    DeadlineLike,
    DeviceRecord,
    EventData,
    EventPlace,
    MemberIn,
    PracticeSetData,
    QueueEntryData,
    RatingChange,
    RatingChangeData,
    RatingData,
    ResultIn,
    SheetData,
    TableData,
    TableDeadline,
    TableMember,
    TableResult,
)

__all__ = [
    "AccountData",
    "AccountTakenError",
    "AlreadyPlayedError",
    "AlreadyQueuedError",
    "ApiTokenData",
    "DeadlineIn",
    "DeadlineLike",
    "DeviceClaimedError",
    "DeviceRecord",
    "EventData",
    "EventPlace",
    "MemberIn",
    "PracticeSetData",
    "QueueEntryData",
    "RatingChange",
    "RatingChangeData",
    "RatingData",
    "ResultIn",
    "RoomData",
    "SheetData",
    "Store",
    "StoreConflictError",
    "StoreDataError",
    "StoreUnavailableError",
    "TableData",
    "TableDeadline",
    "TableMember",
    "TableResult",
]
