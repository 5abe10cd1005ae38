"""What the HTTP routes read from a request: its body, its device token, its account, a position.

One reader of each, so that every route refuses the same fault in the same
words and with the same status (:class:`~crokinole.server.http.errors.HttpError`):

* :func:`raw_body` and :func:`json_body`: the body, at most a route's limit
  (413), JSON read by :func:`~crokinole.server.json_input.read_json` (400,
  never a 500), an object with only the fields the route knows;
* :func:`device_token`: the device token of the ``X-Device-Token`` header
  (a credential: it travels in a header, never in the URL, which lands in
  access logs and browser history);
* :func:`account_of`: the account of the session cookie;
* :func:`position`: the practice position of a request, its ``code`` or its
  ``position`` object;
* :func:`same_site`: a POST from another site is refused (403).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

import anyio.to_thread
from starlette.requests import Request

from crokinole.analysis.practice import PracticePosition, position_from_code, position_from_data
from crokinole.errors import ErrorCode
from crokinole.server.accounts import COOKIE, Account
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.limits import origin_allowed
from crokinole.server.ws.messages import TOKEN_PATTERN

__all__ = [
    "COOKIE",
    "account_of",
    "client_address",
    "device_token",
    "json_body",
    "position",
    "raw_body",
    "same_site",
    "unknown_fields",
]


def _size(limit: int) -> str:
    """``limit`` bytes in words: ``16 KiB`` for a whole number of KiB, else bytes.

    >>> _size(16 * 1024), _size(1000)
    ('16 KiB', '1000 bytes')
    """
    return f"{limit // 1024} KiB" if limit % 1024 == 0 else f"{limit} bytes"


async def raw_body(request: Request, limit: int, *, required: bool = False) -> bytes:
    """The request's body, at most ``limit`` bytes (413); ``required``: not empty (400)."""
    raw = await request.body()
    if len(raw) > limit:
        raise HttpError(ErrorCode.TOO_LARGE, f"the request is larger than {_size(limit)}")
    if required and not raw.strip():
        raise HttpError(ErrorCode.BAD_REQUEST, "the request has no body")
    return raw


def unknown_fields(data: dict[str, Any], known: Collection[str]) -> None:
    """Refuse ``data`` if it has a field but ``known`` (400)."""
    unknown = sorted(str(k) for k in set(data) - set(known))
    if unknown:
        raise HttpError(ErrorCode.BAD_REQUEST, f"unknown field(s): {', '.join(unknown)}")


async def json_body(
    request: Request,
    limit: int,
    fields: Collection[str] | None = None,
    *,
    json_only: bool = False,
    noun: str = "the request body",
) -> dict[str, Any]:
    """The JSON object of a request's body (an empty body is ``{}``).

    Args:
        request: the request.
        limit: the largest body read (413 beyond).
        fields: the fields it may have (None: any).
        json_only: refuse a body not sent as ``application/json`` (415): a
            page of another site cannot send JSON without the browser asking
            the server first.
        noun: how the refusal of a body that is not an object names it.

    Raises:
        HttpError: too large, not JSON, not readable, not an object, a field
            not in ``fields``.
    """
    if json_only:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise HttpError(
                ErrorCode.NOT_JSON, "send the request as JSON (Content-Type: application/json)"
            )
    raw = await raw_body(request, limit)
    try:
        data: Any = read_json(raw or b"{}")
    except JsonInputError as error:
        # Huge numbers, deep nesting and NaN are refused plainly, never a 500.
        reason = str(error).replace("the message", "it")
        raise HttpError(
            ErrorCode.BAD_REQUEST, f"the request body cannot be read: {reason}"
        ) from None
    if not isinstance(data, dict):
        raise HttpError(ErrorCode.BAD_REQUEST, f"{noun} is a JSON object")
    if fields is not None:
        unknown_fields(data, fields)
    return data


def device_token(
    request: Request, *, required: bool = True, refused: ErrorCode = ErrorCode.BAD_DEVICE
) -> str | None:
    """The device token of the ``X-Device-Token`` header.

    Args:
        request: the request.
        required: refuse a request without one (else None is its token).
        refused: the code of a refusal (``no_device``, 401, where the token
            is the owner's only credential, as for a score sheet).

    Raises:
        HttpError: no token (when ``required``), or one of the wrong shape.
    """
    token = request.headers.get("x-device-token")
    if token is None:
        if not required:
            return None
        raise HttpError(refused, "send the device token in the X-Device-Token header")
    if not re.fullmatch(TOKEN_PATTERN, token):
        raise HttpError(refused, "a device token is 16–64 letters, digits, '-' or '_'")
    return token


def the_device(request: Request, *, refused: ErrorCode = ErrorCode.BAD_DEVICE) -> str:
    """The device token of the ``X-Device-Token`` header, which the route requires."""
    token = device_token(request, refused=refused)
    assert token is not None  # required: refused if missing
    return token


async def account_of(request: Request) -> Account | None:
    """The account of the session cookie, or None (a guest, or a session that ended)."""
    accounts = context(request).accounts
    token = request.cookies.get(COOKIE)
    if accounts is None or not token:
        return None
    return await anyio.to_thread.run_sync(accounts.account_for_token, token)


async def account_id_of(request: Request) -> int | None:
    """The id of the account of the session cookie, or None."""
    account = await account_of(request)
    return None if account is None else account.id


def client_address(request: Request) -> str:
    """The client's address (``?`` when the server is not told)."""
    return request.client.host if request.client else "?"


def same_site(request: Request) -> None:
    """Refuse a request from another site (403): its origin is not the server's own."""
    allowed = context(request).settings.allowed_origins
    if not origin_allowed(request.headers.get("origin"), request.headers.get("host"), allowed):
        raise HttpError(ErrorCode.BAD_ORIGIN, "requests from another site are refused")


def position(data: dict[str, Any]) -> PracticePosition:
    """The practice position of a request: its ``code``, or its ``position`` object.

    Raises:
        HttpError: neither or both, a code that is not text (400).
        AnalysisError: a code or position that is not one (answered 400).
    """
    code, given = data.get("code"), data.get("position")
    if code is not None and given is not None:
        raise HttpError(ErrorCode.BAD_REQUEST, "send the position's code or the position, not both")
    if code is None and given is None:
        raise HttpError(ErrorCode.BAD_REQUEST, "send the position's code or the position")
    if code is not None:
        if not isinstance(code, str):
            raise HttpError(ErrorCode.BAD_REQUEST, "a position's code is text")
        return position_from_code(code)
    return position_from_data(given)
