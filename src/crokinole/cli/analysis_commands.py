"""``crokinole review``: every shot of a recorded game valued against the Expert's best.

The record is a game record file (``docs/record-format.md``); the review is
:func:`crokinole.analysis.review.review`.  A file that cannot be read or is
not a record is one plain line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from crokinole.analysis.review import GRADE_THRESHOLDS, GameReview, Grade, ShotReview, review
from crokinole.analysis.value import Accuracy
from crokinole.errors import CrokinoleError
from crokinole.rules import MAX_RECORD_BYTES, Game, game_from_json

#: The accuracies a review may be valued under, as ``--accuracy`` takes them.
ACCURACIES = ("human", "steady", "easy", "normal", "hard", "expert")
#: How each grade is shown.
GRADE_STYLES = {
    Grade.GOOD: "green",
    Grade.INACCURACY: "yellow",
    Grade.MISTAKE: "dark_orange",
    Grade.BLUNDER: "bold red",
}


def thresholds_text() -> str:
    """The grade thresholds in words, for ``--help``.

    >>> print(thresholds_text())
    good: loss < 0.05; inaccuracy: loss < 0.12; mistake: loss < 0.25; blunder: loss >= 0.25
    """
    parts = [f"{grade.value}: loss < {bound:g}" for grade, bound in GRADE_THRESHOLDS]
    parts.append(f"{Grade.BLUNDER.value}: loss >= {GRADE_THRESHOLDS[-1][1]:g}")
    return "; ".join(parts)


class UnusableRecordError(Exception):
    """A record the review cannot use; the message is the one line shown."""


def read_game(path: str) -> Game:
    """The game in the record file at ``path`` (``-``: standard input).

    Raises:
        UnusableRecordError: the file cannot be read, is too big, or is not a record.
    """
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with Path(path).open("rb") as file:
                data = file.read(MAX_RECORD_BYTES + 1)
    except OSError as exc:
        raise UnusableRecordError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise UnusableRecordError(
            f"{path} is not a crokinole game record: it is over {MAX_RECORD_BYTES} bytes"
        )
    try:
        return game_from_json(data)
    except CrokinoleError as exc:
        raise UnusableRecordError(f"{path} is not a crokinole game record: {exc}") from None


def _shot_text(s: ShotReview) -> str:
    shot = s.shot
    return f"{shot.position:+.1f}° {shot.direction:+.1f}° {shot.power:.0f}%"


def _value_text(margin: float, win: float) -> str:
    return f"{margin:+.1f} pts {win:.0%}"


def print_review(review_: GameReview, *, title: str, console: Console) -> None:
    """The review as tables: one row per shot, then a summary per seat."""
    table = Table(title=title)
    for name in ("#", "round", "turn", "seat", "shot", "value", "best", "loss", "grade"):
        table.add_column(name, justify="left" if name in ("seat", "grade") else "right")
    for s in review_.shots:
        style = GRADE_STYLES[s.grade]
        table.add_row(
            str(s.index),
            str(s.round),
            str(s.turn),
            s.seat.name.lower(),
            _shot_text(s),
            _value_text(s.played.margin, s.played.round_win),
            _value_text(s.best.margin, s.best.round_win),
            f"{s.loss_margin:+.1f} pts {s.loss_win:.0%}",
            f"[{style}]{s.grade.value}[/{style}]",
        )
    console.print(table)
    summary = Table(title="Per seat")
    summary.add_column("seat")
    for name in ("shots", *(g.value for g in Grade), "mean loss"):
        summary.add_column(name, justify="right")
    for seat in review_.summary():
        summary.add_row(
            seat.seat.name.lower(),
            str(seat.shots),
            *(str(seat.grades[g]) for g in Grade),
            f"{seat.mean_loss_margin:+.1f} pts {seat.mean_loss_win:.1%}",
        )
    console.print(summary)
    console.print(
        "value: expected round margin after the shot and the chance to win the round; "
        "best: the Expert's best shot, valued with the same draws; "
        f"loss: best minus value.  Grades by loss of round-win chance: {thresholds_text()}."
    )


def run_review(args: argparse.Namespace) -> int:
    """Review the record and print (or write) the result."""
    try:
        game = read_game(args.record)
    except UnusableRecordError as exc:
        print(f"crokinole review: {exc}", file=sys.stderr)
        return 2
    to_stdout = args.json == "-"
    # With the JSON on standard output, everything else goes to stderr.
    console = Console(stderr=to_stdout)
    accuracy = Accuracy.named(args.accuracy)
    start = time.perf_counter()
    with Progress(
        TextColumn("reviewing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("shots", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = review(game, accuracy=accuracy, seed=args.seed, progress=advance)
        except CrokinoleError as exc:
            print(f"crokinole review: {args.record}: {exc}", file=sys.stderr)
            return 2
    elapsed = time.perf_counter() - start
    if to_stdout:
        sys.stdout.write(json.dumps(result.to_dict(), indent=1) + "\n")
        return 0
    print_review(
        result,
        title=f"Review of {Path(args.record).name}: {len(result.shots)} shots, "
        f"accuracy {result.accuracy}, seed {result.seed}",
        console=console,
    )
    console.print(f"reviewed in {elapsed:.1f} s")
    if args.json is not None:
        try:
            Path(args.json).write_text(json.dumps(result.to_dict(), indent=1) + "\n")
        except OSError as exc:
            print(
                f"crokinole review: cannot write {args.json}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 2
        console.print(f"review written to {args.json}")
    return 0


def add_commands(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    count: Callable[[int], Callable[[str], int]],
) -> None:
    """Register ``review`` on the top-level parser."""
    parser = commands.add_parser(
        "review",
        help="value and grade every shot of a recorded game",
        description=(
            "Replay a game record and value every shot against the Expert's best shot in "
            "that position: the expected round margin and the chance to win the round, "
            "each shot played again under the chosen accuracy (same draws for both). "
            "Prints a table of the shots with their loss and grade, and a summary per seat."
        ),
        epilog=(
            "Grades go by the loss of round-win chance against the best shot (0 to 1): "
            f"{thresholds_text()}.  Timeouts are not reviewed.  The same record, accuracy "
            "and seed give the same numbers every time."
        ),
    )
    parser.add_argument(
        "record",
        metavar="RECORD.json",
        help="a game record file (docs/record-format.md); - reads stdin",
    )
    parser.add_argument(
        "--json",
        metavar="OUT",
        help="also write the review as JSON to OUT (- : to standard output, instead of the table)",
    )
    parser.add_argument(
        "--accuracy",
        choices=ACCURACIES,
        default="human",
        help="how exactly shots are played when valued: human (a strong player's hand, the "
        "Expert's noise), steady (exactly as aimed) or a CPU level's noise "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--seed", type=count(0), default=0, metavar="N", help="random seed (default: %(default)s)"
    )
    parser.set_defaults(handler=run_review)
