"""A game's record played again (R9): :func:`steps`, and :func:`replay` of a record's text.

:func:`steps` plays a game's actions again from the start through the
simulator and the referee, one :class:`Step` (the action, the game before
it, the referee's report, the game after it) at a time, and checks that
each action gives the result it records and that the last state is the
game's.  The replay route, the review and :func:`replay` all walk a record
through it.  The record's JSON form is :mod:`crokinole.rules.record_format`'s.

This module sits above :mod:`crokinole.rules.game` (it plays games);
nothing below imports it.

>>> from crokinole.board import Seat, Shot
>>> from crokinole.rules.options import Rules
>>> game = Game(Rules(rounds=1))
>>> _ = game.shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=28.0))
>>> _ = game.timeout(Seat.NORTH)
>>> [(s.action.kind, s.report.seat.key, s.after.turn_index) for s in steps(game)]
[('shoot', 'south', 1), ('timeout', 'north', 2)]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules.actions import Action, ShotAction, TimeoutAction
from crokinole.rules.game import Game
from crokinole.rules.record_format import FORMAT, MAX_RECORD_BYTES, VERSION
from crokinole.rules.referee import ShotReport

__all__ = [
    "FORMAT",
    "MAX_RECORD_BYTES",
    "VERSION",
    "ActionReplayError",
    "Step",
    "game_from_json",
    "game_to_json",
    "game_to_record",
    "replay",
    "steps",
    "take",
]


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a record, played again.

    Attributes:
        action: the record's action.
        before: the game just before it.
        report: the referee's report (None for :class:`~crokinole.rules.actions.NextRound`).
        after: the game just after it.
    """

    action: Action
    before: Game
    report: ShotReport | None
    after: Game


class ActionReplayError(InvalidRecordError):
    """An action of a record that cannot be played again, or plays to another result.

    Attributes:
        index: the action's place in the record, from 0.
        differs: True when the action was played but its result is not the
            recorded one; False when it could not be played at all.
        reason: why it could not be played (empty when ``differs``).
    """

    def __init__(self, index: int, *, differs: bool, reason: str = "") -> None:
        if differs:
            message = f"actions[{index}]: the replayed result differs from the record"
        else:
            message = f"actions[{index}] cannot be replayed: {reason}"
        super().__init__(message)
        self.index = index
        self.differs = differs
        self.reason = reason


def take(game: Game, action: Action) -> ShotReport | None:
    """Play ``action`` on ``game``; the referee's report of a shot or a timeout.

    Raises:
        CrokinoleError: the action is not legal now (the game is unchanged).
    """
    if isinstance(action, ShotAction):
        return game.shoot(action.seat, action.shot)
    if isinstance(action, TimeoutAction):
        return game.timeout(action.seat)
    game.next_round()
    return None


def steps(game: Game) -> Iterator[Step]:
    """Play ``game``'s record again from the start, action by action, with the engine.

    Each action's result must be the recorded one, and the last state the
    game's (R9: the same record replayed gives the same game, disc for disc).

    Raises:
        ActionReplayError: an action cannot be played again, or its result
            differs from the record.
        InvalidRecordError: the replay does not reach the game's state.
    """
    played = Game(game.rules, game.board, game.first_seat)
    for k, action in enumerate(game.actions):
        before = played.copy()
        try:
            report = take(played, action)
        except CrokinoleError as exc:
            raise ActionReplayError(k, differs=False, reason=str(exc)) from None
        if played.actions[-1] != action:
            raise ActionReplayError(k, differs=True)
        yield Step(action, before, report, played.copy())
    if played != game:
        raise InvalidRecordError("the replayed game does not reach the recorded state")


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
        InvalidRecordError: the record cannot be read, an action is illegal,
            or the replay does not reach the recorded state (e.g. the record
            was edited).
    """
    recorded = Game.from_json(text)
    played = Game(recorded.rules, recorded.board, recorded.first_seat)
    for step in steps(recorded):
        played = step.after
    return played
