"""The referee: what a shot means under R4 and R5, read from the physics result.

Pure functions of the position before the shot, the shooter, and the
simulator's outcome (final statuses, flags and contact log); no state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from crokinole.board import Board, Point, Seat, Shot
from crokinole.physics import ShotResult
from crokinole.physics.kernel import IN_DITCH, IN_HOLE


@dataclass(frozen=True, slots=True)
class Disc:
    """A disc on the board.

    Attributes:
        id: number of the disc in its round (0 for the first disc shot).
        owner: seat of the player whose disc it is.
        x: centre x in inches.
        y: centre y in inches.
    """

    id: int
    owner: Seat
    x: float
    y: float

    @property
    def centre(self) -> Point:
        """The centre as a point."""
        return Point(self.x, self.y)

    def describe(self) -> str:
        """E.g. ``North's disc at (1.20, -3.40)``."""
        x, y = round(self.x, 2) + 0.0, round(self.y, 2) + 0.0  # no "-0.00"
        return f"{self.owner.name.title()}'s disc at ({x:.2f}, {y:.2f})"


class Foul(Enum):
    """Why a shot broke R4; the value is the explanation shown to players."""

    NO_CONTACT = "no opposing disc was touched"
    NOT_IN_FIFTEEN = "no disc reached the 15 circle"
    TIMEOUT = "the time for the turn ran out"


class Removal(Enum):
    """Why a disc left the board during a shot; the value explains it."""

    FOUL = "the shot was a foul"
    OFF_BOARD = "it fell into the ditch"
    ON_LINE = "it stopped touching or beyond the shooting line"
    TOUCHED_BEYOND_LINE = "it touched a disc or peg beyond the shooting line"
    TIMEOUT = "the time for the turn ran out"


@dataclass(frozen=True, slots=True)
class Removed:
    """A disc sent to the ditch, and why.

    Attributes:
        disc: the disc, where it was when it left the board.
        reason: why it went.
    """

    disc: Disc
    reason: Removal


@dataclass(frozen=True, slots=True)
class ShotReport:
    """What a shot (or a timeout) did, in terms a player understands.

    Attributes:
        seat: who shot.
        shot: the shot as chosen (None for a timeout).
        foul: why the shot was a foul, or None if it was valid.
        twenties: discs that dropped into the hole and count 20 for their owner.
        cancelled_twenties: the shooter's side's discs that dropped on a foul.
        removed: discs sent to the ditch, with the reason.
        moved: ids of the discs that moved (the shot disc included).
        board_after: discs left on the board after the shot.
        physics: the simulator's result (trajectory, contacts); None for a timeout.
    """

    seat: Seat
    shot: Shot | None
    foul: Foul | None
    twenties: tuple[Disc, ...]
    cancelled_twenties: tuple[Disc, ...]
    removed: tuple[Removed, ...]
    moved: tuple[int, ...]
    board_after: tuple[Disc, ...]
    physics: ShotResult | None

    @property
    def valid(self) -> bool:
        """Whether the shot obeyed R4."""
        return self.foul is None

    def explain(self) -> str:
        """A sentence or two for the players.

        E.g. ``Foul: no opposing disc was touched: your disc and 1 disc it
        moved go to the ditch.``
        """
        parts: list[str] = []
        if self.foul is Foul.TIMEOUT:
            parts.append("Time ran out: the disc goes to the ditch and scores 0.")
        elif self.foul is not None:
            own = [r for r in self.removed if r.reason is Removal.FOUL]
            others = len(own) - 1
            if others <= 0:
                parts.append(f"Foul: {self.foul.value}: your disc goes to the ditch.")
            else:
                moved = _count(others, "disc")
                parts.append(
                    f"Foul: {self.foul.value}: your disc and {moved} it moved go to the ditch."
                )
            if self.cancelled_twenties:
                parts.append(f"{_count(len(self.cancelled_twenties), 'twenty')} cancelled.")
        for twenty in self.twenties:
            parts.append(f"20 for {twenty.owner.name.title()}.")
        for r in self.removed:
            if r.reason not in (Removal.FOUL, Removal.TIMEOUT):
                parts.append(f"{r.disc.describe()} is out: {r.reason.value}.")
        return " ".join(parts) if parts else "Valid shot."


def _count(n: int, word: str) -> str:
    plural = {"twenty": "twenties"}.get(word, word + "s")
    return f"{n} {word if n == 1 else plural}"


def judge_shot(
    board: Board,
    *,
    before: tuple[Disc, ...],
    side_of: dict[Seat, int],
    seat: Seat,
    shot: Shot,
    shot_id: int,
    result: ShotResult,
    required_contact: bool,
) -> ShotReport:
    """Apply R4 and R5 to a simulated shot.

    Args:
        board: the board (zones and lines).
        before: discs on the board before the shot, in the simulator's order.
        side_of: the side index of every seat in play.
        seat: the shooter.
        shot: the shot as chosen.
        shot_id: the id the shot disc gets.
        result: the simulator's result; the shot disc is the last disc.
        required_contact: whether R4 applies (home rule off).
    """
    n = len(before)
    owners = [d.owner for d in before] + [seat]
    ids = [d.id for d in before] + [shot_id]
    shooter = side_of[seat]
    own = np.array([side_of[o] == shooter for o in owners], dtype=np.bool_)
    status = result.status_array
    final = result.final_array
    flags = result.flag_array
    moved = flags[:, 0].copy()
    moved[n] = True  # the shot disc was played even at zero power
    touched_beyond = flags[:, 2]

    foul: Foul | None = None
    if required_contact:
        if not own[:n].all():
            # R4: a shooter's disc touched an opposing disc (directly or through
            # a chain of own discs: any such touch implies the chain).
            touched = False
            for c in result.contacts:
                if c.kind.value == "disc" and own[c.disc] != own[c.other]:
                    touched = True
                    break
            if not touched:
                foul = Foul.NO_CONTACT
        else:
            reached = False
            for i in range(n + 1):
                if not (own[i] and moved[i]) or touched_beyond[i]:
                    continue
                if status[i] == IN_HOLE or (
                    status[i] != IN_DITCH
                    and board.touches_fifteen_circle(Point(float(final[i, 0]), float(final[i, 1])))
                ):
                    reached = True
            if not reached:
                foul = Foul.NOT_IN_FIFTEEN

    twenties: list[Disc] = []
    cancelled: list[Disc] = []
    removed: list[Removed] = []
    after: list[Disc] = []
    for i in range(n + 1):
        disc = Disc(ids[i], owners[i], float(final[i, 0]), float(final[i, 1]))
        if foul is not None and own[i] and moved[i]:
            removed.append(Removed(disc, Removal.FOUL))
            if status[i] == IN_HOLE:
                cancelled.append(disc)
        elif status[i] == IN_HOLE:
            twenties.append(disc)
        elif status[i] == IN_DITCH:
            removed.append(Removed(disc, Removal.OFF_BOARD))
        elif touched_beyond[i]:
            removed.append(Removed(disc, Removal.TOUCHED_BEYOND_LINE))
        elif board.is_out(disc.centre):
            removed.append(Removed(disc, Removal.ON_LINE))
        else:
            after.append(disc)
    return ShotReport(
        seat=seat,
        shot=shot,
        foul=foul,
        twenties=tuple(twenties),
        cancelled_twenties=tuple(cancelled),
        removed=tuple(removed),
        moved=tuple(ids[i] for i in range(n + 1) if moved[i]),
        board_after=tuple(after),
        physics=result,
    )
