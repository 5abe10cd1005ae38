"""Events: tournaments and league nights, pure (DESIGN.md, ``crokinole.events``).

Formats, pairings, standings and tie-breaks with no server or database code.
An event is the fold of its log (:mod:`crokinole.events.event`), as a table
is: commands in, entries out, each with a version.  The modules:

- :mod:`~crokinole.events.model`: settings, entrants, pairings, results;
- :mod:`~crokinole.events.swiss`, :mod:`~crokinole.events.doubles`,
  :mod:`~crokinole.events.schedule`, :mod:`~crokinole.events.bracket`:
  pairing each format (maximum-weight matchings with networkx);
- :mod:`~crokinole.events.standings`: the standings and their tie-breaks;
- :mod:`~crokinole.events.event`: the event value, its commands and its log;
- :mod:`~crokinole.events.export`: CSV standings and CMN 1.0 JSON.

Errors: :class:`~crokinole.errors.EventError` with its code.
"""

from crokinole.errors import EventError
from crokinole.events import bracket, doubles, export, model, schedule, swiss
from crokinole.events.bracket import *  # noqa: F403
from crokinole.events.doubles import *  # noqa: F403
from crokinole.events.export import *  # noqa: F403
from crokinole.events.model import *  # noqa: F403
from crokinole.events.schedule import *  # noqa: F403

# Standings: every public name but the function ``standings``, which would hide
# the module of the same name (``from crokinole.events.standings import standings``).
from crokinole.events.standings import Standing, Tally, tallies
from crokinole.events.swiss import *  # noqa: F403

__all__ = ["EventError", "Standing", "Tally", "tallies"]
__all__ += model.__all__
__all__ += swiss.__all__
__all__ += doubles.__all__
__all__ += schedule.__all__
__all__ += bracket.__all__
__all__ += export.__all__
