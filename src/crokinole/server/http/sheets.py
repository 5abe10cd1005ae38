"""The score keeper's HTTP API: score sheets owned by a device token, shared read-only.

Owner routes need the device token in the ``X-Device-Token`` header.  Every
change is validated by :class:`~crokinole.rules.sheet.ScoreSheet` before it
is saved; a refused entry answers 400 with the reason and changes nothing
(``{"code": "...", "message": "..."}``, :mod:`crokinole.server.http.errors`);
a request without the owner's token answers 401.

| method | route | does |
|---|---|---|
| POST | /api/sheets | create (layout, names or players, scoring, tie, first_seat, |
| | | discs_per_side, match_games) |
| GET | /api/sheets | the device's sheets |
| GET | /api/sheets/{id} | one sheet |
| PATCH | /api/sheets/{id} | rename the sides (names) or a team's players (players) |
| DELETE | /api/sheets/{id} | delete it |
| POST | /api/sheets/{id}/rounds | add a round (totals or counts) |
| PUT | /api/sheets/{id}/rounds/{n} | enter round n (from 1, over the whole match) again |
| DELETE | /api/sheets/{id}/rounds/{n} | delete round n |
| GET | /api/shared/{share_id} | the sheet, read-only, for anyone with the link |
| GET | /api/shared/{share_id}.csv | the sheet as CSV |
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from crokinole.board import Seat
from crokinole.errors import ErrorCode, UnknownSeatError
from crokinole.rules.scoring import GameOutcome
from crokinole.rules.sheet import ScoreSheet
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import json_body, the_device
from crokinole.store import SheetData

ID_PATTERN = re.compile(r"^[a-f0-9]{32}$")
MAX_BODY = 16 * 1024


def _outcome(outcome: GameOutcome | None) -> dict[str, Any] | None:
    return None if outcome is None else {"winner": outcome.winner, "drawn": list(outcome.drawn)}


def sheet_view(data: SheetData) -> dict[str, Any]:
    """A sheet as the page shows it: entries, points, running scores, games, outcome."""
    sheet = ScoreSheet.from_dict(data.data)
    summary = sheet.summary()
    rules = sheet.rules
    return {
        "id": data.id,
        "share_id": data.share_id,
        "layout": rules.layout.value,
        "scoring": rules.scoring.value,
        "tie": rules.tie.value,
        "target": rules.target,
        "rounds_in_game": rules.rounds,
        "names": list(sheet.names),
        "sides": [
            {
                "name": name,
                "seats": [s.key for s in seats],
                "players": [sheet.player_name(s) for s in seats],
            }
            for name, seats in zip(sheet.names, rules.sides, strict=True)
        ],
        "players_named": sheet.players is not None,
        "first_seat": sheet.first_seat.key,
        "discs_per_side": rules.discs_per_side,
        "max_total": 20 * rules.discs_per_side,
        "match_games": sheet.match_games,
        "rounds": [
            {
                "number": line.number,
                "game": line.game,
                "index": line.index,
                "first": line.first.key,
                "first_name": sheet.player_name(line.first),
                "totals": list(line.totals),
                "counts": None
                if line.counts is None
                else [[c.twenties, c.fifteens, c.tens, c.fives] for c in line.counts],
                "points": list(line.points),
                "scores": list(line.scores),
            }
            for line in summary.rounds
        ],
        "games": [
            {
                "number": game.number,
                "rounds": game.rounds,
                "scores": list(game.scores),
                "outcome": _outcome(game.outcome),
            }
            for game in summary.games
        ],
        "game": summary.game,
        "wins": list(summary.wins),
        "scores": list(summary.scores),
        "next_first": summary.next_first.key,
        "next_first_name": sheet.player_name(summary.next_first),
        "over": summary.over,
        "outcome": _outcome(summary.outcome),
        "updated_at": data.updated_at.isoformat() + "Z",
    }


async def _body(request: Request, fields: set[str]) -> dict[str, Any]:
    return await json_body(request, MAX_BODY, fields)


def _token(request: Request) -> str:
    # The token is the owner's only credential: without it the request is not the owner's.
    return the_device(request, refused=ErrorCode.NO_DEVICE)


def _names(body: dict[str, Any]) -> list[str] | None:
    names = body.get("names")
    if names is None and "players" in body:
        return None  # teams are named after their players
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise HttpError(ErrorCode.BAD_REQUEST, "names must be a list of names, one per side")
    return names


def _round_number(request: Request) -> int:
    try:
        return int(request.path_params["number"])
    except ValueError:
        raise HttpError(ErrorCode.BAD_REQUEST, "a round number is a whole number") from None


def _first_seat(value: object) -> Seat:
    try:
        return Seat.parse(value)
    except UnknownSeatError:
        wrong = f"first_seat must be south, west, north or east, not {value!r}"
        raise HttpError(ErrorCode.BAD_REQUEST, wrong) from None


async def _owned(request: Request) -> SheetData:
    """The sheet of the path, if it is the device's."""
    token = _token(request)
    sheet_id = request.path_params["sheet"]
    if not ID_PATTERN.match(sheet_id):
        raise HttpError(ErrorCode.BAD_REQUEST, "a sheet id is 32 hexadecimal digits")
    data = await anyio.to_thread.run_sync(context(request).store.sheet, sheet_id)
    if data is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"there is no sheet {sheet_id}")
    if data.device_token != token:
        raise HttpError(ErrorCode.FORBIDDEN, "that sheet belongs to another device")
    return data


async def _save(request: Request, data: SheetData, sheet: ScoreSheet) -> JSONResponse:
    store = context(request).store
    content = sheet.to_dict()
    # Read back exactly as stored before storing: a sheet that would not
    # load again is refused here, not saved.
    ScoreSheet.from_dict(content)
    await anyio.to_thread.run_sync(store.save_sheet, data.id, content)
    fresh = await anyio.to_thread.run_sync(store.sheet, data.id)
    assert fresh is not None
    return JSONResponse(sheet_view(fresh))


async def _entry(request: Request) -> dict[str, Any]:
    body = await _body(request, {"totals", "counts"})
    return {"totals": body.get("totals"), "counts": body.get("counts")}


#: What a new sheet is when the request does not say.
NEW_DEFAULTS: dict[str, Any] = {
    "layout": "singles", "scoring": "four_rounds", "tie": "draw", "first_seat": "south",
    "discs_per_side": None, "match_games": 1, "players": None,
}  # fmt: skip
#: The fields of a new sheet.
NEW_FIELDS = {*NEW_DEFAULTS, "names"}


async def create(request: Request) -> Response:
    """``POST /api/sheets``: a new sheet of the device."""
    token = _token(request)
    body = await _body(request, NEW_FIELDS)
    store = context(request).store
    given = {**NEW_DEFAULTS, **body}
    first = _first_seat(given["first_seat"])
    sheet = ScoreSheet.new(
        given["layout"],
        _names(body),
        given["scoring"],
        given["tie"],
        first,
        discs=given["discs_per_side"],
        match_games=given["match_games"],
        players=given["players"],
    )
    sheet_id, share_id = secrets.token_hex(16), secrets.token_hex(16)
    await anyio.to_thread.run_sync(store.create_sheet, sheet_id, share_id, token, sheet.to_dict())
    data = await anyio.to_thread.run_sync(store.sheet, sheet_id)
    assert data is not None
    return JSONResponse(sheet_view(data), status_code=201)


async def listing(request: Request) -> Response:
    """``GET /api/sheets``: the device's sheets."""
    token = _token(request)
    sheets = await anyio.to_thread.run_sync(context(request).store.device_sheets, token)
    return JSONResponse({"sheets": [sheet_view(s) for s in sheets]})


async def one(request: Request) -> Response:
    """``GET``, ``PATCH`` (rename sides and players) and ``DELETE /api/sheets/{id}``."""
    if request.method == "PATCH":
        body = await _body(request, {"names", "players"})
        async with context(request).sheet_writing:
            data = await _owned(request)
            sheet = ScoreSheet.from_dict(data.data)
            return await _save(request, data, sheet.renamed(_names(body), body.get("players")))
    data = await _owned(request)
    if request.method == "DELETE":
        await anyio.to_thread.run_sync(context(request).store.delete_sheet, data.id)
        return Response(status_code=204)
    return JSONResponse(sheet_view(data))


async def add_round(request: Request) -> Response:
    """``POST /api/sheets/{id}/rounds``: a round more."""
    body = await _entry(request)
    async with context(request).sheet_writing:  # read-change-write of one sheet at a time
        data = await _owned(request)
        return await _save(request, data, ScoreSheet.from_dict(data.data).add_round(**body))


async def change_round(request: Request) -> Response:
    """``PUT`` (enter again) and ``DELETE /api/sheets/{id}/rounds/{n}``."""
    index = _round_number(request) - 1
    body = await _entry(request) if request.method == "PUT" else {}
    async with context(request).sheet_writing:
        data = await _owned(request)
        sheet = ScoreSheet.from_dict(data.data)
        if request.method == "DELETE":
            return await _save(request, data, sheet.delete_round(index))
        return await _save(request, data, sheet.edit_round(index, **body))


async def shared(request: Request) -> Response:
    """``GET /api/shared/{share_id}`` (and ``.csv``): the sheet, read-only."""
    share_id = request.path_params["share"]
    as_csv = share_id.endswith(".csv")
    share_id = share_id.removesuffix(".csv")
    if not ID_PATTERN.match(share_id):
        raise HttpError(ErrorCode.BAD_REQUEST, "a share link id is 32 hexadecimal digits")
    data = await anyio.to_thread.run_sync(context(request).store.shared_sheet, share_id)
    if data is None:
        raise HttpError(ErrorCode.NOT_FOUND, "there is no sheet behind that link")
    if as_csv:
        return Response(
            ScoreSheet.from_dict(data.data).to_csv(),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="crokinole-score.csv"'},
        )
    view = sheet_view(data)
    view.pop("id")  # the owner's id stays private
    return JSONResponse(view)


routes = [
    Route("/api/sheets", create, methods=["POST"]),
    Route("/api/sheets", listing, methods=["GET"]),
    Route("/api/sheets/{sheet}", one, methods=["GET", "PATCH", "DELETE"]),
    Route("/api/sheets/{sheet}/rounds", add_round, methods=["POST"]),
    Route("/api/sheets/{sheet}/rounds/{number}", change_round, methods=["PUT", "DELETE"]),
    Route("/api/shared/{share}", shared, methods=["GET"]),
]
