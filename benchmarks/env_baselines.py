"""Baselines of CrokinoleEnv: Random, CPU Easy and CPU Expert as policies on every task.

Run it from a checkout: ``crokinole bench env baselines`` (or ``python
benchmarks/env_baselines.py``); ``--help`` lists the options.

Each policy plays the agent's seat (south) of :class:`~crokinole.env.CrokinoleEnv`
with a steady hand (no ``hand_noise``): Random draws its action uniformly
from [-1, 1]^3; CPU Easy and CPU Expert play their level's shot, their own
execution noise included (``choose_shot``), turned into an action
(:func:`~crokinole.env.shot_to_action`).  The opponent of ``win_round`` and
``win_game`` is CPU Normal.  Episode k of a task is ``reset(seed=seed + k)``
for every policy (the same opponents' draws where the play is the same); a
policy's own draws come from its own generator.  Each figure is the mean
return over the episodes with a 95% confidence interval (normal, ±1.96
standard errors).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crokinole.ai import Level, make_player
from crokinole.cli.main import count_argument
from crokinole.env import TASKS, CrokinoleEnv, shot_to_action
from crokinole.env.tasks import GAME_TASKS

Policy = Callable[[CrokinoleEnv], np.ndarray]
POLICIES = ("Random", "CPU Easy", "CPU Expert")


def make_policy(name: str, rng: np.random.Generator) -> Policy:
    """The policy ``name`` drawing from ``rng``."""
    if name == "Random":
        return lambda env: rng.uniform(-1.0, 1.0, 3).astype(np.float32)
    player = make_player(Level.EASY if name == "CPU Easy" else Level.EXPERT)
    return lambda env: shot_to_action(env.game.board, player.choose_shot(env.game, rng))


def episode_return(env: CrokinoleEnv, policy: Policy, seed: int) -> float:
    """One episode's return."""
    env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        _, reward, done, _, _ = env.step(policy(env))
        total += float(reward)
    return total


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Mean returns (95%% CI) of Random, CPU Easy and CPU Expert on every task.",
    )
    parser.add_argument("--episodes", type=count_argument(2), default=1000, metavar="N",
                        help="episodes of each one-shot task (default: %(default)s)")  # fmt: skip
    parser.add_argument("--round-episodes", type=count_argument(2), default=200, metavar="N",
                        help="episodes of win_round (default: %(default)s)")  # fmt: skip
    parser.add_argument("--game-episodes", type=count_argument(2), default=100, metavar="N",
                        help="episodes of win_game (default: %(default)s)")  # fmt: skip
    parser.add_argument("--seed", type=count_argument(0), default=1, metavar="N",
                        help="seed of episode 0 (default: %(default)s)")  # fmt: skip
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS), metavar="TASK",
                        help="tasks (default: all)")  # fmt: skip
    parser.add_argument("--markdown", action="store_true",
                        help="also print the table as Markdown (for docs/env.md)")  # fmt: skip
    return parser


def episodes_of(task: str, args: argparse.Namespace) -> int:
    """How many episodes ``task`` gets."""
    counts = {"win_round": args.round_episodes, "win_game": args.game_episodes}
    return int(counts.get(task, args.episodes))


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the baselines, print the table and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    start = time.perf_counter()
    results: dict[tuple[str, str], tuple[float, float]] = {}
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())  # fmt: skip
    total = sum(episodes_of(t, args) for t in args.tasks) * len(POLICIES)
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("episodes", total=total)
        for task in args.tasks:
            env = CrokinoleEnv(task, Level.NORMAL)
            for k, name in enumerate(POLICIES):
                rng = np.random.default_rng([args.seed, TASKS.index(task), k])
                policy = make_policy(name, rng)
                progress.update(bar, description=f"{task}: {name}")
                returns = []
                for episode in range(episodes_of(task, args)):
                    returns.append(episode_return(env, policy, args.seed + episode))
                    progress.advance(bar)
                results[task, name] = interval(returns)
    table = Table(title="CrokinoleEnv baselines: mean return ± 95% CI")
    for name in ("task", "episodes", *POLICIES):
        table.add_column(name, justify="left" if name == "task" else "right")
    lines = ["| task | episodes | " + " | ".join(POLICIES) + " |", "|---|---:|---:|---:|---:|"]
    for task in args.tasks:
        cells = [f"{results[task, p][0]:.3f} ± {results[task, p][1]:.3f}" for p in POLICIES]
        n = episodes_of(task, args)
        table.add_row(task, str(n), *cells)
        lines.append(f"| `{task}` | {n} | " + " | ".join(cells) + " |")
    console.print(table)
    opponent = ", ".join(GAME_TASKS)
    console.print(f"{opponent}: against CPU Normal.  Seeds {args.seed} onwards.")
    if args.markdown:
        print("\n".join(lines))
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
