"""The protocol's envelope and its refusal, shared by the websocket side and the services behind it.

Every server message is ``{"type", "table", "event", ...}`` (:func:`message`),
and a message the server cannot accept is refused with a
:class:`WireError` carrying its protocol code (docs/protocol.md, *Errors*).
The websocket session (:mod:`crokinole.server.ws`) speaks them; the ranked
queue (:mod:`crokinole.server.ranked`) builds its ``queued`` messages and
refuses a ``queue`` with them, without importing the session that calls it.
"""

from __future__ import annotations

from typing import Any

from crokinole.errors import CrokinoleError, ErrorCode

__all__ = ["WireError", "message"]


class WireError(CrokinoleError):
    """A message that cannot be accepted; ``code`` is the protocol's error code.

    >>> WireError("busy", "one at a time").code
    <ErrorCode.BUSY: 'busy'>
    """

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message


def message(kind: str, table: str | None, event: int, /, **fields: Any) -> dict[str, Any]:
    """A server message: its type, its table (or None) and the table's version.

    >>> message("pong", None, 0, server_time=1.5)
    {'type': 'pong', 'table': None, 'event': 0, 'server_time': 1.5}
    """
    return {"type": kind, "table": table, "event": event, **fields}
