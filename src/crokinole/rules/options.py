"""The options of a game (R2) as one frozen, validated value, with named presets.

>>> Rules.tournament_singles().discs_per_player(Seat.SOUTH)
8
>>> Rules.two_vs_one().discs_per_player(Seat.WEST), Rules.two_vs_one().discs_per_player(Seat.NORTH)
(12, 6)
>>> Rules(scoring=Scoring.TO_100, rounds=4)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
crokinole.errors.InvalidRulesError: a game to 100 has no round count (rounds=4 given); ...
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from crokinole.board import Seat, is_whole_number
from crokinole.errors import InvalidRulesError


class Layout(Enum):
    """Who plays, and in which teams (R2)."""

    SINGLES = "singles"  # 2 players, south and north
    DOUBLES = "doubles"  # 4 players, partners opposite: south+north against west+east
    TWO_VS_ONE = "two_vs_one"  # 3 players: south+north (alternating) against west
    THREE_SINGLES = "three_singles"  # 3 players each on their own: south, west, north

    @property
    def players(self) -> int:
        """Number of players (seats in use)."""
        return sum(len(side) for side in _SIDES[self])

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        """The sides, each a tuple of its seats in clockwise order."""
        return _SIDES[self]


_SIDES: dict[Layout, tuple[tuple[Seat, ...], ...]] = {
    Layout.SINGLES: ((Seat.SOUTH,), (Seat.NORTH,)),
    Layout.DOUBLES: ((Seat.SOUTH, Seat.NORTH), (Seat.WEST, Seat.EAST)),
    Layout.TWO_VS_ONE: ((Seat.SOUTH, Seat.NORTH), (Seat.WEST,)),
    Layout.THREE_SINGLES: ((Seat.SOUTH,), (Seat.WEST,), (Seat.NORTH,)),
}

#: Discs per side allowed by R2 for each layout; the first is the default.
DISCS_PER_SIDE: dict[Layout, tuple[int, ...]] = {
    Layout.SINGLES: (8, 12),
    Layout.DOUBLES: (12,),
    Layout.TWO_VS_ONE: (12,),
    Layout.THREE_SINGLES: (8,),
}

_PLAYERS_TO_LAYOUTS = {
    2: (Layout.SINGLES,),
    3: (Layout.TWO_VS_ONE, Layout.THREE_SINGLES),
    4: (Layout.DOUBLES,),
}


class Scoring(Enum):
    """How a game is scored (R2, R6)."""

    FOUR_ROUNDS = "four_rounds"  # 2 game points per round won, 1 each for a tie
    TO_100 = "to_100"  # the round winner adds the difference; first to 100 wins


class TieSetting(Enum):
    """What happens when a four-round game ends level (R2)."""

    DRAW = "draw"
    EXTRA_ROUNDS = "extra_rounds"  # up to MAX_EXTRA_ROUNDS more rounds, then a draw


#: Extra rounds played at most after a tied four-round game (R2).
MAX_EXTRA_ROUNDS = 4
#: Allowed turn times in seconds (R2); None means no clock.
TURN_TIMES = (None, 30, 60)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of R2.  Invalid combinations raise :class:`InvalidRulesError`.

    Attributes:
        layout: players and teams.
        discs_per_side: discs each side shoots per round; a team's discs are
            shared equally by its players (singles 8 or 12, doubles 12,
            2-vs-1 12, three singles 8).
        scoring: four rounds (game points) or to 100 (differences).
        rounds: rounds of a four-round game (4 unless shortened, e.g. for a
            quick game); None for a game to 100.  Left out, it follows ``scoring``.
        target: points that end a game to 100; None for four rounds.  Left
            out, it follows ``scoring``.
        tie: what a level four-round game does.
        required_contact: R4 on (tournament) or off (home rule).
        turn_time: seconds per turn (None, 30 or 60); the game never reads a
            clock, the server turns a late shot into a timeout action.
    """

    layout: Layout = Layout.SINGLES
    discs_per_side: int = 8
    scoring: Scoring = Scoring.FOUR_ROUNDS
    rounds: int | None = field(default=None)
    target: int | None = field(default=None)
    tie: TieSetting = TieSetting.DRAW
    required_contact: bool = True
    turn_time: int | None = None

    def __post_init__(self) -> None:
        self._store_values()
        self._check_discs()
        self._check_scoring()
        if (self.turn_time is not None and not is_whole_number(self.turn_time)) or (
            self.turn_time not in TURN_TIMES
        ):
            raise InvalidRulesError(
                f"turn_time must be none, 30 or 60 seconds, got {self.turn_time!r}"
            )

    def _store_values(self) -> None:
        """The enums from their values and whole numbers as int (or a plain refusal)."""
        for name, kind in (
            ("layout", Layout),
            ("scoring", Scoring),
            ("tie", TieSetting),
        ):
            value = getattr(self, name)
            if not isinstance(value, kind):
                try:
                    object.__setattr__(self, name, kind(value))
                except ValueError:
                    allowed = ", ".join(repr(k.value) for k in kind)
                    raise InvalidRulesError(
                        f"{name} must be one of {allowed}, got {value!r}"
                    ) from None
        if not isinstance(self.required_contact, bool):
            raise InvalidRulesError(
                f"required_contact must be true or false, got {self.required_contact!r}"
            )
        # Whole numbers of any integer type (numpy's included) are stored as int,
        # so the rules stay a plain value that JSON can write.
        for name in ("discs_per_side", "rounds", "target", "turn_time"):
            value = getattr(self, name)
            if is_whole_number(value):
                object.__setattr__(self, name, int(value))

    def _check_discs(self) -> None:
        allowed_discs = DISCS_PER_SIDE[self.layout]
        if not is_whole_number(self.discs_per_side) or self.discs_per_side not in allowed_discs:
            options = " or ".join(str(d) for d in allowed_discs)
            raise InvalidRulesError(
                f"{self.layout.value.replace('_', ' ')} is played with {options} discs per side, "
                f"not {self.discs_per_side!r}"
            )

    def _check_scoring(self) -> None:
        """Four rounds (4 unless given, no target) or a game to a target (100 unless given)."""
        if self.scoring is Scoring.FOUR_ROUNDS:
            if self.target is not None:
                raise InvalidRulesError(
                    f"a four-round game has no points target (target={self.target!r} given); "
                    "use scoring='to_100'"
                )
            rounds = 4 if self.rounds is None else self.rounds
            if not is_whole_number(rounds) or not 1 <= rounds <= 20:
                raise InvalidRulesError(
                    f"rounds must be a whole number from 1 to 20, got {rounds!r}"
                )
            object.__setattr__(self, "rounds", rounds)
        else:
            if self.rounds is not None:
                raise InvalidRulesError(
                    f"a game to 100 has no round count (rounds={self.rounds!r} given); "
                    "use scoring='four_rounds' for a fixed number of rounds"
                )
            target = 100 if self.target is None else self.target
            if not is_whole_number(target) or not 5 <= target <= 1000 or target % 5:
                raise InvalidRulesError(
                    f"target must be a multiple of 5 from 5 to 1000, got {target!r}"
                )
            object.__setattr__(self, "target", target)

    # -------------------------------------------------------------- presets

    @classmethod
    def tournament_singles(cls) -> Rules:
        """Singles, 8 discs each, four rounds, contact required."""
        return cls()

    @classmethod
    def home_singles(cls) -> Rules:
        """Singles, 12 discs each, first to 100 (the home rule)."""
        return cls(discs_per_side=12, scoring=Scoring.TO_100)

    @classmethod
    def doubles(cls) -> Rules:
        """Four players, partners opposite, 6 discs each, four rounds."""
        return cls(layout=Layout.DOUBLES, discs_per_side=12)

    @classmethod
    def two_vs_one(cls) -> Rules:
        """Three players: south and north (6 discs each) against west (12)."""
        return cls(layout=Layout.TWO_VS_ONE, discs_per_side=12)

    @classmethod
    def three_singles(cls) -> Rules:
        """Three players each on their own, 8 discs each, four rounds."""
        return cls(layout=Layout.THREE_SINGLES, discs_per_side=8)

    @classmethod
    def for_players(cls, players: int, **options: Any) -> Rules:
        """Rules for a number of players (2, 3 or 4); 3 players default to three singles.

        >>> Rules.for_players(5)
        Traceback (most recent call last):
        ...
        crokinole.errors.InvalidRulesError: crokinole is played by 2, 3 or 4 players, not 5
        """
        if players not in _PLAYERS_TO_LAYOUTS:
            raise InvalidRulesError(f"crokinole is played by 2, 3 or 4 players, not {players!r}")
        layout = options.pop("layout", _PLAYERS_TO_LAYOUTS[players][-1])
        layout = Layout(layout)
        if layout not in _PLAYERS_TO_LAYOUTS[players]:
            raise InvalidRulesError(f"{layout.value} is not a layout for {players} players")
        discs = options.pop("discs_per_side", DISCS_PER_SIDE[layout][0])
        return cls(layout=layout, discs_per_side=discs, **options)

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again).

        Changing ``scoring`` resets ``rounds`` and ``target`` unless they are given.
        """
        if "scoring" in changes:
            changes.setdefault("rounds", None)
            changes.setdefault("target", None)
        return replace(self, **changes)

    # -------------------------------------------------------------- derived

    @property
    def players(self) -> int:
        """Number of players."""
        return self.layout.players

    @property
    def sides(self) -> tuple[tuple[Seat, ...], ...]:
        """The sides, each a tuple of its seats."""
        return self.layout.sides

    @property
    def seats(self) -> tuple[Seat, ...]:
        """Seats in use, clockwise from south."""
        used = {s for side in self.sides for s in side}
        return tuple(s for s in (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST) if s in used)

    def side_of(self, seat: Seat) -> int:
        """Index of the side that ``seat`` plays for."""
        for index, side in enumerate(self.sides):
            if seat in side:
                return index
        raise InvalidRulesError(f"{seat.key} has no player in {self.layout.value}")

    def discs_per_player(self, seat: Seat) -> int:
        """Discs the player at ``seat`` shoots in a round."""
        side = self.sides[self.side_of(seat)]
        return self.discs_per_side // len(side)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (used by the game record)."""
        return {
            "layout": self.layout.value,
            "discs_per_side": self.discs_per_side,
            "scoring": self.scoring.value,
            "rounds": self.rounds,
            "target": self.target,
            "tie": self.tie.value,
            "required_contact": self.required_contact,
            "turn_time": self.turn_time,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Inverse of :meth:`to_dict`; unknown keys are refused."""
        if not isinstance(data, dict):
            raise InvalidRulesError(f"rules must be an object, got {type(data).__name__}")
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise InvalidRulesError(f"unknown rules option(s): {', '.join(sorted(unknown))}")
        return cls(**data)
