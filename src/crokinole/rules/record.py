"""The game record (R9): replay, and the record as functions of a game.

The format is documented in ``docs/record-format.md`` and read and written
by :mod:`crokinole.rules.saved`; :meth:`Game.to_json` and
:meth:`Game.from_json` restore the state exactly.  :func:`replay` plays the
actions again from the start and checks that the simulator and referee
reach the same results and state, disc for disc.

This module sits above :mod:`crokinole.rules.game` (it plays games);
nothing below imports it.
"""

from __future__ import annotations

from typing import Any

from crokinole.board import Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules.game import Game
from crokinole.rules.saved import (
    FORMAT,
    MAX_RECORD_BYTES,
    VERSION,
    parse_record,
    read_number,
    read_seat,
    read_setup,
)

__all__ = [
    "FORMAT",
    "MAX_RECORD_BYTES",
    "VERSION",
    "game_from_json",
    "game_to_json",
    "game_to_record",
    "replay",
]


def game_to_record(game: Game) -> dict[str, Any]:
    """The record of ``game`` as plain data."""
    return game.to_record()


def game_to_json(game: Game) -> str:
    """The record of ``game`` as compact JSON text."""
    return game.to_json()


def game_from_json(text: str | bytes) -> Game:
    """Read a record: the game exactly as it was written.

    Raises:
        InvalidRecordError: the text is not a valid record of this version,
            or its state cannot be reached under its rules.
    """
    return Game.from_json(text)


def replay(text: str | bytes) -> Game:
    """Play a record's actions again from the start and check the result.

    Returns:
        The replayed game, equal to the recorded one.

    Raises:
        InvalidRecordError: an action is illegal, or the replay does not reach
            the recorded state (e.g. the record was edited).
    """
    data = parse_record(text)
    rules, board, first = read_setup(data)
    game = Game(rules, board, first)
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise InvalidRecordError("the record's actions must be a list")
    for k, action in enumerate(actions):
        if not isinstance(action, dict):
            raise InvalidRecordError(f"actions[{k}]: expected an object")
        try:
            kind = action.get("type")
            if kind == "shoot":
                seat = read_seat(action.get("seat"), f"actions[{k}].seat")
                shot = Shot(
                    read_number(action.get("position"), f"actions[{k}].position"),
                    read_number(action.get("direction"), f"actions[{k}].direction"),
                    read_number(action.get("power"), f"actions[{k}].power"),
                )
                game.shoot(seat, shot)
            elif kind == "timeout":
                game.timeout(read_seat(action.get("seat"), f"actions[{k}].seat"))
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
    if Game.from_json(text) != game:
        raise InvalidRecordError("the replayed game does not reach the recorded state")
    return game
