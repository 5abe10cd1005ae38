"""The accounts' HTTP API (docs/protocol.md, "Accounts (HTTP)").

| method | route | body | answer |
|---|---|---|---|
| POST | /api/account/signup | username, password | 201 {username} + session cookie |
| POST | /api/account/login | username, password | 200 {username} + a new session cookie |
| POST | /api/account/logout | {} | 200 {}; the session ends, the cookie is cleared |
| POST | /api/account/password | old_password, new_password | 200 {username}; other sessions end |
| GET | /api/account | | 200 {username, created_at, bot}; a guest 200 {username: null}; |
| | | | a cookie that logs no one in: 401 (and the cookie is cleared) |
| POST | /api/account/attach | {} + X-Device-Token | 200 {attached: n games} |

Every POST must be JSON (``Content-Type: application/json``, else 415) from
the server's own origin (else 403): a page of another site can neither send
JSON without the browser asking first, nor pass the origin check, so it
cannot log anyone in or out.  Errors are ``{"code": "...", "message":
"plain words"}`` (:mod:`crokinole.server.http.errors`); nothing changes.
Every answer carries ``Cache-Control: no-store``.

A login (and a sign up) also sets a device cookie (:data:`DEVICE_COOKIE`,
HttpOnly, a year): a random token whose SHA-256 the store keeps for the
account, so that this browser is exempt from the per-account limit on failed
logins.  When a session ends (log out, a new login over it, a new password
ending the others) every websocket that it logged in is closed, in every
process (the context's ``on_ended``).
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from crokinole.errors import ErrorCode
from crokinole.server.accounts import (
    DEVICE_DAYS,
    MAX_PASSWORD,
    SESSION_DAYS,
    Account,
    AccountError,
    Accounts,
    token_hash,
)
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError, error_response
from crokinole.server.http.inputs import (
    COOKIE,
    client_address,
    json_body,
    same_site,
    the_device,
)

__all__ = ["COOKIE", "DEVICE_COOKIE", "MAX_BODY", "routes"]

#: The browser's device cookie: it has logged in to the accounts the store links it to.
DEVICE_COOKIE = "crokinole_device"
DEVICE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
MAX_BODY = 4096
MAX_USERNAME = 64  # longer is refused as bad input before any rule is checked


def _service(request: Request) -> Accounts:
    accounts = context(request).accounts
    assert accounts is not None, "the accounts' routes need HttpContext(accounts=...)"
    return accounts


async def _body(request: Request, fields: tuple[str, ...]) -> dict[str, str]:
    """The JSON object of a same-site POST with exactly ``fields``, all strings."""
    same_site(request)
    data: dict[str, Any] = await json_body(request, MAX_BODY, fields, json_only=True)
    for name in fields:
        value = data.get(name)
        if value is None:
            raise HttpError(ErrorCode.BAD_REQUEST, f"{name} is missing")
        if not isinstance(value, str):
            raise HttpError(ErrorCode.BAD_REQUEST, f"{name} is text")
        limit = MAX_USERNAME if name == "username" else MAX_PASSWORD
        if len(value) > limit:
            raise HttpError(ErrorCode.BAD_REQUEST, f"{name} is at most {limit} characters")
    return {name: data[name] for name in fields}


def _private(response: Response) -> Response:
    # Who is logged in, and the cookies, are kept by no cache.
    response.headers["Cache-Control"] = "no-store"
    return response


def _set_cookie(response: Response, request: Request, name: str, value: str, days: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=days * 24 * 3600,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _clear_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )


def _device(request: Request) -> str | None:
    """The device cookie's token, if the request has one of the right shape."""
    device = request.cookies.get(DEVICE_COOKIE)
    return device if device and DEVICE_PATTERN.fullmatch(device) else None


async def _ended(request: Request, hashes: list[str]) -> None:
    on_ended = context(request).on_ended
    if on_ended is not None and hashes:
        await on_ended(hashes)


async def _logged_in(response: Response, request: Request, account: Account, token: str) -> None:
    """Set the session cookie, and make this browser known to the account (its device cookie)."""
    _set_cookie(response, request, COOKIE, token, SESSION_DAYS)
    device = _device(request) or secrets.token_urlsafe(32)
    await anyio.to_thread.run_sync(_service(request).remember_device, account, device)
    _set_cookie(response, request, DEVICE_COOKIE, device, DEVICE_DAYS)


async def signup(request: Request) -> Response:
    """``POST /api/account/signup``: a new account, logged in."""
    body = await _body(request, ("username", "password"))
    http, accounts = context(request), _service(request)
    # Accounts made are counted (for the whole site with Redis): a refused sign
    # up (a name taken, a short password) gives its place back.
    counted = await http.signups.take(client_address(request))
    if counted is None:
        raise HttpError(
            ErrorCode.TOO_MANY_SIGNUPS, "too many new accounts from this address: try later"
        )
    try:
        account, token = await anyio.to_thread.run_sync(
            accounts.sign_up, body["username"], body["password"], limiter=http.hashing
        )
    except AccountError:
        await http.signups.give_back(counted)
        raise
    old = request.cookies.get(COOKIE)
    if old is not None:
        logged_out: bool = await anyio.to_thread.run_sync(accounts.log_out, old)
        if logged_out:
            await _ended(request, [token_hash(old)])
    response = JSONResponse({"username": account.username}, status_code=201)
    await _logged_in(response, request, account, token)
    return _private(response)


async def login(request: Request) -> Response:
    """``POST /api/account/login``: a new session (the old one of this browser ends)."""
    body = await _body(request, ("username", "password"))
    old = request.cookies.get(COOKIE)
    accounts = _service(request)

    def log_in() -> tuple[Account, str]:
        return accounts.log_in(
            body["username"],
            body["password"],
            address=client_address(request),
            old_token=old,
            device=_device(request),
        )

    account, token = await anyio.to_thread.run_sync(log_in, limiter=context(request).hashing)
    if old:
        await _ended(request, [token_hash(old)])
    response = JSONResponse({"username": account.username})
    await _logged_in(response, request, account, token)
    return _private(response)


async def logout(request: Request) -> Response:
    """``POST /api/account/logout``: the session ends, its cookie is cleared."""
    await _body(request, ())
    old = request.cookies.get(COOKIE)
    if await anyio.to_thread.run_sync(_service(request).log_out, old) and old:
        await _ended(request, [token_hash(old)])
    response = JSONResponse({})
    _clear_cookie(response, request)
    return _private(response)


async def password(request: Request) -> Response:
    """``POST /api/account/password``: a new password; the account's other sessions end."""
    body = await _body(request, ("old_password", "new_password"))
    accounts = _service(request)

    def change() -> tuple[Account, list[str]]:
        return accounts.change_password(
            request.cookies.get(COOKIE),
            body["old_password"],
            body["new_password"],
            address=client_address(request),
            device=_device(request),
        )

    account, gone = await anyio.to_thread.run_sync(change, limiter=context(request).hashing)
    await _ended(request, gone)
    return _private(JSONResponse({"username": account.username}))


async def me(request: Request) -> Response:
    """``GET /api/account``: who the session cookie logs in (a guest: nobody)."""
    token = request.cookies.get(COOKIE)
    if not token:
        # A guest asked who they are: an answer, not an error (a browser
        # logs every 4xx in its console, and guests load the start page).
        return _private(JSONResponse({"username": None}))
    account = await anyio.to_thread.run_sync(_service(request).account_for_token, token)
    if account is None:  # a cookie that logs no one in (ended, expired, made up)
        response = error_response(HttpError(ErrorCode.NOT_LOGGED_IN, "not logged in"))
        _clear_cookie(response, request)
        return response
    return _private(
        JSONResponse(
            {
                "username": account.username,
                "created_at": account.created_at.isoformat() + "Z",
                "bot": account.bot,
            }
        )
    )


async def attach(request: Request) -> Response:
    """``POST /api/account/attach``: the device's games (X-Device-Token) become the account's."""
    await _body(request, ())
    device = the_device(request)
    count = await anyio.to_thread.run_sync(
        _service(request).attach_device, request.cookies.get(COOKIE), device
    )
    return _private(JSONResponse({"attached": count}))


routes = [
    Route("/api/account", me, methods=["GET"]),
    Route("/api/account/signup", signup, methods=["POST"]),
    Route("/api/account/login", login, methods=["POST"]),
    Route("/api/account/logout", logout, methods=["POST"]),
    Route("/api/account/password", password, methods=["POST"]),
    Route("/api/account/attach", attach, methods=["POST"]),
]
