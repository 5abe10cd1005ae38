"""One bounded, thread-safe least-recently-used cache for the server's made-once answers.

Reviews, replays and the parts of a shot's messages that every viewer gets
alike are made once and kept here (by table, version and what was asked),
the oldest used going first.  It wraps :class:`cachetools.LRUCache` with a
lock, since the HTTP routes fill it from worker threads.

>>> cache: LruCache[str, int] = LruCache(2)
>>> cache.get_or_make("a", lambda: 1), cache.get_or_make("a", lambda: 99)
(1, 1)
>>> cache.put("b", 2); cache.put("c", 3)
>>> cache.get("a") is None, cache.get("c")
(True, 3)
>>> cache.clear(); len(cache)
0
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from cachetools import LRUCache

__all__ = ["LruCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """At most ``size`` entries; reading one makes it the newest."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a cache holds at least 1 entry, not {size}")
        self._items: LRUCache[K, V] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key``, or None."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key`` (the oldest used entry goes when full)."""
        with self._lock:
            self._items[key] = value

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, made by ``make()`` and kept the first time.

        ``make`` runs outside the lock: two threads asking at once may both
        make it, and the value kept is the last one made (equal by design).
        """
        with self._lock:
            if key in self._items:
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
        return value

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
