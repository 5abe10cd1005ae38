"""pymunk's side of the physics benchmark: the board's model built in pymunk.

:class:`PymunkSimulator` steps the same board, pegs and discs as our
simulator at a fixed time step, for ``benchmarks/physics.py`` to time and to
compare outcomes with.  pymunk is optional (the ``bench`` extra):
:func:`load_pymunk` says whether it is installed.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from crokinole.board import Board
from crokinole.physics import DiscStatus

FloatArray = npt.NDArray[np.float64]
StatusArray = npt.NDArray[np.int8]

#: pymunk time steps (seconds): the one benchmarked and the fine reference.
PYMUNK_DT = 1.0 / 600.0
PYMUNK_FINE_DT = 1.0 / 6000.0
#: pymunk gives up on a shot after this much simulated time (seconds).
PYMUNK_TIME_CAP = 10.0
#: Overlap pymunk tolerates between shapes, in inches.  Its default, 0.1, is
#: meant for pixels; in inches it would let discs sink 0.1" into each other,
#: as much as the accuracy tolerance, so it is scaled down.
PYMUNK_COLLISION_SLOP = 0.01


def load_pymunk() -> ModuleType | None:
    """The pymunk module, or None when it is not installed (it is in the ``bench`` extra)."""
    try:
        return importlib.import_module("pymunk")
    except ImportError:
        return None


class PymunkSimulator:
    """The board's model built in pymunk, stepped at a fixed time step.

    Same units as the board (inches, seconds).  The space has no gravity;
    discs are dynamic circles of equal mass and the pegs static circles.
    pymunk multiplies the elasticities of the two shapes in contact, so discs
    get ``sqrt(e_disc)`` and pegs ``e_peg / sqrt(e_disc)``: disc-disc contacts
    then have restitution ``e_disc`` and disc-peg contacts ``e_peg``.  Shapes
    have no friction, so nothing spins.  Every step a body velocity callback
    takes ``deceleration * dt`` off each moving disc's speed (clamped at 0),
    sends a disc whose centre is beyond the surface to the ditch and drops a
    disc whose centre has stayed over the hole longer than the drop time (or
    stopped there).  A shot ends when every disc rests, or after
    :data:`PYMUNK_TIME_CAP` seconds.

    To be fair to pymunk, the space, its pegs and the disc bodies are built
    once per simulator and reset for every shot (measured at least as fast
    as building them anew, with the same outcomes), and resting discs are put
    to sleep by pymunk (its own optimisation, again with the same outcomes),
    so a step calls back into Python only for moving discs.
    """

    def __init__(
        self,
        pymunk: ModuleType,
        board: Board,
        dt: float,
        *,
        time_cap: float = PYMUNK_TIME_CAP,
        sleep: bool = True,
    ) -> None:
        """Build the space and the pegs of ``board``, to be stepped ``dt`` seconds at a time.

        Args:
            pymunk: the pymunk module.
            board: the board and physical constants.
            dt: the fixed time step in seconds.
            time_cap: simulated seconds after which a shot is stopped.
            sleep: let pymunk put resting discs to sleep (faster, same outcomes).
        """
        self._pm = pymunk
        self._board = board
        self._dt = dt
        self._steps = math.ceil(time_cap / dt)
        self._disc_elasticity = math.sqrt(board.restitution_disc)
        # A perfectly inelastic disc (e = 0) would make the peg's share 0/0.
        self._peg_elasticity = (
            board.restitution_peg / self._disc_elasticity if self._disc_elasticity else 0.0
        )
        self._moment = float(pymunk.moment_for_circle(board.disc_mass, 0.0, board.disc_radius))
        space = pymunk.Space()
        space.gravity = (0.0, 0.0)
        space.collision_slop = PYMUNK_COLLISION_SLOP
        if sleep:
            # A disc at exactly zero velocity sleeps after one step; a contact wakes it.
            space.sleep_time_threshold = dt
        for p in board.pegs:
            peg = pymunk.Circle(space.static_body, board.peg_radius, (p.x, p.y))
            peg.elasticity = self._peg_elasticity
            peg.friction = 0.0
            space.add(peg)
        self._space = space
        # The disc pool: body i is disc i of every shot; the callbacks share these lists.
        self._bodies: list[Any] = []
        self._shapes: list[Any] = []
        self._in_space: list[bool] = []
        self._over_hole: list[float] = []
        self._moving = [0]
        self._leaving: list[tuple[int, int, float, float]] = []

    @property
    def dt(self) -> float:
        """The time step in seconds."""
        return self._dt

    def _grow(self, n: int) -> None:
        pm = self._pm
        board = self._board
        while len(self._bodies) < n:
            i = len(self._bodies)
            body = pm.Body(board.disc_mass, self._moment)
            body.velocity_func = self._velocity_func(i)
            shape = pm.Circle(body, board.disc_radius)
            shape.elasticity = self._disc_elasticity
            shape.friction = 0.0
            self._bodies.append(body)
            self._shapes.append(shape)
            self._in_space.append(False)
            self._over_hole.append(0.0)

    def run(self, discs: FloatArray, launch: FloatArray) -> tuple[FloatArray, StatusArray]:
        """Simulate one shot: ``discs`` rest and a disc is launched from ``launch``.

        Args:
            discs: ``(N, 2)`` centres of the resting discs.
            launch: ``x, y, vx, vy`` of the shot disc, which gets index N.

        Returns:
            ``(positions, statuses)``: the ``(N+1, 2)`` final centres (where a
            disc left the surface, for discs in the hole or the ditch) and the
            ``(N+1,)`` status codes of :mod:`crokinole.physics.kernel`.
        """
        space = self._space
        bodies = self._bodies
        shapes = self._shapes
        in_space = self._in_space
        n = discs.shape[0] + 1
        self._grow(n)
        start = np.vstack([discs, launch[None, :2]])
        final = start.copy()
        status = np.full(n, int(DiscStatus.ON_BOARD), dtype=np.int8)
        for i in range(n, len(bodies)):
            if in_space[i]:
                space.remove(bodies[i], shapes[i])
                in_space[i] = False
        for i, (x, y) in enumerate(start.tolist()):
            body = bodies[i]
            # Setting position and velocity wakes a sleeping body.
            body.position = (x, y)
            body.velocity = (0.0, 0.0)
            body.angular_velocity = 0.0
            self._over_hole[i] = 0.0
            if not in_space[i]:
                space.add(body, shapes[i])
                in_space[i] = True
        bodies[n - 1].velocity = (float(launch[2]), float(launch[3]))

        moving = self._moving
        leaving = self._leaving
        leaving.clear()
        dt = self._dt
        for _ in range(self._steps):
            moving[0] = 0
            space.step(dt)
            if leaving:
                # pymunk forbids removing bodies during a step: do it now.
                for i, code, x, y in leaving:
                    status[i] = code
                    final[i] = (x, y)
                    space.remove(bodies[i], shapes[i])
                    in_space[i] = False
                leaving.clear()
            elif moving[0] == 0:
                break
        for i in range(n):
            if status[i] == DiscStatus.ON_BOARD:
                x, y = bodies[i].position
                final[i] = (x, y)
        return final, status

    def _velocity_func(self, index: int) -> Callable[[Any, Any, float, float], None]:
        """The per-step velocity callback of disc ``index``: friction, ditch and hole."""
        a = self._board.deceleration
        surface2 = self._board.surface_radius**2
        hole2 = self._board.hole_radius**2
        drop_time = self._board.hole_drop_time
        over_hole = self._over_hole
        moving = self._moving
        leaving = self._leaving
        hypot = math.hypot

        def update(body: Any, gravity: Any, damping: float, dt: float) -> None:
            vx, vy = body.velocity
            speed = hypot(vx, vy)
            if speed == 0.0:
                # At rest: not over the hole (it would have dropped) nor in the ditch.
                return
            left = speed - a * dt
            if left > 0.0:
                scale = left / speed
                body.velocity = (vx * scale, vy * scale)
            else:
                left = 0.0
                body.velocity = (0.0, 0.0)
            x, y = body.position
            d2 = x * x + y * y
            if d2 > surface2:
                leaving.append((index, DiscStatus.IN_DITCH, x, y))
                return
            if d2 < hole2:
                over_hole[index] += dt
                if over_hole[index] > drop_time or left == 0.0:
                    leaving.append((index, DiscStatus.IN_HOLE, x, y))
                    return
            else:
                over_hole[index] = 0.0
            if left > 0.0:
                moving[0] += 1

        return update
