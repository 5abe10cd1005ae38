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
:data:`MAX_REVIEW_SHOTS` shots.  Bad input is answered
400 ``{"error": "<plain words>"}``; nothing is ever stored.  A table's
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

import datetime
import functools
import re
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.analysis import Accuracy, AnalysisError, fit_accuracy, hints
from crokinole.analysis.heatmap import heat_map
from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    position_from_code,
    position_from_data,
    practice_game,
)
from crokinole.analysis.review import assemble, review_step, review_steps
from crokinole.errors import CrokinoleError, InvalidRecordError, TableError
from crokinole.rules import Game
from crokinole.server.accounts import Accounts
from crokinole.server.http.accounts import COOKIE
from crokinole.server.http.practice import utc_today
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.owner.cpu import AnalysisBusyError, AnalysisPool
from crokinole.server.owner.tables import Tables, stored_table
from crokinole.server.ranked.fair_play import daily_refused, engine_help_refused
from crokinole.server.ws.messages import LEVEL_IDS, TABLE_PATTERN, TOKEN_PATTERN
from crokinole.server.ws.views import seat_names
from crokinole.store import Store
from crokinole.table import GameStarted, Table, check_name, event_from_dict
from crokinole.web import STATIC_DIR

__all__ = [
    "MAX_BODY_BYTES",
    "MAX_RECORD_BYTES",
    "MAX_REVIEW_SHOTS",
    "NO_ACCURACY",
    "AnalysisHttpError",
    "finished_game",
    "fitted_accuracy",
    "own_accuracy",
    "routes",
]

STATIC = STATIC_DIR

#: The largest game record ``POST /api/review`` reads.
MAX_RECORD_BYTES = 512 * 1024
#: The longest game a review takes, in shots (a four-round doubles game with its
#: four extra rounds is 192).
MAX_REVIEW_SHOTS = 256
#: The largest body of a practice room's request (a position is a few hundred bytes).
MAX_BODY_BYTES = 16 * 1024
#: Reviews of tables' games kept ready.
CACHE_SIZE = 32
#: What a player who asks for their own accuracy without drill results is told.
NO_ACCURACY = "play the open-20 drill first: your accuracy is fitted from your open-20 results"
#: The accuracies a request may name (``hand`` is the practice room's steady hand).
ACCURACY_NAMES = ("steady", "hand", "human", *LEVEL_IDS, "mine")


class AnalysisHttpError(Exception):
    """A request that cannot be answered, with its HTTP status and a plain message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------- accuracies


@functools.lru_cache(maxsize=256)
def fitted_accuracy(made: int, attempts: int) -> Accuracy:
    """The accuracy ("mine") fitted to ``made`` open 20s of ``attempts`` (blocking; kept).

    Raises:
        AnalysisError: a rate that cannot be fitted (under 2%), in plain words.
    """
    return fit_accuracy(made / attempts)


async def own_accuracy(
    store: Store, tables: Tables, device: str | None, account_id: int | None
) -> Accuracy | None:
    """The accuracy fitted to the open-20 drill results of ``device`` (or the account).

    None when there are none.  The results are read off the event loop and
    the fit is computed on the CPU pool.

    Raises:
        AnalysisError: results whose rate cannot be fitted (in plain words).
    """
    if device is None and account_id is None:
        return None
    record = await anyio.to_thread.run_sync(store.open_twenty_record, device or "", account_id)
    if record is None:
        return None
    made, attempts = record
    if attempts <= 0:
        return None
    return await tables.cpu.run(functools.partial(fitted_accuracy, int(made), int(attempts)))


# ---------------------------------------------------------------- games


def finished_game(store: Store, table_id: str, game_number: int | None) -> tuple[Table, Game]:
    """The table's finished (or abandoned) game ``game_number`` (None: its last) (blocking).

    Raises:
        AnalysisHttpError: no such table or game (404), or the game is under way (409).
    """
    stored = stored_table(store, table_id)
    if stored is None:
        raise AnalysisHttpError(404, f"table {table_id} has no game")
    table = stored[0]
    if game_number is not None and game_number != table.game_number:
        if not 1 <= game_number < table.game_number:
            raise AnalysisHttpError(404, f"table {table_id} has no game {game_number}")
        events = [event_from_dict(d) for d in store.table_events(table_id)]
        # The table as it was when game N+1 started: its game is game N, finished.
        upto = next(
            i
            for i, e in enumerate(events)
            if isinstance(e, GameStarted) and e.game_number == game_number + 1
        )
        table = Table.replay(events[:upto])
    game = table.game
    if game is None:
        raise AnalysisHttpError(404, f"table {table_id} has no game")
    if not game.is_over and table.stage == "playing":
        raise AnalysisHttpError(
            409, "this game is not finished yet: it is reviewed once it is over"
        )
    return table, game


def _game_number(text: str | None) -> int | None:
    """The ``game`` query parameter: None (the table's last game) or a game number from 1.

    >>> _game_number(None), _game_number("2")
    (None, 2)
    >>> _game_number("x")
    Traceback (most recent call last):
    ...
    crokinole.server.http.review.AnalysisHttpError: game is a game number from 1, not 'x'
    """
    if text is None:
        return None
    if not re.fullmatch(r"[1-9][0-9]{0,5}", text):
        raise AnalysisHttpError(400, f"game is a game number from 1, not {text[:20]!r}")
    return int(text)


class _Cache:
    """The last reviews made, by table, game, table version and accuracy (thread-safe)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: tuple[Any, ...], value: dict[str, Any]) -> None:
        with self._lock:
            self._items[key] = value
            if len(self._items) > self._size:
                self._items.popitem(last=False)


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
    seats = {seat.name.lower() for seat in game.rules.seats}
    names: dict[str, str] = {}
    for seat, name in given.items():
        try:
            if seat in seats:
                names[seat] = check_name(name)
        except TableError:
            continue
    return names


async def _body(request: Request, limit: int) -> bytes:
    raw = await request.body()
    if len(raw) > limit:
        raise AnalysisHttpError(413, f"the request is larger than {limit // 1024} KiB")
    if not raw.strip():
        raise AnalysisHttpError(400, "the request has no body")
    return raw


async def _json_object(request: Request) -> dict[str, Any]:
    raw = await _body(request, MAX_BODY_BYTES)
    try:
        data = read_json(raw)
    except JsonInputError as exc:
        raise AnalysisHttpError(400, f"the request is not JSON we can read: {exc}") from None
    if not isinstance(data, dict):
        raise AnalysisHttpError(400, "the request is a JSON object")
    return data


def _position(data: dict[str, Any]) -> PracticePosition:
    """The practice position of a request: its ``code``, or its ``position`` object."""
    code, given = data.get("code"), data.get("position")
    try:
        if code is not None and given is not None:
            raise AnalysisHttpError(400, "send the position's code or the position, not both")
        if code is not None:
            if not isinstance(code, str):
                raise AnalysisHttpError(400, "code is the text of a position link")
            return position_from_code(code)
        if given is None:
            raise AnalysisHttpError(400, "send the position's code or the position")
        return position_from_data(given)
    except AnalysisError as exc:
        raise AnalysisHttpError(400, str(exc)) from None


def _unknown(data: dict[str, Any], known: set[str]) -> None:
    unknown = sorted(str(k) for k in set(data) - known)
    if unknown:
        raise AnalysisHttpError(400, f"unknown field(s): {', '.join(unknown)}")


def _accuracy_name(value: object, default: str) -> str:
    name = default if value is None else value
    if not isinstance(name, str) or name not in ACCURACY_NAMES:
        choices = ", ".join(ACCURACY_NAMES)
        raise AnalysisHttpError(400, f"accuracy is one of {choices}, not {value!r}")
    return name


def _device(request: Request) -> str | None:
    token = request.headers.get("x-device-token")
    if token is not None and not re.match(TOKEN_PATTERN, token):
        raise AnalysisHttpError(400, "a device token is 16–64 letters, digits, '-' or '_'")
    return token


# ---------------------------------------------------------------- routes


def routes(
    store: Store,
    tables: Tables,
    accounts: Accounts | None = None,
    analysis: AnalysisPool | None = None,
    *,
    today: Callable[[], datetime.date] = utc_today,
) -> list[BaseRoute]:
    """The review JSON and page, and the practice room's hints and heat maps.

    ``analysis``: the pool they are computed on (the app's; by default one
    of a thread made here). ``today`` is the UTC date (a clock for tests):
    the day's challenge gets no hints.
    """
    pool = analysis if analysis is not None else AnalysisPool()
    cache = _Cache()
    running: set[str] = set()

    async def account_of(request: Request) -> int | None:
        cookie = request.cookies.get(COOKIE)
        if accounts is None or not cookie:
            return None
        account = await anyio.to_thread.run_sync(accounts.account_for_token, cookie)
        return account.id if account is not None else None

    async def fair(request: Request) -> None:
        """Engine help is refused to a device or account with a ranked game in play."""
        device, account = _device(request), await account_of(request)
        why = await anyio.to_thread.run_sync(engine_help_refused, store, device, account)
        if why is not None:
            raise AnalysisHttpError(403, why)

    def not_the_daily(position: PracticePosition) -> None:
        why = daily_refused(position, today())
        if why is not None:
            raise AnalysisHttpError(403, why)

    @asynccontextmanager
    async def one_at_a_time(request: Request) -> AsyncIterator[None]:
        address = request.client.host if request.client else "?"
        if address in running:
            raise AnalysisHttpError(429, "one analysis at a time: wait for the last one to finish")
        running.add(address)
        try:
            yield
        finally:
            running.discard(address)

    async def accuracy_of(request: Request, name: str) -> Accuracy:
        if name == "mine":
            account_id = None
            cookie = request.cookies.get(COOKIE)
            if accounts is not None and cookie:
                account = await anyio.to_thread.run_sync(accounts.account_for_token, cookie)
                account_id = account.id if account is not None else None
            try:
                mine = await own_accuracy(store, tables, _device(request), account_id)
            except AnalysisError as exc:
                raise AnalysisHttpError(400, str(exc)) from None
            if mine is None:
                raise AnalysisHttpError(400, NO_ACCURACY)
            return mine
        return Accuracy.steady() if name == "hand" else Accuracy.named(name)

    def answer(
        make: Callable[[Request], Awaitable[dict[str, Any]]],
    ) -> Callable[[Request], Awaitable[Response]]:
        async def route(request: Request) -> Response:
            try:
                await fair(request)
                async with one_at_a_time(request), pool.place():
                    payload = await make(request)
            except AnalysisHttpError as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except AnalysisBusyError as exc:
                return JSONResponse(
                    {"error": str(exc)}, status_code=503, headers={"Retry-After": "5"}
                )
            return JSONResponse(payload, headers={"Cache-Control": "no-cache"})

        return route

    async def table_review(request: Request) -> dict[str, Any]:
        table_id = request.path_params["table"]
        if not re.match(TABLE_PATTERN, table_id):
            raise AnalysisHttpError(400, "a table id is 32 hexadecimal digits")
        game_number = _game_number(request.query_params.get("game"))
        name = _accuracy_name(request.query_params.get("accuracy"), "human")
        if name == "mine":
            raise AnalysisHttpError(400, "a table's game is reviewed under a shared accuracy")
        data = await anyio.to_thread.run_sync(store.table, table_id)
        if data is None:
            raise AnalysisHttpError(404, f"table {table_id} has no game")
        key = (table_id, game_number, data.version, name)
        found = cache.get(key)
        if found is not None:
            return found
        try:
            table, game = await anyio.to_thread.run_sync(
                finished_game, store, table_id, game_number
            )
        except InvalidRecordError as exc:
            raise AnalysisHttpError(500, f"this game's record cannot be read: {exc}") from None
        accuracy = await accuracy_of(request, name)
        reviewed = await _review(game, accuracy)
        found = {
            "table": table.id,
            "game_number": table.game_number,
            "names": seat_names(table, shared=True),  # who sat where ("Ann", "CPU Normal")
            **reviewed,
        }
        cache.put(key, found)
        return found

    async def record_review(request: Request) -> dict[str, Any]:
        name = _accuracy_name(request.query_params.get("accuracy"), "human")
        raw = await _body(request, MAX_RECORD_BYTES)
        try:
            game = Game.from_json(raw)
        except (CrokinoleError, ValueError, RecursionError) as exc:
            raise AnalysisHttpError(400, f"this is not a game record we can read: {exc}") from None
        accuracy = await accuracy_of(request, name)
        reviewed = await _review(game, accuracy)
        names = record_names(raw, game)
        return {"names": names, **reviewed} if names else reviewed

    async def _review(game: Game, accuracy: Accuracy) -> dict[str, Any]:
        """The review of ``game``, one job per shot on the analysis pool."""
        count = sum(1 for a in game.actions if a.kind == "shoot")
        if count > MAX_REVIEW_SHOTS:
            raise AnalysisHttpError(
                413,
                f"this game has {count} shots: a review takes games of at most "
                f"{MAX_REVIEW_SHOTS} shots",
            )
        try:
            steps = await pool.run(functools.partial(review_steps, game))
            shots = [
                await pool.run(functools.partial(review_step, step, accuracy)) for step in steps
            ]
        except AnalysisError as exc:
            raise AnalysisHttpError(400, f"this game cannot be reviewed: {exc}") from None
        return assemble(game, accuracy, 0, shots).to_dict()

    async def practice_hints(request: Request) -> dict[str, Any]:
        data = await _json_object(request)
        _unknown(data, {"code", "position", "accuracy"})
        position = _position(data)
        not_the_daily(position)
        accuracy = await accuracy_of(request, _accuracy_name(data.get("accuracy"), "steady"))
        try:
            game = practice_game(position)
            found = await pool.run(functools.partial(hints, game, accuracy))
        except AnalysisError as exc:
            raise AnalysisHttpError(400, str(exc)) from None
        return {
            "position": position_data(position),
            "code": position_code(position),
            "accuracy": accuracy.to_dict(),
            "hints": [h.to_dict() for h in found],
        }

    async def practice_heatmap(request: Request) -> dict[str, Any]:
        data = await _json_object(request)
        _unknown(data, {"code", "position", "position_deg", "metric", "accuracy"})
        position = _position(data)
        not_the_daily(position)
        where = data.get("position_deg")
        if isinstance(where, bool) or not isinstance(where, int | float):
            raise AnalysisHttpError(
                400, f"position_deg is the placement on the shooting line in degrees, not {where!r}"
            )
        metric = data.get("metric", "points")
        if metric not in ("points", "twenty", "valid"):
            raise AnalysisHttpError(400, f"metric is points, twenty or valid, not {metric!r}")
        accuracy = await accuracy_of(request, _accuracy_name(data.get("accuracy"), "steady"))
        try:
            game = practice_game(position)
            mapped = await pool.run(
                functools.partial(heat_map, game, float(where), accuracy, metric=metric)
            )
        except AnalysisError as exc:
            raise AnalysisHttpError(400, str(exc)) from None
        return mapped.to_dict()

    async def page(_: Request) -> Response:
        path = STATIC / "review.html"
        if not path.exists():  # pragma: no cover - the page ships with the package
            return JSONResponse({"error": "the review page is missing"}, status_code=404)
        return FileResponse(path, headers={"Cache-Control": "no-cache"})

    return [
        Route("/api/tables/{table}/review.json", answer(table_review)),
        Route("/api/review", answer(record_review), methods=["POST"]),
        Route("/api/analysis/hints", answer(practice_hints), methods=["POST"]),
        Route("/api/analysis/heatmap", answer(practice_heatmap), methods=["POST"]),
        Route("/review/{table}", page),
        Route("/review", page),
    ]
