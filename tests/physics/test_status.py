"""A disc's final status is one public value type, used by the results and by their readers."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.physics import DiscStatus, simulate_batch, simulate_shot

B = TOURNAMENT_BOARD
SRC = Path(__file__).resolve().parents[2] / "src" / "crokinole"


def test_statuses_compare_with_the_status_arrays() -> None:
    # A gentle straight shot drops into the 20; a full-power one skims to the ditch.
    shots = B.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [28.0, 100.0])
    batch = simulate_batch(B, [], shots)
    assert (batch.statuses[:, 0] == DiscStatus.IN_HOLE).tolist() == [True, False]
    assert (batch.statuses[:, 0] == DiscStatus.IN_DITCH).tolist() == [False, True]
    for k in range(len(shots)):
        power = (28.0, 100.0)[k]
        single = simulate_shot(B, [], B.launch(Seat.SOUTH, Shot(0.0, 0.0, power)))
        assert [DiscStatus(int(c)) for c in single.status_array] == [d.status for d in single.discs]
        assert single.discs[0].status == batch.statuses[k, 0]
    assert np.array_equal(
        np.array([DiscStatus.ON_BOARD, DiscStatus.IN_HOLE, DiscStatus.IN_DITCH]), [0, 1, 2]
    )
    assert [s.label for s in DiscStatus] == ["on_board", "in_hole", "in_ditch"]


def test_no_module_outside_the_simulator_reads_the_kernel_codes() -> None:
    # The kernel's integer codes are an implementation detail of the physics
    # package; everyone else uses DiscStatus.
    offenders = []
    for path in SRC.rglob("*.py"):
        if path.is_relative_to(SRC / "physics"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "crokinole.physics.kernel":
                offenders.append(str(path.relative_to(SRC)))
            if isinstance(node, ast.Import) and any(
                a.name == "crokinole.physics.kernel" for a in node.names
            ):
                offenders.append(str(path.relative_to(SRC)))
    assert offenders == []
