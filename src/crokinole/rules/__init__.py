"""The rules engine: options (R2), the game state machine (R2–R6) and the record (R9).

The one referee the server, the CPU players and library users share; see
:mod:`crokinole.rules.game` for the decisions taken where RULES.md is silent.
"""

from crokinole.rules.game import Game
from crokinole.rules.options import MAX_EXTRA_ROUNDS, Layout, Rules, Scoring, TieSetting
from crokinole.rules.record import game_from_json, game_to_json, replay
from crokinole.rules.referee import Disc, Foul, Removal, Removed, ShotReport, judge_shot
from crokinole.rules.scoring import (
    GameOutcome,
    SideCount,
    count_side,
    game_outcome,
    round_points,
    round_total,
)
from crokinole.rules.state import GameState, Phase, RoundResult, check_reachable, turn_order

__all__ = [
    "MAX_EXTRA_ROUNDS",
    "Disc",
    "Foul",
    "Game",
    "GameOutcome",
    "GameState",
    "Layout",
    "Phase",
    "Removal",
    "Removed",
    "RoundResult",
    "Rules",
    "Scoring",
    "ShotReport",
    "SideCount",
    "TieSetting",
    "check_reachable",
    "count_side",
    "game_from_json",
    "game_outcome",
    "game_to_json",
    "judge_shot",
    "replay",
    "round_points",
    "round_total",
    "turn_order",
]
