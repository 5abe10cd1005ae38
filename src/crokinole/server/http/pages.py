"""The static pages: the game, the score keeper, the ranked ladders' leaderboard and profiles.

Each is a page whose scripts read the JSON routes; none is kept by a cache
(``no-cache``), so a new version of the client is loaded at once.  The game
page reads an invite's or a spectator link's code from its path; the
ladders' pages read the ladders' JSON (docs/protocol.md, *Ranked play*:
``GET /api/leaderboard`` and ``GET /api/players/{username}``); the profile
reads the username from its own path.  :func:`page` makes the route of a
page (the practice room, the review and the replay viewer use it too).

| method | route | does |
|---|---|---|
| GET | /, /join/{code}, /watch/{code} | the game (a party's invite link, its spectators' link) |
| GET | /keep-score | the score keeper |
| GET | /leaderboard | the leaderboard page (``?ladder=doubles&min_games=0`` preselect) |
| GET | /players/{username} | a player's profile page |

>>> [route.path for route in routes]
['/', '/join/{code}', '/watch/{code}', '/keep-score', '/leaderboard', '/players/{username}']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.server.http.context import context

__all__ = ["page", "routes"]


def page(name: str) -> Callable[[Request], Awaitable[Response]]:
    """The route of the static page ``name`` (``review.html`` ...), which no cache keeps."""

    async def serve(request: Request) -> Response:
        return FileResponse(context(request).static / name, headers={"Cache-Control": "no-cache"})

    serve.__name__ = serve.__qualname__ = name.removesuffix(".html").replace("-", "_")
    return serve


#: The pages (their data comes from the JSON routes).
routes: list[BaseRoute] = [
    Route("/", page("index.html")),
    # A party's invite link and its spectators' link: the client reads the path.
    Route("/join/{code}", page("index.html")),
    Route("/watch/{code}", page("index.html")),
    Route("/keep-score", page("scorekeeper.html")),
    Route("/leaderboard", page("leaderboard.html")),
    Route("/players/{username}", page("profile.html")),
]
