"""What the pages' figures are measured on: a fresh server, Debian's Chromium, and a site's data.

:func:`serve` runs ``crokinole serve`` on a free loopback port with a new
SQLite file; :func:`chromium` runs a headless Chromium whose DevTools port
both Playwright (which sets the data up) and Lighthouse (which measures)
connect to, so that both see one browser profile.  The site's data is made
the way a player makes it, in the browser: :func:`play_ranked_game` (two
accounts play a ranked game of one round to its end: a finished game for the
review and the replay, a ranked profile, a leaderboard row) and
:func:`start_cpu_game` / :func:`shoot` (a game against the CPU).

The client's pieces used here are the ones the browser tests use too
(tests/web): the read-only ``window.crokinole`` and the start screen's and
the shot controls' ``data-testid`` s; when they change, this module changes
with them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urljoin

__all__ = [
    "CHROMIUM",
    "Chromium",
    "Finished",
    "Server",
    "SetupError",
    "chromium",
    "how_to_play_url",
    "machine_load",
    "need_chromium",
    "play_ranked_game",
    "serve",
    "shoot",
    "start_cpu_game",
    "wait_quiet_turn",
    "wait_until_idle",
]

#: Debian's Chromium, unless $CHROME_PATH names another (Lighthouse reads the same variable).
CHROMIUM = Path(os.environ.get("CHROME_PATH") or "/usr/bin/chromium")
#: Flags of a Chromium that measures: headless, nothing in the background (as chrome-launcher's
#: defaults, which Lighthouse uses when it starts Chromium itself).
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--mute-audio",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
)
#: The share of one core under which the server and the browser count as idle.
IDLE_SHARE = 0.1
#: The ranked players' password (the server's minimum is 8 characters).
PASSWORD = "pages-benchmark"
#: Seconds the server or the browser may take to start, and a step of the setup to finish.
START_TIMEOUT = 60.0
STEP_MS = 60_000

QUIET_TURN = "() => { const c = window.crokinole; return !!c && c.canShoot && !c.busy; }"
OVER = "() => { const c = window.crokinole; return !!c && c.state?.phase === 'game_over'; }"


class SetupError(RuntimeError):
    """The server, the browser or the site's data could not be set up: the message says why."""


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server(str):
    """The URL of a running server (a ``str``), with its process id."""

    pid: int


@contextlib.contextmanager
def serve(*options: str) -> Iterator[Server]:
    """Run ``crokinole serve`` on a free loopback port with a new SQLite file; yield its URL.

    The file is in a temporary folder, removed afterwards; ``options`` are more
    ``crokinole serve`` options.  A developer's ``$CROKINOLE_REDIS_URL`` and the
    like are left out: this server is one process with its data of its own.
    """
    port = free_port()
    url = Server(f"http://127.0.0.1:{port}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CROKINOLE_")}
    with tempfile.TemporaryDirectory(prefix="crokinole-pages-") as folder:
        command = [
            sys.executable,
            "-m",
            "crokinole",
            "serve",
            "--port",
            str(port),
            "--db",
            str(Path(folder) / "crokinole.db"),
            "--log-level",
            "warning",
            *options,
        ]
        log = (Path(folder) / "server.log").open("w+", encoding="utf-8")
        proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        url.pid = proc.pid
        try:
            _wait_healthy(url, proc, log)
            yield url
        finally:
            _stop(proc)
            log.close()


def _wait_healthy(url: str, proc: subprocess.Popen[str], log: Any) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            log.seek(0)
            raise SetupError(f"crokinole serve stopped (exit {proc.returncode}):\n{log.read()}")
        if time.monotonic() > deadline:
            raise SetupError(f"crokinole serve did not answer {url}/healthz in {START_TIMEOUT:g} s")
        time.sleep(0.2)


def _stop(proc: subprocess.Popen[Any]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def need_chromium() -> None:
    """Raise :class:`SetupError` unless :data:`CHROMIUM` is there."""
    if not (CHROMIUM.exists() or shutil.which(str(CHROMIUM))):
        raise SetupError(
            f"{CHROMIUM} is missing: install Debian's chromium package, or set CHROME_PATH"
        )


@dataclass(frozen=True, slots=True)
class Chromium:
    """A running Chromium: its DevTools port and its (main) process id."""

    port: int
    pid: int


@contextlib.contextmanager
def chromium() -> Iterator[Chromium]:
    """Run a headless Chromium with a new profile; yield its DevTools port and process.

    The port is the one Chromium chose itself (``--remote-debugging-port=0``),
    read from the profile's ``DevToolsActivePort`` file: no race for a port.
    """
    need_chromium()
    with tempfile.TemporaryDirectory(prefix="crokinole-pages-chromium-") as profile:
        active = Path(profile) / "DevToolsActivePort"
        command = [
            str(CHROMIUM),
            *CHROMIUM_FLAGS,
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + START_TIMEOUT
            while not (active.exists() and active.read_text().strip()):
                if proc.poll() is not None:
                    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                    raise SetupError(f"{CHROMIUM} stopped (exit {proc.returncode}):\n{err}")
                if time.monotonic() > deadline:
                    raise SetupError(f"{CHROMIUM} opened no DevTools port in {START_TIMEOUT:g} s")
                time.sleep(0.1)
            yield Chromium(port=int(active.read_text().split()[0]), pid=proc.pid)
        finally:
            _stop(proc)
            if proc.stderr is not None:
                proc.stderr.close()


def _cpu_ticks(pids: Sequence[int]) -> int:
    """The CPU time (clock ticks) used so far by ``pids`` and every process under them (Linux)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue  # gone meanwhile
            fields = text[text.rindex(")") + 2 :].split()
            stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    wanted, total = set(pids), 0
    for _ in range(8):  # a few generations: Chromium's zygote and its renderers
        wanted |= {pid for pid, (parent, _) in stats.items() if parent in wanted}
    for pid in wanted:
        total += stats.get(pid, (0, 0))[1]
    return total


def wait_until_idle(pids: Sequence[int], busy: float = IDLE_SHARE, timeout: float = 120.0) -> bool:
    """Wait until ``pids`` (and their children) use under ``busy`` of a core for a second.

    A fresh server compiles its CPU players' kernels for a while, and an ended
    game leaves work behind; on a machine of few cores that work would be counted
    in the next page's blocking time.  False when still busy after ``timeout``
    seconds, or where there is no ``/proc`` to read (not Linux).
    """
    if not Path("/proc/self/stat").exists():
        return False
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before, start = _cpu_ticks(pids), time.monotonic()
        time.sleep(1.0)
        used = (_cpu_ticks(pids) - before) / tick / (time.monotonic() - start)
        if used < busy:
            return True
    return False


def machine_load() -> str:
    """The machine's load in words, with a warning when other work may be sharing its cores.

    Taken before a run starts anything, it is other people's work. Both figures
    count what one browser gets done in real time: tests or builds run beside
    them take cores away and show as late frames and long tasks.
    """
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        return f"{cores} cores"
    words = f"load {load:.1f} on {cores} cores before the run (the last minute's average)"
    if load > cores * 0.5:
        words += ": other work shares the machine, so the figures may be worse than the client's"
    return words


class _LinkFinder(HTMLParser):
    """The ``href`` of the first link whose words are ``words`` (case and spaces ignored)."""

    def __init__(self, words: str) -> None:
        super().__init__()
        self.words = words
        self.href: str | None = None
        self._open: list[tuple[str | None, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open.append((dict(attrs).get("href"), []))

    def handle_data(self, data: str) -> None:
        for _, text in self._open:
            text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag != "a" or not self._open:
            return
        href, text = self._open.pop()
        if self.href is None and href and " ".join("".join(text).split()).lower() == self.words:
            self.href = href


def how_to_play_url(base: str, start_page: str) -> str:
    """The address of the rules page: where the start page's "How to play" link goes.

    It is found as a player finds it: by the link of that name (the top bar's).

    Raises:
        SetupError: the start page has no such link.

    >>> how_to_play_url("http://h:1/", '<a href="/x">Play</a> <a href="/rules">How\\n to play</a>')
    'http://h:1/rules'
    """
    finder = _LinkFinder("how to play")
    finder.feed(start_page)
    if finder.href is None:
        raise SetupError(f"the start page {base} has no link called 'How to play'")
    return urljoin(base, finder.href)


def fetch_text(url: str) -> str:
    """The body of ``url`` as text."""
    with urllib.request.urlopen(url, timeout=30) as answer:
        body: bytes = answer.read()
        return body.decode("utf-8")


# ------------------------------------------------------------------ playing in the browser


def open_client(page: Any, url: str) -> None:
    """Open the game page at ``url`` and wait for its websocket."""
    page.goto(url)
    page.wait_for_function("() => window.crokinole && window.crokinole.connected", timeout=STEP_MS)


def start_cpu_game(page: Any, base: str, level: str = "normal", query: str = "") -> None:
    """Start a singles game against the CPU ``level`` on the start screen of ``base``: the
    level's one-tap button (the default rules), as a player does."""
    open_client(page, f"{base}/{query}")
    page.wait_for_function("() => window.crokinole.levels.length > 0", timeout=STEP_MS)
    page.get_by_test_id(f"quick-{level}").click()
    page.wait_for_function("() => window.crokinole.screen === 'game'", timeout=STEP_MS)


def wait_quiet_turn(page: Any, timeout_ms: float = STEP_MS) -> None:
    """Wait until it is this page's turn and nothing is animating or waiting for the server."""
    page.wait_for_function(QUIET_TURN, timeout=timeout_ms)


#: Where a disc is placed (degrees from the middle of the quarter), the first that is free.
PLACES = (0.0, 12.0, -12.0, 24.0, -24.0, 36.0, -36.0)


def shoot(page: Any, power: float, direction: float = 0.0) -> int:
    """Shoot from the first free place of :data:`PLACES`; return the event number before it."""
    position = page.evaluate(
        """(places) => {
          const c = window.crokinole;
          for (const p of places) if (c.freePosition(p) === p) return p;
          return c.freePosition(0);
        }""",
        list(PLACES),
    )
    if position is None:
        raise SetupError("no free place on the shooting line")
    before = int(page.evaluate("() => window.crokinole.lastEvent"))
    # On a phone the numbers are in the folded "Fine aim" drawer: opened to type, then folded.
    folded = page.get_by_test_id("fine-aim").get_attribute("open") is None
    if folded:
        page.get_by_test_id("fine-aim-toggle").click()
    for name, value in (("position", position), ("direction", direction), ("power", power)):
        page.get_by_test_id(f"{name}-input").fill(str(value))
    if folded:
        page.get_by_test_id("fine-aim-toggle").click()
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function(f"() => window.crokinole.lastEvent > {before}", timeout=STEP_MS)
    return before


@dataclass(frozen=True, slots=True)
class Finished:
    """The ranked game :func:`play_ranked_game` played: its table and its two players."""

    table: str
    players: tuple[str, str]


def _sign_up(page: Any, username: str) -> None:
    answer = page.evaluate(
        """async ([username, password]) => {
          const r = await fetch('/api/account/signup', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({username, password})});
          return {status: r.status, body: await r.text()};
        }""",
        [username, PASSWORD],
    )
    if answer["status"] != 201:
        raise SetupError(f"signing {username} up: {answer['status']} {answer['body']}")


def play_ranked_game(
    browser: Any, base: str, players: tuple[str, str] = ("ann", "bob")
) -> Finished:
    """Two new accounts queue for a ranked singles game and play it to its end.

    The server must run with ``--test-ranked-rounds 1`` (a game of one round);
    the pages play at 20 times the animation speed.  Each player has a browser
    context of their own (their own cookie and device), closed afterwards.
    """
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in players]
    try:
        pages = []
        for ctx, username in zip(contexts, players, strict=True):
            page = ctx.new_page()
            open_client(page, f"{base}/?speed=20&cpu_pause=0")
            _sign_up(page, username)
            open_client(page, f"{base}/?speed=20&cpu_pause=0")
            page.wait_for_function(
                f"() => window.crokinoleAccount?.username === '{username}'",
                timeout=STEP_MS,
            )
            pages.append(page)
        for page in pages:
            page.get_by_test_id("ranked-play").click()
        for page in pages:
            page.wait_for_function("() => window.crokinole.screen === 'game'", timeout=STEP_MS)
        for _ in range(200):
            if all(page.evaluate(OVER) for page in pages):
                break
            for page in pages:
                if page.evaluate(QUIET_TURN):
                    shoot(page, power=24)
            pages[0].wait_for_timeout(100)
        else:
            raise SetupError("the ranked game did not end within 200 rounds of turns")
        table = str(pages[0].evaluate("() => window.crokinole.table"))
    finally:
        for ctx in contexts:
            ctx.close()
    return Finished(table=table, players=players)


_N = TypeVar("_N", int, float)


def ranged(
    flag: str, kind: Callable[[str], _N], low: _N, high: _N, what: str
) -> Callable[[str], _N]:
    """An argparse type: ``kind(text)`` from ``low`` to ``high``, else an error naming ``flag``.

    >>> ranged("--runs", int, 1, 9, "a whole number from 1 to 9")("3")
    3
    >>> ranged("--runs", int, 1, 9, "a whole number from 1 to 9")("ten")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: --runs 'ten': a whole number from 1 to 9
    """

    def parse(text: str) -> _N:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:  # NaN fails the comparison too
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: {what}")
        return value

    return parse
