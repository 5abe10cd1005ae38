"""The pages' figures (benchmarks/pages/, docs/pages.md): their pure parts, and both scripts run.

A hand-written Lighthouse-like report (``data/lighthouse-practice.json``: the
practice page as issue 22 found it, performance 77 and a layout shift of
0.59) becomes one row of the table; the verdicts are checked at their
targets' edges; frame times made up by hand give known frame rates.  The
scripts themselves run against a real server in Debian's Chromium in the
slow tests, skipped (with the reason) without Chromium, Playwright or the
npm Lighthouse (``make lighthouse`` installs it).
"""

from __future__ import annotations

import doctest
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from benchmarks.pages import figures, lighthouse, site
from benchmarks.pages.events import Events
from benchmarks.pages.figures import (
    FPS_FLOOR,
    LongTask,
    PageFigures,
    ReportError,
    animations,
    long_task_verdict,
    page_figures,
    shot_frames,
)
from benchmarks.pages.site import Finished, SetupError, how_to_play_url
from rich.console import Console

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"


def report(**changes: Any) -> dict[str, Any]:
    """The fixture report, with top-level keys changed."""
    lhr: dict[str, Any] = json.loads((DATA / "lighthouse-practice.json").read_text("utf-8"))
    return lhr | changes


def scored(performance: float | None, shift: float | None = 0.0) -> dict[str, Any]:
    """A report whose other categories are perfect."""
    cats = {c: {"score": 1} for c in figures.CATEGORIES} | {"performance": {"score": performance}}
    audits = {} if shift is None else {"cumulative-layout-shift": {"numericValue": shift}}
    return {"categories": cats, "audits": audits, "finalDisplayedUrl": "http://h/"}


def test_the_modules_examples_hold() -> None:
    results = [doctest.testmod(module) for module in (figures, site)]
    assert sum(r.attempted for r in results) > 0
    assert sum(r.failed for r in results) == 0


def test_a_report_becomes_its_row() -> None:
    row = page_figures("practice", report())
    assert row.page == "practice"
    assert row.url == "http://127.0.0.1:8000/practice"
    # Out of 100, rounded half up as Lighthouse's report shows them (95.5 -> 96).
    assert row.scores == {"performance": 77, "accessibility": 100, "best-practices": 96, "seo": 90}
    assert row.layout_shift == pytest.approx(0.5866, abs=1e-4)
    assert row.error is None
    assert row.verdict == "MISSED"
    assert row.missed == ["performance 77 < 95", "seo 90 < 95", "layout shift 0.587 > 0.05"]
    # Why: the weighted audits under 0.9 of the categories under target, the heaviest first
    # (an audit of no weight, or one that passes, is no reason).
    assert row.weak == (
        "total-blocking-time 420 ms",
        "cumulative-layout-shift 0.587",
        "meta-description",
    )


def test_the_targets_edges_pass() -> None:
    assert page_figures("p", scored(0.95, 0.05)).verdict == "PASS"
    assert page_figures("p", scored(0.95, 0.05)).weak == ()
    assert page_figures("p", scored(0.945, 0.05)).verdict == "PASS"  # shown as 95
    assert page_figures("p", scored(0.944, 0.0)).missed == ["performance 94 < 95"]
    assert page_figures("p", scored(1.0, 0.0501)).missed == ["layout shift 0.050 > 0.05"]


def test_what_was_not_measured_misses() -> None:
    row = page_figures("p", scored(None, None))
    assert row.scores["performance"] is None
    assert row.missed == ["performance: no score", "layout shift: not measured"]
    failed = report(runtimeError={"code": "NO_FCP", "message": "The page did not paint"})
    assert page_figures("p", failed).missed[0] == "NO_FCP: The page did not paint"


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"audits": {}}, "has no categories"),
        ({"categories": {"seo": {"score": 1.5}}, "audits": {}}, "'seo' is 1.5"),
        ({"categories": {}, "audits": {"cumulative-layout-shift": {"numericValue": -1}}}, "-1"),
    ],
)
def test_what_is_not_a_report_is_refused_by_name(bad: dict[str, Any], words: str) -> None:
    with pytest.raises(ReportError, match=words) as caught:
        page_figures("drills", bad)
    assert "drills" in str(caught.value) or "seo" in str(caught.value)


def test_the_table_shows_each_row_and_its_verdict() -> None:
    rows = [
        page_figures("practice", report()),
        PageFigures("start", "http://h/", dict.fromkeys(figures.CATEGORIES, 100), 0.0),
    ]
    console = Console(record=True, width=140, color_system=None)
    console.print(lighthouse.figures_table(rows, "t"))
    text = console.export_text()
    cells = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
             for line in text.splitlines() if line.startswith("│")}  # fmt: skip
    assert cells["practice"] == ["77", "100", "96", "90", "0.587", "MISSED"]
    assert cells["start"] == ["100", "100", "100", "100", "0.000", "PASS"]


def test_steady_frames_at_60_hz_pass_and_dropped_ones_miss() -> None:
    steady = shot_frames([i * 1000 / 60 for i in range(61)])
    assert (steady.frames, steady.seconds) == (61, pytest.approx(1.0))
    assert [steady.fps, steady.median_fps, steady.min_fps] == pytest.approx([60.0] * 3)
    assert steady.verdict == "PASS"
    # Every tenth frame drawn a frame late: 54 frames in 59 frames' time (54.9 fps).
    times = [0.0]
    for i in range(1, 55):
        times.append(times[-1] + (2 if i % 10 == 0 else 1) * 1000 / 60)
    dropped = shot_frames(times)
    assert dropped.median_fps == pytest.approx(60.0)
    assert dropped.min_fps == pytest.approx(30.0)
    assert dropped.fps < FPS_FLOOR
    assert dropped.verdict == "MISSED"


def test_frames_that_say_nothing_are_refused() -> None:
    with pytest.raises(ValueError, match="1 frame"):
        shot_frames([5.0])
    with pytest.raises(ValueError, match="do not go forward"):
        shot_frames([0.0, 16.7, 16.7])


def test_each_shot_is_an_animation_of_its_own() -> None:
    frames = [(0.0, None), (16.7, 3), (33.3, 3), (50.0, 4), (66.7, 4), (83.3, 4), (100.0, None)]
    assert animations(frames) == [[16.7, 33.3], [50.0, 66.7, 83.3]]
    assert animations([(0.0, 3), (16.7, None), (33.3, 5)]) == []


def test_a_task_over_50_ms_is_a_long_task() -> None:
    assert long_task_verdict([]) == "PASS"
    assert long_task_verdict([LongTask(0.0, 50.0)]) == "PASS"
    assert long_task_verdict([LongTask(0.0, 12.0), LongTask(9.0, 50.1)]) == "MISSED"


def test_each_page_has_its_address() -> None:
    s = lighthouse.Site("http://h:1", Finished("t" * 32, ("ann", "bob")))
    assert s.url("review") == f"http://h:1/review/{'t' * 32}?game=1"
    assert s.url("replay") == f"http://h:1/replay/{'t' * 32}?game=1"
    assert s.url("profile") == "http://h:1/players/ann"
    assert s.url("leaderboard") == "http://h:1/leaderboard?ladder=singles&min_games=0"
    with pytest.raises(SetupError, match="needs the ranked game"):
        lighthouse.Site("http://h:1", None).url("review")
    events = Events(swiss="s" * 32, bracket="b" * 32, organiser="org")
    with_events = lighthouse.Site("http://h:1", None, events)
    assert with_events.url("events") == "http://h:1/events"
    assert with_events.url("event") == f"http://h:1/events/{'s' * 32}"
    assert with_events.url("bracket") == f"http://h:1/events/{'b' * 32}"
    with pytest.raises(SetupError, match="needs the events"):
        lighthouse.Site("http://h:1", None).url("bracket")


def test_the_rules_page_is_found_by_its_link() -> None:
    start = '<a href="/x">Play</a><p>New? <a class="h" href="rules.html">How <b>to</b> play</a>'
    assert how_to_play_url("http://h:1/static/", start) == "http://h:1/static/rules.html"
    with pytest.raises(SetupError, match="no link called 'How to play'"):
        how_to_play_url("http://h:1/", "<a href='/x'>Rules</a>")


@pytest.mark.parametrize(
    ("argv", "words"),
    [(["--pages", "start,nowhere"], "unknown page(s) nowhere"), (["--runs", "0"], "1 to 9")],
)
def test_bad_options_say_why(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        lighthouse.parser("lighthouse").parse_args(argv)
    assert caught.value.code == 2
    assert words in capsys.readouterr().err


def test_the_pages_are_measured_in_the_issues_order() -> None:
    options = lighthouse.parser("lighthouse").parse_args(["--pages", "profile,start,game"])
    assert options.pages == ["start", "game", "profile"]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads Linux's /proc")
def test_a_sleeping_process_is_idle_and_a_spinning_one_is_not() -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert site.wait_until_idle([sleeper.pid], timeout=10)
        assert not site.wait_until_idle([spinner.pid], timeout=2)
    finally:
        for proc in (sleeper, spinner):
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------ the scripts, for real


def need_browser() -> None:
    if not site.CHROMIUM.exists():
        pytest.skip(f"{site.CHROMIUM} is missing (Debian's chromium package)")
    pytest.importorskip("playwright.sync_api")


def run_script(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.browser
def test_the_frame_counter_measures_a_game(tmp_path: Path) -> None:
    need_browser()
    done = run_script("benchmarks.pages.frames", "--shots", "1", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "summary.json").read_text("utf-8"))
    # The player's shot and the CPU's answer, each animated over many frames.
    assert len(summary["shots"]) == 2
    for shot in summary["shots"]:
        assert shot["frames"] > 10
        assert shot["verdict"] in ("PASS", "MISSED")
    assert summary["long_task_verdict"] in ("PASS", "MISSED")
    assert "Long tasks during play" in done.stdout


@pytest.mark.slow
@pytest.mark.browser
def test_lighthouse_scores_the_start_page_and_a_game_in_progress(tmp_path: Path) -> None:
    need_browser()
    binary = Path(os.environ.get("LIGHTHOUSE") or lighthouse.DEFAULT_LIGHTHOUSE)
    if not (binary.exists() or shutil.which(str(binary))):
        pytest.skip(f"{binary} is missing: `make lighthouse` installs it with npm")
    done = run_script(
        "benchmarks.pages.lighthouse", "--pages", "start,game", "--out", str(tmp_path)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "did not reopen" not in done.stdout  # the game in progress was there to measure
    summary = json.loads((tmp_path / "summary.json").read_text("utf-8"))
    assert [p["page"] for p in summary["pages"]] == ["start", "game"]
    for page in summary["pages"]:
        assert all(0 <= s <= 100 for s in page["scores"].values())
        assert (tmp_path / f"{page['page']}.report.html").exists()
