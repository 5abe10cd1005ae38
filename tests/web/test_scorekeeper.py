"""The score keeper in a real browser: sheets from start to winner, on phones and desktops.

Every page runs under the project's Content-Security-Policy (contract 4),
added here to the page's response so the check does not depend on the
server's headers, and a test fails on any console error or CSP violation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS, inline_for_csp, open_more_options, with_csp

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.browser


class Phone:
    """A page at one viewport, with its console errors and dialogs recorded."""

    def __init__(self, browser: Any, server_url: str, width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []

        def console(message: Any) -> None:
            # A refused entry answers 400 by design; Chromium logs that as a failed load.
            refused = re.match(r"Failed to load resource: .* status of 4\d\d", message.text)
            if message.type == "error" and not refused:
                self.errors.append(message.text)

        self.page.on("console", console)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def accept(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.accept()

        self.page.on("dialog", accept)

        self.page.route(re.compile(r".*/keep-score(\?.*)?$"), with_csp)
        self.server_url = server_url

    def open(self) -> Any:
        self.page.goto(self.server_url + "/keep-score")
        self.page.get_by_test_id("sheet-create").wait_for()
        return self.page

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], f"console errors (CSP violations included): {self.errors}"


@pytest.fixture
def phone(browser: Any, server_url: str) -> Iterator[Any]:
    """A factory of pages; each is checked for console errors when the test ends."""
    opened: list[Phone] = []

    def make(width: int = 390, height: int = 844) -> Phone:
        opened.append(Phone(browser, server_url, width, height))
        return opened[-1]

    yield make
    for p in opened:
        p.close()


def _create(page: Any, names: list[str], layout: str = "singles", **choices: str) -> None:
    page.get_by_test_id("sheet-layout").select_option(layout)
    for what, value in choices.items():
        page.get_by_test_id(f"sheet-{what}").select_option(value)
    for i, name in enumerate(names):
        page.get_by_test_id(f"sheet-name-{i}").fill(name)
    page.get_by_test_id("sheet-create").click()
    page.get_by_test_id("sheet-next").wait_for()


def _add(page: Any, totals: tuple[int, ...]) -> None:
    rows = page.locator("tbody tr[data-testid^=sheet-round-]").count()
    for i, total in enumerate(totals):
        page.get_by_test_id(f"sheet-total-{i}").fill(str(total))
    page.get_by_test_id("sheet-add-round").click()
    page.get_by_test_id(f"sheet-round-{rows + 1}").wait_for()


def test_the_page_has_no_inline_script_style_or_handlers() -> None:
    # Contract 4: script-src/style-src 'self' forbid all three.
    assert inline_for_csp("scorekeeper.html") == []


def test_a_four_round_sheet_through_the_page_shows_the_winner_and_survives_a_reload(
    browser: Any, server_url: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    p = context.new_page()
    p.on("dialog", lambda d: d.accept())
    errors: list[str] = []  # on the score keeper's pages (the start screen is not tested here)
    p.on("pageerror", lambda e: errors.append(str(e)) if "/keep-score" in p.url else None)
    p.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and "/keep-score" in p.url and "status of 400" not in m.text
            else None
        ),
    )
    p.goto(server_url)
    open_more_options(p)  # reachable from the start screen, under "More options"
    p.get_by_test_id("keep-score-link").click()
    p.wait_for_url("**/keep-score")
    _create(p, ["Ann", "Bob"])
    next_line = p.get_by_test_id("sheet-next")
    assert "Round 1: Ann shoots first" in next_line.inner_text()  # a name, not a seat
    _add(p, (45, 30))
    assert "Round 2: Bob shoots first" in next_line.inner_text()
    # A bad entry is refused with a clear message and nothing is added.
    for i, total in enumerate((12, 5)):
        p.get_by_test_id(f"sheet-total-{i}").fill(str(total))
    p.get_by_test_id("sheet-add-round").click()
    expect(p.get_by_test_id("sheet-error")).to_have_text("Ann: 12 is not a multiple of 5.")
    assert p.locator("tbody tr").count() == 1
    _add(p, (20, 20))
    # The counting helper: Bob's round from discs.
    p.get_by_test_id("mode-counts").check()
    p.get_by_test_id("sheet-count-0-10").fill("1")
    p.get_by_test_id("sheet-count-1-20").fill("2")
    p.get_by_test_id("sheet-count-1-15").fill("1")
    assert "Total 55" in p.locator("[data-total='1']").inner_text()
    p.get_by_test_id("sheet-add-round").click()
    p.get_by_test_id("sheet-round-3").wait_for()
    # The counts show on the sheet (and so in print), not only in a tooltip.
    assert "2×20 1×15" in p.get_by_test_id("sheet-round-3").inner_text()
    p.get_by_test_id("mode-totals").check()
    _add_last = (60, 10)
    for i, total in enumerate(_add_last):
        p.get_by_test_id(f"sheet-total-{i}").fill(str(total))
    p.get_by_test_id("sheet-add-round").click()
    winner = p.get_by_test_id("sheet-winner")
    winner.wait_for(state="visible")
    assert "Ann wins the game, 5 – 3" in winner.inner_text()
    # In print: the disc counts and the discs per side are on paper; the forms are not.
    p.emulate_media(media="print")
    counts = p.get_by_test_id("sheet-round-3").locator("[data-counts]").nth(1)
    assert counts.is_visible() and counts.inner_text() == "2×20 1×15"
    assert "8 discs each" in p.get_by_test_id("sheet-format").inner_text()
    assert not p.get_by_test_id("sheet-share").is_visible()
    assert not p.get_by_role("button", name="Edit round 1").is_visible()
    p.emulate_media(media="screen")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    p.screenshot(path=str(ARTIFACTS / "scorekeeper-phone.png"), full_page=True)
    # Reload: the sheet is kept on the server for this device.
    p.reload()
    p.get_by_test_id("sheet-winner").wait_for(state="visible")
    assert p.locator("tbody tr").count() == 4
    # Edit round 4 to a tied round: the game is level at 4 - 4, a draw.
    p.get_by_role("button", name="Edit round 4").click()
    _add_tie = (25, 25)
    for i, total in enumerate(_add_tie):
        p.get_by_test_id(f"sheet-total-{i}").fill(str(total))
    p.get_by_test_id("sheet-add-round").click()
    expect(winner).to_contain_text("The game is a draw, 4 – 4.")
    # Delete round 4 from its edit form: the game is open again.
    p.get_by_role("button", name="Edit round 4").click()
    p.get_by_test_id("sheet-delete-round").click()
    expect(p.locator("tbody tr")).to_have_count(3)
    assert "Round 4: Bob shoots first" in next_line.inner_text()
    # The read-only link shows the same sheet without the entry form.
    p.get_by_test_id("sheet-share").click()
    url = p.get_by_test_id("sheet-share-url").input_value()
    p.goto(url)
    p.get_by_test_id("sheet-round-3").wait_for()
    assert not p.get_by_test_id("sheet-entry").is_visible()
    assert p.get_by_role("button", name="Edit round 1").count() == 0
    context.close()
    assert errors == [], f"console errors (CSP violations included): {errors}"


def _inside_running(page: Any, testid: str) -> None:
    """The element is within the viewport and nothing covers its centre."""
    box = page.get_by_test_id(testid).bounding_box()
    size = page.viewport_size
    assert box is not None and box["height"] > 0
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (testid, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= size["width"], (testid, box)
    x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 10)
    hit = page.evaluate(
        "([x, y, id]) => { const e = document.elementFromPoint(x, y);"
        " return !!e && !!e.closest(`[data-testid=${id}]`); }",
        [x, y, testid],
    )
    assert hit, f"{testid} is covered at ({x}, {y})"


@pytest.mark.parametrize(
    ("width", "height", "layout", "names"),
    [
        (375, 667, "singles", ["Ann", "Bob"]),
        (390, 844, "three_singles", ["Ann", "Bob", "Cy"]),
        (412, 915, "three_singles", ["Ann", "Bob", "Cy"]),
    ],
)
def test_while_counting_the_score_and_the_next_shooter_stay_in_view(
    phone: Any, width: int, height: int, layout: str, names: list[str]
) -> None:
    p = phone(width, height).open()
    _create(p, names, layout)
    _add(p, (20, 10, 5)[: len(names)])
    p.get_by_test_id("mode-counts").check()
    # Every control of the counting form, scrolled to in turn: the running score
    # and who shoots first next are on screen and uncovered at each position.
    controls = p.locator("#entry-sides button, #entry-sides input, #save-round")
    for k in range(controls.count()):
        controls.nth(k).scroll_into_view_if_needed()
        _inside_running(p, "sheet-next")
        _inside_running(p, "sheet-score")
    assert "Ann: 2" in p.get_by_test_id("sheet-score").inner_text()
    assert "Round 2: Bob shoots first" in p.get_by_test_id("sheet-next").inner_text()
    # The score table can be read while counting: its row is not covered.
    p.get_by_test_id("sheet-round-1").scroll_into_view_if_needed()
    _inside_running(p, "sheet-round-1")


def test_changing_scoring_keeps_the_names_and_who_shoots_first(phone: Any) -> None:
    p = phone().open()
    p.get_by_test_id("sheet-name-0").fill("Ann")
    p.get_by_test_id("sheet-name-1").fill("Bob")
    p.get_by_test_id("sheet-first").select_option(label="Bob")
    p.get_by_test_id("sheet-scoring").select_option("to_100")
    p.get_by_test_id("sheet-scoring").select_option("four_rounds")
    assert p.get_by_test_id("sheet-name-0").input_value() == "Ann"
    assert p.get_by_test_id("sheet-name-1").input_value() == "Bob"
    assert p.get_by_test_id("sheet-first").input_value() == "north"
    # A format change keeps the typed names too (the new boxes get defaults).
    p.get_by_test_id("sheet-layout").select_option("three_singles")
    assert p.get_by_test_id("sheet-name-1").input_value() == "Bob"
    p.get_by_test_id("sheet-create").click()
    expect(p.get_by_test_id("sheet-next")).to_have_text("Round 1: Bob shoots first.")


@pytest.mark.parametrize("discs", [8, 12])
def test_the_plus_button_stops_at_the_discs_a_side_has(phone: Any, discs: int) -> None:
    # R2: singles with 8 (tournament) or 12 (home rule, seed 004) discs each.
    p = phone().open()
    _create(p, ["Ann", "Bob"], discs=str(discs))
    assert f"{discs} discs each" in p.get_by_test_id("sheet-format").inner_text()
    p.get_by_test_id("mode-counts").check()
    plus = p.get_by_test_id("sheet-plus-0-20")
    for _ in range(discs):
        plus.click()
    assert plus.is_disabled()
    plus.click(force=True)  # a tap on the disabled button adds nothing
    p.get_by_test_id("sheet-plus-0-5").click(force=True)
    assert p.get_by_test_id("sheet-count-0-20").input_value() == str(discs)
    assert p.get_by_test_id("sheet-count-0-5").input_value() == "0"
    total = p.locator("[data-total='0']").inner_text()
    assert f"Total {20 * discs} ({discs} of {discs} discs)" in total
    p.get_by_test_id("sheet-add-round").click()
    p.get_by_test_id("sheet-round-1").wait_for()
    assert str(20 * discs) in p.get_by_test_id("sheet-round-1").inner_text()


def test_a_long_name_never_widens_a_phone_page(phone: Any) -> None:
    p = phone(360, 640).open()
    long = "Bartholomew" + "x" * 29  # 40 characters, no space
    _create(p, [long, "Bob"])
    _add(p, (20, 5))
    p.get_by_test_id("mode-counts").check()
    width = p.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide on a 360 px phone"
    table = p.evaluate("document.querySelector('.table-wrap').scrollWidth")
    assert table <= 360
    p.get_by_test_id("sheet-new").click()
    p.get_by_test_id("sheet-list").wait_for()
    assert p.evaluate("document.documentElement.scrollWidth") <= 360


def _targets_are_big(page: Any) -> None:
    small = page.evaluate(
        """() => [...document.querySelectorAll('button, a, select, input, .mode label')]
          .filter((e) => e.offsetParent !== null && !(e.type === 'radio'))
          .map((e) => [e.textContent.trim() || e.getAttribute('aria-label') || e.dataset.testid,
                       e.getBoundingClientRect()])
          .filter(([, r]) => r.width < 44 || r.height < 44)
          .map(([name, r]) => `${name}: ${Math.round(r.width)}x${Math.round(r.height)}`)"""
    )
    assert small == [], f"targets under 44 x 44 px: {small}"


def test_every_target_is_at_least_44_px(phone: Any) -> None:
    p = phone(360, 640).open()
    _targets_are_big(p)
    _create(p, ["Ann", "Bob", "Cy"], "three_singles")
    _add(p, (20, 5, 0))
    _targets_are_big(p)
    p.get_by_test_id("mode-counts").check()
    _targets_are_big(p)
    p.get_by_role("button", name="Edit round 1").click()
    _targets_are_big(p)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["\u200b\u200b", "Bob"], "A name needs at least one visible character"),
        (["Ann", "ann"], "Two sides are called 'Ann' and 'ann': give each a different name."),
    ],
)
def test_invisible_and_duplicate_names_are_refused_plainly(
    phone: Any, names: list[str], message: str
) -> None:
    p = phone().open()
    for i, name in enumerate(names):
        p.get_by_test_id(f"sheet-name-{i}").fill(name)
    p.get_by_test_id("sheet-create").click()
    error = p.get_by_test_id("setup-error")
    error.wait_for()
    assert message in error.inner_text()
    assert p.get_by_test_id("sheet-create").is_visible()


def test_doubles_by_name_a_match_of_two_games_rename_and_delete(phone: Any) -> None:
    ph = phone()
    p = ph.open()
    _create(p, ["Ann", "Cy", "Bob", "Di"], "doubles", games="2")
    assert "Game 1, round 1: Ann shoots first." in p.get_by_test_id("sheet-next").inner_text()
    assert p.get_by_test_id("sheet-title").inner_text() == "Ann & Cy – Bob & Di"
    for _ in range(4):
        _add(p, (20, 0))
    # R2: the opener passes clockwise (Ann, Bob, Cy, Di) and on into game 2.
    firsts = [p.get_by_test_id(f"sheet-round-{i}").locator("td").nth(1).inner_text()
              for i in range(1, 5)]  # fmt: skip
    assert firsts == ["Ann", "Bob", "Cy", "Di"]
    assert "Game 1: Ann & Cy won, 8 – 0" in p.get_by_test_id("sheet-games-list").inner_text()
    assert "Game 2, round 1: Ann shoots first" in p.get_by_test_id("sheet-next").inner_text()
    assert "Game 2 begins" in p.get_by_test_id("status").inner_text()
    for _ in range(4):
        _add(p, (0, 20))
    winner = p.get_by_test_id("sheet-winner")
    winner.wait_for(state="visible")
    assert "The match is drawn: Ann & Cy 1 game, Bob & Di 1 game." in winner.inner_text()
    # Rename a player: the team's name follows.
    p.get_by_test_id("sheet-rename").click()
    p.get_by_test_id("rename-1-1").fill("Dinah")
    p.get_by_test_id("sheet-rename-save").click()
    expect(p.get_by_test_id("sheet-title")).to_have_text("Ann & Cy – Bob & Dinah")
    # Delete the sheet: it is gone from the device's list, after a confirmation.
    p.get_by_test_id("sheet-delete").click()
    p.get_by_test_id("sheet-create").wait_for()
    assert any("cannot be brought back" in d for d in ph.dialogs)
    assert "was deleted" in p.get_by_test_id("status").inner_text()
    assert "Dinah" not in p.get_by_test_id("sheet-list").inner_text()


def test_a_name_left_empty_is_the_placeholder_and_the_box_is_not_required(phone: Any) -> None:
    page = phone().open()
    box = page.get_by_test_id("sheet-name-1")
    # Assistive technology would announce "required" for a box that may be left empty.
    assert box.get_attribute("required") is None
    assert box.get_attribute("placeholder") == "Player 2"
    page.get_by_test_id("sheet-name-0").fill("Ann")
    page.get_by_test_id("sheet-create").click()
    expect(page.get_by_test_id("sheet-title")).to_have_text("Ann – Player 2")
