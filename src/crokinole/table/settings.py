"""What a table is set up with: the house rules (R2), the hand, and its clocks.

>>> settings = TableSettings.for_kind(Kind.PARTY, layout=Layout.DOUBLES)
>>> settings.discs, settings.hand.value, settings.tie.value
(12, 'human', 'extra_rounds')
>>> TableSettings.from_dict(settings.to_dict(), kind=Kind.PARTY) == settings
True
>>> settings.hints, TableSettings.for_kind(Kind.SOLO).hints
(False, True)
>>> TableSettings.from_dict({"turn_time": 5}, kind=Kind.PARTY)
Traceback (most recent call last):
...
crokinole.errors.TableError: time per turn is none, 30 or 60 seconds, not 5
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from crokinole.ai import HAND_NOISE, Level, Noise
from crokinole.board import Seat, is_real_number, is_whole_number
from crokinole.errors import CrokinoleError, ErrorCode, TableError
from crokinole.rules import Layout, Rules, Scoring, TieSetting
from crokinole.rules.options import DISCS_PER_SIDE, TURN_TIMES

__all__ = [
    "HAND_NOISE",
    "MAX_ROUNDS",
    "RANKED_TURN_TIME",
    "Hand",
    "Kind",
    "TableSettings",
    "Timings",
]


class Kind(StrEnum):
    """How a table is played.

    ``party``: a code and an invite link, a lobby, 2-4 devices, spectators.
    ``solo``: one device holds 1-4 seats (hot-seat play of any layout) with
    CPUs in the others; it starts at once, has no code, and nobody can join.
    ``ranked``: made by the ranked queue for its matched players, each seat
    reserved for one of them; tournament rules that nobody can change
    (:meth:`TableSettings.ranked`); it starts at once, nobody else can join,
    watch or act, and there is no rematch.
    """

    PARTY = "party"
    SOLO = "solo"
    RANKED = "ranked"


class Hand(StrEnum):
    """A house rule: how exactly a person's aimed shot is played.

    ``steady`` plays it exactly as aimed; ``human`` plays it with
    :data:`HAND_NOISE`.  A CPU's shot is played as it chose it either way:
    its level's execution noise is already in the shot it returns.
    """

    STEADY = "steady"
    HUMAN = "human"

    @property
    def noise(self) -> Noise:
        """The execution noise of this hand (none for ``steady``)."""
        return HAND_NOISE if self is Hand.HUMAN else Noise()


#: Four-round games may be shortened to 1-4 rounds (a quick game or a test).
MAX_ROUNDS = 4
#: The turn clock of ranked games, in seconds (R2).
RANKED_TURN_TIME = 30.0
#: The longest turn clock a test setting may choose, in seconds.
MAX_TURN_TIME = 3600.0


def _bad(message: str) -> TableError:
    return TableError(ErrorCode.BAD_SETTINGS, message)


def _enum(name: str, kind: Any, value: object) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(k.value) for k in kind)
        raise _bad(f"{name} is one of {allowed}, not {value!r}") from None


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The house rules of a table (R2) and how shots are played.

    Every value is checked when the settings are made; a bad one raises
    ``TableError(ErrorCode.BAD_SETTINGS, ...)``.  Left out, ``discs`` is the
    layout's first choice and ``rounds`` is 4 for a four-round game.

    Attributes:
        layout: players and teams.
        discs: discs per side (R2: singles 8 or 12, doubles and 2-vs-1 12,
            three singles 8).
        scoring: four rounds or to 100.
        rounds: rounds of a four-round game (1-4; fewer than 4 is a quick
            game); None for a game to 100.
        tie: what a level four-round game does.
        required_contact: R4 on or off.
        turn_time: seconds per turn, None for no clock.  Players choose
            none, 30 or 60; the server's test setting may allow any value
            from 1 s (see :meth:`from_dict`).
        hand: steady or human (see :class:`Hand`).
        standin_level: the CPU level (a :class:`~crokinole.ai.Level` value)
            that plays for a missing player.
        hints: whether a player may ask for hints and heat maps on their
            turn (each one counted).  On by default on one device, off in a
            party until the host allows them, never in a ranked game.
    """

    layout: Layout = Layout.SINGLES
    discs: int | None = None
    scoring: Scoring = Scoring.FOUR_ROUNDS
    rounds: int | None = None
    tie: TieSetting = TieSetting.DRAW
    required_contact: bool = True
    turn_time: float | None = None
    hand: Hand = Hand.STEADY
    standin_level: str = Level.NORMAL.value
    hints: bool = True

    def __post_init__(self) -> None:
        put = object.__setattr__
        put(self, "layout", _enum("layout", Layout, self.layout))
        put(self, "scoring", _enum("scoring", Scoring, self.scoring))
        put(self, "tie", _enum("tie", TieSetting, self.tie))
        put(self, "hand", _enum("hand", Hand, self.hand))
        put(self, "standin_level", _enum("standin_level", Level, self.standin_level).value)
        allowed = DISCS_PER_SIDE[self.layout]
        discs = allowed[0] if self.discs is None else self.discs
        if not is_whole_number(discs) or discs not in allowed:
            options = " or ".join(str(d) for d in allowed)
            layout = self.layout.value.replace("_", " ")
            raise _bad(f"{layout} is played with {options} discs per side, not {discs!r}")
        put(self, "discs", int(discs))
        if self.scoring is Scoring.FOUR_ROUNDS:
            rounds = MAX_ROUNDS if self.rounds is None else self.rounds
            if not is_whole_number(rounds) or not 1 <= rounds <= MAX_ROUNDS:
                raise _bad(f"a four-round game has 1 to {MAX_ROUNDS} rounds, not {rounds!r}")
            put(self, "rounds", int(rounds))
        elif self.rounds is not None:
            raise _bad(f"a game to 100 has no round count (rounds={self.rounds!r})")
        if not isinstance(self.required_contact, bool):
            raise _bad(f"required_contact is true or false, not {self.required_contact!r}")
        if not isinstance(self.hints, bool):
            raise _bad(f"hints is true or false, not {self.hints!r}")
        if self.turn_time is not None:
            t = self.turn_time
            if not is_real_number(t) or not math.isfinite(float(t)) or not 1 <= t <= MAX_TURN_TIME:
                raise _bad(f"time per turn is none or 1 to {MAX_TURN_TIME:g} seconds, not {t!r}")
            put(self, "turn_time", float(t))

    @classmethod
    def for_kind(cls, kind: Kind | str, **options: Any) -> TableSettings:
        """Settings with the defaults of a kind of table, then ``options``.

        A party plays with the human hand and extra rounds on a tie (R2
        "online"); a solo table with the steady hand and a draw (R2 "against
        the CPU").  Hints are on at a solo table, off in a party (the host
        may allow them) and never allowed in a ranked game.

        >>> TableSettings.for_kind("solo").hand.value
        'steady'
        >>> TableSettings.for_kind("ranked", hints=True)
        Traceback (most recent call last):
        ...
        crokinole.errors.TableError: hints are never allowed in ranked games
        """
        kind = _enum("kind", Kind, kind)
        unknown = sorted(set(options) - {f.name for f in fields(cls)})
        if unknown:
            raise _bad(f"unknown setting(s): {', '.join(unknown)}")
        if kind is Kind.RANKED:
            if options.get("hints", False) is not False:
                raise _bad("hints are never allowed in ranked games")
            options.setdefault("turn_time", RANKED_TURN_TIME)
        if kind is not Kind.SOLO:
            options.setdefault("hand", Hand.HUMAN)
            options.setdefault("tie", TieSetting.EXTRA_ROUNDS)
            options.setdefault("hints", False)
        return cls(**options)

    @classmethod
    def ranked(cls, layout: Layout | str, rounds: int | None = None) -> TableSettings:
        """The fixed rules of a ranked game: tournament rules (R2), 30 s clock, human hand.

        Singles or doubles, 8 discs each in singles (12 a team in doubles),
        required contact, four rounds scored 2/1/0 with extra rounds on a
        tie, a 30 s turn clock, the human hand, a Normal stand-in, no hints.
        ``rounds`` (1-4) shortens the game for the server's test option only.

        >>> rules = TableSettings.ranked("singles")
        >>> rules.discs, rules.rounds, rules.tie.value, rules.turn_time, rules.hand.value
        (8, 4, 'extra_rounds', 30.0, 'human')
        >>> TableSettings.ranked("three_singles")
        Traceback (most recent call last):
        ...
        crokinole.errors.TableError: ranked games are singles or doubles, not 'three_singles'
        """
        chosen = _enum("layout", Layout, layout)
        if chosen not in (Layout.SINGLES, Layout.DOUBLES):
            raise _bad(f"ranked games are singles or doubles, not {chosen.value!r}")
        return cls(
            layout=chosen,
            discs=8 if chosen is Layout.SINGLES else 12,
            scoring=Scoring.FOUR_ROUNDS,
            rounds=MAX_ROUNDS if rounds is None else rounds,
            tie=TieSetting.EXTRA_ROUNDS,
            required_contact=True,
            turn_time=RANKED_TURN_TIME,
            hand=Hand.HUMAN,
            standin_level=Level.NORMAL.value,
            hints=False,
        )

    @property
    def is_ranked(self) -> bool:
        """Whether these are the fixed rules of a ranked game (of any round count)."""
        if self.layout not in (Layout.SINGLES, Layout.DOUBLES):
            return False
        return self == TableSettings.ranked(self.layout, self.rounds)

    @property
    def seats(self) -> tuple[Seat, ...]:
        """The seats of the layout, clockwise from south."""
        return self.rules().seats

    def rules(self) -> Rules:
        """The game's rules.  The table runs the turn clock; a 30 or 60 s
        clock is also written into the rules (so the game record shows it)."""
        turn_time = self.turn_time
        in_rules = int(turn_time) if turn_time is not None and turn_time in TURN_TIMES else None
        try:
            return Rules(
                layout=self.layout,
                discs_per_side=self.discs,  # type: ignore[arg-type]  # set in __post_init__
                scoring=self.scoring,
                rounds=self.rounds,
                tie=self.tie,
                required_contact=self.required_contact,
                turn_time=in_rules,
            )
        except CrokinoleError as exc:
            raise _bad(str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (the keys of the fields)."""
        return {
            "layout": self.layout.value,
            "discs": self.discs,
            "scoring": self.scoring.value,
            "rounds": self.rounds,
            "tie": self.tie.value,
            "required_contact": self.required_contact,
            "turn_time": self.turn_time,
            "hand": self.hand.value,
            "standin_level": self.standin_level,
            "hints": self.hints,
        }

    @classmethod
    def from_dict(
        cls,
        data: object,
        *,
        kind: Kind | str = Kind.PARTY,
        allow_short_clock: bool = False,
    ) -> TableSettings:
        """Settings from plain data; keys left out take the kind's defaults.

        Args:
            data: a dict with some of the keys of :meth:`to_dict`.
            kind: whose defaults fill the keys left out.
            allow_short_clock: the server's test setting: any turn time of
                at least 1 s; otherwise none, 30 or 60 (R2).

        Raises:
            TableError: ``bad_settings``, naming the bad key or value.
        """
        if not isinstance(data, dict):
            raise _bad(f"settings are an object, not {type(data).__name__}")
        if not all(isinstance(k, str) for k in data):
            raise _bad("settings are named by text")
        options = dict(data)
        clock = options.get("turn_time")
        if not allow_short_clock and clock is not None and not _a_turn_time(clock):
            raise _bad(f"time per turn is none, 30 or 60 seconds, not {clock!r}")
        if options.get("scoring") == Scoring.TO_100.value and "rounds" not in options:
            options["rounds"] = None
        return cls.for_kind(kind, **options)


def _a_turn_time(value: object) -> bool:
    """Whether ``value`` is one of the clocks players choose from (R2: 30 or 60 s)."""
    return isinstance(value, int | float) and is_real_number(value) and value in TURN_TIMES


@dataclass(frozen=True, slots=True)
class Timings:
    """The table's fixed waits, in seconds (stored with the table, so a
    replay gives the same deadlines; tests and servers may shorten them).

    Attributes:
        turn_grace: added to the turn clock for the network's latency.
        standin_grace: how long a missing player's turn waits before the
            stand-in CPU takes it over (a flicker is not a takeover).
        round_countdown: a round result shows this long, unless every
            connected player pressed Next first (parties only).
        reaction_gap: least time between two reactions of one member.
        rematch_offer: how long a rematch offer waits for every seated
            player's answer before it lapses.
    """

    turn_grace: float = 2.0
    standin_grace: float = 10.0
    round_countdown: float = 10.0
    reaction_gap: float = 2.0
    rematch_offer: float = 60.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not is_real_number(value) or not 0.0 <= float(value) <= 86400.0:
                raise _bad(f"{f.name} is 0 to 86400 seconds, not {value!r}")
            object.__setattr__(self, f.name, float(value))

    def to_dict(self) -> dict[str, float]:
        """Plain JSON-ready form."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: object) -> Timings:
        """Inverse of :meth:`to_dict` (keys left out take the defaults)."""
        if not isinstance(data, dict):
            raise _bad(f"timings are an object, not {type(data).__name__}")
        unknown = sorted(str(k) for k in set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise _bad(f"unknown timing(s): {', '.join(unknown)}")
        return cls(**data)
