"""Vector environment speed: env steps a second of VectorCrokinoleEnv on one core.

Run it from a checkout: ``crokinole bench env`` (or ``python benchmarks/env_speed.py``);
``--help`` lists the options.

Each run steps ``--boards`` boards (1,024 by default) ``--steps`` times with
actions drawn beforehand (uniform in [-1, 1]^3, so the policy costs nothing),
and counts boards × steps over the CPU time of the process
(:func:`time.process_time`: one core, numba compiles first and is not
counted).  The figure is the median of ``--runs`` runs; the target is
100,000 env steps a second for ``open_20`` on 1,024 boards.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from crokinole.ai import HAND_NOISE
from crokinole.cli.main import count_argument
from crokinole.env import CrokinoleEnv
from crokinole.env.vector import VECTOR_TASKS, VectorCrokinoleEnv

#: The issue's target: env steps a second, 1,024 boards, one core.
TARGET = 100_000


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The benchmark's options."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Env steps a second of the vector environment on one core (CPU time), "
        "the median of several runs.",
    )
    parser.add_argument("--boards", type=count_argument(1), default=1024, metavar="N",
                        help="boards stepped at once (default: %(default)s)")  # fmt: skip
    parser.add_argument("--steps", type=count_argument(1), default=100, metavar="N",
                        help="steps per run (default: %(default)s)")  # fmt: skip
    parser.add_argument("--runs", type=count_argument(1), default=5, metavar="N",
                        help="runs; the median is reported (default: %(default)s)")  # fmt: skip
    parser.add_argument(
        "--tasks",
        nargs="+",
        choices=VECTOR_TASKS,
        default=["open_20", "star8"],
        metavar="TASK",
        help="tasks to measure (default: open_20 star8; any of " + ", ".join(VECTOR_TASKS) + ")",
    )
    return parser


def steps_per_second(task: str, boards: int, steps: int, *, noisy: bool, seed: int = 0) -> float:
    """One run: env steps (boards × steps) per CPU second."""
    envs = VectorCrokinoleEnv(
        boards, task, hand_noise=HAND_NOISE if noisy else None, setup_noise=0.3 if noisy else 0.0
    )
    envs.reset(seed=seed)
    actions = np.random.default_rng(seed).uniform(-1.0, 1.0, (steps, boards, 3)).astype(np.float32)
    envs.step(actions[0])  # compiles (or loads) the kernel: not counted
    start = time.process_time()
    for k in range(steps):
        envs.step(actions[k])
    return boards * steps / (time.process_time() - start)


def single_env_steps_per_second(task: str, steps: int, seed: int = 0) -> float:
    """For comparison: CrokinoleEnv (one board, through Game) steps per CPU second."""
    env = CrokinoleEnv(task)
    actions = np.random.default_rng(seed).uniform(-1.0, 1.0, (steps, 3)).astype(np.float32)
    env.reset(seed=seed)
    env.step(actions[0])
    start = time.process_time()
    for k in range(steps):
        env.reset(seed=seed + k)
        env.step(actions[k])
    return steps / (time.process_time() - start)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark, print its table and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    table = Table(
        title=f"VectorCrokinoleEnv: {args.boards} boards, {args.steps} steps a run, "
        f"median of {args.runs} runs, CPU time of one core"
    )
    for name in ("task", "noise", "env steps/s (median)", "min", "max", "target"):
        table.add_column(name, justify="left" if name in ("task", "noise") else "right")
    for task in args.tasks:
        for noisy in (False, True):
            figures = [
                steps_per_second(task, args.boards, args.steps, noisy=noisy, seed=run)
                for run in range(args.runs)
            ]
            table.add_row(
                task,
                "hand + setup" if noisy else "none",
                f"{statistics.median(figures):,.0f}",
                f"{min(figures):,.0f}",
                f"{max(figures):,.0f}",
                f"≥ {TARGET:,}" if task == "open_20" else "",
            )
    console.print(table)
    single = statistics.median(
        single_env_steps_per_second(args.tasks[0], 10 * args.steps, seed=run)
        for run in range(args.runs)
    )
    console.print(
        f"for comparison, CrokinoleEnv (one board through Game, reset and step) on "
        f"{args.tasks[0]}: {single:,.0f} steps/s"
    )
    console.print(
        "one env step = one board's shot: actions to shots (and noise), one kernel call for "
        "every board (simulate_boards), R4/R5 (judge_batch), rewards and observations."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
