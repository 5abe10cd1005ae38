"""Analysis: hints, aim heat maps, game review and drills (pure functions over a ``Game``).

Everything here values shots with :mod:`crokinole.analysis.value`: a shot
played many times under an :class:`Accuracy` through the batch simulator
and the referee.  Nothing here does I/O or keeps state between calls.
"""

from crokinole.analysis.accuracy import fit_accuracy, open_twenty_rate
from crokinole.analysis.heatmap import HeatMap, Metric, heat_map
from crokinole.analysis.hints import Hint, hints
from crokinole.analysis.value import Accuracy, ShotValue, round_win_chance, value_shots
from crokinole.errors import AnalysisError

__all__ = [
    "Accuracy",
    "AnalysisError",
    "HeatMap",
    "Hint",
    "Metric",
    "ShotValue",
    "fit_accuracy",
    "heat_map",
    "hints",
    "open_twenty_rate",
    "round_win_chance",
    "value_shots",
]
