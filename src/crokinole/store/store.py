"""The store: one object with every part of it (tables, accounts, ratings, practice, sheets).

:class:`Store` is the database (:mod:`crokinole.store.database`) with the
queries of each aggregate mixed in: the server holds one ``Store`` and calls
``store.append_table_events(...)``, ``store.account(...)`` and so on.  A
caller that needs one aggregate only may type what it takes as that part
(:class:`~crokinole.store.tables.TableStore`,
:class:`~crokinole.store.accounts.AccountStore` ...) or take ``store.tables``,
``store.accounts`` ...: the same object, seen as that part.
"""

from __future__ import annotations

from crokinole.store.accounts import AccountStore
from crokinole.store.legacy_rooms import LegacyRooms
from crokinole.store.practice import PracticeStore
from crokinole.store.ranked import RankedStore
from crokinole.store.sheets import SheetStore
from crokinole.store.tables import TableStore


class Store(TableStore, AccountStore, RankedStore, PracticeStore, SheetStore, LegacyRooms):
    """Tables and their event logs, accounts, ratings, practice and sheets in a SQL database.

    Each write is one transaction.  A table's events are its domain events
    (``{"type": "shot", "version": 2, ...}``), numbered from 1; the messages
    clients are sent are built from them and the snapshot, so an event row
    is a few dozen bytes.

    >>> store = Store.open("sqlite://")
    >>> store.create_table(
    ...     "t1", kind="solo", code=None, events=[{"type": "created", "version": 1}],
    ...     snapshot={}, members=[], deadline=None, status="playing")
    >>> store.tables.table_events("t1")
    [{'type': 'created', 'version': 1}]
    >>> store.accounts.account(1) is None
    True
    """

    @property
    def tables(self) -> TableStore:
        """The tables and their event logs."""
        return self

    @property
    def accounts(self) -> AccountStore:
        """The accounts, their sessions, failed logins and devices."""
        return self

    @property
    def ranked(self) -> RankedStore:
        """The ratings, the ranked queue and the ranked games' fair-play facts."""
        return self

    @property
    def practice(self) -> PracticeStore:
        """The drills' sets, the daily challenge and the server's sets."""
        return self

    @property
    def sheets(self) -> SheetStore:
        """The score sheets."""
        return self

    @property
    def legacy_rooms(self) -> LegacyRooms:
        """What protocol-1 games left (read-only)."""
        return self
