"""The practice room, the drills and the daily challenge over HTTP (JSON).

| method | route | sends | answers |
|---|---|---|---|
| GET | /practice | | the practice room (``?p=CODE`` opens a position) |
| GET | /drills | | the drills page |
| GET | /api/drills | | ``{"drills": [Drill.to_dict()]}`` |
| POST | /api/practice/shoot | ``code`` or ``position``, or ``drill``; ``shot`` | the shot played |
| POST | /api/practice/shoot | ``set``, ``shot`` + X-Device-Token | the attempt, with the hand |
| POST | /api/drills/{id}/sets | (``attempts``) + X-Device-Token | a new set: its id |
| POST | /api/drills/{id}/results | ``set`` + X-Device-Token | the set, verified, kept |
| GET | /api/drills/results | X-Device-Token, ``?drill=`` | bests, trend, open-20 record |
| GET | /api/daily | (X-Device-Token) | today's challenge (and my score) |
| POST | /api/daily/sets | ``day`` + X-Device-Token | the day's entry: its set id |
| POST | /api/daily | ``day``, ``set``, ``name`` + X-Device-Token | score and rank |
| GET | /api/daily/leaderboard | ``?day=YYYY-MM-DD`` (today) | the day's best scores |

A position is ``{"seat": "south", "discs": [["s", x, y], ["n", x, y]]}``
(:mod:`crokinole.analysis.practice`); a shot ``{"position", "direction",
"power"}``.  ``/api/practice/shoot`` answers ``position`` and ``code`` (after
the shot), ``summary`` (valid, foul, twenty, points ...), ``report`` and
``trajectory`` in the shapes a game's ``shot`` message carries
(:mod:`crokinole.server.ws.payloads`), and ``board`` (the discs before the
shot with their ids, which the report and the trajectory name).  Sent
``drill`` (an id) instead of a position, the shot is played from that
drill's setup and the answer adds ``drill_points``, what the attempt scores
under the drill's rule (the page's running count; the set is scored again
when it is sent).

**The human hand.**  Drills and the daily challenge are played with the
human hand (R3), its noise drawn here: ``POST /api/drills/{id}/sets`` (or
``/api/daily/sets``) hands out a set, whose secret seed the server keeps and
never sends.  Each attempt is ``POST /api/practice/shoot`` with the ``set``
and the aimed ``shot``: the server draws the noise of that attempt
(:func:`~crokinole.analysis.drills.hand_shot`), plays the shot, keeps it
in the set and answers ``aimed``, ``played``, ``attempt`` and ``attempts``.
The same numbers typed again are played with new noise, and the noise of
an attempt cannot be seen before it is played.  The results (``POST
.../results``, ``POST /api/daily``) are worked out from the shots the set
kept, replayed with the deterministic physics
(:func:`~crokinole.analysis.drills.score_drill`) after the noise is drawn
again from the seed (the verification): never from anything a client
sends.  Personal bests, trends and the open-20 record count only such sets.

**The daily challenge** is entered once a day: one set per account, and
for a guest one per device (``409`` for a second).  Accounts and guests are
on separate boards (``scores`` and ``guests``); an account's name is its
username, and a guest cannot take a registered username.  A logged-in
player's (session cookie) results count for the account on all its devices.

Errors are ``{"error": "plain words"}``: 400 for any bad input (nothing is
kept), 415 for a POST that is not JSON, 403 for a POST from another site,
409 for a second daily score from one device or account, 403 for a
practice shot from a position (not a drill) while the device or account
has a ranked game in play, or of the day's challenge position during its
day (:mod:`crokinole.server.ranked.fair_play`), 503 while the database cannot be
reached.
"""

from __future__ import annotations

import datetime
import re
import secrets
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
    daily_challenge,
    hand_shot,
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
from crokinole.server.http.accounts import COOKIE
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.limits import ServerSettings, origin_allowed
from crokinole.server.ranked.fair_play import daily_refused, engine_help_refused
from crokinole.server.ws.messages import TOKEN_PATTERN
from crokinole.server.ws.payloads import report_payload, trajectory_payload
from crokinole.store import AlreadyPlayedError, PracticeSetData, Store, StoreUnavailableError
from crokinole.table.events import shot_from_dict, shot_to_dict
from crokinole.web import STATIC_DIR

__all__ = ["MAX_BODY", "MAX_NAME", "routes", "utc_today"]

STATIC = STATIC_DIR

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


def _set_rows(kept: PracticeSetData, points: tuple[int, ...]) -> list[dict[str, Any]]:
    """The shots kept with a result: each as played (with its aimed shot), and its points."""
    return [
        {**row["played"], "aimed": row["aimed"], "points": p}
        for row, p in zip(kept.shots, points, strict=True)
    ]


def _day(value: object) -> datetime.date:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise _bad(f"a day is written YYYY-MM-DD, not {value!r}")
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise _bad(f"{value} is not a day of the calendar") from None


#: What an old client that sends its own shots for a result is told.
OWN_SHOTS = (
    "drills and the daily challenge are played shot by shot with the human hand, its noise "
    "drawn by the server: ask for a set first (POST /api/drills/{id}/sets or /api/daily/sets) "
    "and play each attempt with it"
)


def _set_id(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[a-f0-9]{32}", value):
        raise _bad("set is the id the server gave the set (32 hexadecimal digits)")
    return value


def _attempts(value: object, drill: Drill) -> int:
    if value is None:
        return drill.attempts
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ATTEMPTS:
        raise _bad(f"attempts is a whole number from 1 to {MAX_ATTEMPTS}, not {value!r}")
    return value


def _set_position(kept: PracticeSetData) -> PracticePosition:
    if kept.kind == "daily" and kept.day is not None:
        return daily_challenge(datetime.date.fromisoformat(kept.day)).position
    return DRILLS[kept.drill].setup


def _set_points(kept: PracticeSetData, result: PracticeResult) -> int:
    return result.points if kept.kind == "daily" else DRILLS[kept.drill].score_attempt(result)


def replay_set(kept: PracticeSetData) -> tuple[list[Shot], tuple[int, ...]]:
    """The shots a set played, each drawn again from its seed and aimed shot, and their
    points replayed (blocking): the server's verification of what it kept.

    Raises:
        AnalysisError: a kept shot that does not replay as kept (plain words).
    """
    pos = _set_position(kept)
    played: list[Shot] = []
    points: list[int] = []
    for k, row in enumerate(kept.shots, 1):
        aimed = shot_from_dict(row["aimed"])
        shot = hand_shot(pos, aimed, kept.seed, k)
        if shot != shot_from_dict(row["played"]):
            raise AnalysisError(f"attempt {k} of this set does not replay as it was played")
        played.append(shot)
        points.append(_set_points(kept, practice_shot(pos, shot)))
    return played, tuple(points)


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
    ids = list(result.report.ids)
    owners = [o.key for o in result.report.owners]
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
    seeds: Callable[[], int] = lambda: secrets.randbits(63),
) -> list[BaseRoute]:
    """The practice room's, the drills' and the daily challenge's routes.

    Args:
        store: where results and daily scores are kept.
        accounts: the accounts service (a logged-in player's results count
            for the account); without it everyone is a guest.
        settings: the server's settings (the origins allowed to POST).
        today: the current UTC date (a clock for tests).
        static: where the pages are.
        seeds: a new set's secret seed (random; a fixed sequence for tests).

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

    async def my_set(request: Request, value: object, kind: str | None = None) -> PracticeSetData:
        """The set ``value`` names, if it is this device's (and of ``kind``)."""
        device = _device(request)
        kept = await anyio.to_thread.run_sync(store.practice_set, _set_id(value))
        if kept is None or kept.device != device:
            raise _RefusedError(404, "there is no such set on this device: ask for a new one")
        if kind is not None and kept.kind != kind:
            what = "the daily challenge" if kind == "daily" else "a drill"
            raise _bad(f"this set is not one of {what}")
        return kept

    async def fair_position(request: Request, pos: PracticePosition) -> None:
        """No trying shots on a position during a ranked game, nor on the day's challenge."""
        why = daily_refused(pos, today())
        if why is None:
            token = request.headers.get("x-device-token")
            device = _device(request) if token is not None else None
            account = await account_id(request)
            why = await anyio.to_thread.run_sync(engine_help_refused, store, device, account)
        if why is not None:
            raise _RefusedError(403, why)

    async def shoot_in_set(request: Request, data: dict[str, Any]) -> Response:
        if data.get("code") is not None or data.get("position") is not None or data.get("drill"):
            raise _bad("an attempt of a set is played from the set's own position: send no other")
        kept = await my_set(request, data.get("set"))
        set_id = kept.id
        if kept.finished:
            raise _RefusedError(409, "this set is over: its result was kept; ask for a new set")
        if len(kept.shots) >= kept.attempts:
            raise _RefusedError(409, f"all {kept.attempts} attempts of this set are played")
        if kept.kind == "daily" and kept.day != today().isoformat():
            raise _bad(f"the challenge of {kept.day} is over")
        if data.get("shot") is None:
            raise _bad("send the shot {position, direction, power}")
        aimed = shot_from_data(data["shot"])
        pos = _set_position(kept)
        attempt = len(kept.shots) + 1

        def play() -> tuple[Shot, PracticeResult]:
            played = hand_shot(pos, aimed, kept.seed, attempt)
            return played, practice_shot(pos, played)

        played, result = await anyio.to_thread.run_sync(play)
        points = _set_points(kept, result)
        row = {"aimed": shot_to_dict(aimed), "played": shot_to_dict(played), "points": points}
        added = await anyio.to_thread.run_sync(
            store.add_practice_shot, set_id, len(kept.shots), row
        )
        if not added:
            raise _RefusedError(409, "another attempt of this set was played meanwhile: look again")
        payload = shot_payload(result)
        payload.update(
            set=set_id, attempt=attempt, attempts=kept.attempts, aimed=shot_to_dict(aimed),
            played=shot_to_dict(played), hand="human", points_scored=points,
        )  # fmt: skip
        if kept.kind == "drill":
            payload["drill_points"] = points
        return JSONResponse(payload)

    async def new_drill_set(request: Request) -> Response:
        drill_id = request.path_params["drill"]
        if drill_id not in DRILLS:
            raise _bad(f"there is no drill {drill_id!r}; the drills are {', '.join(DRILLS)}")
        device = _device(request)
        data = await _body(request, ("attempts",))
        drill = DRILLS[drill_id]
        attempts = _attempts(data.get("attempts"), drill)
        account = await account_id(request)
        set_id = secrets.token_hex(16)

        def keep() -> None:
            store.create_practice_set(
                set_id, kind="drill", drill=drill_id, device=device, account_id=account,
                seed=seeds(), attempts=attempts,
            )  # fmt: skip

        await anyio.to_thread.run_sync(keep)
        return JSONResponse(
            {"set": set_id, "drill": drill_id, "attempts": attempts, "hand": "human"}
        )

    async def new_daily_set(request: Request) -> Response:
        device = _device(request)
        data = await _body(request, ("day",))
        day = _today_only(data.get("day"))
        challenge = daily_challenge(day)
        account = await account_id(request)
        set_id = secrets.token_hex(16)

        def keep() -> None:
            store.create_practice_set(
                set_id, kind="daily", drill="daily", day=day.isoformat(), device=device,
                account_id=account, seed=seeds(), attempts=challenge.attempts,
            )  # fmt: skip

        await anyio.to_thread.run_sync(keep)
        return JSONResponse(
            {"set": set_id, "day": day.isoformat(), "attempts": challenge.attempts, "hand": "human"}
        )

    def _today_only(value: object) -> datetime.date:
        day, now = _day(value), today()
        if day < now:
            raise _bad(f"the challenge of {day} is over: today's is the challenge of {now}")
        if day > now:
            raise _bad(f"the challenge of {day} has not begun: today's is the challenge of {now}")
        return day

    async def shoot(request: Request) -> Response:
        data = await _body(request, ("code", "position", "drill", "shot", "set"))
        if data.get("set") is not None:
            return await shoot_in_set(request, data)
        drill = _drill_of(data)
        pos = drill.setup if drill is not None else _position(data)
        if drill is None:
            await fair_position(request, pos)
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
        data = await _body(request, ("shots", "set"))
        if data.get("set") is None:
            raise _bad(OWN_SHOTS)
        kept = await my_set(request, data.get("set"), "drill")
        if kept.drill != drill_id:
            raise _bad(f"this set is of the drill {kept.drill}, not {drill_id}")
        if not kept.shots:
            raise _bad("play at least one attempt of the set first")
        played, _ = await anyio.to_thread.run_sync(replay_set, kept)
        score = await anyio.to_thread.run_sync(score_drill, drill_id, played)
        account = await account_id(request)

        def keep() -> bool | None:
            if not store.finish_practice_set(kept.id):
                return None
            return store.add_drill_result(
                device, account, drill_id, score=score.score, attempts=score.attempts,
                percent=score.percent, shots=_set_rows(kept, score.points), full=score.full,
                set_id=kept.id,
            )  # fmt: skip

        best = await anyio.to_thread.run_sync(keep)
        if best is None:
            raise _RefusedError(409, "this set's result was kept already: ask for a new set")
        return JSONResponse({**score.to_dict(), "personal_best": best, "hand": "human"})

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
        played = entry = None
        if request.headers.get("x-device-token") is not None:
            device = _device(request)
            account = await account_id(request)
            played = await anyio.to_thread.run_sync(
                store.daily_entry, challenge.day.isoformat(), device, account
            )
            entry = await anyio.to_thread.run_sync(
                _entry_of, challenge.day.isoformat(), device, account
            )
        return JSONResponse({**_challenge_payload(challenge, played), "entry": entry})

    def _entry_of(day: str, device: str, account: int | None) -> dict[str, Any] | None:
        """Today's entry of the device or account: its set (if this device's), attempts played."""
        set_id = store.daily_set(day, device, account)
        kept = None if set_id is None else store.practice_set(set_id)
        if kept is None:
            return None
        return {
            "set": kept.id if kept.device == device else None,
            "played": len(kept.shots),
            "attempts": kept.attempts,
            "finished": kept.finished,
            "points": [row["points"] for row in kept.shots],
        }

    async def daily_score(request: Request) -> Response:
        device = _device(request)
        data = await _body(request, ("day", "shots", "name", "set"))
        day = _today_only(data.get("day"))
        if data.get("set") is None:
            raise _bad(OWN_SHOTS)
        kept = await my_set(request, data.get("set"), "daily")
        if kept.day != day.isoformat():
            raise _bad(f"this entry is of the challenge of {kept.day}, not {day}")
        if not kept.shots:
            raise _bad("play at least one attempt first")
        account = await logged_in(request)
        if account is not None and kept.account_id not in (None, account.id):
            raise _RefusedError(404, "there is no such set on this device: ask for a new one")
        if account is not None:
            name = account.username
        else:
            name = _name(data.get("name"))
            taken = await anyio.to_thread.run_sync(store.account_by_key, name.lower())
            if taken is not None:
                raise _bad(
                    f"{name} is a player's username: log in to play under it, "
                    "or choose another name"
                )
        _, points = await anyio.to_thread.run_sync(replay_set, kept)
        score = max(points)

        def keep() -> int | None:
            if not store.finish_practice_set(kept.id):
                return None
            return store.add_daily_score(
                day.isoformat(), device, None if account is None else account.id, name=name,
                score=score, shots=_set_rows(kept, points),
            )  # fmt: skip

        rank = await anyio.to_thread.run_sync(keep)
        if rank is None:
            raise AlreadyPlayedError(f"this entry at the challenge of {day} was kept already")
        return JSONResponse(
            {
                "day": day.isoformat(),
                "score": score,
                "rank": rank,
                "points": list(points),
                "account": account is not None,
            }
        )

    async def leaderboard(request: Request) -> Response:
        given = request.query_params.get("day")
        day = today() if given is None else _day(given)
        scores = await anyio.to_thread.run_sync(
            store.daily_leaderboard, day.isoformat(), LEADERBOARD_LENGTH
        )
        guests = await anyio.to_thread.run_sync(
            lambda: store.daily_leaderboard(day.isoformat(), LEADERBOARD_LENGTH, guests=True)
        )
        return JSONResponse({"day": day.isoformat(), "scores": scores, "guests": guests})

    return [
        Route("/practice", practice_page),
        Route("/drills", drills_page),
        Route("/api/drills", handled(drills)),
        Route("/api/practice/shoot", handled(shoot, post=True), methods=["POST"]),
        Route("/api/drills/results", handled(my_results)),
        Route("/api/drills/{drill}/results", handled(drill_results, post=True), methods=["POST"]),
        Route("/api/drills/{drill}/sets", handled(new_drill_set, post=True), methods=["POST"]),
        Route("/api/daily", handled(daily)),
        Route("/api/daily/sets", handled(new_daily_set, post=True), methods=["POST"]),
        Route("/api/daily", handled(daily_score, post=True), methods=["POST"]),
        Route("/api/daily/leaderboard", handled(leaderboard)),
    ]
