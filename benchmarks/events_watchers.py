"""Event watchers benchmark: how long until every open event page shows a result entered.

Run it from a checkout: ``python benchmarks/events_watchers.py [--watchers 50]
[--players 64] [--rounds 7]``.  It starts ``crokinole serve`` on a free port
(a fresh SQLite database, no warm-up), signs up an organiser, creates a
Swiss of ``--players`` players (names, in a hall: the organiser enters them
and checks them in), and opens ``--watchers`` event pages: real
Server-Sent Events streams of ``GET /api/events/{id}/stream`` over their
own connections.  Round after round (``--rounds``, each paired and started
by the organiser) it then enters every pairing's result, one at a time, as
the organiser (``POST .../rounds/{n}/tables/{t}/result``: confirmed at
once), and for each result measures the delay from just before the POST
until every watcher has been sent a view of that version or later (issue 23:
"a result entered → every open event page updated in ≤ 1 s (p99, 50
watchers)").  The next result is entered once every watcher has it.

It prints the delay's p50, p99 and max over the results (64 players, 7
rounds: 224 results), the server's CPU time per result (utime + stime of
the server process from ``/proc/PID/stat``, read before each POST and after
the last watcher has the view: the POST, the one rendering and the 50
sends), and the size of the last view sent.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

#: The result entered for each pairing: a game won 6–2 in game points (R2) by one side.
ROUNDS = [((35, 10), (1, 0)), ((20, 15), (1, 0)), ((40, 5), (2, 0)), ((10, 30), (0, 1))]
PASSWORD = "a long enough password 7"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) process ``pid`` has used, in seconds."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def result(winner: int) -> dict[str, Any]:
    """A game won by side ``winner`` (0 or 1)."""
    rounds = []
    for totals, twenties in ROUNDS:
        order = slice(None) if winner == 0 else slice(None, None, -1)
        rounds.append({"totals": list(totals[order]), "twenties": list(twenties[order])})
    return {"games": [{"rounds": rounds}]}


@dataclass
class Watcher:
    """One open event page: the newest version it was sent, and when."""

    version: int = 0
    arrived: dict[int, float] = field(default_factory=dict)
    last_size: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    failed: str | None = None

    async def watch(
        self, client: httpx.AsyncClient, path: str, address: str, ready: asyncio.Event
    ) -> None:
        # Each page from an address of its own (the server trusts X-Forwarded-For from the
        # loopback): streams are limited per address.
        headers = {"X-Forwarded-For": address}
        try:
            await self._read(client, path, headers, ready)
        except httpx.HTTPError as exc:  # the server went (at the end, or a failure)
            self.failed = str(exc) or type(exc).__name__

    async def _read(
        self,
        client: httpx.AsyncClient,
        path: str,
        headers: dict[str, str],
        ready: asyncio.Event,
    ) -> None:
        async with client.stream("GET", path, headers=headers) as response:
            response.raise_for_status()
            async for line in response.aiter_lines():
                if line.startswith("id: "):
                    version = int(line[4:])
                elif line.startswith("data: "):
                    now = time.perf_counter()
                    self.version = max(self.version, version)
                    self.arrived.setdefault(version, now)
                    self.last_size = len(line) - 6
                    self.changed.set()
                    ready.set()


async def until_all(watchers: list[Watcher], version: int) -> float:
    """Wait until every watcher has a view of ``version`` or later; when the last one came."""
    last = 0.0
    for watcher in watchers:
        while watcher.version < version:
            watcher.changed.clear()
            await asyncio.wait_for(watcher.changed.wait(), timeout=60)
        last = max(last, min(t for v, t in watcher.arrived.items() if v >= version))
    return last


async def bench(url: str, pid: int, watchers_n: int, players: int, rounds: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=watchers_n + 10, max_keepalive_connections=watchers_n)
    async with (
        httpx.AsyncClient(base_url=url, timeout=60.0) as organiser,
        httpx.AsyncClient(base_url=url, timeout=None, limits=limits) as watching,
    ):
        name = f"bench{secrets.token_hex(4)}"
        answer = await organiser.post(
            "/api/account/signup", json={"username": name, "password": PASSWORD}
        )
        answer.raise_for_status()
        settings = {"name": "Watchers", "format": "swiss", "rounds": rounds, "venue": "hall"}
        view = (await organiser.post("/api/events", json={"settings": settings})).json()
        path = f"/api/events/{view['id']}"
        for number in range(1, players + 1):
            added = await organiser.post(path + "/entrants", json={"name": f"Player {number}"})
            added.raise_for_status()
            entrant = added.json()["entrants"][-1]["id"]
            (await organiser.post(path + f"/entrants/{entrant}/check-in")).raise_for_status()
        watchers = [Watcher() for _ in range(watchers_n)]
        tasks = []
        for index, watcher in enumerate(watchers):
            ready = asyncio.Event()
            address = f"10.23.{index // 250}.{index % 250 + 1}"
            task = asyncio.create_task(watcher.watch(watching, path + "/stream", address, ready))
            tasks.append(task)
            waiting = asyncio.create_task(ready.wait())
            await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if task.done():
                waiting.cancel()
                why = watcher.failed
                raise SystemExit(f"a watcher's stream ended before its first view: {why}")
        rng = random.Random(23)
        delays: list[float] = []
        cpu: list[float] = []
        for number in range(1, rounds + 1):
            (await organiser.post(path + "/rounds")).raise_for_status()
            started = await organiser.post(path + f"/rounds/{number}/start")
            started.raise_for_status()
            await until_all(watchers, started.json()["version"])
            tables = [p["table"] for p in started.json()["rounds"][-1]["pairings"] if not p["bye"]]
            for table in tables:
                cpu_before = cpu_seconds(pid)
                begun = time.perf_counter()
                answer = await organiser.post(
                    path + f"/rounds/{number}/tables/{table}/result", json=result(rng.randrange(2))
                )
                answer.raise_for_status()
                last = await until_all(watchers, answer.json()["version"])
                delays.append(last - begun)
                cpu.append(cpu_seconds(pid) - cpu_before)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {"delays": delays, "cpu": cpu, "view_bytes": watchers[0].last_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watchers", type=int, default=50, help="open event pages (50)")
    parser.add_argument("--players", type=int, default=64, help="players of the Swiss (64)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds played (7)")
    args = parser.parse_args(argv)
    port = free_port()
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable, "-m", "crokinole", "serve", "--port", str(port),
            "--db", str(Path(scratch) / "bench.db"), "--no-warm-up", "--log-level", "warning",
        ]  # fmt: skip
        server = subprocess.Popen(command)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(url + "/api/events", timeout=1.0).raise_for_status()
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("the server did not start") from None
                    time.sleep(0.1)
            found = asyncio.run(bench(url, server.pid, args.watchers, args.players, args.rounds))
        finally:
            server.terminate()
            server.wait(timeout=30)
    delays = sorted(d * 1000 for d in found["delays"])
    cpu = [c * 1000 for c in found["cpu"]]
    p99 = statistics.quantiles(delays, n=100, method="inclusive")[98]
    print(
        f"events_watchers: {args.watchers} watchers, {args.players} players, "
        f"{len(delays)} results entered one by one (python benchmarks/events_watchers.py "
        f"--watchers {args.watchers} --players {args.players} --rounds {args.rounds})"
    )
    print(
        f"  result entered → every watcher has the view: p50 {statistics.median(delays):.1f} ms, "
        f"p99 {p99:.1f} ms, max {delays[-1]:.1f} ms (target: p99 ≤ 1000 ms)"
    )
    print(
        f"  server CPU per result: {statistics.fmean(cpu):.1f} ms mean, "
        f"{statistics.median(cpu):.1f} ms median; last view sent: {found['view_bytes']} bytes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
