"""A table read back from its log: the stored snapshot folded forward with the events after it.

The owner loads its tables this way (:mod:`crokinole.server.owner.loading`),
the Redis hub its follower copies (:mod:`crokinole.server.cluster.fanout`),
and the ranked queue and the HTTP routes the tables they read; it sits below
all of them, so none has to import another to read a table.
"""

from __future__ import annotations

from crokinole.store import Store
from crokinole.table import Table, event_from_dict

__all__ = ["stored_table"]


def stored_table(store: Store, table_id: str) -> tuple[Table, int] | None:
    """The table as the store holds it, and the version of its stored snapshot; None if none.

    Raises:
        InvalidRecordError: the stored snapshot or events are not a table's.
    """
    data = store.table(table_id)
    if data is None:
        return None
    table = Table.from_dict(data.snapshot)
    snapshot_version = table.version
    for stored in store.table_events(table_id, after=snapshot_version):
        table = table.fold(event_from_dict(stored))
    return table, snapshot_version
