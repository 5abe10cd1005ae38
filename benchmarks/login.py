"""Login timing benchmark: does a failed login tell whether the username exists?

Run it from a checkout: ``python benchmarks/login.py [--logins N] [--seeds N]`` or
``crokinole bench login ...`` (the same); ``--help`` lists the options.

For each seed, a fresh accounts service (:class:`crokinole.server.accounts.Accounts`,
the server's own Argon2id parameters, a SQLite store in a temporary folder) signs
up ``--accounts`` accounts with random passwords, then tries ``--logins`` wrong
passwords for known usernames and as many for unknown ones, interleaved in a
random order (so that a busy machine slows both alike).  Each login's CPU time
(``time.process_time``: this process, Argon2's threads included) and wall time
are measured.  The limits on failed logins are raised out of the way (every
attempt is checked and counted, none refused).

It prints the median times of each kind and the ratio unknown / known of the
medians, per seed and over all seeds, with the target 0.8–1.25 (the same work,
one Argon2 verify, either way) and PASS or MISS.
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from crokinole.server.accounts import AccountError, Accounts
from crokinole.store import Store

TARGET = (0.8, 1.25)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Failed logins: unknown vs known usernames, median times and ratio."
    )
    parser.add_argument("--logins", type=int, default=12, help="logins of each kind per seed")
    parser.add_argument("--seeds", type=int, default=3, help="seeds (fresh services)")
    parser.add_argument("--accounts", type=int, default=4, help="accounts signed up per seed")
    parser.add_argument("--seed", type=int, default=1, help="the first seed")
    return parser


def measure(seed: int, logins: int, accounts: int) -> dict[str, list[tuple[float, float]]]:
    """(CPU seconds, wall seconds) of each failed login, by kind (``known``, ``unknown``)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(str(Path(folder) / "bench.db"))
        try:
            service = Accounts(store, pair_limit=10**6, address_limit=10**6, account_limit=10**6)
            names = [f"user{seed}x{n}" for n in range(accounts)]
            for name in names:
                service.sign_up(name, secrets.token_urlsafe(12))
            kinds = ["known"] * logins + ["unknown"] * logins
            rng.shuffle(kinds)
            times: dict[str, list[tuple[float, float]]] = {"known": [], "unknown": []}
            for n, kind in enumerate(kinds):
                name = rng.choice(names) if kind == "known" else f"nobody{seed}x{n}"
                cpu, wall = time.process_time(), time.perf_counter()
                try:
                    service.log_in(name, f"wrong-{rng.random()}", address=f"10.0.{seed}.{n % 250}")
                except AccountError as error:
                    assert error.code == "wrong_login", error.code
                else:
                    raise AssertionError("a wrong password logged in")
                times[kind].append((time.process_time() - cpu, time.perf_counter() - wall))
            return times
        finally:
            store.close()


def _row(label: str, times: dict[str, list[tuple[float, float]]]) -> tuple[str, float]:
    med = {
        (kind, i): statistics.median(t[i] for t in rows)
        for kind, rows in times.items()
        for i in (0, 1)
    }
    ratio = med["unknown", 0] / med["known", 0]
    wall = med["unknown", 1] / med["known", 1]
    verdict = "PASS" if TARGET[0] <= ratio <= TARGET[1] else "MISS"
    text = (
        f"{label:<10} known {med['known', 0] * 1000:7.1f} ms CPU {med['known', 1] * 1000:7.1f} ms"
        f" wall | unknown {med['unknown', 0] * 1000:7.1f} ms CPU"
        f" {med['unknown', 1] * 1000:7.1f} ms wall | ratio CPU {ratio:5.2f} wall {wall:5.2f}"
        f"  target {TARGET[0]}–{TARGET[1]}  {verdict}"
    )
    return text, ratio


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark, print its figures and return 0 (argparse exits 2 on bad options)."""
    args = build_parser(prog).parse_args(sys.argv[1:] if argv is None else list(argv))
    every: dict[str, list[tuple[float, float]]] = {"known": [], "unknown": []}
    print(f"failed logins, {args.logins} of each kind per seed, median times (Argon2id defaults)")
    for seed in range(args.seed, args.seed + args.seeds):
        times = measure(seed, args.logins, args.accounts)
        for kind, rows in times.items():
            every[kind] += rows
        print(_row(f"seed {seed}", times)[0])
    text, _ = _row("all seeds", every)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
