"""What an environment's player sees: a fixed-size vector, and a raster of the board.

Everything is seen **from the viewer's seat**: the board is turned so that
the viewer shoots from south (a quarter turn is exact: coordinates are only
swapped and negated), and seats are numbered relative to the viewer
clockwise — 0 the viewer, 1 the next seat clockwise (the next to shoot
after it in doubles), 2 the seat opposite (the opponent in singles, the
partner in doubles), 3 the last.  So one policy can play any seat.

The vector (float32, :data:`OBS_SIZE` = 189 numbers):

=========================  =====  ============================================================
part                       size   values
=========================  =====  ============================================================
discs                      168    :data:`MAX_DISCS` rows of 7, in the order they were shot: x, y
                                  (inches / surface radius, so in [-1, 1]), owner's relative
                                  seat one-hot (4), on the board (1); empty rows are zeros
whose turn                 4      relative seat to shoot, one-hot (zeros between rounds)
discs left                 4      discs in hand per relative seat / 12
round scores               4      the seat's side's count of the round so far (R6, 20s included)
                                  / 100
game points                4      the seat's side's game score (game points, or points to 100)
                                  / 100
seats in play              4      1 for a seat in the game
round                      1      the round number / 8
=========================  =====  ============================================================

>>> from crokinole.rules import Game, Rules
>>> vector = observe(Game(Rules()), Seat.SOUTH)
>>> vector.shape, vector[OFFSET_TURN:OFFSET_TURN + 4].tolist(), round(float(vector[OFFSET_LEFT]), 4)
((189,), [1.0, 0.0, 0.0, 0.0], 0.6667)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from crokinole.board import Seat
from crokinole.rules import Game

__all__ = [
    "DISC_FEATURES",
    "MAX_DISCS",
    "OBS_HIGH",
    "OBS_LOW",
    "OBS_SIZE",
    "OFFSET_GAME",
    "OFFSET_LEFT",
    "OFFSET_ROUND",
    "OFFSET_SCORES",
    "OFFSET_SEATS",
    "OFFSET_TURN",
    "observe",
    "raster",
    "relative_seat",
    "to_viewer",
]

#: Discs on the board at most: 12 a side in singles (the home rule), 24 in doubles.
MAX_DISCS = 24
#: Numbers per disc row: x, y, owner one-hot (4), on the board.
DISC_FEATURES = 7
OFFSET_TURN = MAX_DISCS * DISC_FEATURES
OFFSET_LEFT = OFFSET_TURN + 4
OFFSET_SCORES = OFFSET_LEFT + 4
OFFSET_GAME = OFFSET_SCORES + 4
OFFSET_SEATS = OFFSET_GAME + 4
OFFSET_ROUND = OFFSET_SEATS + 4
#: Length of the observation vector.
OBS_SIZE = OFFSET_ROUND + 1
#: Bounds of every number of the vector (scores to 100 stay far below 10 × 100).
OBS_LOW = -1.0
OBS_HIGH = 10.0

_CLOCKWISE = (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
_INDEX = {seat: k for k, seat in enumerate(_CLOCKWISE)}
#: Most discs in hand per seat (12, singles' home rule).
_MOST_IN_HAND = 12.0


def relative_seat(seat: Seat, viewer: Seat) -> int:
    """``seat``'s number seen from ``viewer``: 0 itself, then clockwise.

    >>> relative_seat(Seat.NORTH, Seat.SOUTH), relative_seat(Seat.SOUTH, Seat.WEST)
    (2, 3)
    """
    return (_INDEX[seat] - _INDEX[viewer]) % 4


def to_viewer(x: float, y: float, viewer: Seat) -> tuple[float, float]:
    """Board coordinates turned so that ``viewer`` sits south (exact: quarter turns only).

    >>> to_viewer(0.0, 12.0, Seat.NORTH), to_viewer(-12.0, 0.0, Seat.WEST)
    ((-0.0, -12.0), (-0.0, -12.0))
    """
    turns = _INDEX[viewer]  # quarter turns counter-clockwise that bring the viewer south
    if turns == 0:
        return x, y
    if turns == 1:
        return -y, x
    if turns == 2:
        return -x, -y
    return y, -x


def observe(game: Game, viewer: Seat) -> npt.NDArray[np.float32]:
    """The observation vector of ``game`` seen from ``viewer`` (see the module's table)."""
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    scale = 1.0 / game.board.surface_radius
    for k, disc in enumerate(game.discs[:MAX_DISCS]):
        x, y = to_viewer(disc.x, disc.y, viewer)
        row = k * DISC_FEATURES
        out[row] = x * scale
        out[row + 1] = y * scale
        out[row + 2 + relative_seat(disc.owner, viewer)] = 1.0
        out[row + 6] = 1.0
    current = game.current_seat
    if current is not None:
        out[OFFSET_TURN + relative_seat(current, viewer)] = 1.0
    counts = game.round_counts()
    scores = game.scores
    for seat in game.rules.seats:
        r = relative_seat(seat, viewer)
        side = game.side_of(seat)
        out[OFFSET_LEFT + r] = game.in_hand(seat) / _MOST_IN_HAND
        out[OFFSET_SCORES + r] = counts[side].total / 100.0
        out[OFFSET_GAME + r] = scores[side] / 100.0
        out[OFFSET_SEATS + r] = 1.0
    out[OFFSET_ROUND] = game.round_number / 8.0
    return out


#: Colours of the raster (RGB): the ditch, the 5, 10 and 15 zones, the hole, lines, pegs.
_DITCH = (60, 44, 30)
_ZONES = ((222, 184, 135), (230, 196, 150), (238, 208, 165))
_HOLE = (20, 20, 20)
_LINE = (120, 80, 40)
_PEG = (90, 90, 90)
#: Disc colours by relative seat: the viewer, its right, opposite, its left.
_DISC = ((200, 30, 30), (30, 110, 200), (240, 240, 240), (40, 160, 70))


def raster(game: Game, viewer: Seat, size: int = 84) -> npt.NDArray[np.uint8]:
    """The board seen from ``viewer`` as a ``(size, size, 3)`` RGB image (the viewer at the bottom).

    Zones, lines, pegs and the hole in fixed colours; each disc coloured by its
    owner's relative seat (red the viewer, white the seat opposite).

    >>> from crokinole.rules import Game, Rules
    >>> image = raster(Game(Rules()), Seat.SOUTH, 32)
    >>> image.shape, image.dtype, image[16, 16].tolist()
    ((32, 32, 3), dtype('uint8'), [20, 20, 20])
    """
    board = game.board
    extent = board.surface_radius + board.ditch_width
    # Pixel centres in board inches (row 0 at the top: y grows upwards).
    coords = (np.arange(size, dtype=np.float64) + 0.5) / size * 2.0 * extent - extent
    x = coords[None, :]
    y = -coords[:, None]
    d = np.hypot(x, y)
    image = np.empty((size, size, 3), dtype=np.uint8)
    image[...] = _DITCH
    half = board.line_width / 2.0 + extent / size / 2.0  # lines at least a pixel wide
    image[d <= board.surface_radius] = _ZONES[0]
    image[d <= board.ten_radius] = _ZONES[1]
    image[d <= board.fifteen_radius] = _ZONES[2]
    for radius in (board.shooting_line_radius, board.ten_radius, board.fifteen_radius):
        image[np.abs(d - radius) <= half] = _LINE
    image[d <= board.hole_radius] = _HOLE
    for peg in board.pegs:
        px, py = to_viewer(peg.x, peg.y, viewer)
        image[np.hypot(x - px, y - py) <= max(board.peg_radius, extent / size)] = _PEG
    for disc in game.discs:
        dx, dy = to_viewer(disc.x, disc.y, viewer)
        image[np.hypot(x - dx, y - dy) <= board.disc_radius] = _DISC[
            relative_seat(disc.owner, viewer)
        ]
    return image
