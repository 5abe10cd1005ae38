"""CPU-vs-CPU matches and the open-20 calibration: the figures that measure the levels.

Every game gets its own random generator, spawned from the match seed, so a
match gives the same results whether it runs in one process or several.
Player A takes side 0 (south) in even games and side 1 in odd games, so
neither gets the first shot more often.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from crokinole.ai.players import CpuPlayer, Level
from crokinole.ai.roster import make_player
from crokinole.board import Seat
from crokinole.physics import DiscStatus, simulate_batch
from crokinole.rules import Game, Phase, Rules


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game of a match, from player A's point of view.

    Attributes:
        result: 1 win, 0.5 draw, 0 loss for A.
        round_totals_a: A's side total in each round.
        round_totals_b: B's side total in each round.
        times_a: seconds A took for each decision.
        times_b: seconds B took for each decision.
    """

    result: float
    round_totals_a: tuple[int, ...]
    round_totals_b: tuple[int, ...]
    times_a: tuple[float, ...]
    times_b: tuple[float, ...]


def play_game(
    a: CpuPlayer, b: CpuPlayer, rules: Rules, rng: np.random.Generator, a_side: int
) -> GameRecord:
    """Play one game, A on side ``a_side``; B takes every other side."""
    game = Game(rules)
    times: dict[int, list[float]] = {0: [], 1: []}
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.current_seat
        assert seat is not None
        is_a = game.side_of(seat) == a_side
        player = a if is_a else b
        start = time.perf_counter()
        shot = player.choose_shot(game, rng)
        times[0 if is_a else 1].append(time.perf_counter() - start)
        game.shoot(seat, shot)
    outcome = game.outcome
    assert outcome is not None
    if outcome.winner is None:
        result = 0.5 if a_side in outcome.drawn else 0.0
    else:
        result = 1.0 if outcome.winner == a_side else 0.0
    totals = [r.totals for r in game.history]
    others = [max(t for s, t in enumerate(row) if s != a_side) for row in totals]
    return GameRecord(
        result,
        tuple(row[a_side] for row in totals),
        tuple(others),
        tuple(times[0]),
        tuple(times[1]),
    )


def _play_one(args: tuple[str, str, Rules, np.random.SeedSequence, int]) -> GameRecord:
    a, b, rules, seed, index = args
    return play_game(
        make_player(a), make_player(b), rules, np.random.default_rng(seed), a_side=index % 2
    )


def play_match(
    a: Level | str,
    b: Level | str,
    *,
    games: int,
    seed: int,
    rules: Rules | None = None,
    jobs: int = 1,
) -> Iterator[GameRecord]:
    """Play ``games`` games of A against B, yielding each as it finishes (in order)."""
    rules = rules or Rules()
    a_name, b_name = Level(a).value, Level(b).value
    seeds = np.random.SeedSequence(seed).spawn(games)
    work = [(a_name, b_name, rules, seeds[i], i) for i in range(games)]
    if jobs <= 1:
        for item in work:
            yield _play_one(item)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_play_one, work)


@dataclass(frozen=True)
class MatchSummary:
    """Statistics of a finished match, from player A's point of view.

    Attributes:
        games: games played.
        wins: A's wins.
        draws: draws.
        losses: A's losses.
        mean_round_a: A's mean round total.
        mean_round_b: B's mean round total.
        times_a: all of A's decision times (seconds).
        times_b: all of B's decision times (seconds).
    """

    games: int
    wins: int
    draws: int
    losses: int
    mean_round_a: float
    mean_round_b: float
    times_a: tuple[float, ...] = field(repr=False)
    times_b: tuple[float, ...] = field(repr=False)

    @classmethod
    def of(cls, records: list[GameRecord]) -> MatchSummary:
        """Summarise finished games."""
        rounds_a = [t for r in records for t in r.round_totals_a]
        rounds_b = [t for r in records for t in r.round_totals_b]
        return cls(
            games=len(records),
            wins=sum(1 for r in records if r.result == 1.0),
            draws=sum(1 for r in records if r.result == 0.5),
            losses=sum(1 for r in records if r.result == 0.0),
            mean_round_a=statistics.fmean(rounds_a) if rounds_a else 0.0,
            mean_round_b=statistics.fmean(rounds_b) if rounds_b else 0.0,
            times_a=tuple(t for r in records for t in r.times_a),
            times_b=tuple(t for r in records for t in r.times_b),
        )

    @property
    def decided(self) -> int:
        """Games that were not drawn."""
        return self.wins + self.losses

    def win_share(self) -> tuple[float, float, float]:
        """A's share of decided games with its 95% Wilson interval (share, low, high)."""
        return wilson(self.wins, self.decided)

    def score_share(self) -> tuple[float, float, float]:
        """A's points share (win 1, draw ½) with a 95% Wilson interval."""
        return wilson_fraction(self.wins + 0.5 * self.draws, self.games)


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float, float]:
    """Proportion and Wilson score interval.

    >>> [round(x, 3) for x in wilson(150, 200)]
    [0.75, 0.686, 0.805]
    """
    return wilson_fraction(float(successes), trials, z)


def wilson_fraction(successes: float, trials: int, z: float = 1.96) -> tuple[float, float, float]:
    """Wilson interval for a possibly fractional count of successes."""
    if trials == 0:
        return (math.nan, 0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (p, max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: tuple[float, ...], q: float) -> float:
    """The q-th percentile (0–100) of ``values``; nan when empty."""
    return float(np.percentile(values, q)) if values else math.nan


@dataclass(frozen=True, slots=True)
class OpenTwentyFigure:
    """How often a level makes the open 20 on an empty board, as it really plays.

    Attributes:
        level: the CPU level.
        tries: shots played, each a fresh decision (``choose_shot``).
        made: shots that dropped into the hole.
        middle: shots played from within 1° of the middle of the quarter.
    """

    level: Level
    tries: int
    made: int
    middle: int

    @property
    def rate(self) -> float:
        """Share of shots made."""
        return self.made / self.tries if self.tries else math.nan

    def interval(self) -> tuple[float, float, float]:
        """The rate with its 95% Wilson interval (rate, low, high)."""
        return wilson(self.made, self.tries)


def open_twenty(
    level: Level | str,
    tries: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> OpenTwentyFigure:
    """Open-20 rate of a level through :meth:`~crokinole.ai.players.CpuPlayer.choose_shot`.

    Every try is the player's real decision on the empty board of a new
    game (south to shoot), noise included, exactly as in play: a level whose
    choice varies from one decision to the next is measured with that
    variation.  The shots are then simulated in batches.

    >>> figure = open_twenty("normal", tries=200, seed=1)
    >>> figure.tries, 0.3 < figure.rate < 0.6
    (200, True)
    """
    player = make_player(level)
    rng = np.random.default_rng(seed)
    game = Game(Rules())
    board = game.board
    made = middle = done = 0
    chunk = 250
    while done < tries:
        n = min(chunk, tries - done)
        shots = [player.choose_shot(game, rng) for _ in range(n)]
        positions = np.array([s.position for s in shots])
        launches = board.launches(
            Seat.SOUTH,
            positions,
            np.array([s.direction for s in shots]),
            np.array([s.power for s in shots]),
        )
        statuses = simulate_batch(board, [], launches).statuses
        made += int((statuses[:, 0] == DiscStatus.IN_HOLE).sum())
        middle += int((np.abs(positions) <= 1.0).sum())
        done += n
        if progress is not None:
            progress(n)
    return OpenTwentyFigure(Level(level), tries, made, middle)
