"""Persistence behind a small interface: SQLite by default, through SQLAlchemy 2.

No SQL leaves this package: the server asks for tables and their events,
rooms, sheets, device records and accounts in domain terms, and hands over JSON dicts
(the store knows no Table class).  The schema is managed by Alembic
migrations that run when a store is opened (or by ``crokinole db upgrade``).
"""

from crokinole.store.store import (
    AccountData,
    AccountTakenError,
    AlreadyPlayedError,
    AlreadyQueuedError,
    DeadlineIn,
    DeadlineLike,
    DeviceClaimedError,
    DeviceRecord,
    MemberIn,
    PracticeSetData,
    QueueEntryData,
    RatingChange,
    RatingChangeData,
    RatingData,
    ResultIn,
    RoomData,
    SheetData,
    Store,
    StoreConflictError,
    StoreDataError,
    StoreUnavailableError,
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
    "DeadlineIn",
    "DeadlineLike",
    "DeviceClaimedError",
    "DeviceRecord",
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
