"""Builders for the standings and export tests: results worked by hand, generated events."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from crokinole.events.model import (
    DEFAULT_TIE_BREAKS,
    Entrant,
    EntrantStatus,
    EventSettings,
    Format,
    GameScore,
    MatchResult,
    Pairing,
    Person,
    Points,
    RoundScore,
    Teams,
    TieBreak,
)
from crokinole.rules.options import Rules

Match = tuple[Pairing, MatchResult | None]


def game(a: int, b: int, ta: int = 0, tb: int = 0) -> GameScore:
    """A four-round game decided by its first round (a, b) with 20s (ta, tb); rounds 2–4 are
    10–10 ties.  R6: the first round's winner gets 2 game points, each tie 1 each, so the
    game is 5–3 to the first round's winner (4–4, a draw, when a == b); the differential is
    a − b; each side's round totals are its first-round total + 30."""
    return GameScore((RoundScore((a, b), (ta, tb)),) + (RoundScore((10, 10)),) * 3)


def one(a: int, b: int, ta: int = 0, tb: int = 0) -> MatchResult:
    """A single-game match (see :func:`game`)."""
    return MatchResult((game(a, b, ta, tb),))


def forfeit(side: int, *rounds: RoundScore) -> MatchResult:
    """A single-game match lost by forfeit by ``side``."""
    return MatchResult((GameScore(tuple(rounds), forfeit=side),))


def pair(round_: int, table: int, a: str, b: str | None, **kw: object) -> Pairing:
    """A singles pairing (b None: a bye)."""
    return Pairing(round_, table, ((a,), (b,) if b else ()), **kw)  # type: ignore[arg-type]


def people(names: str, ratings: Sequence[float] = ()) -> list[Entrant]:
    """Entrants with ids equal to their one-letter names."""
    return [
        Entrant(n, n, (Person(n),), rating=ratings[i] if i < len(ratings) else 0.0)
        for i, n in enumerate(names)
    ]


def swiss(tie_breaks: Sequence[TieBreak] | None = None, **kw: object) -> EventSettings:
    """Singles Swiss settings (tournament rules: a level game is a draw)."""
    if tie_breaks is not None:
        kw["tie_breaks"] = tuple(tie_breaks)
    return EventSettings(name="Club night", format=Format.SWISS, rounds=5, **kw)  # type: ignore[arg-type]


def doubles(tie_breaks: Sequence[TieBreak] | None = None) -> EventSettings:
    """Rotating-partner doubles settings (St. Jacobs: a Swiss, doubles games)."""
    kw: dict[str, object] = {"tie_breaks": tuple(tie_breaks)} if tie_breaks else {}
    return EventSettings(
        name="St. Jacobs",
        format=Format.SWISS,
        rounds=2,
        teams=Teams.ROTATING,
        rules=Rules.doubles(),
        **kw,  # type: ignore[arg-type]
    )


# --- generated events -----------------------------------------------------------------

_TOTALS = st.sampled_from([0, 5, 10, 15, 20, 25, 30, 40, 60])


@st.composite
def round_scores(draw: st.DrawFn) -> RoundScore:
    totals = (draw(_TOTALS), draw(_TOTALS))
    twenties = tuple(draw(st.integers(0, t // 20)) for t in totals)
    return RoundScore(totals, twenties)  # type: ignore[arg-type]


@st.composite
def games(draw: st.DrawFn, winner: int | None = None) -> GameScore:
    """A finished game under tournament rules (four rounds, a tie is a draw); with
    ``winner`` given, one that side wins."""
    if draw(st.integers(0, 9)) == 0:
        loser = draw(st.integers(0, 1)) if winner is None else 1 - winner
        rounds = tuple(draw(st.lists(round_scores(), max_size=2)))
        return GameScore(rounds, forfeit=loser)
    rounds = [draw(round_scores()) for _ in range(4)]
    played = GameScore(tuple(rounds))
    if winner is None:
        return played
    outcome = played.outcome(Rules())
    assert outcome is not None
    if outcome.winner == 1 - winner:  # swapping the sides swaps the winner
        rounds = [RoundScore(r.totals[::-1], r.twenties[::-1]) for r in rounds]
    elif outcome.winner is None:  # a round the winner did not win becomes theirs: ≥ 2 ahead
        i = next(i for i, r in enumerate(rounds) if r.totals[winner] <= r.totals[1 - winner])
        totals = list(rounds[i].totals)
        totals[winner] = totals[1 - winner] + 5
        twenties = rounds[i].twenties
        rounds[i] = RoundScore((totals[0], totals[1]), twenties)
    return GameScore(tuple(rounds))


@st.composite
def results(draw: st.DrawFn, best_of: int) -> MatchResult:
    if best_of == 1:
        return MatchResult((draw(games()),))
    need = best_of // 2 + 1
    wins = [0, 0]
    played: list[GameScore] = []
    while max(wins) < need:
        side = draw(st.integers(0, 1))
        wins[side] += 1
        played.append(draw(games(winner=side)))
    return MatchResult(tuple(played))


@st.composite
def events(
    draw: st.DrawFn, max_players: int = 8
) -> tuple[EventSettings, list[Entrant], list[Match]]:
    """A Swiss-like event: singles, rotating doubles or fixed teams, random pairings (rematches
    allowed), byes for those left over, best of 1 or 3, random tie-break orders and
    points; ratings from a few values, so that ties happen."""
    teams = draw(st.sampled_from(list(Teams)))
    rotating = teams is Teams.ROTATING
    orders = st.permutations([t for t in TieBreak if t is not TieBreak.BRACKET]).flatmap(
        lambda order: st.integers(1, len(order)).map(lambda n: tuple(order[:n]))
    )
    settings = EventSettings(
        name=draw(st.sampled_from(["Club night", "=Cup", 'Sa,int\'s "Open"'])),
        format=Format.SWISS,
        rounds=3,
        teams=teams,
        rules=Rules() if teams is Teams.SINGLES else Rules.doubles(),
        tie_breaks=draw(st.one_of(st.just(DEFAULT_TIE_BREAKS), orders)),
        points=draw(st.sampled_from([Points(), Points(3, 1, 0), Points(1, 0, 0)])),
    )
    count = draw(st.integers(1, max_players))
    names = ["Ann", "=Bo", "-Cy", "Dee, Jr.", 'E"d', "@Fay", "Gus\nH", "Hal"]
    entrants = [
        Entrant(
            f"e{i + 1}",
            names[i % len(names)],
            (Person(names[i % len(names)]),)
            + ((Person(names[(i + 1) % len(names)]),) if teams is Teams.FIXED else ()),
            rating=draw(st.sampled_from([0.0, 1500.0, 1520.5])),
            status=draw(st.sampled_from(list(EntrantStatus))),
        )
        for i in range(count)
    ]
    ids = [e.id for e in entrants]
    matches: list[Match] = []
    size = 2 if rotating else 1
    for number in range(1, draw(st.integers(0, 3)) + 1):
        order = draw(st.permutations(ids))
        table = 1
        while len(order) >= 2 * size:
            sides = (tuple(order[:size]), tuple(order[size : 2 * size]))
            order = order[2 * size :]
            best_of = 1 if rotating else draw(st.sampled_from([1, 1, 3]))
            pairing = Pairing(number, table, sides, draw(st.integers(0, 1)), "Round", best_of)
            matches.append((pairing, draw(results(best_of))))
            table += 1
        for left in order:
            matches.append((Pairing(number, table, ((left,), ())), None))
            table += 1
    return settings, entrants, matches
