"""The practice room: any legal position of singles discs, a shot from it, and a link to share it.

A practice position holds the discs of two sides on the board and says who
shoots next: ``"s"`` discs are south's, ``"n"`` discs north's.  The shooter
is south unless the position says north; its discs are "mine" and the
other side's "theirs".  Positions are plain values: they never hold a
game's history, 20s or ditch, only the board.

Rules a position obeys (those a disc at rest obeys in a game, R5):

* every disc lies wholly inside the shooting line (a disc touching it is out);
* no disc has its centre over the 20 hole (it would drop); a hanger is fine;
* no disc overlaps another disc or a peg;
* at most 12 discs of each side (a practice round has 12 each); to shoot
  from it, each side has at most 11 (the shooter keeps a disc in hand).

Coordinates are inches, x east and y north, rounded to hundredths (the
precision of a position link).  A disc a hundredth from touching another
is nudged by a hundredth so that the rounded position is still legal.

A **position code** (what a ``/practice?p=CODE`` link carries) is the
base64url text, without padding, of the compact JSON
``{"v":1,"seat":"south","discs":[["s",x,y],["n",x,y]]}``: numbers written
as JavaScript's ``JSON.stringify`` writes them (``1`` not ``1.0``), so the
browser makes the same codes.

>>> pos = PracticePosition((("n", 0.0, 3.0), ("s", -2.5, -5.0)))
>>> code = position_code(pos)
>>> code
'eyJ2IjoxLCJzZWF0Ijoic291dGgiLCJkaXNjcyI6W1sibiIsMCwzXSxbInMiLC0yLjUsLTVdXX0'
>>> position_from_code(code) == pos
True
>>> result = practice_shot(PracticePosition(()), Shot(position=0.0, direction=0.0, power=28.0))
>>> result.valid, result.twenty, result.points    # an open 20
(True, True, 20)
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from crokinole.board import TOURNAMENT_BOARD, Board, Point, Seat, Shot, Zone, is_real_number
from crokinole.errors import AnalysisError, CrokinoleError
from crokinole.physics import OVERLAP_TOLERANCE, ShotResult
from crokinole.rules import Disc, Game, GameState, Phase, Rules, ShotReport
from crokinole.rules.record_format import SavedGame, write_record

__all__ = [
    "CODE_VERSION",
    "MAX_CODE_LENGTH",
    "MAX_DISCS_PER_SIDE",
    "PRACTICE_RULES",
    "PracticePosition",
    "PracticeResult",
    "position_code",
    "position_data",
    "position_from_code",
    "position_from_data",
    "practice_game",
    "practice_shot",
    "shot_from_data",
]

#: The version of the position code's JSON.
CODE_VERSION = 1
#: Longest code read (22 discs need well under 1,000 characters).
MAX_CODE_LENGTH = 4096
#: Discs of one side a position may hold: a practice round has 12 each.
MAX_DISCS_PER_SIDE = 12
#: The options of every practice game: singles, 12 discs each, contact required (R2, R4).
PRACTICE_RULES = Rules(discs_per_side=12)

#: The letter of each practice seat's discs, and back.
_LETTER = {Seat.SOUTH: "s", Seat.NORTH: "n"}
_SEAT_OF = {"s": Seat.SOUTH, "n": Seat.NORTH}
#: The practice seats by name (exactly as written in a position).
_SEATS = {seat.key: seat for seat in _LETTER}
#: Grid of a position (inches): coordinates are kept in hundredths.
_GRID = 0.01
#: How many grid steps a disc may be nudged to keep a rounded position legal.
_NUDGE = 2

PracticeDisc = tuple[str, float, float]


def _round(value: float) -> float:
    """``value`` to hundredths, without a negative zero."""
    return round(value, 2) + 0.0


def _disc_problem(
    board: Board, letter: str, x: float, y: float, placed: Sequence[PracticeDisc]
) -> str | None:
    """Why a disc of ``letter`` at (x, y) cannot lie beside ``placed``, or None if it can (R5)."""
    where = f"{_SEAT_OF[letter].key}'s disc at ({_round(x):.2f}, {_round(y):.2f})"
    if math.hypot(x, y) > board.surface_radius:
        return f"{where} is off the board"
    zone = board.zone_of(Point(x, y))
    if zone is Zone.TWENTY:
        return f"{where} has its centre over the 20 hole, where a disc drops (R5)"
    if zone is Zone.OUT:
        return f"{where} touches or lies beyond the shooting line, where a disc is out (R5)"
    reach = board.disc_radius + board.peg_radius - OVERLAP_TOLERANCE
    for k, peg in enumerate(board.pegs):
        if math.hypot(x - peg.x, y - peg.y) < reach:
            return f"{where} overlaps peg {k + 1}"
    reach = 2.0 * board.disc_radius - OVERLAP_TOLERANCE
    for other, ox, oy in placed:
        if math.hypot(x - ox, y - oy) < reach:
            owner = _SEAT_OF[other].key
            return f"{where} overlaps {owner}'s disc at ({ox:.2f}, {oy:.2f})"
    return None


def _snapped(board: Board, discs: Sequence[PracticeDisc]) -> tuple[PracticeDisc, ...]:
    """The discs with their coordinates in hundredths, each as near as legal to where it was.

    Each disc takes the grid point nearest to it that leaves it legal beside
    the discs before it; the discs were legal where they were, so a point
    within :data:`_NUDGE` hundredths always is.
    """
    kept: list[PracticeDisc] = []
    steps = range(-_NUDGE, _NUDGE + 1)
    for letter, x, y in discs:
        gx, gy = round(x / _GRID), round(y / _GRID)
        options = [((gx + i) * _GRID, (gy + j) * _GRID) for i in steps for j in steps]
        options.sort(key=lambda p: (math.hypot(p[0] - x, p[1] - y), p))
        for px, py in options:
            sx, sy = _round(px), _round(py)
            if _disc_problem(board, letter, sx, sy, kept) is None:
                kept.append((letter, sx, sy))
                break
        else:  # pragma: no cover - a legal disc always has a legal grid point this near
            raise AnalysisError(
                f"{_SEAT_OF[letter].key}'s disc at ({x:.4f}, {y:.4f}) cannot be "
                "written to hundredths of an inch without touching something"
            )
    return tuple(kept)


@dataclass(frozen=True, slots=True)
class PracticePosition:
    """Discs on the board and the seat to shoot: a legal position of singles (R5).

    Attributes:
        discs: each disc as ``(side, x, y)``: side ``"s"`` (south) or ``"n"``
            (north), centre in inches, kept in hundredths.
        seat: who shoots, ``"south"`` or ``"north"``.

    Raises:
        AnalysisError: a disc that cannot lie there, a side with more than 12
            discs, a seat that is not south or north; the message says which
            and why in plain words.

    >>> PracticePosition((("s", 0.004, -6.0),)).discs
    (('s', 0.0, -6.0),)
    >>> PracticePosition((("n", 0.0, 0.3),))
    Traceback (most recent call last):
    ...
    crokinole.errors.AnalysisError: north's disc at (0.00, 0.30) has its centre over the 20 hole, \
where a disc drops (R5)
    """

    discs: tuple[PracticeDisc, ...] = ()
    seat: str = "south"

    def __post_init__(self) -> None:
        if self.seat not in _SEATS:
            raise AnalysisError(
                f"a practice position is shot from south or north, not {self.seat!r}"
            )
        board = TOURNAMENT_BOARD
        checked: list[PracticeDisc] = []
        try:
            items = list(self.discs)
        except TypeError:
            raise AnalysisError("a position's discs are a list of [side, x, y]") from None
        for k, item in enumerate(items):
            disc = _read_disc(item, k)
            problem = _disc_problem(board, *disc, checked)
            if problem is not None:
                raise AnalysisError(problem)
            checked.append(disc)
        for letter, seat in _SEAT_OF.items():
            count = sum(1 for d in checked if d[0] == letter)
            if count > MAX_DISCS_PER_SIDE:
                raise AnalysisError(
                    f"{seat.key} has {count} discs on the board; a practice round "
                    f"has {MAX_DISCS_PER_SIDE} of each side"
                )
        object.__setattr__(self, "discs", _snapped(board, checked))

    @property
    def shooter(self) -> Seat:
        """The seat to shoot."""
        return _SEATS[self.seat]

    def mine(self) -> tuple[tuple[float, float], ...]:
        """Centres of the shooter's discs."""
        letter = _LETTER[self.shooter]
        return tuple((x, y) for s, x, y in self.discs if s == letter)

    def theirs(self) -> tuple[tuple[float, float], ...]:
        """Centres of the other side's discs."""
        letter = _LETTER[self.shooter]
        return tuple((x, y) for s, x, y in self.discs if s != letter)


def _read_disc(item: object, k: int) -> PracticeDisc:
    """``[side, x, y]`` (a list or tuple) as a checked disc."""
    if not isinstance(item, list | tuple) or len(item) != 3:
        raise AnalysisError(f"disc {k + 1} is not [side, x, y]")
    letter, x, y = item
    if letter not in _SEAT_OF:
        raise AnalysisError(f'disc {k + 1}: a side is "s" (south) or "n" (north), not {letter!r}')
    for name, value in (("x", x), ("y", y)):
        if not is_real_number(value) or not math.isfinite(float(value)):
            raise AnalysisError(f"disc {k + 1}: {name} is a number of inches, not {value!r}")
    return (letter, float(x), float(y))


def position_data(pos: PracticePosition) -> dict[str, Any]:
    """The position as the JSON of a position code (what the server sends as ``position``).

    >>> position_data(PracticePosition((("n", 1.0, 2.5),)))
    {'seat': 'south', 'discs': [['n', 1, 2.5]]}
    """
    return {"seat": pos.seat, "discs": [[s, _js_number(x), _js_number(y)] for s, x, y in pos.discs]}


def _js_number(value: float) -> float | int:
    """A number as JavaScript's JSON writes it: whole numbers without a decimal point."""
    return int(value) if value == int(value) else value


def position_from_data(data: object) -> PracticePosition:
    """A position from JSON ``{"seat": "south", "discs": [["s", x, y], ...]}`` (seat optional).

    Raises:
        AnalysisError: not such an object, or a position that cannot be (plain words).
    """
    if not isinstance(data, dict):
        raise AnalysisError('a position is an object {"seat": ..., "discs": [[side, x, y], ...]}')
    unknown = sorted(set(data) - {"seat", "discs", "v"})
    if unknown:
        raise AnalysisError(f"a position has no field(s) {', '.join(unknown)}")
    discs = data.get("discs", [])
    if not isinstance(discs, list):
        raise AnalysisError("a position's discs are a list of [side, x, y]")
    seat = data.get("seat", "south")
    if not isinstance(seat, str):
        raise AnalysisError(f"a practice position is shot from south or north, not {seat!r}")
    return PracticePosition(tuple(_read_disc(d, k) for k, d in enumerate(discs)), seat)


def position_code(pos: PracticePosition) -> str:
    """The position's code for a link: base64url (no padding) of its compact JSON.

    >>> position_code(PracticePosition())
    'eyJ2IjoxLCJzZWF0Ijoic291dGgiLCJkaXNjcyI6W119'
    """
    data = {"v": CODE_VERSION, **position_data(pos)}
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def position_from_code(code: str) -> PracticePosition:
    """The position a code stands for.

    Raises:
        AnalysisError: ``this position link is damaged ...`` for a code that
            is not one, or a position that cannot be, with the reason.

    >>> position_from_code("not a code")
    Traceback (most recent call last):
    ...
    crokinole.errors.AnalysisError: this position link is damaged: it holds characters no code has
    """
    damaged = "this position link is damaged"
    if not isinstance(code, str) or not code:
        raise AnalysisError(f"{damaged}: the code is empty")
    if len(code) > MAX_CODE_LENGTH:
        raise AnalysisError(f"{damaged}: the code is longer than {MAX_CODE_LENGTH} characters")
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    if any(c not in alphabet for c in code.rstrip("=")):
        raise AnalysisError(f"{damaged}: it holds characters no code has")
    try:
        raw = base64.urlsafe_b64decode(code.rstrip("=") + "=" * (-len(code.rstrip("=")) % 4))
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, UnicodeDecodeError, ValueError, RecursionError):
        raise AnalysisError(f"{damaged}: it was cut short or changed") from None
    if not isinstance(data, dict) or data.get("v") != CODE_VERSION:
        raise AnalysisError(f"{damaged}: it is not a practice position of this version")
    try:
        return position_from_data(data)
    except AnalysisError as exc:
        raise AnalysisError(f"{damaged}: {exc}") from None


def shot_from_data(data: object) -> Shot:
    """A shot from JSON ``{"position": deg, "direction": deg, "power": percent}``.

    Only the types are checked here; the ranges are the game's (R3).

    >>> shot_from_data({"position": 0, "direction": 1.5, "power": 30})
    Shot(position=0.0, direction=1.5, power=30.0)
    """
    if not isinstance(data, dict):
        raise AnalysisError('a shot is an object {"position": ..., "direction": ..., "power": ...}')
    unknown = sorted(set(data) - {"position", "direction", "power"})
    if unknown:
        raise AnalysisError(f"a shot has no field(s) {', '.join(unknown)}")
    values: dict[str, float] = {}
    for name in ("position", "direction", "power"):
        value = data.get(name)
        if not is_real_number(value) or not math.isfinite(float(value)):  # type: ignore[arg-type]
            raise AnalysisError(f"a shot's {name} is a number, not {value!r}")
        values[name] = float(value)  # type: ignore[arg-type]
    return Shot(**values)


def practice_game(pos: PracticePosition) -> Game:
    """A legal game of singles with the position's discs on the board and its seat to shoot.

    Tournament rules with 12 discs each (:data:`PRACTICE_RULES`), in round 1.
    The shooter opened the round, and both sides have shot as many discs as
    the side with more discs on the board; the discs that are not on the
    board are in the ditch, so each side's count is what the board shows.

    Raises:
        AnalysisError: a side has 12 discs on the board: the shooter would have
            none left to shoot.

    >>> game = practice_game(PracticePosition((("n", 0.0, 3.0),), seat="south"))
    >>> game.current_seat, [d.owner.name for d in game.discs], game.in_hand(Seat.SOUTH)
    (<Seat.SOUTH: 270.0>, ['NORTH'], 11)
    """
    shooter = pos.shooter
    other = Seat.NORTH if shooter is Seat.SOUTH else Seat.SOUTH
    own = [d for d in pos.discs if _SEAT_OF[d[0]] is shooter]
    theirs = [d for d in pos.discs if _SEAT_OF[d[0]] is other]
    shot_each = max(len(own), len(theirs))
    if shot_each >= PRACTICE_RULES.discs_per_side:
        full = own if len(own) >= len(theirs) else theirs
        name = _SEAT_OF[full[0][0]].key
        raise AnalysisError(
            f"{name} has {len(full)} discs on the board, a whole round's: take one off to "
            "shoot again (each side has 12)"
        )
    # The shooter shot turns 0, 2, 4 ...; the other side 1, 3, 5 ...
    discs = [Disc(2 * k, shooter, x, y) for k, (_, x, y) in enumerate(own)]
    discs += [Disc(2 * k + 1, other, x, y) for k, (_, x, y) in enumerate(theirs)]
    discs.sort(key=lambda d: d.id)
    rules = PRACTICE_RULES
    per_seat = {shooter: len(own), other: len(theirs)}
    side = {s: rules.side_of(s) for s in rules.seats}
    ditch = [0, 0]
    for seat, on_board in per_seat.items():
        ditch[side[seat]] = shot_each - on_board
    state = GameState(
        round=1,
        round_first=shooter,
        turn=2 * shot_each,
        phase=Phase.PLAYING,
        in_hand=tuple(rules.discs_per_side - shot_each for _ in rules.seats),
        discs=tuple(discs),
        twenties=(0, 0),
        ditch=(ditch[0], ditch[1]),
        next_id=2 * shot_each,
        scores=(0, 0),
        history=(),
        outcome=None,
    )
    saved = SavedGame(rules, TOURNAMENT_BOARD, shooter, (), state)
    try:
        return Game.from_json(write_record(saved))
    except CrokinoleError as exc:  # pragma: no cover - a checked position is always reachable
        raise AnalysisError(f"this position cannot be played: {exc}") from None


def _margin(game: Game, seat: Seat) -> int:
    """The seat's side's round count minus the other side's (R6, 20s included)."""
    counts = game.round_counts()
    mine = game.side_of(seat)
    return counts[mine].total - counts[1 - mine].total


@dataclass(frozen=True)
class PracticeResult:
    """A shot played from a practice position, with a steady hand (the shot exactly as given).

    Attributes:
        position: the position before the shot.
        shot: the shot.
        position_after: the position after it (the same seat to shoot again).
        report: the referee's report (R4, R5); ``report.physics`` is the trajectory.
        game: the practice game just before the shot (for the disc ids of the report).
        margin_before: the shooter's round margin before the shot (R6).
        margin_after: the margin after it, 20s included.
    """

    position: PracticePosition
    shot: Shot
    position_after: PracticePosition
    report: ShotReport
    game: Game = field(repr=False)
    margin_before: int
    margin_after: int

    @property
    def seat(self) -> Seat:
        """Who shot."""
        return self.position.shooter

    @property
    def valid(self) -> bool:
        """Whether the shot obeyed R4."""
        return self.report.valid

    @property
    def foul(self) -> str | None:
        """Why the shot was a foul (``no_contact``, ``not_in_fifteen``), or None."""
        return None if self.report.foul is None else self.report.foul.name.lower()

    @property
    def shot_id(self) -> int:
        """The game id of the shot disc."""
        return self.report.shot_id

    @property
    def twenty(self) -> bool:
        """Whether the shot disc dropped into the hole and counts (R5)."""
        return any(d.id == self.shot_id for d in self.report.twenties)

    @property
    def own_twenties(self) -> int:
        """The shooter's discs that dropped into the hole and count, the shot disc included."""
        return sum(1 for d in self.report.twenties if d.owner is self.seat)

    @property
    def their_twenties(self) -> int:
        """The other side's discs knocked into the hole (20s for them)."""
        return sum(1 for d in self.report.twenties if d.owner is not self.seat)

    @property
    def removed_theirs(self) -> tuple[Disc, ...]:
        """The other side's discs sent to the ditch, where they were when they left the board."""
        return tuple(r.disc for r in self.report.removed if r.disc.owner is not self.seat)

    @property
    def removed_mine(self) -> tuple[Disc, ...]:
        """The shooter's discs sent to the ditch (the shot disc included)."""
        return tuple(r.disc for r in self.report.removed if r.disc.owner is self.seat)

    @property
    def shot_disc(self) -> Disc | None:
        """The shot disc where it rests on the board, or None (in the hole or the ditch)."""
        return next((d for d in self.report.board_after if d.id == self.shot_id), None)

    @property
    def points(self) -> int:
        """How much the shot changed the shooter's round margin (R6, 20s included)."""
        return self.margin_after - self.margin_before

    @property
    def trajectory(self) -> ShotResult | None:
        """The simulator's result: the exact trajectory and contacts."""
        return self.report.physics

    def summary(self) -> dict[str, Any]:
        """What the shot did, as JSON-ready data.

        ``valid``, ``foul``, ``twenty`` (the shot disc in the hole),
        ``twenties`` (the shooter's and the other side's discs in the hole),
        ``removed`` (discs sent to the ditch, the shooter's and theirs),
        ``margin_before``, ``margin_after`` and ``points`` (the change), and
        ``explain``: the referee's sentence for players.
        """
        return {
            "valid": self.valid,
            "foul": self.foul,
            "twenty": self.twenty,
            "twenties": {"mine": self.own_twenties, "theirs": self.their_twenties},
            "removed": {"mine": len(self.removed_mine), "theirs": len(self.removed_theirs)},
            "margin_before": self.margin_before,
            "margin_after": self.margin_after,
            "points": self.points,
            "explain": self.report.explain(),
        }


def practice_shot(pos: PracticePosition, shot: Shot) -> PracticeResult:
    """Play ``shot`` from ``pos`` with a steady hand: the same result every time.

    Raises:
        AnalysisError: the shot cannot be played there (a placement off the
            quarter or on a disc, a direction or power out of range, R3).

    >>> far = practice_shot(PracticePosition(), Shot(0.0, 10.0, 28.0))   # aimed wide
    >>> far.valid, far.foul, far.points
    (False, 'not_in_fifteen', 0)
    """
    if not isinstance(shot, Shot):
        raise AnalysisError(f"a shot is Shot(position, direction, power), got {shot!r}")
    game = practice_game(pos)
    before = game.copy()
    margin_before = _margin(game, pos.shooter)
    try:
        report = game.shoot(pos.shooter, shot)
    except CrokinoleError as exc:
        raise AnalysisError(f"this shot cannot be played: {exc}") from None
    after = PracticePosition(
        tuple((_LETTER[d.owner], d.x, d.y) for d in report.board_after), pos.seat
    )
    return PracticeResult(
        position=pos,
        shot=shot,
        position_after=after,
        report=report,
        game=before,
        margin_before=margin_before,
        margin_after=_margin(game, pos.shooter),
    )
