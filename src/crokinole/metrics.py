"""Process-wide counters of the work a server does: commits, connections, shots, leases lost.

Every layer counts here what an operator (``GET /metrics``) and the load
benchmark (``crokinole bench server --fixed``) divide by the shots played:
the store its commits and the database connections it opened, the owner the
shots it applied, the hub the leases it lost.  Counting is thread-safe (the
store counts from worker threads) and costs a lock and an addition.

>>> before = counts().get("doc_example", 0)
>>> count("doc_example"); count("doc_example", 2)
>>> counts()["doc_example"] - before
3
"""

from __future__ import annotations

import threading
from collections import Counter

#: The counters the server keeps (other names may be counted too).
DB_COMMITS = "db_commits"
DB_CONNECTIONS = "db_connections"
SHOTS = "shots"
COMMANDS = "commands"
LEASES_LOST = "leases_lost"

_lock = threading.Lock()
_counts: Counter[str] = Counter()


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to the counter ``name`` (made at 0 the first time)."""
    with _lock:
        _counts[name] += n


def counts() -> dict[str, int]:
    """Every counter's value now (a copy)."""
    with _lock:
        return dict(_counts)
