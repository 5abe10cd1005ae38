"""Analysis over HTTP: reviews of games, and hints and heat maps for the practice room.

| method | route | does |
|---|---|---|
| GET | /api/tables/{table}/review.json | the review of the table's finished game |
| | | (``?game=N``: its game N; ``?accuracy=NAME``) |
| POST | /api/review | the review of a game record (R9 JSON, at most 512 KiB) |
| POST | /api/analysis/hints | the best three shots of a practice position |
| POST | /api/analysis/heatmap | a heat map of one placement in a practice position |
| GET | /review/{table}, /review | the review page (``/review``: of a record file) |

Every analysis is computed on the analysis pool
(:class:`~crokinole.server.owner.cpu.AnalysisPool`), apart from the CPU players'
threads and off the event loop; one client address has one at a time (429
otherwise), and when every place of the pool's queue is taken the answer is
503.  A review is computed a shot at a time (one job per shot, so
reviews asked together take turns) and takes games of at most
:data:`MAX_REVIEW_SHOTS` shots.  Bad input is answered 400 ``{"code":
"bad_request", "message": "<plain words>"}`` (:mod:`crokinole.server.http.errors`);
nothing is ever stored.  A table's
review is kept (a finished game's review never changes).

**Fair play** (:mod:`crokinole.server.ranked.fair_play`): while the device
(``X-Device-Token``) or the logged-in account has a ranked game in play,
every route here but the page answers 403 with plain words, for any
position or game; the practice room's hints and heat maps refuse the day's
challenge position (or one that holds it) during its day (403).

The accuracies (``accuracy``) are the analysis layer's names: ``steady``
(every shot as aimed), ``human`` (the human hand of the tables), a CPU
level's id, or ``mine``: the accuracy fitted to the open-20 drill results
of the device (``X-Device-Token`` header) or of the logged-in account.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.analysis import Accuracy, AnalysisError, hints
from crokinole.analysis.heatmap import heat_map
from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    practice_game,
)
from crokinole.analysis.review import assemble, review_step, review_steps
from crokinole.errors import CrokinoleError, ErrorCode, InvalidRecordError, TableError
from crokinole.rules import Game
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import (
    account_id_of,
    client_address,
    device_token,
    json_body,
    position,
    raw_body,
)
from crokinole.server.http.pages import page
from crokinole.server.http.replays import (
    finished,
    game_number,
    table_at_game,
    table_id,
    table_version,
)
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.owner.accuracy import NO_ACCURACY, fitted_accuracy, own_accuracy
from crokinole.server.ranked.fair_play import daily_refused, engine_help_refused
from crokinole.server.ws.messages import LEVEL_IDS
from crokinole.server.ws.views import bot_seats, seat_names, you_payload
from crokinole.store import Store
from crokinole.table import Table, check_name

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_RECORD_BYTES",
    "MAX_REVIEW_SHOTS",
    "NO_ACCURACY",
    "finished_game",
    "fitted_accuracy",
    "own_accuracy",
    "routes",
]

#: The largest game record ``POST /api/review`` reads.
MAX_RECORD_BYTES = 512 * 1024
#: The longest game a review takes, in shots (a four-round doubles game with its
#: four extra rounds is 192).
MAX_REVIEW_SHOTS = 256
#: The largest body of a practice room's request (a position is a few hundred bytes).
MAX_BODY_BYTES = 16 * 1024
#: The accuracies a request may name (``hand`` is the practice room's steady hand).
ACCURACY_NAMES = ("steady", "hand", "human", *LEVEL_IDS, "mine")


# ---------------------------------------------------------------- accuracies


# ---------------------------------------------------------------- games


def finished_game(store: Store, table_id: str, game_number: int | None) -> tuple[Table, Game]:
    """The table's finished (or abandoned) game ``game_number`` (None: its last) (blocking).

    Raises:
        HttpError: no such table or game (404), or the game is under way (409).
    """
    table, _ = table_at_game(store, table_id, game_number)
    return table, finished(table, "this game is not finished yet: it is reviewed once it is over")


# ---------------------------------------------------------------- reading requests


def record_names(raw: bytes, game: Game) -> dict[str, str]:
    """The players' names a record file carries (its optional ``names``), seats of its game only.

    A name that is not a player's name (not text, empty, too long, control
    characters) is left out: the seat is then named after itself.

    >>> from crokinole.rules import Rules
    >>> record_names(b'{"names": {"south": "Ann", "north": "", "east": "Bob"}}', Game(Rules()))
    {'south': 'Ann'}
    """
    try:
        data = read_json(raw)
    except JsonInputError:
        return {}
    given = data.get("names") if isinstance(data, dict) else None
    if not isinstance(given, dict):
        return {}
    seats = {seat.key for seat in game.rules.seats}
    names: dict[str, str] = {}
    for seat, name in given.items():
        try:
            if seat in seats:
                names[seat] = check_name(name)
        except TableError:
            continue
    return names


def _accuracy_name(value: object, default: str) -> str:
    name = default if value is None else value
    if not isinstance(name, str) or name not in ACCURACY_NAMES:
        choices = ", ".join(ACCURACY_NAMES)
        raise HttpError(ErrorCode.BAD_REQUEST, f"accuracy is one of {choices}, not {value!r}")
    return name


async def _practice_request(
    request: Request, fields: set[str]
) -> tuple[dict[str, Any], PracticePosition]:
    """A practice room's request and its position, which may not be the day's challenge."""
    data = await json_body(request, MAX_BODY_BYTES, fields, noun="the request")
    found = position(data)
    why = daily_refused(found, context(request).today())
    if why is not None:
        raise HttpError(ErrorCode.FAIR_PLAY, why)
    return data, found


# ---------------------------------------------------------------- computing


async def _fair(request: Request) -> None:
    """Engine help is refused to a device or account with a ranked game in play."""
    device, account = device_token(request, required=False), await account_id_of(request)
    store = context(request).store
    why = await anyio.to_thread.run_sync(engine_help_refused, store, device, account)
    if why is not None:
        raise HttpError(ErrorCode.FAIR_PLAY, why)


@asynccontextmanager
async def _one_at_a_time(request: Request) -> AsyncIterator[None]:
    running, address = context(request).analysing, client_address(request)
    if address in running:
        raise HttpError(
            ErrorCode.RATE_LIMITED, "one analysis at a time: wait for the last one to finish"
        )
    running.add(address)
    try:
        yield
    finally:
        running.discard(address)


async def _analysed(
    request: Request, make: Callable[[Request], Awaitable[dict[str, Any]]]
) -> Response:
    """The answer ``make`` works out: for a fair player, one at a time, with a place on the pool."""
    await _fair(request)
    async with _one_at_a_time(request), context(request).pool().place():
        payload = await make(request)
    return JSONResponse(payload, headers={"Cache-Control": "no-cache"})


async def _accuracy_of(request: Request, name: str) -> Accuracy:
    if name != "mine":
        return Accuracy.steady() if name == "hand" else Accuracy.named(name)
    http = context(request)
    try:
        mine = await own_accuracy(
            http.store,
            http.owner(),
            device_token(request, required=False),
            await account_id_of(request),
        )
    except AnalysisError as exc:
        raise HttpError(ErrorCode.BAD_REQUEST, str(exc)) from None
    if mine is None:
        raise HttpError(ErrorCode.BAD_REQUEST, NO_ACCURACY)
    return mine


async def _review(request: Request, game: Game, accuracy: Accuracy) -> dict[str, Any]:
    """The review of ``game``, one job per shot on the analysis pool."""
    count = sum(1 for a in game.actions if a.kind == "shoot")
    if count > MAX_REVIEW_SHOTS:
        raise HttpError(
            ErrorCode.TOO_LARGE,
            f"this game has {count} shots: a review takes games of at most "
            f"{MAX_REVIEW_SHOTS} shots",
        )
    pool = context(request).pool()
    try:
        steps = await pool.run(functools.partial(review_steps, game))
        shots = [await pool.run(functools.partial(review_step, step, accuracy)) for step in steps]
    except AnalysisError as exc:
        raise HttpError(ErrorCode.BAD_REQUEST, f"this game cannot be reviewed: {exc}") from None
    return assemble(game, accuracy, 0, shots).to_dict()


# ---------------------------------------------------------------- routes


async def _table_review(request: Request) -> dict[str, Any]:
    found_id, number = table_id(request), game_number(request)
    name = _accuracy_name(request.query_params.get("accuracy"), "human")
    if name == "mine":
        raise HttpError(ErrorCode.BAD_REQUEST, "a table's game is reviewed under a shared accuracy")
    http = context(request)
    version = await anyio.to_thread.run_sync(table_version, http.store, found_id)
    key = ("review", found_id, number, version, name)
    found = http.reviews.get(key)
    if found is not None:
        return {**found, "you": await _your_seats(request, found_id, number)}
    try:
        table, game = await anyio.to_thread.run_sync(finished_game, http.store, found_id, number)
    except InvalidRecordError as exc:
        raise HttpError(
            ErrorCode.SERVER_ERROR, f"this game's record cannot be read: {exc}"
        ) from None
    reviewed = await _review(request, game, await _accuracy_of(request, name))
    found = {
        "table": table.id,
        "game_number": table.game_number,
        "names": seat_names(table, shared=True),  # who sat where ("Ann", "CPU Normal")
        "bots": bot_seats(table),  # the seats a bot account played (marked BOT)
        **reviewed,
    }
    http.reviews.put(key, found)
    return {**found, "you": _seats_of(table, device_token(request, required=False))}


def _seats_of(table: Table, device: str | None) -> list[str]:
    """The seats the asking device held at the table (none for anyone else)."""
    seats: list[str] = you_payload(table, device)["seats"]
    return seats


async def _your_seats(request: Request, found_id: str, number: int | None) -> list[str]:
    """The asking device's seats at the table's game, for a review that was kept."""
    table, _ = await anyio.to_thread.run_sync(
        table_at_game, context(request).store, found_id, number
    )
    return _seats_of(table, device_token(request, required=False))


async def _record_review(request: Request) -> dict[str, Any]:
    name = _accuracy_name(request.query_params.get("accuracy"), "human")
    raw = await raw_body(request, MAX_RECORD_BYTES, required=True)
    try:
        game = Game.from_json(raw)
    except (CrokinoleError, ValueError, RecursionError) as exc:
        raise HttpError(
            ErrorCode.BAD_REQUEST, f"this is not a game record we can read: {exc}"
        ) from None
    reviewed = await _review(request, game, await _accuracy_of(request, name))
    names = record_names(raw, game)
    return {"names": names, **reviewed} if names else reviewed


async def _hints(request: Request) -> dict[str, Any]:
    data, found = await _practice_request(request, {"code", "position", "accuracy"})
    accuracy = await _accuracy_of(request, _accuracy_name(data.get("accuracy"), "steady"))
    game = practice_game(found)
    best = await context(request).pool().run(functools.partial(hints, game, accuracy))
    return {
        "position": position_data(found),
        "code": position_code(found),
        "accuracy": accuracy.to_dict(),
        "hints": [h.to_dict() for h in best],
    }


async def _heatmap(request: Request) -> dict[str, Any]:
    fields = {"code", "position", "position_deg", "metric", "accuracy"}
    data, found = await _practice_request(request, fields)
    where = data.get("position_deg")
    if isinstance(where, bool) or not isinstance(where, int | float):
        raise HttpError(
            ErrorCode.BAD_REQUEST,
            f"position_deg is the placement on the shooting line in degrees, not {where!r}",
        )
    metric = data.get("metric", "points")
    if metric not in ("points", "twenty", "valid"):
        raise HttpError(ErrorCode.BAD_REQUEST, f"metric is points, twenty or valid, not {metric!r}")
    accuracy = await _accuracy_of(request, _accuracy_name(data.get("accuracy"), "steady"))
    game = practice_game(found)
    mapped = (
        await context(request)
        .pool()
        .run(functools.partial(heat_map, game, float(where), accuracy, metric=metric))
    )
    return mapped.to_dict()


async def table_review(request: Request) -> Response:
    """``GET /api/tables/{table}/review.json``: the review of a table's finished game."""
    return await _analysed(request, _table_review)


async def record_review(request: Request) -> Response:
    """``POST /api/review``: the review of a game record."""
    return await _analysed(request, _record_review)


async def practice_hints(request: Request) -> Response:
    """``POST /api/analysis/hints``: the best three shots of a practice position."""
    return await _analysed(request, _hints)


async def practice_heatmap(request: Request) -> Response:
    """``POST /api/analysis/heatmap``: a heat map of one placement in a practice position."""
    return await _analysed(request, _heatmap)


routes: list[BaseRoute] = [
    Route("/api/tables/{table}/review.json", table_review),
    Route("/api/review", record_review, methods=["POST"]),
    Route("/api/analysis/hints", practice_hints, methods=["POST"]),
    Route("/api/analysis/heatmap", practice_heatmap, methods=["POST"]),
    Route("/review/{table}", page("review.html")),
    Route("/review", page("review.html")),
]
