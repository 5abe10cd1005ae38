"""Bot accounts' HTTP API (docs/bots.md).

| method | route | body | answer |
|---|---|---|---|
| POST | /api/account/bot | password | 200 the account view with ``"bot": true`` |
| POST | /api/account/tokens | name, scopes | 201 the token, its text (``token``) this once |
| GET | /api/account/tokens | | 200 {tokens: [...]} (never their text) |
| DELETE | /api/account/tokens/{id} | | 200 {revoked: id}; its sockets close everywhere |
| GET | /api/bots | | 200 {bots: [{username, online, rating, games}]} |

The account routes' rules hold: a POST or DELETE must come from the
server's own origin (403 ``bad_origin``), a POST is JSON (415), errors are
``{"code", "message"}`` and nothing changes; answers about the account carry
``Cache-Control: no-store``.  The password typed again counts as a login
attempt under the login limits (429 ``too_many_attempts``); a wrong one is
403 ``bad_password``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.errors import ErrorCode
from crokinole.ranking import INITIAL, display
from crokinole.server.accounts import COOKIE, MAX_PASSWORD, Account, AccountError
from crokinole.server.bots import Bots, token_payload
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import client_address, json_body, same_site

__all__ = ["account_view", "routes"]

MAX_BODY = 4096
#: A token's name: 1–40 characters of plain text (no control characters).
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,40}$")


class _Password(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD)]


class _NewToken(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: Annotated[str, Field(min_length=1, max_length=40, pattern=_NAME.pattern)]
    scopes: Annotated[
        list[Literal["play", "challenge", "ladder"]], Field(min_length=1, max_length=3)
    ]


_M = TypeVar("_M", bound=BaseModel)


def _parsed(model: type[_M], data: dict[str, Any]) -> _M:
    """``data`` as ``model``, or a 400 naming the first field at fault."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the body"
        reason = first["msg"]
        if first["type"] == "missing":
            reason = "is missing"
        raise HttpError(ErrorCode.BAD_REQUEST, f"{where}: {reason}") from None


def _service(request: Request) -> Bots:
    bots = context(request).bots
    assert bots is not None, "the bots' routes need HttpContext(bots=...)"
    return bots


def _private(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


def account_view(account: Account) -> dict[str, Any]:
    """``GET /api/account``'s answer for a logged-in account."""
    return {
        "username": account.username,
        "created_at": account.created_at.isoformat() + "Z",
        "bot": account.bot,
    }


async def make_bot(request: Request) -> Response:
    """``POST /api/account/bot``: the session's account becomes a bot's (its password again)."""
    same_site(request)
    body = _parsed(_Password, await json_body(request, MAX_BODY, json_only=True))
    bots = _service(request)

    def make() -> Account:
        return bots.make_bot(
            request.cookies.get(COOKIE),
            body.password,
            address=client_address(request),
            device=request.cookies.get("crokinole_device"),
        )

    try:
        account = await anyio.to_thread.run_sync(make, limiter=context(request).hashing)
    except AccountError as exc:
        if exc.code == ErrorCode.WRONG_PASSWORD:
            raise HttpError(ErrorCode.BAD_PASSWORD, exc.message, status=403) from None
        raise
    return _private(JSONResponse(account_view(account)))


async def create_token(request: Request) -> Response:
    """``POST /api/account/tokens``: a new token; its text is in this answer only."""
    same_site(request)
    body = _parsed(_NewToken, await json_body(request, MAX_BODY, json_only=True))
    if len(set(body.scopes)) != len(body.scopes):
        raise HttpError(ErrorCode.BAD_REQUEST, "scopes: each scope once")
    name = body.name.strip()
    if not name:
        raise HttpError(ErrorCode.BAD_REQUEST, "name: a token's name is not blank")
    made, text = await anyio.to_thread.run_sync(
        _service(request).create_token, request.cookies.get(COOKIE), name, body.scopes
    )
    return _private(JSONResponse({**token_payload(made), "token": text}, status_code=201))


async def list_tokens(request: Request) -> Response:
    """``GET /api/account/tokens``: the bot account's tokens (never their text)."""
    tokens = await anyio.to_thread.run_sync(_service(request).tokens, request.cookies.get(COOKIE))
    return _private(JSONResponse({"tokens": [token_payload(t) for t in tokens]}))


async def revoke_token(request: Request) -> Response:
    """``DELETE /api/account/tokens/{id}``: the token logs nothing in any more; its open
    sockets are closed (4401) in every process."""
    same_site(request)
    raw = request.path_params["token_id"]
    if not re.fullmatch(r"[0-9]{1,9}", raw):
        raise HttpError(ErrorCode.BAD_REQUEST, f"a token's id is a number, not {raw!r}")
    token_id = int(raw)
    await anyio.to_thread.run_sync(_service(request).revoke, request.cookies.get(COOKIE), token_id)
    on_revoked = context(request).on_revoked
    if on_revoked is not None:
        await on_revoked([token_id])
    return _private(JSONResponse({"revoked": token_id}))


async def list_bots(request: Request) -> Response:
    """``GET /api/bots``: every bot, online or not, with its rating on the bots' ladder."""
    http = context(request)
    found = await anyio.to_thread.run_sync(_service(request).bots)
    online = await http.bots_online([a.id for a, _ in found]) if http.bots_online else set()
    return JSONResponse(
        {
            "bots": [
                {
                    "username": account.username,
                    "bot": True,
                    "online": account.id in online,
                    "rating": rating.rating if rating is not None else display(INITIAL),
                    "games": rating.games if rating is not None else 0,
                }
                for account, rating in found
            ]
        },
        headers={"Cache-Control": "no-store"},
    )


routes: list[BaseRoute] = [
    Route("/api/account/bot", make_bot, methods=["POST"]),
    Route("/api/account/tokens", create_token, methods=["POST"]),
    Route("/api/account/tokens", list_tokens, methods=["GET"]),
    Route("/api/account/tokens/{token_id}", revoke_token, methods=["DELETE"]),
    Route("/api/bots", list_bots, methods=["GET"]),
]
