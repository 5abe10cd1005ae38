"""The vectorised referee agrees with the referee of single shots, shot for shot (R4, R5)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from crokinole.board import TOURNAMENT_BOARD, Launch, Seat
from crokinole.physics import simulate_batch, simulate_shot
from crokinole.rules.referee import (
    FATE_BOARD,
    FATE_DITCH,
    FATE_TWENTY,
    Disc,
    judge_batch,
    judge_shot,
)
from tests.physics.test_properties import positions, shots

B = TOURNAMENT_BOARD
SIDE_OF = {Seat.SOUTH: 0, Seat.NORTH: 1}


@settings(max_examples=60, deadline=None)
@given(
    positions(),
    st.lists(shots, min_size=1, max_size=8),
    st.lists(st.booleans(), min_size=25, max_size=25),
    st.booleans(),
)
def test_batch_judgement_matches_single_judgement(
    discs: np.ndarray, many: list, owners_north: list[bool], required: bool
) -> None:
    owners = [Seat.NORTH if owners_north[i] else Seat.SOUTH for i in range(len(discs))]
    before = tuple(Disc(i, owners[i], float(x), float(y)) for i, (x, y) in enumerate(discs))
    launches = []
    for shot in many:
        lo = B.launch(Seat.SOUTH, shot)
        if (
            len(discs)
            and np.hypot(discs[:, 0] - lo.x, discs[:, 1] - lo.y).min() < 2 * B.disc_radius
        ):
            continue
        launches.append((shot, lo))
    if not launches:
        return
    batch = simulate_batch(B, discs, np.array([[lo.x, lo.y, lo.vx, lo.vy] for _, lo in launches]))
    sides = np.array([SIDE_OF[o] for o in owners], dtype=np.int64)
    judged = judge_batch(
        B, owner_sides=sides, shooter_side=0, batch=batch, required_contact=required
    )
    for k, (shot, lo) in enumerate(launches):
        result = simulate_shot(B, discs, Launch(lo.x, lo.y, lo.vx, lo.vy))
        report = judge_shot(
            B, before=before, side_of=SIDE_OF, seat=Seat.SOUTH, shot=shot, shot_id=len(discs),
            result=result, required_contact=required,
        )  # fmt: skip
        assert bool(judged.valid[k]) == report.valid
        on_board = {d.id for d in report.board_after}
        twenties = {d.id for d in report.twenties}
        removed = {r.disc.id for r in report.removed}
        for i in range(len(discs) + 1):
            fate = judged.fate[k, i]
            expected = FATE_BOARD if i in on_board else FATE_TWENTY if i in twenties else FATE_DITCH
            assert fate == expected
            assert (i in removed) == (fate == FATE_DITCH)
