"""A table: seats, people, clocks and a game, as a pure value (DESIGN.md "Server").

Commands go in (:mod:`crokinole.table.commands`), domain events come out
(:mod:`crokinole.table.events`), each with a version; the table is the fold of
its events.  No sockets, database, clock or global randomness: time is the
``now`` argument and randomness the table's seed.  See :class:`Table`.

Error codes (:class:`~crokinole.errors.TableError` ``.code``, an
:class:`~crokinole.errors.ErrorCode`): :data:`ERROR_CODES`.

The package's face: every public name of its modules is importable from
here.  :mod:`~crokinole.table.table` holds the value and its queries,
:mod:`~crokinole.table.evolve` the fold of events,
:mod:`~crokinole.table.snapshot` the stored form, and the command handlers
are by kind: :mod:`~crokinole.table.lobby`, :mod:`~crokinole.table.play`,
:mod:`~crokinole.table.presence`, :mod:`~crokinole.table.hints`,
:mod:`~crokinole.table.ranked` (sharing :mod:`~crokinole.table.draft` and
:mod:`~crokinole.table.flow`).
"""

# The modules' own ``__all__`` lists are the one list of each name: the
# package re-exports them whole rather than naming every name again.
from crokinole.errors import ErrorCode, TableError
from crokinole.table import commands, event_link, events, members, settings, state, table
from crokinole.table.commands import *  # noqa: F403
from crokinole.table.event_link import *  # noqa: F403
from crokinole.table.events import *  # noqa: F403
from crokinole.table.members import *  # noqa: F403
from crokinole.table.settings import *  # noqa: F403
from crokinole.table.state import *  # noqa: F403
from crokinole.table.table import *  # noqa: F403

#: Every error code a table may raise.
ERROR_CODES: tuple[ErrorCode, ...] = (
    ErrorCode.NOT_A_MEMBER,
    ErrorCode.NOT_HOST,
    ErrorCode.PARTY_FULL,
    ErrorCode.SEAT_TAKEN,
    ErrorCode.NOT_A_SEAT,
    ErrorCode.SEATS_EMPTY,
    ErrorCode.IN_GAME,
    ErrorCode.NOT_YOUR_SEAT,
    ErrorCode.NOT_YOUR_TURN,
    ErrorCode.ILLEGAL_PLACEMENT,
    ErrorCode.ILLEGAL_SHOT,
    ErrorCode.ILLEGAL_ACTION,
    ErrorCode.GAME_OVER,
    ErrorCode.BAD_SETTINGS,
    ErrorCode.BAD_NAME,
    ErrorCode.STALE,
    ErrorCode.UNKNOWN_REACTION,
    ErrorCode.TOO_MANY_REACTIONS,
    ErrorCode.SPECTATOR,
    ErrorCode.CLOSED,
    ErrorCode.SOLO_TABLE,
    ErrorCode.RANKED_TABLE,
    ErrorCode.NO_HINTS,
)

__all__ = ["ERROR_CODES", "TableError"]
__all__ += commands.__all__
__all__ += event_link.__all__
__all__ += events.__all__
__all__ += members.__all__
__all__ += settings.__all__
__all__ += state.__all__
__all__ += table.__all__
