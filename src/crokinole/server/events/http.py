"""The events' HTTP routes (docs/events.md, *HTTP*): create, list, join, run and watch an event.

| method | route | who | does |
|---|---|---|---|
| POST | /api/events | an account | create ``{settings}`` → the view |
| GET | /api/events | anyone | open, running and lately finished events; ``?mine=1`` the account's |
| GET | /api/events/{id} | anyone | the view (and ``you``: organiser? which entrant?) |
| GET | /api/events/code/{code} | anyone | ``{id}`` of a join code |
| GET | /api/events/{id}/stream | anyone | the view as Server-Sent Events (:mod:`.live`) |
| POST | /api/events/{id}/join | account or device | ``{name, members?}`` enter |
| POST | /api/events/{id}/entrants | organiser | ``{name, account?, rating?, members?}`` add |
| POST | /api/events/{id}/entrants/{eid}/check-in | the entrant or organiser | check in |
| POST | /api/events/{id}/entrants/{eid}/status | organiser | ``{status}`` active, paused, dropped |
| POST | /api/events/{id}/rounds | organiser | pair the next round |
| PUT | /api/events/{id}/rounds/{n} | organiser | pair round n again (``{pairings?}``) |
| POST | /api/events/{id}/rounds/{n}/start | organiser | start it |
| POST | /api/events/{id}/rounds/{n}/tables/{t}/result | a player of it, organiser | ``{games}`` |
| POST | /api/events/{id}/rounds/{n}/tables/{t}/confirm | the other side, organiser | confirm |
| PUT | /api/events/{id}/rounds/{n}/tables/{t}/result | organiser | ``{games, reason}`` correct |
| POST | /api/events/{id}/rounds/{n}/tables/{t}/sheet | a player of it, organiser | its sheet |
| POST | /api/events/{id}/pause, /finish | organiser | ``{paused?}`` pause (resume), end |
| GET | /api/events/{id}/standings.csv | anyone | the standings as CSV |
| GET | /api/events/{id}/cmn.json | anyone | every match as CMN 1.0 |
| POST | /api/events/import | an account | a CMN 1.0 document → a new, finished event |
| GET | /api/events/{id}/qr.svg | anyone | a QR code of the join link |

Who asks is an :class:`~crokinole.events.event.Actor`: the account of the
session cookie (the organiser when it made the event) and, for a hall
entrant who joined by name on a phone, the device: a hash of its
``X-Device-Token`` (:func:`claim_of`; the token itself is never stored nor
shown).  The event's commands decide what each may do; a refusal is the
event's :class:`~crokinole.errors.EventError`, answered ``{code, message}``
with the status of its code (:data:`crokinole.server.http.errors.STATUS`).
Every POST and PUT is refused from another site (403) and takes JSON only
(415), at most :data:`MAX_BODY` bytes (413); joining and looking up join
codes are limited per address (429: codes can be guessed), and so are
results reported and confirmed by anyone but the organiser.
"""

from __future__ import annotations

import hashlib
import io
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import segno
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.board import Seat
from crokinole.errors import ErrorCode, EventError
from crokinole.events import export
from crokinole.events.codec import pairing_from_dict, result_from_dict
from crokinole.events.event import Actor, Entry, Event
from crokinole.events.model import (
    MAX_ENTRANTS,
    EntrantStatus,
    EventSettings,
    Pairing,
    Person,
    TieBreak,
)
from crokinole.rules.sheet import ScoreSheet
from crokinole.server.events.live import EventStreams
from crokinole.server.events.service import EventService
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import (
    account_of,
    client_address,
    device_token,
    json_body,
    same_site,
)
from crokinole.server.limits import RateLimiter
from crokinole.store import StoreConflictError

__all__ = [
    "JOINS_PER_MINUTE",
    "MAX_BODY",
    "REPORTS_PER_MINUTE",
    "EventsHttp",
    "claim_of",
    "routes",
]

#: The largest request body (a CMN import is larger: :data:`MAX_IMPORT`).
MAX_BODY = 64 * 1024
#: The largest CMN document imported.
MAX_IMPORT = 4 * 1024 * 1024
#: Joins and join-code look-ups a minute from one address (codes can be guessed).
JOINS_PER_MINUTE = 30
#: Results reported or confirmed a minute from one address.
REPORTS_PER_MINUTE = 60
_ID = re.compile(r"^[0-9a-f]{16}$")
_ENTRANT = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
_USERNAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_CLAIM_SALT = b"crokinole event claim\x00"


@dataclass(slots=True)
class EventsHttp:
    """What the events' routes work with (``app.state.events``).

    Attributes:
        service: loads and changes events.
        streams: the live streams of this process.
        joins: joins and code look-ups per address.
        reports: results reported and confirmed per address.
    """

    service: EventService
    streams: EventStreams
    joins: RateLimiter
    reports: RateLimiter


def events_of(request: Request) -> EventsHttp:
    """The events' services of the app that ``request`` came to."""
    found: EventsHttp = request.app.state.events
    return found


def claim_of(token: str | None) -> str | None:
    """The claim of a device: a hash of its token (the token itself is a credential).

    >>> claim_of("0123456789abcdef") == claim_of("0123456789abcdef") != claim_of("x" * 16)
    True
    >>> len(claim_of("0123456789abcdef") or ""), claim_of(None)
    (32, None)
    """
    if token is None:
        return None
    return hashlib.sha256(_CLAIM_SALT + token.encode()).hexdigest()[:32]


# ------------------------------------------------------------------ reading requests


def _event_id(request: Request) -> str:
    event_id = str(request.path_params["event"])
    if not _ID.match(event_id):
        raise HttpError(ErrorCode.NOT_FOUND, f"there is no event {event_id[:40]!r}")
    return event_id


def _number(request: Request, name: str, what: str) -> int:
    text = str(request.path_params[name])
    if not re.fullmatch(r"[1-9][0-9]{0,3}", text):
        raise HttpError(ErrorCode.BAD_REQUEST, f"{what} is a whole number from 1, not {text!r}")
    return int(text)


def _entrant_id(request: Request) -> str:
    entrant = str(request.path_params["entrant"])
    if not _ENTRANT.match(entrant):
        raise HttpError(ErrorCode.UNKNOWN_ENTRANT, f"there is no entrant {entrant[:40]!r}")
    return entrant


async def _body(request: Request, fields: Sequence[str]) -> dict[str, Any]:
    """The JSON body of a POST or PUT from this site (an empty body is ``{}``)."""
    same_site(request)
    if request.headers.get("content-length", "0") == "0" and (
        "transfer-encoding" not in request.headers
    ):
        return {}
    return await json_body(request, MAX_BODY, fields, json_only=True)


async def _account(request: Request) -> int | None:
    account = await account_of(request)
    return None if account is None else account.id


async def _logged_in(request: Request, what: str) -> int:
    account_id = await _account(request)
    if account_id is None:
        raise HttpError(ErrorCode.NOT_LOGGED_IN, f"log in to {what}")
    return account_id


def _claim(request: Request) -> str | None:
    return claim_of(device_token(request, required=False))


async def _limited(limiter: RateLimiter, request: Request, what: str) -> None:
    if await limiter.take(client_address(request)) is None:
        raise HttpError(ErrorCode.RATE_LIMITED, f"too many {what} from this address: wait a minute")


async def _limited_unless_organiser(request: Request, account_id: int | None) -> None:
    """Results reported and confirmed are limited per address, but the organiser's (who
    may enter a whole hall's sheets)."""
    http = events_of(request)
    if account_id is not None:
        loaded = await http.service.loaded(_event_id(request))
        if loaded is not None and loaded.event.organiser == account_id:
            return
    await _limited(http.reports, request, "results")


def _text(body: dict[str, Any], name: str, *, required: bool = True, limit: int = 80) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise HttpError(ErrorCode.BAD_REQUEST, f"{name} is text")
    if len(value) > limit:
        raise HttpError(ErrorCode.BAD_REQUEST, f"{name} is at most {limit} characters")
    return value


def _members(
    body: dict[str, Any], account_id: int | None, bot: bool = False
) -> tuple[Person, ...] | None:
    """A fixed team's players (``members``: their names); the first plays as ``account_id``
    (a bot's account when ``bot``)."""
    members = body.get("members")
    if members is None:
        return None
    if (
        not isinstance(members, list)
        or not 1 <= len(members) <= 2
        or not all(isinstance(m, str) and m.strip() and len(m) <= 80 for m in members)
    ):
        raise HttpError(ErrorCode.BAD_REQUEST, "members is a list of one or two names")
    return tuple(
        Person(" ".join(name.split()), account_id, bot)
        if i == 0
        else Person(" ".join(name.split()))
        for i, name in enumerate(members)
    )


def _rating(body: dict[str, Any]) -> float:
    rating = body.get("rating", 0.0)
    if isinstance(rating, bool) or not isinstance(rating, int | float):
        raise HttpError(ErrorCode.BAD_REQUEST, "rating is a number")
    if not 0 <= rating <= 10_000:
        raise HttpError(ErrorCode.BAD_REQUEST, "rating is a number from 0 to 10000")
    return float(rating)


def _pairings(data: object, round_number: int) -> tuple[Pairing, ...] | None:
    """The organiser's own pairings of a round (None: let the format pair it again); each
    numbered by its place unless it says its table."""
    if data is None:
        return None
    if not isinstance(data, list) or not 1 <= len(data) <= MAX_ENTRANTS:
        raise EventError(ErrorCode.BAD_EVENT, "pairings are a list of pairings")
    return tuple(
        pairing_from_dict({"table": number, **item, "round": round_number})
        if isinstance(item, dict)
        else pairing_from_dict(item)
        for number, item in enumerate(data, 1)
    )


# ------------------------------------------------------------------ answers


async def _answer(
    request: Request,
    event: Event,
    account_id: int | None,
    claim: str | None,
    status: int = 200,
) -> Response:
    """The event's view, and who the asker is in it (``you``)."""
    service = events_of(request).service
    shared = await anyio.to_thread.run_sync(service.view, event)
    actor = service.actor(event, account_id, claim)
    entrant = event.entrant_of(actor)
    you = {"organiser": actor.organiser, "entrant": None if entrant is None else entrant.id}
    view = {**shared, "you": you}
    return JSONResponse(view, status_code=status, headers={"Cache-Control": "no-store"})


Command = Callable[[Event, Actor, float], Sequence[Entry]]


async def _command(
    request: Request,
    command: Command,
    *,
    account_id: int | None,
    claim: str | None = None,
) -> Response:
    """Run ``command`` on the path's event as the asker; answer the new view."""
    event_id = _event_id(request)
    service = events_of(request).service

    def decide(event: Event) -> Sequence[Entry]:
        return command(event, service.actor(event, account_id, claim), service.now())

    event = await service.run(event_id, decide)
    return await _answer(request, event, account_id, claim)


async def _as_organiser(request: Request, command: Command) -> Response:
    account_id = await _logged_in(request, "run an event")
    return await _command(request, command, account_id=account_id)


# ------------------------------------------------------------------ routes


async def create(request: Request) -> Response:
    """``POST /api/events``: a new event organised by the logged-in account."""
    body = await _body(request, ("settings",))
    account_id = await _logged_in(request, "organise an event")
    settings = EventSettings.from_dict(body.get("settings"))  # type: ignore[arg-type]
    event = await events_of(request).service.create(account_id, settings)
    return await _answer(request, event, account_id, None, status=201)


async def listing(request: Request) -> Response:
    """``GET /api/events``: events open, running or finished lately; ``?mine=1``: the account's."""
    mine = request.query_params.get("mine")
    if mine not in (None, "0", "1"):
        raise HttpError(ErrorCode.BAD_REQUEST, f"mine is 0 or 1, not {mine!r}")
    store = events_of(request).service.store
    if mine == "1":
        account_id = await _logged_in(request, "see your events")
        rows = await anyio.to_thread.run_sync(lambda: store.list_events(account_id=account_id))
    else:
        rows = await anyio.to_thread.run_sync(store.list_events)
    events = [
        {
            "id": row.id,
            "code": row.code,
            "status": row.status,
            "organiser": row.organiser_id,
            "version": row.version,
            **{k: v for k, v in row.summary.items() if k not in ("id", "code", "status")},
            "updated_at": row.updated_at.replace(microsecond=0).isoformat() + "Z",
        }
        for row in rows
    ]
    return JSONResponse({"events": events}, headers={"Cache-Control": "no-store"})


async def one(request: Request) -> Response:
    """``GET /api/events/{id}``: the view."""
    loaded = await events_of(request).service.require(_event_id(request))
    return await _answer(request, loaded.event, await _account(request), _claim(request))


async def by_code(request: Request) -> Response:
    """``GET /api/events/code/{code}``: the id of the event of a join code."""
    http = events_of(request)
    await _limited(http.joins, request, "join codes tried")
    code = str(request.path_params["code"])
    found = None if len(code) > 16 else await http.service.by_code(code)
    if found is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"no event has the code {code[:16]!r}")
    return JSONResponse({"id": found})


async def stream(request: Request) -> Response:
    """``GET /api/events/{id}/stream``: the view as Server-Sent Events."""
    return await events_of(request).streams.response(request, _event_id(request))


async def join(request: Request) -> Response:
    """``POST /api/events/{id}/join``: the asker enters (an account, or a device by name)."""
    body = await _body(request, ("name", "members"))
    http = events_of(request)
    await _limited(http.joins, request, "joins")
    account_id, claim = await _account(request), _claim(request)
    if account_id is None and claim is None:
        raise HttpError(
            ErrorCode.NOT_LOGGED_IN,
            "log in, or send this device's token (X-Device-Token), to join",
        )
    bot = await _is_bot(request, account_id)
    name, members = _text(body, "name"), _members(body, account_id, bot)
    rating = await _rating_of(request, account_id, bot=bot)

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.join(actor, name, rating=rating, members=members, bot=bot, now=now)

    return await _command(request, command, account_id=account_id, claim=claim)


async def _rating_of(request: Request, account_id: int | None, *, bot: bool = False) -> float:
    """The account's rating (0 for none): an entrant's seed.  A person's is the singles
    ladder's, a bot's the bots' ladder's (bots are rated apart from people)."""
    if account_id is None:
        return 0.0
    store = events_of(request).service.store
    ladder = "bots" if bot else "singles"
    ratings = await anyio.to_thread.run_sync(lambda: store.ratings_of([account_id], ladder))
    found = ratings.get(account_id)
    return 0.0 if found is None else float(found.rating)


async def _is_bot(request: Request, account_id: int | None) -> bool:
    """Whether the account is a bot's (its entrant is marked BOT)."""
    if account_id is None:
        return False
    store = events_of(request).service.store
    account = await anyio.to_thread.run_sync(store.account, account_id)
    return account is not None and account.bot


async def add(request: Request) -> Response:
    """``POST /api/events/{id}/entrants``: the organiser adds an entrant (late, or a name)."""
    body = await _body(request, ("name", "account", "rating", "members"))
    name, rating = _text(body, "name"), _rating(body)
    account_id, bot = None, False
    username = body.get("account")
    if username is not None:
        if not isinstance(username, str) or not _USERNAME.match(username):
            raise HttpError(ErrorCode.BAD_REQUEST, "account is a username")
        store = events_of(request).service.store
        found = await anyio.to_thread.run_sync(store.account_by_key, username.lower())
        if found is None:
            raise HttpError(ErrorCode.NOT_FOUND, f"nobody has the username {username!r}")
        account_id, bot = found.id, found.bot
        if "rating" not in body:
            rating = await _rating_of(request, account_id, bot=bot)
    members = _members(body, account_id, bot)

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.add(
            actor, name, account_id=account_id, rating=rating, members=members, bot=bot, now=now
        )

    return await _as_organiser(request, command)


async def check_in(request: Request) -> Response:
    """``POST .../entrants/{eid}/check-in``: the entrant (or the organiser) is here."""
    await _body(request, ())
    entrant = _entrant_id(request)

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.check_in(actor, entrant, now=now)

    return await _command(
        request, command, account_id=await _account(request), claim=_claim(request)
    )


async def set_status(request: Request) -> Response:
    """``POST .../entrants/{eid}/status``: the organiser pauses, drops or resumes an entrant."""
    body = await _body(request, ("status",))
    entrant = _entrant_id(request)
    try:
        status = EntrantStatus(str(body.get("status")))
    except ValueError:
        allowed = ", ".join(s.value for s in EntrantStatus)
        raise HttpError(ErrorCode.BAD_REQUEST, f"status is one of {allowed}") from None

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.set_status(actor, entrant, status, now=now)

    return await _as_organiser(request, command)


async def pair_next(request: Request) -> Response:
    """``POST /api/events/{id}/rounds``: the organiser pairs the next round."""
    await _body(request, ())

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.pair_next(actor, now=now)

    return await _as_organiser(request, command)


async def repair(request: Request) -> Response:
    """``PUT /api/events/{id}/rounds/{n}``: pair round n again before it starts."""
    body = await _body(request, ("pairings",))
    number = _number(request, "round", "a round")
    pairings = _pairings(body.get("pairings"), number)

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.repair(actor, number, now=now, pairings=pairings)

    return await _as_organiser(request, command)


async def start_round(request: Request) -> Response:
    """``POST /api/events/{id}/rounds/{n}/start``: the organiser starts round n."""
    await _body(request, ())
    number = _number(request, "round", "a round")

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.start_round(actor, number, now=now)

    return await _as_organiser(request, command)


async def result(request: Request) -> Response:
    """``POST`` (report: a player or the organiser) and ``PUT`` (correct: the organiser)
    ``.../rounds/{n}/tables/{t}/result``."""
    correcting = request.method == "PUT"
    body = await _body(request, ("games", "reason") if correcting else ("games",))
    number, table = _number(request, "round", "a round"), _number(request, "table", "a table")
    played = result_from_dict({"games": body.get("games")})
    if correcting:
        reason = _text(body, "reason", limit=200)

        def correct(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
            return event.correct(actor, number, table, played, reason, now=now)

        return await _as_organiser(request, correct)
    account_id = await _account(request)
    await _limited_unless_organiser(request, account_id)

    def report(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.report(actor, number, table, played, now=now)

    return await _command(
        request, report, account_id=await _account(request), claim=_claim(request)
    )


async def confirm(request: Request) -> Response:
    """``POST .../rounds/{n}/tables/{t}/confirm``: the other side (or the organiser) agrees."""
    await _body(request, ())
    account_id = await _account(request)
    await _limited_unless_organiser(request, account_id)
    number, table = _number(request, "round", "a round"), _number(request, "table", "a table")

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.confirm(actor, number, table, now=now)

    return await _command(request, command, account_id=account_id, claim=_claim(request))


async def pause(request: Request) -> Response:
    """``POST /api/events/{id}/pause``: the organiser pauses (``{"paused": false}``: resumes)."""
    body = await _body(request, ("paused",))
    paused = body.get("paused", True)
    if not isinstance(paused, bool):
        raise HttpError(ErrorCode.BAD_REQUEST, "paused is true or false")

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.set_paused(actor, paused, now=now)

    return await _as_organiser(request, command)


async def finish(request: Request) -> Response:
    """``POST /api/events/{id}/finish``: the organiser ends the event."""
    await _body(request, ())

    def command(event: Event, actor: Actor, now: float) -> Sequence[Entry]:
        return event.finish(actor, now=now)

    return await _as_organiser(request, command)


async def sheet(request: Request) -> Response:
    """``POST .../rounds/{n}/tables/{t}/sheet``: the pairing's score sheet, made once.

    The sheet is the score keeper's (:mod:`crokinole.server.http.sheets`),
    owned by the device that asked first (its ``X-Device-Token``, which the
    score keeper's routes need): that device keeps score, and everyone reads
    it by its share link.  The event's log records the sheet (the view's
    ``sheet``), the store which pairing it keeps.  Answers ``{"sheet",
    "share_id", "owner"}`` (``owner``: whether the asking device keeps it).
    """
    await _body(request, ())
    token = device_token(request, refused=ErrorCode.NO_DEVICE)
    assert token is not None
    event_id = _event_id(request)
    number, table = _number(request, "round", "a round"), _number(request, "table", "a table")
    service = events_of(request).service
    account_id, claim = await _account(request), claim_of(token)
    event = (await service.require(event_id)).event
    pairing = _pairing(event, number, table)
    actor = service.actor(event, account_id, claim)
    entrant = event.entrant_of(actor)
    if not actor.organiser and (entrant is None or entrant.id not in pairing.entrants):
        raise EventError(
            ErrorCode.FORBIDDEN,
            f"only the players of table {table} or the organiser can open its score sheet",
        )
    store = service.store
    made = await anyio.to_thread.run_sync(store.event_sheet, event_id, number, table)
    if made is None:
        made = await _make_sheet(service, token, event, pairing)

    def opened(event: Event) -> Sequence[Entry]:
        actor = service.actor(event, account_id, claim)
        return event.sheet_opened(actor, number, table, made, now=service.now())

    await service.run(event_id, opened)
    data = await anyio.to_thread.run_sync(store.sheet, made)
    if data is None:
        raise HttpError(ErrorCode.NOT_FOUND, "the pairing's score sheet was deleted")
    return JSONResponse(
        {"sheet": data.id, "share_id": data.share_id, "owner": data.device_token == token},
        headers={"Cache-Control": "no-store"},
    )


async def _make_sheet(service: EventService, token: str, event: Event, pairing: Pairing) -> str:
    """A new sheet of the pairing, owned by the device ``token``; the one another device made
    meanwhile if it came first (ours is deleted)."""
    store = service.store
    blank = _new_sheet(event, pairing)
    sheet_id, share_id = secrets.token_hex(16), secrets.token_hex(16)
    await anyio.to_thread.run_sync(store.create_sheet, sheet_id, share_id, token, blank.to_dict())
    try:
        await anyio.to_thread.run_sync(
            store.link_event_sheet, sheet_id, event.id, pairing.round, pairing.table
        )
    except StoreConflictError:
        await anyio.to_thread.run_sync(store.delete_sheet, sheet_id)
        theirs = await anyio.to_thread.run_sync(
            store.event_sheet, event.id, pairing.round, pairing.table
        )
        if theirs is None:
            raise
        return theirs
    return sheet_id


def _pairing(event: Event, number: int, table: int) -> Pairing:
    if not 1 <= number <= len(event.rounds):
        raise EventError(ErrorCode.NOT_FOUND, f"the event has no round {number}")
    pairing = event.rounds[number - 1].pairing(table)
    if pairing.bye:
        raise EventError(ErrorCode.BAD_REQUEST, f"table {table} is a bye: it has no game")
    return pairing


def _new_sheet(event: Event, pairing: Pairing) -> ScoreSheet:
    """A blank sheet of the pairing: its sides' names, the event's rules, best of N."""
    by_id = {entrant.id: entrant for entrant in event.entrants}
    rules = event.settings.rules
    names = [" & ".join(by_id[e].name for e in side) for side in pairing.sides]
    players = None
    if rules.layout.players == 4:
        people = [
            [person.name for e in side for person in by_id[e].members] for side in pairing.sides
        ]
        if all(len(side) == 2 for side in people):
            players = people
    first = Seat.SOUTH if pairing.first == 0 else Seat.NORTH
    return ScoreSheet.new(
        rules.layout,
        None if players is not None else names,
        rules.scoring,
        rules.tie,
        first,
        discs=rules.discs_per_side,
        match_games=pairing.best_of,
        players=players,
    )


def _standing_order(event: Event) -> tuple[TieBreak, ...]:
    """The CSV's columns: a knockout's round reached first, then the settings' tie-breaks."""
    first = () if event.reached() is None else (TieBreak.BRACKET,)
    return (*first, *event.settings.tie_breaks)


async def standings_csv(request: Request) -> Response:
    """``GET /api/events/{id}/standings.csv``: the standings as CSV (every tie-break)."""
    event = (await events_of(request).service.require(_event_id(request))).event
    text = await anyio.to_thread.run_sync(
        lambda: export.standings_csv(event.standings(), _standing_order(event))
    )
    return Response(
        text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{_file_name(event)}.csv"'},
    )


async def cmn(request: Request) -> Response:
    """``GET /api/events/{id}/cmn.json``: every counted match as CMN 1.0 (docs/cmn.md)."""
    event = (await events_of(request).service.require(_event_id(request))).event
    doc = await anyio.to_thread.run_sync(
        lambda: export.to_cmn(event.settings, event.entrants, event.matches())
    )
    return JSONResponse(
        doc,
        headers={"Content-Disposition": f'attachment; filename="{_file_name(event)}.cmn.json"'},
    )


def _file_name(event: Event) -> str:
    """The event's name as a file name (letters, digits and dashes)."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", event.settings.name).strip("-").lower()
    return (name or "event")[:60]


async def import_cmn(request: Request) -> Response:
    """``POST /api/events/import``: a CMN 1.0 document → a new, finished event of the account,
    every match of it confirmed (its standings are the document's)."""
    same_site(request)
    account_id = await _logged_in(request, "import an event")
    doc = await json_body(request, MAX_IMPORT, json_only=True, noun="a CMN document")
    settings, entrants, matches = export.from_cmn(doc)
    event = await events_of(request).service.import_event(account_id, settings, entrants, matches)
    return await _answer(request, event, account_id, None, status=201)


async def qr(request: Request) -> Response:
    """``GET /api/events/{id}/qr.svg``: a QR code of the event's join link."""
    loaded = await events_of(request).service.require(_event_id(request))
    link = f"{str(request.base_url).rstrip('/')}/events/join/{loaded.event.code}"
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False)
    return Response(
        out.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"}
    )


def _route(path: str, endpoint: Callable[[Request], Awaitable[Response]], *methods: str) -> Route:
    return Route(path, endpoint, methods=list(methods))


E = "/api/events/{event}"
P = E + "/rounds/{round}/tables/{table}"

#: The events' API routes (the pages are :mod:`crokinole.server.http.pages`').
routes: list[BaseRoute] = [
    _route("/api/events", create, "POST"),
    _route("/api/events", listing, "GET"),
    _route("/api/events/code/{code}", by_code, "GET"),
    _route(E, one, "GET"),
    _route(E + "/stream", stream, "GET"),
    _route(E + "/qr.svg", qr, "GET"),
    _route(E + "/join", join, "POST"),
    _route(E + "/entrants", add, "POST"),
    _route(E + "/entrants/{entrant}/check-in", check_in, "POST"),
    _route(E + "/entrants/{entrant}/status", set_status, "POST"),
    _route(E + "/rounds", pair_next, "POST"),
    _route(E + "/rounds/{round}", repair, "PUT"),
    _route(E + "/rounds/{round}/start", start_round, "POST"),
    _route(P + "/result", result, "POST", "PUT"),
    _route(P + "/confirm", confirm, "POST"),
    _route(P + "/sheet", sheet, "POST"),
    _route("/api/events/import", import_cmn, "POST"),
    _route(E + "/standings.csv", standings_csv, "GET"),
    _route(E + "/cmn.json", cmn, "GET"),
    _route(E + "/pause", pause, "POST"),
    _route(E + "/finish", finish, "POST"),
]
