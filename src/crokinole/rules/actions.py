"""The record's actions (R9) as values: a shot, a timeout, the next round.

A :class:`~crokinole.rules.game.Game` keeps every action it took, with its
result, as one of these frozen values; :meth:`to_dict` gives each one's
JSON form of ``docs/record-format.md`` (read back by
:func:`crokinole.rules.record_format.read_action`), and two actions are
equal exactly when their JSON forms are.

>>> from crokinole.board import Seat, Shot
>>> result = TurnResult(None, (0,), (), (), ())
>>> ShotAction(Seat.SOUTH, Shot(0.0, 0.0, 28.0), result).to_dict()["seat"]
'south'
>>> NextRound().to_dict()
{'type': 'next_round'}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from crokinole.board import Seat, Shot
from crokinole.rules.referee import Disc, Foul, Removal, ShotReport

__all__ = ["SEAT_KEYS", "Action", "NextRound", "ShotAction", "TimeoutAction", "TurnResult"]

#: Each seat's :attr:`~crokinole.board.Seat.key`, looked up (a record writes hundreds).
SEAT_KEYS: dict[Seat, str] = {seat: seat.key for seat in Seat}
#: The names a record gives fouls and removals (the member's name in lower case).
_FOUL_NAMES: dict[Foul, str] = {foul: foul.name.lower() for foul in Foul}
_REMOVAL_NAMES: dict[Removal, str] = {removal: removal.name.lower() for removal in Removal}


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What a turn did, as the record keeps it (the ``result`` of a shot or a timeout).

    Attributes:
        foul: why the turn was a foul, or None for a valid shot.
        twenties: ids of the discs that dropped into the hole and count.
        cancelled: ids of the shooter's side's discs that dropped on a foul.
        removed: ``(id, reason)`` of every disc sent to the ditch.
        board: the discs on the board after the turn.
    """

    foul: Foul | None
    twenties: tuple[int, ...]
    cancelled: tuple[int, ...]
    removed: tuple[tuple[int, Removal], ...]
    board: tuple[Disc, ...]

    @classmethod
    def of(cls, report: ShotReport) -> TurnResult:
        """The result of the turn the referee reported."""
        return cls(
            foul=report.foul,
            twenties=tuple(d.id for d in report.twenties),
            cancelled=tuple(d.id for d in report.cancelled_twenties),
            removed=tuple((r.disc.id, r.reason) for r in report.removed),
            board=report.board_after,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``docs/record-format.md``)."""
        return {
            "foul": None if self.foul is None else _FOUL_NAMES[self.foul],
            "twenties": list(self.twenties),
            "cancelled": list(self.cancelled),
            "removed": [[id_, _REMOVAL_NAMES[reason]] for id_, reason in self.removed],
            "board": [[d.id, SEAT_KEYS[d.owner], d.x, d.y] for d in self.board],
        }


@dataclass(frozen=True, slots=True)
class ShotAction:
    """``seat`` placed a disc and shot it (R3), with what the shot did."""

    kind: ClassVar[str] = "shoot"
    seat: Seat
    shot: Shot
    result: TurnResult

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``docs/record-format.md``)."""
        return {
            "type": self.kind,
            "seat": SEAT_KEYS[self.seat],
            "position": float(self.shot.position),
            "direction": float(self.shot.direction),
            "power": float(self.shot.power),
            "result": self.result.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class TimeoutAction:
    """``seat``'s time ran out (R3): its disc went to the ditch unplayed."""

    kind: ClassVar[str] = "timeout"
    seat: Seat
    result: TurnResult

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``docs/record-format.md``)."""
        return {"type": self.kind, "seat": SEAT_KEYS[self.seat], "result": self.result.to_dict()}


@dataclass(frozen=True, slots=True)
class NextRound:
    """The round result was confirmed and the next round began (R6)."""

    kind: ClassVar[str] = "next_round"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``docs/record-format.md``)."""
        return {"type": self.kind}


#: One action of a game's record.
Action = ShotAction | TimeoutAction | NextRound
