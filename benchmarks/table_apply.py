"""CPU per shot of a table's command and of its write: ``Table.apply`` and serialisation.

Run it from a checkout: ``python benchmarks/table_apply.py [--shots N] [--repeats R]``.
One core: nothing here runs in parallel.

A party of two people (the party's settings: the human hand, four rounds,
extra rounds on a tie) plays shot after shot through ``Table.apply`` as the
table's owner does (``Shoot`` with the sender's device and the version seen,
``now`` the server's clock); between rounds both press Next, after a game
both accept a rematch (those commands are not timed).  For every shot the
CPU time (``time.process_time``) of

* **apply**: ``table.apply(Shoot(...), now)`` (the physics included);
* **events**: what the owner's write does with the events: ``e.to_dict()``
  of each, then the store's rows (``_event_rows``: one ``to_json`` each);
* **snapshot**: ``after.to_dict()`` and its ``to_json``, timed for every
  shot (the owner writes one every 16 versions or when the stage changes),

is measured.  Each repeat plays ``--shots`` shots from a fresh table (the same
shots every repeat: the seeds are fixed) after one untimed warm-up repeat
(numba's kernels, caches); the median over the repeats of each repeat's
median and mean is printed, in µs per shot.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from crokinole.board import Seat, Shot
from crokinole.rules import Game, Phase
from crokinole.store.database import to_json
from crokinole.store.tables import _event_rows
from crokinole.table import Join, NextRound, Rematch, Shoot, Stage, Start, Table, TableSettings

T0 = 1_000_000.0


def _device(seat_index: int) -> str:
    return f"device-{seat_index + 1}"


def _table() -> Table:
    table, _ = Table.create(
        id="a" * 32,
        kind="party",
        code="ABC234",
        host_device=_device(0),
        host_name="Ann",
        settings=TableSettings.for_kind("party"),
        seed=12345,
        now=T0,
    )
    table, _ = table.apply(Join(_device(1), "Bob"), T0)
    table, _ = table.apply(Start(_device(0)), T0)
    return table


def _aim(game: Game, seat: Seat, rng: np.random.Generator) -> Shot:
    """A legal shot: somewhere on the seat's free line, roughly at the board's middle."""
    lo, hi = max(game.placement_intervals(seat), key=lambda ab: ab[1] - ab[0])
    position = lo + (hi - lo) * float(rng.uniform(0.2, 0.8))
    return Shot(position, float(rng.normal(0.0, 4.0)), float(rng.uniform(20.0, 40.0)))


def _between(table: Table, now: float) -> Table:
    """Press Next (between rounds) or accept a rematch (after a game) for both people."""
    for k in range(2):
        if table.stage is Stage.FINISHED:
            table, _ = table.apply(Rematch(_device(k)), now)
        elif table.game is not None and table.game.phase is Phase.ROUND_OVER:
            table, _ = table.apply(NextRound(_device(k)), now)
    return table


def _timed(work: Callable[[], object]) -> tuple[float, object]:
    start = time.process_time()
    out = work()
    return time.process_time() - start, out


def one_repeat(shots: int) -> dict[str, list[float]]:
    """Play ``shots`` shots from a fresh table: each one's CPU seconds, by part."""
    table = _table()
    rng = np.random.default_rng(2026)
    now = T0
    times: dict[str, list[float]] = {"apply": [], "events": [], "snapshot": []}
    while len(times["apply"]) < shots:
        now += 3.0
        table = _between(table, now)
        game = table.game
        assert game is not None and game.current_seat is not None
        seat = game.current_seat
        seat_index = table.settings.seats.index(seat)
        shot = _aim(game, seat, rng)
        command = Shoot(_device(seat_index), seat, shot, expected_version=table.version)
        before = table
        spent, out = _timed(lambda: before.apply(command, now))  # noqa: B023
        after, events = out  # type: ignore[misc]
        times["apply"].append(spent)
        spent, _ = _timed(
            lambda: _event_rows(after.id, before.version, [e.to_dict() for e in events])  # noqa: B023
        )
        times["events"].append(spent)
        spent, _ = _timed(lambda: to_json(after.to_dict(), "snapshot"))  # noqa: B023
        times["snapshot"].append(spent)
        table = after
    return times


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shots", type=int, default=300, help="shots a repeat (default 300)")
    parser.add_argument("--repeats", type=int, default=7, help="timed repeats (default 7)")
    args = parser.parse_args()
    one_repeat(min(args.shots, 50))  # warm-up
    runs = [one_repeat(args.shots) for _ in range(args.repeats)]
    print(f"{args.shots} shots x {args.repeats} repeats; µs per shot (median over repeats)")
    print(f"{'part':<10}{'median':>10}{'mean':>10}")
    for part in ("apply", "events", "snapshot"):
        medians = [statistics.median(r[part]) * 1e6 for r in runs]
        means = [statistics.fmean(r[part]) * 1e6 for r in runs]
        print(f"{part:<10}{statistics.median(medians):>10.1f}{statistics.median(means):>10.1f}")
    per_shot = [statistics.fmean(r["snapshot"]) / 16 * 1e6 for r in runs]
    events = [statistics.fmean(r["events"]) * 1e6 for r in runs]
    write = statistics.median(e + s for e, s in zip(events, per_shot, strict=True))
    print(f"write a shot (events + a 16th of a snapshot, means): {write:.1f}")


if __name__ == "__main__":
    main()
