"""The ranked ladders' pages: the leaderboard and a player's profile.

Both are static pages whose scripts read the ladders' JSON (docs/protocol.md, *Ranked play*:
``GET /api/leaderboard`` and ``GET /api/players/{username}``); the profile
reads the username from its own path.

| method | route | does |
|---|---|---|
| GET | /leaderboard | the leaderboard page (``?ladder=doubles&min_games=0`` preselect) |
| GET | /players/{username} | a player's profile page |
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.web import STATIC_DIR

__all__ = ["routes"]

STATIC = STATIC_DIR


def routes() -> list[BaseRoute]:
    """The leaderboard's and the profiles' pages (their data comes from the JSON routes).

    >>> [route.path for route in routes()]  # doctest: +NORMALIZE_WHITESPACE
    ['/leaderboard', '/players/{username}']
    """

    async def leaderboard(_: Request) -> Response:
        return FileResponse(STATIC / "leaderboard.html", headers={"Cache-Control": "no-cache"})

    async def profile(_: Request) -> Response:
        return FileResponse(STATIC / "profile.html", headers={"Cache-Control": "no-cache"})

    return [
        Route("/leaderboard", leaderboard),
        Route("/players/{username}", profile),
    ]
