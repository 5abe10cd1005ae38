"""A hall event with two boards entered through the score keeper on a phone (issue 23, "Checks").

An organiser's event on real boards; four named players join by its code, each on their own
phone (360x640), and check in; round 1 is paired on two boards and started. On each board
the first side's phone opens the board's "Score sheet" (the score keeper, opened for the
event: it names the event and the board), enters the four rounds (R2: the round totals and,
counting the discs, the 20s) and sends the result to the event. Board 1's result is
confirmed by the other side on their phone, board 2's by the organiser; the standings then
show both results, with figures worked by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_browser import new_page
from tests.web.test_event_pages import HALL, Organiser, open_site_page, organiser

__all__ = ["new_page"]

pytestmark = pytest.mark.browser

PHONE = (360, 640)

#: A round by its discs (per side: in the 20, on 15, on 10, on 5), as the score keeper counts.
#: Board 1, side 0 wins 3 rounds of 4: game points 6–2.
BOARD_1 = (
    ((1, 1, 0, 0), (0, 0, 1, 0)),  # 35–10
    ((0, 0, 0, 1), (0, 1, 0, 0)),  # 5–15
    ((2, 0, 0, 0), (0, 0, 1, 1)),  # 40–15
    ((0, 1, 1, 0), (0, 0, 0, 2)),  # 25–10
)
#: Board 2, side 1 wins every round: game points 0–8.
BOARD_2 = (
    ((0, 0, 0, 1), (1, 0, 0, 0)),  # 5–20
    ((0, 0, 1, 0), (0, 1, 0, 0)),  # 10–15
    ((0, 0, 0, 0), (0, 0, 1, 0)),  # 0–10
    ((0, 0, 0, 1), (0, 0, 1, 0)),  # 5–10
)
ZONES = (20, 15, 10, 5)


def fill_sheet(phone: Any, rounds: Any) -> None:
    """Enter every round on the score keeper by counting the discs, one tap per disc."""
    phone.get_by_test_id("mode-counts").check()
    for sides in rounds:
        for side, counts in enumerate(sides):
            for zone, n in zip(ZONES, counts, strict=True):
                for _ in range(n):
                    phone.get_by_test_id(f"sheet-plus-{side}-{zone}").click()
        phone.get_by_test_id("sheet-add-round").click()
        phone.wait_for_timeout(50)


def test_a_hall_event_with_two_boards_through_the_score_keeper(
    new_page: Any, server_url: str
) -> None:
    org = organiser(new_page, server_url, "hallorg")
    api = Organiser(org, server_url)
    api.create({"name": "Hall night", "format": "swiss", "rounds": 2, **HALL})
    code = api.view()["code"]

    phones: dict[str, Any] = {}
    for name in ("Ann", "Bob", "Cy", "Dee"):
        phone = open_site_page(new_page, f"{server_url}/events/join/{code}", *PHONE, has_touch=True)
        phone.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
        phone.get_by_test_id("join-name").fill(name)
        phone.get_by_test_id("join-button").click()
        phone.get_by_test_id("check-in").click()
        phone.get_by_test_id("me-words").filter(has_text="checked in").wait_for()
        phones[name] = phone
    round_ = api.pair_and_start()
    assert [p["table"] for p in round_["pairings"]] == [1, 2]
    by_id = {e["id"]: e["name"] for e in api.view()["entrants"]}
    boards = {
        p["table"]: [by_id[p["sides"][0][0]], by_id[p["sides"][1][0]]] for p in round_["pairings"]
    }

    for table, rounds in ((1, BOARD_1), (2, BOARD_2)):
        keeper = phones[boards[table][0]]
        keeper.get_by_test_id(f"pairing-state-1-{table}").filter(has_text="Playing").wait_for(
            timeout=10_000
        )
        assert f"Board {table}" in keeper.get_by_test_id(f"pairing-1-{table}").inner_text()
        keeper.get_by_test_id(f"sheet-1-{table}").click()
        keeper.wait_for_url("**/keep-score?*")
        keeper.get_by_test_id("sheet-title").wait_for()
        # The score keeper names the event and the board, and the sheet the board's players.
        keeper.get_by_test_id("sheet-event").filter(has_text="Hall night").wait_for()
        assert f"Board {table}, round 1" in keeper.get_by_test_id("sheet-event").inner_text()
        assert keeper.get_by_test_id("sheet-title").inner_text() == " – ".join(boards[table])
        assert keeper.get_by_test_id("send-result").is_hidden()  # not before the game is over
        fill_sheet(keeper, rounds)
        keeper.get_by_test_id("sheet-winner").wait_for()
        keeper.get_by_test_id("send-result").click()
        keeper.get_by_test_id("send-words").filter(has_text="Sent").wait_for()
        wide = keeper.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= PHONE[0]

    # Board 1: the other side confirms on their phone (the event page, live).
    other = phones[boards[1][1]]
    other.get_by_test_id("confirm-1-1").click(timeout=10_000)
    other.get_by_test_id("pairing-state-1-1").filter(has_text="Finished").wait_for()
    assert other.get_by_test_id("pairing-score-1-1").inner_text() == "6–2"
    # Board 2: the organiser confirms.
    org.goto(f"{server_url}/events/{api.id}")
    org.get_by_test_id("confirm-1-2").click(timeout=10_000)
    org.get_by_test_id("pairing-state-1-2").filter(has_text="Finished").wait_for()
    assert org.get_by_test_id("pairing-score-1-2").inner_text() == "0–8"

    # The standings, by hand. Board 1's winner: 105–50 in round points (+55), 20s 1+0+2+0 = 3;
    # board 2's winner: 55–20 (+35), 20s 1; both 2 match points, board 1's first by 20s. The
    # losers, board 2's side 0 (−35) and board 1's side 1 (−55), are level on match points and
    # 20s (0) and never met (head-to-head level): the differential decides.
    rows = org.get_by_test_id("standings-table").locator("tbody tr")
    rows.first.wait_for()
    names = [rows.nth(k).locator("th.name > span").inner_text() for k in range(4)]
    assert names == [boards[1][0], boards[2][1], boards[2][0], boards[1][1]]
    figures = [
        tuple(
            rows.nth(k).locator(f"td[data-tie-break={key}]").inner_text()
            for key in ("match_points", "twenties", "differential")
        )
        for k in range(4)
    ]
    assert figures == [("2", "3", "+55"), ("2", "1", "+35"), ("0", "0", "−35"), ("0", "0", "−55")]
    # The other side's phone (still on the event page) sees the same standings, live.
    phone = phones[boards[1][1]]
    phone.get_by_test_id("standings-table").wait_for(timeout=10_000)
    first = phone.get_by_test_id("standings-table").locator("tbody tr th.name > span").first
    assert first.inner_text() == boards[1][0]
