"""The protocol's envelope and its refusal, shared by the websocket side and the services behind it.

Every server message is ``{"type", "table", "event", ...}`` (:func:`message`),
and a message the server cannot accept is refused with a
:class:`WireError` carrying its protocol code (docs/protocol.md, *Errors*).
The websocket session (:mod:`crokinole.server.ws`) speaks them; the ranked
queue (:mod:`crokinole.server.ranked`) builds its ``queued`` messages and
refuses a ``queue`` with them, without importing the session that calls it.
A message goes out as the text :func:`encode` makes of it.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from crokinole.errors import CrokinoleError, ErrorCode

__all__ = ["WireError", "encode", "message"]


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


def encode(payload: Any) -> str:
    """A message's text: compact JSON, its keys in the order given, UTF-8 left as it is.

    orjson makes it (about ten times faster than the standard library: the
    encoding was the largest share of a shot's cost on the server).  What
    orjson refuses, the standard library encodes, with the same separators
    and every non-ASCII character escaped: a string holding a lone surrogate
    (a client's text quoted in an error), a key that is not a string, a
    number that is not a built-in float or an int past 64 bits.  Either text
    parses to the same value.  No message carries NaN or an infinity, which
    JSON does not allow: orjson writes null, the standard library refuses it
    (``ValueError``).

    >>> encode({"type": "pong", "server_time": 1.5, "name": "Zoë"})
    '{"type":"pong","server_time":1.5,"name":"Zoë"}'
    >>> print(encode({"message": "no seat " + chr(0xD800), 1: 10**30}))
    {"message":"no seat \\ud800","1":1000000000000000000000000000000}
    """
    try:
        return orjson.dumps(payload).decode()
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(payload, separators=(",", ":"), allow_nan=False)
