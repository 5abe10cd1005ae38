"""Physics benchmark: our event-driven simulator against pymunk at a fixed time step.

Run it from a checkout: ``python benchmarks/physics.py [--shots N] ...`` or
``crokinole bench physics [--shots N] ...`` (the same); ``--help`` lists the
options.  It lives outside the installed package: pymunk (the ``bench``
extra) and this comparison are tools for developers, not part of the library.

Three scenes are measured, with 0, 6 and 14 discs already resting inside the
shooting line.  Every scene gets random shots from the south seat (position
anywhere in the quarter, direction within ±30°, power 20-100%), drawn from one
:class:`numpy.random.Generator` so a seed reproduces the whole run.  For each
scene the benchmark reports:

* single-shot throughput: :func:`~crokinole.physics.simulate_shot` called in
  a Python loop (what the rules engine does), median of the repeats;
* batch throughput: one :func:`~crokinole.physics.simulate_batch` call (what
  the CPU players do), median of the repeats;
* pymunk throughput at a fixed step of 1/600 s on the same scene and shots,
  with the same model (see :class:`PymunkSimulator`);
* the ratios ours/pymunk.

An accuracy section compares, on the fast shots of the 6-disc scene, pymunk
at 1/600 s with pymunk at 1/6000 s and both with our exact simulator.

pymunk is optional (the ``bench`` extra); without it only our figures are
measured and the report says so.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np
import numpy.typing as npt
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from crokinole.board import TOURNAMENT_BOARD, Board, Launch, Seat
from crokinole.cli.main import count_argument, load_benchmark
from crokinole.errors import InvalidPositionError
from crokinole.physics import DiscStatus, check_position, simulate_batch, simulate_shot

FloatArray = npt.NDArray[np.float64]
StatusArray = npt.NDArray[np.int8]

#: pymunk's side (``benchmarks/physics_pymunk.py``), loaded as ``crokinole bench`` loads a script.
_pymunk_side = load_benchmark("physics_pymunk", Path(__file__).resolve().parent)
PymunkSimulator = _pymunk_side.PymunkSimulator
load_pymunk = _pymunk_side.load_pymunk
PYMUNK_DT: float = _pymunk_side.PYMUNK_DT
PYMUNK_FINE_DT: float = _pymunk_side.PYMUNK_FINE_DT

#: Discs already in play in each scene.
SCENE_DISCS = (0, 6, 14)
#: The scene whose fast shots the accuracy section uses.
ACCURACY_SCENE = 6

DEFAULT_SHOTS = 2000
DEFAULT_BATCH = 1024
DEFAULT_REPEATS = 5
DEFAULT_SEED = 0
DEFAULT_PYMUNK_SHOTS = 500
DEFAULT_ACCURACY_SHOTS = 100

#: Resting discs are centred this far from the centre: clear of the hole,
#: and with the rim inside the shooting line (11.3 + 0.625 < 12 - 1/32).
MIN_DISC_RADIUS = 0.8
MAX_DISC_RADIUS = 11.3
#: Random shots: direction within ±this many degrees, power in this range (%).
DIRECTION_LIMIT = 30.0
MIN_POWER = 20.0
MAX_POWER = 100.0
#: Shots at least this hard (%) are the "fast shots" of the accuracy section.
FAST_POWER = 70.0
#: Two outcomes differ when a status differs or an on-board disc moved this far (inches).
POSITION_TOLERANCE = 0.1
#: Launch starts closer than touching plus this (inches) to a disc are dropped.
LAUNCH_CLEARANCE = 1e-6

#: Targets of the report.
RATIO_TARGET = 100.0
THROUGHPUT_TARGET = 20_000.0


# --------------------------------------------------------------------- figures


@dataclass(frozen=True, slots=True)
class AccuracyFigures:
    """How often two simulators end a shot differently.

    A shot differs when some disc has a different status (on the board, in
    the hole, in the ditch) or some disc on the board in both ends more than
    :data:`POSITION_TOLERANCE` inches away.  Discs are matched by index.

    Attributes:
        shots: number of fast shots compared.
        coarse_vs_fine: fraction differing, pymunk 1/600 s against 1/6000 s.
        coarse_vs_ours: fraction differing, pymunk 1/600 s against ours.
        fine_vs_ours: fraction differing, pymunk 1/6000 s against ours.
        seconds: wall time the section took.
    """

    shots: int
    coarse_vs_fine: float
    coarse_vs_ours: float
    fine_vs_ours: float
    seconds: float


@dataclass(frozen=True, slots=True)
class SceneFigures:
    """Throughput figures of one scene.

    Attributes:
        discs: discs resting on the board before the shot.
        single_shots: shots per timed run of the single-shot loop.
        batch_shots: shots in each timed batch.
        repeats: timed runs of each of our modes (the figure is their median).
        single_per_s: our single-shot throughput, shots per second.
        batch_per_s: our batch throughput, shots per second.
        pymunk_shots: shots per timed pymunk run (0 when pymunk was not run).
        pymunk_runs: timed pymunk runs (the figure is their median).
        pymunk_per_s: pymunk throughput at 1/600 s, or None without pymunk.
        accuracy: the accuracy section, for the scene that has one.
    """

    discs: int
    single_shots: int
    batch_shots: int
    repeats: int
    single_per_s: float
    batch_per_s: float
    pymunk_shots: int
    pymunk_runs: int
    pymunk_per_s: float | None
    accuracy: AccuracyFigures | None = None

    @property
    def single_ratio(self) -> float | None:
        """Our single-shot throughput over pymunk's, or None without pymunk."""
        return None if self.pymunk_per_s is None else self.single_per_s / self.pymunk_per_s

    @property
    def batch_ratio(self) -> float | None:
        """Our batch throughput over pymunk's, or None without pymunk."""
        return None if self.pymunk_per_s is None else self.batch_per_s / self.pymunk_per_s


# ---------------------------------------------------------------------- scenes


@dataclass(frozen=True, slots=True)
class Scene:
    """Resting discs and the shots played at them.

    Attributes:
        discs: ``(N, 2)`` centres of the discs at rest.
        launches: ``(K, 4)`` rows ``x, y, vx, vy`` from the south seat.
        powers: ``(K,)`` power of each shot in percent.
    """

    discs: FloatArray
    launches: FloatArray
    powers: FloatArray


def random_discs(board: Board, count: int, rng: np.random.Generator) -> FloatArray:
    """``count`` random legal resting discs inside the shooting line.

    Centres are uniform over the annulus between :data:`MIN_DISC_RADIUS` and
    :data:`MAX_DISC_RADIUS`; a disc that would overlap a peg or a disc is drawn
    again (the check is the simulator's own :func:`check_position`).

    Raises:
        RuntimeError: the discs do not fit (after many draws).

    >>> random_discs(TOURNAMENT_BOARD, 3, np.random.default_rng(1)).shape
    (3, 2)
    """
    discs = np.zeros((0, 2), dtype=np.float64)
    for _ in range(1000 * (count + 1)):
        if discs.shape[0] == count:
            return discs
        radius = math.sqrt(rng.uniform(MIN_DISC_RADIUS**2, MAX_DISC_RADIUS**2))
        angle = rng.uniform(0.0, 2.0 * math.pi)
        trial = np.vstack([discs, [[radius * math.cos(angle), radius * math.sin(angle)]]])
        try:
            check_position(board, trial)
        except InvalidPositionError:
            continue
        discs = trial
    if discs.shape[0] == count:
        return discs
    raise RuntimeError(f"could not place {count} discs on the board")


def random_launches(
    board: Board,
    discs: FloatArray,
    count: int,
    rng: np.random.Generator,
    min_power: float = MIN_POWER,
) -> tuple[FloatArray, FloatArray]:
    """``count`` random shots from the south seat whose disc starts clear of ``discs``.

    Returns:
        ``(launches, powers)``: ``(count, 4)`` rows ``x, y, vx, vy`` and the
        ``(count,)`` powers in percent.

    >>> launches, powers = random_launches(TOURNAMENT_BOARD, np.zeros((0, 2)), 4,
    ...                                    np.random.default_rng(1))
    >>> launches.shape, bool((powers >= MIN_POWER).all())
    ((4, 4), True)
    """
    limit = board.placement_limit
    launches = np.zeros((0, 4), dtype=np.float64)
    powers = np.zeros(0, dtype=np.float64)
    touching = 2.0 * board.disc_radius + LAUNCH_CLEARANCE
    while launches.shape[0] < count:
        draw = max(2 * (count - launches.shape[0]), 16)
        position = rng.uniform(-limit, limit, draw)
        direction = rng.uniform(-DIRECTION_LIMIT, DIRECTION_LIMIT, draw)
        power = rng.uniform(min_power, MAX_POWER, draw)
        rows = board.launches(Seat.SOUTH, position, direction, power)
        if discs.shape[0]:
            gap = np.hypot(
                rows[:, None, 0] - discs[None, :, 0], rows[:, None, 1] - discs[None, :, 1]
            )
            clear = (gap >= touching).all(axis=1)
            rows, power = rows[clear], power[clear]
        launches = np.vstack([launches, rows])
        powers = np.concatenate([powers, power])
    return launches[:count], powers[:count]


def make_scene(board: Board, discs: int, shots: int, rng: np.random.Generator) -> Scene:
    """A scene of ``discs`` random resting discs and ``shots`` random shots."""
    centres = random_discs(board, discs, rng)
    launches, powers = random_launches(board, centres, shots, rng)
    return Scene(centres, launches, powers)


# ------------------------------------------------------------------- measuring


def outcomes_differ(
    pos_a: FloatArray, status_a: StatusArray, pos_b: FloatArray, status_b: StatusArray
) -> bool:
    """Whether two outcomes of one shot differ (status, or > tolerance on the board).

    >>> p = np.array([[0.0, 5.0], [1.0, 1.0]])
    >>> s = np.array([0, 2], dtype=np.int8)
    >>> outcomes_differ(p, s, p + 0.05, s), outcomes_differ(p, s, p + 0.2, s)
    (False, True)
    """
    if not np.array_equal(status_a, status_b):
        return True
    on_board = status_a == DiscStatus.ON_BOARD
    gap = np.hypot(*(pos_a[on_board] - pos_b[on_board]).T)
    return bool((gap > POSITION_TOLERANCE).any())


def _time_single(board: Board, discs: FloatArray, launches: list[Launch]) -> float:
    start = time.perf_counter()
    for launch in launches:
        simulate_shot(board, discs, launch)
    return len(launches) / (time.perf_counter() - start)


def _time_batch(board: Board, discs: FloatArray, launches: FloatArray) -> float:
    start = time.perf_counter()
    simulate_batch(board, discs, launches)
    return int(launches.shape[0]) / (time.perf_counter() - start)


def _time_pymunk(
    sim: PymunkSimulator, discs: FloatArray, launches: FloatArray, advance: Callable[[], None]
) -> float:
    elapsed = 0.0
    for row in launches:
        start = time.perf_counter()
        sim.run(discs, row)
        elapsed += time.perf_counter() - start
        advance()  # outside the timed span: drawing the bar is not pymunk's cost
    return int(launches.shape[0]) / elapsed


def _accuracy(
    pm: ModuleType,
    board: Board,
    scene: Scene,
    count: int,
    *,
    rng: np.random.Generator,
    advance: Callable[[], None],
) -> AccuracyFigures:
    start = time.perf_counter()
    fast = scene.launches[scene.powers >= FAST_POWER][:count]
    if fast.shape[0] < count:
        extra, _ = random_launches(
            board, scene.discs, count - fast.shape[0], rng, min_power=FAST_POWER
        )
        fast = np.vstack([fast, extra])
    ours = simulate_batch(board, scene.discs, fast)
    coarse = PymunkSimulator(pm, board, PYMUNK_DT)
    fine = PymunkSimulator(pm, board, PYMUNK_FINE_DT)
    differ = np.zeros((3, count), dtype=np.bool_)
    for k, row in enumerate(fast):
        pos_c, st_c = coarse.run(scene.discs, row)
        pos_f, st_f = fine.run(scene.discs, row)
        pos_o, st_o = ours.positions[k], ours.statuses[k]
        differ[0, k] = outcomes_differ(pos_c, st_c, pos_f, st_f)
        differ[1, k] = outcomes_differ(pos_c, st_c, pos_o, st_o)
        differ[2, k] = outcomes_differ(pos_f, st_f, pos_o, st_o)
        advance()
    share = differ.mean(axis=1) if count else np.zeros(3)
    return AccuracyFigures(
        shots=count,
        coarse_vs_fine=float(share[0]),
        coarse_vs_ours=float(share[1]),
        fine_vs_ours=float(share[2]),
        seconds=time.perf_counter() - start,
    )


def run_physics_bench(
    shots: int = DEFAULT_SHOTS,
    batch: int = DEFAULT_BATCH,
    repeats: int = DEFAULT_REPEATS,
    seed: int = DEFAULT_SEED,
    console: Console | None = None,
    *,
    pymunk_shots: int = DEFAULT_PYMUNK_SHOTS,
    pymunk_repeats: int | None = None,
    accuracy_shots: int = DEFAULT_ACCURACY_SHOTS,
    board: Board = TOURNAMENT_BOARD,
) -> list[SceneFigures]:
    """Measure our simulator (and pymunk, when installed) on the three scenes.

    Numba compiles on first use (and caches to disk): each mode runs once
    before timing, so compile time is never measured.

    Args:
        shots: shots per timed run of the single-shot loop.
        batch: shots per timed batch.
        repeats: timed runs of each of our modes; the median is reported.
        seed: seed of the one random generator behind scenes and shots.
        console: where the progress bar goes (a new console when None).
        pymunk_shots: shots per timed pymunk run (0 skips pymunk).
        pymunk_repeats: timed pymunk runs, the median is reported (``repeats`` when None).
        accuracy_shots: fast shots in the accuracy section (0 skips it).
        board: the board and physical constants.

    Returns:
        The figures of each scene, in the order of :data:`SCENE_DISCS`.

    Raises:
        ValueError: a count is out of range.
    """
    if pymunk_repeats is None:
        pymunk_repeats = repeats
    for name, value, least in (
        ("shots", shots, 1),
        ("batch", batch, 1),
        ("repeats", repeats, 1),
        ("seed", seed, 0),
        ("pymunk_shots", pymunk_shots, 0),
        ("pymunk_repeats", pymunk_repeats, 1),
        ("accuracy_shots", accuracy_shots, 0),
    ):
        if value < least:
            raise ValueError(f"{name} must be at least {least}, got {value}")
    if console is None:
        console = Console()
    rng = np.random.default_rng(seed)
    pm = load_pymunk() if pymunk_shots or accuracy_shots else None
    pool = max(shots, batch, pymunk_shots)
    scenes = [make_scene(board, n, pool, rng) for n in SCENE_DISCS]

    runs_pymunk = pymunk_repeats if pm is not None and pymunk_shots else 0
    per_scene = repeats * (shots + batch) + runs_pymunk * pymunk_shots
    do_accuracy = pm is not None and accuracy_shots > 0
    figures: list[SceneFigures] = []
    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as progress:
        tasks = {n: progress.add_task(f"{n} discs", total=per_scene) for n in SCENE_DISCS}
        accuracy_task: TaskID | None = None
        if do_accuracy:
            accuracy_task = progress.add_task("accuracy", total=accuracy_shots)
        for n, scene in zip(SCENE_DISCS, scenes, strict=True):
            task = tasks[n]
            single = [Launch(*row) for row in scene.launches[:shots].tolist()]
            batch_rows = np.ascontiguousarray(scene.launches[:batch])
            # Warm-up: loads (or compiles) the numba kernels outside the timings.
            simulate_shot(board, scene.discs, single[0])
            simulate_batch(board, scene.discs, batch_rows[:1])

            progress.update(task, description=f"{n} discs: ours, single")
            single_rates = []
            for _ in range(repeats):
                single_rates.append(_time_single(board, scene.discs, single))
                progress.advance(task, shots)
            progress.update(task, description=f"{n} discs: ours, batch")
            batch_rates = []
            for _ in range(repeats):
                batch_rates.append(_time_batch(board, scene.discs, batch_rows))
                progress.advance(task, batch)

            pymunk_rate: float | None = None
            if pm is not None and runs_pymunk:
                progress.update(task, description=f"{n} discs: pymunk 1/600 s")
                sim = PymunkSimulator(pm, board, PYMUNK_DT)
                rows = scene.launches[:pymunk_shots]
                sim.run(scene.discs, rows[0])  # warm-up, as for ours: builds the bodies
                rates = [
                    _time_pymunk(sim, scene.discs, rows, partial(progress.advance, task))
                    for _ in range(runs_pymunk)
                ]
                pymunk_rate = statistics.median(rates)

            accuracy: AccuracyFigures | None = None
            if n == ACCURACY_SCENE and pm is not None and accuracy_task is not None:
                accuracy = _accuracy(
                    pm,
                    board,
                    scene,
                    accuracy_shots,
                    rng=rng,
                    advance=partial(progress.advance, accuracy_task),
                )
            figures.append(
                SceneFigures(
                    discs=n,
                    single_shots=shots,
                    batch_shots=batch,
                    repeats=repeats,
                    single_per_s=statistics.median(single_rates),
                    batch_per_s=statistics.median(batch_rates),
                    pymunk_shots=pymunk_shots if pymunk_rate is not None else 0,
                    pymunk_runs=runs_pymunk if pymunk_rate is not None else 0,
                    pymunk_per_s=pymunk_rate,
                    accuracy=accuracy,
                )
            )
    return figures


# -------------------------------------------------------------------- printing


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}x"


def _verdict(ok: bool | None) -> str:
    if ok is None:
        return "[yellow]n/a[/yellow]"
    return "[green]PASS[/green]" if ok else "[red]MISS[/red]"


def print_physics_report(figures: list[SceneFigures], console: Console) -> None:
    """Print the throughput table, the targets with PASS/MISS and the accuracy section."""
    if not figures:
        console.print("no scenes were measured")
        return
    has_pymunk = _print_throughput(figures, console)
    _print_targets(figures, console)
    if load_pymunk() is None:
        console.print(
            "[yellow]pymunk is not installed, so only our simulator was measured; pymunk "
            "is in the 'bench' extra: pip install 'crokinole\\[bench]'[/yellow]"
        )
    elif not has_pymunk:
        console.print("pymunk was not measured (pymunk shots set to 0)")
    _print_accuracy(figures, console)


def _print_throughput(figures: list[SceneFigures], console: Console) -> bool:
    """Print the throughput table; whether pymunk was measured."""
    first = figures[0]
    has_pymunk = any(f.pymunk_per_s is not None for f in figures)
    if has_pymunk:
        runs = first.pymunk_runs
        how = f"median of {runs} runs" if runs > 1 else "one run"
        pymunk_note = f"pymunk: {first.pymunk_shots} shots at 1/600 s, {how}"
    else:
        pymunk_note = "pymunk: not measured"
    table = Table(
        title="Physics throughput (shots per second)",
        caption=(
            f"ours single: {first.single_shots} shots, ours batch: {first.batch_shots} shots, "
            f"median of {first.repeats} run{'s' if first.repeats > 1 else ''}; {pymunk_note}"
        ),
    )
    table.add_column("scene")
    table.add_column("ours single", justify="right")
    table.add_column("ours batch", justify="right")
    table.add_column("pymunk 1/600 s", justify="right")
    table.add_column("ratio single", justify="right")
    table.add_column("ratio batch", justify="right")
    for f in figures:
        table.add_row(
            f"{f.discs} discs",
            _rate(f.single_per_s),
            _rate(f.batch_per_s),
            _rate(f.pymunk_per_s),
            _ratio(f.single_ratio),
            _ratio(f.batch_ratio),
        )
    console.print(table)
    return has_pymunk


def _print_targets(figures: list[SceneFigures], console: Console) -> None:
    targets = Table(title="Targets")
    targets.add_column("target")
    targets.add_column("scene")
    targets.add_column("measured", justify="right")
    targets.add_column("result")
    for f in figures:
        for mode, ratio in (("single", f.single_ratio), ("batch", f.batch_ratio)):
            targets.add_row(
                f"ours ≥ {RATIO_TARGET:.0f}x pymunk ({mode})",
                f"{f.discs} discs",
                _ratio(ratio),
                _verdict(None if ratio is None else ratio >= RATIO_TARGET),
            )
    for f in figures:
        if f.discs != ACCURACY_SCENE:
            continue
        for mode, rate in (("single", f.single_per_s), ("batch", f.batch_per_s)):
            targets.add_row(
                f"≥ {THROUGHPUT_TARGET:,.0f} shots/s ({mode})",
                f"{f.discs} discs",
                _rate(rate),
                _verdict(rate >= THROUGHPUT_TARGET),
            )
    for f in figures:
        targets.add_row(
            "batch per shot at least as fast as single",
            f"{f.discs} discs",
            f"{f.batch_per_s / f.single_per_s:.1f}x",
            _verdict(f.batch_per_s >= f.single_per_s),
        )
    console.print(targets)


def _print_accuracy(figures: list[SceneFigures], console: Console) -> None:
    for f in figures:
        acc = f.accuracy
        if acc is None:
            continue
        section = Table(
            title=f"Accuracy: {acc.shots} fast shots (power ≥ {FAST_POWER:.0f}%), {f.discs} discs",
            caption=(
                "a shot differs when a disc's status differs or a disc on the board ends "
                f'> {POSITION_TOLERANCE}" away (discs matched by index); '
                f"took {acc.seconds:.1f} s"
            ),
        )
        section.add_column("comparison")
        section.add_column("shots differing", justify="right")
        for name, share in (
            ("pymunk 1/600 s vs pymunk 1/6000 s", acc.coarse_vs_fine),
            ("pymunk 1/600 s vs ours (exact)", acc.coarse_vs_ours),
            ("pymunk 1/6000 s vs ours (exact)", acc.fine_vs_ours),
        ):
            section.add_row(name, f"{share:.0%} ({round(share * acc.shots)}/{acc.shots})")
        console.print(section)


# ------------------------------------------------------------- command line


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The options of the benchmark (``prog`` names the command in messages)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Measure the physics simulator on boards with 0, 6 and 14 discs in play: "
            "simulate_shot in a Python loop, simulate_batch, and pymunk stepping at "
            "1/600 s on the same shots (pymunk is in the 'bench' extra). Then compare "
            "pymunk at 1/600 s and 1/6000 s with the exact simulator on fast shots."
        ),
    )
    parser.add_argument(
        "--shots",
        type=count_argument(1),
        default=DEFAULT_SHOTS,
        metavar="N",
        help="shots per timed run of the simulate_shot loop (default: %(default)s)",
    )
    parser.add_argument(
        "--batch",
        type=count_argument(1),
        default=DEFAULT_BATCH,
        metavar="N",
        help="shots in each timed simulate_batch call (default: %(default)s)",
    )
    parser.add_argument(
        "--repeats",
        type=count_argument(1),
        default=DEFAULT_REPEATS,
        metavar="N",
        help="timed runs of each mode; the median is reported (default: %(default)s)",
    )
    parser.add_argument(
        "--pymunk-shots",
        type=count_argument(0),
        default=DEFAULT_PYMUNK_SHOTS,
        metavar="N",
        help=(
            "shots per timed pymunk run, the first of the same shots; 0 skips pymunk "
            "(default: %(default)s)"
        ),
    )
    parser.add_argument(
        "--pymunk-repeats",
        type=count_argument(1),
        default=None,
        metavar="N",
        help="timed pymunk runs; the median is reported (default: the value of --repeats)",
    )
    parser.add_argument(
        "--accuracy-shots",
        type=count_argument(0),
        default=DEFAULT_ACCURACY_SHOTS,
        metavar="N",
        help=(
            "fast shots (power >= 70%%) of the 6-disc board in the accuracy section; "
            "0 skips it (default: %(default)s)"
        ),
    )
    parser.add_argument(
        "--seed",
        type=count_argument(0),
        default=DEFAULT_SEED,
        metavar="N",
        help="seed of the random generator behind the discs and the shots (default: %(default)s)",
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark with command-line options; print the figures; return 0.

    Bad options make argparse exit with status 2.
    """
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    start = time.perf_counter()
    figures = run_physics_bench(
        args.shots,
        args.batch,
        args.repeats,
        args.seed,
        console,
        pymunk_shots=args.pymunk_shots,
        pymunk_repeats=args.pymunk_repeats,
        accuracy_shots=args.accuracy_shots,
    )
    print_physics_report(figures, console)
    console.print(f"benchmark ran in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
