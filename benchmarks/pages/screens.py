"""Screenshots of every page at a small phone, a large phone and a desktop (``make screens``).

A fresh server (one round a ranked game) gets its data the way players make it
(:mod:`benchmarks.pages.site`): a ranked game played to its end by two accounts
(for the review, the replay, a profile, the leaderboard), two events on real boards
made by an organiser (:mod:`benchmarks.pages.events`: a Swiss under way, a bracket),
then for each size a game against the CPU in progress and one played to its result.
Every page is
captured at 360x640, 412x915 and 1280x800 into ``artifacts/screenshots/pages/``
(``NAME-WxH.png``); ``--docs`` copies the README's pictures into ``docs/images/``.

    python -m benchmarks.pages.screens --help
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.pages.events import SHOTS, make_events, scroll_to
from benchmarks.pages.site import (
    CHROMIUM,
    SetupError,
    need_chromium,
    play_ranked_game,
    serve,
    shoot,
    start_cpu_game,
    wait_quiet_turn,
)
from rich.console import Console
from rich.progress import Progress

__all__ = ["DOCS", "SIZES", "main"]

REPO = Path(__file__).resolve().parents[2]

#: The three screens the issue names: a small phone, a large phone, a desktop.
SIZES = ((360, 640), (412, 915), (1280, 800))

#: The pages captured as they open (the others are set up by playing).
PLAIN = {
    "start": "/",
    "practice": "/practice",
    "drills": "/drills",
    "leaderboard": "/leaderboard?ladder=singles&min_games=0",
    "keep-score": "/keep-score",
    "how-to-play": "/how-to-play",
    "events": "/events",
}

#: The README's pictures: (the capture, its name in docs/images/).
DOCS = (
    ("start-360x640", "start-phone.png"),
    ("start-1280x800", "start-desktop.png"),
    ("game-360x640", "phone-game.png"),
    ("game-1280x800", "game.png"),
    ("results-360x640", "results-phone.png"),
    ("keep-score-360x640", "score-keeper-phone.png"),
    ("review-1280x800", "review.png"),
    ("practice-1280x800", "practice.png"),
    ("leaderboard-360x640", "leaderboard.png"),
    ("profile-360x640", "profile.png"),
    ("event-pairings-360x640", "event-pairings-phone.png"),
    ("event-standings-1280x800", "event-standings.png"),
    ("event-bracket-1280x800", "event-bracket.png"),
)

GAME_OVER = "() => document.querySelector('[data-testid=game-result]').open"
ROUND_OVER = "() => document.querySelector('[data-testid=round-result]').open"


def _settle(page: Any) -> None:
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(300)  # fonts and the board's first drawing


def play_to_the_result(page: Any, base: str) -> None:
    """A game of one round against CPU Easy, played to its result dialog."""
    start_cpu_game(page, base, "easy", "?rounds=1&cpu_pause=0&speed=20")
    for _ in range(60):
        page.wait_for_function(
            f"() => window.crokinole.canShoot || ({GAME_OVER})() || ({ROUND_OVER})()",
            timeout=60_000,
        )
        if page.evaluate(GAME_OVER):
            return
        if page.evaluate(ROUND_OVER):
            page.get_by_test_id("next-button").click()
            continue
        wait_quiet_turn(page)
        shoot(page, power=24)
    raise SetupError("the game against CPU Easy did not end within 60 turns")


def capture(browser: Any, base: str, out: Path, progress: Progress) -> list[Path]:
    """Every page at every size into ``out``; the paths written."""
    task = progress.add_task("ranked game for the review and the replay", total=None)
    finished = play_ranked_game(browser, base)
    played = {
        "review": f"/review/{finished.table}?game=1",
        "replay": f"/replay/{finished.table}?game=1",
        "profile": f"/players/{finished.players[0]}",
    }
    progress.update(task, description="events: a Swiss on real boards, a bracket")
    events = make_events(browser, base)
    progress.update(task, total=len(SIZES), completed=0, description="pages")
    written: list[Path] = []
    for width, height in SIZES:
        size = f"{width}x{height}"

        def new_page(width: int = width, height: int = height) -> Any:
            ctx = browser.new_context(viewport={"width": width, "height": height})
            return ctx, ctx.new_page()

        for name, path in {**PLAIN, **played}.items():
            ctx, page = new_page()
            page.goto(base + path)
            _settle(page)
            written.append(out / f"{name}-{size}.png")
            page.screenshot(path=str(written[-1]))
            ctx.close()
        for name, which, part in SHOTS:
            ctx, page = new_page()
            page.goto(f"{base}/events/{getattr(events, which)}")
            page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
            _settle(page)
            scroll_to(page, part)
            written.append(out / f"{name}-{size}.png")
            page.screenshot(path=str(written[-1]))
            ctx.close()
        ctx, page = new_page()
        start_cpu_game(page, base, "normal", "?cpu_pause=0&speed=20")
        for power in (24, 30):
            wait_quiet_turn(page)
            shoot(page, power=power)
        wait_quiet_turn(page)
        page.evaluate("() => window.scrollTo(0, 0)")  # as a player sees the turn come
        _settle(page)
        written.append(out / f"game-{size}.png")
        page.screenshot(path=str(written[-1]))
        ctx.close()
        ctx, page = new_page()
        play_to_the_result(page, base)
        page.wait_for_timeout(1200)  # the result's flourish
        written.append(out / f"results-{size}.png")
        page.screenshot(path=str(written[-1]))
        ctx.close()
        progress.advance(task)
    return written


def parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Screenshots of every page (start, a game in progress, a game's result, practice, "
            "drills, review, replay, leaderboard, a profile, keep score, how to play, the "
            "events, an event's pairings, standings and bracket) at "
            "360x640, 412x915 and 1280x800, on a fresh server."
        ),
    )
    p.add_argument(
        "--out",
        type=Path,
        default=REPO / "artifacts" / "screenshots" / "pages",
        help="where the PNG files go (default: artifacts/screenshots/pages)",
    )
    p.add_argument(
        "--docs",
        action="store_true",
        help="also copy the README's pictures into docs/images/",
    )
    return p


def main(
    argv: Sequence[str] | None = None, prog: str = "python -m benchmarks.pages.screens"
) -> int:
    options = parser(prog).parse_args(argv)
    console = Console(stderr=True)
    try:
        need_chromium()
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 (an optional extra)

        options.out.mkdir(parents=True, exist_ok=True)
        with (
            serve("--test-ranked-rounds", "1") as base,
            sync_playwright() as p,
            Progress(console=console, transient=True) as progress,
        ):
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
            try:
                written = capture(browser, base, options.out, progress)
            finally:
                browser.close()
    except SetupError as exc:
        console.print(f"[red]Screenshots not taken:[/red] {exc}")
        return 1
    console.print(f"{len(written)} screenshots in {options.out}")
    if options.docs:
        images = REPO / "docs" / "images"
        for capture_name, doc_name in DOCS:
            shutil.copyfile(options.out / f"{capture_name}.png", images / doc_name)
        console.print(f"{len(DOCS)} pictures copied into {images}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
