"""Where a table stands, as small values: its stage, its next deadline, a shot played.

These are the values :class:`~crokinole.table.Table` holds and answers with,
apart from the table itself, so that the fold, the snapshot and the command
handlers can share them without importing the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from crokinole.rules import Game, ShotReport

__all__ = ["MAX_SPECTATORS", "ME", "Deadline", "DeadlineKind", "Played", "Stage"]

#: Spectators a party takes at most.
MAX_SPECTATORS = 32
#: A solo table's seat for the device itself (``Table.create(seats=...)``).
ME = "me"


class Stage(StrEnum):
    """Where a table stands."""

    LOBBY = "lobby"  # a party being set up
    PLAYING = "playing"
    FINISHED = "finished"  # a game ended; a rematch or new settings may follow
    CLOSED = "closed"  # takes no more commands


class DeadlineKind(StrEnum):
    """What happens at a deadline (see :meth:`crokinole.table.Table.next_deadline`)."""

    TURN = "turn"  # the shooter's clock ran out: the disc goes to the ditch (R3)
    STANDIN = "standin"  # the missing shooter's seat is played by the stand-in CPU
    ROUND = "round"  # the round result has been shown long enough: next round
    NO_SHOW = "no_show"  # a ranked seat's first turn ran out unplayed: the game is aborted
    REMATCH = "rematch"  # the rematch offered was not answered in time: it lapses


@dataclass(frozen=True, slots=True)
class Deadline:
    """The next thing the table's clock will do, at server time ``at``."""

    at: float
    kind: DeadlineKind


@dataclass(frozen=True, slots=True)
class Played:
    """A shot or a timeout as it happened, for views: ``report`` took ``before`` to ``after``."""

    report: ShotReport
    before: Game
    after: Game
