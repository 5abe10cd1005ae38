"""Two processes, no fault: a party played across them (the baseline of the fault tests)."""

from __future__ import annotations

from tests.support.cluster import Cluster, check_log, play, quick_party


def test_a_party_across_two_processes_is_played_to_its_end(servers: Cluster) -> None:
    a, b = servers.start(2)
    ann, bob = quick_party(a.url, b.url)
    table = ann.table
    assert table is not None
    assert servers.owner(table) is a  # made there
    done = play({"south": ann, "north": bob}, timeout=60)
    assert not done.errors
    bob.wait_finished()
    shots = check_log(servers.log(table), [ann, bob])
    assert len(shots) == 16
    assert set(ann.acked) == set(bob.acked) == {v for v, _ in shots}
