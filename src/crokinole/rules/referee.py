"""The referee: what a shot means under R4 and R5, read from the physics result.

Pure functions of the position before the shot, the shooter, and the
simulator's outcome (final statuses, flags and contact log); no state.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np
import numpy.typing as npt

from crokinole.board import Board, Point, Seat, Shot
from crokinole.physics import BatchResult, DiscStatus, ShotResult


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
        return f"{self.owner.title}'s disc at ({x:.2f}, {y:.2f})"


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
        simulated: every disc the simulator was given, in its order (index
            ``i`` of :attr:`physics` is ``simulated[i]``), where it lay before
            the shot: the discs on the board, then the shot disc at its
            start.  For a timeout, the board and the unplayed disc.
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
    simulated: tuple[Disc, ...]

    @property
    def ids(self) -> tuple[int, ...]:
        """The game id of each simulator disc (the shot disc last)."""
        return tuple(d.id for d in self.simulated)

    @property
    def owners(self) -> tuple[Seat, ...]:
        """The owner of each simulator disc (the shooter last)."""
        return tuple(d.owner for d in self.simulated)

    @property
    def shot_id(self) -> int:
        """The game id of the disc shot (or the unplayed disc of a timeout)."""
        return self.simulated[-1].id

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
            parts.append(f"20 for {twenty.owner.title}.")
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
    own = [side_of[o] == shooter for o in owners]
    # Python lists, not numpy scalars, in the loops below (a shot has at most a few dozen discs).
    status = result.status_array.tolist()
    final = result.final_array.tolist()
    start = result.start_array.tolist()
    flags = result.flag_array
    moved = flags[:, 0].tolist()
    moved[n] = True  # the shot disc was played even at zero power
    touched_beyond = flags[:, 2].tolist()
    foul = _foul(board, result, own, moved) if required_contact else None

    twenties: list[Disc] = []
    cancelled: list[Disc] = []
    removed: list[Removed] = []
    after: list[Disc] = []
    for i in range(n + 1):
        disc = Disc(ids[i], owners[i], final[i][0], final[i][1])
        if foul is not None and own[i] and moved[i]:
            removed.append(Removed(disc, Removal.FOUL))
            if status[i] == _IN_HOLE:
                cancelled.append(disc)
        elif status[i] == _IN_DITCH:
            removed.append(Removed(disc, Removal.OFF_BOARD))
        elif touched_beyond[i]:
            # R5: it came back after touching something beyond the line: out,
            # even if it then dropped into the hole.
            removed.append(Removed(disc, Removal.TOUCHED_BEYOND_LINE))
        elif status[i] == _IN_HOLE:
            twenties.append(disc)
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
        simulated=tuple(Disc(ids[i], owners[i], start[i][0], start[i][1]) for i in range(n + 1)),
    )


#: The statuses :func:`judge_shot` and :func:`_foul` compare with, as plain ints.
_IN_HOLE = int(DiscStatus.IN_HOLE)
_IN_DITCH = int(DiscStatus.IN_DITCH)


def _foul(board: Board, result: ShotResult, own: list[bool], moved: list[bool]) -> Foul | None:
    """R4 on a simulated shot: the foul it makes, or None (``own``: the shooter's side's discs)."""
    n = len(own) - 1
    if not all(own[:n]):
        # R4: a shooter's disc touched an opposing disc (directly or through
        # a chain of own discs: any such touch implies the chain).
        for c in result.contacts:
            if c.kind.value == "disc" and own[c.disc] != own[c.other]:
                return None
        return Foul.NO_CONTACT
    status = result.status_array.tolist()
    final = result.final_array.tolist()
    touched_beyond = result.flag_array[:, 2].tolist()
    for i in range(n + 1):
        if not (own[i] and moved[i]) or touched_beyond[i]:
            continue
        if status[i] == _IN_HOLE or (
            status[i] != _IN_DITCH and board.touches_fifteen_circle(Point(final[i][0], final[i][1]))
        ):
            return None
    return Foul.NOT_IN_FIFTEEN


#: Codes of :attr:`BatchJudgement.fate`.
FATE_BOARD = 0
FATE_TWENTY = 1
FATE_DITCH = 2


@dataclass(frozen=True)
class BatchJudgement:
    """R4 and R5 applied to every shot of a batch at once (for the CPU players' search).

    Attributes:
        valid: ``(K,)`` whether each shot obeyed R4.
        fate: ``(K, N+1)`` each disc's fate: 0 on the board, 1 a 20 credited to
            its owner, 2 the ditch (cancelled 20s included).
        points: ``(K, N+1)`` what each disc is worth now: 20 for a credited 20,
            its zone value (15, 10, 5) on the board, else 0.
        positions: ``(K, N+1, 2)`` final centres.
    """

    valid: npt.NDArray[np.bool_]
    fate: npt.NDArray[np.int8]
    points: npt.NDArray[np.int64]
    positions: npt.NDArray[np.float64]

    def side_points(self, sides: npt.NDArray[np.int64], n_sides: int) -> npt.NDArray[np.int64]:
        """``(K, n_sides)`` points of each side's discs after each shot."""
        out = np.zeros((self.points.shape[0], n_sides), dtype=np.int64)
        for side in range(n_sides):
            out[:, side] = self.points[:, sides == side].sum(axis=1)
        return out


def zone_points(board: Board, positions: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Zone value (15, 10, 5, or 0 when out) of resting discs, vectorised; rim-based (R6).

    The same test as :meth:`~crokinole.board.Board.zone_of` (rim inside the
    line's near edge), counted as 5 points per circle the rim is inside: a
    batch of 131,072 shots × 17 discs takes a third less time than nested
    choices.

    >>> from crokinole.board import TOURNAMENT_BOARD as B
    >>> zone_points(B, np.array([[0.0, 2.0], [0.0, 6.0], [0.0, 10.0], [0.0, 11.5]])).tolist()
    [15, 10, 5, 0]
    """
    rim = np.hypot(positions[..., 0], positions[..., 1])
    rim += board.disc_radius
    half = board.line_width / 2.0
    points = (rim < board.fifteen_radius - half).astype(np.int64)
    points += rim < board.ten_radius - half
    points += rim < board.shooting_line_radius - half
    points *= 5
    return points


def judge_batch(
    board: Board,
    *,
    owner_sides: npt.NDArray[np.int64],
    shooter_side: int,
    batch: BatchResult,
    required_contact: bool,
) -> BatchJudgement:
    """The vectorised twin of :func:`judge_shot` for :func:`~crokinole.physics.simulate_batch`.

    Args:
        board: the board.
        owner_sides: ``(N,)`` side of each disc on the board before the shot.
        shooter_side: the shooter's side (the shot disc is index N).
        batch: the simulator's batch result.
        required_contact: whether R4 applies.
    """
    n = int(owner_sides.shape[0])
    sides = np.append(owner_sides, shooter_side)
    own = sides == shooter_side
    status = batch.statuses
    moved = batch.moved.copy()
    moved[:, n] = True
    beyond = batch.touched_beyond_line
    pos = batch.positions
    k = status.shape[0]
    if not required_contact:
        valid = np.ones(k, dtype=np.bool_)
    elif not own[:n].all():
        valid = batch.touched_any(np.flatnonzero(own), np.flatnonzero(~own))
    else:
        centre_gap = np.hypot(pos[..., 0], pos[..., 1]) - board.disc_radius
        in_fifteen = centre_gap <= board.fifteen_radius + board.line_width / 2.0
        reached = (
            own[None, :]
            & moved
            & ~beyond
            & ((status == DiscStatus.IN_HOLE) | ((status == DiscStatus.ON_BOARD) & in_fifteen))
        )
        valid = reached.any(axis=1)
    fouled = ~valid[:, None] & own[None, :] & moved
    zone = zone_points(board, pos)
    twenty = (status == DiscStatus.IN_HOLE) & ~fouled & ~beyond
    on_board = (status == DiscStatus.ON_BOARD) & ~fouled & ~beyond & (zone > 0)
    fate = np.full(status.shape, FATE_DITCH, dtype=np.int8)
    fate[twenty] = FATE_TWENTY
    fate[on_board] = FATE_BOARD
    points = zone * on_board  # a disc in the hole is never on the board
    points[twenty] = 20
    return BatchJudgement(valid=valid, fate=fate, points=points, positions=pos)
