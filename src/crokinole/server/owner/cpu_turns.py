"""The CPU players' moves at the tables this process holds.

When a CPU (or a stand-in for a player who left) is to move, the table's
CPU task asks the pool (:class:`~crokinole.server.owner.cpu.CpuPool`) for a
shot, on its own stream of the table's seed, and submits it with the
version it thought about: if the table moved meanwhile it thinks again.  A
move that failed (the store was down) is tried again after
:data:`~crokinole.server.owner.base.RETRY_S`.
"""

from __future__ import annotations

import asyncio
import logging

from crokinole.ai import Level
from crokinole.errors import ErrorCode
from crokinole.server.owner.base import RETRY_S, Held, OwnerBase
from crokinole.table import Shoot, TableError

log = logging.getLogger("crokinole.server")

#: Tag of the CPU's random streams, apart from the table's others.
CPU_STREAM = 1


class CpuTurns(OwnerBase):
    """The part of :class:`~crokinole.server.owner.tables.Tables` that moves the CPUs."""

    def _schedule_cpu(self, held: Held) -> None:
        """Start the CPU's turns if a CPU (or a stand-in) is to move and not already thinking."""
        if held.cpu_task is not None and not held.cpu_task.done():
            return
        if held.cpu_retry is not None or held.table.cpu_turn() is None:
            return
        held.cpu_task = self._spawn(self._cpu_turns(held))

    async def _cpu_turns(self, held: Held) -> None:
        table_id = held.table.id
        try:
            while self._holds(held):
                table = held.table
                turn = table.cpu_turn()
                if turn is None or table.game is None:
                    return
                seat, level = turn
                # Its own stream of the table's seed (the human hand draws from
                # [seed, version]): the same table and version, the same decision.
                seed = [table.seed, table.version, CPU_STREAM]
                shot = await self.cpu.choose_shot(table.game, Level(level), seed)
                if held.table.version != table.version:
                    continue  # the table moved while the CPU thought: think again
                command = Shoot(None, seat, shot, cpu=True, expected_version=table.version)
                try:
                    await self.command(table_id, command)
                except TableError as exc:
                    if exc.code != ErrorCode.STALE:
                        log.info("the CPU of table %s stops: %s", table_id, exc.message)
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the CPU of table %s failed; trying again", table_id)
            if self._holds(held):
                held.cpu_retry = asyncio.get_running_loop().call_later(
                    RETRY_S, self._retry_cpu, held
                )

    def _retry_cpu(self, held: Held) -> None:
        held.cpu_retry = None
        self._after(held)

    def _stop_cpu(self, held: Held) -> None:
        if held.cpu_retry is not None:
            held.cpu_retry.cancel()
            held.cpu_retry = None
        task = held.cpu_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def _cpu_idle(self, held: Held) -> bool:
        """No CPU thinks or waits to try again, and none is to move."""
        task = held.cpu_task
        return (
            held.cpu_retry is None
            and (task is None or task.done())
            and held.table.cpu_turn() is None
        )
