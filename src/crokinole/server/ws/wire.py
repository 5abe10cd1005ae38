"""The old name of the protocol's two halves, kept while callers move to them.

:mod:`crokinole.server.ws.messages` holds the client's messages (inbound) and
:mod:`crokinole.server.ws.views` each viewer's messages (outbound); this module
only re-exports them, for the callers outside ``ws/`` that still import
``crokinole.server.ws.wire`` (import from the two modules instead).
"""

from __future__ import annotations

from crokinole.server.ws.messages import *  # noqa: F403
from crokinole.server.ws.views import *  # noqa: F403
