"""``GET /metrics`` over HTTP: off unless ``crokinole serve --metrics``; counters that move.

The counters are the process's own (:mod:`crokinole.metrics`), so the server
runs in a process of its own (``crokinole serve``) and the test plays the
shots whose count it then reads back.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from crokinole import metrics
from crokinole.server.limits import ServerSettings
from tests.support.server import Player, serving
from tests.support.server_process import running_server


def _get(url: str) -> tuple[int, str, str]:
    """Status, content type and body of ``GET url`` (an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def _samples(text: str) -> dict[str, float]:
    """The samples of a Prometheus text exposition; every other line is a comment."""
    found = {}
    for line in text.splitlines():
        if line.startswith("#"):
            assert line.startswith(("# HELP ", "# TYPE ")), line
            continue
        name, value = line.split(" ")
        found[name] = float(value)
    return found


def test_metrics_are_not_served_unless_asked(tmp_path: Path) -> None:
    with running_server(tmp_path / "off.db", "--no-warm-up") as url:
        status, _, body = _get(f"{url}/metrics")
        missing, _, missing_body = _get(f"{url}/no-such-page")
    # The same answer as a page that does not exist: the route says nothing of itself.
    assert status == 404
    assert (status, body) == (missing, missing_body)


def _party(url: str) -> tuple[Player, Player]:
    ann, bob = Player(url), Player(url)
    ann.hello()
    bob.hello()
    code = ann.create("party", "Ann", layout="singles")["view"]["code"]
    bob.join(code, "Bob")
    ann.act("start")
    ann.until("game_started")
    bob.until("game_started")
    return ann, bob


SHOTS = 3


def test_the_counters_move_with_the_shots_played(tmp_path: Path) -> None:
    with running_server(tmp_path / "on.db", "--no-warm-up", "--metrics") as url:
        ann, bob = _party(url)
        status, kind, body = _get(f"{url}/metrics")
        before = _samples(body)
        players = {"south": ann, "north": bob}
        seat = "south"
        for _ in range(SHOTS):
            players[seat].shoot(seat, power=0.0)  # stays on the line: out, fast
            shot = ann.until("shot")
            bob.until("shot")
            seat = shot["game"]["current_seat"]
        after = _samples(_get(f"{url}/metrics")[2])
        ann.close()
        bob.close()
    assert status == 200
    assert kind.startswith("text/plain; version=0.0.4")
    # Every counter the server keeps is there from the start, at 0 before its first count.
    for counter in (metrics.SHOTS, metrics.COMMANDS, metrics.DB_COMMITS, metrics.DB_CONNECTIONS,
                    metrics.LEASES_LOST):  # fmt: skip
        assert f"crokinole_{counter}_total" in before
    moved = {name: after[name] - before[name] for name in before}
    assert moved["crokinole_shots_total"] == SHOTS
    # Each shot is a command, stored (committed) before it is shown.
    assert moved["crokinole_commands_total"] >= SHOTS
    assert moved["crokinole_db_commits_total"] >= SHOTS
    assert moved["crokinole_leases_lost_total"] == 0
    assert moved["process_cpu_seconds_total"] > 0


@pytest.mark.parametrize("counter", ["bench_probe", "odd name-1"])
def test_every_counter_is_shown_with_a_prometheus_name(tmp_path: Path, counter: str) -> None:
    # In this process: a counter of any name, counted here, is on the app's /metrics.
    metrics.count(counter, 2)
    with serving(tmp_path / "in.db", ServerSettings(warm_up=False, metrics=True)) as url:
        samples = _samples(_get(f"{url}/metrics")[2])
    name = "crokinole_" + counter.replace(" ", "_").replace("-", "_") + "_total"
    assert samples[name] == metrics.counts()[counter]
