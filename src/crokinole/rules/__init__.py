"""The rules engine: options (R2), the game state machine (R2–R6) and the record (R9).

The one referee the server, the CPU players and library users share; see
:mod:`crokinole.rules.game` for the decisions taken where RULES.md is silent.
The record is the game's typed actions (:mod:`crokinole.rules.actions`),
written and read in the R9 record format (:mod:`crokinole.rules.record_format`)
and played again by :func:`steps` (:mod:`crokinole.rules.playback`).
"""

from crokinole.rules.actions import Action, NextRound, ShotAction, TimeoutAction, TurnResult
from crokinole.rules.game import Game
from crokinole.rules.options import MAX_EXTRA_ROUNDS, Layout, Rules, Scoring, TieSetting
from crokinole.rules.playback import (
    ActionReplayError,
    Step,
    game_from_json,
    game_to_json,
    replay,
    steps,
    take,
)
from crokinole.rules.record_format import (
    FORMAT,
    MAX_RECORD_BYTES,
    VERSION,
    SavedGame,
    read_record,
    write_record,
)
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
    "FORMAT",
    "MAX_EXTRA_ROUNDS",
    "MAX_RECORD_BYTES",
    "VERSION",
    "Action",
    "ActionReplayError",
    "Disc",
    "Foul",
    "Game",
    "GameOutcome",
    "GameState",
    "Layout",
    "NextRound",
    "Phase",
    "Removal",
    "Removed",
    "RoundResult",
    "Rules",
    "SavedGame",
    "Scoring",
    "ShotAction",
    "ShotReport",
    "SideCount",
    "Step",
    "TieSetting",
    "TimeoutAction",
    "TurnResult",
    "check_reachable",
    "count_side",
    "game_from_json",
    "game_outcome",
    "game_to_json",
    "judge_shot",
    "read_record",
    "replay",
    "round_points",
    "round_total",
    "steps",
    "take",
    "turn_order",
    "write_record",
]
