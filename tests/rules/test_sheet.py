"""The score keeper's sheet (R2, R6): every format, three sides, ties, bad entries."""

from __future__ import annotations

import csv
import io

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
    rows = list(csv.reader(io.StringIO(sheet.to_csv(), newline="")))
    assert rows[0][:3] == ["game", "round", "first"]
    assert rows[0][3:10] == [
        "Ann 20s", "Ann 15s", "Ann 10s", "Ann 5s", "Ann total", "Ann points", "Ann score"
    ]  # fmt: skip
    assert rows[0][-2:] == ["discs per side", "winner"]
    # Round 1 was counted: the disc counts are in the CSV; round 2 has totals only.
    assert rows[1] == ["1", "1", "Ann", "1", "0", "2", "0", "40", "2", "2",
                       "0", "1", "0", "1", "20", "0", "0", "8", ""]  # fmt: skip
    assert rows[2][3:7] == ["", "", "", ""] and rows[2][7] == "5"


def test_csv_names_the_winner_on_the_last_row() -> None:
    sheet = _sheet()
    for totals in ((60, 20), (35, 35), (10, 40), (55, 50)):
        sheet = sheet.add_round(totals=totals)
    rows = list(csv.reader(io.StringIO(sheet.to_csv(), newline="")))
    assert [r[-1] for r in rows[1:]] == ["", "", "", "Ann"]


@pytest.mark.parametrize("start", ["=", "+", "-", "@"])
def test_csv_quotes_per_rfc_4180_and_defuses_formulas(start: str) -> None:
    name = f'{start}HYPERLINK("http://x","A, b")'
    sheet = ScoreSheet.new("singles", (name, "Bob"), "four_rounds").add_round(totals=(10, 5))
    text = sheet.to_csv()
    # RFC 4180: a field with a quote or comma is quoted, a quote inside is doubled.
    assert "\"'" + start + 'HYPERLINK(""http://x"",""A, b"")"' in text
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[1][2] == "'" + name  # the name comes back whole, behind a '
    assert rows[0][3] == "'" + name + " 20s"
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row)
    assert text.endswith("\r\n") and "\r\n" in text


def test_singles_with_twelve_discs_each_the_home_rule() -> None:
    # R2: singles is played with 8 (tournament) or 12 (home rule) discs each; seed 004.
    sheet = ScoreSheet.new("singles", ("Ann", "Bob"), "four_rounds", discs=12)
    assert sheet.rules.discs_per_side == 12
    sheet = sheet.add_round(counts=((3, 4, 3, 2), (0, 0, 0, 0))).add_round(totals=(240, 0))
    assert sheet.summary().rounds[0].totals == (60 + 60 + 30 + 10, 0)
    with pytest.raises(SheetError, match="13 discs counted, but a side has only 12"):
        sheet.add_round(counts=((3, 4, 3, 3), (0, 0, 0, 0)))
    with pytest.raises(SheetError, match="245 is more than 240"):
        sheet.add_round(totals=(245, 0))
    assert ScoreSheet.from_dict(sheet.to_dict()) == sheet
    rows = list(csv.reader(io.StringIO(sheet.to_csv(), newline="")))
    assert rows[1][-2] == "12"


@pytest.mark.parametrize(
    ("layout", "discs", "ok"),
    [
        ("singles", 8, True),
        ("singles", 12, True),
        ("singles", 6, False),
        ("doubles", 12, True),  # R2: 6 per player, 12 per team
        ("doubles", 8, False),
        ("two_vs_one", 12, True),
        ("three_singles", 8, True),
        ("three_singles", 12, False),
    ],
)
def test_disc_counts_of_r2_for_every_format(layout: str, discs: int, ok: bool) -> None:
    names = ("A", "B", "C") if "three" in layout else ("A", "B")
    if ok:
        sheet = ScoreSheet.new(layout, names, "four_rounds", discs=discs)
        assert sheet.rules.discs_per_side == discs
    else:
        with pytest.raises(SheetError, match=f"discs per side, not {discs}"):
            ScoreSheet.new(layout, names, "four_rounds", discs=discs)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (("\u200b\u200b", "Bob"), "at least one visible character, not '\\\\u200b\\\\u200b'"),
        (("\u3164", "Bob"), "at least one visible character"),
        (("\u2800\u00a0", "Bob"), "at least one visible character"),
        (("Ann", "ann"), "two sides are called 'Ann' and 'ann'"),
        (("Ann", "A\u200bnn"), "two sides are called"),
        (("Ｂｏｂ", "Bob"), "two sides are called"),
        (("A\nB", "Bob"), "control characters"),
        (("\u202eboB", "Bob"), "text-direction controls"),
        (("x" * 41, "Bob"), "at most 40 characters, not 41"),
    ],
)
def test_invisible_duplicate_and_odd_names_are_refused(
    names: tuple[str, str], message: str
) -> None:
    with pytest.raises(SheetError, match=message):
        ScoreSheet.new("singles", names, "four_rounds")


def test_emoji_and_accented_names_are_kept() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # joined with zero-width joiners
    sheet = ScoreSheet.new("singles", (family, "Zoé"), "four_rounds")
    assert sheet.names == (family, "Zoé")


def test_a_side_is_renamed_and_keeps_its_rounds() -> None:
    sheet = _sheet().add_round(totals=(20, 5))
    renamed = sheet.renamed(["Ann", "Robert"])
    assert renamed.names == ("Ann", "Robert") and renamed.rounds == sheet.rounds
    with pytest.raises(SheetError, match="two sides are called 'Ann' and 'ANN'"):
        sheet.renamed(["Ann", "ANN"])


def test_players_are_named_and_the_first_shooter_is_a_person() -> None:
    # R2: with four players the opener passes clockwise: south, west, north, east.
    sheet = ScoreSheet.new("doubles", None, "four_rounds", players=[["Ann", "Cy"], ["Bob", "Di"]])
    assert sheet.names == ("Ann & Cy", "Bob & Di")
    openers = []
    for _ in range(4):
        openers.append(sheet.player_name(sheet.summary().next_first))
        sheet = sheet.add_round(totals=(5, 0))
    assert openers == ["Ann", "Bob", "Cy", "Di"]
    assert ScoreSheet.from_dict(sheet.to_dict()) == sheet
    with pytest.raises(SheetError, match="two players are called 'Ann' and 'ann'"):
        sheet.renamed(players=[["Ann", "ann"], ["Bob", "Di"]])
    renamed = sheet.renamed(players=[["Ann", "Cyd"], ["Bob", "Di"]])
    assert renamed.names == ("Ann & Cyd", "Bob & Di")


def test_a_match_of_several_games_on_one_sheet() -> None:
    # Seed 003: a match is several four-round games; each game's result is kept.
    sheet = _sheet(match_games=3)
    game_one = ((60, 20), (35, 35), (10, 40), (55, 50))  # Ann 5 - 3
    game_two = ((0, 20), (0, 20), (0, 20), (0, 20))  # Bob 0 - 8
    game_three = ((20, 0), (20, 0), (20, 0), (20, 0))  # Ann 8 - 0
    for totals in game_one:
        sheet = sheet.add_round(totals=totals)
    summary = sheet.summary()
    assert not summary.over and summary.game == 2 and summary.scores == (0, 0)
    assert summary.games[0].scores == (5, 3) and summary.games[0].outcome.winner == 0  # type: ignore[union-attr]
    # R2: the opener keeps alternating into the next game (round 5 of the sheet: south).
    assert summary.next_first is Seat.SOUTH
    for totals in game_two + game_three:
        sheet = sheet.add_round(totals=totals)
    summary = sheet.summary()
    assert [g.scores for g in summary.games] == [(5, 3), (0, 8), (8, 0)]
    assert [line.number for line in summary.rounds] == [1, 2, 3, 4] * 3
    assert [line.game for line in summary.rounds] == [1] * 4 + [2] * 4 + [3] * 4
    assert summary.wins == (2, 1) and summary.over and summary.outcome.winner == 0  # type: ignore[union-attr]
    with pytest.raises(SheetError, match="the match is over"):
        sheet.add_round(totals=(5, 0))
    assert ScoreSheet.from_dict(sheet.to_dict()) == sheet
    # An edit that leaves game 1 undecided while game 2 is under way is refused.
    tied = sheet.edit_round(3, totals=(50, 50))  # game 1 becomes 4 - 4: drawn (tie setting)
    assert tied.summary().games[0].outcome.is_draw  # type: ignore[union-attr]
    extra = _sheet(match_games=2, tie=TieSetting.EXTRA_ROUNDS)
    for totals in (*game_one, (5, 0)):
        extra = extra.add_round(totals=totals)
    with pytest.raises(SheetError, match="game 1 is not over, but game 2 has started"):
        extra.edit_round(3, totals=(50, 50))
    with pytest.raises(SheetError, match="game 1 is not over, but game 2 has started"):
        extra.delete_round(0)
    rows = list(csv.reader(io.StringIO(sheet.to_csv(), newline="")))
    assert [r[-1] for r in rows[1:] if r[-1]] == ["Ann", "Bob", "Ann", "Ann"]
    assert rows[-1][:3] == ["match", "", "games won"] and rows[-1][9] == "2"


def test_a_drawn_match_and_bad_match_lengths() -> None:
    sheet = _sheet(scoring=Scoring.TO_100, match_games=2)
    sheet = sheet.add_round(totals=(100, 0)).add_round(totals=(0, 100))
    summary = sheet.summary()
    assert summary.over and summary.outcome is not None and summary.outcome.drawn == (0, 1)
    for bad in (0, 10, 2.0, True):
        with pytest.raises(SheetError, match="a match has 1 to 9 games"):
            _sheet(match_games=bad)


def test_a_sheet_saved_before_discs_and_matches_still_reads() -> None:
    old = {"layout": "singles", "scoring": "four_rounds", "tie": "draw",
           "names": ["Ann", "Bob"], "first_seat": "north",
           "rounds": [{"totals": [10, 5], "counts": None}]}  # fmt: skip
    sheet = ScoreSheet.from_dict(old)
    assert sheet.rules.discs_per_side == 8 and sheet.match_games == 1
    assert sheet.summary().rounds[0].first is Seat.NORTH


def test_a_saved_round_filed_under_another_game_is_refused() -> None:
    # R6: a four-round game ends after round 4, so a match's fifth round opens game 2.
    sheet = _sheet(match_games=2)
    for _ in range(5):
        sheet = sheet.add_round(totals=(20, 0))
    data = sheet.to_dict()
    assert [r["game"] for r in data["rounds"]] == [0, 0, 0, 0, 1]
    assert ScoreSheet.from_dict(data) == sheet
    data["rounds"][3]["game"] = 1  # the fourth round still belongs to game 1
    with pytest.raises(SheetError, match="a round is filed under the wrong game"):
        ScoreSheet.from_dict(data)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("quads", ("a", "b"), "four_rounds"), "layout must be one of"),
        (("singles", ("a",), "four_rounds"), "singles needs 2 names"),
        (("singles", ("a", " "), "four_rounds"), "every side needs a name"),
        (("singles", ("a", "b"), "four_rounds", "draw", Seat.WEST), "west does not play"),
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
