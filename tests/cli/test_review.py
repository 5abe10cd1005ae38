"""``crokinole review RECORD.json`` and ``crokinole bench analysis``, run in process.

The review's own numbers are tested in tests/analysis/test_review.py; here the
command's shape: the table, the JSON it writes, its errors (one plain line,
exit 2) and the grade thresholds in its help.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crokinole.analysis.review import GRADE_THRESHOLDS, review
from crokinole.analysis.value import Accuracy
from crokinole.board import Seat, Shot
from crokinole.cli.main import main
from crokinole.rules import Game, Rules

#: A steady open 20 from the middle of the quarter, and a shot through the middle at full
#: power that leaves the board (R5) and, on an open board, is a foul (R4).
OPEN_TWENTY = Shot(position=0.0, direction=0.0, power=29.0)
DITCH = Shot(position=0.0, direction=0.0, power=100.0)


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    # A wide console keeps rich from wrapping or cutting the table's cells.
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")


@pytest.fixture(scope="module")
def game() -> Game:
    game = Game(Rules(rounds=1))
    game.shoot(Seat.SOUTH, OPEN_TWENTY)
    game.shoot(Seat.NORTH, DITCH)
    return game


@pytest.fixture
def record(tmp_path: Path, game: Game) -> Path:
    path = tmp_path / "game.json"
    path.write_text(game.to_json())
    return path


def test_review_prints_a_table_of_the_shots(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(record), "--accuracy", "steady"]) == 0
    out = capsys.readouterr().out
    for header in ("round", "seat", "shot", "value", "best", "loss", "grade"):
        assert header in out
    assert "accuracy steady" in " ".join(out.split())
    # South's open 20 is the best shot; north's disc in the ditch while the open 20 was
    # there (margin -20 instead of 0, 14 shots to come) loses about 0.22: a mistake.
    rows = [line for line in out.splitlines() if " south " in line or " north " in line]
    assert "good" in rows[0] and "south" in rows[0] and "+20.0 pts" in rows[0]
    assert "mistake" in rows[1] and "north" in rows[1]
    assert "Per seat" in out


def test_review_writes_the_json_of_the_review(
    record: Path, game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review.json"
    assert main(["review", str(record), "--json", str(out), "--seed", "3"]) == 0
    assert f"review written to {out}" in capsys.readouterr().out
    expected = review(game, accuracy=Accuracy.human(), seed=3).to_dict()
    assert json.loads(out.read_text()) == json.loads(json.dumps(expected))


def test_review_json_to_stdout_is_only_json(
    record: Path, game: Game, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(record), "--json", "-", "--accuracy", "hard"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accuracy"] == "hard"
    assert [s["grade"] for s in data["shots"]] == [
        s.grade.value for s in review(game, accuracy=Accuracy.named("hard")).shots
    ]


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "cannot read"),
        ("this is not json", "is not a crokinole game record"),
        ('{"format": "chess-pgn"}', "is not a crokinole game record"),
    ],
)
def test_a_bad_file_is_one_plain_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, why: str
) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    assert main(["review", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("crokinole review: ") and why in lines[0]
    assert "Traceback" not in captured.err


def test_help_documents_the_grade_thresholds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["review", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for grade, bound in GRADE_THRESHOLDS:
        assert f"{grade.value}: loss < {bound:g}" in text
    assert "blunder: loss >= 0.25" in text
    assert "--json OUT" in text and "--accuracy" in text


def test_unknown_accuracy_is_refused_by_argparse(record: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["review", str(record), "--accuracy", "mine"])
    assert exit_.value.code == 2


def test_bench_analysis_quick_names_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "analysis", "--quick"]) == 0
    out = capsys.readouterr().out
    for figure in ("hint p50", "hint p95", "heat map", "review of a 16-shot game"):
        assert figure in out
    assert "quick run" in out
    for target in ("≤ 300 ms", "≤ 1000 ms", "≤ 5 s"):
        assert target in out
