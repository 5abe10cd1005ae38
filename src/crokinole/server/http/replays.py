"""Replays of finished games: the record replayed shot by shot for the replay viewer.

A game's record (R9) holds every action; played again from the start with
the rules engine, each shot gives the same report, trajectory and game
snapshot a live ``shot`` message carries (built by the same functions of
:mod:`crokinole.server.ws.payloads` and :mod:`crokinole.server.ws.views`), so the
viewer animates and words it as live play does.  See docs/replays.md.

| method | route | does |
|---|---|---|
| GET | /api/tables/{table}/replay.json | the game replayed: a step per action |
| | | (``?game=N``: the table's game N, when it played several) |
| GET | /replay/{table} | the replay viewer (the page reads the id from its path) |

Errors are ``{"code": "...", "message": "plain words"}``
(:mod:`crokinole.server.http.errors`): 400 for a bad table id or game
number, 404 for a table or game that is not there, 409 for a game under way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.errors import ErrorCode, InvalidRecordError
from crokinole.rules import Game, NextRound, ShotAction, Step
from crokinole.rules import steps as record_steps
from crokinole.server.cache import LruCache
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.pages import page
from crokinole.server.owner.tables import stored_table
from crokinole.server.ws.messages import TABLE_PATTERN
from crokinole.server.ws.payloads import report_payload, trajectory_payload
from crokinole.server.ws.views import bot_seats, game_view, seat_name, seat_names, shot_payload
from crokinole.store import Store
from crokinole.table import (
    Event,
    GameStarted,
    ShotPlayed,
    Table,
    TurnTimedOut,
    event_from_dict,
)

__all__ = [
    "Replayed",
    "game_number",
    "replay_actions",
    "replay_payload",
    "routes",
    "table_at_game",
    "table_id",
]


#: One action of a record, played again (the rules' :class:`~crokinole.rules.Step`).
Replayed = Step


def replay_actions(game: Game) -> Iterator[Replayed]:
    """Play ``game``'s record again from the start, action by action (see ``rules.steps``).

    >>> from crokinole.board import Seat, Shot
    >>> from crokinole.rules import Rules
    >>> game = Game(Rules(rounds=1))
    >>> _ = game.shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=28.0))
    >>> _ = game.timeout(Seat.NORTH)
    >>> [(r.action.kind, r.report.seat.name, r.after.turn_index) for r in replay_actions(game)]
    [('shoot', 'SOUTH', 1), ('timeout', 'NORTH', 2)]
    """
    return record_steps(game)


def _turn_events(events: Sequence[Event], game_number: int) -> list[ShotPlayed | TurnTimedOut]:
    """The shots and timeouts of the table's game ``game_number``, in order."""
    turns: list[ShotPlayed | TurnTimedOut] = []
    current = 0
    for event in events:
        if isinstance(event, GameStarted):
            current = event.game_number
        elif current == game_number and isinstance(event, ShotPlayed | TurnTimedOut):
            turns.append(event)
    return turns


def _step(
    table: Table, replayed: Replayed, turn: ShotPlayed | TurnTimedOut | None
) -> dict[str, Any]:
    """One step of a replay: what a live ``shot``, ``timeout`` or ``round`` message carries."""
    action, before, report = replayed.action, replayed.before, replayed.report
    if report is None:  # next_round
        return {
            "type": "next_round",
            "round": replayed.after.round_number,
            "game": game_view(table, replayed.after, shared=True),
        }
    step: dict[str, Any] = {
        "type": "shot" if isinstance(action, ShotAction) else "timeout",
        "round": before.round_number,
        "seat": seat_name(report.seat),
        "by": turn.by if isinstance(turn, ShotPlayed) else None,
        "reason": turn.reason if isinstance(turn, TurnTimedOut) else None,
        "aimed": shot_payload(turn.aimed) if isinstance(turn, ShotPlayed) else None,
        "played": shot_payload(report.shot),
        "report": report_payload(report, before),
        "trajectory": None,  # a timeout's: a live timeout message has none either
        "game": game_view(table, replayed.after, shared=True),
    }
    if report.physics is not None:
        owners = [seat_name(o) for o in report.owners]
        step["trajectory"] = trajectory_payload(report.physics, list(report.ids), owners)
    return step


def replay_payload(table: Table, events: Sequence[Event]) -> dict[str, Any]:
    """The replay of ``table``'s game (``events``: the table's log, for who shot and how).

    ``start`` is the game before the first action; ``steps[k]`` is action
    ``k`` of the record with the game after it; ``rounds[r]["step"]`` is the
    number of steps played when round ``r + 1`` begins.

    Raises:
        HttpError: the table has no game (404), or its game is still being played (409).
        InvalidRecordError: the record does not replay to the stored game.
    """
    game = finished(table, "this game is not finished yet")
    abandoned = not game.is_over
    turns = _turn_events(events, table.game_number)
    start = Game(game.rules, game.board, game.first_seat)
    steps: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = [{"number": 1, "step": 0, "first": seat_name(game.first_seat)}]
    turn_index = 0
    for replayed in replay_actions(game):
        turn: ShotPlayed | TurnTimedOut | None = None
        if replayed.report is not None:
            if turn_index < len(turns) and turns[turn_index].seat is replayed.report.seat:
                turn = turns[turn_index]
            turn_index += 1
        steps.append(_step(table, replayed, turn))
        if isinstance(replayed.action, NextRound):
            after = replayed.after
            rounds.append(
                {
                    "number": after.round_number,
                    "step": len(steps),
                    "first": seat_name(after.round_first_seat),
                }
            )
    outcome = game.outcome
    return {
        "table": table.id,
        "kind": str(table.kind),
        "game_number": table.game_number,
        "end": "abandoned" if abandoned else "over",
        "outcome": None
        if outcome is None
        else {"winner": outcome.winner, "drawn": list(outcome.drawn)},
        "record": f"/api/tables/{table.id}/record.json",
        "link": f"/replay/{table.id}?game={table.game_number}",
        # Who sat where, as the review and the record name them ("Ann", "CPU Normal", "South").
        "names": seat_names(table, shared=True),
        "bots": bot_seats(table),
        "start": game_view(table, start, shared=True),
        "rounds": rounds,
        "steps": steps,
    }


def finished(table: Table, under_way: str) -> Game:
    """The table's game, finished or abandoned (``under_way``: the refusal of one in play).

    Raises:
        HttpError: the table has no game (404), or its game is under way (409).
    """
    game = table.game
    if game is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"table {table.id} has no game")
    if not game.is_over and table.stage == "playing":
        raise HttpError(ErrorCode.NOT_FINISHED, under_way)
    return game


def table_id(request: Request) -> str:
    """The table id of the route's path (400 if it is not one)."""
    found: str = request.path_params["table"]
    if not re.match(TABLE_PATTERN, found):
        raise HttpError(ErrorCode.BAD_REQUEST, "a table id is 32 hexadecimal digits")
    return found


def game_number(request: Request) -> int | None:
    """The ``game`` query parameter: None (the table's last game) or a game number from 1.

    Raises:
        HttpError: not a game number (400).
    """
    text = request.query_params.get("game")
    if text is None:
        return None
    if not re.fullmatch(r"[1-9][0-9]{0,5}", text):
        raise HttpError(ErrorCode.BAD_REQUEST, f"game is a game number from 1, got {text[:20]!r}")
    return int(text)


def table_at_game(
    store: Store, table_id: str, game_number: int | None
) -> tuple[Table, list[Event]]:
    """The table as it was at its game ``game_number`` (None: now), and its whole log (blocking).

    Raises:
        HttpError: no such table or game (404).
    """
    stored = stored_table(store, table_id)
    if stored is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"table {table_id} has no game")
    table = stored[0]
    events = [event_from_dict(d) for d in store.table_events(table_id)]
    if game_number is not None and game_number != table.game_number:
        if not 1 <= game_number < table.game_number:
            raise HttpError(ErrorCode.NOT_FOUND, f"table {table_id} has no game {game_number}")
        # The table as it was when game N+1 started: its game is game N, finished.
        upto = next(
            i
            for i, e in enumerate(events)
            if isinstance(e, GameStarted) and e.game_number == game_number + 1
        )
        table = Table.replay(events[:upto])
    return table, events


def table_version(store: Store, table_id: str) -> int:
    """The version of the table's log (blocking): what a kept answer about it is kept by.

    Raises:
        HttpError: no such table (404).
    """
    data = store.table(table_id)
    if data is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"table {table_id} has no game")
    return data.version


def cached_replay(
    store: Store, cache: LruCache[Any, dict[str, Any]], table_id: str, game: int | None
) -> dict[str, Any]:
    """The replay of the table's game ``game`` (None: its last), kept by version (blocking)."""
    key = ("replay", table_id, game, table_version(store, table_id))
    return cache.get_or_make(key, lambda: replay_payload(*table_at_game(store, table_id, game)))


async def replay_json(request: Request) -> Response:
    """``GET /api/tables/{table}/replay.json``."""
    found, game = table_id(request), game_number(request)
    http = context(request)
    try:
        payload = await anyio.to_thread.run_sync(
            cached_replay, http.store, http.replays, found, game
        )
    except InvalidRecordError as exc:
        raise HttpError(
            ErrorCode.SERVER_ERROR, f"this game's record cannot be replayed: {exc}"
        ) from None
    return JSONResponse(payload, headers={"Cache-Control": "no-cache"})


routes: list[BaseRoute] = [
    Route("/api/tables/{table}/replay.json", replay_json),
    Route("/replay/{table}", page("replay.html")),
]
