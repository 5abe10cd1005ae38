"""The frame rate of a game's shot animations and its long tasks (issue 22): ``make frames``.

``python -m benchmarks.pages.frames`` starts ``crokinole serve`` (a new SQLite
file), opens the game in Debian's headless Chromium through Playwright at
1280×800, starts a game against the CPU and plays a few shots.  A script put
into the page before the client's (Playwright's init script) runs its own
requestAnimationFrame loop: every frame's time, and the shot being
animated then (``window.crokinole.lastEvent`` while ``animating``); and a
PerformanceObserver collects the "longtask" entries (main-thread tasks over
50 ms).  Each run of frames of one shot is that shot's animation (the player's
and the CPU's): its average, median and slowest frame rate are printed with
PASS/MISSED against 60 fps, and the longest task of the whole game against
50 ms (:mod:`.figures`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .figures import (
    FPS_FLOOR,
    FPS_TARGET,
    LONG_TASK_MS,
    LongTask,
    ShotFrames,
    animations,
    long_task_verdict,
    shot_frames,
    verdict,
)
from .site import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    SetupError,
    machine_load,
    need_chromium,
    ranged,
    serve,
    shoot,
    start_cpu_game,
    wait_quiet_turn,
    wait_until_idle,
)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_OUT = ROOT / "artifacts" / "frames"
WIDTH, HEIGHT = 1280, 800
VIEWPORT = {"width": WIDTH, "height": HEIGHT}
#: The CPU levels a game may be against.
LEVELS = ("easy", "normal", "hard", "expert")
#: The power of the player's shots (%): hard enough to reach the discs in play and move them.
POWER = 45.0

#: Runs in the page before its own scripts: the frame log and the long tasks.
RECORDER = """(() => {
  const log = { frames: [], longTasks: [], recording: false };
  Object.defineProperty(window, "__pagesFrames", { value: log });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if (log.recording) log.longTasks.push([e.startTime, e.duration]);
      }
    }).observe({ type: "longtask", buffered: false });
  } catch (e) {
    log.noLongTasks = String(e);
  }
  const tick = (now) => {
    if (log.recording) {
      const c = window.crokinole;
      log.frames.push([now, c && c.animating ? c.lastEvent : null]);
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})();"""


def play(options: argparse.Namespace, console: Console) -> tuple[list[ShotFrames], list[LongTask]]:
    """Play the game and record; each animation's figures and the long tasks."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (the 'dev' extra)

    need_chromium()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with (
        serve() as base,
        sync_playwright() as pw,
        Progress(*columns, console=console, transient=True) as progress,
    ):
        task = progress.add_task("starting the game", total=options.shots + 1)
        # Playwright adds its own flags (headless among them); the rest are the measuring ones.
        flags = [f for f in CHROMIUM_FLAGS if not f.startswith("--headless")]
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=flags)
        try:
            ctx = browser.new_context(
                viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1
            )
            ctx.add_init_script(RECORDER)
            page = ctx.new_page()
            if options.cpu_slowdown > 1:
                cdp = ctx.new_cdp_session(page)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": options.cpu_slowdown})
            start_cpu_game(page, base, options.level, "?cpu_pause=0")
            wait_quiet_turn(page)
            # A fresh server compiles its CPU players' kernels first: not a game's work.
            if not wait_until_idle([base.pid]):
                console.print("[yellow]warning: the server was still busy when the game began")
            page.evaluate("() => { window.__pagesFrames.recording = true; }")
            progress.advance(task)
            for n in range(1, options.shots + 1):
                progress.update(task, description=f"shot {n} of {options.shots} and the CPU's")
                if page.evaluate("() => window.crokinole.state.phase") != "playing":
                    break  # the round ended first: what was played is measured
                shoot(page, power=POWER)
                page.wait_for_function("() => window.crokinole.animating", timeout=60_000)
                wait_quiet_turn(page, 120_000)
                progress.advance(task)
            page.evaluate("() => { window.__pagesFrames.recording = false; }")
            log = page.evaluate("() => window.__pagesFrames")
        finally:
            browser.close()
    if "noLongTasks" in log:
        raise SetupError(f"this Chromium reports no long tasks: {log['noLongTasks']}")
    shots = [shot_frames(run) for run in animations([(t, shot) for t, shot in log["frames"]])]
    if not shots:
        raise SetupError("no shot was animated: nothing to measure")
    tasks = [LongTask(start, duration) for start, duration in log["longTasks"]]
    return shots, tasks


def frames_table(shots: Sequence[ShotFrames], slowdown: float = 1.0) -> Table:
    """A row a shot animation: frames, seconds, average / median / slowest fps, the verdict."""
    table = Table(
        title=f"Shot animations at {WIDTH}×{HEIGHT}, {CHROMIUM}"
        + (f", CPU {slowdown:g}× slower" if slowdown > 1 else "")
    )
    for heading in ("animation", "frames", "seconds", "fps", "median fps", "slowest frame fps"):
        table.add_column(heading, justify="right")
    table.add_column("verdict")
    for n, s in enumerate(shots, 1):
        colour = "green" if s.verdict == "PASS" else "red"
        table.add_row(
            str(n),
            str(s.frames),
            f"{s.seconds:.2f}",
            f"{s.fps:.1f}",
            f"{s.median_fps:.1f}",
            f"{s.min_fps:.1f}",
            f"[{colour}]{s.verdict}[/]",
        )
    return table


_shots = ranged("--shots", int, 1, 8, "a whole number from 1 to 8 (a round)")
_slowdown = ranged("--cpu-slowdown", float, 1.0, 50.0, "a number from 1 to 50")


def parser(prog: str) -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Play a few shots against the CPU in Debian's headless Chromium at 1280x800 and "
            "print each shot animation's frame rate and the longest task against issue 22's "
            f"targets ({FPS_TARGET:g} fps: an average of at least {FPS_FLOOR:g}; no task over "
            f"{LONG_TASK_MS:g} ms). Docs: docs/pages.md."
        ),
    )
    p.add_argument(
        "--shots",
        type=_shots,
        default=4,
        metavar="N",
        help="the player's shots, each followed by the CPU's (default: 4)",
    )
    p.add_argument(
        "--level", choices=LEVELS, default="normal", help="the CPU's level (default: normal)"
    )
    p.add_argument(
        "--cpu-slowdown",
        type=_slowdown,
        default=1.0,
        metavar="X",
        help="run the page's CPU X times slower (Chromium's throttling; Lighthouse's "
        "mobile runs use 4) (default: 1)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help="where summary.json goes (default: artifacts/frames)",
    )
    p.add_argument(
        "--check", action="store_true", help="exit with status 1 when a target is missed"
    )
    return p


def main(argv: Sequence[str] | None = None, prog: str = "python -m benchmarks.pages.frames") -> int:
    """Run the command line; 0 when measured (with ``--check``: and both targets met)."""
    options = parser(prog).parse_args(argv)
    console = Console()
    if not console.is_terminal:  # a log or a pipe: the table whole, not squeezed into 80 columns
        console = Console(width=110)
    load = machine_load()
    try:
        shots, tasks = play(options, console)
    except SetupError as exc:
        console.print(f"[red]{exc}")
        return 2
    console.print(frames_table(shots, options.cpu_slowdown))
    rates = [s.fps for s in shots]
    fps_verdict = verdict(all(s.verdict == "PASS" for s in shots))
    longest = max((t.duration_ms for t in tasks), default=0.0)
    task_verdict = long_task_verdict(tasks)
    console.print(
        f"Frame rate over {len(shots)} animations: median {statistics.median(rates):.1f} fps, "
        f"min {min(rates):.1f} fps (target {FPS_TARGET:g}: each ≥ {FPS_FLOOR:g}): {fps_verdict}"
    )
    console.print(
        f"Long tasks during play: {len(tasks)}, the longest {longest:.0f} ms "
        f"(target: none over {LONG_TASK_MS:g} ms): {task_verdict}"
    )
    for t in sorted(tasks, key=lambda t: -t.duration_ms)[:10]:
        during = [n for n, s in enumerate(shots, 1) if s.holds(t.start_ms)]
        where = f"during animation {during[0]}" if during else "between animations"
        console.print(f"  a task of {t.duration_ms:.0f} ms at {t.start_ms / 1000:.2f} s, {where}")
    console.print(f"Machine: {load}")
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {
        "viewport": VIEWPORT,
        "chromium": str(CHROMIUM),
        "level": options.level,
        "cpu_slowdown": options.cpu_slowdown,
        "machine": load,
        "shots": [asdict(s) | {"verdict": s.verdict} for s in shots],
        "fps_verdict": fps_verdict,
        "long_tasks": [asdict(t) for t in tasks],
        "long_task_verdict": task_verdict,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    ok = fps_verdict == task_verdict == "PASS"
    return 1 if options.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
