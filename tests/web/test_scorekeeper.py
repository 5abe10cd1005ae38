"""The score keeper in a real browser: fill a four-round sheet, see the winner, reload it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.web.conftest import ARTIFACTS

pytestmark = pytest.mark.browser


@pytest.fixture
def page(browser: object, server_url: str) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(server_url)
    page.get_by_test_id("keep-score-link").click()  # reachable from the start screen
    page.wait_for_url("**/keep-score")
    yield page
    context.close()


def _add(page: object, totals: tuple[int, int]) -> None:
    for i, total in enumerate(totals):
        page.get_by_test_id(f"sheet-total-{i}").fill(str(total))  # type: ignore[attr-defined]
    page.get_by_test_id("sheet-add-round").click()  # type: ignore[attr-defined]


def test_a_four_round_sheet_through_the_page_shows_the_winner_and_survives_a_reload(
    page: object, server_url: str
) -> None:
    p = page
    p.get_by_test_id("sheet-name-0").fill("Ann")  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-name-1").fill("Bob")  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-create").click()  # type: ignore[attr-defined]
    next_line = p.get_by_test_id("sheet-next")  # type: ignore[attr-defined]
    next_line.wait_for()
    assert "Round 1: South shoots first" in next_line.inner_text()
    _add(p, (45, 30))
    p.get_by_test_id("sheet-round-1").wait_for()  # type: ignore[attr-defined]
    assert "Round 2: North shoots first" in next_line.inner_text()
    # A bad entry is refused with a clear message and nothing is added.
    _add(p, (12, 5))
    error = p.get_by_test_id("sheet-error")  # type: ignore[attr-defined]
    p.wait_for_function("document.querySelector('[data-testid=sheet-error]').textContent !== ''")
    assert "12 is not a multiple of 5" in error.inner_text()
    assert p.locator("tbody tr").count() == 1  # type: ignore[attr-defined]
    _add(p, (20, 20))
    p.get_by_test_id("sheet-round-2").wait_for()  # type: ignore[attr-defined]
    # The counting helper: Bob's round from discs.
    p.get_by_test_id("mode-counts").check()  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-count-0-10").fill("1")  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-count-1-20").fill("2")  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-count-1-15").fill("1")  # type: ignore[attr-defined]
    assert "Total 55" in p.locator("[data-total='1']").inner_text()  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-add-round").click()  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-round-3").wait_for()  # type: ignore[attr-defined]
    p.get_by_test_id("mode-totals").check()  # type: ignore[attr-defined]
    _add(p, (60, 10))
    winner = p.get_by_test_id("sheet-winner")  # type: ignore[attr-defined]
    winner.wait_for(state="visible")
    assert "Ann wins the game, 5 – 3" in winner.inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(ARTIFACTS / "scorekeeper-phone.png"), full_page=True)  # type: ignore[attr-defined]
    # Reload: the sheet is kept on the server for this device.
    p.reload()  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-winner").wait_for(state="visible")  # type: ignore[attr-defined]
    assert p.locator("tbody tr").count() == 4  # type: ignore[attr-defined]
    # Edit round 4 to a tied round: the game is level at 4 - 4, a draw.
    p.get_by_role("button", name="Edit round 4").click()  # type: ignore[attr-defined]
    _add(p, (25, 25))
    p.wait_for_function(
        "document.querySelector('[data-testid=sheet-winner]').textContent.includes('draw')"
    )
    # The read-only link shows the same sheet without the entry form.
    p.get_by_test_id("sheet-share").click()  # type: ignore[attr-defined]
    url = p.get_by_test_id("sheet-share-url").input_value()  # type: ignore[attr-defined]
    p.goto(url)  # type: ignore[attr-defined]
    p.get_by_test_id("sheet-round-4").wait_for()  # type: ignore[attr-defined]
    assert not p.get_by_test_id("sheet-entry").is_visible()  # type: ignore[attr-defined]
    assert p.get_by_role("button", name="Edit round 1").count() == 0  # type: ignore[attr-defined]
