"""The client's layout (src/crokinole/web/static/README.md) and its shared components.

Read from the files: every module sits in pages/, views/ or lib/ and every stylesheet in
css/; every page's <script>/<link> and every module's import names a file that exists; no
module but lib/api.js calls fetch; the shot controls' markup is in no page. In Chromium: the
game, practice and drills pages get the same controls from views/controls.js, and the one
hint list view draws a hint the same way for any page.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest

from tests.web.conftest import STATIC, with_csp
from tests.web.test_browser import new_page

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

PAGES = sorted(p.name for p in STATIC.glob("*.html"))
MODULES = sorted(STATIC.rglob("*.js"))
IMPORT = re.compile(r'''(?:\bfrom\s*|\bimport\s*\(?\s*)"(\.{1,2}/[^"]+)"''')


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        ref = a.get("src") if tag == "script" else a.get("href") if tag == "link" else None
        if ref and ref.startswith("/static/"):
            self.refs.append(ref)


def test_modules_and_stylesheets_sit_in_their_folders() -> None:
    assert {p.parent.relative_to(STATIC).parts[0] for p in MODULES} == {"pages", "views", "lib"}
    assert {p.parent.name for p in STATIC.rglob("*.css")} == {"css"}
    # The pages stay at the top, where the server serves them by name.
    assert {"index.html", "practice.html", "drills.html", "scorekeeper.html"} <= set(PAGES)
    assert not list(STATIC.glob("*.js")) and not list(STATIC.glob("*.css"))


@pytest.mark.parametrize("page", PAGES)
def test_every_script_and_stylesheet_of_a_page_exists(page: str) -> None:
    refs = _Refs()
    refs.feed((STATIC / page).read_text(encoding="utf-8"))
    assert refs.refs, page
    for ref in refs.refs:
        assert (STATIC / ref.removeprefix("/static/")).is_file(), f"{page}: {ref}"


class _Head(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.description: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and a.get("name") == "description":
            self.description = a.get("content")


@pytest.mark.parametrize("page", PAGES)
def test_every_page_says_what_it_is_to_a_search_engine(page: str) -> None:
    # Lighthouse's SEO audit (docs/pages.md) asks each page for a meta description.
    head = _Head()
    head.feed((STATIC / page).read_text(encoding="utf-8"))
    assert head.description and len(head.description.split()) >= 8, page


def test_every_import_names_a_module_that_exists() -> None:
    for module in MODULES:
        for ref in IMPORT.findall(module.read_text(encoding="utf-8")):
            target = (module.parent / ref).resolve()
            assert target.is_file(), f"{module.relative_to(STATIC)} imports {ref}"
            assert target.is_relative_to(STATIC)


def test_only_the_api_module_fetches() -> None:
    fetching = [
        p.relative_to(STATIC).as_posix() for p in MODULES if re.search(r"\bfetch\(", p.read_text())
    ]
    assert fetching == ["lib/api.js"]


def test_no_lib_module_imports_a_view_or_a_page_nor_a_view_a_page() -> None:
    for module in (STATIC / "lib").glob("*.js"):
        for ref in IMPORT.findall(module.read_text(encoding="utf-8")):
            assert ref.startswith("./"), f"lib/{module.name} imports {ref}"
    for module in (STATIC / "views").glob("*.js"):
        for ref in IMPORT.findall(module.read_text(encoding="utf-8")):
            assert ref.startswith(("./", "../lib/")), f"views/{module.name} imports {ref}"


@pytest.mark.parametrize("page", ["index.html", "practice.html", "drills.html"])
def test_the_shot_controls_markup_is_in_no_page(page: str) -> None:
    html = (STATIC / page).read_text(encoding="utf-8")
    assert 'id="controls"' in html
    for control in ('id="position"', 'id="power-num"', 'id="shoot-button"', 'id="controls-hint"'):
        assert control not in html, f"{page} has {control}: views/controls.js draws it"


# ------------------------------------------------------------------ in the browser

CONTROLS = """() => {
  const fs = document.getElementById('controls');
  return Array.from(fs.querySelectorAll('legend, label, input, p.hint, button'), (e) => [
    e.tagName, e.id, e.getAttribute('data-testid'), e.getAttribute('type'), e.getAttribute('min'),
    e.getAttribute('max'), e.getAttribute('step'), e.getAttribute('aria-label'),
    e.getAttribute('for'), e.tagName === 'INPUT' ? '' : e.textContent]);
}"""


@pytest.mark.browser
def test_the_game_practice_and_drills_show_the_same_controls(
    server_url: str, new_page: Any
) -> None:
    page = new_page()
    page.route("**/*", with_csp)
    seen: dict[str, Any] = {}
    for path, ready in (("/", "() => window.crokinole && window.crokinole.connected"),
                        ("/practice", "() => !!window.crokinolePractice"),
                        ("/drills", "() => !!window.crokinoleDrills")):  # fmt: skip
        page.goto(server_url + path)
        page.wait_for_function(ready)
        seen[path] = page.evaluate(CONTROLS)
    ids = [row[1] for row in seen["/"]]
    assert ids[:1] == ["controls-legend"] and ids[-1] == "shoot-button"
    for name in ("position", "direction", "power"):
        assert {name, f"{name}-num"} <= set(ids)
    # The legend's words are the page's own (renderControls); the rest is one component's.
    assert [r[:9] for r in seen["/"]] == [r[:9] for r in seen["/practice"]]
    assert [r[:9] for r in seen["/"]] == [r[:9] for r in seen["/drills"]]
    # The game keeps its own extras between the sliders and Shoot, the carry note under the hint;
    # its sliders, the hint and the carry note sit in the "Fine aim" drawer (folded on phones).
    page.goto(server_url + "/")
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")
    order = page.evaluate(
        "() => Array.from(document.getElementById('controls').children, (e) => e.id || e.className)"
    )
    assert order == ["controls-legend", "fine-aim", "heat-chart-box", "shoot-button"]
    drawer = page.evaluate(
        "() => Array.from(document.getElementById('fine-aim').children, (e) => e.id || e.className)"
    )
    assert drawer == ["fine-aim-toggle", "control", "control", "control", "controls-hint",
                      "controls-carry"]  # fmt: skip


HINT_LIST = """async () => {
  const { renderHintList } = await import('/static/views/hints.js');
  const box = document.createElement('div');
  box.innerHTML = '<p class="hint-list-title"></p><ol class="hint-items"></ol>';
  document.body.append(box);
  const used = [];
  const hints = [
    { margin: 11.6, round_win: 0.641, twenty: 0.3,
      shot: { position: 2.5, direction: -1.3, power: 29 } },
    { rank: 2, margin: -2.5, round_win: 0.305, valid: 0.8,
      shot: { position: 0, direction: 0, power: 40 } },
  ];
  renderHintList(box, hints, { title: '', onUse: (h) => used.push(h.rank) });
  const titleHidden = box.querySelector('.hint-list-title').hidden;
  for (const b of box.querySelectorAll('button')) b.click();
  const items = Array.from(box.querySelectorAll('li'), (li) => ({
    cls: li.className, chip: li.querySelector('.hint-chip').textContent,
    label: li.querySelector('b').textContent, words: li.querySelector('.hint-numbers').textContent,
    title: li.title,
    button: li.querySelector('button').textContent,
    aria: li.querySelector('button').getAttribute('aria-label'),
    testid: li.querySelector('button').dataset.testid }));
  renderHintList(box, hints.slice(1), { title: 'The best shots:', onUse: () => {} });
  return { titleHidden, used, items, again: box.querySelectorAll('li').length,
           title: box.querySelector('.hint-list-title').textContent };
}"""


@pytest.mark.browser
def test_one_hint_list_view_for_every_page(server_url: str, new_page: Any) -> None:
    page = new_page()
    page.goto(server_url + "/practice")
    page.wait_for_function("() => !!window.crokinolePractice")
    got = page.evaluate(HINT_LIST)
    assert got["titleHidden"] is True
    assert got["used"] == [1, 2]  # each hint handed back with its rank
    first, second = got["items"]
    assert first == {
        "cls": "hint-item hint-1", "chip": "1",
        "label": "Best: place 3° right, aim 1° left, 29% power — +12 expected "
                 "(64% to win the round)",
        "words": "Place 2.5°, aim −1.3°, power 29.0% · margin +12 pts · round 64% · a 20 30%",
        "title": "Place 2.5°, aim −1.3°, power 29.0% · margin +12 pts · round 64% · a 20 30%",
        "button": "Aim like this", "aria": "Aim like hint 1", "testid": "hint-use-1",
    }  # fmt: skip
    assert second["label"] == (
        "Second: straight, 40% power — −3 expected, a foul 20% of the time (31% to win the round)"
    )
    assert second["words"].endswith("round 31% · valid 80%")
    assert got["again"] == 1 and got["title"] == "The best shots:"
