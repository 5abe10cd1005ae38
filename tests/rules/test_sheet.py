"""The score keeper's sheet (R2, R6): every format, three sides, ties, bad entries."""

from __future__ import annotations

import pytest

from crokinole.board import Seat
from crokinole.rules import Layout, Scoring, TieSetting
from crokinole.rules.sheet import ScoreSheet, SheetError


def _sheet(
    layout: Layout = Layout.SINGLES, scoring: Scoring = Scoring.FOUR_ROUNDS, **kw: object
) -> ScoreSheet:
    names = {
        Layout.SINGLES: ("Ann", "Bob"),
        Layout.DOUBLES: ("Reds", "Blues"),
        Layout.TWO_VS_ONE: ("Pair", "Solo"),
        Layout.THREE_SINGLES: ("Ann", "Bob", "Cy"),
    }[layout]
    return ScoreSheet.new(layout, names, scoring, **kw)  # type: ignore[arg-type]


def test_four_rounds_two_one_zero_and_a_winner() -> None:
    # R6: 2 for a round win, 1 each for a tie; after four rounds the higher score wins.
    sheet = _sheet()
    for totals in ((60, 20), (35, 35), (10, 40), (55, 50)):
        sheet = sheet.add_round(totals=totals)
    summary = sheet.summary()
    assert [line.points for line in summary.rounds] == [(2, 0), (1, 1), (0, 2), (2, 0)]
    assert summary.scores == (5, 3)
    assert summary.outcome is not None and summary.outcome.winner == 0
    with pytest.raises(SheetError, match="the game is over"):
        sheet.add_round(totals=(5, 0))


def test_four_round_tie_draws_or_plays_extra_rounds() -> None:
    # R2 tie setting.
    rounds = ((20, 10), (10, 20), (15, 15), (5, 5))
    drawn = _sheet(tie=TieSetting.DRAW)
    extra = _sheet(tie=TieSetting.EXTRA_ROUNDS)
    for totals in rounds:
        drawn = drawn.add_round(totals=totals)
        extra = extra.add_round(totals=totals)
    assert drawn.summary().outcome is not None and drawn.summary().outcome.is_draw
    assert extra.summary().outcome is None
    extra = extra.add_round(totals=(0, 15))
    assert extra.summary().outcome is not None and extra.summary().outcome.winner == 1


def test_to_100_adds_the_difference() -> None:
    # R2: the round winner adds the difference; first to 100 wins; a tied round adds nothing.
    sheet = _sheet(scoring=Scoring.TO_100)
    sheet = sheet.add_round(totals=(80, 20)).add_round(totals=(40, 40)).add_round(totals=(10, 30))
    assert sheet.summary().scores == (60, 20)
    sheet = sheet.add_round(totals=(65, 20))
    summary = sheet.summary()
    assert summary.scores == (105, 20) and summary.outcome is not None
    assert summary.outcome.winner == 0


def test_three_singles_score_three_ways() -> None:
    # R2/R6 with three sides: four rounds (best takes 2, ties for best 1 each) ...
    sheet = _sheet(Layout.THREE_SINGLES)
    sheet = sheet.add_round(totals=(40, 40, 10)).add_round(totals=(5, 30, 20))
    assert [line.points for line in sheet.summary().rounds] == [(1, 1, 0), (0, 2, 0)]
    # ... and to 100: the winner adds its lead over the second best.
    to_100 = _sheet(Layout.THREE_SINGLES, Scoring.TO_100).add_round(totals=(50, 35, 20))
    assert to_100.summary().scores == (15, 0, 0)


def test_next_first_shooter_follows_r2() -> None:
    singles = _sheet()
    assert [singles.summary().next_first] == [Seat.SOUTH]
    singles = singles.add_round(totals=(5, 0))
    assert singles.summary().next_first is Seat.NORTH
    doubles = _sheet(Layout.DOUBLES)
    order = []
    for _ in range(4):
        order.append(doubles.summary().next_first)
        doubles = doubles.add_round(totals=(5, 5))
    assert order == [Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST]
    two_vs_one = _sheet(Layout.TWO_VS_ONE).add_round(totals=(5, 5)).add_round(totals=(5, 5))
    assert [line.first for line in two_vs_one.summary().rounds] == [Seat.SOUTH, Seat.WEST]


def test_counting_helper_computes_the_total() -> None:
    sheet = _sheet(Layout.DOUBLES).add_round(counts=((2, 3, 1, 0), (0, 1, 4, 6)))
    line = sheet.summary().rounds[0]
    assert line.totals == (40 + 45 + 10, 15 + 40 + 30)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"totals": (-5, 10)}, "a total is a whole number ≥ 0"),
        ({"totals": (12, 10)}, "12 is not a multiple of 5"),
        ({"totals": (10,)}, "a total is needed for each of the 2 sides"),
        ({"totals": (165, 0)}, "more than 160"),
        ({"counts": ((1, 1, 1, 1), (5, 2, 2, 0))}, "9 discs counted, but a side has only 8"),
        ({"counts": ((1, -1, 0, 0), (0, 0, 0, 0))}, "whole numbers of discs"),
        ({"counts": ((1, 1, 1), (0, 0, 0, 0))}, "four numbers"),
        ({}, "either each side's total or each side's counts"),
    ],
)
def test_bad_entries_are_refused_with_a_clear_message(
    entry: dict[str, object], message: str
) -> None:
    sheet = _sheet().add_round(totals=(10, 5))
    with pytest.raises(SheetError, match=message):
        sheet.add_round(**entry)  # type: ignore[arg-type]
    assert len(sheet.rounds) == 1


def test_edit_and_delete_rounds_and_the_totals_follow() -> None:
    sheet = _sheet().add_round(totals=(20, 10)).add_round(totals=(0, 30))
    assert sheet.summary().scores == (2, 2)
    edited = sheet.edit_round(1, totals=(40, 30))
    assert edited.summary().scores == (4, 0)
    deleted = edited.delete_round(0)
    assert deleted.summary().scores == (2, 0) and len(deleted.rounds) == 1
    with pytest.raises(SheetError, match="there is no round 5"):
        sheet.delete_round(4)


def test_an_edit_that_would_end_the_game_early_is_refused() -> None:
    sheet = _sheet(scoring=Scoring.TO_100).add_round(totals=(50, 0)).add_round(totals=(20, 0))
    with pytest.raises(SheetError, match="ends after round 1, but later rounds follow"):
        sheet.edit_round(0, totals=(110, 0))


def test_sheet_round_trips_and_exports_csv() -> None:
    sheet = _sheet().add_round(counts=((1, 0, 2, 0), (0, 1, 0, 1))).add_round(totals=(5, 0))
    assert ScoreSheet.from_dict(sheet.to_dict()) == sheet
    csv = sheet.to_csv().splitlines()
    header = '"round","first","Ann total","Bob total",'
    header += '"Ann points","Bob points","Ann score","Bob score"'
    assert csv[0] == header
    assert csv[1] == "1,south,40,20,2,0,2,0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("quads", ("a", "b"), "four_rounds"), "layout must be one of"),
        (("singles", ("a",), "four_rounds"), "singles needs 2 names"),
        (("singles", ("a", " "), "four_rounds"), "every side needs a name"),
        (("singles", ("a", "b"), "to_50"), "scoring must be one of"),
    ],
)
def test_bad_sheets_are_refused(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(SheetError, match=message):
        ScoreSheet.new(*args)  # type: ignore[arg-type]


def test_deleting_a_round_that_would_end_the_game_early_is_refused() -> None:
    # Extra rounds: without round 1 the game would end after round 4, yet a 5th follows.
    sheet = _sheet(tie=TieSetting.EXTRA_ROUNDS)
    for totals in ((20, 0), (0, 20), (20, 0), (0, 20), (10, 10), (20, 0)):
        sheet = sheet.add_round(totals=totals)
    with pytest.raises(SheetError, match="ends after round 4, but later rounds follow"):
        sheet.delete_round(0)
    assert len(sheet.rounds) == 6
