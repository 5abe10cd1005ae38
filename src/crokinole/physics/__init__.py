"""The disc-physics simulator: exact, event-driven, deterministic, with a batch API.

See :mod:`crokinole.physics.kernel` for the model.  Two entry points:

* :func:`simulate_shot` — one shot, with outcomes, the contact log and the
  exact trajectory (what the rules engine and the browser need);
* :func:`simulate_batch` — many shots from one position, as compact arrays
  (what the CPU players search with);
* :func:`simulate_boards` — one shot on each of many positions, the same
  arrays (what a vector of environments steps with).
"""

from crokinole.physics.result import (
    BatchResult,
    Contact,
    ContactKind,
    DiscOutcome,
    DiscStatus,
    Event,
    EventKind,
    ShotResult,
)
from crokinole.physics.simulate import (
    MAX_EVENTS,
    MAX_LAUNCH_SPEED,
    OVERLAP_TOLERANCE,
    REST_SPEED,
    check_position,
    simulate_batch,
    simulate_boards,
    simulate_motion,
    simulate_shot,
)

__all__ = [
    "MAX_EVENTS",
    "MAX_LAUNCH_SPEED",
    "OVERLAP_TOLERANCE",
    "REST_SPEED",
    "BatchResult",
    "Contact",
    "ContactKind",
    "DiscOutcome",
    "DiscStatus",
    "Event",
    "EventKind",
    "ShotResult",
    "check_position",
    "simulate_batch",
    "simulate_boards",
    "simulate_motion",
    "simulate_shot",
]
