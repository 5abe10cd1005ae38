"""Flood benchmark: the other games' shot-to-broadcast while one client floods the server.

Run it from a checkout: ``python benchmarks/flood.py [--games N] [--seconds S]``
or ``crokinole bench flood ...`` (the same); ``--help`` lists the options.  It
reuses the machinery of ``benchmarks/server/`` (``crokinole bench server``):
the same ``crokinole serve`` process on a fresh SQLite database, its warm-up,
and the same bots playing singles parties over real websockets at ten times
human pace.

Once the parties play, the benchmark measures windows of ``--seconds`` on the
same parties, in turn quiet and flooded (``--windows`` of each, quiet first):
during a flooded window one more client, on a raw socket, says ``hello`` and
sends ``--flood-kib`` of ``ping`` messages in one write without ever reading
(the attack of issue 19: 1.2 MB of pings), then opens a new socket and does
it again, for the whole window.  The server answers such a client up to its
message limit, sends it ``too_many_messages`` and closes it.

It prints the p99 (and p50) of the other games' shot-to-broadcast (sending
``shoot`` to that shot on the other player's socket) in the quiet windows
and in the flooded ones, pooled over the windows of each kind, and their
ratio beside the target: the flooded p99 within 1.5 times the quiet one.
Quiet and flooded windows alternate on one server in one run, so the ratio
compares like with like on a machine shared with other work; the bots run
in this process and take CPU time from the server too (the details say how
much each used).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import secrets
import struct
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from crokinole.cli.main import count_argument, load_benchmark

#: ``benchmarks/server/``, loaded as ``crokinole bench server`` loads it.
server_bench = load_benchmark("server", Path(__file__).resolve().parent)

DEFAULT_GAMES = 50
DEFAULT_SECONDS = 8.0
DEFAULT_WINDOWS = 2
DEFAULT_FLOOD_KIB = 1200
#: The target: the flooded p99 at most this many times the quiet p99.
TARGET_RATIO = 1.5


@dataclass(slots=True)
class FloodTally:
    """What the flooding client did in its windows."""

    sockets: int = 0
    bytes_sent: int = 0
    refused: int = 0


def _frame(payload: bytes) -> bytes:
    """One masked text frame (RFC 6455), as a client sends it."""
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x81, 0x80 | size)
    else:
        head = struct.pack("!BBH", 0x81, 0x80 | 126, size)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def flood_bytes(kib: int) -> bytes:
    """``hello`` then ``ping`` messages, about ``kib`` KiB in all, as one write.

    >>> data = flood_bytes(1)
    >>> 1000 <= len(data) <= 1100, data[0] == 0x81
    (True, True)
    """
    hello = _frame(json.dumps({"type": "hello", "token": secrets.token_hex(12)}).encode())
    ping = _frame(b'{"type": "ping"}')
    return hello + ping * max(1, (kib * 1024 - len(hello)) // len(ping))


async def flood(url: str, kib: int, tally: FloodTally, stop: asyncio.Event) -> None:
    """Flood the server from one raw socket after another until ``stop`` is set."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            tally.refused += 1
            await asyncio.sleep(0.05)
            continue
        tally.sockets += 1
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                (
                    f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                    f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
            if not head.startswith(b"HTTP/1.1 101"):
                tally.refused += 1
                await asyncio.sleep(0.05)
                continue
            data = flood_bytes(kib)
            writer.write(data)  # one write; never read again
            tally.bytes_sent += len(data)
            with contextlib.suppress(TimeoutError, OSError):
                await asyncio.wait_for(writer.drain(), 5.0)
            await asyncio.sleep(0.05)
        except (OSError, TimeoutError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@dataclass(slots=True)
class FloodFigures:
    """The windows of one run, by kind."""

    games: int
    quiet: list[Any] = field(default_factory=list)
    flooded: list[Any] = field(default_factory=list)
    tally: FloodTally = field(default_factory=FloodTally)

    @staticmethod
    def _pooled(windows: Sequence[Any]) -> list[float]:
        return [s for w in windows for s in w.latencies]

    def quantile(self, kind: str, q: float) -> Any:
        windows = self.quiet if kind == "quiet" else self.flooded
        return server_bench.Quantile.of(self._pooled(windows), q)

    @property
    def ratio(self) -> float | None:
        quiet, flooded = self.quantile("quiet", 0.99), self.quantile("flooded", 0.99)
        if quiet is None or flooded is None or quiet.ms <= 0:
            return None
        return float(flooded.ms / quiet.ms)


async def play(
    server: Any, args: argparse.Namespace, options: Any, progress: Progress
) -> FloodFigures:
    """Warm up, open the parties, then measure quiet and flooded windows in turn."""
    games, windows, kib = args.games, args.windows, args.flood_kib
    url = await server_bench.protocol_2_websocket(server.base)
    await server_bench.warm_up(url)
    ramp = server_bench.Ramp([server], [url], options, progress, "", False)
    ramp.rss_before = server_bench.rss_kib(server.proc.pid)
    standins = [False] * games
    figures = FloodFigures(games)
    try:
        for number in range(2 * windows):
            flooded = number % 2 == 1
            kind = "flooded" if flooded else "quiet"
            ramp.label = f"window {number + 1}/{2 * windows} ({kind}): "
            stop = asyncio.Event()
            flooder = asyncio.create_task(flood(url, kib, figures.tally, stop)) if flooded else None
            try:
                step = await ramp.step(games, standins, final=number == 2 * windows - 1)
            finally:
                stop.set()
                if flooder is not None:
                    await flooder
            (figures.flooded if flooded else figures.quiet).append(step)
            for task in list(progress.task_ids):
                progress.remove_task(task)
    finally:
        for party in ramp.parties:
            party.tally.shooting = False
        await asyncio.gather(*(p.close() for p in ramp.parties))
    return figures


def run(args: argparse.Namespace, console: Console) -> FloodFigures:
    options = server_bench.BenchOptions(
        seconds=args.seconds, pace=args.pace, standin_share=0.0, seed=args.seed
    )
    server_options = server_bench.ServerOptions(
        args.games, server_bench.DEFAULT_STANDIN_GRACE, None, args.server_log, False
    )
    with (
        Progress(*server_bench.PROGRESS_COLUMNS, console=console, transient=True) as progress,
        server_bench.running_server(server_options) as running,
        asyncio.Runner(loop_factory=server_bench.loop_factory()) as runner,
    ):
        return runner.run(play(running, args, options, progress))


def print_report(figures: FloodFigures, args: argparse.Namespace, console: Console) -> None:
    table = Table(
        title=(
            f"Shot to broadcast in {figures.games} other games, quiet and while one client "
            f"floods (target: flooded p99 ≤ {TARGET_RATIO:g} × quiet p99)"
        ),
        caption=(
            f"one server process on loopback; {args.windows} windows of {args.seconds:g} s of "
            f"each kind, alternating on the same parties; [95% interval]; {os.cpu_count()} "
            "CPUs shared by the server, the bots and whatever else runs on the machine"
        ),
    )
    for name in ("windows", "shots timed", "p50 ms", "p99 ms", "errors", "CPU server / bots"):
        table.add_column(name, justify="right")
    for kind, windows in (("quiet", figures.quiet), ("flooded", figures.flooded)):
        shots = sum(len(w.latencies) for w in windows)
        errors = sum(w.error_count for w in windows)
        server_cpu = sum(w.server_cpu for w in windows) / max(1, len(windows))
        bots_cpu = sum(w.bots_cpu for w in windows) / max(1, len(windows))
        p50, p99 = figures.quantile(kind, 0.5), figures.quantile(kind, 0.99)
        table.add_row(
            kind,
            f"{shots:,}",
            "n/a" if p50 is None else p50.text(),
            "n/a" if p99 is None else p99.text(),
            str(errors),
            f"{server_cpu:.0%} / {bots_cpu:.0%}",
        )
    console.print(table)
    tally = figures.tally
    console.print(
        f"the flooding client: {tally.sockets:,} sockets, {tally.bytes_sent / 1e6:,.1f} MB of "
        f"pings sent unread, {tally.refused} sockets refused"
    )
    ratio = figures.ratio
    if ratio is None:
        console.print("ratio: n/a (too few shots timed)")
    else:
        verdict = "[green]PASS[/green]" if ratio <= TARGET_RATIO else "[red]MISS[/red]"
        console.print(
            f"flooded p99 / quiet p99 = {ratio:.2f} (target ≤ {TARGET_RATIO:g}): {verdict}"
        )
    for kind, windows in (("quiet", figures.quiet), ("flooded", figures.flooded)):
        for w in windows:
            for sample in w.error_samples:
                console.print(f"  {kind} error, e.g. {sample}", markup=False)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Bots play singles parties on one crokinole server; one more client "
        "floods it with pings it never reads. Prints the other games' p99 shot-to-broadcast "
        "quiet and flooded, and their ratio against the target (1.5).",
    )
    parser.add_argument(
        "--games", type=count_argument(1), default=DEFAULT_GAMES, help="parties (default: 50)"
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help="seconds of each measuring window (default: %(default)s)",
    )
    parser.add_argument(
        "--windows",
        type=count_argument(1),
        default=DEFAULT_WINDOWS,
        help="windows of each kind, quiet and flooded in turn (default: %(default)s)",
    )
    parser.add_argument(
        "--flood-kib",
        type=count_argument(1),
        default=DEFAULT_FLOOD_KIB,
        help="KiB of pings the flooding client sends on each socket (default: %(default)s)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=server_bench.DEFAULT_PACE,
        help="seconds between a game's shots (default: %(default)s)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the bots' seed (default: 0)")
    parser.add_argument("--server-log", type=Path, default=None, help="keep the server's output")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; print its figures (0), or 1 if the server could not run."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    return int(
        server_bench.run_reported(
            "flood",
            lambda: run(args, console),
            lambda figures: print_report(figures, args, console),
            console,
        )
    )


if __name__ == "__main__":
    raise SystemExit(main())
