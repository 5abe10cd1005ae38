"""CPU decision-time benchmark: Hard, Expert and Master on crowded boards, against their targets.

Run it from a checkout: ``python benchmarks/cpu.py [--seeds N] [--levels hard expert master]``
(or ``crokinole bench cpu``); ``--help`` lists the options.  One core:
nothing here runs in parallel.

Two kinds of crowded board, each drawn from many seeds:

* **12-disc singles**: tournament singles (12 discs a side), 6 discs of each
  side on the board, south to shoot its 7th;
* **20-disc doubles**: tournament doubles (6 discs a player), 10 discs of
  each side on the board, south to shoot (its side's 11th);
* **22-disc singles, 2nd-to-last shot**: tournament singles with 11 discs of
  each side on the board and two shots left in the round: the one place
  Master plays the opponent's reply (its dearest decision).

The discs are scattered uniformly over the area inside the shooting line and
kept where a disc may rest (R5: clear of the hole, of the pegs, of the line
and of each other).  Every disc shot is still on the board, so the position
is one that play can reach.  For each level and board the CPU time of one
``choose_shot`` decision (``time.process_time``: numba's kernels run in this
thread) is measured once per seed, after one untimed warm-up decision
(numba's compile and caches), and the p50 and p95 over the seeds are printed
against the targets: Hard p95 ≤ 0.3 s, Expert p95 ≤ 1 s, Master p95 ≤ 2 s.  The simulated shots
per decision (the batch simulator's calls, counted) are printed beside them.
The machine's load average is printed too: the CPU time of a decision barely
depends on it, wall time does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

import numpy as np
from rich.console import Console
from rich.table import Table

from crokinole.ai import Level, make_player, search
from crokinole.board import TOURNAMENT_BOARD, Point, Zone
from crokinole.cli.main import count_argument
from crokinole.errors import InvalidPositionError
from crokinole.physics import check_position
from crokinole.rules import Game, Rules
from crokinole.rules.state import round_opener, turn_order

#: The issue's targets: p95 of the CPU time of one decision, in seconds.
TARGETS = {Level.HARD: 0.3, Level.EXPERT: 1.0, Level.MASTER: 2.0}
#: The crowded boards: name, rules, discs on the board.
BOARDS = (
    ("12-disc singles", Rules(discs_per_side=12), 12),
    ("20-disc doubles", Rules.doubles(), 20),
    # The round's second-to-last shot (one left after it): where Master plays the reply.
    ("22-disc singles, 2nd-to-last shot", Rules(discs_per_side=12), 22),
)
DEFAULT_SEEDS = 20


def crowded_game(rules: Rules, count: int, seed: int) -> Game:
    """A game in round 1 with ``count`` discs on the board, every disc shot so far still there.

    The discs are those of the first ``count`` turns (their owners follow the
    turn order), scattered at random where a disc may rest; the seat of turn
    ``count`` is to shoot.
    """
    board = TOURNAMENT_BOARD
    rng = np.random.default_rng(seed)
    order = turn_order(rules, round_opener(rules, rules.seats[0], 1))
    reach = board.shooting_line_radius - board.disc_radius
    centres: list[tuple[float, float]] = []
    while len(centres) < count:
        radius = reach * float(np.sqrt(rng.random()))
        angle = 2.0 * np.pi * float(rng.random())
        centre = (radius * float(np.cos(angle)), radius * float(np.sin(angle)))
        try:
            check_position(board, np.array([*centres, centre]))
        except InvalidPositionError:
            continue
        if board.zone_of(Point(*centre)) in (Zone.OUT, Zone.TWENTY):
            continue
        centres.append(centre)
    played = order[:count]
    record = Game(rules).to_record()
    record["state"] = {
        "round": 1,
        "round_first": order[0].name.lower(),
        "turn": count,
        "phase": "playing",
        "in_hand": {
            s.name.lower(): rules.discs_per_player(s) - played.count(s) for s in rules.seats
        },
        "discs": [[i, played[i].name.lower(), x, y] for i, (x, y) in enumerate(centres)],
        "twenties": [0] * len(rules.sides),
        "ditch": [0] * len(rules.sides),
        "next_id": count,
        "scores": [0] * len(rules.sides),
        "history": [],
        "outcome": None,
    }
    return Game.from_json(json.dumps(record))


class ShotCounter:
    """Counts the shots that the CPU's search simulates (wraps ``search.simulate_batch``)."""

    def __init__(self) -> None:
        self.shots = 0
        self._inner = search.simulate_batch

    def __enter__(self) -> ShotCounter:
        def counted(board, discs, launches):  # type: ignore[no-untyped-def]
            self.shots += len(launches)
            return self._inner(board, discs, launches)

        search.simulate_batch = counted  # type: ignore[assignment]
        return self

    def __exit__(self, *_: object) -> None:
        search.simulate_batch = self._inner  # type: ignore[assignment]


def decision_times(
    level: Level, rules: Rules, count: int, seeds: int
) -> tuple[list[float], list[int]]:
    """CPU seconds and simulated shots of one decision per seed."""
    player = make_player(level)
    player.choose_shot(crowded_game(rules, count, 10_000), np.random.default_rng(0))  # warm-up
    times: list[float] = []
    shots: list[int] = []
    for seed in range(seeds):
        game = crowded_game(rules, count, seed)
        rng = np.random.default_rng(seed)
        with ShotCounter() as counter:
            start = time.process_time()
            player.choose_shot(game, rng)
            times.append(time.process_time() - start)
        shots.append(counter.shots)
    return times, shots


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="CPU time of Hard's, Expert's and Master's decisions on crowded boards "
        "(12-disc singles, 20-disc doubles), p50 and p95 over seeds, against the targets.",
    )
    parser.add_argument(
        "--seeds",
        type=count_argument(2),
        default=DEFAULT_SEEDS,
        help=f"boards (seeds) per level and kind of board (default {DEFAULT_SEEDS})",
    )
    parser.add_argument(
        "--levels",
        nargs="+",
        choices=[level.value for level in TARGETS],
        default=[level.value for level in TARGETS],
        help="levels to measure (default: hard expert master)",
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = build_parser(prog).parse_args(argv)
    console = Console(width=110)
    table = Table(title="CPU decision time on crowded boards (CPU seconds, one core)")
    for column in ("level", "board", "seeds", "shots/decision", "p50 s", "p95 s", "target", ""):
        table.add_column(column)
    ok = True
    for value in args.levels:
        level = Level(value)
        for name, rules, count in BOARDS:
            times, shots = decision_times(level, rules, count, args.seeds)
            p50, p95 = (float(np.percentile(times, q)) for q in (50, 95))
            target = TARGETS[level]
            passed = p95 <= target
            ok &= passed
            table.add_row(
                level.label,
                name,
                str(args.seeds),
                f"{int(np.median(shots)):,}",
                f"{p50:.3f}",
                f"{p95:.3f}",
                f"p95 ≤ {target:g}",
                "PASS" if passed else "MISS",
            )
    console.print(table)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    console.print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
