"""The CPU player of each level: :func:`make_player`, the one place a level becomes a player.

Its own module because Master (:mod:`crokinole.ai.master`) builds on Expert
(:mod:`crokinole.ai.players`): the roster imports both, and neither imports it.
"""

from __future__ import annotations

from crokinole.ai.master import MasterPlayer
from crokinole.ai.players import (
    CpuPlayer,
    EasyPlayer,
    ExpertPlayer,
    HardPlayer,
    Level,
    NormalPlayer,
)
from crokinole.errors import IllegalActionError


def make_player(level: Level | str) -> CpuPlayer:
    """The CPU player of a level.

    >>> make_player("normal").name
    'CPU Normal'
    >>> make_player("master").name
    'CPU Master'
    >>> make_player("grandmaster")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.errors.IllegalActionError: unknown CPU level 'grandmaster'; choose one of easy, ...
    """
    try:
        level = Level(level)
    except ValueError:
        names = ", ".join(lv.value for lv in Level)
        raise IllegalActionError(f"unknown CPU level {level!r}; choose one of {names}") from None
    players: dict[Level, CpuPlayer] = {
        Level.EASY: EasyPlayer(),
        Level.NORMAL: NormalPlayer(),
        Level.HARD: HardPlayer(),
        Level.EXPERT: ExpertPlayer(),
        Level.MASTER: MasterPlayer(),
    }
    return players[level]
