"""The R9 game record format (``docs/record-format.md``): JSON text to checked values and back.

:func:`read_record` turns a record into a :class:`SavedGame` whose every
value has its type (the actions as :mod:`crokinole.rules.actions` values)
and whose state the rules can reach (see
:func:`~crokinole.rules.state.check_reachable`), or raises
:class:`~crokinole.errors.InvalidRecordError` naming the place.
:func:`write_record` is its inverse; floats survive unchanged.
:class:`~crokinole.rules.game.Game` reads and writes itself through these;
:func:`crokinole.rules.playback.replay` plays a record's actions again.

>>> saved = read_record(write_record(SavedGame(Rules(rounds=1), TOURNAMENT_BOARD, Seat.SOUTH,
...     (), GameState.first_round(Rules(rounds=1), Seat.SOUTH))))
>>> saved.rules.rounds, saved.state.in_hand
(1, (8, 8))
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

import orjson

from crokinole.board import TOURNAMENT_BOARD, Board, Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules.actions import Action, NextRound, ShotAction, TimeoutAction, TurnResult
from crokinole.rules.options import Rules
from crokinole.rules.referee import Disc, Foul, Removal
from crokinole.rules.scoring import GameOutcome, SideCount
from crokinole.rules.state import GameState, Phase, RoundResult, check_reachable

FORMAT = "crokinole-record"
VERSION = 1
#: Records larger than this are refused before parsing (bytes).
MAX_RECORD_BYTES = 10_000_000

_E = TypeVar("_E", bound=Enum)


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A record's contents, checked.

    Attributes:
        rules: the options of the game.
        board: the board it is played on.
        first_seat: who opened the game.
        actions: every action with its result (as in the record).
        state: the state after the last action.
    """

    rules: Rules
    board: Board
    first_seat: Seat
    actions: tuple[Action, ...]
    state: GameState


def write_record(saved: SavedGame) -> str:
    """The record as compact JSON text (see :func:`compact_json`).

    Raises:
        ValueError: a NaN or an infinity in the record (JSON has none).
    """
    return compact_json(record_dict(saved))


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text, as ``json.dumps`` writes or refuses it, faster.

    orjson writes it (a long record several times faster than the standard
    library) when its text reads back equal to ``value``; anything else is
    the standard library's text or its refusal: NaN or an infinity (orjson
    writes null; ``ValueError``), a type orjson writes and the standard
    library does not (an enum that is neither a str nor an int, a UUID, a
    dataclass, a date: ``TypeError``), a tuple, a key that is not a string,
    an int past 64 bits, a lone surrogate.  Either text parses to the same
    value (orjson writes each float in its own shortest form and leaves
    UTF-8 unescaped).

    >>> compact_json({"at": 1.5, "name": "Zoë", "aimed": None})
    '{"at":1.5,"name":"Zoë","aimed":null}'
    >>> compact_json({"seats": ("north",), 1: 2})
    '{"seats":["north"],"1":2}'
    >>> compact_json({"x": float("nan")})
    Traceback (most recent call last):
    ...
    ValueError: Out of range float values are not JSON compliant

    Raises:
        ValueError: NaN or an infinity.
        TypeError: a value JSON cannot hold.
    """
    try:
        text = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError: what the standard library may yet write
        pass
    else:
        if orjson.loads(text) == value:
            return text.decode()
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def record_dict(saved: SavedGame) -> dict[str, Any]:
    """The record as plain data (what :func:`write_record` writes)."""
    board = None if saved.board == TOURNAMENT_BOARD else dataclasses.asdict(saved.board)
    return {
        "format": FORMAT,
        "version": VERSION,
        "rules": saved.rules.to_dict(),
        "board": board,
        "first_seat": saved.first_seat.key,
        "actions": [a.to_dict() for a in saved.actions],
        "state": saved.state.to_dict(saved.rules),
    }


def parse_record(text: str | bytes) -> dict[str, Any]:
    """The record's top-level object, once its format and version are checked."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise InvalidRecordError(f"the record is not UTF-8 text: {exc}") from None
    if not isinstance(text, str):
        raise InvalidRecordError(f"a record is JSON text, got {type(text).__name__}")
    if len(text) > MAX_RECORD_BYTES:
        raise InvalidRecordError(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise InvalidRecordError(f"the record is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidRecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        found = data.get("format")
        said = "no format" if found is None else f"the format {found!r}"
        raise InvalidRecordError(
            f'not a crokinole record: a record says "format": "{FORMAT}", this has {said}'
        )
    if data.get("version") != VERSION:
        raise InvalidRecordError(
            f"record version {data.get('version')!r} is not supported (this is version {VERSION})"
        )
    return data


def read_setup(data: dict[str, Any]) -> tuple[Rules, Board, Seat]:
    """The options, the board and the first seat of a parsed record."""
    try:
        rules = Rules.from_dict(data.get("rules"))  # type: ignore[arg-type]
        board_data = data.get("board")
        if board_data is not None and not isinstance(board_data, dict):
            raise InvalidRecordError("board: expected an object or null")
        board = TOURNAMENT_BOARD if board_data is None else Board(**board_data)
    except (CrokinoleError, TypeError) as exc:
        raise InvalidRecordError(f"the record's options are invalid: {exc}") from None
    first = read_seat(data.get("first_seat"), "first_seat")
    if first not in rules.seats:
        raise InvalidRecordError(f"first_seat: {first.key} is not in play")
    return rules, board, first


def read_actions(data: dict[str, Any]) -> tuple[Action, ...]:
    """The ``actions`` of a parsed record, each with its type (not yet replayed)."""
    actions = data.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise InvalidRecordError("the record's actions must be a list of objects")
    return tuple(read_action(a, f"actions[{k}]") for k, a in enumerate(actions))


def read_action(value: dict[str, Any], where: str) -> Action:
    """One action of a record (``shoot``, ``timeout`` or ``next_round``)."""
    kind = value.get("type")
    if kind == NextRound.kind:
        return NextRound()
    if kind not in (ShotAction.kind, TimeoutAction.kind):
        raise InvalidRecordError(f"{where}: unknown action type {kind!r}")
    seat = read_seat(value.get("seat"), f"{where}.seat")
    result = _result(value.get("result"), f"{where}.result")
    if kind == TimeoutAction.kind:
        return TimeoutAction(seat, result)
    shot = Shot(
        read_number(value.get("position"), f"{where}.position"),
        read_number(value.get("direction"), f"{where}.direction"),
        read_number(value.get("power"), f"{where}.power"),
    )
    return ShotAction(seat, shot, result)


def _result(value: object, where: str) -> TurnResult:
    if not isinstance(value, dict):
        raise InvalidRecordError(f"{where}: expected an object")
    removed = _list(value.get("removed"), f"{where}.removed")
    board = _list(value.get("board"), f"{where}.board")
    return TurnResult(
        foul=_foul(value.get("foul"), f"{where}.foul"),
        twenties=_ids(value.get("twenties"), f"{where}.twenties"),
        cancelled=_ids(value.get("cancelled"), f"{where}.cancelled"),
        removed=tuple(_removed(item, f"{where}.removed[{k}]") for k, item in enumerate(removed)),
        board=tuple(read_disc(item, f"{where}.board[{k}]") for k, item in enumerate(board)),
    )


def _ids(value: object, where: str) -> tuple[int, ...]:
    return tuple(read_count(v, where) for v in _list(value, where))


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InvalidRecordError(f"{where}: expected a list")
    return value


def _removed(item: object, where: str) -> tuple[int, Removal]:
    if not isinstance(item, list) or len(item) != 2:
        raise InvalidRecordError(f"{where}: expected [id, reason]")
    return read_count(item[0], f"{where}.id"), _member(Removal, item[1], where)


def _foul(value: object, where: str) -> Foul | None:
    return None if value is None else _member(Foul, value, where)


def _member(enum: type[_E], value: object, where: str) -> _E:
    """The member of ``enum`` named ``value`` in lower case."""
    if isinstance(value, str) and value == value.lower() and value.upper() in enum.__members__:
        return enum[value.upper()]
    raise InvalidRecordError(f"{where}: unknown value {value!r}")


def read_disc(item: object, where: str) -> Disc:
    """A disc written ``[id, owner, x, y]``."""
    if not isinstance(item, list) or len(item) != 4:
        raise InvalidRecordError(f"{where}: expected [id, owner, x, y]")
    return Disc(
        read_count(item[0], f"{where}.id"),
        read_seat(item[1], where),
        read_number(item[2], f"{where}.x"),
        read_number(item[3], f"{where}.y"),
    )


def read_record(text: str | bytes) -> SavedGame:
    """Read a record: every value checked, the state one the rules can reach.

    Raises:
        InvalidRecordError: the text is not a valid record of this version,
            naming the place (``state.discs[3]: ...``).
    """
    data = parse_record(text)
    rules, board, first = read_setup(data)
    actions = read_actions(data)
    state = read_state(data.get("state"), rules)
    check_reachable(state, rules, board, first)
    return SavedGame(rules, board, first, actions, state)


def read_state(value: object, rules: Rules) -> GameState:
    """The ``state`` object of a record, each field with its type (not yet its reachability)."""
    if not isinstance(value, dict):
        raise InvalidRecordError("the record has no state object")
    n_sides = len(rules.sides)
    try:
        phase = Phase(value.get("phase"))
    except ValueError:
        raise InvalidRecordError(f"state.phase: unknown phase {value.get('phase')!r}") from None
    first = read_seat(value.get("round_first"), "state.round_first")
    if first not in rules.seats:
        raise InvalidRecordError(f"state.round_first: {first.key} is not in play")
    in_hand = value.get("in_hand")
    names = [s.key for s in rules.seats]
    if not isinstance(in_hand, dict) or set(in_hand) != set(names):
        raise InvalidRecordError("state.in_hand: one count per seat in play is needed")
    discs_data = value.get("discs")
    if not isinstance(discs_data, list):
        raise InvalidRecordError("state.discs: expected a list")
    discs: list[Disc] = []
    for k, item in enumerate(discs_data):
        disc = read_disc(item, f"state.discs[{k}]")
        if disc.owner not in rules.seats:
            raise InvalidRecordError(f"state.discs[{k}]: {disc.owner.key} is not in play")
        discs.append(disc)
    return GameState(
        round=read_count(value.get("round"), "state.round", 1),
        round_first=first,
        turn=read_count(value.get("turn"), "state.turn"),
        phase=phase,
        in_hand=tuple(read_count(in_hand[n], f"state.in_hand.{n}") for n in names),
        discs=tuple(discs),
        twenties=_counts(value.get("twenties"), "state.twenties", n_sides),
        ditch=_counts(value.get("ditch"), "state.ditch", n_sides),
        next_id=read_count(value.get("next_id"), "state.next_id"),
        scores=_counts(value.get("scores"), "state.scores", n_sides),
        history=_history(value.get("history"), n_sides),
        outcome=_outcome(value.get("outcome"), n_sides),
    )


def read_seat(name: object, where: str) -> Seat:
    """A seat from its name."""
    try:
        return Seat.parse(name)
    except CrokinoleError:
        raise InvalidRecordError(f"{where}: {name!r} is not a seat") from None


def read_count(value: object, where: str, least: int = 0) -> int:
    """A whole number at least ``least``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise InvalidRecordError(f"{where}: expected a whole number >= {least}, got {value!r}")
    return value


def read_number(value: object, where: str) -> float:
    """A number (JSON gives int or float)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise InvalidRecordError(f"{where}: expected a number, got {value!r}")
    return float(value)


def _counts(value: object, where: str, length: int) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != length:
        raise InvalidRecordError(f"{where}: expected a list of {length} whole numbers")
    return tuple(read_count(v, where) for v in value)


def _history(value: object, n_sides: int) -> tuple[RoundResult, ...]:
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
        counts = tuple(SideCount(*_counts(c, f"{where}.counts", 4)) for c in counts_data)
        out.append(
            RoundResult(
                read_count(item.get("number"), f"{where}.number", 1),
                counts,
                _counts(item.get("points"), f"{where}.points", n_sides),
                _counts(item.get("scores_after"), f"{where}.scores_after", n_sides),
            )
        )
    return tuple(out)


def _outcome(value: object, n_sides: int) -> GameOutcome | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidRecordError("state.outcome: expected an object or null")
    winner = value.get("winner")
    drawn = value.get("drawn", [])
    if not isinstance(drawn, list):
        raise InvalidRecordError("state.outcome.drawn: expected a list")
    sides = [*([] if winner is None else [winner]), *drawn]
    if any(read_count(s, "state.outcome") >= n_sides for s in sides):
        raise InvalidRecordError("state.outcome: a side number is out of range")
    return GameOutcome(None if winner is None else int(winner), tuple(int(d) for d in drawn))
