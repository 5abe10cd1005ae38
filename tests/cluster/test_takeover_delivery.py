"""A game taken over after its owner died: nothing the owner stored goes unshown (issue 21).

The owner stores a shot, then dies before publishing it (its Redis cut
first: the publish fails, PostgreSQL has the shot).  The process that takes
the game over must show that shot to its players as a ``shot``, in order,
before anything new: not just a whole ``table`` view that skips it.
Real processes (:mod:`tests.support.cluster`); skipped when PostgreSQL or
Redis cannot be reached (failed under ``CI``).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cluster import (
    check_log,
    check_shown_everything,
    cluster,
    freshest,
    owned_party,
    play,
    require_services,
    wait_for,
)


def test_a_shot_stored_but_never_published_by_the_dying_owner_is_shown_after_the_takeover(
    tmp_path: Path,
) -> None:
    require_services()
    with cluster(tmp_path, redis_proxy=True) as servers:
        a, b = servers.start(2)
        assert a.redis_cable is not None
        ann, bob, table = owned_party(servers, a, b)
        by_seat = {"south": ann, "north": bob}
        play(by_seat, shots=2, timeout=30)  # Ann's turn again
        for client in (ann, bob):
            client.pump(0.3)
        game = freshest([ann, bob]).game or {}
        assert game.get("current_seat") == "south", game
        shown_before = bob.version
        # The owner loses Redis, then takes Ann's shot: stored in PostgreSQL,
        # shown to Ann (her connection is on the owner), never published.
        a.redis_cable.cut()
        ann.shoot("south", position=0.0, direction=12.0, power=0.0)
        wait_for(
            lambda: ann.pump(0.1) is not None and max(ann.acked) > shown_before, 10, "Ann's shot"
        )
        (shot_version,) = [v for v in ann.acked if v > shown_before]
        servers.kill(a)
        bob.pump(0.5)
        assert shot_version not in bob.acked  # nothing of it reached Bob's process yet
        # Bob's process takes the game over once the dead owner's lease expired.
        wait_for(
            lambda: bob.pump(0.1) is not None and bob.version > shot_version,
            20,
            "the game to go on on Bob's process",
        )
        assert servers.owner(table) is b
        assert shot_version in bob.acked, [m.get("type") for m in bob.messages[-6:]]
        shot_at = next(
            n
            for n, m in enumerate(bob.messages)
            if m.get("type") == "shot" and m.get("event") == shot_version
        )
        later = [
            n
            for n, m in enumerate(bob.messages)
            if isinstance(m.get("event"), int) and m["event"] > shot_version
        ]
        assert later and min(later) > shot_at  # the stored shot first, then what is new
        assert bob.skips == []
        # The game goes on to its end with Ann back on Bob's process.
        ann = ann.rejoin(b.url)
        by_seat["south"] = ann
        play(by_seat, timeout=45)
        ann.wait_finished()
        bob.wait_finished()
        shots = check_log(servers.log(table), [ann, bob])
        assert len(shots) == 16
        assert shot_version in {v for v, _ in shots}
        check_shown_everything(servers, table, [bob])
