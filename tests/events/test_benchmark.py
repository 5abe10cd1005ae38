"""benchmarks/events_pairing.py runs (tiny counts) and prints its figures' lines."""

from __future__ import annotations

import pytest

from crokinole.cli.main import load_benchmark


def test_the_pairing_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_benchmark("events_pairing")
    args = ["--sizes", "8", "--seeds", "1", "--doubles-seeds", "1", "--rounds", "3"]
    assert bench.main(args, prog="crokinole bench events_pairing") == 0
    out = capsys.readouterr().out
    assert "Swiss, 3 rounds" in out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["8"], ["9"])]
    assert [row[0] for row in rows] == ["8", "9"]
    assert all(row[-3:-1] == ["0", str(int(row[0]) % 2)] for row in rows)  # rematches, byes
    assert "rotating doubles, 16 players x 3 rounds, 1 seeds: most times partnered 1" in out
