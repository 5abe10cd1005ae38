"""Leaderboards and player profiles of ranked play (HTTP, JSON).

| method | route | answers |
|---|---|---|
| GET | /api/leaderboard?ladder=singles&min_games=5 | the top 100 of a ladder by displayed rating |
| | (``ladder=bots``: the bots' ladder, rated apart from people) | |
| GET | /api/players/{username} | a player's ratings, W/D/L, rating history and ranked games |

Errors are ``{"code": "...", "message": "plain words"}``
(:mod:`crokinole.server.http.errors`): 400 for a bad ladder, count or
username, 404 for a username nobody has.  Read-only: nothing here changes.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.errors import ErrorCode
from crokinole.ranking import INITIAL, Ladder, display, is_provisional
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.store import RatingChangeData, RatingData, Store

__all__ = ["LEADERBOARD_SIZE", "MAX_MIN_GAMES", "leaderboard_payload", "profile_payload", "routes"]

#: A leaderboard lists at most this many players.
LEADERBOARD_SIZE = 100
#: The highest ``min_games`` a leaderboard takes.
MAX_MIN_GAMES = 100
#: ``min_games`` when none is given.
DEFAULT_MIN_GAMES = 5
#: A profile lists this many ranked games at most, the latest first.
PROFILE_GAMES = 50
_USERNAME = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _when(at: datetime) -> str:
    """A stored (UTC, naive) time as ISO 8601 with a Z."""
    return at.replace(microsecond=0).isoformat() + "Z"


def _ladder(value: str | None) -> Ladder:
    try:
        return Ladder(value if value is not None else Ladder.SINGLES)
    except ValueError:
        raise HttpError(
            ErrorCode.BAD_LADDER, f"a ladder is singles, doubles or bots, not {value!r}"
        ) from None


def _min_games(value: str | None) -> int:
    if value is None:
        return DEFAULT_MIN_GAMES
    if not re.fullmatch(r"[0-9]{1,3}", value) or int(value) > MAX_MIN_GAMES:
        raise HttpError(
            ErrorCode.BAD_REQUEST,
            f"min_games is a whole number from 0 to {MAX_MIN_GAMES}, not {value!r}",
        )
    return int(value)


def leaderboard_payload(ladder: Ladder, min_games: int, rows: list[RatingData]) -> dict[str, Any]:
    """The leaderboard's JSON from the store's rows (best first)."""
    return {
        "ladder": ladder.value,
        "min_games": min_games,
        "players": [
            {
                "rank": rank,
                "username": row.username,
                "bot": row.bot,
                "rating": row.rating,
                "provisional": is_provisional(row.games),
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
            }
            for rank, row in enumerate(rows, 1)
        ],
    }


def _ladder_payload(rating: RatingData | None, history: list[RatingChangeData]) -> dict[str, Any]:
    return {
        "rating": rating.rating if rating is not None else display(INITIAL),
        "provisional": is_provisional(rating.games if rating is not None else 0),
        "games": rating.games if rating is not None else 0,
        "wins": rating.wins if rating is not None else 0,
        "draws": rating.draws if rating is not None else 0,
        "losses": rating.losses if rating is not None else 0,
        "history": [
            {
                "at": _when(h.at),
                "rating": h.change.rating_after,
                "table": h.table_id,
                "game_number": h.change.game_number,
                "outcome": h.change.outcome,
            }
            for h in history
        ],
    }


def profile_payload(
    username: str,
    account_id: int,
    ratings: list[RatingData],
    history: dict[str, list[RatingChangeData]],
    games: list[list[RatingChangeData]],
    *,
    bot: bool = False,
) -> dict[str, Any]:
    """A player's profile JSON from the store's rows (``bot``: a bot account's).

    A bot's profile shows the bots' ladder only; a person's the human ladders."""
    by_ladder = {r.ladder: r for r in ratings}
    listed = []
    for game in games:
        mine = next((c for c in game if c.change.account_id == account_id), None)
        if mine is None:
            continue
        side = mine.change.side
        others = [c for c in game if c.change.account_id != account_id]
        listed.append(
            {
                "table": mine.table_id,
                "game_number": mine.change.game_number,
                "ladder": mine.change.ladder,
                "at": _when(mine.at),
                "outcome": mine.change.outcome,
                "opponents": [c.username for c in others if c.change.side != side],
                "partners": [c.username for c in others if c.change.side == side],
                "before": mine.change.rating_before,
                "after": mine.change.rating_after,
            }
        )
    return {
        "username": username,
        "bot": bot,
        "ladders": {
            ladder.value: _ladder_payload(by_ladder.get(ladder.value), history[ladder.value])
            for ladder in Ladder
            if (ladder is Ladder.BOTS) == bot
        },
        "games": listed,
    }


async def leaderboard(request: Request) -> Response:
    """``GET /api/leaderboard``: the top of a ladder."""
    ladder = _ladder(request.query_params.get("ladder"))
    min_games = _min_games(request.query_params.get("min_games"))
    rows = await anyio.to_thread.run_sync(
        context(request).store.leaderboard, ladder.value, min_games, LEADERBOARD_SIZE
    )
    return JSONResponse(leaderboard_payload(ladder, min_games, rows))


def _profile(store: Store, name: str) -> dict[str, Any] | None:
    """The profile of the player called ``name``, or None (blocking)."""
    account = store.account_by_key(name.lower())
    if account is None:
        return None
    history = {ladder.value: store.rating_changes(account.id, ladder.value) for ladder in Ladder}
    return profile_payload(
        account.username,
        account.id,
        store.account_ratings(account.id),
        history,
        store.ranked_games(account.id, PROFILE_GAMES),
        bot=account.bot,
    )


async def player(request: Request) -> Response:
    """``GET /api/players/{username}``: a player's profile."""
    name = request.path_params["username"]
    if not _USERNAME.fullmatch(name):
        raise HttpError(ErrorCode.BAD_USERNAME, "a username is letters, digits, '_' and '-'")
    found = await anyio.to_thread.run_sync(_profile, context(request).store, name)
    if found is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"no player is called {name}")
    return JSONResponse(found)


routes: list[BaseRoute] = [
    Route("/api/leaderboard", leaderboard),
    Route("/api/players/{username}", player),
]
