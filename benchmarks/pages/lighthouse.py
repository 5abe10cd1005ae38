"""Lighthouse on every page of the site (issue 22's first figure): ``make lighthouse``.

``python -m benchmarks.pages.lighthouse`` starts ``crokinole serve`` on a free
loopback port with a new SQLite file and a headless Debian Chromium, makes the
data the pages need, runs the npm Lighthouse (pinned in the Makefile) on each
page with its default settings (the mobile form factor, simulated throttling)
and prints the table: each category's score, the cumulative layout shift and
PASS/MISSED against the targets (:mod:`.figures`).  The reports (JSON and
HTML) and ``summary.json`` go to ``artifacts/lighthouse/``.

How each page gets its data (docs/pages.md, *Lighthouse*):

- a finished game, a ranked profile and a leaderboard row: two accounts play a
  ranked game of one round (``--test-ranked-rounds 1``) in the browser; its
  review and replay are the review and replay pages';
- a game in progress: Lighthouse and Playwright drive one Chromium (its
  DevTools port).  Playwright starts a game against the CPU in the browser's
  own profile, shoots once and waits for its turn again; Lighthouse then loads
  ``/`` in that profile, where the client resumes the game it keeps in
  localStorage (Lighthouse's storage reset clears the HTTP cache, service
  workers and cache storage, not localStorage), so it measures a cold load of
  a game being played.  Afterwards the same profile is checked to still open
  the game.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .events import Events, make_events
from .figures import (
    CATEGORIES,
    TARGET_LAYOUT_SHIFT,
    TARGET_SCORE,
    PageFigures,
    ReportError,
    page_figures,
)
from .site import (
    CHROMIUM,
    Finished,
    SetupError,
    chromium,
    fetch_text,
    how_to_play_url,
    machine_load,
    open_client,
    play_ranked_game,
    ranged,
    serve,
    shoot,
    start_cpu_game,
    wait_quiet_turn,
    wait_until_idle,
)

ROOT = Path(__file__).resolve().parents[2]
#: Where ``make lighthouse`` installs the pinned npm package.
DEFAULT_LIGHTHOUSE = ROOT / ".cache" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
DEFAULT_OUT = ROOT / "artifacts" / "lighthouse"
#: Seconds one Lighthouse run may take.
RUN_TIMEOUT = 300

#: The pages, in the issue's order: name -> (what it is, needs the ranked game).
PAGES: dict[str, tuple[str, bool]] = {
    "start": ("the start screen (/)", False),
    "game": ("a game in progress against the CPU (/, resumed)", False),
    "practice": ("the practice room (/practice)", False),
    "drills": ("the drills (/drills)", False),
    "review": ("the review of a finished game (/review/TABLE?game=1)", True),
    "replay": ("the replay of a finished game (/replay/TABLE?game=1)", True),
    "leaderboard": ("the singles leaderboard, every player (/leaderboard)", True),
    "profile": ("a ranked player's profile (/players/NAME)", True),
    "keep-score": ("the score keeper (/keep-score)", False),
    "how-to-play": ("the rules (where the start page's How to play link goes)", False),
    "events": ("the events: open, under way, finished, and Create an event (/events)", False),
    "event": ("a Swiss on real boards under way: pairings, standings (/events/ID)", False),
    "bracket": ("a single elimination at its final: the bracket (/events/ID)", False),
    "bots": ("the bots: who is online, your own bot and its tokens (/bots)", False),
}
#: The pages shown on events made by an organiser (:mod:`benchmarks.pages.events`).
EVENT_PAGES = frozenset({"event", "bracket"})


@dataclass(frozen=True, slots=True)
class Site:
    """The server's address and the data made on it."""

    base: str
    finished: Finished | None
    events: Events | None = None

    def url(self, page: str) -> str:
        """The address Lighthouse loads for ``page``."""
        f = self.finished
        paths = {
            "start": "/",
            "game": "/",
            "practice": "/practice",
            "drills": "/drills",
            "leaderboard": "/leaderboard?ladder=singles&min_games=0",
            "keep-score": "/keep-score",
            "events": "/events",
            "bots": "/bots",
        }
        if page in paths:
            return self.base + paths[page]
        if page in EVENT_PAGES:
            if self.events is None:
                raise SetupError(f"the page {page} needs the events, which were not made")
            made = self.events.swiss if page == "event" else self.events.bracket
            return f"{self.base}/events/{made}"
        if page == "how-to-play":
            return how_to_play_url(self.base + "/", fetch_text(self.base + "/"))
        if f is None:
            raise SetupError(f"the page {page} needs the ranked game, which was not played")
        if page in ("review", "replay"):
            return f"{self.base}/{page}/{f.table}?game=1"
        if page == "profile":
            return f"{self.base}/players/{f.players[0]}"
        raise SetupError(f"no page called {page!r}")


def lighthouse_version(binary: Path) -> str:
    """What ``lighthouse --version`` prints."""
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SetupError(f"{binary} --version failed: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout.strip()


def run_lighthouse(binary: Path, url: str, port: int, out: Path) -> dict[str, Any]:
    """Lighthouse on ``url`` in the Chromium of DevTools ``port``; reports to ``out``.*."""
    command = [
        str(binary),
        url,
        f"--port={port}",
        "--hostname=127.0.0.1",
        "--output=json",
        "--output=html",
        f"--output-path={out}",
        "--quiet",
        f"--only-categories={','.join(CATEGORIES)}",
    ]
    env = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        raise SetupError(f"Lighthouse on {url} ran over {RUN_TIMEOUT} s") from None
    report = out.with_name(out.name + ".report.json")
    if done.returncode != 0 or not report.exists():
        raise SetupError(f"Lighthouse on {url} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return result


def median_run(rows: Sequence[PageFigures]) -> PageFigures:
    """The run of median performance (the lower middle one of an even number)."""
    ranked = sorted(rows, key=lambda r: r.scores.get("performance") or 0)
    return ranked[(len(ranked) - 1) // 2]


def set_up_game_in_progress(pw: Any, port: int, base: str) -> None:
    """A game against the CPU in the browser's own profile, at the player's turn after a shot."""
    browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
    try:
        page = browser.contexts[0].new_page()
        start_cpu_game(page, base, "normal", "?cpu_pause=0")
        wait_quiet_turn(page)
        shoot(page, power=30)
        wait_quiet_turn(page)
        page.close()
    finally:
        browser.close()


def game_resumes(pw: Any, port: int, base: str) -> bool:
    """Whether ``/`` in the browser's own profile opens the game in progress."""
    browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
    try:
        page = browser.contexts[0].new_page()
        open_client(page, base + "/")
        page.wait_for_function(
            "() => window.crokinole.screen === 'game' && !!window.crokinole.state", timeout=10_000
        )
        page.close()
        return True
    except Exception:  # a timeout or a closed page: either way the game is not there
        return False
    finally:
        browser.close()


def make_the_events(pw: Any, port: int, base: str) -> Events:
    """The screenshots' two events (a Swiss under way, a bracket at its final), by an organiser."""
    browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
    try:
        return make_events(browser, base)
    finally:
        browser.close()


def make_ranked_game(pw: Any, port: int, base: str) -> Finished:
    """Two players' ranked game, in contexts of their own (not the measuring profile)."""
    browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
    try:
        return play_ranked_game(browser, base)
    finally:
        browser.close()


def measure(options: argparse.Namespace, console: Console) -> list[PageFigures]:
    """Set the site up and run Lighthouse on each chosen page; the rows, in the issue's order."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (the 'dev' extra)

    pages: list[str] = options.pages
    needs_game = any(PAGES[p][1] for p in pages)
    needs_events = bool(EVENT_PAGES & set(pages))
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    steps = len(pages) * options.runs + needs_game + needs_events + ("game" in pages)
    rows: dict[str, PageFigures] = {}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with (
        serve("--test-ranked-rounds", "1") as base,
        chromium() as browser,
        sync_playwright() as pw,
        Progress(*columns, console=console, transient=True) as progress,
    ):
        task = progress.add_task("starting", total=steps)
        port = browser.port
        busy: list[str] = []

        def quiet(what: str) -> None:
            """Let the server and the browser finish what they were doing before measuring."""
            progress.update(task, description=f"waiting for a quiet machine ({what})")
            if not wait_until_idle([base.pid, browser.pid]):
                busy.append(what)

        def step(what: str, work: Callable[[], Any]) -> Any:
            progress.update(task, description=what)
            result = work()
            progress.advance(task)
            return result

        finished = None
        if needs_game:
            finished = step("a ranked game to its end", lambda: make_ranked_game(pw, port, base))
        events = None
        if needs_events:
            events = step("the events", lambda: make_the_events(pw, port, base))
        site = Site(base, finished, events)
        for name in pages:
            if name == "game":
                step("a game in progress", lambda: set_up_game_in_progress(pw, port, base))
            url = site.url(name)
            runs = []
            for n in range(1, options.runs + 1):
                stem = name if options.runs == 1 else f"{name}.run-{n}"
                what = f"Lighthouse: {name}" + (f" (run {n})" if options.runs > 1 else "")
                quiet(what)
                report = step(
                    what, partial(run_lighthouse, options.lighthouse, url, port, out / stem)
                )
                runs.append(page_figures(name, report))
            rows[name] = median_run(runs)
            if name == "game" and not game_resumes(pw, port, base):
                console.print("[yellow]warning: the game in progress did not reopen afterwards")
    if busy:
        console.print(f"[yellow]warning: the machine was still busy before {', '.join(busy)}")
    return [rows[p] for p in pages]


def figures_table(rows: Sequence[PageFigures], title: str) -> Table:
    """The printed table: a row a page, the categories, the layout shift, the verdict."""
    table = Table(title=title)
    table.add_column("page")
    for heading in CATEGORIES.values():
        table.add_column(heading, justify="right")
    table.add_column("CLS", justify="right")
    table.add_column("verdict")
    for row in rows:
        scores = [
            _cell(row.scores[c], row.scores[c] is not None and row.scores[c] >= TARGET_SCORE)  # type: ignore[operator]
            for c in CATEGORIES
        ]
        shift = row.layout_shift
        cls = "–" if shift is None else _cell(f"{shift:.3f}", shift <= TARGET_LAYOUT_SHIFT)
        colour = "green" if row.verdict == "PASS" else "red"
        table.add_row(row.page, *scores, cls, f"[{colour}]{row.verdict}[/]")
    return table


def _cell(value: object, ok: bool) -> str:
    return "–" if value is None else (f"{value}" if ok else f"[red]{value}[/]")


def _pages(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PAGES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown page(s) {', '.join(unknown) or '(none)'}: choose from {', '.join(PAGES)}"
        )
    return [p for p in PAGES if p in names]


_runs = ranged("--runs", int, 1, 9, "a whole number from 1 to 9")


def parser(prog: str) -> argparse.ArgumentParser:
    """The command line."""
    pages = "\n".join(f"  {name:12} {what}" for name, (what, _) in PAGES.items())
    p = argparse.ArgumentParser(
        prog=prog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Run Lighthouse (mobile, its defaults) on every page of a fresh crokinole server "
            f"with Debian's Chromium, and print each page's scores against issue 22's targets "
            f"(≥ {TARGET_SCORE} each, cumulative layout shift ≤ {TARGET_LAYOUT_SHIFT:g})."
        ),
        epilog=f"pages:\n{pages}\n\nDocs: docs/pages.md. `make lighthouse` installs the pinned "
        "Lighthouse and runs this.",
    )
    p.add_argument(
        "--pages",
        type=_pages,
        default=list(PAGES),
        metavar="NAME,...",
        help="the pages to measure (default: all)",
    )
    p.add_argument(
        "--runs",
        type=_runs,
        default=1,
        metavar="N",
        help="Lighthouse runs a page; its row: the run of median performance (default: 1)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help="where the reports go (default: artifacts/lighthouse)",
    )
    p.add_argument(
        "--lighthouse",
        type=Path,
        default=Path(os.environ.get("LIGHTHOUSE") or DEFAULT_LIGHTHOUSE),
        metavar="PATH",
        help="the lighthouse command (default: $LIGHTHOUSE, else .cache/lighthouse's)",
    )
    p.add_argument(
        "--check", action="store_true", help="exit with status 1 when a page misses a target"
    )
    return p


def main(
    argv: Sequence[str] | None = None, prog: str = "python -m benchmarks.pages.lighthouse"
) -> int:
    """Run the command line; 0 when measured (with ``--check``: and every page passes)."""
    options = parser(prog).parse_args(argv)
    console = Console()
    if not console.is_terminal:  # a log or a pipe: the table whole, not squeezed into 80 columns
        console = Console(width=110)
    load = machine_load()
    binary: Path = options.lighthouse
    if not (binary.exists() or shutil.which(str(binary))):
        console.print(f"[red]{binary} is missing: `make lighthouse` installs it with npm")
        return 2
    try:
        version = lighthouse_version(binary)
        rows = measure(options, console)
    except (SetupError, ReportError) as exc:
        console.print(f"[red]{exc}")
        return 2
    console.print(figures_table(rows, f"Lighthouse {version}, mobile, {CHROMIUM}"))
    for row in rows:
        if row.missed:
            why = f" (low audits: {', '.join(row.weak)})" if row.weak else ""
            console.print(f"  {row.page}: {'; '.join(row.missed)}{why}")
    pages = [asdict(r) | {"verdict": r.verdict, "missed": r.missed} for r in rows]
    summary = {
        "lighthouse": version,
        "chromium": str(CHROMIUM),
        "runs": options.runs,
        "pages": pages,
    }
    (options.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    console.print(f"Machine: {load}")
    console.print(f"Reports: {options.out}/<page>.report.html (and .json), summary.json")
    passed = sum(r.verdict == "PASS" for r in rows)
    console.print(f"{passed} of {len(rows)} pages meet every target.")
    return 1 if options.check and passed < len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
