"""Does a CPU player *mean* a foul?  The measure behind ``benchmarks/cpu_fouls.py``.

An easy player should be inaccurate, not ignorant of the rules: with an
opposing disc on the board (R4) and a valid hit available, the shot a level
means (:meth:`~crokinole.ai.players.CpuPlayer.intend`, before execution
noise) should touch an opposing disc.  This module

* collects positions that play really reaches (:func:`positions_from_play`:
  CPU games between levels drawn at random, with their noise), keeping the
  turns where the shooter faces an opposing disc;
* decides whether a valid hit exists there (:func:`valid_hit_exists`), by a
  search wider than any level's own: Hard's candidates plus a dense fan of
  placements, directions and powers;
* plays a level's intended shot exactly, through the real referee
  (:meth:`~crokinole.rules.Game.shoot` on a copy), and says whether it was a
  foul (:func:`intends_foul`).

>>> import numpy as np
>>> from crokinole.ai import Level
>>> games = positions_from_play(3, seed=1)
>>> len(games), all(faces_an_opponent(g) and valid_hit_exists(g) for g in games)
(3, True)
>>> [intends_foul(Level.EASY, g, np.random.default_rng(0)) for g in games]
[False, False, False]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from crokinole.ai.players import Level
from crokinole.ai.roster import make_player
from crokinole.ai.search import Candidates, generate, simulate_candidates
from crokinole.rules import Game, Phase, Rules

#: Placements of the dense existence search, as fractions of the legal range.
DENSE_FRACTIONS = tuple(float(f) for f in np.linspace(-0.95, 0.95, 15))
#: Its directions (degrees) and powers (percent).
DENSE_DIRECTIONS = tuple(float(d) for d in np.arange(-60.0, 60.5, 1.0))
DENSE_POWERS = (18.0, 24.0, 30.0, 38.0, 48.0, 62.0, 80.0, 100.0)


def faces_an_opponent(game: Game) -> bool:
    """Whether the player to move has an opposing disc on the board (R4's contact rule)."""
    seat = game.current_seat
    if seat is None or not game.rules.required_contact:
        return False
    side = game.side_of(seat)
    return any(game.side_of(d.owner) != side for d in game.discs)


def positions_from_play(
    count: int,
    seed: int,
    *,
    levels: tuple[Level, ...] = (Level.EASY, Level.NORMAL, Level.HARD),
    keep: float = 0.35,
    progress: Callable[[int], None] | None = None,
) -> list[Game]:
    """``count`` positions reached in CPU games, each with an opposing disc to face.

    Games of one round (tournament singles) are played between two levels
    drawn from ``levels``, each shot with its level's noise; a turn that
    faces an opposing disc is kept with probability ``keep``, so the
    positions spread over many games and every stage of a round.  The same
    seed gives the same positions.
    """
    rng = np.random.default_rng(seed)
    players = {level: make_player(level) for level in levels}
    found: list[Game] = []
    while len(found) < count:
        pair = rng.choice(len(levels), size=2)
        game = Game(Rules(rounds=1))
        while game.phase is Phase.PLAYING and len(found) < count:
            seat = game.current_seat
            assert seat is not None
            if faces_an_opponent(game) and rng.random() < keep:
                found.append(game.copy())
                if progress is not None:
                    progress(1)
            player = players[levels[int(pair[game.side_of(seat)])]]
            game.shoot(seat, player.choose_shot(game, rng))
    return found


def valid_hit_exists(game: Game) -> bool:
    """Whether some shot is valid (R4) here: Hard's candidates, then a dense fan."""
    seat = game.current_seat
    if seat is None:
        raise ValueError("nobody is to shoot: the round or the game is over")
    if simulate_candidates(game, seat, generate(game, seat)).valid.any():
        return True
    limit = game.board.placement_limit
    spots = [f * limit for f in DENSE_FRACTIONS]
    free = np.array([p for p in spots if game.placement_problem(seat, p) is None])
    if free.size == 0:
        free = np.array([(a + b) / 2.0 for a, b in game.placement_intervals(seat)])
    if free.size == 0:
        return False
    p, d, w = np.meshgrid(free, DENSE_DIRECTIONS, DENSE_POWERS, indexing="ij")
    fan = Candidates(p.ravel(), d.ravel(), w.ravel())
    return bool(simulate_candidates(game, seat, fan).valid.any())


def intends_foul(level: Level | str, game: Game, rng: np.random.Generator) -> bool:
    """Whether ``level``'s intended shot, played exactly, is a foul (R4)."""
    seat = game.current_seat
    if seat is None:
        raise ValueError("nobody is to shoot: the round or the game is over")
    meant = make_player(level).intend(game, rng)
    return not game.copy().shoot(seat, meant).valid


@dataclass(frozen=True, slots=True)
class FoulFigure:
    """How often a level means a foul where a valid hit exists.

    Attributes:
        level: the CPU level.
        turns: positions with a valid hit available.
        fouls: of those, turns where the intended shot was a foul.
    """

    level: Level
    turns: int
    fouls: int

    @property
    def rate(self) -> float:
        """Share of turns with an intended foul."""
        return self.fouls / self.turns if self.turns else float("nan")


def intended_fouls(
    level: Level | str,
    games: list[Game],
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> FoulFigure:
    """Count ``level``'s intended fouls over ``games`` (positions with a valid hit only).

    Each position gets its own generator spawned from ``seed``, so a figure
    does not depend on the order the levels are measured in.
    """
    seeds = np.random.SeedSequence(seed).spawn(len(games))
    fouls = 0
    for game, s in zip(games, seeds, strict=True):
        fouls += intends_foul(level, game, np.random.default_rng(s))
        if progress is not None:
            progress(1)
    return FoulFigure(Level(level), len(games), fouls)


__all__ = [
    "FoulFigure",
    "faces_an_opponent",
    "intended_fouls",
    "intends_foul",
    "positions_from_play",
    "valid_hit_exists",
]
