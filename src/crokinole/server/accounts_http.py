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
"..."}``; nothing changes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from crokinole.errors import CrokinoleError
from crokinole.server.accounts import MAX_PASSWORD, SESSION_DAYS, AccountError, Accounts
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.limits import RateLimiter, ServerSettings, origin_allowed
from crokinole.server.wire import TOKEN_PATTERN

COOKIE = "crokinole_session"
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


def routes(accounts: Accounts, settings: ServerSettings) -> list[Route]:
    """The accounts' routes on the service ``accounts``."""
    hashing = anyio.CapacityLimiter(HASHING_AT_ONCE)
    signups = RateLimiter(settings.signups_per_hour, 3600.0)

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
                return await handler(request)
            except BadRequestError as refused:
                return _error(refused.status, refused.code, refused.message)
            except AccountError as error:
                headers = None
                if error.retry_after is not None:
                    headers = {"Retry-After": str(error.retry_after)}
                return _error(STATUS.get(error.code, 400), error.code, error.message, headers)

        return run

    async def signup(request: Request) -> Response:
        body = await _body(request, ("username", "password"))
        address = request.client.host if request.client else "?"
        if not signups.allow(address, time.monotonic()):
            raise BadRequestError(
                429, "too_many_signups", "too many new accounts from this address: try later"
            )
        account, token = await anyio.to_thread.run_sync(
            accounts.sign_up, body["username"], body["password"], limiter=hashing
        )
        old = request.cookies.get(COOKIE)
        if old:
            await anyio.to_thread.run_sync(accounts.log_out, old)
        response = JSONResponse({"username": account.username}, status_code=201)
        _set_cookie(response, request, token)
        return response

    async def login(request: Request) -> Response:
        body = await _body(request, ("username", "password"))
        address = request.client.host if request.client else "?"

        def log_in() -> tuple[Any, str]:
            return accounts.log_in(
                body["username"],
                body["password"],
                address=address,
                old_token=request.cookies.get(COOKIE),
            )

        account, token = await anyio.to_thread.run_sync(log_in, limiter=hashing)
        response = JSONResponse({"username": account.username})
        _set_cookie(response, request, token)
        return response

    async def logout(request: Request) -> Response:
        await _body(request, ())
        await anyio.to_thread.run_sync(accounts.log_out, request.cookies.get(COOKIE))
        response = JSONResponse({})
        _clear_cookie(response, request)
        return response

    async def password(request: Request) -> Response:
        body = await _body(request, ("old_password", "new_password"))
        account = await anyio.to_thread.run_sync(
            accounts.change_password,
            request.cookies.get(COOKIE),
            body["old_password"],
            body["new_password"],
            limiter=hashing,
        )
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
