"""``crokinole match`` and ``crokinole calibrate``: the CPU levels' figures, printed."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from crokinole.ai import Level
from crokinole.ai.match import (
    GameRecord,
    MatchSummary,
    OpenTwentyFigure,
    open_twenty,
    percentile,
    play_match,
)
from crokinole.rules import Rules

PRESETS = {
    "tournament": Rules.tournament_singles,
    "home": Rules.home_singles,
    "doubles": Rules.doubles,
    "two_vs_one": Rules.two_vs_one,
    "three_singles": Rules.three_singles,
}
#: Open-20 targets of the issue, for the report (human reference in BOARD.md).
OPEN_TWENTY_TARGETS = {
    Level.EASY: "≈ 25%",
    Level.NORMAL: "≈ 45%",
    Level.HARD: "≈ 60%",
    Level.EXPERT: "≥ 75%",
    Level.MASTER: "86–95% (beyond human)",
}
#: The levels calibrate measures: every one (an open 20 is a quick decision for each).
CALIBRATED = tuple(OPEN_TWENTY_TARGETS)


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


def tally(records: list[GameRecord], total: int) -> str:
    """The running tally after the games so far, from A's point of view.

    >>> from crokinole.ai.match import GameRecord
    >>> games = [GameRecord(r, (), (), (), ()) for r in (1.0, 1.0, 0.5, 0.0)]
    >>> tally(games, 200)
    'game 4 of 200: A 2 won, 1 drawn, 1 lost; 66.7% of decided games (20.8%–93.9%)'
    """
    summary = MatchSummary.of(records)
    share, low, high = summary.win_share()
    rate = (
        f"{share:.1%} of decided games ({low:.1%}–{high:.1%})"
        if summary.decided
        else "none decided"
    )
    return (
        f"game {summary.games} of {total}: A {summary.wins} won, {summary.draws} drawn, "
        f"{summary.losses} lost; {rate}"
    )


def run_match(args: argparse.Namespace) -> int:
    """Play the match and print its table, with a running tally as the games finish.

    On a terminal the tally is the progress bar's caption; written to a file
    or a pipe (a long match in the background) it is one line per game.
    """
    console = Console()
    rules = PRESETS[args.preset]()
    records: list[GameRecord] = []
    start = time.perf_counter()
    label = f"{args.a} vs {args.b}"
    with _progress(console) as progress:
        task = progress.add_task(label, total=args.games)
        matches = play_match(
            args.a, args.b, games=args.games, seed=args.seed, rules=rules, jobs=args.jobs
        )
        for record in matches:
            records.append(record)
            line = tally(records, args.games)
            progress.update(task, advance=1, description=f"{label}: {line}")
            if not console.is_terminal:
                console.print(f"{line} ({time.perf_counter() - start:.0f} s)", soft_wrap=True)
    summary = MatchSummary.of(records)
    print_match(summary, args.a, args.b, preset=args.preset, seed=args.seed, console=console)
    console.print(f"{summary.games} games in {time.perf_counter() - start:.0f} s")
    return 0


def print_match(
    summary: MatchSummary, a: str, b: str, *, preset: str, seed: int, console: Console
) -> None:
    """The match table: results with 95% intervals, round scores, decision times."""
    share, low, high = summary.win_share()
    points, p_low, p_high = summary.score_share()
    table = Table(title=f"{a} (A) vs {b} (B): {summary.games} games, {preset}, seed {seed}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("A wins / draws / losses", f"{summary.wins} / {summary.draws} / {summary.losses}")
    table.add_row(
        "A's share of decided games (95% CI)",
        f"{share:.1%} ({low:.1%}–{high:.1%})",
    )
    table.add_row("A's points share, draw = ½ (95% CI)", f"{points:.1%} ({p_low:.1%}–{p_high:.1%})")
    table.add_row(
        "mean round score A / B", f"{summary.mean_round_a:.1f} / {summary.mean_round_b:.1f}"
    )
    for name, times in ((f"A ({a})", summary.times_a), (f"B ({b})", summary.times_b)):
        table.add_row(
            f"decision time {name}: median / 95th pct",
            f"{percentile(times, 50) * 1000:.0f} ms / {percentile(times, 95) * 1000:.0f} ms",
        )
    console.print(table)


def run_calibrate(args: argparse.Namespace) -> int:
    """Measure every level's open-20 rate and print the table."""
    console = Console()
    figures: list[OpenTwentyFigure] = []
    with _progress(console) as progress:
        for level in CALIBRATED:
            task = progress.add_task(level.value, total=args.tries)

            def advance(n: int, task: TaskID = task) -> None:
                progress.advance(task, n)

            figures.append(open_twenty(level, args.tries, args.seed, advance))
    table = Table(title=f"Open 20 on an empty board: {args.tries} tries each, seed {args.seed}")
    table.add_column("level")
    table.add_column("made", justify="right")
    table.add_column("95% CI", justify="right")
    table.add_column("from the middle", justify="right")
    table.add_column("target", justify="right")
    for f in figures:
        rate, low, high = f.interval()
        table.add_row(
            f.level.label,
            f"{f.made} of {f.tries} ({rate:.1%})",
            f"{low:.1%}–{high:.1%}",
            f"{f.middle / f.tries:.0%}",
            OPEN_TWENTY_TARGETS[f.level],
        )
    console.print(table)
    console.print(
        "Each try is a fresh decision (choose_shot) with the level's execution noise; "
        "95% Wilson intervals."
    )
    console.print("Human reference (BOARD.md): best 66–76%, average competitive 55%.")
    return 0


def add_commands(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    count: Callable[[int], Callable[[str], int]],
) -> None:
    """Register ``match`` and ``calibrate`` on the top-level parser."""
    levels = [lv.value for lv in Level]
    match = commands.add_parser(
        "match",
        help="play CPU against CPU and measure the result",
        description=(
            "Play CPU-vs-CPU games and print wins, draws and losses with 95% confidence "
            "intervals, the mean round score and the decision time per shot. Player A takes "
            "south in even games and north in odd games."
        ),
    )
    match.add_argument("--a", choices=levels, default="hard", help="level of player A")
    match.add_argument("--b", choices=levels, default="normal", help="level of player B")
    match.add_argument(
        "--games", type=count(1), default=200, metavar="N", help="games (default: %(default)s)"
    )
    match.add_argument(
        "--seed", type=count(0), default=1, metavar="N", help="random seed (default: %(default)s)"
    )
    match.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="tournament",
        help="rules preset (default: %(default)s: singles, 8 discs, four rounds)",
    )
    match.add_argument(
        "--jobs",
        type=count(1),
        default=1,
        metavar="N",
        help="games played in parallel processes; results do not depend on it "
        "(default: %(default)s)",
    )
    match.set_defaults(handler=run_match)
    calibrate = commands.add_parser(
        "calibrate",
        help="measure each CPU level's open-20 rate",
        description="Measure how often each CPU level makes the open 20 on an empty board "
        "as it really plays: every try is a fresh decision (choose_shot) with the level's "
        "execution noise. Prints each rate with its 95% confidence interval.",
    )
    calibrate.add_argument(
        "--tries",
        type=count(1),
        default=2000,
        metavar="N",
        help="decisions per level (default: %(default)s)",
    )
    calibrate.add_argument(
        "--seed", type=count(0), default=1, metavar="N", help="random seed (default: %(default)s)"
    )
    calibrate.set_defaults(handler=run_calibrate)
