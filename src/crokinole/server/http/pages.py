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
| GET | /how-to-play | the rules in plain words (``/static/how-to-play.html`` redirects here) |
| GET | /bots | the bots: who is online, a challenge, your own bot's account and API tokens |
| GET | /events, /events/{id}, /events/join/{code} | the events, an event (its join form open) |

Every page holds the site's top bar (``static/partials/topbar.html``: the logo, the
navigation, the account) where its header says ``<!--#site-bar-->``, the page's own link
marked ``aria-current="page"``: one bar, written once, served in the page (no script draws
it, so nothing moves as a page opens).

>>> [route.path for route in routes][:6]
['/', '/join/{code}', '/watch/{code}', '/keep-score', '/leaderboard', '/players/{username}']
>>> [route.path for route in routes][6:8]
['/how-to-play', '/bots']
>>> [route.path for route in routes][8:]
['/events', '/events/join/{code}', '/events/{event}', '/static/how-to-play.html']
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.server.http.context import context

__all__ = ["SITE_BAR", "page", "routes", "with_site_bar"]

#: Where a page's header takes the site's top bar.
SITE_BAR = "<!--#site-bar-->"

#: The navigation's entry of each page (its ``data-nav``); a page not named has none.
NAV = {
    "index.html": "play",
    "practice.html": "practice",
    "drills.html": "drills",
    "leaderboard.html": "leaderboard",
    "profile.html": "leaderboard",
    "scorekeeper.html": "keep-score",
    "how-to-play.html": "how-to-play",
    "events.html": "events",
    "event.html": "events",
    "bots.html": "bots",
}

_pages: dict[tuple[Path, int, int], str] = {}


def with_site_bar(html: str, bar: str, nav: str | None) -> str:
    """The page ``html`` with the top bar ``bar`` where it says so, ``nav`` the current link.

    >>> bar = '<a data-nav="play">Play</a> <a data-nav="drills">Drills</a>'
    >>> with_site_bar("<nav><!--#site-bar--></nav>", bar, "drills")
    '<nav><a data-nav="play">Play</a> <a data-nav="drills" aria-current="page">Drills</a></nav>'
    >>> with_site_bar("<p>no bar</p>", bar, "play")
    '<p>no bar</p>'
    """
    if nav is not None:
        bar = bar.replace(f'data-nav="{nav}"', f'data-nav="{nav}" aria-current="page"', 1)
    return html.replace(SITE_BAR, bar.strip(), 1)


def _read(static: Path, name: str) -> str:
    """The page ``name`` with its top bar, read again only when a file of it changed.

    A page whose header takes no bar is served as it is (the bar's file need not exist).
    """
    path, bar = static / name, static / "partials" / "topbar.html"
    key = (path, path.stat().st_mtime_ns, bar.stat().st_mtime_ns if bar.exists() else 0)
    if key not in _pages:
        text = path.read_text(encoding="utf-8")
        if SITE_BAR in text:
            text = with_site_bar(text, bar.read_text(encoding="utf-8"), NAV.get(name))
        _pages[key] = text
    return _pages[key]


def page(name: str, *, optional: bool = False) -> Callable[[Request], Awaitable[Response]]:
    """The route of the static page ``name`` (``review.html`` ...), which no cache keeps.

    ``optional``: a page that may not be shipped yet answers 404 while it is missing.
    """

    async def serve(request: Request) -> Response:
        static = context(request).static
        if optional and not (static / name).is_file():
            return HTMLResponse("<h1>Not found</h1>", status_code=404)
        html = _read(static, name)
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

    serve.__name__ = serve.__qualname__ = name.removesuffix(".html").replace("-", "_")
    return serve


async def to_how_to_play(_: Request) -> Response:
    """The rules' old address sends its visitor to the new one."""
    return RedirectResponse("/how-to-play", status_code=308)


#: The pages (their data comes from the JSON routes).
routes: list[BaseRoute] = [
    Route("/", page("index.html")),
    # A party's invite link and its spectators' link: the client reads the path.
    Route("/join/{code}", page("index.html")),
    Route("/watch/{code}", page("index.html")),
    Route("/keep-score", page("scorekeeper.html")),
    Route("/leaderboard", page("leaderboard.html")),
    Route("/players/{username}", page("profile.html")),
    Route("/how-to-play", page("how-to-play.html")),
    Route("/bots", page("bots.html")),
    # Events: the list and the create form, an event, and a join link (the page opens its
    # join form from the path).
    Route("/events", page("events.html", optional=True)),
    Route("/events/join/{code}", page("event.html", optional=True)),
    Route("/events/{event}", page("event.html", optional=True)),
    # Its old address (links and bookmarks from before the top bar).
    Route("/static/how-to-play.html", to_how_to_play),
]
