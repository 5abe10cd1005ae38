"""Analysis load benchmark: a CPU player's reply while two long reviews are computed.

Run it from a checkout: ``python benchmarks/analysis_load.py [--replies N]`` or
``crokinole bench analysis_load ...`` (the same).  It starts ``crokinole serve``
(the machinery of ``benchmarks/server/``: a fresh SQLite database, the
kernels warmed up), then plays a game on one device against CPU Expert over a
real websocket, steady hand: it shoots and times how long the CPU's reply
(its ``shot`` message) takes to come after its own shot's.

Phases alternate on the same server, quiet and loaded (``--phases`` of each,
quiet first), ``--replies`` CPU replies each.  In a loaded phase two long
game records (``--shots`` shots each, discs all over the board) are reviewed
again and again by ``POST /api/review`` from two client addresses
(``X-Forwarded-For``, which the server trusts from the loopback), so the
analysis is busy for the whole phase.  It prints the reply's p50 and p99
quiet and loaded, pooled over the phases of each kind, their ratio beside the
target (the loaded p99 within 1.5 times the quiet one), the reviews done, and
the CPU time the server used per reply.  On a machine of two cores the
analysis thread takes one of them: the CPU players keep their threads, not
the machine to themselves.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from crokinole import Game, Rules, Shot
from crokinole.cli.main import count_argument, load_benchmark
from crokinole.rules.options import Scoring

#: ``benchmarks/server/``, loaded as ``crokinole bench server`` loads it.
server_bench = load_benchmark("server", Path(__file__).resolve().parent)

#: The target: the loaded p99 at most this many times the quiet p99.
TARGET_RATIO = 1.5


def long_record(shots: int, seed: int) -> bytes:
    """A game record of ``shots`` shots (a game to 1000, discs left all over the board).

    >>> len(json.loads(long_record(3, 1))["actions"])
    3
    """
    rng = random.Random(seed)
    game = Game(Rules(scoring=Scoring.TO_100, target=1000))
    played = 0
    while played < shots:
        seat = game.current_seat
        if seat is None:
            game.next_round()
            continue
        for _ in range(50):
            shot = Shot(rng.uniform(-10, 10), rng.uniform(-8, 8), rng.uniform(22, 34))
            if game.placement_problem(seat, shot.position) is None:
                break
        game.shoot(seat, shot)
        played += 1
    return game.to_json().encode()


@dataclass(slots=True)
class Reviews:
    """Two long reviews asked again and again, each from its own address, in threads."""

    base: str
    records: tuple[bytes, bytes]
    stop: threading.Event = field(default_factory=threading.Event)
    done: list[int] = field(default_factory=lambda: [0, 0])
    refused: list[int] = field(default_factory=lambda: [0, 0])
    threads: list[threading.Thread] = field(default_factory=list)
    last_error: str = ""

    def start(self) -> None:
        self.stop.clear()
        self.threads = [threading.Thread(target=self._ask, args=(i,), daemon=True) for i in (0, 1)]
        for thread in self.threads:
            thread.start()

    def _ask(self, which: int) -> None:
        while not self.stop.is_set():
            request = urllib.request.Request(
                self.base + "/api/review",
                data=self.records[which],
                method="POST",
                headers={
                    "Content-Type": "application/json",
                    "X-Forwarded-For": f"10.9.0.{which + 1}",
                },
            )
            try:
                with urllib.request.urlopen(request, timeout=600) as answer:
                    answer.read()
                self.done[which] += 1
            except (urllib.error.URLError, OSError) as exc:
                self.refused[which] += 1
                self.last_error = str(exc)
                time.sleep(0.2)

    def finish(self) -> None:
        """Stop asking (a review under way is let finish)."""
        self.stop.set()
        for thread in self.threads:
            thread.join(600)


class Player:
    """A game on one device against CPU Expert over a real websocket."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect  # noqa: PLC0415 - the bench extra

        self.ws = connect(url, max_size=2**24)
        self.ws.send(json.dumps({"type": "hello", "token": secrets.token_hex(12)}))
        self._until("welcome")
        self.table = ""
        self.new_game()

    def _until(self, kind: str) -> dict[str, Any]:
        while True:
            msg = json.loads(self.ws.recv(timeout=600))
            if msg["type"] == "error":
                raise server_bench.BenchError(f"refused: {msg}")
            if msg["type"] == kind:
                return msg  # type: ignore[no-any-return]

    def new_game(self) -> None:
        settings = {"layout": "singles", "rounds": 4, "hand": "steady", "hints": False}
        self.ws.send(
            json.dumps(
                {"type": "create", "kind": "solo", "name": "Bench", "settings": settings,
                 "seats": {"south": "me", "north": "expert"}}
            )
        )  # fmt: skip
        self.table = self._until("table")["table"]

    def reply(self, rng: random.Random) -> float:
        """Shoot for south; the seconds from our shot's message to the CPU's reply."""
        shot = {"position": rng.uniform(-8, 8), "direction": rng.uniform(-3, 3), "power": 0.0}
        self.ws.send(json.dumps({"type": "shoot", "table": self.table, "seat": "south", **shot}))
        while True:
            msg = json.loads(self.ws.recv(timeout=600))
            if msg["type"] == "error":
                if msg["code"] != "illegal_placement":
                    raise server_bench.BenchError(f"refused: {msg}")
                # A place already taken: try another (it is not timed).
                shot["position"] = rng.uniform(-8, 8)
                self.ws.send(
                    json.dumps({"type": "shoot", "table": self.table, "seat": "south", **shot})
                )
                continue
            if msg["type"] == "shot" and msg["seat"] == "south":
                ours = time.perf_counter()
                if msg["game"]["current_seat"] != "north":
                    return self._next(msg)
            elif msg["type"] == "shot" and msg["seat"] == "north":
                took = time.perf_counter() - ours
                self._after(msg)
                return took

    def _next(self, msg: dict[str, Any]) -> float:
        """The game (or round) ended on our shot: go on, and time the next reply instead."""
        self._after(msg)
        return self.reply(random.Random(len(msg["game"]["discs"])))

    def _after(self, msg: dict[str, Any]) -> None:
        """Past a round's or a game's end, until it is south's turn again (nothing timed)."""
        game = msg["game"]
        if game["phase"] == "round_over":
            self.ws.send(json.dumps({"type": "next_round", "table": self.table}))
            if self._until("round")["game"]["current_seat"] == "north":
                self._after(self._until("shot"))  # the CPU opens this round
        elif game["phase"] == "game_over":
            self.new_game()

    def close(self) -> None:
        self.ws.close()


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (nearest rank).

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([1.0, 2.0, 3.0, 4.0], 0.99)
    (2.0, 4.0)
    """
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(q * len(ordered) + 0.999999)))
    return ordered[rank - 1]


def run(args: argparse.Namespace, console: Console) -> dict[str, Any]:
    options = server_bench.ServerOptions(1, server_bench.DEFAULT_STANDIN_GRACE, None)
    figures: dict[str, Any] = {"quiet": [], "loaded": [], "cpu": {"quiet": [], "loaded": []}}
    with server_bench.running_server(options) as server:
        base = server.base.removeprefix("ws://").removeprefix("http://")
        url = f"ws://{base}/ws/v2"
        records = (long_record(args.shots, 1), long_record(args.shots, 2))
        reviews = Reviews(f"http://{base}", records)
        player = Player(url)
        rng = random.Random(args.seed)
        try:
            for _ in range(3):  # the first replies compile nothing more, but warm the caches
                player.reply(rng)
            for number in range(2 * args.phases):
                kind = "loaded" if number % 2 else "quiet"
                if kind == "loaded":
                    reviews.start()
                    time.sleep(1.0)  # both reviews under way
                console.print(f"phase {number + 1}/{2 * args.phases}: {kind}")
                cpu_before = server_bench.cpu_seconds(server.proc.pid)
                times = [player.reply(rng) for _ in range(args.replies)]
                cpu = server_bench.cpu_seconds(server.proc.pid) - cpu_before
                figures[kind].extend(times)
                figures["cpu"][kind].append(cpu / args.replies)
                if kind == "loaded":
                    reviews.finish()
        finally:
            reviews.stop.set()
            player.close()
        figures["reviews"] = sum(reviews.done)
        figures["refused"] = sum(reviews.refused)
        figures["last_error"] = reviews.last_error
    return figures


def print_report(figures: dict[str, Any], args: argparse.Namespace, console: Console) -> None:
    table = Table(
        title=(
            "CPU Expert's reply (its shot after ours), quiet and while two long reviews are "
            f"computed (target: loaded p99 ≤ {TARGET_RATIO:g} × quiet p99)"
        ),
        caption=(
            f"{args.phases} phases of {args.replies} replies of each kind, alternating on one "
            f"server; reviews of {args.shots}-shot records from two addresses; the machine's "
            "cores are shared with the benchmark and whatever else runs on it"
        ),
    )
    for name in ("phase", "replies", "p50 ms", "p99 ms", "server CPU a reply (all its work)"):
        table.add_column(name, justify="right")
    for kind in ("quiet", "loaded"):
        times = figures[kind]
        cpu = figures["cpu"][kind]
        table.add_row(
            kind,
            str(len(times)),
            f"{1000 * quantile(times, 0.5):.0f}",
            f"{1000 * quantile(times, 0.99):.0f}",
            f"{1000 * sorted(cpu)[len(cpu) // 2]:.0f} ms",
        )
    console.print(table)
    console.print(
        f"reviews computed meanwhile: {figures['reviews']} (refused or failed: "
        f"{figures['refused']}{'; e.g. ' + figures['last_error'] if figures['refused'] else ''})"
    )
    ratio = quantile(figures["loaded"], 0.99) / quantile(figures["quiet"], 0.99)
    verdict = "[green]PASS[/green]" if ratio <= TARGET_RATIO else "[red]MISS[/red]"
    console.print(f"loaded p99 / quiet p99 = {ratio:.2f} (target ≤ {TARGET_RATIO:g}): {verdict}")


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A CPU Expert's reply time on one server, quiet and while two long game "
        "reviews are computed; prints both p99 and their ratio against the target (1.5).",
    )
    parser.add_argument(
        "--replies", type=count_argument(2), default=40, help="CPU replies per phase (40)"
    )
    parser.add_argument(
        "--phases", type=count_argument(1), default=2, help="phases of each kind (2)"
    )
    parser.add_argument(
        "--shots", type=count_argument(1), default=250, help="shots of each reviewed record (250)"
    )
    parser.add_argument("--seed", type=int, default=0, help="our shots' seed (0)")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; print its figures (0), or 1 if the server could not run."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    console = Console()
    return int(
        server_bench.run_reported(
            "analysis load",
            lambda: run(args, console),
            lambda figures: print_report(figures, args, console),
            console,
        )
    )


if __name__ == "__main__":
    raise SystemExit(main())
