"""A player's own accuracy ("mine"): fitted to their open-20 drill results on the CPU pool.

The heat map over the websocket and the practice room's routes both value
shots under it; the fit is kept (a pure function of two counts), the
results are read off the event loop.
"""

from __future__ import annotations

import functools

import anyio.to_thread

from crokinole.analysis import Accuracy, fit_accuracy
from crokinole.server.owner.tables import Tables
from crokinole.store import Store

__all__ = ["NO_ACCURACY", "fitted_accuracy", "own_accuracy"]

#: What a player who asks for their own accuracy without drill results is told.
NO_ACCURACY = "play the open-20 drill first: your accuracy is fitted from your open-20 results"


@functools.lru_cache(maxsize=256)
def fitted_accuracy(made: int, attempts: int) -> Accuracy:
    """The accuracy ("mine") fitted to ``made`` open 20s of ``attempts`` (blocking; kept).

    Raises:
        AnalysisError: a rate that cannot be fitted (under 2%), in plain words.
    """
    return fit_accuracy(made / attempts)


async def own_accuracy(
    store: Store, tables: Tables, device: str | None, account_id: int | None
) -> Accuracy | None:
    """The accuracy fitted to the open-20 drill results of ``device`` (or the account).

    None when there are none.  The results are read off the event loop and
    the fit is computed on the CPU pool.

    Raises:
        AnalysisError: results whose rate cannot be fitted (in plain words).
    """
    if device is None and account_id is None:
        return None
    record = await anyio.to_thread.run_sync(store.open_twenty_record, device or "", account_id)
    if record is None:
        return None
    made, attempts = record
    if attempts <= 0:
        return None
    return await tables.cpu.run(functools.partial(fitted_accuracy, int(made), int(attempts)))
