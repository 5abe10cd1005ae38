"""CPU per shot of rendering its broadcast: the texts each viewer of a party is sent.

Run it from a checkout: ``python benchmarks/ws_render.py [--shots N] [--viewers V]``.

A singles party (two players, as ``crokinole bench server`` plays it) is
played for ``--shots`` shots, each a legal one drawn as the bench's bots draw
theirs (a place on a free stretch of the line, an aim, a power).  Then the
shots' broadcasts are rendered as the session does for each of its viewers
(:func:`crokinole.server.ws.views.event_texts`), starting from empty caches,
so the first viewer of each shot makes the parts every viewer gets alike and
the others reuse them; and a shot's ``shoot`` message is parsed
(:func:`crokinole.server.ws.messages.parse_message`).  The CPU time
(``time.process_time``) per shot, median over ``--repeats``, is printed: all
the viewers of a shot together, its first viewer, and each viewer after it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import numpy as np

from crokinole.board import Seat, Shot
from crokinole.server.ws import messages, views
from crokinole.table import Event, Join, Shoot, Start, Table, TableSettings, Timings

#: As the bench's bots shoot (benchmarks/server/bots.py).
PLACEMENT_MARGIN, DIRECTION_SPREAD, POWER_RANGE = 0.25, 8.0, (30.0, 65.0)
DEVICES = {Seat.SOUTH: "dev-1", Seat.NORTH: "dev-2"}
#: The server time the messages carry.
NOW = 5000.0


def played(shots: int, seed: int) -> list[tuple[Table, Table, list[Event]]]:
    """``shots`` shots of singles parties (a new one when a game ends): each shot's table
    before and after it, and its events."""
    rng = np.random.default_rng(seed)
    steps: list[tuple[Table, Table, list[Event]]] = []
    now = 1000.0
    while len(steps) < shots:
        table, _ = Table.create(
            id=f"{len(steps):032x}", kind="party", code="ABC234", host_device=DEVICES[Seat.SOUTH],
            host_name="Ann", settings=TableSettings.for_kind("party", hand="steady"),
            timings=Timings(), seed=seed + len(steps), now=now,
        )  # fmt: skip
        table, _ = table.apply(Join(DEVICES[Seat.NORTH], "Bob"), now)
        table, _ = table.apply(Start(DEVICES[Seat.SOUTH]), now)
        while len(steps) < shots and table.game is not None and table.stage == "playing":
            game = table.game
            seat = game.current_seat
            if seat is None:
                break
            lo, hi = game.placement_intervals(seat)[0]
            if hi - lo > 2 * PLACEMENT_MARGIN:
                position = float(rng.uniform(lo + PLACEMENT_MARGIN, hi - PLACEMENT_MARGIN))
            else:
                position = (lo + hi) / 2.0
            shot = Shot(
                position,
                float(rng.uniform(-DIRECTION_SPREAD, DIRECTION_SPREAD)),
                float(rng.uniform(*POWER_RANGE)),
            )
            now += 1.0
            after, events = table.apply(Shoot(DEVICES[seat], seat, shot), now)
            steps.append((table, after, events))
            table = after
    return steps


def clear_caches() -> None:
    for cache in (views._HEADS, views._SHARED, views._LOBBIES):
        cache.clear()


def render(steps: list[tuple[Table, Table, list[Event]]], viewers: list[str]) -> list[float]:
    """CPU seconds of each viewer's rendering, summed over the shots."""
    spent = [0.0] * len(viewers)
    for before, after, events in steps:
        for index, viewer in enumerate(viewers):
            start = time.process_time()
            views.event_texts(before, after, events, viewer, NOW)
            spent[index] += time.process_time() - start
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shots", type=int, default=400)
    parser.add_argument("--viewers", type=int, default=2, help="the players, then spectators")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    steps = played(args.shots, args.seed)
    viewers = [*DEVICES.values(), *(f"spectator-{n}" for n in range(args.viewers - 2))]
    viewers = viewers[: args.viewers]
    sizes = [
        len(text)
        for before, after, events in steps
        for text in views.event_texts(before, after, events, viewers[0], NOW)
        if isinstance(text, str)
    ]
    runs = []
    for _ in range(args.repeats):
        clear_caches()
        runs.append(render(steps, viewers))
    shoot = json.dumps({"type": "shoot", "table": "f" * 32, "seat": "south",
                        "position": 1.25, "direction": -3.5, "power": 61.0})  # fmt: skip
    parsing = []
    for _ in range(args.repeats):
        start = time.process_time()
        for _ in steps:
            messages.parse_message(shoot)
        parsing.append(time.process_time() - start)
    per_shot = 1e6 / len(steps)
    total = statistics.median(sum(run) for run in runs) * per_shot
    first = statistics.median(run[0] for run in runs) * per_shot
    others = [statistics.median(run[i] for run in runs) * per_shot for i in range(1, len(viewers))]
    print(
        f"{len(steps)} shots, {len(viewers)} viewers, a shot's text {statistics.mean(sizes):.0f}"
        f" characters on average; µs of CPU per shot, median of {args.repeats}:"
    )
    print(f"  rendering, every viewer: {total:7.1f}")
    print(f"  the first viewer:        {first:7.1f}")
    if others:
        print(f"  each viewer after it:    {statistics.mean(others):7.1f}")
    print(f"  parsing its shoot:       {statistics.median(parsing) * per_shot:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
