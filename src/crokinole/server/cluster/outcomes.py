"""A shot's simulated outcome on the wire: what the owner publishes so followers need no physics.

The owner of a table simulated each shot it applied
(:attr:`crokinole.table.Table.shot_reports`); it publishes the simulator's
result with the events, and a follower folds the shot from it
(``Table.fold(event, outcome)``) instead of simulating it again.  The arrays
travel as their raw bytes (base64), so the follower's copy is bit-identical
to the owner's table.

>>> import json
>>> from crokinole.board import TOURNAMENT_BOARD as board, Seat, Shot
>>> from crokinole.physics import simulate_shot
>>> result = simulate_shot(board, [(0.0, -6.0)], board.launch(Seat.SOUTH, Shot(0.0, 0.0, 20.0)))
>>> back = outcome_from_dict(json.loads(json.dumps(outcome_to_dict(result))))
>>> bool((back.event_floats == result.event_floats).all()), back.duration == result.duration
(True, True)
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

import numpy as np

from crokinole.errors import CrokinoleError
from crokinole.physics import ShotResult

__all__ = ["BadOutcomeError", "outcome_from_dict", "outcome_to_dict"]

#: The arrays of a :class:`ShotResult`.
_ARRAYS = (
    "start_array",
    "final_array",
    "status_array",
    "flag_array",
    "event_floats",
    "event_ints",
)


class BadOutcomeError(CrokinoleError, ValueError):
    """A published outcome that cannot be read (the follower reads the store instead)."""


def outcome_to_dict(result: ShotResult) -> dict[str, Any]:
    """``result`` as JSON-ready data (exact: two JSON floats, and each array's raw bytes)."""
    data: dict[str, Any] = {"duration": result.duration, "deceleration": result.deceleration}
    for name in _ARRAYS:
        array = np.ascontiguousarray(getattr(result, name))
        data[name] = {
            "dtype": array.dtype.str,
            "shape": list(array.shape),
            "data": base64.b64encode(array.tobytes()).decode("ascii"),
        }
    return data


def outcome_from_dict(data: Mapping[str, Any]) -> ShotResult:
    """Inverse of :func:`outcome_to_dict`.

    Raises:
        BadOutcomeError: ``data`` is not an outcome written by it.
    """
    try:
        arrays: dict[str, Any] = {}
        for name in _ARRAYS:
            part = data[name]
            raw = base64.b64decode(part["data"], validate=True)
            shape = tuple(int(n) for n in part["shape"])
            arrays[name] = np.frombuffer(raw, dtype=np.dtype(part["dtype"])).reshape(shape)
        duration, deceleration = float(data["duration"]), float(data["deceleration"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BadOutcomeError(f"a shot's published outcome cannot be read: {exc}") from None
    return ShotResult(duration=duration, deceleration=deceleration, **arrays)
