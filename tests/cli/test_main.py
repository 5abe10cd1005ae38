"""The ``crokinole`` command line, run as a subprocess (``python -m crokinole``).

The benchmark runs with tiny counts so the whole file takes seconds (after numba's
on-disk cache is warm).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "--shots",
    "20",
    "--batch",
    "32",
    "--repeats",
    "1",
    "--pymunk-shots",
    "5",
    "--accuracy-shots",
    "3",
]


def _run(
    *args: str, module: bool = True, python_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    # A wide console keeps rich from wrapping the table's headers.
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    if python_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(python_path), env.get("PYTHONPATH", "")) if p
        )
    command = [sys.executable, "-m", "crokinole"] if module else [sys.executable]
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
        check=False,
    )


def _assert_report(out: str) -> None:
    assert "Physics throughput" in out
    for scene in ("0 discs", "6 discs", "14 discs"):
        assert scene in out
    assert "ratio single" in out
    assert "ratio batch" in out
    assert "Targets" in out
    assert ("PASS" in out) or ("MISS" in out)


def test_bench_physics_tiny_run_prints_the_table() -> None:
    result = _run("bench", "physics", *TINY)
    assert result.returncode == 0, result.stderr
    _assert_report(result.stdout)
    # Each scene's row: its name, our two rates, pymunk's rate and the two ratios.
    for scene in (0, 6, 14):
        row = rf"\b{scene} discs\W+[\d,]+\W+[\d,]+\W+([\d,]+|n/a)\W+([\d,]+x|n/a)\W+([\d,]+x|n/a)"
        assert re.search(row, result.stdout), result.stdout


def test_bench_physics_without_pymunk_still_prints_our_figures(tmp_path: Path) -> None:
    (tmp_path / "pymunk.py").write_text('raise ImportError("pymunk hidden by the test")\n')
    result = _run("bench", "physics", *TINY, python_path=tmp_path)
    assert result.returncode == 0, result.stderr
    _assert_report(result.stdout)
    assert "pymunk is not installed" in result.stdout
    assert "bench" in result.stdout
    assert "n/a" in result.stdout


def test_benchmark_script_runs_the_same_command() -> None:
    result = _run("benchmarks/physics.py", "--help", module=False)
    assert result.returncode == 0, result.stderr
    assert "--pymunk-shots" in result.stdout
    assert result.stdout.startswith("usage: physics.py")


def test_a_benchmark_outside_a_checkout_is_explained(capsys: pytest.CaptureFixture[str]) -> None:
    # Benchmarks live in benchmarks/ of a checkout, not in the installed package.
    from crokinole.cli.main import run_benchmark  # noqa: PLC0415 - the in-process check

    assert run_benchmark("no_such_benchmark", []) == 2
    assert "run `python benchmarks/no_such_benchmark.py` in a checkout" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "flag", "why"),
    [
        (["--shots", "-3"], "--shots", "positive integer"),
        (["--shots", "0"], "--shots", "positive integer"),
        (["--batch", "abc"], "--batch", "positive integer"),
        (["--repeats", "1.5"], "--repeats", "positive integer"),
        (["--pymunk-shots", "-1"], "--pymunk-shots", "non-negative integer"),
        (["--seed", "-1"], "--seed", "non-negative integer"),
        (["--bogus"], "--bogus", "unrecognized arguments"),
    ],
)
def test_bad_flags_exit_2_with_a_message(args: list[str], flag: str, why: str) -> None:
    result = _run("bench", "physics", *args)
    assert result.returncode == 2
    assert "error:" in result.stderr
    assert flag in result.stderr
    assert why in result.stderr
    assert "Physics throughput" not in result.stdout


@pytest.mark.parametrize(
    ("args", "flag", "why"),
    [
        (["--positions", "0"], "--positions", "positive integer"),
        (["--positions", "many"], "--positions", "positive integer"),
        (["--seed", "-1"], "--seed", "non-negative integer"),
    ],
)
def test_cpu_fouls_bad_flags_exit_2_naming_the_flag(args: list[str], flag: str, why: str) -> None:
    # The same plain argparse errors as the physics benchmark, before any play.
    result = _run("bench", "cpu_fouls", *args)
    assert result.returncode == 2
    assert "error:" in result.stderr
    assert flag in result.stderr
    assert why in result.stderr
    assert "Fouls where" not in result.stdout


def test_unknown_command_exits_2() -> None:
    result = _run("frobnicate")
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["--help"], ["bench", "--help"], ["bench", "physics", "--help"]],
)
def test_help_works(args: list[str]) -> None:
    result = _run(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: crokinole")


def test_physics_help_documents_every_flag() -> None:
    out = _run("bench", "physics", "--help").stdout
    for flag in (
        "--shots",
        "--batch",
        "--repeats",
        "--pymunk-shots",
        "--pymunk-repeats",
        "--accuracy-shots",
        "--seed",
    ):
        assert flag in out
    assert "default: 2000" in out


@pytest.mark.parametrize(("args", "shown"), [([], "bench"), (["bench"], "physics")])
def test_missing_subcommand_prints_help(args: list[str], shown: str) -> None:
    result = _run(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: crokinole")
    assert shown in result.stdout


def test_match_tiny_run_prints_results_and_times() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crokinole", "match", "--a", "normal", "--b", "easy",
         "--games", "2", "--seed", "3", "--preset", "tournament"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "A wins / draws / losses" in out.stdout
    assert "95% CI" in out.stdout
    assert "decision time A (normal)" in out.stdout
    assert "2 games in" in out.stdout


def test_match_refuses_an_unknown_level() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crokinole", "match", "--a", "godlike"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 2
    assert "invalid choice: 'godlike'" in out.stderr


def test_calibrate_prints_every_level() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crokinole", "calibrate", "--tries", "50"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "50 tries each" in out.stdout
    assert "fresh decision (choose_shot)" in out.stdout and "95% CI" in out.stdout
    for level in ("Easy", "Normal", "Hard", "Expert"):
        assert re.search(rf"{level} +│ +\d+ of 50 \(\d+\.\d%\) │ \d+\.\d%–\d+\.\d%", out.stdout)


def test_match_help_speaks_of_95_percent_once() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crokinole", "match", "--help"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    text = " ".join(out.stdout.split())
    assert "95% confidence intervals" in text
    assert "%%" not in out.stdout


@pytest.mark.parametrize(
    ("args", "flag", "why"),
    [
        (["--standin-grace", "-1"], "--standin-grace", "positive number"),
        (["--round-countdown", "soon"], "--round-countdown", "positive number"),
        (["--turn-grace", "0"], "--turn-grace", "positive number"),
        (["--cpu-workers", "0"], "--cpu-workers", "positive integer"),
    ],
)
def test_serve_party_timings_refuse_bad_values(args: list[str], flag: str, why: str) -> None:
    result = _run("serve", "--port", "1", *args)
    assert result.returncode == 2
    assert flag in result.stderr
    assert why in result.stderr


def test_serve_party_timings_reach_the_server_settings() -> None:
    from crokinole.cli.main import build_parser  # noqa: PLC0415

    args = build_parser().parse_args(
        ["serve", "--standin-grace", "0.5", "--round-countdown", "1", "--test-clocks"]
    )
    assert (args.standin_grace, args.round_countdown, args.test_clocks) == (0.5, 1.0, True)
    assert (args.turn_grace, args.cpu_workers) == (2.0, 2)  # the defaults of ServerSettings
