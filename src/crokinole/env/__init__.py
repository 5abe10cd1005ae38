"""Crokinole for reinforcement learning: Gymnasium and PettingZoo environments.

Install the extra: ``pip install crokinole[env]`` (gymnasium, pettingzoo).
``import crokinole`` never needs them, and neither do this package's plain
modules (:mod:`~crokinole.env.actions`, :mod:`~crokinole.env.observe`,
:mod:`~crokinole.env.tasks`); the environments load gymnasium (or
pettingzoo) when first named:

* :class:`CrokinoleEnv` (``crokinole.env.single``): one seat against a CPU level;
* :class:`CrokinoleAEC` (``crokinole.env.aec``): singles or doubles, any seats
  played by programs, the others by CPU levels;
* :class:`VectorCrokinoleEnv` (``crokinole.env.vector``): many boards of a
  one-shot task stepped in one call on the batch simulator.

See ``docs/env.md``.

>>> from crokinole.env import TASKS, action_to_shot
>>> TASKS[0], TASKS[-1]
('open_20', 'win_game')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from crokinole.env.actions import action_to_shot, check_action, shot_to_action
from crokinole.env.observe import MAX_DISCS, OBS_SIZE, observe, raster
from crokinole.env.tasks import TASKS, Episode

if TYPE_CHECKING:
    from crokinole.env.aec import CrokinoleAEC
    from crokinole.env.single import CrokinoleEnv
    from crokinole.env.vector import VectorCrokinoleEnv

__all__ = [
    "MAX_DISCS",
    "OBS_SIZE",
    "TASKS",
    "CrokinoleAEC",
    "CrokinoleEnv",
    "Episode",
    "VectorCrokinoleEnv",
    "action_to_shot",
    "check_action",
    "observe",
    "raster",
    "shot_to_action",
]

#: The environments and the module (and the extra's package) each lives in.
_LAZY = {
    "CrokinoleEnv": ("crokinole.env.single", "gymnasium"),
    "VectorCrokinoleEnv": ("crokinole.env.vector", "gymnasium"),
    "CrokinoleAEC": ("crokinole.env.aec", "pettingzoo"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'crokinole.env' has no attribute {name!r}")
    module, needs = _LAZY[name]
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.split(".")[0] in ("gymnasium", "pettingzoo"):
            raise ModuleNotFoundError(
                f"crokinole.env.{name} needs {needs}: pip install 'crokinole[env]'",
                name=exc.name,
            ) from exc
        raise
    return getattr(loaded, name)
