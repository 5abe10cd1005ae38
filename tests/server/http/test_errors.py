"""The HTTP routes' one error type and its one handler (crokinole.server.http.errors)."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from crokinole.errors import ErrorCode, TableError
from crokinole.server.accounts import AccountError
from crokinole.server.http.context import HttpContext, standalone
from crokinole.server.http.errors import STATUS, HttpError
from crokinole.server.owner.cpu import AnalysisBusyError
from crokinole.store import AlreadyPlayedError, Store, StoreUnavailableError


def _raising(error: Exception) -> Route:
    async def endpoint(_: Request) -> Response:
        raise error

    return Route("/", endpoint)


@pytest.fixture
def store() -> Iterator[Store]:
    opened = Store.open("sqlite://")
    yield opened
    opened.close()


def _get(store: Store, error: Exception) -> httpx.Response:
    app = standalone([_raising(error)], HttpContext(store))

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get("/")

    return anyio.run(go)


def _answer(store: Store, error: Exception) -> tuple[int, dict[str, str], dict[str, str]]:
    answer = _get(store, error)
    return answer.status_code, dict(answer.headers), answer.json()


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (HttpError(ErrorCode.NOT_FOUND, "there is no sheet 1"), 404, "not_found"),
        (HttpError(ErrorCode.TOO_LARGE, "too big"), 413, "too_large"),
        (AccountError(ErrorCode.TAKEN, "the username ann is taken"), 409, "taken"),
        (AccountError(ErrorCode.WRONG_LOGIN, "wrong username or password"), 401, "wrong_login"),
        (AlreadyPlayedError("kept already"), 409, "conflict"),
        (StoreUnavailableError("the database cannot be reached"), 503, "unavailable"),
    ],
)
def test_every_refusal_is_code_and_message_with_the_status_of_its_code(
    store: Store, error: Exception, status: int, code: str
) -> None:
    got, headers, body = _answer(store, error)
    assert (got, body) == (status, {"code": code, "message": str(error)})
    assert STATUS[ErrorCode(code)] == status
    assert headers["cache-control"] == "no-store"


def test_a_limit_says_when_to_ask_again(store: Store) -> None:
    limited = AccountError(ErrorCode.TOO_MANY_ATTEMPTS, "too many login attempts", retry_after=90)
    status, headers, _ = _answer(store, limited)
    assert (status, headers["retry-after"]) == (429, "90")
    status, headers, body = _answer(store, AnalysisBusyError("the analysis is busy"))
    assert (status, headers["retry-after"], body["code"]) == (503, "5", "busy")


def test_an_error_that_is_a_bug_is_no_refusal(store: Store) -> None:
    # A table's refusal reaching an HTTP route is a bug: it rises (a 500, logged).
    with pytest.raises(TableError):
        _get(store, TableError(ErrorCode.NOT_HOST, "only the host"))
