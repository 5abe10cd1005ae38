"""The game record (R9): JSON in and out, and replay.

The format is documented in ``docs/record-format.md``.  A record holds the
options, the board (when it is not the tournament board), who opened the
game, every action with its result, and a snapshot of the state.  Reading
a record restores the snapshot exactly (floats survive JSON unchanged);
:func:`replay` plays the actions again from the start and checks that the
simulator and referee reach the same state, disc for disc.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Board, Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.physics import check_position
from crokinole.rules.game import Game, Phase, RoundResult
from crokinole.rules.options import Rules
from crokinole.rules.referee import Disc
from crokinole.rules.scoring import GameOutcome, SideCount

FORMAT = "crokinole-record"
VERSION = 1
#: Records larger than this are refused before parsing (bytes).
MAX_RECORD_BYTES = 10_000_000


def game_to_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` as plain data."""
    board = None
    if game.board != TOURNAMENT_BOARD:
        board = dataclasses.asdict(game.board)
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": game.rules.to_dict(),
        "board": board,
        "first_seat": game._first_seat.name.lower(),
        "actions": [dict(a) for a in game.actions],
        "state": game.snapshot(),
    }


def game_to_json(game: Game) -> str:
    """The record of ``game`` as compact JSON text."""
    return json.dumps(game_to_record(game), separators=(",", ":"), allow_nan=False)


def _parse(text: str | bytes) -> dict[str, Any]:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="strict")
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record is JSON text, got {type(text).__name__}")
    if len(text) > MAX_RECORD_BYTES:
        raise InvalidRecordError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"the record is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidRecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise InvalidRecordError(f"not a crokinole record (format {data.get('format')!r})")
    if data.get("version") != VERSION:
        raise InvalidRecordError(
            f"record version {data.get('version')!r} is not supported (this is version {VERSION})"
        )
    return data


def _seat(name: object, where: str) -> Seat:
    if not isinstance(name, str) or name.upper() not in Seat.__members__:
        raise InvalidRecordError(f"{where}: {name!r} is not a seat")
    return Seat[name.upper()]


def _int(value: object, where: str, least: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InvalidRecordError(f"{where}: expected a whole number >= {least}, got {value!r}")
    return value


def _float(value: object, where: str) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidRecordError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _int_list(value: object, where: str, length: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length:
        raise InvalidRecordError(f"{where}: expected a list of {length} whole numbers")
    return [_int(v, where) for v in value]


def _new_game(data: dict[str, Any]) -> Game:
    try:
        rules = Rules.from_dict(data.get("rules"))  # type: ignore[arg-type]
        board_data = data.get("board")
        board = TOURNAMENT_BOARD if board_data is None else Board(**board_data)
    except (CrokinoleError, TypeError) as exc:
        raise InvalidRecordError(f"the record's options are invalid: {exc}") from None
    first = _seat(data.get("first_seat"), "first_seat")
    try:
        return Game(rules, board, first)
    except CrokinoleError as exc:
        raise InvalidRecordError(f"the record's game cannot start: {exc}") from None


def _restore(game: Game, state: object, actions: object) -> None:
    if not isinstance(state, dict):
        raise InvalidRecordError("the record has no state object")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise InvalidRecordError("the record's actions must be a list of objects")
    rules = game.rules
    n_sides = len(rules.sides)
    try:
        phase = Phase(state.get("phase"))
    except ValueError:
        raise InvalidRecordError(f"state.phase: unknown phase {state.get('phase')!r}") from None
    number = _int(state.get("round"), "state.round", 1)
    first = _seat(state.get("round_first"), "state.round_first")
    if first not in rules.seats:
        raise InvalidRecordError(f"state.round_first: {first.name.lower()} is not in play")
    game._start_round(number, first)
    turn = _int(state.get("turn"), "state.turn")
    if turn > len(game._order):
        raise InvalidRecordError(f"state.turn: {turn} is past the end of the round")
    in_hand = state.get("in_hand")
    if not isinstance(in_hand, dict) or set(in_hand) != {s.name.lower() for s in rules.seats}:
        raise InvalidRecordError("state.in_hand: one count per seat in play is needed")
    hands = {_seat(k, "state.in_hand"): _int(v, f"state.in_hand.{k}") for k, v in in_hand.items()}
    discs_data = state.get("discs")
    if not isinstance(discs_data, list):
        raise InvalidRecordError("state.discs: expected a list")
    discs: list[Disc] = []
    for k, item in enumerate(discs_data):
        if not isinstance(item, list) or len(item) != 4:
            raise InvalidRecordError(f"state.discs[{k}]: expected [id, owner, x, y]")
        owner = _seat(item[1], f"state.discs[{k}]")
        if owner not in rules.seats:
            raise InvalidRecordError(f"state.discs[{k}]: {owner.name.lower()} is not in play")
        discs.append(
            Disc(
                _int(item[0], f"state.discs[{k}].id"),
                owner,
                _float(item[2], f"state.discs[{k}].x"),
                _float(item[3], f"state.discs[{k}].y"),
            )
        )
    twenties = _int_list(state.get("twenties"), "state.twenties", n_sides)
    ditch = _int_list(state.get("ditch"), "state.ditch", n_sides)
    scores = _int_list(state.get("scores"), "state.scores", n_sides)
    next_id = _int(state.get("next_id"), "state.next_id")
    history = _history(state.get("history"), n_sides)
    outcome_data = state.get("outcome")
    outcome: GameOutcome | None = None
    if outcome_data is not None:
        if not isinstance(outcome_data, dict):
            raise InvalidRecordError("state.outcome: expected an object or null")
        winner = outcome_data.get("winner")
        drawn = outcome_data.get("drawn", [])
        if not isinstance(drawn, list):
            raise InvalidRecordError("state.outcome.drawn: expected a list")
        outcome = GameOutcome(
            None if winner is None else _int(winner, "state.outcome.winner"),
            tuple(_int(d, "state.outcome.drawn") for d in drawn),
        )
    try:
        check_position(game.board, np.array([(d.x, d.y) for d in discs]).reshape(-1, 2))
    except CrokinoleError as exc:
        raise InvalidRecordError(f"state.discs: {exc}") from None
    # Conservation (R6): every disc of a side is in hand, on the board, a 20 or in the ditch.
    for side in range(n_sides):
        seats = rules.sides[side]
        total = (
            sum(hands[s] for s in seats)
            + sum(1 for d in discs if d.owner in seats)
            + twenties[side]
            + ditch[side]
        )
        if total != rules.discs_per_side:
            raise InvalidRecordError(
                f"state: side {side} accounts for {total} discs, not {rules.discs_per_side}"
            )
    _check_consistent(
        game, phase=phase, turn=turn, hands=hands, discs=discs, next_id=next_id, outcome=outcome
    )
    game._turn = turn
    game._in_hand = hands
    game._discs = tuple(discs)
    game._twenties = twenties
    game._ditch = ditch
    game._next_id = next_id
    game._scores = scores
    game._history = history
    game._outcome = outcome
    game._phase = phase
    game._actions = [dict(a) for a in actions]


def _check_consistent(
    game: Game,
    *,
    phase: Phase,
    turn: int,
    hands: dict[Seat, int],
    discs: list[Disc],
    next_id: int,
    outcome: GameOutcome | None,
) -> None:
    """The parts of a state must agree with each other and with the turn order."""
    order = game._order
    if (phase is Phase.PLAYING) != (turn < len(order)):
        raise InvalidRecordError(
            f"state: phase {phase.value} does not match turn {turn} of {len(order)}"
        )
    rules = game.rules
    for seat, held in hands.items():
        expected = rules.discs_per_player(seat) - order[:turn].count(seat)
        if held != expected:
            raise InvalidRecordError(
                f"state.in_hand.{seat.name.lower()}: {held} discs, but after turn {turn} "
                f"the seat has {expected}"
            )
    ids = [d.id for d in discs]
    if len(set(ids)) != len(ids) or any(i >= next_id for i in ids) or next_id != turn:
        raise InvalidRecordError("state: disc ids must be distinct and below next_id (= turn)")
    if (outcome is None) != (phase is not Phase.GAME_OVER):
        raise InvalidRecordError("state: an outcome is given exactly when the game is over")
    if outcome is not None:
        sides = range(len(rules.sides))
        if (outcome.winner is not None and outcome.winner not in sides) or any(
            d not in sides for d in outcome.drawn
        ):
            raise InvalidRecordError("state.outcome: a side number is out of range")


def _history(value: object, n_sides: int) -> list[RoundResult]:
    if not isinstance(value, list):
        raise InvalidRecordError("state.history: expected a list")
    out: list[RoundResult] = []
    for k, item in enumerate(value):
        where = f"state.history[{k}]"
        if not isinstance(item, dict):
            raise InvalidRecordError(f"{where}: expected an object")
        counts_data = item.get("counts")
        if not isinstance(counts_data, list) or len(counts_data) != n_sides:
            raise InvalidRecordError(f"{where}.counts: expected one entry per side")
        counts = tuple(SideCount(*_int_list(c, f"{where}.counts", 4)) for c in counts_data)
        out.append(
            RoundResult(
                _int(item.get("number"), f"{where}.number", 1),
                counts,
                tuple(_int_list(item.get("points"), f"{where}.points", n_sides)),
                tuple(_int_list(item.get("scores_after"), f"{where}.scores_after", n_sides)),
            )
        )
    return out


def game_from_json(text: str | bytes) -> Game:
    """Read a record: the game exactly as it was written.

    Raises:
        InvalidRecordError: the text is not a valid record of this version.
    """
    data = _parse(text)
    game = _new_game(data)
    _restore(game, data.get("state"), data.get("actions"))
    return game


def replay(text: str | bytes) -> Game:
    """Play a record's actions again from the start and check the result.

    Returns:
        The replayed game, equal to the recorded one.

    Raises:
        InvalidRecordError: an action is illegal, or the replay does not reach
            the recorded state (e.g. the record was edited).
    """
    data = _parse(text)
    game = _new_game(data)
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise InvalidRecordError("the record's actions must be a list")
    for k, action in enumerate(actions):
        if not isinstance(action, dict):
            raise InvalidRecordError(f"actions[{k}]: expected an object")
        try:
            kind = action.get("type")
            if kind == "shoot":
                seat = _seat(action.get("seat"), f"actions[{k}].seat")
                shot = Shot(
                    _float(action.get("position"), f"actions[{k}].position"),
                    _float(action.get("direction"), f"actions[{k}].direction"),
                    _float(action.get("power"), f"actions[{k}].power"),
                )
                game.shoot(seat, shot)
            elif kind == "timeout":
                game.timeout(_seat(action.get("seat"), f"actions[{k}].seat"))
            elif kind == "next_round":
                game.next_round()
            else:
                raise InvalidRecordError(f"actions[{k}]: unknown action type {kind!r}")
        except InvalidRecordError:
            raise
        except CrokinoleError as exc:
            raise InvalidRecordError(f"actions[{k}] cannot be replayed: {exc}") from None
        if game.actions[-1] != action:
            raise InvalidRecordError(f"actions[{k}]: the replayed result differs from the record")
    recorded = game_from_json(text)
    if recorded != game:
        raise InvalidRecordError("the replayed game does not reach the recorded state")
    return game
