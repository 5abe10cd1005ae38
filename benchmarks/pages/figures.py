"""The figures of issue 22 and their verdicts, from what Lighthouse and the browser report.

Pure: no browser, no server.  A Lighthouse report (its JSON, ``lhr``) becomes
one :class:`PageFigures` row; the frame times of a shot's animation become
one :class:`ShotFrames`.  The targets are issue 22's (docs/pages.md):

- each Lighthouse category (performance, accessibility, best practices,
  SEO) at least :data:`TARGET_SCORE`, and the cumulative layout shift at most
  :data:`TARGET_LAYOUT_SHIFT`;
- 60 fps during a shot's animation: its average frame rate at least
  :data:`FPS_FLOOR`, and no long task over :data:`LONG_TASK_MS`.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CATEGORIES",
    "FPS_FLOOR",
    "FPS_TARGET",
    "LONG_TASK_MS",
    "TARGET_LAYOUT_SHIFT",
    "TARGET_SCORE",
    "WEAK_AUDIT",
    "LongTask",
    "PageFigures",
    "ReportError",
    "ShotFrames",
    "animations",
    "long_task_verdict",
    "page_figures",
    "shot_frames",
    "verdict",
]

#: The Lighthouse categories of the table, by their ids in a report, and their headings.
CATEGORIES: dict[str, str] = {
    "performance": "Performance",
    "accessibility": "Accessibility",
    "best-practices": "Best practices",
    "seo": "SEO",
}
#: Each category's score must reach this (Lighthouse shows scores out of 100).
TARGET_SCORE = 95
#: The cumulative layout shift must not exceed this.
TARGET_LAYOUT_SHIFT = 0.05
#: An audit of a category under its target that scores under this (of 1) is named as a reason.
WEAK_AUDIT = 0.9
#: The display's rate: what "60 fps" means.
FPS_TARGET = 60.0
#: A shot's average frame rate passes at this or more: 60 fps with at most one frame in
#: twenty missed (a frame clock of exactly 60 Hz gives 59.9-60.1 over a shot of a second).
FPS_FLOOR = 57.0
#: A task of the page's main thread longer than this (ms) is a long task (the browser's own
#: PerformanceObserver "longtask" threshold, and the issue's).
LONG_TASK_MS = 50.0

PASS = "PASS"
MISSED = "MISSED"


class ReportError(ValueError):
    """A Lighthouse report that is not one (no categories, no audits): the message says what."""


def verdict(ok: bool) -> str:
    """``PASS`` or ``MISSED``.

    >>> verdict(True), verdict(False)
    ('PASS', 'MISSED')
    """
    return PASS if ok else MISSED


def _score(report: Mapping[str, Any], category: str) -> int | None:
    """A category's score out of 100 as Lighthouse rounds it (half up), or None if it has none."""
    found = report["categories"].get(category)
    raw = None if found is None else found.get("score")
    if raw is None:
        return None
    if not isinstance(raw, int | float) or not 0 <= raw <= 1:
        raise ReportError(f"the score of {category!r} is {raw!r}, not a number from 0 to 1")
    return math.floor(raw * 100 + 0.5)


@dataclass(frozen=True, slots=True)
class PageFigures:
    """One page's row of the Lighthouse table.

    Attributes:
        page: the page's name (``practice``).
        url: the address Lighthouse finally showed.
        scores: each of :data:`CATEGORIES`' score out of 100 (None: Lighthouse gave none).
        layout_shift: the cumulative layout shift (None: not measured).
        error: Lighthouse's runtime error (the page did not load, ...), or None.
        weak: what pulls a category under its target: its weighted audits scoring under
            :data:`WEAK_AUDIT` (``total-blocking-time 900 ms``), the heaviest first.
    """

    page: str
    url: str
    scores: Mapping[str, int | None]
    layout_shift: float | None
    error: str | None = None
    weak: tuple[str, ...] = ()

    @property
    def missed(self) -> list[str]:
        """What misses its target, in the table's order (empty: the page passes).

        >>> PageFigures("p", "/p", dict.fromkeys(CATEGORIES, 100), 0.3).missed
        ['layout shift 0.300 > 0.05']
        """
        out = [f"{self.error}"] if self.error else []
        for category, heading in CATEGORIES.items():
            score = self.scores.get(category)
            if score is None:
                out.append(f"{heading.lower()}: no score")
            elif score < TARGET_SCORE:
                out.append(f"{heading.lower()} {score} < {TARGET_SCORE}")
        if self.layout_shift is None:
            out.append("layout shift: not measured")
        elif self.layout_shift > TARGET_LAYOUT_SHIFT:
            out.append(f"layout shift {self.layout_shift:.3f} > {TARGET_LAYOUT_SHIFT:g}")
        return out

    @property
    def verdict(self) -> str:
        """``PASS`` when every figure meets its target, else ``MISSED``."""
        return verdict(not self.missed)


def page_figures(page: str, report: Mapping[str, Any]) -> PageFigures:
    """The table's row of ``page`` from its Lighthouse report (the JSON, as a dict).

    Raises:
        ReportError: ``report`` has no ``categories`` or ``audits`` (not a Lighthouse report).

    >>> lhr = {"finalDisplayedUrl": "http://127.0.0.1:1/drills",
    ...        "categories": {"performance": {"score": 0.805}, "seo": {"score": 1}},
    ...        "audits": {"cumulative-layout-shift": {"numericValue": 0.37}}}
    >>> row = page_figures("drills", lhr)
    >>> row.scores
    {'performance': 81, 'accessibility': None, 'best-practices': None, 'seo': 100}
    >>> row.layout_shift, row.verdict
    (0.37, 'MISSED')
    """
    missing = [key for key in ("categories", "audits") if not isinstance(report.get(key), dict)]
    if missing:
        raise ReportError(f"the report of {page!r} has no {' or '.join(missing)}: not Lighthouse's")
    shift = report["audits"].get("cumulative-layout-shift", {}).get("numericValue")
    if shift is not None and (not isinstance(shift, int | float) or shift < 0):
        raise ReportError(f"the layout shift of {page!r} is {shift!r}, not a number ≥ 0")
    runtime = report.get("runtimeError")
    error = f"{runtime.get('code')}: {runtime.get('message')}" if runtime else None
    scores = {category: _score(report, category) for category in CATEGORIES}
    return PageFigures(
        page=page,
        url=str(report.get("finalDisplayedUrl") or report.get("requestedUrl") or ""),
        scores=scores,
        layout_shift=None if shift is None else float(shift),
        error=error,
        weak=tuple(
            reason
            for category, score in scores.items()
            if score is not None and score < TARGET_SCORE
            for reason in _weak_audits(report, category)
        ),
    )


def _weak_audits(report: Mapping[str, Any], category: str) -> list[str]:
    """The weighted audits of ``category`` under :data:`WEAK_AUDIT`, heaviest first."""
    refs = report["categories"][category].get("auditRefs") or []
    out = []
    for ref in sorted(refs, key=lambda r: -float(r.get("weight") or 0)):
        audit = report["audits"].get(ref.get("id"), {})
        score = audit.get("score")
        if (ref.get("weight") or 0) > 0 and score is not None and score < WEAK_AUDIT:
            shown = audit.get("displayValue")
            out.append(f"{ref['id']} {shown}".replace("\xa0", " ") if shown else str(ref["id"]))
    return out


# ------------------------------------------------------------------ frames


@dataclass(frozen=True, slots=True)
class ShotFrames:
    """The frames of one shot's animation.

    Attributes:
        start_ms: the first frame's time (the page's clock, ms).
        frames: how many frames were drawn.
        seconds: from the first frame to the last.
        fps: the average frame rate (frames after the first over ``seconds``).
        median_fps: the rate of the median frame (1000 / the median frame time in ms).
        min_fps: the rate of the slowest frame (1000 / the longest frame time in ms).
    """

    start_ms: float
    frames: int
    seconds: float
    fps: float
    median_fps: float
    min_fps: float

    def holds(self, time_ms: float) -> bool:
        """Whether ``time_ms`` falls within this animation (from its first frame to its last)."""
        return self.start_ms <= time_ms <= self.start_ms + 1000 * self.seconds

    @property
    def verdict(self) -> str:
        """``PASS`` when the average is at least :data:`FPS_FLOOR`."""
        return verdict(self.fps >= FPS_FLOOR)


def shot_frames(times_ms: Sequence[float]) -> ShotFrames:
    """The figures of one animation from its frames' times (requestAnimationFrame's, in ms).

    Raises:
        ValueError: fewer than two frames, or times that go backwards.

    >>> f = shot_frames([0.0, 16.7, 33.3, 50.0, 100.0])
    >>> f.frames, round(f.seconds, 3), round(f.fps), round(f.median_fps), round(f.min_fps)
    (5, 0.1, 40, 60, 20)
    >>> f.verdict
    'MISSED'
    """
    if len(times_ms) < 2:
        raise ValueError(f"an animation of {len(times_ms)} frame(s) has no frame rate")
    gaps = [b - a for a, b in itertools.pairwise(times_ms)]
    if min(gaps) <= 0:
        raise ValueError(f"frame times that do not go forward: {list(times_ms)[:8]}…")
    total = times_ms[-1] - times_ms[0]
    return ShotFrames(
        start_ms=times_ms[0],
        frames=len(times_ms),
        seconds=total / 1000,
        fps=1000 * len(gaps) / total,
        median_fps=1000 / statistics.median(gaps),
        min_fps=1000 / max(gaps),
    )


def animations(samples: Sequence[tuple[float, object]]) -> list[list[float]]:
    """The frame times of each animation: the runs of frames drawn while one shot was animating.

    ``samples`` are (time in ms, the shot animating then) for every frame, in
    order: the shot as anything that tells two shots apart (its event number),
    None while no shot is animating.  A shot that follows another at once is
    an animation of its own.  A run of a single frame (an animation cut at
    once) is left out: it has no rate.

    >>> animations([(0, None), (16, 7), (33, 7), (50, 8), (66, 8), (83, None), (99, 9)])
    [[16, 33], [50, 66]]
    """
    runs: list[list[float]] = []
    current: list[float] = []
    shot: object = None
    for time, animating in samples:
        if animating is not None and animating == shot:
            current.append(time)
            continue
        if len(current) > 1:
            runs.append(current)
        current = [] if animating is None else [time]
        shot = animating
    if len(current) > 1:
        runs.append(current)
    return runs


@dataclass(frozen=True, slots=True)
class LongTask:
    """A long task of the page's main thread (a PerformanceObserver "longtask" entry).

    Attributes:
        start_ms: when it started (the page's clock, ms).
        duration_ms: how long it ran.
    """

    start_ms: float
    duration_ms: float


def long_task_verdict(tasks: Sequence[LongTask]) -> str:
    """``PASS`` when no task ran over :data:`LONG_TASK_MS`.

    >>> long_task_verdict([LongTask(10.0, 30.0)]), long_task_verdict([LongTask(10.0, 70.0)])
    ('PASS', 'MISSED')
    """
    return verdict(all(t.duration_ms <= LONG_TASK_MS for t in tasks))
