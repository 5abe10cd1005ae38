"""Persistence behind a small interface: SQLite by default, through SQLAlchemy 2.

No SQL leaves this package: the server asks for rooms, events and device
records in domain terms.  The schema is managed by Alembic migrations that
run when a store is opened.
"""

from crokinole.store.store import DeviceRecord, RoomData, SheetData, Store, StoreConflictError

__all__ = ["DeviceRecord", "RoomData", "SheetData", "Store", "StoreConflictError"]
