"""Cold-compile benchmark: what numba's compile costs a fresh checkout, against 15 s of CPU.

Run it from a checkout: ``python benchmarks/compile.py [--repeats N]`` (or
``crokinole bench compile``).

Each measurement runs a fresh Python process with ``NUMBA_CACHE_DIR`` set
to a new empty directory, so nothing is loaded from a cache, and reads its
CPU time (user + system, ``getrusage(RUSAGE_CHILDREN)``).  Two stages:

* **first shot**: import the rules engine and play one shot of a new game
  (what the first shot of a fresh server needs: the simulator of one shot
  and the checks before it); target ≤ 15 s of CPU;
* **server warm-up**: the first shot, then what the server compiles next, off
  the event loop (:func:`crokinole.server.owner.cpu.warm_up`: the batch simulator
  and every CPU level's search), shown beside it.

The median over ``--repeats`` runs of each stage is printed with the target
and PASS/MISS, and the machine's load average (CPU time barely depends on
it; wall time does).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from crokinole.cli.main import count_argument

#: The issue's target for a cold compile of the first shot, CPU seconds.
FIRST_SHOT_TARGET = 15.0
DEFAULT_REPEATS = 1

FIRST_SHOT = """
from crokinole.board import Seat, Shot
from crokinole.rules import Game, Rules
Game(Rules()).shoot(Seat.SOUTH, Shot(0.0, 0.0, 30.0))
"""
WARM_UP = (
    FIRST_SHOT
    + """
from crokinole.server.owner.cpu import warm_up
warm_up()
"""
)


def child_cpu_seconds(code: str) -> tuple[float, float]:
    """CPU (user + system) and wall seconds of ``python -c code`` with an empty numba cache."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="crokinole-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        start = os.times().elapsed
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        wall = os.times().elapsed - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="CPU time of a cold numba compile (empty cache, fresh process): the first "
        "shot, and the server's whole warm-up, against the target.",
    )
    parser.add_argument(
        "--repeats",
        type=count_argument(1),
        default=DEFAULT_REPEATS,
        help=f"fresh processes per stage; the median is shown (default {DEFAULT_REPEATS})",
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = build_parser(prog).parse_args(argv)
    console = Console(width=110)
    table = Table(title="Cold compile (empty NUMBA_CACHE_DIR, fresh process)")
    for column in ("stage", "runs", "CPU s (median)", "wall s (median)", "target", ""):
        table.add_column(column)
    ok = True
    for name, code, target in (
        ("first shot (import + one shot)", FIRST_SHOT, FIRST_SHOT_TARGET),
        ("server warm-up (first shot, then every CPU level)", WARM_UP, None),
    ):
        runs = [child_cpu_seconds(code) for _ in range(args.repeats)]
        cpu = statistics.median(c for c, _ in runs)
        wall = statistics.median(w for _, w in runs)
        verdict = ""
        if target is not None:
            passed = cpu <= target
            ok &= passed
            verdict = "PASS" if passed else "MISS"
        table.add_row(
            name,
            str(args.repeats),
            f"{cpu:.1f}",
            f"{wall:.1f}",
            "" if target is None else f"≤ {target:g}",
            verdict,
        )
    console.print(table)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    console.print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
