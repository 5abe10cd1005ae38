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

Errors are ``{"code": "...", "message": "plain words"}``
(:mod:`crokinole.server.http.errors`): 400 for any bad input (nothing is
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
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
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
    practice_shot,
    shot_from_data,
)
from crokinole.board import Shot
from crokinole.errors import AnalysisError, ErrorCode
from crokinole.server.http.context import context, utc_today
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import (
    account_id_of,
    account_of,
    device_token,
    json_body,
    position,
    same_site,
    the_device,
)
from crokinole.server.http.pages import page
from crokinole.server.ranked.fair_play import daily_refused, engine_help_refused
from crokinole.server.ws.payloads import report_payload, trajectory_payload
from crokinole.store import AlreadyPlayedError, PracticeSetData
from crokinole.table.events import shot_from_dict, shot_to_dict

__all__ = ["MAX_BODY", "MAX_NAME", "routes", "utc_today"]

#: The largest request body read (100 shots take about 8 KB).
MAX_BODY = 65_536
#: The longest name on the daily leaderboard.
MAX_NAME = 24
#: Sets of a drill shown in a trend.
TREND_LENGTH = 50
#: Scores shown on a day's leaderboard.
LEADERBOARD_LENGTH = 20


def _bad(message: str) -> HttpError:
    return HttpError(ErrorCode.BAD_REQUEST, message)


async def _body(request: Request, fields: tuple[str, ...]) -> dict[str, Any]:
    """The JSON object of a POST, with no fields but ``fields``."""
    return await json_body(request, MAX_BODY, fields, json_only=True)


def _drill_of(data: dict[str, Any]) -> Drill | None:
    """The drill a shot is played in (``drill``), which then gives the position; or None."""
    if data.get("drill") is None:
        return None
    drill_id = _drill_id(data["drill"])
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
        "board": [{"id": d.id, "owner": d.owner.key, "x": d.x, "y": d.y} for d in game.discs],
    }


def _challenge_payload(challenge: Challenge, played: dict[str, Any] | None) -> dict[str, Any]:
    return {**challenge.to_dict(), "played": played}


def _drill_id(value: object) -> str:
    if not isinstance(value, str) or value not in DRILLS:
        raise _bad(f"there is no drill {value!r}; the drills are {', '.join(DRILLS)}")
    return value


def _today_only(request: Request, value: object) -> datetime.date:
    day, now = _day(value), context(request).today()
    if day < now:
        raise _bad(f"the challenge of {day} is over: today's is the challenge of {now}")
    if day > now:
        raise _bad(f"the challenge of {day} has not begun: today's is the challenge of {now}")
    return day


#: What a set of another device (or account) is answered.
NO_SUCH_SET = "there is no such set on this device: ask for a new one"


async def _my_set(request: Request, value: object, kind: str | None = None) -> PracticeSetData:
    """The set ``value`` names, if it is this device's (and of ``kind``)."""
    device = the_device(request)
    kept = await anyio.to_thread.run_sync(context(request).store.practice_set, _set_id(value))
    if kept is None or kept.device != device:
        raise HttpError(ErrorCode.NOT_FOUND, NO_SUCH_SET)
    if kind is not None and kept.kind != kind:
        what = "the daily challenge" if kind == "daily" else "a drill"
        raise _bad(f"this set is not one of {what}")
    return kept


async def _fair_position(request: Request, pos: PracticePosition) -> None:
    """No trying shots on a position during a ranked game, nor on the day's challenge."""
    http = context(request)
    why = daily_refused(pos, http.today())
    if why is None:
        device, account = device_token(request, required=False), await account_id_of(request)
        why = await anyio.to_thread.run_sync(engine_help_refused, http.store, device, account)
    if why is not None:
        raise HttpError(ErrorCode.FAIR_PLAY, why)


def _shot(data: dict[str, Any]) -> Shot:
    if data.get("shot") is None:
        raise _bad("send the shot {position, direction, power}")
    return shot_from_data(data["shot"])


async def _playable(request: Request, data: dict[str, Any]) -> PracticeSetData:
    """The set an attempt is played in, if it has an attempt left today."""
    if data.get("code") is not None or data.get("position") is not None or data.get("drill"):
        raise _bad("an attempt of a set is played from the set's own position: send no other")
    kept = await _my_set(request, data.get("set"))
    if kept.finished:
        raise HttpError(
            ErrorCode.CONFLICT, "this set is over: its result was kept; ask for a new set"
        )
    if len(kept.shots) >= kept.attempts:
        raise HttpError(ErrorCode.CONFLICT, f"all {kept.attempts} attempts of this set are played")
    if kept.kind == "daily" and kept.day != context(request).today().isoformat():
        raise _bad(f"the challenge of {kept.day} is over")
    return kept


async def _shoot_in_set(request: Request, data: dict[str, Any]) -> Response:
    kept = await _playable(request, data)
    aimed = _shot(data)
    pos = _set_position(kept)
    attempt = len(kept.shots) + 1

    def play() -> tuple[Shot, PracticeResult]:
        played = hand_shot(pos, aimed, kept.seed, attempt)
        return played, practice_shot(pos, played)

    played, result = await anyio.to_thread.run_sync(play)
    points = _set_points(kept, result)
    row = {"aimed": shot_to_dict(aimed), "played": shot_to_dict(played), "points": points}
    added = await anyio.to_thread.run_sync(
        context(request).store.add_practice_shot, kept.id, len(kept.shots), row
    )
    if not added:
        raise HttpError(
            ErrorCode.CONFLICT, "another attempt of this set was played meanwhile: look again"
        )
    payload = shot_payload(result)
    payload.update(
        set=kept.id, attempt=attempt, attempts=kept.attempts, aimed=shot_to_dict(aimed),
        played=shot_to_dict(played), hand="human", points_scored=points,
    )  # fmt: skip
    if kept.kind == "drill":
        payload["drill_points"] = points
    return JSONResponse(payload)


async def shoot(request: Request) -> Response:
    """``POST /api/practice/shoot``: a shot from a position or a drill, or an attempt of a set."""
    same_site(request)
    data = await _body(request, ("code", "position", "drill", "shot", "set"))
    if data.get("set") is not None:
        return await _shoot_in_set(request, data)
    drill = _drill_of(data)
    pos = drill.setup if drill is not None else position(data)
    if drill is None:
        await _fair_position(request, pos)
    shot = _shot(data)
    result = await anyio.to_thread.run_sync(practice_shot, pos, shot)
    payload = shot_payload(result)
    if drill is not None:
        payload["drill_points"] = drill.score_attempt(result)
    return JSONResponse(payload)


_DRILL_LIST = {"drills": [d.to_dict() for d in DRILLS.values()]}


async def drills(_: Request) -> Response:
    """``GET /api/drills``: the drills."""
    return JSONResponse(_DRILL_LIST)


async def _new_set(request: Request, **fields: Any) -> str:
    """Keep a new set of the device (and the account) with a new secret seed: its id."""
    http = context(request)
    device, account = the_device(request), await account_id_of(request)
    set_id = secrets.token_hex(16)

    def keep() -> None:
        http.store.create_practice_set(
            set_id, device=device, account_id=account, seed=http.seeds(), **fields
        )

    await anyio.to_thread.run_sync(keep)
    return set_id


async def new_drill_set(request: Request) -> Response:
    """``POST /api/drills/{id}/sets``: a new set of a drill."""
    same_site(request)
    drill_id = _drill_id(request.path_params["drill"])
    the_device(request)
    data = await _body(request, ("attempts",))
    attempts = _attempts(data.get("attempts"), DRILLS[drill_id])
    set_id = await _new_set(request, kind="drill", drill=drill_id, attempts=attempts)
    return JSONResponse({"set": set_id, "drill": drill_id, "attempts": attempts, "hand": "human"})


async def new_daily_set(request: Request) -> Response:
    """``POST /api/daily/sets``: the day's entry to the daily challenge."""
    same_site(request)
    the_device(request)
    data = await _body(request, ("day",))
    day = _today_only(request, data.get("day"))
    attempts = daily_challenge(day).attempts
    set_id = await _new_set(
        request, kind="daily", drill="daily", day=day.isoformat(), attempts=attempts
    )
    return JSONResponse(
        {"set": set_id, "day": day.isoformat(), "attempts": attempts, "hand": "human"}
    )


async def _finished_set(
    request: Request, fields: tuple[str, ...], kind: str, day: object = None
) -> tuple[str, dict[str, Any], PracticeSetData]:
    """The device, the body and the set of a result: a set with attempts played."""
    device = the_device(request)
    data = await _body(request, fields)
    if kind == "daily":
        day = _today_only(request, data.get("day"))
    if data.get("set") is None:
        raise _bad(OWN_SHOTS)
    kept = await _my_set(request, data.get("set"), kind)
    if kind == "drill" and kept.drill != day:
        raise _bad(f"this set is of the drill {kept.drill}, not {day}")
    if kind == "daily" and kept.day != str(day):
        raise _bad(f"this entry is of the challenge of {kept.day}, not {day}")
    if not kept.shots:
        raise _bad(
            "play at least one attempt of the set first"
            if kind == "drill"
            else "play at least one attempt first"
        )
    data["day"] = day
    return device, data, kept


async def drill_results(request: Request) -> Response:
    """``POST /api/drills/{id}/results``: the set's result, verified and kept."""
    same_site(request)
    drill_id = _drill_id(request.path_params["drill"])
    device, _, kept = await _finished_set(request, ("shots", "set"), "drill", drill_id)
    played, _ = await anyio.to_thread.run_sync(replay_set, kept)
    score = await anyio.to_thread.run_sync(score_drill, drill_id, played)
    account = await account_id_of(request)
    store = context(request).store

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
        raise HttpError(ErrorCode.CONFLICT, "this set's result was kept already: ask for a new set")
    return JSONResponse({**score.to_dict(), "personal_best": best, "hand": "human"})


async def my_results(request: Request) -> Response:
    """``GET /api/drills/results``: the device's (or account's) bests, trend and open-20 record."""
    device = the_device(request)
    drill_id = _drill_id(request.query_params.get("drill", "open20"))
    account = await account_id_of(request)
    store = context(request).store

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
    """``GET /api/daily``: today's challenge (and, with a device token, my entry)."""
    http = context(request)
    challenge = daily_challenge(http.today())
    played = entry = None
    device = device_token(request, required=False)
    if device is not None:
        account = await account_id_of(request)
        day = challenge.day.isoformat()
        played = await anyio.to_thread.run_sync(http.store.daily_entry, day, device, account)
        entry = await anyio.to_thread.run_sync(_entry_of, request, day, device, account)
    return JSONResponse({**_challenge_payload(challenge, played), "entry": entry})


def _entry_of(
    request: Request, day: str, device: str, account: int | None
) -> dict[str, Any] | None:
    """Today's entry of the device or account: its set (if this device's), attempts played."""
    store = context(request).store
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


async def _leaderboard_name(
    request: Request, data: dict[str, Any], kept: PracticeSetData
) -> tuple[int | None, str]:
    """Who a daily score is kept for: the logged-in account (its username), or a guest's name."""
    account = await account_of(request)
    if account is not None and kept.account_id not in (None, account.id):
        raise HttpError(ErrorCode.NOT_FOUND, NO_SUCH_SET)
    if account is not None:
        return account.id, account.username
    name = _name(data.get("name"))
    taken = await anyio.to_thread.run_sync(context(request).store.account_by_key, name.lower())
    if taken is not None:
        raise _bad(
            f"{name} is a player's username: log in to play under it, or choose another name"
        )
    return None, name


async def daily_score(request: Request) -> Response:
    """``POST /api/daily``: the day's entry scored, verified and kept: its rank."""
    same_site(request)
    device, data, kept = await _finished_set(request, ("day", "shots", "name", "set"), "daily")
    day = data["day"]
    account, name = await _leaderboard_name(request, data, kept)
    _, points = await anyio.to_thread.run_sync(replay_set, kept)
    score = max(points)
    store = context(request).store

    def keep() -> int | None:
        if not store.finish_practice_set(kept.id):
            return None
        return store.add_daily_score(
            day.isoformat(), device, account, name=name, score=score,
            shots=_set_rows(kept, points),
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
    """``GET /api/daily/leaderboard``: the day's best scores, of accounts and of guests."""
    http = context(request)
    given = request.query_params.get("day")
    day = (http.today() if given is None else _day(given)).isoformat()
    scores = await anyio.to_thread.run_sync(http.store.daily_leaderboard, day, LEADERBOARD_LENGTH)
    guests = await anyio.to_thread.run_sync(
        lambda: http.store.daily_leaderboard(day, LEADERBOARD_LENGTH, guests=True)
    )
    return JSONResponse({"day": day, "scores": scores, "guests": guests})


#: The practice room's, the drills' and the daily challenge's routes.
routes: list[BaseRoute] = [
    Route("/practice", page("practice.html")),
    Route("/drills", page("drills.html")),
    Route("/api/drills", drills),
    Route("/api/practice/shoot", shoot, methods=["POST"]),
    Route("/api/drills/results", my_results),
    Route("/api/drills/{drill}/results", drill_results, methods=["POST"]),
    Route("/api/drills/{drill}/sets", new_drill_set, methods=["POST"]),
    Route("/api/daily", daily),
    Route("/api/daily/sets", new_daily_set, methods=["POST"]),
    Route("/api/daily", daily_score, methods=["POST"]),
    Route("/api/daily/leaderboard", leaderboard),
]
