"""Replays of finished games: the record replayed shot by shot for the replay viewer.

The routes are added by the replay work of issue 11 (see docs/replays.md).
"""

from __future__ import annotations

from starlette.routing import BaseRoute

from crokinole.store import Store


def routes(store: Store) -> list[BaseRoute]:
    """The replay viewer's routes (none yet)."""
    del store
    return []
