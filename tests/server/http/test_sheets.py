"""The score keeper's API against the real server: sheets, rounds, sharing, every error."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.server_process import running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db) as url:
        yield url


def call(
    server: str, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    data = (
        None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    )
    request = urllib.request.Request(server + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("X-Device-Token", token)
    try:
        with urllib.request.urlopen(request) as answer:
            raw = answer.read()
            kind = answer.headers.get("Content-Type", "")
            return answer.status, (json.loads(raw) if "json" in kind and raw else raw.decode())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def token() -> str:
    return secrets.token_hex(12)


def _new(server: str, token: str, **fields: Any) -> dict[str, Any]:
    body = {"layout": "singles", "names": ["Ann", "Bob"], "scoring": "four_rounds", **fields}
    status, sheet = call(server, "POST", "/api/sheets", body, token)
    assert status == 201, sheet
    return sheet  # type: ignore[no-any-return]


def test_a_four_round_sheet_from_start_to_winner(server: str, token: str) -> None:
    sheet = _new(server, token)
    assert sheet["next_first"] == "south" and sheet["rounds"] == [] and not sheet["over"]
    path = f"/api/sheets/{sheet['id']}/rounds"
    for totals in ([45, 30], [20, 20], [0, 15]):
        status, sheet = call(server, "POST", path, {"totals": totals}, token)
        assert status == 200
    status, sheet = call(server, "POST", path, {"counts": [[2, 1, 0, 0], [1, 1, 1, 1]]}, token)
    assert sheet["rounds"][-1]["totals"] == [55, 50]
    assert sheet["scores"] == [5, 3] and sheet["over"]
    assert sheet["outcome"] == {"winner": 0, "drawn": []}
    # The sheet is kept: reading it again gives the same view.
    status, again = call(server, "GET", f"/api/sheets/{sheet['id']}", token=token)
    assert status == 200 and again["rounds"] == sheet["rounds"]
    status, mine = call(server, "GET", "/api/sheets", token=token)
    assert [s["id"] for s in mine["sheets"]] == [sheet["id"]]


@pytest.mark.parametrize(
    "body",
    [b"[" * 2000 + b"]" * 2000, b'{"totals": [' + b"9" * 4301 + b", 0]}"],
    ids=["nested-2000", "4301-digits"],
)
def test_every_writing_route_answers_400_to_json_the_parser_cannot_take(
    server: str, token: str, body: bytes
) -> None:
    # Contract 1: create, add and edit all read the body with read_json.
    sheet = _new(server, token)
    call(server, "POST", f"/api/sheets/{sheet['id']}/rounds", {"totals": [5, 0]}, token)
    for method, path in (
        ("POST", "/api/sheets"),
        ("POST", f"/api/sheets/{sheet['id']}/rounds"),
        ("PUT", f"/api/sheets/{sheet['id']}/rounds/1"),
    ):
        status, error = call(server, method, path, body, token)
        assert status == 400, (method, path, status)
        assert "the request body" in error["message"]
    _, again = call(server, "GET", f"/api/sheets/{sheet['id']}", token=token)
    assert again["rounds"][0]["totals"] == [5, 0]


@pytest.mark.parametrize(
    ("number", "message"),
    [
        ("9" * 5000, "a round number is a whole number"),
        ("1e308", "a round number is a whole number"),
        ("-0", "there is no round 0"),
        ("99999999999999999999", "there is no round 99999999999999999999"),
    ],
)
def test_odd_round_numbers_in_the_path_answer_400(
    server: str, token: str, number: str, message: str
) -> None:
    sheet = _new(server, token)
    path = f"/api/sheets/{sheet['id']}/rounds/{number}"
    for method, body in (("PUT", {"totals": [5, 0]}), ("DELETE", None)):
        status, error = call(server, method, path, body, token)
        assert status == 400 and message in error["message"], (method, status, error)


def test_edit_and_delete_a_round(server: str, token: str) -> None:
    sheet = _new(server, token, scoring="to_100")
    path = f"/api/sheets/{sheet['id']}/rounds"
    call(server, "POST", path, {"totals": [50, 10]}, token)
    call(server, "POST", path, {"totals": [10, 30]}, token)
    status, sheet = call(server, "PUT", path + "/2", {"totals": [10, 60]}, token)
    assert status == 200 and sheet["scores"] == [40, 50]
    status, sheet = call(server, "DELETE", path + "/1", token=token)
    assert status == 200 and sheet["scores"] == [0, 50] and len(sheet["rounds"]) == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"totals": [-5, 0]}, "a total is a whole number ≥ 0"),
        ({"totals": [12, 0]}, "not a multiple of 5"),
        ({"counts": [[9, 0, 0, 0], [0, 0, 0, 0]]}, "9 discs counted, but a side has only 8"),
        ({"totals": [5, 0], "extra": 1}, "unknown field(s): extra"),
        (b"{nope", "not valid JSON"),
        # Valid JSON the parser cannot take answers 400, never 500 (contract 1).
        (b'{"totals": ' + b"[" * 2000 + b"]" * 2000 + b"}", "nested too deeply"),
        (b'{"totals": [' + b"5" * 4301 + b", 0]}", "a number of 4301 characters is too long"),
        (b'{"totals": [NaN, 0]}', "NaN is not a number JSON allows"),
        # Huge-but-short numbers reach the sheet's own checks and read plainly.
        (b'{"totals": [1e308, 0]}', "a total is a whole number ≥ 0, not 1e+308"),
        (b'{"totals": [-0.0, 0]}', "a total is a whole number ≥ 0, not -0.0"),
        ({"totals": [10**39, 0]}, f"{10**39} is more than 160"),
        ({"counts": [[1e308, 0, 0, 0], [0, 0, 0, 0]]}, "whole numbers of discs, not 1e+308"),
    ],
)
def test_bad_rounds_are_refused_and_nothing_changes(
    server: str, token: str, body: Any, message: str
) -> None:
    sheet = _new(server, token)
    status, error = call(server, "POST", f"/api/sheets/{sheet['id']}/rounds", body, token)
    assert status == 400 and message in error["message"]
    status, again = call(server, "GET", f"/api/sheets/{sheet['id']}", token=token)
    assert again["rounds"] == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"layout": "quads", "names": ["a", "b"]}, "layout must be one of"),
        ({"layout": "doubles", "names": ["a"]}, "doubles needs 2 names"),
        ({"layout": "singles", "names": "ab"}, "names must be a list"),
        ({"layout": "singles", "names": ["a", "b"], "first_seat": "up"}, "first_seat must be"),
        ({"layout": "singles", "names": ["a", "b"], "colour": "red"}, "unknown field(s): colour"),
        (b'{"names": ' + b"[" * 2000 + b"]" * 2000 + b"}", "nested too deeply"),
        (b'{"layout": "singles", "names": ["a", ' + b"1" * 5000 + b"]}", "too long"),
        ({"layout": "singles", "names": ["a", "b"], "tie": 1e308}, "got 1e+308"),
        ({"names": ["a", "b"], "discs_per_side": 1e308}, "8 or 12 discs per side, not 1e+308"),
        ({"names": ["a", "b"], "discs_per_side": -0.0}, "8 or 12 discs per side, not -0.0"),
        (
            {"names": ["a", "b"], "match_games": 10**30},
            f"1 to 9 games (a whole number), not {10**30}",
        ),
        ({"names": ["a", "b"], "match_games": 1e308}, "not 1e+308"),
    ],
)
def test_bad_sheets_are_refused(server: str, token: str, body: Any, message: str) -> None:
    status, error = call(server, "POST", "/api/sheets", body, token)
    assert status == 400 and message in error["message"]


def test_twelve_discs_a_match_and_named_players(server: str, token: str) -> None:
    # R2: singles with 12 discs each (the home rule, seed 004).
    sheet = _new(server, token, discs_per_side=12, scoring="to_100")
    assert sheet["discs_per_side"] == 12 and sheet["max_total"] == 240
    path = f"/api/sheets/{sheet['id']}/rounds"
    status, sheet = call(server, "POST", path, {"counts": [[1, 2, 3, 6], [0, 0, 0, 0]]}, token)
    assert status == 200 and sheet["rounds"][0]["totals"] == [20 + 30 + 30 + 30, 0]
    # Doubles named by player: the opener is a person, and the teams are named after them.
    body = {"layout": "doubles", "players": [["Ann", "Cy"], ["Bob", "Di"]], "match_games": 2}
    status, match = call(server, "POST", "/api/sheets", body, token)
    assert status == 201, match
    assert match["names"] == ["Ann & Cy", "Bob & Di"] and match["next_first_name"] == "Ann"
    path = f"/api/sheets/{match['id']}/rounds"
    for _ in range(4):
        status, match = call(server, "POST", path, {"totals": [20, 0]}, token)
    assert [r["first_name"] for r in match["rounds"]] == ["Ann", "Bob", "Cy", "Di"]
    assert match["games"][0]["outcome"] == {"winner": 0, "drawn": []}
    assert match["game"] == 2 and match["scores"] == [0, 0] and not match["over"]
    status, match = call(server, "POST", path, {"totals": [0, 5]}, token)
    assert match["rounds"][-1]["game"] == 2 and match["rounds"][-1]["number"] == 1


def test_rename_a_side_and_refused_names(server: str, token: str) -> None:
    sheet = _new(server, token)
    call(server, "POST", f"/api/sheets/{sheet['id']}/rounds", {"totals": [10, 5]}, token)
    status, renamed = call(
        server, "PATCH", f"/api/sheets/{sheet['id']}", {"names": ["Ann", "Robert"]}, token
    )
    assert status == 200 and renamed["names"] == ["Ann", "Robert"]
    assert renamed["rounds"][0]["totals"] == [10, 5]
    for names, message in (
        (["Ann", "ANN"], "two sides are called 'Ann' and 'ANN'"),
        (["Ann", "\u200b"], "at least one visible character"),
        (["Ann"], "singles needs 2 names"),
    ):
        status, error = call(server, "PATCH", f"/api/sheets/{sheet['id']}", {"names": names}, token)
        assert status == 400 and message in error["message"]
        status, error = call(server, "POST", "/api/sheets", {"names": names}, token)
        assert status == 400 and message in error["message"]
    _, again = call(server, "GET", f"/api/sheets/{sheet['id']}", token=token)
    assert again["names"] == ["Ann", "Robert"]
    other = secrets.token_hex(12)
    status, _ = call(server, "PATCH", f"/api/sheets/{sheet['id']}", {"names": ["X", "Y"]}, other)
    assert status == 403


def test_owner_only_and_plain_http_errors(server: str, token: str) -> None:
    sheet = _new(server, token)
    status, error = call(server, "GET", f"/api/sheets/{sheet['id']}")
    assert status == 401 and "X-Device-Token" in error["message"]
    status, error = call(server, "GET", f"/api/sheets/{sheet['id']}", token=secrets.token_hex(12))
    assert status == 403
    status, error = call(server, "GET", "/api/sheets/" + "0" * 32, token=token)
    assert status == 404
    status, error = call(server, "DELETE", f"/api/sheets/{sheet['id']}/rounds/3", token=token)
    assert status == 400 and "there is no round 3" in error["message"]


def test_read_only_share_link_and_csv(server: str, token: str) -> None:
    sheet = _new(server, token, layout="three_singles", names=["Ann", "Bob", "Cy"])
    call(server, "POST", f"/api/sheets/{sheet['id']}/rounds", {"totals": [40, 40, 10]}, token)
    status, shared = call(server, "GET", f"/api/shared/{sheet['share_id']}")
    assert status == 200 and "id" not in shared
    assert shared["rounds"][0]["points"] == [1, 1, 0]
    status, csv = call(server, "GET", f"/api/shared/{sheet['share_id']}.csv")
    row = ["1", "1", "Ann", "", "", "", "", "40", "1", "1", "", "", "", "", "40", "1", "1"]
    row += ["", "", "", "", "10", "0", "0", "8", ""]
    assert status == 200 and csv.splitlines()[1] == ",".join(row)
    status, _error = call(server, "GET", "/api/shared/" + "f" * 32)
    assert status == 404
    status, _ = call(server, "DELETE", f"/api/sheets/{sheet['id']}", token=token)
    assert status == 204
    status, _ = call(server, "GET", f"/api/shared/{sheet['share_id']}")
    assert status == 404


def test_concurrent_rounds_are_all_kept(server: str, token: str) -> None:
    sheet = _new(server, token, scoring="to_100")
    path = f"/api/sheets/{sheet['id']}/rounds"
    with ThreadPoolExecutor(8) as pool:
        answers = list(
            pool.map(lambda _: call(server, "POST", path, {"totals": [5, 0]}, token), range(8))
        )
    assert all(status == 200 for status, _ in answers)
    _, final = call(server, "GET", f"/api/sheets/{sheet['id']}", token=token)
    assert len(final["rounds"]) == 8 and final["scores"] == [40, 0]
