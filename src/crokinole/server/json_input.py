"""Reading JSON from clients: every input a client can send is answered plainly.

``json.loads`` accepts documents that later break the server in ways a
client should never be able to cause: numbers of thousands of digits
(``int`` refuses more than 4,300 digits with a ``ValueError`` that is not a
``JSONDecodeError``), nesting deep enough to exhaust the recursion limit
(``RecursionError``), and the non-standard constants ``NaN`` and
``Infinity``.  :func:`read_json` turns each of these into a
:class:`JsonInputError` whose message a person understands, so the websocket
answers ``bad_json`` / ``bad_message`` and the HTTP routes answer 400,
never a 500 with a traceback.
"""

from __future__ import annotations

import json
from typing import Any

from crokinole.errors import CrokinoleError

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a client message may use."""

MAX_NUMBER_CHARS = 40
"""Longest number literal accepted (a float64 needs at most 24 characters)."""


class JsonInputError(CrokinoleError, ValueError):
    """A client's JSON that cannot be read; the message says why in plain words.

    Attributes:
        kind: ``"syntax"`` for text that is not JSON at all, ``"content"`` for
            JSON that is well formed but outside what the server accepts
            (huge numbers, deep nesting, NaN/Infinity).
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _check_length(text: str) -> None:
    if len(text) > MAX_NUMBER_CHARS:
        limit = MAX_NUMBER_CHARS
        message = f"a number of {len(text)} characters is too long (at most {limit})"
        raise JsonInputError("content", message)


def _float(text: str) -> float:
    _check_length(text)
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise JsonInputError("content", f"the number {text} is too large")
    return value


def _int(text: str) -> int:
    _check_length(text)
    return int(text)


def _constant(name: str) -> Any:
    raise JsonInputError("content", f"{name} is not a number JSON allows")


#: The decoder of every client document, made once: ``json.loads`` with hooks
#: makes a new one at every call, which cost more than reading a shot.
_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def read_json(raw: str | bytes) -> Any:
    """Parse a client's JSON document, refusing what the server cannot take.

    Args:
        raw: the text or UTF-8 bytes as received.

    Returns:
        The parsed value (dicts, lists, str, int, float, bool, None).

    Raises:
        JsonInputError: not JSON (``kind == "syntax"``), or a number too
            long or not finite, or nesting deeper than :data:`MAX_DEPTH`
            (``kind == "content"``).

    >>> read_json('{"power": 55.5, "seat": "south"}')
    {'power': 55.5, 'seat': 'south'}
    >>> read_json("[" * 2000 + "]" * 2000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.server.json_input.JsonInputError: the message is nested too deeply (more ...
    >>> read_json('{"power": ' + "9" * 5000 + "}")
    Traceback (most recent call last):
    ...
    crokinole.server.json_input.JsonInputError: a number of 5000 characters is too long (at most 40)
    >>> read_json("{oops")
    Traceback (most recent call last):
    ...
    crokinole.server.json_input.JsonInputError: the message is not valid JSON
    """
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes | bytearray) else raw
    except UnicodeDecodeError:
        raise JsonInputError("syntax", "the message is not valid UTF-8 text") from None
    # Deep nesting must never reach the recursive C scanner.  The count of
    # opening brackets bounds the depth, so the character-by-character scan
    # runs only for the rare message that could be too deep.
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _check_depth(text)
    try:
        return _DECODER.decode(text)
    except JsonInputError:
        raise
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        raise JsonInputError("syntax", "the message is not valid JSON") from None


def _check_depth(text: str) -> None:
    """Refuse ``text`` if its arrays and objects nest deeper than :data:`MAX_DEPTH`."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JsonInputError(
                    "content", f"the message is nested too deeply (more than {MAX_DEPTH} levels)"
                )
        elif char in "]}":
            depth -= 1
