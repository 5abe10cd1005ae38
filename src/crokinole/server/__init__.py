"""The game server: an ASGI app (Starlette) with tables, the websocket protocol and the store.

Run it with ``crokinole serve``; see ``docs/protocol.md`` for the protocol.
:func:`create_app` is loaded when first asked for, so that reading the
settings (:mod:`crokinole.server.settings`, which the command line builds
its options from) loads no web or database stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crokinole.server.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from crokinole.server.app import create_app  # noqa: PLC0415 - loaded when asked for

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
