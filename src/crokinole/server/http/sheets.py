"""The score keeper's HTTP API: score sheets owned by a device token, shared read-only.

Owner routes need the device token in the ``X-Device-Token`` header.  Every
change is validated by :class:`~crokinole.rules.sheet.ScoreSheet` before it
is saved; a refused entry answers 400 with the reason and changes nothing.

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

import asyncio
import re
import secrets
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from crokinole.board import Seat
from crokinole.rules.scoring import GameOutcome
from crokinole.rules.sheet import ScoreSheet, SheetError
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.ws.messages import TOKEN_PATTERN
from crokinole.store import SheetData, Store

ID_PATTERN = re.compile(r"^[a-f0-9]{32}$")
MAX_BODY = 16 * 1024


class ApiError(Exception):
    """An HTTP error with a plain message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


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
                "seats": [s.name.lower() for s in seats],
                "players": [sheet.player_name(s) for s in seats],
            }
            for name, seats in zip(sheet.names, rules.sides, strict=True)
        ],
        "players_named": sheet.players is not None,
        "first_seat": sheet.first_seat.name.lower(),
        "discs_per_side": rules.discs_per_side,
        "max_total": 20 * rules.discs_per_side,
        "match_games": sheet.match_games,
        "rounds": [
            {
                "number": line.number,
                "game": line.game,
                "index": line.index,
                "first": line.first.name.lower(),
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
        "next_first": summary.next_first.name.lower(),
        "next_first_name": sheet.player_name(summary.next_first),
        "over": summary.over,
        "outcome": _outcome(summary.outcome),
        "updated_at": data.updated_at.isoformat() + "Z",
    }


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ApiError(413, f"the request is larger than {MAX_BODY} bytes")
    try:
        data = read_json(raw or b"{}")
    except JsonInputError as exc:
        # Huge numbers, deep nesting and NaN are refused plainly, never a 500 (contract 1).
        reason = str(exc).replace("the message", "it")
        raise ApiError(400, f"the request body cannot be read: {reason}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body is a JSON object")
    return data


def _token(request: Request) -> str:
    token = request.headers.get("x-device-token", "")
    if not re.match(TOKEN_PATTERN, token):
        raise ApiError(401, "send your device token in the X-Device-Token header")
    return token


def _names(body: dict[str, Any]) -> list[str] | None:
    names = body.get("names")
    if names is None and "players" in body:
        return None  # teams are named after their players
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ApiError(400, "names must be a list of names, one per side")
    return names


def _round_number(request: Request) -> int:
    try:
        return int(request.path_params["number"])
    except ValueError:
        raise ApiError(400, "a round number is a whole number") from None


def routes(store: Store) -> list[Route]:
    """The routes of the score keeper's API on ``store``."""

    writing = asyncio.Lock()

    async def owned(request: Request) -> SheetData:
        token = _token(request)
        sheet_id = request.path_params["sheet"]
        if not ID_PATTERN.match(sheet_id):
            raise ApiError(400, "a sheet id is 32 hexadecimal digits")
        data = await anyio.to_thread.run_sync(store.sheet, sheet_id)
        if data is None:
            raise ApiError(404, f"there is no sheet {sheet_id}")
        if data.device_token != token:
            raise ApiError(403, "that sheet belongs to another device")
        return data

    async def save(data: SheetData, sheet: ScoreSheet) -> JSONResponse:
        content = sheet.to_dict()
        # Read back exactly as stored before storing: a sheet that would not
        # load again is refused here, not saved.
        ScoreSheet.from_dict(content)
        await anyio.to_thread.run_sync(store.save_sheet, data.id, content)
        fresh = await anyio.to_thread.run_sync(store.sheet, data.id)
        assert fresh is not None
        return JSONResponse(sheet_view(fresh))

    def entry(body: dict[str, Any]) -> dict[str, Any]:
        unknown = set(body) - {"totals", "counts"}
        if unknown:
            raise ApiError(400, f"unknown field(s): {', '.join(sorted(unknown))}")
        return {"totals": body.get("totals"), "counts": body.get("counts")}

    async def create(request: Request) -> Response:
        token = _token(request)
        body = await _body(request)
        allowed = {
            "layout", "names", "players", "scoring", "tie", "first_seat",
            "discs_per_side", "match_games",
        }  # fmt: skip
        unknown = set(body) - allowed
        if unknown:
            raise ApiError(400, f"unknown field(s): {', '.join(sorted(unknown))}")
        seat_name = body.get("first_seat", "south")
        if not isinstance(seat_name, str) or seat_name.upper() not in Seat.__members__:
            raise ApiError(400, f"first_seat must be south, west, north or east, not {seat_name!r}")
        sheet = ScoreSheet.new(
            body.get("layout", "singles"),
            _names(body),
            body.get("scoring", "four_rounds"),
            body.get("tie", "draw"),
            Seat[seat_name.upper()],
            discs=body.get("discs_per_side"),
            match_games=body.get("match_games", 1),
            players=body.get("players"),
        )
        sheet_id, share_id = secrets.token_hex(16), secrets.token_hex(16)
        await anyio.to_thread.run_sync(
            store.create_sheet, sheet_id, share_id, token, sheet.to_dict()
        )
        data = await anyio.to_thread.run_sync(store.sheet, sheet_id)
        assert data is not None
        return JSONResponse(sheet_view(data), status_code=201)

    async def listing(request: Request) -> Response:
        token = _token(request)
        sheets = await anyio.to_thread.run_sync(store.device_sheets, token)
        return JSONResponse({"sheets": [sheet_view(s) for s in sheets]})

    async def one(request: Request) -> Response:
        if request.method == "PATCH":  # rename sides (and players)
            body = await _body(request)
            unknown = set(body) - {"names", "players"}
            if unknown:
                raise ApiError(400, f"unknown field(s): {', '.join(sorted(unknown))}")
            async with writing:
                data = await owned(request)
                sheet = ScoreSheet.from_dict(data.data)
                return await save(data, sheet.renamed(_names(body), body.get("players")))
        data = await owned(request)
        if request.method == "DELETE":
            await anyio.to_thread.run_sync(store.delete_sheet, data.id)
            return Response(status_code=204)
        return JSONResponse(sheet_view(data))

    async def add_round(request: Request) -> Response:
        body = entry(await _body(request))
        async with writing:  # read-change-write of one sheet at a time
            data = await owned(request)
            return await save(data, ScoreSheet.from_dict(data.data).add_round(**body))

    async def change_round(request: Request) -> Response:
        index = _round_number(request) - 1
        body = entry(await _body(request)) if request.method == "PUT" else {}
        async with writing:
            data = await owned(request)
            sheet = ScoreSheet.from_dict(data.data)
            if request.method == "DELETE":
                return await save(data, sheet.delete_round(index))
            return await save(data, sheet.edit_round(index, **body))

    async def shared(request: Request) -> Response:
        share_id = request.path_params["share"]
        as_csv = share_id.endswith(".csv")
        share_id = share_id.removesuffix(".csv")
        if not ID_PATTERN.match(share_id):
            raise ApiError(400, "a share link id is 32 hexadecimal digits")
        data = await anyio.to_thread.run_sync(store.shared_sheet, share_id)
        if data is None:
            raise ApiError(404, "there is no sheet behind that link")
        if as_csv:
            return Response(
                ScoreSheet.from_dict(data.data).to_csv(),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": 'attachment; filename="crokinole-score.csv"'},
            )
        view = sheet_view(data)
        view.pop("id")  # the owner's id stays private
        return JSONResponse(view)

    def guarded(handler: Any) -> Any:
        async def run(request: Request) -> Response:
            try:
                response: Response = await handler(request)
                return response
            except ApiError as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
            except SheetError as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)

        return run

    return [
        Route("/api/sheets", guarded(create), methods=["POST"]),
        Route("/api/sheets", guarded(listing), methods=["GET"]),
        Route("/api/sheets/{sheet}", guarded(one), methods=["GET", "PATCH", "DELETE"]),
        Route("/api/sheets/{sheet}/rounds", guarded(add_round), methods=["POST"]),
        Route(
            "/api/sheets/{sheet}/rounds/{number}", guarded(change_round), methods=["PUT", "DELETE"]
        ),
        Route("/api/shared/{share}", guarded(shared), methods=["GET"]),
    ]
