"""Pairing an event's rounds: Swiss of 128 and 512 players, rotating doubles of 16 (issue 23).

Run it from a checkout: ``crokinole bench events_pairing [--seeds N] [--doubles-seeds N]``
(or ``python benchmarks/events_pairing.py``).  One core.

* **Swiss**: for each size (``--sizes``, 128 and 512) and each seed, a Swiss of
  ``--rounds`` rounds (7) with random results drawn from a seeded
  ``numpy.random.Generator`` (45 % wins each way, 10 % draws; a bye counts as
  a win) is paired round after round by ``pair_swiss``.  Printed: the CPU time
  (``time.process_time``) per round, median and max over every round of every
  seed, against the target (128: 200 ms, 512: 2 s); the rematches; the most
  byes a player had; the largest first-shot imbalance (games first minus second).
  Sizes are also run with one more player (odd: a bye every round).
* **Rotating doubles**: 16 players over 7 rounds (``--doubles-seeds`` seeds),
  paired by ``pair_rotating`` with random results.  Printed: the most times two
  players partnered, the most repeat opponent pairs of a player (meetings with
  the same opponent beyond the first) and how many seeds met the issue's
  figure (no partner twice, at most one repeat opponent pair per player).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np

from crokinole.events import DoublesPlayer, Pairing, SwissEntrant, pair_rotating, pair_swiss

TARGETS_MS = {128: 200.0, 512: 2000.0}


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Swiss pairing time, rematches and byes (128 and 512 players); rotating "
        "doubles repeats (16 players, 7 rounds).",
    )
    parser.add_argument("--seeds", type=int, default=3, help="Swiss events per size")
    parser.add_argument("--doubles-seeds", type=int, default=40, help="rotating-doubles events")
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each event")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[128, 512], help="Swiss field sizes"
    )
    parser.add_argument("--seed", type=int, default=1, help="the first seed")
    return parser


@dataclasses.dataclass
class SwissRun:
    ms: list[float]
    rematches: int
    most_byes: int
    most_unbalanced: int


def _result(rng: np.random.Generator) -> tuple[int, int]:
    roll = rng.random()
    return (2, 0) if roll < 0.45 else (0, 2) if roll < 0.9 else (1, 1)


def swiss(count: int, rounds: int, seed: int) -> SwissRun:
    """One Swiss with random results: the CPU time of each round's pairing and its figures."""
    rng = np.random.default_rng(seed)
    field = {
        f"p{i}": SwissEntrant(f"p{i}", 0.0, float(rng.normal(1500.0, 200.0))) for i in range(count)
    }
    ms: list[float] = []
    rematches = 0
    for number in range(1, rounds + 1):
        start = time.process_time()
        pairings = pair_swiss(list(field.values()), number)
        ms.append(1000.0 * (time.process_time() - start))
        for p in pairings:
            if p.bye:
                e = field[p.sides[0][0]]
                field[e.id] = dataclasses.replace(e, score=e.score + 2, byes=e.byes + 1)
                continue
            a, b = field[p.sides[0][0]], field[p.sides[1][0]]
            rematches += b.id in a.opponents
            points = _result(rng)
            for side, (me, them) in enumerate(((a, b), (b, a))):
                first = p.first == side
                field[me.id] = dataclasses.replace(
                    me,
                    score=me.score + points[side],
                    opponents=me.opponents | {them.id},
                    firsts=me.firsts + (1 if first else -1),
                    last_first=first,
                )
    return SwissRun(
        ms,
        rematches,
        max(e.byes for e in field.values()),
        max(abs(e.firsts) for e in field.values()),
    )


def doubles(count: int, rounds: int, seed: int) -> tuple[int, int]:
    """One rotating-doubles event: (most times partnered, most repeat opponent pairs)."""
    rng = np.random.default_rng(seed)
    ids = [f"p{i}" for i in range(count)]
    score = dict.fromkeys(ids, 0.0)
    rating = {i: float(rng.normal(1500.0, 200.0)) for i in ids}
    partners: dict[str, Counter[str]] = {i: Counter() for i in ids}
    opponents: dict[str, Counter[str]] = {i: Counter() for i in ids}
    byes: Counter[str] = Counter()
    for number in range(1, rounds + 1):
        players = [
            DoublesPlayer(i, score[i], rating[i], dict(partners[i]), dict(opponents[i]), byes[i])
            for i in ids
        ]
        pairings: Sequence[Pairing] = pair_rotating(players, number)
        for p in pairings:
            if p.bye:
                byes[p.sides[0][0]] += 1
                score[p.sides[0][0]] += 2
                continue
            won = int(rng.integers(2))
            for side, team in enumerate(p.sides):
                partners[team[0]][team[1]] += 1
                partners[team[1]][team[0]] += 1
                for me in team:
                    score[me] += 2 if side == won else 0
                    for them in p.sides[1 - side]:
                        opponents[me][them] += 1
    most_partnered = max(max(c.values(), default=0) for c in partners.values())
    repeats = max(sum(t - 1 for t in c.values() if t > 1) for c in opponents.values())
    return most_partnered, repeats


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark, print its figures and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    seeds = range(args.seed, args.seed + args.seeds)
    print(f"Swiss, {args.rounds} rounds, random results, seeds {seeds.start}..{seeds.stop - 1}")
    print("players  ms/round median  max  (target)  rematches  most byes  most |firsts|")
    for size in args.sizes:
        for count in (size, size + 1):
            runs = [swiss(count, args.rounds, seed) for seed in seeds]
            ms = [m for run in runs for m in run.ms]
            target = TARGETS_MS.get(size)
            verdict = (
                ""
                if target is None
                else f"({target:.0f}: {'ok' if max(ms) <= target else 'MISSED'})"
            )
            print(
                f"{count:7d}  {statistics.median(ms):15.0f} {max(ms):5.0f}  {verdict:10s}"
                f"  {sum(r.rematches for r in runs):9d}  {max(r.most_byes for r in runs):9d}"
                f"  {max(r.most_unbalanced for r in runs):13d}"
            )
    dseeds = range(args.seed, args.seed + args.doubles_seeds)
    results = [doubles(16, args.rounds, seed) for seed in dseeds]
    met = sum(1 for p, r in results if p <= 1 and r <= 1)
    spread = Counter(r for _, r in results)
    print(
        f"rotating doubles, 16 players x {args.rounds} rounds, {len(results)} seeds: "
        f"most times partnered {max(p for p, _ in results)}, most repeat opponent pairs "
        f"of a player {max(r for _, r in results)} "
        f"(seeds by it: {', '.join(f'{k}: {v}' for k, v in sorted(spread.items()))}); "
        f"the figure met in {met} of {len(results)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
