"""crokinole: the game of crokinole as a Python library.

The pure core (board geometry, the physics simulator, and later the rules and
the CPU players) imports no server, database or asyncio code.

>>> from crokinole import TOURNAMENT_BOARD, Seat, Shot, simulate_shot
>>> launch = TOURNAMENT_BOARD.launch(Seat.SOUTH, Shot(position=0, direction=0, power=28))
>>> result = simulate_shot(TOURNAMENT_BOARD, [], launch)
>>> result.discs[0].status
<DiscStatus.IN_HOLE: 1>
"""

from crokinole.board import TOURNAMENT_BOARD, Board, Launch, Point, Seat, Shot, Zone
from crokinole.errors import (
    CrokinoleError,
    IllegalActionError,
    IllegalPlacement,
    InvalidBoardError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    InvalidShotError,
    NotYourTurn,
    SimulationError,
)
from crokinole.physics import BatchResult, ShotResult, simulate_batch, simulate_shot
from crokinole.physics.result import Contact, ContactKind, DiscOutcome, DiscStatus, Event, EventKind
from crokinole.rules import Game, Layout, Phase, Rules, Scoring, ShotReport, TieSetting

__all__ = [
    "TOURNAMENT_BOARD",
    "BatchResult",
    "Board",
    "Contact",
    "ContactKind",
    "CrokinoleError",
    "DiscOutcome",
    "DiscStatus",
    "Event",
    "EventKind",
    "Game",
    "IllegalActionError",
    "IllegalPlacement",
    "InvalidBoardError",
    "InvalidPositionError",
    "InvalidRecordError",
    "InvalidRulesError",
    "InvalidShotError",
    "Launch",
    "Layout",
    "NotYourTurn",
    "Phase",
    "Point",
    "Rules",
    "Scoring",
    "Seat",
    "Shot",
    "ShotReport",
    "ShotResult",
    "SimulationError",
    "TieSetting",
    "Zone",
    "simulate_batch",
    "simulate_shot",
]
__version__ = "0.1.0"
