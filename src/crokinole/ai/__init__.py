"""CPU players (R8): Easy, Normal, Hard, Expert and Master, with execution noise.

Use :func:`make_player` and call ``choose_shot(game, rng)``; see
:mod:`crokinole.ai.players` for what each level does and
:mod:`crokinole.ai.evaluate` for how positions are valued.
"""

from crokinole.ai.master import MasterPlayer
from crokinole.ai.noise import Noise
from crokinole.ai.players import (
    HAND_NOISE,
    NOISE,
    CpuPlayer,
    EasyPlayer,
    ExpertPlayer,
    HardPlayer,
    Level,
    NormalPlayer,
    Player,
)
from crokinole.ai.roster import make_player

__all__ = [
    "HAND_NOISE",
    "NOISE",
    "CpuPlayer",
    "EasyPlayer",
    "ExpertPlayer",
    "HardPlayer",
    "Level",
    "MasterPlayer",
    "Noise",
    "NormalPlayer",
    "Player",
    "make_player",
]
