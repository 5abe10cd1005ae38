"""The HTTP routes' one error type and the one handler that answers it.

A route that refuses a request raises :class:`HttpError` (or lets a domain
error rise: an account refused, a sheet entry the rules refuse, the database
down ...); :func:`answer_error`, installed through Starlette's
``exception_handlers`` (:data:`EXCEPTION_HANDLERS`), answers every one of
them the same way: ``{"code": "...", "message": "plain words"}`` with the
status of its code (:data:`STATUS`: the same status for the same fault) and
``Cache-Control: no-store``.  Nothing changed on the server.

>>> error = HttpError(ErrorCode.NOT_FOUND, "there is no sheet 12")
>>> error.status, str(error)
(404, 'there is no sheet 12')
>>> http_error(AccountError(ErrorCode.TAKEN, "the username ann is taken")).status
409
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from crokinole.errors import (
    AnalysisError,
    CrokinoleError,
    ErrorCode,
    EventError,
    InvalidRulesError,
)
from crokinole.server.accounts import AccountError
from crokinole.server.owner.cpu import AnalysisBusyError
from crokinole.store import StoreConflictError, StoreUnavailableError

__all__ = ["EXCEPTION_HANDLERS", "STATUS", "HttpError", "answer_error", "http_error"]

#: The HTTP status of each code an HTTP route answers (a code not listed: 400).
STATUS: dict[ErrorCode, int] = {
    ErrorCode.BAD_REQUEST: 400,
    ErrorCode.BAD_JSON: 400,
    ErrorCode.BAD_DEVICE: 400,
    ErrorCode.BAD_LADDER: 400,
    ErrorCode.BAD_USERNAME: 400,
    ErrorCode.BAD_PASSWORD: 400,
    ErrorCode.NOT_LOGGED_IN: 401,
    ErrorCode.WRONG_LOGIN: 401,
    ErrorCode.NO_DEVICE: 401,
    ErrorCode.BAD_ORIGIN: 403,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.FAIR_PLAY: 403,
    ErrorCode.WRONG_PASSWORD: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.UNKNOWN_TABLE: 404,
    ErrorCode.CONFLICT: 409,
    ErrorCode.NOT_FINISHED: 409,
    ErrorCode.TAKEN: 409,
    ErrorCode.DEVICE_CLAIMED: 409,
    ErrorCode.HAS_GAMES: 409,
    ErrorCode.NOT_A_BOT: 403,
    ErrorCode.SCOPE: 403,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.NOT_JSON: 415,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.TOO_MANY_ATTEMPTS: 429,
    ErrorCode.TOO_MANY_SIGNUPS: 429,
    # Events (crokinole.events): refusals of the event's commands.
    ErrorCode.BAD_EVENT: 400,
    ErrorCode.BAD_RESULT: 400,
    ErrorCode.NOT_ORGANISER: 403,
    ErrorCode.UNKNOWN_ENTRANT: 404,
    ErrorCode.ROUND_STARTED: 409,
    ErrorCode.ROUND_NOT_OVER: 409,
    ErrorCode.EVENT_OVER: 409,
    ErrorCode.SERVER_ERROR: 500,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.BUSY: 503,
}

#: Seconds a client is asked to wait when the analysis pool's queue is full.
BUSY_RETRY_S = 5


class HttpError(CrokinoleError):
    """A request an HTTP route refuses: its code (which gives the status) and plain words.

    Attributes:
        code: the protocol's error code.
        message: the reason in plain words.
        status: the HTTP status of ``code`` (:data:`STATUS`) unless a route gives one.
        retry_after: seconds to wait before asking again (429 and 503), or None.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        retry_after: int | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else STATUS.get(code, 400)
        self.retry_after = retry_after


def http_error(exc: CrokinoleError) -> HttpError | None:
    """The answer to ``exc`` raised by a route, or None for an error that is a bug (a 500)."""
    if isinstance(exc, HttpError):
        return exc
    if isinstance(exc, AccountError):
        return HttpError(ErrorCode(exc.code), exc.message, retry_after=exc.retry_after)
    if isinstance(exc, EventError):  # an event's command refused: its own code
        return HttpError(exc.code, exc.message)
    if isinstance(exc, AnalysisBusyError):
        return HttpError(ErrorCode.BUSY, str(exc), retry_after=BUSY_RETRY_S)
    if isinstance(exc, StoreUnavailableError):
        return HttpError(ErrorCode.UNAVAILABLE, str(exc))
    if isinstance(exc, StoreConflictError):
        return HttpError(ErrorCode.CONFLICT, str(exc))
    if isinstance(exc, AnalysisError | InvalidRulesError):  # a bad position, shot or sheet entry
        return HttpError(ErrorCode.BAD_REQUEST, str(exc))
    return None


def error_response(error: HttpError) -> Response:
    """The JSON answer of ``error``: ``{"code", "message"}``, kept by no cache."""
    headers = {"Cache-Control": "no-store"}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    body = {"code": str(error.code), "message": error.message}
    return JSONResponse(body, status_code=error.status, headers=headers)


async def answer_error(request: Any, exc: Exception) -> Response:
    """The one handler of the HTTP routes' errors (Starlette's ``exception_handlers``).

    An error that is no refusal (a bug), or one raised on a websocket, rises
    on: the server logs it as it did before.
    """
    found = http_error(exc) if isinstance(exc, CrokinoleError) else None
    if found is None or not isinstance(request, Request):
        raise exc
    return error_response(found)


#: What ``Starlette(exception_handlers=...)`` is given.
EXCEPTION_HANDLERS: dict[Any, Any] = {CrokinoleError: answer_error}
