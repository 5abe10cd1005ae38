"""The one exception root of the project.

Every error the library raises on purpose is a :class:`CrokinoleError`.  Errors
caused by bad input also subclass :class:`ValueError`, so callers that already
catch ``ValueError`` keep working.  Messages quote the offending value and its
context in plain words, e.g. ``disc 2 at (0.1000, 0.2000) is over the 20 hole``.

This module imports nothing from the project, so every layer may use it.
"""

from __future__ import annotations


class CrokinoleError(Exception):
    """Root of every error raised by the crokinole package."""


class InvalidBoardError(CrokinoleError, ValueError):
    """A board description whose dimensions cannot describe a real board."""


class InvalidPositionError(CrokinoleError, ValueError):
    """A set of discs that cannot lie on the board (overlap, off the board, NaN ...)."""


class InvalidShotError(CrokinoleError, ValueError):
    """A shot or launch that cannot be played (negative or NaN power, off the line ...)."""


class SimulationError(CrokinoleError, RuntimeError):
    """The simulator could not finish a shot (the per-shot event cap was reached)."""


class InvalidRulesError(CrokinoleError, ValueError):
    """A combination of game options that cannot be played (R2)."""


class IllegalActionError(CrokinoleError, ValueError):
    """An action that the game's rules do not allow now (R2–R6)."""


class NotYourTurn(IllegalActionError):  # noqa: N818 - the name players see
    """Someone other than the shooter tried to act."""


class IllegalPlacement(IllegalActionError):  # noqa: N818 - the name players see
    """A disc placed where the rules do not allow it (R3)."""


class InvalidRecordError(CrokinoleError, ValueError):
    """A game record (JSON) that cannot be read or does not replay."""


class TableError(CrokinoleError, ValueError):
    """A command a table refuses (see :mod:`crokinole.table`); nothing changed.

    Attributes:
        code: a stable id for the reason (``not_host``, ``seat_taken``, ...),
            which the server sends on as the protocol's error code.
        message: the reason in plain words for the player.

    >>> str(TableError("seat_taken", "north is taken by Ann"))
    'north is taken by Ann'
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RankingError(CrokinoleError, ValueError):
    """A rating, game result or queue entry that ranked play cannot use.

    >>> str(RankingError("a side has 1 or 2 players, not 3"))
    'a side has 1 or 2 players, not 3'
    """


class AnalysisError(CrokinoleError, ValueError):
    """A hint, heat map, review or drill that cannot be worked out for the input given.

    >>> str(AnalysisError("nobody is to shoot: the round or the game is over"))
    'nobody is to shoot: the round or the game is over'
    """
