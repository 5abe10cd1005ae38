"""The values of an event: its settings, entrants, pairings and results (pure, frozen).

An *event* is a tournament or a league night.  Its *entrants* are the
competitors the formats pair: a player, or in fixed-team doubles a team of
two.  Each *round* of the event is a list of :class:`Pairing`; each pairing
is one *match* (a single game, or in the playoffs best of 3 games) and, once
played, has a :class:`MatchResult`.  Words: our *game* is four rounds of
crokinole (R2) and our *round* is one round of discs (R6); CMN 1.0 calls
them a "match" and a "game" (:mod:`crokinole.events.export`).

>>> settings = EventSettings(name="Tuesday league", format=Format.SWISS, rounds=4)
>>> settings.tie_breaks[:2]
(<TieBreak.MATCH_POINTS: 'match_points'>, <TieBreak.TWENTIES: 'twenties'>)
>>> game = GameScore(rounds=(RoundScore((20, 0), (1, 0)), RoundScore((0, 15)),
...                          RoundScore((25, 5), (1, 0)), RoundScore((10, 10))))
>>> game.totals, game.twenties, game.game_points(Rules())
((55, 30), (2, 0), (5, 3))
>>> game.outcome(Rules())
GameOutcome(winner=0, drawn=())
>>> EventSettings(name=" ", format=Format.SWISS, rounds=4)
Traceback (most recent call last):
...
crokinole.errors.EventError: an event needs a name (1 to 80 characters)
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from crokinole.errors import ErrorCode, EventError
from crokinole.rules.options import Rules, Scoring
from crokinole.rules.scoring import GameOutcome, game_outcome, round_points

__all__ = [
    "DEFAULT_TIE_BREAKS",
    "MAX_ENTRANTS",
    "MAX_ROUNDS",
    "Entrant",
    "EntrantStatus",
    "EventSettings",
    "Format",
    "GameScore",
    "MatchResult",
    "Pairing",
    "Person",
    "Points",
    "RoundScore",
    "Teams",
    "TieBreak",
    "Venue",
    "entrants_by_id",
]

#: The most entrants an event takes (the benchmark pairs 512).
MAX_ENTRANTS = 1024
#: The most rounds a Swiss or a league night plays.
MAX_ROUNDS = 30


class Format(StrEnum):
    """How entrants meet."""

    SWISS = "swiss"  # N rounds, paired by score groups, no rematches while avoidable
    ROUND_ROBIN = "round_robin"  # everyone meets everyone once (one pool)
    POOLS = "pools"  # round robin in pools, snake-seeded by rating
    POOLS_PLAYOFFS = "pools_playoffs"  # pools, then the top K of each into a bracket
    ELIMINATION = "elimination"  # single elimination, seeded, byes to a power of two


class Teams(StrEnum):
    """Who an entrant is, and who sits together."""

    SINGLES = "singles"  # an entrant is a player; one against one
    ROTATING = "rotating"  # St. Jacobs doubles: an entrant is a player; new partners each round
    FIXED = "fixed"  # doubles of fixed teams: an entrant is a team of two


class Venue(StrEnum):
    """Where the event's games are played."""

    ONLINE = "online"  # each pairing is an online table
    HALL = "hall"  # each pairing is a board in a hall, with a score sheet
    BOTH = "both"  # online players at tables, the others on boards


class TieBreak(StrEnum):
    """What orders the standings, in the event's order (the default: :data:`DEFAULT_TIE_BREAKS`)."""

    MATCH_POINTS = "match_points"  # points for wins, draws and byes (:class:`Points`)
    TWENTIES = "twenties"  # total 20s
    HEAD_TO_HEAD = "head_to_head"  # match points in the games among the tied entrants only
    DIFFERENTIAL = "differential"  # round points scored minus round points conceded
    WINS = "wins"  # matches won
    GAME_POINTS = "game_points"  # game points earned (R2: 2 a round won, 1 a tied round)
    BUCHHOLZ = "buchholz"  # the sum of the opponents' match points (Swiss)
    RATING = "rating"  # the entrant's rating at entry (the last resort of seeding)
    #: The round reached in the bracket (the champion one past the final): knockouts and
    #: playoffs rank by it first, before the settings' tie-breaks; not one to choose.
    BRACKET = "bracket"


#: The default order: match points, then total 20s, then head-to-head, then
#: the points differential.
DEFAULT_TIE_BREAKS: tuple[TieBreak, ...] = (
    TieBreak.MATCH_POINTS,
    TieBreak.TWENTIES,
    TieBreak.HEAD_TO_HEAD,
    TieBreak.DIFFERENTIAL,
)


@dataclass(frozen=True, slots=True)
class Points:
    """Match points for a match won, drawn or lost, and for a bye (which counts as a win).

    >>> Points().bye == Points().win
    True
    """

    win: int = 2
    draw: int = 1
    loss: int = 0

    @property
    def bye(self) -> int:
        """A bye counts as a win."""
        return self.win


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


@dataclass(frozen=True)
class EventSettings:
    """What the organiser chose when creating the event.

    Attributes:
        name: the event's name (1–80 visible characters).
        format: how entrants meet (:class:`Format`).
        rounds: Swiss rounds (the other formats work out their own count;
            ignored there).
        date: the day it is played, ISO ``YYYY-MM-DD`` (or "" if not set).
        rules: the game's options (R2); tournament singles by default, or
            tournament doubles when the event is doubles.
        venue: online, on real boards in a hall, or both.
        teams: singles, rotating-partner doubles, or fixed teams.
        pools: the number of pools (POOLS and POOLS_PLAYOFFS).
        playoff_size: entrants from each pool into the playoffs (POOLS_PLAYOFFS).
        best_of: games in a playoff match (POOLS_PLAYOFFS, ELIMINATION): 1, 3 or 5.
        tie_breaks: the standings' order, first to last.
        points: match points per result.
        rated: whether online games count on the ranked ladder.
        turn_seconds: the event clock per turn for online tables (R2: None, 30, 60).
    """

    name: str
    format: Format
    rounds: int = 0
    date: str = ""
    rules: Rules = field(default_factory=Rules)
    venue: Venue = Venue.ONLINE
    teams: Teams = Teams.SINGLES
    pools: int = 1
    playoff_size: int = 0
    best_of: int = 1
    tie_breaks: tuple[TieBreak, ...] = DEFAULT_TIE_BREAKS
    points: Points = field(default_factory=Points)
    rated: bool = False
    turn_seconds: int | None = 60

    def __post_init__(self) -> None:
        name = " ".join(str(self.name).split())
        if not 1 <= len(name) <= 80:
            raise _fail("an event needs a name (1 to 80 characters)")
        object.__setattr__(self, "name", name)
        if self.format is Format.SWISS and not 1 <= self.rounds <= MAX_ROUNDS:
            raise _fail(f"a Swiss event plays 1 to {MAX_ROUNDS} rounds, not {self.rounds}")
        if self.format in (Format.POOLS, Format.POOLS_PLAYOFFS) and not 1 <= self.pools <= 64:
            raise _fail(f"an event has 1 to 64 pools, not {self.pools}")
        if self.format is Format.POOLS_PLAYOFFS and not 1 <= self.playoff_size <= 16:
            raise _fail(
                f"1 to 16 entrants of each pool go to the playoffs, not {self.playoff_size}"
            )
        if self.best_of not in (1, 3, 5):
            raise _fail(f"a playoff match is best of 1, 3 or 5 games, not {self.best_of}")
        if not self.tie_breaks or len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise _fail("the tie-breaks are a list of distinct criteria, at least one")
        if TieBreak.BRACKET in self.tie_breaks:
            raise _fail("the bracket is not a tie-break to choose: knockouts rank by it first")
        if self.turn_seconds not in (None, 30, 60):
            raise _fail(f"the turn clock is none, 30 or 60 seconds, not {self.turn_seconds}")
        if self.teams is Teams.ROTATING and self.format is not Format.SWISS:
            raise _fail("rotating-partner doubles are played as a Swiss of N rounds")
        if self.teams is not Teams.SINGLES and self.rules.layout.players != 4:
            raise _fail("a doubles event plays doubles games (4 players)")
        if self.teams is Teams.SINGLES and self.rules.layout.players != 2:
            raise _fail("a singles event plays singles games (2 players)")
        if self.date and not _is_iso_date(self.date):
            raise _fail(f"the date is written YYYY-MM-DD, not {self.date!r}")

    @property
    def playoffs(self) -> bool:
        """Whether matches of a bracket are played (best of ``best_of``)."""
        return self.format in (Format.POOLS_PLAYOFFS, Format.ELIMINATION)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON (:meth:`from_dict` reads it back)."""
        return {
            "name": self.name,
            "format": self.format.value,
            "rounds": self.rounds,
            "date": self.date,
            "rules": self.rules.to_dict(),
            "venue": self.venue.value,
            "teams": self.teams.value,
            "pools": self.pools,
            "playoff_size": self.playoff_size,
            "best_of": self.best_of,
            "tie_breaks": [t.value for t in self.tie_breaks],
            "points": {"win": self.points.win, "draw": self.points.draw, "loss": self.points.loss},
            "rated": self.rated,
            "turn_seconds": self.turn_seconds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EventSettings:
        """Settings from JSON (a request or the log), validated.

        Raises:
            EventError: ``bad_event`` naming the field that is wrong.
        """
        if not isinstance(data, Mapping):
            raise _fail("the event's settings are a JSON object")
        try:
            teams = Teams(data.get("teams", "singles"))
            rules_data = data.get("rules")
            if rules_data is None:
                rules = Rules.doubles() if teams is not Teams.SINGLES else Rules()
            else:
                rules = Rules.from_dict(rules_data)
            points = data.get("points") or {}
            return cls(
                name=str(data.get("name", "")),
                format=Format(data.get("format", "")),
                rounds=_int(data.get("rounds", 0), "rounds"),
                date=str(data.get("date") or ""),
                rules=rules,
                venue=Venue(data.get("venue", "online")),
                teams=teams,
                pools=_int(data.get("pools", 1), "pools"),
                playoff_size=_int(data.get("playoff_size", 0), "playoff_size"),
                best_of=_int(data.get("best_of", 1), "best_of"),
                tie_breaks=tuple(
                    TieBreak(t)
                    for t in data.get("tie_breaks", [t.value for t in DEFAULT_TIE_BREAKS])
                ),
                points=Points(
                    _int(points.get("win", 2), "points.win"),
                    _int(points.get("draw", 1), "points.draw"),
                    _int(points.get("loss", 0), "points.loss"),
                ),
                rated=bool(data.get("rated", False)),
                turn_seconds=data.get("turn_seconds", 60),
            )
        except EventError:
            raise
        except (ValueError, TypeError, AttributeError) as exc:
            raise _fail(f"the event's settings are not valid: {exc}") from None


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"{what} is a whole number, not {value!r}")
    return value


def _is_iso_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


class EntrantStatus(StrEnum):
    """Whether the formats pair an entrant."""

    ACTIVE = "active"  # paired each round
    PAUSED = "paused"  # sits out (no bye) until resumed
    DROPPED = "dropped"  # out of the event; their played games still count


@dataclass(frozen=True, slots=True)
class Person:
    """A player: a name, the account they play online with (None for a name only), and
    whether that account is a bot's (a program plays it: marked BOT wherever it is shown)."""

    name: str
    account_id: int | None = None
    bot: bool = False


@dataclass(frozen=True, slots=True)
class Entrant:
    """A competitor the formats pair: a player, or a fixed team of two.

    Attributes:
        id: the entrant's id within the event (short, stable: ``e1``, ``e2`` ...).
        name: the name shown (a player's, or a team's).
        members: the people: one, or two for a fixed team.
        rating: the seeding rating (the ranked ladder's, or 0 for a name).
        status: active, paused or dropped.
        checked_in: whether they said they are here (needed before round 1).
        joined_round: the first round they can be paired in (late entry: > 1).
        claim: an opaque key of the device that joined by name (the server's
            hash of its token), so a hall player can enter their results;
            never shown.
    """

    id: str
    name: str
    members: tuple[Person, ...]
    rating: float = 0.0
    status: EntrantStatus = EntrantStatus.ACTIVE
    checked_in: bool = False
    joined_round: int = 1
    claim: str | None = None

    @property
    def online(self) -> bool:
        """Whether every member has an account (so they can play at an online table)."""
        return all(person.account_id is not None for person in self.members)

    @property
    def bot(self) -> bool:
        """Whether a program plays for this entrant (one of its members is a bot account)."""
        return any(person.bot for person in self.members)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: who plays whom, where, and who shoots first.

    Attributes:
        round: the event's round (from 1).
        table: the pairing's number in the round (from 1): the board number in a hall.
        sides: each side's entrant ids: ``(("e1",), ("e2",))`` in singles and
            fixed teams, ``(("e1", "e4"), ("e2", "e7"))`` in rotating doubles
            (partners together); ``(("e5",), ())`` is a bye.
        first: the side that shoots first in game 1 (the Swiss balances it).
        stage: what the match belongs to, for people: "Round 3", "Pool B",
            "Quarter-final" …
        best_of: games in the match (1, or 3 in the playoffs).
        slot: for a bracket match, its place: (bracket round from 1, match
            from 1 within it); None elsewhere.
    """

    round: int
    table: int
    sides: tuple[tuple[str, ...], tuple[str, ...]]
    first: int = 0
    stage: str = ""
    best_of: int = 1
    slot: tuple[int, int] | None = None

    @property
    def bye(self) -> bool:
        """Whether this is a bye (nobody on the second side)."""
        return not self.sides[1]

    @property
    def entrants(self) -> tuple[str, ...]:
        """Every entrant id in the pairing."""
        return self.sides[0] + self.sides[1]


@dataclass(frozen=True, slots=True)
class RoundScore:
    """One round (R6) of a game: each side's round total and its 20s.

    >>> RoundScore((35, 10), (1, 0)).totals
    (35, 10)
    """

    totals: tuple[int, int]
    twenties: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if len(self.totals) != 2 or len(self.twenties) != 2:
            raise EventError(ErrorCode.BAD_RESULT, "a round has two sides' totals and 20s")
        for total, twenties in zip(self.totals, self.twenties, strict=True):
            if isinstance(total, bool) or not isinstance(total, int) or total < 0 or total % 5:
                raise EventError(
                    ErrorCode.BAD_RESULT,
                    f"a round total is a multiple of 5 and at least 0, not {total!r}",
                )
            if (
                isinstance(twenties, bool)
                or not isinstance(twenties, int)
                or not 0 <= twenties * 20 <= total
            ):
                raise EventError(
                    ErrorCode.BAD_RESULT,
                    f"{twenties!r} 20s do not fit in a round total of {total}",
                )


@dataclass(frozen=True, slots=True)
class GameScore:
    """A game, round by round, or a forfeit (a no-show, an abort) with no rounds.

    Attributes:
        rounds: the rounds played, in order.
        forfeit: the side that lost by forfeit (no-show, resigned before a
            round was played, aborted), or None.
    """

    rounds: tuple[RoundScore, ...] = ()
    forfeit: int | None = None

    @property
    def totals(self) -> tuple[int, int]:
        """Each side's round totals summed: the points the differential counts."""
        return (sum(r.totals[0] for r in self.rounds), sum(r.totals[1] for r in self.rounds))

    @property
    def twenties(self) -> tuple[int, int]:
        """Each side's 20s."""
        return (sum(r.twenties[0] for r in self.rounds), sum(r.twenties[1] for r in self.rounds))

    def game_points(self, rules: Rules) -> tuple[int, int]:
        """Each side's game score under the rules' scoring (R2, R6)."""
        return _game_points(self.rounds, rules.scoring)

    def outcome(self, rules: Rules) -> GameOutcome | None:
        """Who won (a forfeit loses), or None while the game is not over by the rules."""
        if self.forfeit is not None:
            return GameOutcome(winner=1 - self.forfeit)
        return game_outcome(rules, self.game_points(rules), len(self.rounds))


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A pairing's result: its games (one, or up to best-of-N).

    The winner of a best-of-N match is the first side to win more than half
    the games; a drawn game counts for neither.
    """

    games: tuple[GameScore, ...]

    def winner(self, rules: Rules, best_of: int = 1) -> int | None:
        """The side that won the match, or None for a drawn single game.

        Raises:
            EventError: ``bad_result`` when a game is not finished by the
                rules or the match is not decided (best of N).
        """
        wins = [0, 0]
        for number, game in enumerate(self.games, 1):
            outcome = game.outcome(rules)
            if outcome is None:
                raise EventError(ErrorCode.BAD_RESULT, f"game {number} is not finished")
            if outcome.winner is not None:
                wins[outcome.winner] += 1
        need = best_of // 2 + 1
        if best_of == 1:
            if len(self.games) != 1:
                raise EventError(ErrorCode.BAD_RESULT, "a single-game match has one game")
            return None if wins == [0, 0] else (0 if wins[0] else 1)
        for side in (0, 1):
            if wins[side] >= need:
                return side
        raise EventError(
            ErrorCode.BAD_RESULT,
            f"best of {best_of}: a side needs {need} game wins, the games give {wins[0]}–{wins[1]}",
        )


@functools.lru_cache(maxsize=1 << 16)
def _game_points(rounds: tuple[RoundScore, ...], scoring: Scoring) -> tuple[int, int]:
    """A game's score, worked out once per game: results never change, and every view,
    standing and pairing asks again (values are frozen, so they are their own key)."""
    scores = [0, 0]
    for played in rounds:
        points = round_points(played.totals, scoring)
        scores[0] += points[0]
        scores[1] += points[1]
    return (scores[0], scores[1])


def entrants_by_id(entrants: Sequence[Entrant]) -> dict[str, Entrant]:
    """Entrants under their ids."""
    return {e.id: e for e in entrants}
