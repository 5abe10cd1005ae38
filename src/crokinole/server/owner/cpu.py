"""The CPU players' thinking: off the event loop, on a bounded pool of their own.

A CPU decision is a search over simulated shots (tens to hundreds of
milliseconds).  It runs on :class:`CpuPool`'s own threads, not on the
default thread pool that the store's queries and the tables' shots use, so
sixty CPUs thinking at once queue behind each other and never behind (or in
front of) a database write or another game's shot.  The simulator's numba
kernels release the GIL, so the event loop keeps answering while they run.

Each decision gets its random source from a seed the caller passes (the
owner derives it from the table's seed and version), so a game against the
CPU is reproducible in tests.

The same threads run the hints and heat maps asked at a table during a
game (:meth:`CpuPool.run`): short searches for a player's turn.  The
analysis asked over HTTP (reviews, the practice room) runs on an
:class:`AnalysisPool` of its own, bounded in threads and in waiting
requests, so however many reviews are asked the CPU players keep their
threads.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import TypeVar

import numpy as np

from crokinole.ai import Level, make_player
from crokinole.board import Seat, Shot
from crokinole.errors import CrokinoleError
from crokinole.rules import Game, Rules

#: The seed of one decision: an int or a sequence of ints (numpy's ``SeedSequence`` entropy).
Seed = int | Sequence[int]

T = TypeVar("T")


def think(game: Game, level: Level | str, seed: Seed) -> Shot:
    """The shot the CPU of ``level`` plays for the seat to move in ``game`` (blocking).

    ``game`` is not changed (the player searches on a copy).

    >>> game = Game(Rules())
    >>> think(game, "easy", [7, 1]) == think(game, "easy", [7, 1])
    True
    """
    return make_player(level).choose_shot(game.copy(), np.random.default_rng(seed))


def warm_up() -> None:
    """Compile what a shot needs, then every level's search, before the first game (blocking).

    The kernels compile on first use; done at startup off the event loop.
    The shot comes first: it compiles only the simulator of one shot (about
    13 s of CPU on an empty cache, ``crokinole bench compile``), so a
    player's first shot waits at most for that, never for the CPU players'
    batch simulator and searches, which compile after it (seconds more).
    """
    game = Game(Rules())
    game.shoot(Seat.SOUTH, Shot(0.0, 4.0, 28.0))  # leaves a disc on the board
    for level in Level:
        think(game, level, 0)


class CpuPool:
    """A bounded pool of threads where the CPU players think.

    Args:
        workers: threads, i.e. CPU decisions computed at once; more wait
            their turn in the pool's queue.
    """

    def __init__(self, workers: int = 2) -> None:
        if workers < 1:
            raise ValueError(f"the CPU needs at least one worker thread, not {workers}")
        self.workers = workers
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crokinole-cpu")

    async def choose_shot(self, game: Game, level: Level | str, seed: Seed) -> Shot:
        """The CPU's shot for the seat to move, computed on the pool.

        ``game`` must not change while the CPU thinks (a table's game never
        does).  Cancelling the caller abandons the result; the thread
        finishes its search and the pool moves on.
        """
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, think, game, level, seed)

    async def run(self, job: Callable[[], T]) -> T:
        """``job()`` computed on the pool (an analysis: a hint, a heat map, a review).

        It queues with the CPU players' decisions.  Cancelling the caller
        abandons the result; the thread finishes the job.
        """
        return await asyncio.get_running_loop().run_in_executor(self._executor, job)

    async def warm_up(self) -> None:
        """Compile the kernels on the pool (see :func:`warm_up`)."""
        await asyncio.get_running_loop().run_in_executor(self._executor, warm_up)

    def close(self) -> None:
        """Stop the threads once their current decisions end; queued ones are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)


class AnalysisBusyError(CrokinoleError):
    """Every place of the analysis pool's queue is taken: try again in a moment."""


class AnalysisPool:
    """The threads of the analysis asked over HTTP, apart from the CPU players'.

    A request takes a place (:meth:`place`) for as long as it is computed:
    at most ``workers`` compute at once and ``queue`` more wait; the next is
    refused (:class:`AnalysisBusyError`) rather than queued without end.  A
    long job is split by its caller into short ones (a review: one per shot,
    each run after the last), so requests that share the threads take turns
    a shot at a time instead of one holding them for a whole review.

    Args:
        workers: threads (analyses computed at once).
        queue: requests that may wait for a thread besides those computing.
    """

    def __init__(self, workers: int = 1, queue: int = 8) -> None:
        if workers < 1:
            raise ValueError(f"the analysis needs at least one worker thread, not {workers}")
        if queue < 0:
            raise ValueError(f"the analysis queue holds zero or more requests, not {queue}")
        self.workers = workers
        self.queue = queue
        self._placed = 0
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="crokinole-analysis"
        )

    @property
    def placed(self) -> int:
        """Requests holding a place now (computing or waiting)."""
        return self._placed

    @asynccontextmanager
    async def place(self) -> AsyncIterator[None]:
        """Hold a place for one request while its jobs run.

        Raises:
            AnalysisBusyError: every place is taken.
        """
        if self._placed >= self.workers + self.queue:
            raise AnalysisBusyError("the analysis is busy: try again in a moment")
        self._placed += 1
        try:
            yield
        finally:
            self._placed -= 1

    async def run(self, job: Callable[[], T]) -> T:
        """``job()`` computed on the analysis threads (one short job: a shot, a hint)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, job)

    def close(self) -> None:
        """Stop the threads once their current jobs end; queued ones are dropped."""
        self._executor.shutdown(wait=False, cancel_futures=True)
