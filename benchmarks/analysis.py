"""Analysis benchmark: hint time, heat-map time and review time, each against its target.

Run it from a checkout: ``python benchmarks/analysis.py [--positions N] [--seeds N] [--quick]``
(or ``crokinole bench analysis``); ``--help`` lists the options.  One core:
nothing here runs in parallel.

* **Hints** (target p95 ≤ 0.3 s): :func:`crokinole.analysis.hints.hints`
  (three shots, the full budget, the human hand) on crowded positions —
  practice positions (:mod:`crokinole.analysis.practice`) with 12 to 16
  discs of both sides scattered at random over the board, drawn from
  several seeds.  The p50 and p95 of the time per hint are printed.
* **Heat map** (target ≤ 1 s): :func:`crokinole.analysis.heatmap.heat_map`,
  64 × 64 cells × 32 noise draws, on the open board from the middle of the
  quarter and on the first crowded positions from the free placement
  nearest the middle; the median of several maps of each.
* **Review** (target ≤ 5 s): :func:`crokinole.analysis.review.review` of a
  64-shot game (four rounds of tournament singles, Hard against Hard,
  played with their noise from the seed), under the human hand.

Every figure is measured after one untimed warm-up call (numba's compile
and caches).  ``--quick`` measures a few calls of each at reduced sizes for
a smoke test: its figures are not comparable with the targets.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crokinole.ai import make_player
from crokinole.analysis.heatmap import heat_map
from crokinole.analysis.hints import hints
from crokinole.analysis.practice import PracticePosition, practice_game
from crokinole.analysis.review import review
from crokinole.analysis.value import Accuracy
from crokinole.board import TOURNAMENT_BOARD
from crokinole.cli.main import count_argument
from crokinole.errors import AnalysisError
from crokinole.rules import Game, Phase, Rules

#: The issue's targets, in seconds.
HINT_P95_TARGET = 0.3
HEAT_MAP_TARGET = 1.0
REVIEW_TARGET = 5.0
#: Discs on a crowded board (both sides together).
CROWDED = (12, 16)


def crowded_position(seed: int) -> Game:
    """A practice game with 12 to 16 discs of both sides scattered over the board, south to shoot.

    Discs are drawn uniformly over the area inside the shooting line and kept
    where a disc may rest (R5: not over the hole, on no line, overlapping
    nothing), alternating sides, until the count drawn for ``seed`` is reached.
    """
    rng = np.random.default_rng(seed)
    wanted = int(rng.integers(CROWDED[0], CROWDED[1] + 1))
    reach = TOURNAMENT_BOARD.shooting_line_radius - TOURNAMENT_BOARD.disc_radius
    discs: list[tuple[str, float, float]] = []
    while len(discs) < wanted:
        radius = reach * float(np.sqrt(rng.random()))
        angle = 2.0 * np.pi * float(rng.random())
        disc = ("sn"[len(discs) % 2], radius * float(np.cos(angle)), radius * float(np.sin(angle)))
        try:
            PracticePosition((*discs, disc))
        except AnalysisError:
            continue
        discs.append(disc)
    return practice_game(PracticePosition(tuple(discs)))


def free_placement(game: Game) -> float:
    """A placement the shooter may use (R3): the middle of the quarter, or the nearest free spot."""
    seat = game.current_seat
    assert seat is not None
    for position in (0.0, 5.0, -5.0, 10.0, -10.0, 15.0, -15.0, 20.0, -20.0, 25.0, -25.0):
        if game.placement_problem(seat, position) is None:
            return position
    a, b = max(game.placement_intervals(seat), key=lambda ab: ab[1] - ab[0])
    return (a + b) / 2.0


def review_game(seed: int, rounds: int = 4) -> Game:
    """A game of ``rounds`` rounds of tournament singles (16 shots each), Hard against Hard."""
    rng = np.random.default_rng(seed)
    player = make_player("hard")
    game = Game(Rules(rounds=rounds))
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.current_seat
        assert seat is not None
        game.shoot(seat, player.choose_shot(game, rng))
    return game


@dataclass
class Times:
    """Seconds of each timed call: CPU time of this process and elapsed (wall) time."""

    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def time(self, call: Callable[[], object]) -> None:
        """Run ``call`` once and keep its times."""
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        self.cpu.append(time.process_time() - cpu)
        self.wall.append(time.perf_counter() - wall)

    def percentile(self, q: float) -> tuple[float, float]:
        """The ``q``-th percentile (linear interpolation) of the CPU and of the wall times."""
        return float(np.percentile(self.cpu, q)), float(np.percentile(self.wall, q))


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Time hints on crowded boards (p50/p95), aim heat maps and the review of a "
        "64-shot game on one core, each against the issue's target.",
    )
    parser.add_argument(
        "--positions",
        type=count_argument(1),
        default=40,
        metavar="N",
        help="crowded positions timed for hints (default: %(default)s)",
    )
    parser.add_argument(
        "--maps",
        type=count_argument(1),
        default=5,
        metavar="N",
        help="heat maps timed; the median is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--reviews",
        type=count_argument(1),
        default=3,
        metavar="N",
        help="reviews of the 64-shot game timed; the median is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=count_argument(0),
        default=1,
        metavar="N",
        help="first seed of the positions and the game (default: %(default)s)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke test: 3 positions, one 16 x 16 map, a one-round review "
        "(figures not comparable with the targets)",
    )
    return parser


@dataclass(slots=True)
class Measured:
    """What one run timed, and the sizes it timed them at."""

    quick: bool
    positions: int
    maps: int
    reviews: int
    size: int
    draws: int
    crowd: str = ""
    shots: int = 0
    hint_times: Times = field(default_factory=Times)
    map_times: dict[str, Times] = field(
        default_factory=lambda: {"open": Times(), "crowded": Times()}
    )
    review_times: Times = field(default_factory=Times)


def measure(args: argparse.Namespace, console: Console) -> Measured:
    """Time the hints, the heat maps and the reviews, each after one untimed warm-up call."""
    quick = args.quick
    done = Measured(
        quick=quick,
        positions=3 if quick else args.positions,
        maps=1 if quick else args.maps,
        reviews=1 if quick else args.reviews,
        size=16 if quick else 64,
        draws=8 if quick else 32,
    )
    human = Accuracy.human()
    size, draws = done.size, done.draws
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("crowded positions", total=done.positions)
        games = []
        for k in range(done.positions):
            games.append(crowded_position(args.seed + k))
            progress.advance(task)
        warm = games[0]
        hints(warm, human, count=3, seed=0)  # compile and caches, untimed
        task = progress.add_task("hints", total=done.positions)
        for k, game in enumerate(games):
            done.hint_times.time(lambda g=game, s=k: hints(g, human, count=3, seed=s))
            progress.advance(task)
        heat_map(warm, free_placement(warm), human, size=size, draws=draws, seed=0)
        task = progress.add_task("heat maps", total=2 * done.maps)
        open_board = Game(Rules())
        for k in range(done.maps):
            for kind, game in (("open", open_board), ("crowded", games[k % len(games)])):
                where = free_placement(game)
                done.map_times[kind].time(
                    lambda g=game, p=where, s=k: heat_map(
                        g, p, human, size=size, draws=draws, seed=s
                    )
                )
                progress.advance(task)
        task = progress.add_task("game to review", total=1)
        game = review_game(args.seed, 1 if quick else 4)
        progress.advance(task)
        done.shots = sum(1 for a in game.actions if a.kind == "shoot")
        task = progress.add_task("reviews", total=done.reviews * done.shots)
        for _ in range(done.reviews):
            done.review_times.time(
                lambda: review(
                    game, accuracy=human, seed=0, progress=lambda _d, _t: progress.advance(task)
                )
            )
    done.crowd = f"{min(len(g.discs) for g in games)}-{max(len(g.discs) for g in games)} discs"
    return done


def print_table(done: Measured, console: Console) -> None:
    """Print each figure beside its target."""
    table = Table(
        title="Analysis timings on one core"
        + (" — quick run, not comparable with the targets" if done.quick else "")
    )
    for name in ("figure", "CPU", "wall", "target", "verdict (CPU)"):
        table.add_column(name, justify="left" if name == "figure" else "right")

    def row(figure: str, times: tuple[float, float], target: float | None, unit: str) -> None:
        scale, digits = (1000.0, 0) if unit == "ms" else (1.0, 2)
        shown = [f"{t * scale:.{digits}f} {unit}" for t in times]
        if target is None:
            table.add_row(figure, *shown, "", "")
            return
        goal = f"≤ {target * 1000:.0f} ms" if unit == "ms" else f"≤ {target:g} s"
        verdict = "(quick)" if done.quick else "PASS" if times[0] <= target else "MISS"
        table.add_row(figure, *shown, goal, verdict)

    crowd = done.crowd
    row(
        f"hint p50 (3 shots, full budget; {done.positions} crowded positions, {crowd})",
        done.hint_times.percentile(50),
        None,
        "ms",
    )
    row("hint p95", done.hint_times.percentile(95), HINT_P95_TARGET, "ms")
    for kind, times in done.map_times.items():
        board = "open board" if kind == "open" else f"crowded, {crowd}"
        row(
            f"heat map {done.size} x {done.size} x {done.draws} draws, {board} "
            f"(median of {done.maps})",
            times.percentile(50),
            HEAT_MAP_TARGET,
            "ms",
        )
    row(
        f"review of a {done.shots}-shot game (median of {done.reviews})"
        + ("" if done.shots == 64 else "; the target is for 64 shots"),
        done.review_times.percentile(50),
        REVIEW_TARGET,
        "s",
    )
    console.print(table)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark, print its table and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    start = time.perf_counter()
    print_table(measure(args, console), console)
    console.print(
        f"accuracy {Accuracy.human().name}; seeds from {args.seed}; each figure after one "
        "untimed warm-up call.  CPU: this process's CPU time, what one core of its own would "
        "take; wall: elapsed time, longer when other work shares the machine."
    )
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
