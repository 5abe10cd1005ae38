"""Fault tests with real processes (issue 12): the game survives what a real site goes through.

Each test runs real ``crokinole serve`` processes on one PostgreSQL schema
and one Redis prefix (:mod:`tests.support.cluster`), two players on
different processes, a one-round singles party (16 shots), and a fault in
the middle of it:

- ``kill -9`` of the game's owner: the others take the game over, the
  players reconnect and finish it; also with commands raced through three
  processes as it dies, and with PostgreSQL out of reach as it dies;
- commands for one game sent through two processes at once: exactly one
  applies each (and a command refused as ``busy`` is never applied later);
- an owner paused past its lease (SIGSTOP) that wakes up: it cannot fork
  the game; a lost owner's turn clock runs out once a turn on another
  process (owner killed or paused);
- Redis stopped and started again: play resumes, the processes untouched;
- PostgreSQL connections dropped (``pg_terminate_backend``), or PostgreSQL
  out of reach for a while: clear ``unavailable`` errors, nothing stored
  meanwhile, then the game goes on.

After each, the game's event log in PostgreSQL has versions exactly 1..N
(none repeated, none skipped) and holds every shot a player saw
acknowledged.  Skipped when PostgreSQL or Redis cannot be reached (failed
under ``CI``).
"""

from __future__ import annotations

import contextlib
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster import (
    LEASE_SECONDS,
    Client,
    Cluster,
    RedisServer,
    check_log,
    check_shown_everything,
    cluster,
    freshest,
    owned_party,
    play,
    quick_party,
    require_services,
    wait_for,
)

#: Error codes of a command refused because another came first (nothing changed).
OUT_OF_TURN = frozenset({"not_your_turn", "stale", "not_playing", "game_over"})


def _seat_of(client: Client) -> str:
    game = client.game or {}
    seat = game.get("current_seat")
    assert isinstance(seat, str), game
    return seat


def test_kill_9_of_the_owner_mid_game_another_process_takes_it_over(servers: Cluster) -> None:
    a, b, c = servers.start(3)
    ann, bob = quick_party(a.url, b.url)
    table = ann.table
    assert table is not None
    owner = servers.owner(table)
    assert owner is a  # the table was made there
    by_seat = {"south": ann, "north": bob}
    play(by_seat, shots=5, timeout=30)
    # One more shot on its way as the owner dies: it may or may not be played.
    seat = _seat_of(freshest([ann, bob]))
    by_seat[seat].shoot(seat, position=0.0, direction=42.0, power=0.0)
    servers.kill(owner)
    killed = time.monotonic()
    for client in (ann, bob):
        client.pump(0.2)
    acked_before = {**ann.acked, **bob.acked}
    assert len(acked_before) >= 5
    # Ann's process is gone: her device comes back on the third process, with
    # the table and the last event it saw; Bob stays where he is.
    assert ann.closed and not bob.closed
    ann = ann.rejoin(c.url)
    by_seat["south"] = ann
    play(by_seat, timeout=45)
    ann.wait_finished()
    bob.wait_finished()
    took = time.monotonic() - killed
    new_owner = servers.owner(table)
    assert new_owner in (b, c)
    shots = check_log(servers.log(table), [ann, bob])
    assert len(shots) == 16
    check_shown_everything(servers, table, [ann, bob])
    for version in acked_before:
        assert version in {v for v, _ in shots}
    print(f"kill -9: game finished {took:.1f} s after the kill, owner {new_owner.name}")


def test_commands_through_two_processes_at_once_apply_exactly_once(servers: Cluster) -> None:
    a, b = servers.start(2)
    ann, bob = quick_party(a.url, b.url)
    table = ann.table
    assert table is not None
    # Each player has a second tab on the other process: every command goes
    # through both processes at once (one of them forwards it to the owner).
    ann2, bob2 = Client(b.url, ann.token, table), Client(a.url, bob.token, table)
    for tab in (ann2, bob2):
        tab.version = ann.version
        tab.hello_tolerant()
    tabs = {"south": [ann, ann2], "north": [bob2, bob]}
    everyone = [ann, ann2, bob, bob2]
    sends_per_tab = 3
    refused: dict[str, int] = {}
    winners: dict[int, float] = {}
    for _ in range(16):
        for tab in everyone:
            tab.pump()
        best = freshest(everyone)
        assert best.finished is None
        seat = _seat_of(best)
        seen = [len(t.errors) for t in everyone]
        # Six different shots for the seat, sent as fast as the sockets take them.
        directions = [-7.0 + 2.5 * k for k in range(2 * sends_per_tab)]
        for k, direction in enumerate(directions):
            tab = tabs[seat][k % 2]
            tab.shoot(seat, position=0.0, direction=direction, power=0.0)
        before = best.version

        def new_errors(seen: list[int] = seen) -> list[dict[str, Any]]:
            return [e for t, n in zip(everyone, seen, strict=True) for e in t.errors[n:]]

        def answered(before: int = before, refusals: int = len(directions) - 1) -> bool:
            for tab in everyone:
                tab.pump()
            return len(new_errors()) >= refusals and all(
                max(t.acked, default=0) > before for t in everyone
            )

        wait_for(answered, 20, f"the answers to the commands sent at version {before}")
        for tab in everyone:
            tab.pump(0.2)
        errors = new_errors()
        assert len(errors) == len(directions) - 1, errors
        for error in errors:
            refused[error["code"]] = refused.get(error["code"], 0) + 1
        played = {v: m for t in everyone for v, m in t.acked.items() if v > before}
        assert len(played) == 1, played  # one shot applied, every tab shown the same one
        ((version, shot),) = played.items()
        assert shot["seat"] == seat
        winners[version] = shot["played"]["direction"]
        assert winners[version] in directions
        if freshest(everyone).finished is not None:
            break
    for tab in everyone:
        tab.wait_finished()
    assert set(refused) <= OUT_OF_TURN | {"busy"}, refused
    shots = check_log(servers.log(table), everyone)
    assert len(shots) == 16
    check_shown_everything(servers, table, everyone)
    assert {v: e["played"]["direction"] for v, e in shots} == winners
    print(f"race: refused {refused}")


def test_redis_restarted_mid_game_play_resumes(tmp_path: Path) -> None:
    require_services(redis_server=True)
    own_redis = RedisServer(tmp_path)
    own_redis.start()
    try:
        with cluster(tmp_path, redis_url=own_redis.url) as servers:
            a, b = servers.start(2)
            ann, bob = quick_party(a.url, b.url)
            table = ann.table
            assert table is not None
            by_seat = {"south": ann, "north": bob}
            play(by_seat, shots=4, timeout=30)
            acked_before = {**ann.acked, **bob.acked}.keys()
            assert _seat_of(freshest([ann, bob])) == "south"  # Ann's turn, on the owner
            own_redis.stop()
            stopped = time.monotonic()
            # While Redis is down, each player shoots in turn: a shot is refused as
            # unavailable (or gets no answer), or played by the owner without
            # Redis (then its event reaches Bob's process only from the log).
            during: list[str] = []
            for direction in (42.0, 43.0):
                seen = {id(c): len(c.errors) for c in (ann, bob)}
                seat = _seat_of(freshest([ann, bob]))
                by_seat[seat].shoot(seat, position=0.0, direction=direction, power=0.0)
                time.sleep(1.5)
                for client in (ann, bob):
                    client.pump(0.2)
                during += [e["code"] for c in (ann, bob) for e in c.errors[seen[id(c)] :]]
            acked_while_down = sorted({**ann.acked, **bob.acked}.keys() - acked_before)
            assert set(during) <= {"unavailable", "busy"}, during
            own_redis.start()
            play(by_seat, timeout=45)
            ann.wait_finished()
            bob.wait_finished()
            took = time.monotonic() - stopped
            shots = check_log(servers.log(table), [ann, bob])
            assert len(shots) == 16
            check_shown_everything(servers, table, [ann, bob])
            assert all(node.alive() for node in servers.nodes)
            print(
                f"redis restart: errors while down {during}, shots played while down "
                f"{acked_while_down}, finished {took:.1f} s after the stop"
            )
    finally:
        own_redis.stop()


def test_postgresql_connections_dropped_mid_game_clear_errors_then_recovery(
    servers: Cluster,
) -> None:
    a, b = servers.start(2)
    ann, bob = quick_party(a.url, b.url)
    table = ann.table
    assert table is not None
    by_seat = {"south": ann, "north": bob}
    play(by_seat, shots=4, timeout=30)
    dropped = 0
    report: Any = None
    # Drop every connection of the servers before each of the next shots (and
    # once more while one is on its way).
    for _ in range(4):
        dropped += servers.drop_connections()
        report = play(by_seat, shots=1, timeout=30, report=report)
    seat = _seat_of(freshest([ann, bob]))
    by_seat[seat].shoot(seat, position=0.0, direction=42.0, power=0.0)
    dropped += servers.drop_connections()
    report = play(by_seat, timeout=45, report=report)
    ann.wait_finished()
    bob.wait_finished()
    assert dropped >= 2
    assert "server_error" not in report.errors, report.errors
    assert set(report.errors) <= {"unavailable", "busy", *OUT_OF_TURN}, report.errors
    shots = check_log(servers.log(table), [ann, bob])
    assert len(shots) == 16
    check_shown_everything(servers, table, [ann, bob])
    assert all(node.alive() for node in servers.nodes)
    logs = servers.outputs()
    assert "Traceback" not in logs, logs
    print(f"postgres drops: {dropped} connections dropped, errors {report.errors}")


def test_postgresql_out_of_reach_for_a_while_unavailable_then_the_game_goes_on(
    tmp_path: Path,
) -> None:
    require_services()
    with cluster(tmp_path, proxy=True) as servers:
        assert servers.proxy is not None
        a, b = servers.start(2)
        ann, bob = quick_party(a.url, b.url)
        table = ann.table
        assert table is not None
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=4, timeout=30)
        stored = servers.stored_version(table)
        seen = {id(c): len(c.errors) for c in (ann, bob)}
        servers.proxy.cut()
        down = time.monotonic()
        # The player whose turn it is shoots: the owner cannot store the shot.
        seat = _seat_of(freshest([ann, bob]))
        by_seat[seat].shoot(seat, position=0.0, direction=42.0, power=0.0)

        def refusals() -> list[str]:
            for client in (ann, bob):
                client.pump()
            return [e["code"] for c in (ann, bob) for e in c.errors[seen[id(c)] :]]

        codes = wait_for(refusals, 20, "the shot's refusal")
        answered = time.monotonic() - down
        # Another tab of Bob's opens the game on the other process meanwhile.
        tab = Client(a.url, bob.token, table)
        tab.send({"type": "hello", "token": bob.token, "table": table, "last_event": 0})
        tab_answer = [m["type"] if m["type"] != "error" else m["code"] for m in tab.pump(1.0)]
        tab.close()
        time.sleep(1.0)
        try:
            with urllib.request.urlopen(f"{a.url}/healthz", timeout=15) as answer:
                health = answer.status
        except urllib.error.HTTPError as refused:
            health = refused.code
        assert servers.stored_version(table) == stored  # nothing was written
        servers.proxy.restore()
        with urllib.request.urlopen(f"{a.url}/healthz", timeout=15) as answer:
            assert answer.status == 200  # back in the balancer
        assert health == 503  # out of the balancer while its database is out of reach
        report = play(by_seat, timeout=45)
        ann.wait_finished()
        bob.wait_finished()
        took = time.monotonic() - down
        assert codes == ["unavailable"], codes
        assert "server_error" not in report.errors, report.errors
        shots = check_log(servers.log(table), [ann, bob])
        assert len(shots) == 16
        check_shown_everything(servers, table, [ann, bob])
        assert all(node.alive() for node in servers.nodes)
        logs = servers.outputs()
        assert "Traceback" not in logs, logs
        print(
            f"postgres out of reach: refused in {answered:.2f} s ({codes}), a new tab got "
            f"{tab_answer}; finished {took:.1f} s after the cut, errors after {report.errors}"
        )


def test_a_paused_owner_that_comes_back_cannot_fork_the_game(servers: Cluster) -> None:
    a, b = servers.start(2)
    ann, bob, table = owned_party(servers, a, b)
    by_seat = {"south": ann, "north": bob}
    play(by_seat, shots=4, timeout=30)
    # The owner stops (a long pause: swapping, a stopped VM) with Ann's socket
    # open; Bob plays on through the other process, which takes the game over
    # once the owner's lease ran out.
    servers.pause(a)
    paused = time.monotonic()
    try:
        # Ann's device gives up on the silent process and comes back on b.
        ann.closed = True
        ann_b = ann.rejoin(b.url)
        by_seat["south"] = ann_b
        report = play(by_seat, shots=4, timeout=30)
        assert servers.owner(table) is b
    finally:
        servers.resume(a)
    took = time.monotonic() - paused
    # The old owner wakes up with its stale copy (and any commands it was sent
    # meanwhile): whatever it tries, the game stays one line of events.
    time.sleep(1.0)
    report = play(by_seat, timeout=45, report=report)
    ann_b.wait_finished()
    bob.wait_finished()
    shots = check_log(servers.log(table), [ann, ann_b, bob])
    assert len(shots) == 16
    check_shown_everything(servers, table, [ann_b, bob])
    assert "server_error" not in report.errors, report.errors
    assert all(node.alive() for node in servers.nodes)
    print(f"paused owner: taken over and 4 shots played in {took:.1f} s; errors {report.errors}")


@pytest.mark.parametrize("fault", ["kill", "pause"])
def test_a_lost_owners_turn_clock_fires_once_on_another_process(tmp_path: Path, fault: str) -> None:
    require_services()
    with cluster(tmp_path, options=["--test-clocks"]) as servers:
        a, b = servers.start(2)
        ann, bob = quick_party(a.url, b.url, turn_time=2)
        table = ann.table
        assert table is not None
        assert servers.owner(table) is a
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=2, timeout=30)
        # The owner is lost with a turn clock running, and nobody plays: the
        # clock must still run out, on the other process, once a turn.
        lost = time.monotonic()
        if fault == "kill":
            servers.kill(a)
        else:
            servers.pause(a)
        try:

            def timeouts() -> list[dict[str, Any]]:
                bob.pump(0.1)
                seen = [m for m in bob.messages if m["type"] == "timeout" and m["_at"] > lost]
                return seen if len(seen) >= 3 else []

            timed_out = wait_for(timeouts, 30, "three turns timed out after the owner was lost")
            took = time.monotonic() - lost
            assert servers.owner(table) is b
        finally:
            if fault == "pause":
                servers.resume(a)
        # The old owner (if it lives) wakes with its own timer of the first of those
        # turns: nothing fires twice.  Ann comes back and the game is played out.
        time.sleep(1.0)
        ann = ann.rejoin(b.url) if fault == "kill" else ann
        by_seat["south"] = ann
        if fault == "pause":
            ann.pump(0.5)
        report = play(by_seat, timeout=45)
        ann.wait_finished()
        bob.wait_finished()
        log = servers.log(table)
        check_log(log, [ann, bob])
        ended = [e for _, e in log if e["type"] in {"shot_played", "turn_timed_out"}]
        assert len(ended) == 16  # each disc played or timed out once
        seats = [e["seat"] for e in ended]
        assert seats == ["south", "north"] * 8, seats  # turns alternate: none fired twice
        check_shown_everything(servers, table, [ann, bob])
        assert "server_error" not in report.errors, report.errors
        logs = servers.outputs()
        assert "Traceback" not in logs, logs
        print(
            f"{fault}: {len(timed_out)} turns timed out on the other process within {took:.1f} s; "
            f"errors after {report.errors}"
        )


def test_the_owner_dies_while_postgresql_is_out_of_reach(tmp_path: Path) -> None:
    require_services()
    with cluster(tmp_path, proxy=True) as servers:
        assert servers.proxy is not None
        a, b, c = servers.start(3)
        ann, bob = quick_party(a.url, b.url)
        table = ann.table
        assert table is not None
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=3, timeout=30)  # Bob's turn next
        acked_before = {**ann.acked, **bob.acked}.keys()
        servers.proxy.cut()
        servers.kill(a)
        lost = time.monotonic()
        # Bob shoots and Ann comes back on c while the game cannot be read:
        # clear refusals, nothing else.
        seen = len(bob.errors)
        bob.shoot("north", position=0.0, direction=42.0, power=0.0)
        ann.closed = True
        ann_c = Client(c.url, ann.token, table)
        ann_c.version, ann_c.game = ann.version, ann.game
        ann_c.send({"type": "hello", "token": ann.token, "table": table, "last_event": ann.version})

        def refused() -> list[str]:
            bob.pump(0.1)
            return [e["code"] for e in bob.errors[seen:]]

        codes = wait_for(refused, 30, "Bob's shot to be refused")
        ann_codes = [m.get("code", m["type"]) for m in ann_c.pump(0.5)]
        time.sleep(1.0)
        servers.proxy.restore()
        restored = time.monotonic()
        by_seat["south"] = ann_c
        if ann_c.game is None or "welcome" not in ann_codes:
            ann_c.hello_tolerant()
        report = play(by_seat, timeout=45)
        ann_c.wait_finished()
        bob.wait_finished()
        shots = check_log(servers.log(table), [ann, ann_c, bob])
        assert len(shots) == 16
        assert acked_before <= {v for v, _ in shots}
        check_shown_everything(servers, table, [ann_c, bob])
        assert set(codes) <= {"unavailable", "busy"}, codes
        assert "server_error" not in report.errors, report.errors
        logs = servers.outputs()
        assert "Traceback" not in logs, logs
        print(
            f"owner died with PostgreSQL cut: Bob got {codes}, PostgreSQL back after "
            f"{restored - lost:.1f} s "
            f"(Ann's hello: {ann_codes}); finished {time.monotonic() - restored:.1f} s after "
            f"the restore; errors after {report.errors}"
        )


def test_commands_raced_through_three_processes_while_the_owner_dies(servers: Cluster) -> None:
    a, b, c = servers.start(3)
    ann, bob, table = owned_party(servers, a, b)
    tabs = {
        "south": [ann, Client(b.url, ann.token, table), Client(c.url, ann.token, table)],
        "north": [bob, Client(a.url, bob.token, table), Client(c.url, bob.token, table)],
    }
    for tab in (*tabs["south"][1:], *tabs["north"][1:]):
        tab.version = ann.version
        tab.hello_tolerant()
    everyone = [*tabs["south"], *tabs["north"]]
    # Every command is a shot of its own (its direction), so the log tells which applied.
    sent: dict[float, Client] = {}
    killed_at: float | None = None
    acked_before: set[int] = set()
    deadline = time.monotonic() + 50
    while not any(t.finished for t in everyone if not t.closed):
        assert time.monotonic() < deadline, "the game did not end"
        live = [t for t in everyone if not t.closed]
        for tab in live:
            tab.pump()
        best = freshest(live)
        game = best.game or {}
        if game.get("phase") != "playing":
            time.sleep(0.05)
            continue
        seat = _seat_of(best)
        before = best.version
        # Every live tab of the seat sends two shots at once.
        for tab in (t for t in tabs[seat] for _ in range(2)):
            if not tab.closed:
                direction = -90.0 + 0.25 * len(sent)
                tab.shoot(seat, position=0.0, direction=direction, power=0.0)
                sent[direction] = tab
        if killed_at is None and len(best.acked) >= 5:
            acked_before = {v for t in everyone for v in t.acked}
            servers.kill(a)  # with the commands on their way
            killed_at = time.monotonic()
            for tab in everyone:
                tab.pump(0.05)
                if tab.closed:
                    tab.abandon()

        def moved(before: int = before) -> bool:
            for tab in everyone:
                tab.pump()
            return freshest([t for t in everyone if not t.closed]).version > before

        with contextlib.suppress(AssertionError):
            wait_for(moved, 8, "the game to move on")
    assert killed_at is not None
    live = [t for t in everyone if not t.closed]
    for tab in live:
        tab.wait_finished()
        tab.pump(1.0)  # the last refusals
    assert len(live) == 4
    shots = check_log(servers.log(table), everyone)
    assert len(shots) == 16
    assert acked_before <= {v for v, _ in shots}
    check_shown_everything(servers, table, live)
    # Each command applied at most once; each one sent on a live connection was
    # either applied or refused, never both, never neither.
    applied = [e["played"]["direction"] for _, e in shots]
    assert len(applied) == len(set(applied)) and set(applied) <= set(sent)
    codes: dict[str, int] = {}
    for tab in everyone:
        for error in tab.errors:
            codes[error["code"]] = codes.get(error["code"], 0) + 1
        mine = sum(1 for d in applied if sent[d] is tab)
        commands = sum(1 for t in sent.values() if t is tab)
        if tab.closed:
            assert mine + len(tab.errors) <= commands
        else:
            assert mine + len(tab.errors) == commands, (mine, tab.errors, commands)
    assert set(codes) <= OUT_OF_TURN | {"busy", "unavailable"}, codes
    print(
        f"race and kill: {len(sent)} commands, finished {time.monotonic() - killed_at:.1f} s "
        f"after the kill; refused {codes}"
    )


def test_a_command_refused_as_busy_is_not_applied_later(servers: Cluster) -> None:
    # An error means nothing changed (docs/protocol.md).  A command forwarded to
    # an owner that is stuck (paused) is answered busy after the forward's
    # timeout; when the owner wakes up later it must not apply it anyway.
    a, b = servers.start(2)
    ann, bob, table = owned_party(servers, a, b)
    by_seat = {"south": ann, "north": bob}
    play(by_seat, shots=1, timeout=30)  # Bob's turn
    stored = servers.stored_version(table)
    servers.pause(a)
    try:
        seen = len(bob.errors)
        bob.shoot("north", position=0.0, direction=42.0, power=0.0)
        refusal = wait_for(lambda: bob.pump(0.1) and bob.errors[seen:], 30, "Bob's answer")
        assert [e["code"] for e in refusal] == ["busy"], refusal
    finally:
        servers.resume(a)
    time.sleep(2 * LEASE_SECONDS)  # the owner wakes up and does whatever it does
    bob.pump(0.2)
    log = servers.log(table)
    late = [v for v, e in log if v > (stored or 0) and e["type"] == "shot_played"]
    assert late == [], f"the shot answered busy was played later, as event {late}"
    report = play(by_seat, timeout=45)
    bob.wait_finished()
    shots = check_log(servers.log(table), [ann, bob])
    assert len(shots) == 16
    assert "server_error" not in report.errors, report.errors


def test_a_dead_owners_player_is_stood_in_for_by_the_cpu_on_another_process(
    tmp_path: Path,
) -> None:
    require_services()
    with cluster(tmp_path, options=["--standin-grace", "1"]) as servers:
        a, b = servers.start(2)
        ann, bob = quick_party(a.url, b.url, standin_level="easy")
        table = ann.table
        assert table is not None
        assert servers.owner(table) is a
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=3, timeout=30)  # Bob's turn; Ann's next
        servers.kill(a)  # Ann's process: she never comes back
        killed = time.monotonic()
        report = play({"north": bob}, timeout=55)
        bob.wait_finished()
        took = time.monotonic() - killed
        log = servers.log(table)
        check_log(log, [ann, bob])
        played = [e for _, e in log if e["type"] in {"shot_played", "turn_timed_out"}]
        assert [e["seat"] for e in played] == ["south", "north"] * 8
        after = played[3:]
        assert {e.get("by") for e in after if e["seat"] == "south"} == {"standin"}, after
        assert any(e["type"] == "stand_in_on" for _, e in log)
        check_shown_everything(servers, table, [bob])
        assert "server_error" not in report.errors, report.errors
        logs = servers.outputs()
        assert "Traceback" not in logs, logs
        print(f"stand-in: the CPU played Ann's last 7 discs; finished {took:.1f} s after the kill")


@pytest.mark.parametrize("outage", ["postgresql", "redis"])
def test_a_turn_clock_that_runs_out_during_an_outage_fires_once_the_service_is_back(
    tmp_path: Path, outage: str
) -> None:
    require_services(redis_server=outage == "redis")
    own_redis = RedisServer(tmp_path) if outage == "redis" else None
    if own_redis is not None:
        own_redis.start()
    try:
        with cluster(
            tmp_path,
            proxy=outage == "postgresql",
            options=["--test-clocks"],
            **({"redis_url": own_redis.url} if own_redis is not None else {}),
        ) as servers:
            a, b = servers.start(2)
            ann, bob = quick_party(a.url, b.url, turn_time=2)
            table = ann.table
            assert table is not None
            by_seat = {"south": ann, "north": bob}
            play(by_seat, shots=2, timeout=30)
            stored = servers.stored_version(table)
            # Nobody plays; the clock (2 s + grace) runs out during the outage.
            if servers.proxy is not None:
                servers.proxy.cut()
            else:
                assert own_redis is not None
                own_redis.stop()
            time.sleep(4.0)
            if servers.proxy is not None:
                assert servers.stored_version(table) == stored
                servers.proxy.restore()
            else:
                assert own_redis is not None
                own_redis.start()
            back = time.monotonic()

            def timed_out() -> bool:
                bob.pump(0.1)
                return any(m["type"] == "timeout" and m["_at"] > back for m in bob.messages)

            # (With Redis down the owner may time the turn out on its own: then
            # the next turn's clock runs out after Redis is back.)
            wait_for(timed_out, 20, "a turn to time out after the outage")
            took = time.monotonic() - back
            report = play(by_seat, timeout=45)
            ann.wait_finished()
            bob.wait_finished()
            log = servers.log(table)
            check_log(log, [ann, bob])
            played = [e for _, e in log if e["type"] in {"shot_played", "turn_timed_out"}]
            assert [e["seat"] for e in played] == ["south", "north"] * 8
            check_shown_everything(servers, table, [ann, bob])
            assert "server_error" not in report.errors, report.errors
            assert all(node.alive() for node in servers.nodes)
            print(f"{outage} outage with a clock running: a turn timed out {took:.1f} s after")
            logs = servers.outputs()
            assert "Traceback" not in logs, logs
    finally:
        if own_redis is not None:
            own_redis.stop()


def test_the_owner_cut_off_from_redis_gives_the_game_up_and_nothing_forks(
    tmp_path: Path,
) -> None:
    # A network partition: the owner keeps its players and PostgreSQL but loses
    # Redis, so it cannot renew its lease; the other process takes the game over
    # for Bob's shot.  Ann, on the cut-off process, is told unavailable until its
    # Redis is back, then plays on through the new owner.
    require_services()
    with cluster(tmp_path, redis_proxy=True) as servers:
        a, b = servers.start(2)
        assert a.redis_cable is not None
        ann, bob, table = owned_party(servers, a, b)
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=3, timeout=30)  # Bob's turn next
        acked_before = {**ann.acked, **bob.acked}.keys()
        a.redis_cable.cut()
        cut = time.monotonic()
        report = play(by_seat, shots=1, timeout=30)  # Bob's shot, on b
        assert servers.owner(table) is b
        taken = time.monotonic() - cut
        # Ann's turn: her process cannot reach Redis.
        seen = len(ann.errors)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            ann.shoot("south", position=0.0, direction=42.0, power=0.0)
            ann.pump(0.4)
        during = [e["code"] for e in ann.errors[seen:]]
        try:
            with urllib.request.urlopen(f"{a.url}/healthz", timeout=5) as answer:
                health = answer.status
        except urllib.error.HTTPError as refused:  # what a load balancer is told
            health = refused.code
        a.redis_cable.restore()
        report = play(by_seat, timeout=45, report=report)
        ann.wait_finished()
        bob.wait_finished()
        took = time.monotonic() - cut
        shots = check_log(servers.log(table), [ann, bob])
        assert len(shots) == 16
        assert acked_before <= {v for v, _ in shots}
        check_shown_everything(servers, table, [ann, bob])
        assert during and set(during) == {"unavailable"}, during
        assert health == 503  # the process cut off from Redis is out of the balancer
        assert set(report.errors) <= {"unavailable", "busy", *OUT_OF_TURN}, report.errors
        assert all(node.alive() for node in servers.nodes)
        print(
            f"owner cut off Redis: taken over in {taken:.1f} s; Ann told {set(during)} "
            f"({len(during)}x, /healthz {health}); finished {took:.1f} s after the cut; "
            f"errors {report.errors}"
        )


def test_a_command_forwarded_as_a_partition_heals_is_not_refused_once_played(
    tmp_path: Path,
) -> None:
    # An error means nothing changed (docs/protocol.md).  A process whose Redis
    # just came back must not forward a command before its inbox listens again:
    # the owner would play it and its answer be lost (then "busy" for a shot played).
    require_services()
    with cluster(tmp_path, redis_proxy=True) as servers:
        a, b = servers.start(2)
        assert a.redis_cable is not None
        ann, bob = quick_party(a.url, b.url)
        table = ann.table
        assert table is not None
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=3, timeout=30)  # Bob's turn next
        a.redis_cable.cut()
        play(by_seat, shots=1, timeout=30)  # taken over by b for Bob's shot
        assert servers.owner(table) is b
        time.sleep(0.5)
        ann.pump(0.2)
        seen = len(ann.errors)
        a.redis_cable.restore()
        # Ann shoots the moment her process's Redis is back.
        ann.shoot("south", position=0.0, direction=33.0, power=0.0)

        def answered() -> bool:
            ann.pump(0.1)
            played = any(m["played"]["direction"] == 33.0 for m in ann.acked.values())
            return played or len(ann.errors) > seen

        wait_for(answered, 20, "the shot's outcome")
        ann.pump(6.0)  # a late refusal of the same command would come within this
        played = [v for v, e in servers.log(table) if e.get("played", {}).get("direction") == 33.0]
        refused = [e["code"] for e in ann.errors[seen:]]
        assert not (played and refused), f"played as event {played}, and refused: {refused}"
        report = play(by_seat, timeout=45)
        ann.wait_finished()
        bob.wait_finished()
        shots = check_log(servers.log(table), [ann, bob])
        assert len(shots) == 16
        assert "server_error" not in report.errors, report.errors
