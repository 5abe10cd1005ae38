"""The server load benchmark (``benchmarks/server.py``) at a tiny size, against a real server.

The full measurement is ``crokinole bench server`` (200 parties, 60 s).  Here
two parties play for a few seconds on a real ``crokinole serve`` process over
real websockets: one keeps both players, the other loses its second player
so the server's stand-in CPU plays that seat.  Nothing is asserted on time
values: only that the run had no errors and that the figures were printed.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "server.py"


def _load() -> ModuleType:
    # As `crokinole bench server` loads it: the script is not part of the package.
    spec = importlib.util.spec_from_file_location("crokinole_benchmark_server", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _load()


def test_the_benchmarks_examples_hold() -> None:
    # quantile_interval's median example is the textbook one: n = 100 gives ranks 40 and 61.
    result = doctest.testmod(bench)
    assert result.attempted > 0
    assert result.failed == 0


def test_help_explains_every_option() -> None:
    env = dict(os.environ, COLUMNS="200")
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
        timeout=120,
    ).stdout
    for option in (
        "--games",
        "--seconds",
        "--pace",
        "--standin-share",
        "--standin-grace",
        "--drain",
        "--setup-timeout",
        "--seed",
        "--db",
        "--server-log",
        "--no-compression",
    ):
        assert option in out
    assert "p99 <= 100 ms" in out


@pytest.mark.parametrize(("args", "flag"), [(["--games", "0"], "--games"),
                                            (["--standin-share", "1.5"], "--standin-share"),
                                            (["--seconds", "-1"], "--seconds")])  # fmt: skip
def test_bad_options_exit_2_naming_the_option(args: list[str], flag: str) -> None:
    answer = subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    assert answer.returncode == 2
    assert flag in answer.stderr


def test_two_parties_play_on_a_real_server_with_no_errors() -> None:
    # The window outlasts the (shortened) stand-in grace: the stand-in CPU must have played.
    options = bench.BenchOptions(seconds=6.0, standin_share=0.5, standin_grace=1.0, drain=5.0)
    console = Console(record=True, width=220, force_terminal=False)
    [figures] = bench.run_server_bench([2], options, console)

    assert figures.opened == 2
    assert figures.standin_games == 1
    assert figures.error_count == 0, figures.error_samples
    # The party of two timed its person shots on the other player's socket; the
    # other party's stand-in CPU took the missing player's turns (R7).
    assert len(figures.latencies) > 0
    assert len(figures.own_latencies) > 0
    assert figures.standin_shots > 0
    assert figures.rss_after_kib > 0

    bench.print_server_report([figures], options, console)
    out = console.export_text()
    for shown in ("p50", "p99", "errors", "memory per game", "shots timed", "no errors"):
        assert shown in out
