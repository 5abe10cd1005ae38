"""Persistence behind a small interface: SQLite by default, through SQLAlchemy 2.

No SQL leaves this package: the server asks for tables and their events,
rooms, sheets, device records and accounts in domain terms, and hands over JSON dicts
(the store knows no Table class).  The schema is managed by Alembic
migrations that run when a store is opened (or by ``crokinole db upgrade``).
"""

from crokinole.store.store import (
    AccountData,
    AccountTakenError,
    DeadlineIn,
    DeadlineLike,
    DeviceClaimedError,
    DeviceRecord,
    MemberIn,
    ResultIn,
    RoomData,
    SheetData,
    Store,
    StoreConflictError,
    StoreDataError,
    TableData,
    TableDeadline,
    TableMember,
    TableResult,
)

__all__ = [
    "AccountData",
    "AccountTakenError",
    "DeadlineIn",
    "DeadlineLike",
    "DeviceClaimedError",
    "DeviceRecord",
    "MemberIn",
    "ResultIn",
    "RoomData",
    "SheetData",
    "Store",
    "StoreConflictError",
    "StoreDataError",
    "TableData",
    "TableDeadline",
    "TableMember",
    "TableResult",
]
