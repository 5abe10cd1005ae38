"""The game server: an ASGI app (Starlette) with tables, the websocket protocol and the store.

Run it with ``crokinole serve``; see ``docs/protocol.md`` for the protocol.
"""

from crokinole.server.app import create_app

__all__ = ["create_app"]
