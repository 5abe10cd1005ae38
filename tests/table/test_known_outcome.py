"""Folding a shot from its known outcome: a follower copy ends as the owner's table, no physics.

The owner of a table simulates each shot once (``Table.apply``); another
process's copy folds the same events with the simulator's result the owner
kept (``Table.fold(event, outcome)``) and must end bit for bit where the
owner's table is, report included, without simulating the shot again.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from crokinole.errors import InvalidRecordError
from crokinole.physics import ShotResult
from crokinole.rules import Phase
from crokinole.table import Event, NextRound, ShotPlayed, Table
from tests.support.table import T0, device, shoot, started


def _outcomes(table: Table, events: list[Event]) -> dict[int, ShotResult]:
    found = {}
    for event in events:
        played = table.report_of(event.version)
        if isinstance(event, ShotPlayed) and played is not None:
            assert played.report.physics is not None
            found[event.version] = played.report.physics
    return found


def _same_result(a: ShotResult | None, b: ShotResult | None) -> bool:
    assert a is not None and b is not None
    names = ("start_array", "final_array", "status_array", "flag_array")
    arrays = (*names, "event_floats", "event_ints")
    return (a.duration, a.deceleration) == (b.duration, b.deceleration) and all(
        getattr(a, n).tobytes() == getattr(b, n).tobytes() for n in arrays
    )


def test_a_copy_folding_the_owners_outcomes_ends_as_the_owners_table_through_a_whole_game() -> None:
    owner, _ = started(2, rounds=2)
    copy = owner
    now = T0 + 2
    kinds: set[str] = set()
    reports = []
    while owner.game is not None and not owner.game.is_over:
        now += 1
        if owner.game.phase is Phase.ROUND_OVER:
            owner, events = owner.apply(NextRound(device(1)), now)
            owner, more = owner.apply(NextRound(device(2)), now)
            events += more
        else:
            # Powers that leave discs on the board, to be hit by the next shots.
            owner, events = shoot(owner, now, power=12.0 + (owner.version * 7) % 24)
        outcomes = _outcomes(owner, events)
        for event in events:
            copy = copy.fold(event, outcomes.get(event.version))
            kinds.add(event.TYPE)
            if isinstance(event, ShotPlayed):
                mine, theirs = copy.report_of(event.version), owner.report_of(event.version)
                assert mine is not None and theirs is not None
                assert mine.report.physics is theirs.report.physics  # judged, not simulated
                assert replace(mine.report, physics=None) == replace(theirs.report, physics=None)
                assert mine.before == theirs.before and mine.after == theirs.after
                reports.append(mine)
        assert copy == owner
        assert copy.to_dict() == owner.to_dict()
    # The shots that ended a round and the one that ended the game came this way too.
    assert {"round_started", "game_finished"} <= kinds
    assert owner.game is not None and len(owner.game.state.history) >= 2
    assert any(len(p.report.board_after) > 1 for p in reports)  # shots among discs


def test_the_fold_of_a_known_outcome_runs_no_physics() -> None:
    # An outcome where every disc stays where it was placed, although the shot
    # has power: the physics would move the shot disc; the fold takes the outcome.
    before, _ = started(2)
    owner, events = shoot(before, T0 + 2, power=30.0)
    (shot,) = [e for e in events if isinstance(e, ShotPlayed)]
    real = _outcomes(owner, events)[shot.version]
    still = ShotResult(
        duration=0.0,
        deceleration=real.deceleration,
        start_array=real.start_array,
        final_array=real.start_array.copy(),
        status_array=np.zeros_like(real.status_array),
        flag_array=np.zeros_like(real.flag_array),
        event_floats=np.zeros((0, 5)),
        event_ints=np.zeros((0, 4), dtype=real.event_ints.dtype),
    )
    assert not np.array_equal(real.final_array, still.final_array)  # the physics moves it
    copy = before
    for event in events:
        copy = copy.fold(event, still if event is shot else None)
    played = copy.report_of(shot.version)
    assert played is not None and played.report.physics is still
    # Judged from the outcome given: the shot disc never left its starting point.
    (shot_disc,) = [d for d in played.report.simulated if d.id == played.report.shot_id]
    where = [
        (d.x, d.y)
        for d in (*played.report.board_after, *(r.disc for r in played.report.removed))
        if d.id == shot_disc.id
    ]
    assert where == [tuple(real.start_array[-1])]
    # Folded without an outcome, the same event is simulated: the disc moves.
    simulated = before
    for event in events:
        simulated = simulated.fold(event)
    assert simulated == owner and simulated != copy


def test_an_outcome_that_is_not_the_shots_is_refused() -> None:
    before, _ = started(2)
    owner, events = shoot(before, T0 + 2)
    (shot,) = [e for e in events if isinstance(e, ShotPlayed)]
    real = _outcomes(owner, events)[shot.version]
    elsewhere = replace(real, start_array=real.start_array + 0.5)
    with pytest.raises(InvalidRecordError, match="not this shot's"):
        before.fold(shot, elsewhere)
    _, log = started(2)
    game_started = log[-1]
    assert game_started.TYPE == "game_started"
    with pytest.raises(InvalidRecordError, match="no shot outcome"):
        Table.replay(log[:-1]).fold(game_started, real)
