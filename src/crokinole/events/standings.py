"""Standings: each entrant's tally over the results, and the ranking by tie-breaks.

This module owns how results become a table: match points, 20s, points
for and against, game points, opponents and partners, first shots, and the
order of the event's tie-breaks (:class:`~crokinole.events.model.TieBreak`).

How a result counts (docs/events.md, *Standings*):

- Match points from ``settings.points``: a win, a draw, a loss; a **bye**
  counts as a win (``Points.bye``) with no 20s, no points and no game
  points, so a differential of 0.  A bye is not a match played: ``played``,
  ``wins``, ``draws`` and ``losses`` leave it out and ``byes`` counts it;
  the WINS tie-break counts it as a win.
- The match's winner is ``MatchResult.winner(settings.rules, pairing.best_of)``.
- 20s, round totals (points for and against) and game points (R2, R6) are
  summed over the match's games; a **forfeit** game counts 0–0 for all
  three, whatever rounds it had, but is won and lost like any game.
- Rotating-partner doubles: a side is two players; each player is credited
  the side's result ("each player scored alone"); a player's opponents are
  both players of the other side, their partner the other of their own.
- First shots: ``pairing.first`` shot first in game 1 of a match; in a best
  of 3 (or 5) the first shooter then alternates game by game, as R2 has it
  alternate round by round in singles (game 2: the other side, game 3:
  ``first`` again).  ``firsts`` counts the games shot first minus those shot
  second, over the games with a round played (a forfeit before any round
  was shot counts neither way); ``last_first`` is the last such game's.

The ranking applies the tie-breaks in the settings' order.  Every one is
"more is better".  The entrants level on all the tie-breaks before one are
a *group*; the tie-break splits the group by its value, and each part still
level goes on to the next tie-break.  **Head-to-head** is worked out inside
each group when its turn comes: the match points each member earned in the
matches in which it faced another member of the group (in doubles: at
least one of its opponents is in the group); if that separates some of the
group, each part still level goes on to the next tie-breaks (head-to-head
is not worked out again inside the part).  An entrant already alone when
head-to-head's turn comes has a head-to-head value of 0.

Entrants level on every tie-break share a rank (1, 2, 2, 4), listed by
rating then id.  ``decided_by`` is the tie-break that put the entrant apart
from the entrants it was still level with (the split that left it alone),
or None when it is level on all with another (or alone in the event).
Dropped and paused entrants stay in the standings and their games count.

>>> from crokinole.events.model import (EventSettings, Entrant, Format, GameScore,
...     MatchResult, Pairing, Person, RoundScore)
>>> settings = EventSettings(name="Club night", format=Format.SWISS, rounds=2)
>>> people = [Entrant(f"e{i}", name, (Person(name),)) for i, name in enumerate("ABC", 1)]
>>> def game(a: int, b: int, twenties: tuple[int, int] = (0, 0)) -> MatchResult:
...     first = RoundScore((a, b), twenties)
...     return MatchResult((GameScore((first,) + (RoundScore((10, 10)),) * 3),))
>>> matches = [
...     (Pairing(1, 1, (("e1",), ("e2",))), game(40, 20, (2, 0))),   # A beats B
...     (Pairing(1, 2, (("e3",), ())), None),                         # C has a bye
...     (Pairing(2, 1, (("e3",), ("e1",))), game(30, 25, (1, 1))),  # C beats A
...     (Pairing(2, 2, (("e2",), ())), None),                         # B has a bye
... ]
>>> for s in standings(settings, people, matches):
...     print(s.rank, s.name, dict((t.value, v) for t, v in s.values.items()), s.decided_by)
1 C {'match_points': 4, 'twenties': 1, 'head_to_head': 0, 'differential': 5} match_points
2 A {'match_points': 2, 'twenties': 3, 'head_to_head': 0, 'differential': 15} twenties
3 B {'match_points': 2, 'twenties': 0, 'head_to_head': 0, 'differential': -20} twenties
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from crokinole.errors import ErrorCode, EventError
from crokinole.events.model import (
    Entrant,
    EventSettings,
    MatchResult,
    Pairing,
    Teams,
    TieBreak,
)

__all__ = ["Standing", "Tally", "standings", "tallies"]


@dataclass(frozen=True, slots=True)
class Tally:
    """One entrant's record over the matches given.

    Attributes:
        id: the entrant's id.
        played: matches played (byes left out), forfeits included.
        wins: matches won (byes left out).
        draws: matches drawn.
        losses: matches lost.
        byes: byes had.
        match_points: ``settings.points`` per result, a bye as a win.
        game_points: game points earned (R2, R6), forfeit games left out.
        twenties: 20s scored, forfeit games left out.
        points_for: round totals scored, forfeit games left out.
        points_against: round totals conceded, forfeit games left out.
        opponents: one per match in order (doubles: both opponents).
        partners: rotating doubles: the partner of each match in order.
        firsts: games shot first minus games shot second.
        last_first: whether the entrant shot first in its last game shot
            (None before any).
    """

    id: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    match_points: float = 0
    game_points: int = 0
    twenties: int = 0
    points_for: int = 0
    points_against: int = 0
    opponents: tuple[str, ...] = ()
    partners: tuple[str, ...] = ()
    firsts: int = 0
    last_first: bool | None = None

    @property
    def differential(self) -> int:
        """Round totals scored minus conceded."""
        return self.points_for - self.points_against


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings.

    Attributes:
        rank: from 1; entrants level on every tie-break share it (1, 2, 2, 4).
        id: the entrant's id.
        name: the entrant's name.
        tally: the entrant's record.
        values: every tie-break of the settings, in their order, with its value.
        decided_by: the tie-break that put the entrant apart from those it
            was still level with, or None when level on all with another.
    """

    rank: int
    id: str
    name: str
    tally: Tally
    values: Mapping[TieBreak, float] = field(default_factory=dict)
    decided_by: TieBreak | None = None


@dataclass(frozen=True, slots=True)
class _Credit:
    """What one match gives one entrant."""

    outcome: str  # "win", "draw", "loss" or "bye"
    match_points: int
    game_points: int = 0
    twenties: int = 0
    points_for: int = 0
    points_against: int = 0
    opponents: tuple[str, ...] = ()
    partner: str | None = None
    firsts: int = 0
    last_first: bool | None = None


def _where(pairing: Pairing) -> str:
    return f"round {pairing.round}, table {pairing.table}"


def _bad(pairing: Pairing, message: str, code: ErrorCode = ErrorCode.BAD_EVENT) -> EventError:
    return EventError(code, f"{_where(pairing)}: {message}")


def _check_pairing(settings: EventSettings, pairing: Pairing) -> None:
    """The pairing's shape fits the event (sides, first, best of)."""
    if not isinstance(pairing, Pairing):
        raise EventError(ErrorCode.BAD_EVENT, f"a match is a pairing, not {pairing!r}")
    if len(pairing.sides) != 2:
        raise _bad(pairing, "a pairing has two sides")
    size = 2 if settings.teams is Teams.ROTATING else 1
    ids = pairing.entrants
    if any(not isinstance(i, str) or not i for i in ids):
        raise _bad(pairing, "an entrant id is a non-empty text")
    if len(set(ids)) != len(ids):
        raise _bad(pairing, "an entrant appears twice in the pairing")
    if pairing.bye:
        if not pairing.sides[0]:
            raise _bad(pairing, "a bye has its entrant on the first side")
    elif len(pairing.sides[0]) != size or len(pairing.sides[1]) != size:
        raise _bad(pairing, f"each side of a match here has {size} entrant(s)")
    if pairing.first not in (0, 1):
        raise _bad(pairing, f"the side shooting first is 0 or 1, not {pairing.first!r}")
    if pairing.best_of not in (1, 3, 5):
        raise _bad(pairing, f"a match is best of 1, 3 or 5 games, not {pairing.best_of!r}")


def _credits(
    settings: EventSettings, pairing: Pairing, result: MatchResult | None
) -> dict[str, _Credit]:
    """Each entrant of the pairing's share of its result (validated)."""
    _check_pairing(settings, pairing)
    points = settings.points
    if pairing.bye:
        if result is not None:
            raise _bad(pairing, "a bye has no result", ErrorCode.BAD_RESULT)
        return {i: _Credit("bye", points.bye) for i in pairing.sides[0]}
    winner = _winner(settings, pairing, result)
    assert result is not None
    game_points = [0, 0]
    twenties = [0, 0]
    totals = [0, 0]
    firsts = [0, 0]
    last_first: list[bool | None] = [None, None]
    for number, game in enumerate(result.games):
        if game.forfeit is None:
            for side, value in enumerate(game.game_points(settings.rules)):
                game_points[side] += value
                twenties[side] += game.twenties[side]
                totals[side] += game.totals[side]
        if game.rounds:
            shooter = pairing.first if number % 2 == 0 else 1 - pairing.first
            firsts[shooter] += 1
            firsts[1 - shooter] -= 1
            last_first = [shooter == 0, shooter == 1]
    credits: dict[str, _Credit] = {}
    for side in (0, 1):
        if winner is None:
            verdict, earned = "draw", points.draw
        elif winner == side:
            verdict, earned = "win", points.win
        else:
            verdict, earned = "loss", points.loss
        own = pairing.sides[side]
        for entrant in own:
            partners = [p for p in own if p != entrant]
            credits[entrant] = _Credit(
                verdict,
                earned,
                game_points[side],
                twenties[side],
                totals[side],
                totals[1 - side],
                pairing.sides[1 - side],
                partners[0] if partners else None,
                firsts[side],
                last_first[side],
            )
    return credits


def _winner(settings: EventSettings, pairing: Pairing, result: MatchResult | None) -> int | None:
    """The match's winner (None: drawn), once the result is known to be whole."""
    if not isinstance(result, MatchResult):
        raise _bad(pairing, "the match has no result", ErrorCode.BAD_RESULT)
    if not result.games:
        raise _bad(pairing, "a match result has at least one game", ErrorCode.BAD_RESULT)
    try:
        winner = result.winner(settings.rules, pairing.best_of)
    except EventError as exc:
        raise _bad(pairing, exc.message, exc.code) from None
    if pairing.best_of == 1:
        return winner  # winner() has checked it is one game
    # No game after the match was decided (best of N).
    need = pairing.best_of // 2 + 1
    wins = [0, 0]
    for number, game in enumerate(result.games[:-1], 1):
        outcome = game.outcome(settings.rules)
        if outcome is not None and outcome.winner is not None:
            wins[outcome.winner] += 1
        if max(wins) >= need:
            raise _bad(
                pairing,
                f"the match was won after game {number}: it has {len(result.games)} games",
                ErrorCode.BAD_RESULT,
            )
    return winner


def tallies(
    settings: EventSettings,
    matches: Sequence[tuple[Pairing, MatchResult | None]],
    ids: Iterable[str] = (),
) -> dict[str, Tally]:
    """Each entrant's tally over the matches (a bye's result is None).

    Args:
        settings: the event's settings (points, rules, teams).
        matches: the played matches and the byes; a pairing not yet played
            is left out by the caller.
        ids: entrants to tally even with no match (an empty tally).

    Raises:
        EventError: ``bad_event`` for a pairing that does not fit the event,
            ``bad_result`` for a result that is missing, unfinished or
            undecided, each naming the round and table.

    >>> from crokinole.events.model import EventSettings, Format, Pairing
    >>> settings = EventSettings(name="Club night", format=Format.SWISS, rounds=1)
    >>> tallies(settings, [(Pairing(1, 1, (("e1",), ())), None)])["e1"].match_points
    2
    """
    return _tallies(_match_credits(settings, matches), ids)


def _match_credits(
    settings: EventSettings, matches: Sequence[tuple[Pairing, MatchResult | None]]
) -> list[dict[str, _Credit]]:
    """Each match's credits, in order (validated)."""
    credits = []
    for item in matches:
        if not isinstance(item, tuple) or len(item) != 2:
            raise EventError(ErrorCode.BAD_EVENT, "a match is a (pairing, result) pair")
        pairing, result = item
        credits.append(_credits(settings, pairing, result))
    return credits


def _tallies(credits: list[dict[str, _Credit]], ids: Iterable[str]) -> dict[str, Tally]:
    records: dict[str, _Record] = {entrant: _Record() for entrant in ids}
    for match in credits:
        for entrant, credit in match.items():
            records.setdefault(entrant, _Record()).add(credit)
    return {entrant: record.tally(entrant) for entrant, record in records.items()}


@dataclass(slots=True)
class _Record:
    """A tally being summed (private, mutable)."""

    outcomes: dict[str, int] = field(
        default_factory=lambda: {"win": 0, "draw": 0, "loss": 0, "bye": 0}
    )
    match_points: int = 0
    game_points: int = 0
    twenties: int = 0
    points_for: int = 0
    points_against: int = 0
    opponents: list[str] = field(default_factory=list)
    partners: list[str] = field(default_factory=list)
    firsts: int = 0
    last_first: bool | None = None

    def add(self, credit: _Credit) -> None:
        self.outcomes[credit.outcome] += 1
        self.match_points += credit.match_points
        self.game_points += credit.game_points
        self.twenties += credit.twenties
        self.points_for += credit.points_for
        self.points_against += credit.points_against
        self.opponents.extend(credit.opponents)
        if credit.partner is not None:
            self.partners.append(credit.partner)
        self.firsts += credit.firsts
        if credit.last_first is not None:
            self.last_first = credit.last_first

    def tally(self, entrant: str) -> Tally:
        wins, draws, losses = (self.outcomes[o] for o in ("win", "draw", "loss"))
        return Tally(
            id=entrant,
            played=wins + draws + losses,
            wins=wins,
            draws=draws,
            losses=losses,
            byes=self.outcomes["bye"],
            match_points=self.match_points,
            game_points=self.game_points,
            twenties=self.twenties,
            points_for=self.points_for,
            points_against=self.points_against,
            opponents=tuple(self.opponents),
            partners=tuple(self.partners),
            firsts=self.firsts,
            last_first=self.last_first,
        )


def _faced(credits: list[dict[str, _Credit]]) -> dict[str, list[tuple[frozenset[str], int]]]:
    """For each entrant, each match's opponents and the match points it earned there."""
    faced: dict[str, list[tuple[frozenset[str], int]]] = {}
    for match in credits:
        for entrant, credit in match.items():
            if credit.outcome != "bye":
                faced.setdefault(entrant, []).append(
                    (frozenset(credit.opponents), credit.match_points)
                )
    return faced


def standings(
    settings: EventSettings,
    entrants: Sequence[Entrant],
    matches: Sequence[tuple[Pairing, MatchResult | None]],
    *,
    reached: Mapping[str, float] | None = None,
) -> tuple[Standing, ...]:
    """The entrants ranked by the settings' tie-breaks (see the module's text).

    Args:
        settings: the event's settings (tie-breaks, points, rules, teams).
        entrants: every entrant, dropped ones included.
        matches: the played matches and the byes (a bye's result is None).
        reached: for a knockout, the round each entrant reached in the
            bracket (0 for those not in it): then :attr:`TieBreak.BRACKET`
            ranks first, before the settings' tie-breaks.

    Raises:
        EventError: ``bad_event`` for entrants with the same id or a pairing
            that does not fit; ``unknown_entrant`` for a match naming an
            entrant not given; ``bad_result`` for a result that cannot count.
    """
    by_id: dict[str, Entrant] = {}
    for entrant in entrants:
        if not isinstance(entrant, Entrant):
            raise EventError(ErrorCode.BAD_EVENT, f"an entrant is an Entrant, not {entrant!r}")
        if entrant.id in by_id:
            raise EventError(ErrorCode.BAD_EVENT, f"two entrants have the id {entrant.id!r}")
        by_id[entrant.id] = entrant
    credits = _match_credits(settings, matches)
    table = _tallies(credits, by_id)
    for pairing, _ in matches:
        for entrant_id in pairing.entrants:
            if entrant_id not in by_id:
                raise EventError(
                    ErrorCode.UNKNOWN_ENTRANT,
                    f"{_where(pairing)}: {entrant_id!r} is not an entrant of the event",
                )
    order = settings.tie_breaks
    if reached is not None:
        order = (TieBreak.BRACKET, *order)
    faced = _faced(credits) if TieBreak.HEAD_TO_HEAD in order else {}
    values: dict[str, dict[TieBreak, float]] = {}
    for entrant_id, tally in table.items():
        values[entrant_id] = {
            tie_break: float((reached or {}).get(entrant_id, 0))
            if tie_break is TieBreak.BRACKET
            else _value(tie_break, tally, table, by_id[entrant_id])
            for tie_break in order
        }
    decided: dict[str, TieBreak] = {}

    def split(group: list[str], step: int) -> list[list[str]]:
        """The group in order, as parts level on every tie-break from ``step`` on."""
        if len(group) == 1 or step == len(order):
            return [group]
        tie_break = order[step]
        if tie_break is TieBreak.HEAD_TO_HEAD:
            members = frozenset(group)
            for entrant_id in group:
                values[entrant_id][tie_break] = sum(
                    points for opponents, points in faced.get(entrant_id, []) if opponents & members
                )
        levels = sorted({values[e][tie_break] for e in group}, reverse=True)
        parts = [[e for e in group if values[e][tie_break] == level] for level in levels]
        ordered: list[list[str]] = []
        for part in parts:
            if len(part) == 1 and len(parts) > 1:
                decided[part[0]] = tie_break
            ordered.extend(split(part, step + 1))
        return ordered

    everyone = sorted(by_id, key=lambda e: (-by_id[e].rating, e))
    result: list[Standing] = []
    for group in split(everyone, 0):
        rank = len(result) + 1
        for entrant_id in group:
            entrant = by_id[entrant_id]
            result.append(
                Standing(
                    rank=rank,
                    id=entrant_id,
                    name=entrant.name,
                    tally=table[entrant_id],
                    values=values[entrant_id],
                    decided_by=decided.get(entrant_id) if len(group) == 1 else None,
                )
            )
    return tuple(result)


def _value(
    tie_break: TieBreak, tally: Tally, table: Mapping[str, Tally], entrant: Entrant
) -> float:
    """A tie-break's value for an entrant (head-to-head: 0 until its group is known)."""
    if tie_break is TieBreak.MATCH_POINTS:
        return tally.match_points
    if tie_break is TieBreak.TWENTIES:
        return tally.twenties
    if tie_break is TieBreak.DIFFERENTIAL:
        return tally.differential
    if tie_break is TieBreak.WINS:
        return tally.wins + tally.byes
    if tie_break is TieBreak.GAME_POINTS:
        return tally.game_points
    if tie_break is TieBreak.BUCHHOLZ:
        return sum(table[o].match_points for o in tally.opponents if o in table)
    if tie_break is TieBreak.RATING:
        return entrant.rating
    return 0
