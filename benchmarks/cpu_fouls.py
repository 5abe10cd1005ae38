"""CPU fouls benchmark: how often each level *means* a foul when a valid hit exists (R4).

Run it from a checkout: ``python benchmarks/cpu_fouls.py [--positions N] [--seed N]``;
``--help`` lists the options.

Positions come from CPU play (:func:`crokinole.ai.fouls.positions_from_play`:
one-round singles between Easy, Normal and Hard drawn at random, each shot
with its level's noise), keeping turns where the shooter faces an opposing
disc.  Of those, the positions where some shot is valid (Hard's candidates
or a dense fan of placements × directions × powers) are measured.  For each
level the benchmark reports

* the intended fouls: the shot the level means (``intend``, no noise),
  played exactly through the referee, is a foul; the targets are at most 10%
  (Easy), 5% (Normal), 2% (Hard, Expert);
* the played fouls, for reference: the shot it really plays
  (``choose_shot``, noise included) is a foul.  These follow from the
  level's noise: a full hit on a disc 20 inches away misses when the
  sideways error exceeds two disc radii, about 16% of the time at Hard's
  2.6° and 6% at Expert's 1.9°.

Each figure comes with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crokinole.ai import Level, make_player
from crokinole.ai.fouls import intended_fouls, positions_from_play, valid_hit_exists
from crokinole.ai.match import wilson
from crokinole.cli.main import count_argument
from crokinole.rules import Game

#: The issue's targets for intended fouls where a valid hit exists.
TARGETS = {
    Level.EASY: 0.10,
    Level.NORMAL: 0.05,
    Level.HARD: 0.02,
    Level.EXPERT: 0.02,
    Level.MASTER: 0.02,
}


def played_fouls(level: Level, games: list[Game], seed: int) -> int:
    """How many of ``level``'s real shots (``choose_shot``, with noise) are fouls."""
    player = make_player(level)
    seeds = np.random.SeedSequence(seed).spawn(len(games))
    fouls = 0
    for game, s in zip(games, seeds, strict=True):
        seat = game.current_seat
        assert seat is not None
        shot = player.choose_shot(game, np.random.default_rng(s))
        fouls += not game.copy().shoot(seat, shot).valid
    return fouls


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure how often each CPU level means a foul (R4) where a valid hit "
        "exists, over positions reached in CPU play, with 95% confidence intervals.",
    )
    parser.add_argument(
        "--positions",
        type=count_argument(1),
        default=2000,
        metavar="N",
        help="positions facing an opposing disc (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=count_argument(0),
        default=1,
        metavar="N",
        help="random seed (default: %(default)s)",
    )
    return parser


def _fmt(count: int, total: int) -> tuple[str, str]:
    rate, low, high = wilson(count, total)
    return f"{count} of {total} ({rate:.1%})", f"{low:.1%}–{high:.1%}"


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark, print its table and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    start = time.perf_counter()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("positions from play", total=args.positions)
        games = positions_from_play(
            args.positions, args.seed, progress=lambda n: progress.advance(task, n)
        )
        task = progress.add_task("valid hit exists?", total=len(games))
        measured = []
        for game in games:
            if valid_hit_exists(game):
                measured.append(game)
            progress.advance(task)
        rows = []
        for level in Level:
            task = progress.add_task(level.label, total=2 * len(measured))
            meant = intended_fouls(
                level, measured, args.seed + 1, progress=lambda n, t=task: progress.advance(t, n)
            )
            played = played_fouls(level, measured, args.seed + 2)
            progress.advance(task, len(measured))
            rows.append((level, meant.fouls, played))
    table = Table(
        title=f"Fouls where a valid hit exists: {len(measured)} of {len(games)} positions "
        f"from play, seed {args.seed}"
    )
    for name in ("level", "intended fouls", "95% CI", "target", "played fouls", "95% CI"):
        table.add_column(name, justify="left" if name == "level" else "right")
    for level, meant_fouls, played in rows:
        table.add_row(
            level.label,
            *_fmt(meant_fouls, len(measured)),
            f"≤ {TARGETS[level]:.0%}",
            *_fmt(played, len(measured)),
        )
    console.print(table)
    console.print(
        "intended: the shot meant (no noise), played exactly; played: choose_shot, noise "
        "included.  95% Wilson intervals."
    )
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
