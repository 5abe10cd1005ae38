"""The env benchmarks run (``crokinole bench env`` and its baselines) and print their tables."""

from __future__ import annotations

import pytest

from crokinole.cli.main import main


def test_bench_env_prints_the_speed_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "env", "--boards", "8", "--steps", "2", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "env steps/s" in out and "open_20" in out and "star8" in out


def test_bench_env_baselines_prints_each_policy(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "env", "baselines", "--episodes", "2", "--tasks", "open_20", "win_round"]
    assert main([*argv, "--round-episodes", "2", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| `open_20` | 2 |" in out and "| `win_round` | 2 |" in out
    assert all(name in out for name in ("Random", "CPU Easy", "CPU Expert"))
