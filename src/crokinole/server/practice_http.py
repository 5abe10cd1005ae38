"""The practice room, the drills and the daily challenge over HTTP (JSON).

| method | route | sends | answers |
|---|---|---|---|
| GET | /practice | | the practice room (``?p=CODE`` opens a position) |
| GET | /drills | | the drills page |
| GET | /api/drills | | ``{"drills": [Drill.to_dict()]}`` |
| POST | /api/practice/shoot | ``code`` or ``position``, or ``drill``; ``shot`` | the shot played |
| POST | /api/drills/{id}/results | ``shots`` + X-Device-Token | the set, verified, kept |
| GET | /api/drills/results | X-Device-Token, ``?drill=`` | bests, trend, open-20 record |
| GET | /api/daily | (X-Device-Token) | today's challenge (and my score) |
| POST | /api/daily | ``day``, ``shots``, ``name`` + X-Device-Token | score and rank |
| GET | /api/daily/leaderboard | ``?day=YYYY-MM-DD`` (today) | the day's best scores |

A position is ``{"seat": "south", "discs": [["s", x, y], ["n", x, y]]}``
(:mod:`crokinole.analysis.practice`); a shot ``{"position", "direction",
"power"}``.  ``/api/practice/shoot`` answers ``position`` and ``code`` (after
the shot), ``summary`` (valid, foul, twenty, points ...), ``report`` and
``trajectory`` in the shapes a game's ``shot`` message carries
(:mod:`crokinole.server.payloads`), and ``board`` (the discs before the
shot with their ids, which the report and the trajectory name).  Sent
``drill`` (an id) instead of a position, the shot is played from that
drill's setup and the answer adds ``drill_points``, what the attempt scores
under the drill's rule (the page's running count; the set is scored again
when it is sent).

Scores are never taken from a client: a drill's set and a daily challenge
are the shots, replayed here with the deterministic physics
(:func:`~crokinole.analysis.drills.score_drill`), and the score kept is the
replay's.  A logged-in player's (session cookie) results count for the
account on all its devices.

Errors are ``{"error": "plain words"}``: 400 for any bad input (nothing is
kept), 415 for a POST that is not JSON, 403 for a POST from another site,
409 for a second daily score from one device or account, 503 while the
database cannot be reached.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.analysis.drills import (
    DRILLS,
    MAX_ATTEMPTS,
    Challenge,
    Drill,
    challenge_points,
    daily_challenge,
    score_drill,
)
from crokinole.analysis.practice import (
    PracticePosition,
    PracticeResult,
    position_code,
    position_data,
    position_from_code,
    position_from_data,
    practice_shot,
    shot_from_data,
)
from crokinole.board import Shot
from crokinole.errors import AnalysisError
from crokinole.server.accounts import Account, Accounts
from crokinole.server.accounts_http import COOKIE
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.limits import ServerSettings, origin_allowed
from crokinole.server.payloads import report_payload, trajectory_payload
from crokinole.server.wire import TOKEN_PATTERN
from crokinole.store import AlreadyPlayedError, Store, StoreUnavailableError

__all__ = ["MAX_BODY", "MAX_NAME", "routes", "utc_today"]

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"

#: The largest request body read (100 shots take about 8 KB).
MAX_BODY = 65_536
#: The longest name on the daily leaderboard.
MAX_NAME = 24
#: Sets of a drill shown in a trend.
TREND_LENGTH = 50
#: Scores shown on a day's leaderboard.
LEADERBOARD_LENGTH = 20


def utc_today() -> datetime.date:
    """Today's date in UTC: the daily challenge changes at midnight UTC for everyone."""
    return datetime.datetime.now(datetime.UTC).date()


class _RefusedError(Exception):
    """A request refused, with its HTTP status and a plain message; nothing was kept."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _bad(message: str) -> _RefusedError:
    return _RefusedError(400, message)


async def _body(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object of a POST, with no fields but ``fields``."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise _RefusedError(415, "send the request as JSON (Content-Type: application/json)")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise _RefusedError(413, f"the request is larger than {MAX_BODY} bytes")
    try:
        data: Any = read_json(raw or b"{}")
    except JsonInputError as error:
        reason = str(error).replace("the message", "it")
        raise _bad(f"the request body cannot be read: {reason}") from None
    if not isinstance(data, dict):
        raise _bad("the request body is a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise _bad(f"unknown field(s): {', '.join(unknown)}")
    return data


def _device(request: Request) -> str:
    token = request.headers.get("x-device-token")
    if token is None:
        raise _bad("send the device token in the X-Device-Token header")
    if not re.match(TOKEN_PATTERN, token):
        raise _bad("a device token is 16–64 letters, digits, '-' or '_'")
    return token


def _position(data: dict[str, Any]) -> PracticePosition:
    """The position of a request: ``code`` or ``position``."""
    code, given = data.get("code"), data.get("position")
    if code is not None and given is not None:
        raise _bad("send a position's code or the position, not both")
    if code is None and given is None:
        raise _bad("send the position: its code, or the position itself")
    if code is not None:
        if not isinstance(code, str):
            raise _bad("a position's code is text")
        return position_from_code(code)
    return position_from_data(given)


def _drill_of(data: dict[str, Any]) -> Drill | None:
    """The drill a shot is played in (``drill``), which then gives the position; or None."""
    drill_id = data.get("drill")
    if drill_id is None:
        return None
    if not isinstance(drill_id, str) or drill_id not in DRILLS:
        raise _bad(f"there is no drill {drill_id!r}; the drills are {', '.join(DRILLS)}")
    if data.get("code") is not None or data.get("position") is not None:
        raise _bad("a drill's shot is played from the drill's own setup: send no position")
    return DRILLS[drill_id]


def _shots(value: object, most: int) -> list[Shot]:
    if not isinstance(value, list):
        raise _bad("shots is a list of shots {position, direction, power}")
    if not 1 <= len(value) <= most:
        raise _bad(f"send from 1 to {most} shots, not {len(value)}")
    shots = []
    for k, item in enumerate(value, 1):
        try:
            shots.append(shot_from_data(item))
        except AnalysisError as error:
            raise _bad(f"shot {k}: {error}") from None
    return shots


def _shot_rows(shots: list[Shot], points: tuple[int, ...]) -> list[dict[str, Any]]:
    return [
        {"position": s.position, "direction": s.direction, "power": s.power, "points": p}
        for s, p in zip(shots, points, strict=True)
    ]


def _day(value: object) -> datetime.date:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise _bad(f"a day is written YYYY-MM-DD, not {value!r}")
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise _bad(f"{value} is not a day of the calendar") from None


def _name(value: object) -> str:
    if not isinstance(value, str):
        raise _bad("send the name to show on the leaderboard")
    name = " ".join(value.split())
    if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
        raise _bad(f"a leaderboard name is 1 to {MAX_NAME} letters, digits or signs")
    return name


def shot_payload(result: PracticeResult) -> dict[str, Any]:
    """The answer to ``/api/practice/shoot``: the shot's outcome and the position after it."""
    game = result.game
    ids = [d.id for d in game.discs] + [result.shot_id]
    owners = [d.owner.name.lower() for d in game.discs] + [result.seat.name.lower()]
    return {
        "position": position_data(result.position_after),
        "code": position_code(result.position_after),
        "summary": result.summary(),
        "report": report_payload(result.report, game),
        "trajectory": trajectory_payload(result.trajectory, ids, owners),
        "board": [
            {"id": d.id, "owner": d.owner.name.lower(), "x": d.x, "y": d.y} for d in game.discs
        ],
    }


def _challenge_payload(challenge: Challenge, played: dict[str, Any] | None) -> dict[str, Any]:
    return {**challenge.to_dict(), "played": played}


def routes(
    store: Store,
    accounts: Accounts | None = None,
    settings: ServerSettings | None = None,
    *,
    today: Callable[[], datetime.date] = utc_today,
    static: Path = STATIC,
) -> list[BaseRoute]:
    """The practice room's, the drills' and the daily challenge's routes.

    Args:
        store: where results and daily scores are kept.
        accounts: the accounts service (a logged-in player's results count
            for the account); without it everyone is a guest.
        settings: the server's settings (the origins allowed to POST).
        today: the current UTC date (a clock for tests).
        static: where the pages are.

    >>> [r.path for r in routes(Store.open("sqlite://"))][:3]
    ['/practice', '/drills', '/api/drills']
    """
    allowed = (settings or ServerSettings()).allowed_origins

    def handled(
        handler: Callable[[Request], Awaitable[Response]], *, post: bool = False
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            if post and not origin_allowed(
                request.headers.get("origin"), request.headers.get("host"), allowed
            ):
                return JSONResponse({"error": "requests from another site are refused"}, 403)
            try:
                return await handler(request)
            except _RefusedError as refused:
                return JSONResponse({"error": refused.message}, status_code=refused.status)
            except AnalysisError as error:
                return JSONResponse({"error": str(error)}, status_code=400)
            except AlreadyPlayedError as error:
                return JSONResponse({"error": str(error)}, status_code=409)
            except StoreUnavailableError as error:
                return JSONResponse({"error": str(error)}, status_code=503)

        return run

    async def logged_in(request: Request) -> Account | None:
        """The account of the session cookie, or None (a guest, or a session that ended)."""
        token = request.cookies.get(COOKIE)
        if accounts is None or not token:
            return None
        return await anyio.to_thread.run_sync(accounts.account_for_token, token)

    async def account_id(request: Request) -> int | None:
        account = await logged_in(request)
        return None if account is None else account.id

    async def practice_page(_: Request) -> Response:
        return FileResponse(static / "practice.html", headers={"Cache-Control": "no-cache"})

    async def drills_page(_: Request) -> Response:
        return FileResponse(static / "drills.html", headers={"Cache-Control": "no-cache"})

    drill_list = {"drills": [d.to_dict() for d in DRILLS.values()]}

    async def drills(_: Request) -> Response:
        return JSONResponse(drill_list)

    async def shoot(request: Request) -> Response:
        data = await _body(request, ("code", "position", "drill", "shot"))
        drill = _drill_of(data)
        pos = drill.setup if drill is not None else _position(data)
        if data.get("shot") is None:
            raise _bad("send the shot {position, direction, power}")
        shot = shot_from_data(data["shot"])
        result = await anyio.to_thread.run_sync(practice_shot, pos, shot)
        payload = shot_payload(result)
        if drill is not None:
            payload["drill_points"] = drill.score_attempt(result)
        return JSONResponse(payload)

    async def drill_results(request: Request) -> Response:
        drill_id = request.path_params["drill"]
        if drill_id not in DRILLS:
            raise _bad(f"there is no drill {drill_id!r}; the drills are {', '.join(DRILLS)}")
        device = _device(request)
        data = await _body(request, ("shots",))
        shots = _shots(data.get("shots"), MAX_ATTEMPTS)
        score = await anyio.to_thread.run_sync(score_drill, drill_id, shots)
        account = await account_id(request)

        def keep() -> bool:
            return store.add_drill_result(
                device, account, drill_id, score=score.score, attempts=score.attempts,
                percent=score.percent, shots=_shot_rows(shots, score.points), full=score.full,
            )  # fmt: skip

        best = await anyio.to_thread.run_sync(keep)
        return JSONResponse({**score.to_dict(), "personal_best": best})

    async def my_results(request: Request) -> Response:
        device = _device(request)
        drill_id = request.query_params.get("drill", "open20")
        if drill_id not in DRILLS:
            raise _bad(f"there is no drill {drill_id!r}; the drills are {', '.join(DRILLS)}")
        account = await account_id(request)

        def read() -> dict[str, Any]:
            record = store.open_twenty_record(device, account)
            return {
                "bests": store.drill_bests(device, account),
                "drill": drill_id,
                "trend": store.drill_trend(device, account, drill_id, TREND_LENGTH),
                "open20": None
                if record is None
                else {"made": record[0], "attempts": record[1], "rate": record[0] / record[1]},
            }

        return JSONResponse(await anyio.to_thread.run_sync(read))

    async def daily(request: Request) -> Response:
        challenge = daily_challenge(today())
        played = None
        if request.headers.get("x-device-token") is not None:
            device = _device(request)
            account = await account_id(request)
            played = await anyio.to_thread.run_sync(
                store.daily_entry, challenge.day.isoformat(), device, account
            )
        return JSONResponse(_challenge_payload(challenge, played))

    async def daily_score(request: Request) -> Response:
        device = _device(request)
        data = await _body(request, ("day", "shots", "name"))
        day, now = _day(data.get("day")), today()
        if day < now:
            raise _bad(f"the challenge of {day} is over: today's is the challenge of {now}")
        if day > now:
            raise _bad(f"the challenge of {day} has not begun: today's is the challenge of {now}")
        challenge = daily_challenge(day)
        shots = _shots(data.get("shots"), challenge.attempts)
        account = await logged_in(request)
        name = account.username if account is not None else _name(data.get("name"))
        points = await anyio.to_thread.run_sync(challenge_points, challenge, shots)
        score = max(points)

        def keep() -> int:
            return store.add_daily_score(
                day.isoformat(), device, None if account is None else account.id, name=name,
                score=score,
                shots=_shot_rows(shots, points),
            )  # fmt: skip

        rank = await anyio.to_thread.run_sync(keep)
        return JSONResponse(
            {"day": day.isoformat(), "score": score, "rank": rank, "points": list(points)}
        )

    async def leaderboard(request: Request) -> Response:
        given = request.query_params.get("day")
        day = today() if given is None else _day(given)
        scores = await anyio.to_thread.run_sync(
            store.daily_leaderboard, day.isoformat(), LEADERBOARD_LENGTH
        )
        return JSONResponse({"day": day.isoformat(), "scores": scores})

    return [
        Route("/practice", practice_page),
        Route("/drills", drills_page),
        Route("/api/drills", handled(drills)),
        Route("/api/practice/shoot", handled(shoot, post=True), methods=["POST"]),
        Route("/api/drills/results", handled(my_results)),
        Route("/api/drills/{drill}/results", handled(drill_results, post=True), methods=["POST"]),
        Route("/api/daily", handled(daily)),
        Route("/api/daily", handled(daily_score, post=True), methods=["POST"]),
        Route("/api/daily/leaderboard", handled(leaderboard)),
    ]
