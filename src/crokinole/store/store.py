"""The store: one object with every part of it (tables, accounts, bots, ratings, practice,
sheets, events).

:class:`Store` is the database (:mod:`crokinole.store.database`) with the
queries of each aggregate mixed in: the server holds one ``Store`` and calls
``store.append_table_events(...)``, ``store.account(...)`` and so on.  A
caller that needs one aggregate only may type what it takes as that part
(:class:`~crokinole.store.tables.TableStore`,
:class:`~crokinole.store.accounts.AccountStore` ...) or take ``store.tables``,
``store.accounts`` ...: the same object, seen as that part.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

from crokinole.store.accounts import AccountStore
from crokinole.store.bots import BotStore
from crokinole.store.events import EventStore
from crokinole.store.legacy_rooms import LegacyRooms
from crokinole.store.practice import PracticeStore
from crokinole.store.ranked import RankedStore
from crokinole.store.sheets import SheetStore
from crokinole.store.tables import TableStore

_Part = TypeVar("_Part")


class _As(Generic[_Part]):
    """A store seen as one of its parts: the same object, typed as the part.

    (A descriptor rather than an attribute: an attribute holding the store
    itself would make each store a reference cycle, freed only by the
    collector.)
    """

    def __get__(self, store: Any, owner: type[Any] | None = None) -> _Part:
        return cast(_Part, store)


class Store(
    TableStore,
    BotStore,
    AccountStore,
    RankedStore,
    PracticeStore,
    SheetStore,
    EventStore,
    LegacyRooms,
):
    """Tables and their event logs, accounts, ratings, practice, sheets and events in a SQL
    database.

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

    # The same object seen as each of its parts, for a caller that takes one.
    tables: _As[TableStore] = _As()
    accounts: _As[AccountStore] = _As()
    bots: _As[BotStore] = _As()
    ranked: _As[RankedStore] = _As()
    practice: _As[PracticeStore] = _As()
    sheets: _As[SheetStore] = _As()
    events: _As[EventStore] = _As()
    legacy_rooms: _As[LegacyRooms] = _As()
