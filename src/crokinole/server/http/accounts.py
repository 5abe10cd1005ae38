"""The accounts' HTTP API (docs/protocol.md, "Accounts (HTTP)").

| method | route | body | answer |
|---|---|---|---|
| POST | /api/account/signup | username, password | 201 {username} + session cookie |
| POST | /api/account/login | username, password | 200 {username} + a new session cookie |
| POST | /api/account/logout | {} | 200 {}; the session ends, the cookie is cleared |
| POST | /api/account/password | old_password, new_password | 200 {username}; other sessions end |
| GET | /api/account | | 200 {username, created_at}; a guest (no cookie) 200 {username: null}; |
| | | | a cookie that logs no one in: 401 (and the cookie is cleared) |
| POST | /api/account/attach | {} + X-Device-Token | 200 {attached: n games} |

Every POST must be JSON (``Content-Type: application/json``, else 415) from
the server's own origin (else 403): a page of another site can neither send
JSON without the browser asking first, nor pass the origin check, so it
cannot log anyone in or out.  Errors are ``{"error": "plain words", "code":
"..."}``; nothing changes.  Every answer carries ``Cache-Control: no-store``.

A login (and a sign up) also sets a device cookie (:data:`DEVICE_COOKIE`,
HttpOnly, a year): a random token whose SHA-256 the store keeps for the
account, so that this browser is exempt from the per-account limit on failed
logins.  When a session ends (log out, a new login over it, a new password
ending the others) every websocket that it logged in is closed, in every
process (``on_ended``).
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from crokinole.errors import CrokinoleError
from crokinole.server.accounts import (
    DEVICE_DAYS,
    MAX_PASSWORD,
    SESSION_DAYS,
    Account,
    AccountError,
    Accounts,
    token_hash,
)
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.limits import RateLimiter, ServerSettings, origin_allowed
from crokinole.server.ws.messages import TOKEN_PATTERN

COOKIE = "crokinole_session"
#: The browser's device cookie: it has logged in to the accounts the store links it to.
DEVICE_COOKIE = "crokinole_device"
DEVICE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,128}$")
MAX_BODY = 4096
MAX_USERNAME = 64  # longer is refused as bad input before any rule is checked
#: Argon2 hashes computed at once (each takes 64 MiB and tens of milliseconds):
#: a burst of logins waits its turn instead of taking the server's memory.
HASHING_AT_ONCE = 2

#: The HTTP status of each refusal of the service.
STATUS = {
    "bad_username": 400,
    "bad_password": 400,
    "taken": 409,
    "wrong_login": 401,
    "wrong_password": 403,
    "not_logged_in": 401,
    "too_many_attempts": 429,
    "device_claimed": 409,
}


class BadRequestError(CrokinoleError, ValueError):
    """A request refused before the service sees it (not JSON, a missing field ...)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    return JSONResponse({"error": message, "code": code}, status_code=status, headers=headers)


async def _body(request: Request, fields: tuple[str, ...]) -> dict[str, str]:
    """The JSON object of a POST with exactly ``fields``, all strings (else a BadRequestError)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise BadRequestError(
            415, "not_json", "send the request as JSON (Content-Type: application/json)"
        )
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise BadRequestError(413, "too_large", f"the request is larger than {MAX_BODY} bytes")
    try:
        data: Any = read_json(raw or b"{}")
    except JsonInputError as error:
        reason = str(error).replace("the message", "it")
        raise BadRequestError(
            400, "bad_request", f"the request body cannot be read: {reason}"
        ) from None
    if not isinstance(data, dict):
        raise BadRequestError(400, "bad_request", "the request body is a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise BadRequestError(400, "bad_request", f"unknown field(s): {', '.join(unknown)}")
    for name in fields:
        value = data.get(name)
        if value is None:
            raise BadRequestError(400, "bad_request", f"{name} is missing")
        if not isinstance(value, str):
            raise BadRequestError(400, "bad_request", f"{name} is text")
        limit = MAX_USERNAME if name == "username" else MAX_PASSWORD
        if len(value) > limit:
            raise BadRequestError(400, "bad_request", f"{name} is at most {limit} characters")
    return {name: data[name] for name in fields}


def _set_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=SESSION_DAYS * 24 * 3600,
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


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


#: Told the token hashes of sessions that ended (to close the sockets they logged in).
Ended = Callable[[list[str]], Awaitable[None]]


def routes(
    accounts: Accounts, settings: ServerSettings, *, on_ended: Ended | None = None
) -> list[Route]:
    """The accounts' routes on the service ``accounts``; ``on_ended`` is told of ended sessions."""
    hashing = anyio.CapacityLimiter(HASHING_AT_ONCE)
    signups = RateLimiter(settings.signups_per_hour, 3600.0)

    async def ended(hashes: list[str]) -> None:
        if on_ended is not None and hashes:
            await on_ended(hashes)

    async def remember(response: Response, request: Request, account: Account) -> None:
        """Make this browser known to the account (its device cookie, made if it has none)."""
        device = _device(request) or secrets.token_urlsafe(32)
        await anyio.to_thread.run_sync(accounts.remember_device, account, device)
        response.set_cookie(
            DEVICE_COOKIE,
            device,
            max_age=DEVICE_DAYS * 24 * 3600,
            path="/",
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )

    def guarded(
        handler: Callable[[Request], Awaitable[Response]], *, post: bool = True
    ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            if post:
                origin = request.headers.get("origin")
                host = request.headers.get("host")
                if not origin_allowed(origin, host, settings.allowed_origins):
                    return _error(403, "bad_origin", "requests from another site are refused")
            try:
                response = await handler(request)
            except BadRequestError as refused:
                response = _error(refused.status, refused.code, refused.message)
            except AccountError as error:
                headers = None
                if error.retry_after is not None:
                    headers = {"Retry-After": str(error.retry_after)}
                response = _error(STATUS.get(error.code, 400), error.code, error.message, headers)
            return response

        async def checked(request: Request) -> Response:
            response = await run(request)
            # Who is logged in, and the cookies, are kept by no cache.
            response.headers["Cache-Control"] = "no-store"
            return response

        return checked

    async def signup(request: Request) -> Response:
        body = await _body(request, ("username", "password"))
        address, at = _address(request), time.monotonic()
        # Accounts made are counted: a refused sign up (a name taken, a short
        # password) gives its place back.
        if not signups.allow(address, at):
            raise BadRequestError(
                429, "too_many_signups", "too many new accounts from this address: try later"
            )
        try:
            account, token = await anyio.to_thread.run_sync(
                accounts.sign_up, body["username"], body["password"], limiter=hashing
            )
        except AccountError:
            signups.refund(address, at)
            raise
        old = request.cookies.get(COOKIE)
        if old is not None:
            logged_out: bool = await anyio.to_thread.run_sync(accounts.log_out, old)
            if logged_out:
                await ended([token_hash(old)])
        response = JSONResponse({"username": account.username}, status_code=201)
        _set_cookie(response, request, token)
        await remember(response, request, account)
        return response

    async def login(request: Request) -> Response:
        body = await _body(request, ("username", "password"))
        old = request.cookies.get(COOKIE)

        def log_in() -> tuple[Account, str]:
            return accounts.log_in(
                body["username"],
                body["password"],
                address=_address(request),
                old_token=old,
                device=_device(request),
            )

        account, token = await anyio.to_thread.run_sync(log_in, limiter=hashing)
        if old:
            await ended([token_hash(old)])
        response = JSONResponse({"username": account.username})
        _set_cookie(response, request, token)
        await remember(response, request, account)
        return response

    async def logout(request: Request) -> Response:
        await _body(request, ())
        old = request.cookies.get(COOKIE)
        if await anyio.to_thread.run_sync(accounts.log_out, old) and old:
            await ended([token_hash(old)])
        response = JSONResponse({})
        _clear_cookie(response, request)
        return response

    async def password(request: Request) -> Response:
        body = await _body(request, ("old_password", "new_password"))

        def change() -> tuple[Account, list[str]]:
            return accounts.change_password(
                request.cookies.get(COOKIE),
                body["old_password"],
                body["new_password"],
                address=_address(request),
                device=_device(request),
            )

        account, gone = await anyio.to_thread.run_sync(change, limiter=hashing)
        await ended(gone)
        return JSONResponse({"username": account.username})

    async def me(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if not token:
            # A guest asked who they are: an answer, not an error (a browser
            # logs every 4xx in its console, and guests load the start page).
            return JSONResponse({"username": None})
        account = await anyio.to_thread.run_sync(accounts.account_for_token, token)
        if account is None:  # a cookie that logs no one in (ended, expired, made up)
            response = _error(401, "not_logged_in", "not logged in")
            _clear_cookie(response, request)
            return response
        return JSONResponse(
            {"username": account.username, "created_at": account.created_at.isoformat() + "Z"}
        )

    async def attach(request: Request) -> Response:
        await _body(request, ())
        device = request.headers.get("x-device-token", "")
        if not re.fullmatch(TOKEN_PATTERN, device):
            raise BadRequestError(
                400, "bad_device", "send the device token (16–64 letters, digits, '-' or '_') "
                "in the X-Device-Token header",
            )  # fmt: skip
        count = await anyio.to_thread.run_sync(
            accounts.attach_device, request.cookies.get(COOKIE), device
        )
        return JSONResponse({"attached": count})

    return [
        Route("/api/account", guarded(me, post=False), methods=["GET"]),
        Route("/api/account/signup", guarded(signup), methods=["POST"]),
        Route("/api/account/login", guarded(login), methods=["POST"]),
        Route("/api/account/logout", guarded(logout), methods=["POST"]),
        Route("/api/account/password", guarded(password), methods=["POST"]),
        Route("/api/account/attach", guarded(attach), methods=["POST"]),
    ]
