"""Export (issue 23 *Export*): standings as CSV, every match as CMN 1.0 (docs/cmn.md).

CMN words: a CMN "match" is our game, a CMN "game" is our round of discs.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crokinole.errors import ErrorCode, EventError
from crokinole.events.export import from_cmn, standings_csv, to_cmn
from crokinole.events.model import (
    Entrant,
    EventSettings,
    Format,
    MatchResult,
    Pairing,
    Person,
    Teams,
    TieBreak,
)
from crokinole.events.standings import standings
from crokinole.rules.options import Rules
from tests.events.standings_support import doubles, events, forfeit, game, one, pair, people, swiss
from tests.events.test_standings import FIVE, FIVE_MATCHES, SIX, SIX_MATCHES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cmn.md"


def _renamed(entrants: list[Entrant], names: dict[str, str]) -> list[Entrant]:
    return [
        Entrant(e.id, names.get(e.id, e.name), (Person(names.get(e.id, e.name), 7),), e.rating)
        for e in entrants
    ]


# --- CSV --------------------------------------------------------------------------------


def test_standings_csv_of_the_five_player_event() -> None:
    """The header of the issue's export (rank, name, played, W, D, L, byes, each tie-break);
    the figures worked by hand in test_standings (P 1, T 2, R and Q 3 shared, S 5); names
    a spreadsheet would run as formulas start with ' (rules/sheet.py's csv_cell)."""
    entrants = _renamed(FIVE, {"Q": "=SUM(A1)", "S": "-Sam, Jr."})
    text = standings_csv(standings(swiss(), entrants, FIVE_MATCHES))
    assert text == (
        "Rank,Name,Played,W,D,L,Byes,Match points,20s,Head-to-head,Differential\r\n"
        "1,P,2,2,0,0,0,4,2,0,25\r\n"
        "2,T,1,1,0,0,1,4,1,0,20\r\n"
        "3,R,2,1,0,1,0,2,0,0,-20\r\n"
        "3,'=SUM(A1),1,0,0,1,1,2,0,0,-20\r\n"
        '5,"\'-Sam, Jr.",2,0,0,2,0,0,0,0,-5\r\n'
    )


def test_standings_csv_other_tie_breaks_and_ratings() -> None:
    """Readable tie-break names; a whole rating without a decimal point, others as written."""
    entrants = [
        Entrant("A", "A", (Person("A"),), 1520.5),
        Entrant("B", "B", (Person("B"),), 1500.0),
    ]
    order = [TieBreak.WINS, TieBreak.GAME_POINTS, TieBreak.BUCHHOLZ, TieBreak.RATING]
    rows = standings(swiss(order), entrants, [(pair(1, 1, "B", "A"), one(20, 20))])
    lines = standings_csv(rows).splitlines()
    assert lines == [
        "Rank,Name,Played,W,D,L,Byes,Wins,Game points,Buchholz,Rating",
        "1,A,1,0,1,0,0,0,4,1,1520.5",
        "2,B,1,0,1,0,0,0,4,1,1500",
    ]
    assert standings_csv((), order).splitlines() == [lines[0]]
    assert standings_csv(()) == "Rank,Name,Played,W,D,L,Byes\r\n"


@settings(max_examples=60, deadline=None)
@given(events())
def test_standings_csv_parses_back_with_the_same_ranks_and_names(
    event: tuple[EventSettings, list[Entrant], list[tuple[Pairing, MatchResult | None]]],
) -> None:
    rows = standings(*event)
    parsed = list(csv.reader(io.StringIO(standings_csv(rows), newline="")))
    assert len(parsed) == len(rows) + 1
    assert len({len(line) for line in parsed}) == 1
    for line, row in zip(parsed[1:], rows, strict=True):
        expected = "'" + row.name if row.name[0] in "=+-@\t\r" else row.name
        assert (int(line[0]), line[1]) == (row.rank, expected)
        assert float(line[7]) == row.values[event[0].tie_breaks[0]]


# --- CMN out ------------------------------------------------------------------------------

BEST_OF_3 = (
    Pairing(4, 1, (("A",), ("B",)), first=1, stage="Final", best_of=3, slot=(2, 1)),
    MatchResult((game(10, 30, 0, 1), game(40, 20, 2, 0), forfeit(1).games[0])),
)


def test_cmn_lists_each_game_as_a_match_and_each_round_as_a_game() -> None:
    """Issue 23: a CMN "match" is our game, a CMN "game" our round; a best of 3 is up to
    three CMN matches sharing its round and table, by set; the first shooter alternates;
    a bye is a match with one side and no games."""
    matches = [*SIX_MATCHES[:3], (pair(3, 4, "C", None), None), BEST_OF_3]
    doc = to_cmn(swiss(), _renamed(SIX, {}), matches)
    assert doc["cmn"] == "1.0"
    assert doc["event"]["tie_breaks"] == [
        "match_points",
        "twenties",
        "head_to_head",
        "differential",
    ]
    assert doc["players"][0] == {
        "id": "A",
        "name": "A",
        "members": ["A"],
        "rating": 1400,
        "status": "active",
    }
    assert "7" not in json.dumps(doc["players"])  # the members' account ids are never written
    first = doc["matches"][0]
    assert first == {
        "id": "r1-t1-s1",
        "round": 1,
        "table": 1,
        "stage": "",
        "best_of": 1,
        "slot": None,
        "set": 1,
        "first": 0,
        "bye": False,
        "sides": [["A"], ["B"]],
        "games": [
            {"number": 1, "scores": [30, 20], "twenties": [0, 0]},
            {"number": 2, "scores": [10, 10], "twenties": [0, 0]},
            {"number": 3, "scores": [10, 10], "twenties": [0, 0]},
            {"number": 4, "scores": [10, 10], "twenties": [0, 0]},
        ],
        "forfeit": None,
    }
    bye = doc["matches"][3]
    assert (bye["bye"], bye["sides"], bye["games"], bye["forfeit"]) == (True, [["C"]], [], None)
    final = doc["matches"][4:]
    assert [m["id"] for m in final] == ["r4-t1-s1", "r4-t1-s2", "r4-t1-s3"]
    assert [m["set"] for m in final] == [1, 2, 3]
    assert [m["first"] for m in final] == [1, 0, 1]
    assert {(m["round"], m["table"], m["stage"], m["best_of"]) for m in final} == {
        (4, 1, "Final", 3)
    }
    assert [m["slot"] for m in final] == [[2, 1]] * 3
    assert [m["forfeit"] for m in final] == [None, None, 1]
    assert final[2]["games"] == []
    assert json.loads(json.dumps(doc)) == doc


def test_to_cmn_refuses_what_the_standings_refuse_and_two_pairings_at_one_table() -> None:
    with pytest.raises(EventError, match="two pairings are at round 1, table 1"):
        to_cmn(swiss(), SIX, [SIX_MATCHES[0], (pair(1, 1, "C", "D"), one(20, 10))])
    with pytest.raises(EventError, match="the match has no result"):
        to_cmn(swiss(), SIX, [(pair(1, 1, "C", "D"), None)])


# --- CMN round trip -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings_", "entrants", "matches"),
    [
        (swiss(), SIX, SIX_MATCHES),
        (swiss(), FIVE, FIVE_MATCHES),
        (swiss([TieBreak.BUCHHOLZ, TieBreak.RATING]), SIX, [*SIX_MATCHES, BEST_OF_3]),
        (
            doubles([TieBreak.MATCH_POINTS, TieBreak.BUCHHOLZ, TieBreak.DIFFERENTIAL]),
            people("abcde"),
            [
                (Pairing(1, 1, (("a", "b"), ("c", "d"))), one(40, 20, 1, 0)),
                (Pairing(1, 2, (("e",), ())), None),
                (Pairing(2, 1, (("a", "c"), ("b", "e"))), forfeit(0)),
                (Pairing(2, 2, (("d",), ())), None),
            ],
        ),
    ],
)
def test_cmn_round_trip_gives_the_same_event(
    settings_: EventSettings,
    entrants: list[Entrant],
    matches: list[tuple[Pairing, MatchResult | None]],
) -> None:
    """Issue 23: an event exported and imported again gives the same standings."""
    doc = json.loads(json.dumps(to_cmn(settings_, entrants, matches)))
    settings2, entrants2, matches2 = from_cmn(doc)
    assert settings2 == settings_
    assert matches2 == tuple(matches)
    assert [(e.id, e.name, e.members, e.rating, e.status) for e in entrants2] == [
        (e.id, e.name, e.members, e.rating, e.status) for e in entrants
    ]
    assert standings(settings2, entrants2, matches2) == standings(settings_, entrants, matches)


@settings(max_examples=80, deadline=None)
@given(events())
def test_cmn_round_trip_over_generated_events(
    event: tuple[EventSettings, list[Entrant], list[tuple[Pairing, MatchResult | None]]],
) -> None:
    doc = json.loads(json.dumps(to_cmn(*event)))
    back = from_cmn(doc)
    assert back[0] == event[0]
    assert back[2] == tuple(event[2])
    before, after = standings(*event), standings(*back)
    assert after == before
    assert [dict(r.values) for r in after] == [dict(r.values) for r in before]


def test_the_example_of_docs_cmn_reads() -> None:
    """docs/cmn.md's document is a valid CMN 1.0 event: Ann beat Bo 5–3 in game points
    (rounds 35–10, 20–25, 40–5, 15–15: 2, 0, 2, 1 against 0, 2, 0, 1); Cy had a bye."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text, re.S)
    assert block is not None
    settings_, entrants, matches = from_cmn(json.loads(block.group(1)))
    rows = standings(settings_, entrants, matches)
    assert [(r.rank, r.name, r.values[TieBreak.TWENTIES]) for r in rows] == [
        (1, "Ann", 3),
        (2, "Cy", 0),
        (3, "Bo", 0),
    ]
    assert rows[0].tally.game_points == 5
    assert entrants[1].status == "dropped"


# --- CMN in: bad documents ----------------------------------------------------------------


def _doc() -> dict[str, Any]:
    return to_cmn(swiss(), SIX, [*SIX_MATCHES[:2], (pair(1, 3, "E", None), None), BEST_OF_3])


def _set(path: str, value: object) -> Any:
    """A change to a good document: the value at a dotted path (``matches.0.round``)."""

    def change(doc: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is _DELETE:
            del node[int(last) if isinstance(node, list) else last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return change


_DELETE = object()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (_set("cmn", "2.0"), "cmn is the version '1.0', not '2.0'"),
        (_set("event", _DELETE), "the document: 'event' is missing"),
        (_set("event.format", "ladder"), "event: the event's settings are not valid"),
        (_set("event.rounds", 0), "event: a Swiss event plays 1 to 30 rounds"),
        (_set("event.name", 5), "event: name is a text, not 5"),
        (_set("event.rated", "no"), "event: rated is true or false, not 'no'"),
        (_set("event.tie_breaks", "wins"), "event: tie_breaks is a list"),
        (_set("event.tie_breaks", ["luck"]), "event: the event's settings are not valid"),
        (_set("event.points", [3, 1, 0]), "event: points is a JSON object"),
        (_set("event.points.win", 2.5), "event: points.win is a whole number, not 2.5"),
        (_set("event.rules", {"layout": "doubles"}), "event: the event's settings are not valid"),
        (_set("players", {"A": 1}), "players is a list"),
        (_set("players.0", "A"), "players[0] is a JSON object"),
        (_set("players.0.id", _DELETE), "players[0]: 'id' is missing"),
        (_set("players.1.id", "A"), "two players have the id 'A'"),
        (_set("players.0.name", ""), "player 'A': name is 1 to 80 characters"),
        (_set("players.0.members", ["A", "B"]), "player 'A': members has at most 1"),
        (_set("players.0.rating", "high"), "player 'A': rating is a number"),
        (_set("players.0.status", "gone"), "player 'A': status is active, paused or dropped"),
        (_set("matches", None), "matches is a list"),
        (_set("matches.0.id", 5), "matches[0].id is a text"),
        (_set("matches.1.id", "r1-t1-s1"), "two matches have the id 'r1-t1-s1'"),
        (_set("matches.0.round", "1"), "match 'r1-t1-s1': round is a whole number, not '1'"),
        (_set("matches.0.table", 0), "match 'r1-t1-s1': table is 1 or more, not 0"),
        (_set("matches.0.set", True), "match 'r1-t1-s1': set is a whole number, not True"),
        (_set("matches.0.games", "35-10"), "match 'r1-t1-s1': games is a list"),
        (_set("matches.0.games.0", [30, 20]), "match 'r1-t1-s1': games[0] is a JSON object"),
        (
            _set("matches.0.games.0.scores", [30, "20"]),
            "match 'r1-t1-s1': games[0].scores[1] is a whole number, not '20'",
        ),
        (
            _set("matches.0.games.0.scores", [31, 20]),
            "match 'r1-t1-s1': games[0]: a round total is a multiple of 5",
        ),
        (
            _set("matches.0.games.0.twenties", [2, 0]),
            "match 'r1-t1-s1': games[0]: 2 20s do not fit in a round total of 30",
        ),
        (_set("matches.0.games.0.scores", [30]), "games[0].scores has two numbers"),
        (_set("matches.0.games.1.number", 3), "match 'r1-t1-s1': games[1].number is 2, not 3"),
        (_set("matches.0.games.3", _DELETE), "round 1, table 1: game 1 is not finished"),
        (_set("matches.0.sides", [["A"]]), "match 'r1-t1-s1': a match has two sides"),
        (_set("matches.0.sides", [["A"], ["Z"]]), "'Z' is not an entrant of the event"),
        (_set("matches.0.sides", [["A"], [3]]), "match 'r1-t1-s1': sides[1][0] is a text"),
        (_set("matches.0.forfeit", 2), "match 'r1-t1-s1': forfeit is 0 to 1, not 2"),
        (_set("matches.0.first", -1), "match 'r1-t1-s1': first is 0 to 1, not -1"),
        (_set("matches.0.best_of", 2), "round 1, table 1: a match is best of 1, 3 or 5"),
        (_set("matches.0.slot", [1]), "match 'r1-t1-s1': slot is [bracket round, match]"),
        (_set("matches.0.stage", 7), "match 'r1-t1-s1': stage is a text"),
        (_set("matches.0.bye", "no"), "match 'r1-t1-s1': bye is true or false"),
        (
            _set("matches.2.games", [{"number": 1, "scores": [5, 0], "twenties": [0, 0]}]),
            "a bye has one set, no games",
        ),
        (_set("matches.2.sides", [["E"], ["F"]]), "match 'r1-t3-s1': a bye has one side"),
        (_set("matches.4.set", 3), "match 'r4-t1-s2': round 4, table 1 has no set 2"),
        (_set("matches.4.stage", "Semi"), "match 'r4-t1-s2': stage differs from set 1"),
        (_set("matches.4.sides", [["B"], ["A"]]), "match 'r4-t1-s2': sides differs from set 1"),
        (_set("matches.4.first", 1), "match 'r4-t1-s2': first is 0 (the first shooter alternates"),
        (_set("matches.5", _DELETE), "round 4, table 1: best of 3: a side needs 2 game wins"),
    ],
)
def test_bad_cmn_documents_are_refused_naming_the_field_and_the_match(
    change: Any, words: str
) -> None:
    doc = _doc()
    change(doc)
    with pytest.raises(EventError) as info:
        from_cmn(doc)
    assert info.value.code is ErrorCode.BAD_EVENT
    assert words in info.value.message


@pytest.mark.parametrize("doc", [None, [], "cmn", 1.0, {"cmn": "1.0"}])
def test_what_is_not_a_cmn_document_is_refused(doc: object) -> None:
    with pytest.raises(EventError) as info:
        from_cmn(doc)
    assert info.value.code is ErrorCode.BAD_EVENT


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 70)
    | st.floats(allow_nan=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            paths += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            paths += _paths(value, (*prefix, index))
    return paths


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_broken_document_is_refused_with_an_event_error_only(data: st.DataObject) -> None:
    """Bad input never raises KeyError or TypeError (issue 23: validate every field)."""
    doc = copy.deepcopy(_doc())
    paths = _paths(doc)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        node: Any = doc
        try:
            for key in path[:-1]:
                node = node[key]
            if data.draw(st.booleans()) and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the place
    try:
        from_cmn(doc)
    except EventError as exc:
        assert exc.code is ErrorCode.BAD_EVENT
        assert exc.message


def test_fixed_teams_list_both_members_and_need_two() -> None:
    """Doubles of fixed teams: an entrant is a team of two (issue 23); CMN lists both."""
    fixed = EventSettings(
        name="Pairs", format=Format.SWISS, rounds=1, teams=Teams.FIXED, rules=Rules.doubles()
    )
    teams = [
        Entrant("t1", "Reds", (Person("Ann"), Person("Bo"))),
        Entrant("t2", "Blues", (Person("Cy"), Person("Dee"))),
    ]
    matches = [(pair(1, 1, "t1", "t2"), one(20, 10))]
    doc = to_cmn(fixed, teams, matches)
    assert [p["members"] for p in doc["players"]] == [["Ann", "Bo"], ["Cy", "Dee"]]
    assert from_cmn(doc)[1][0].members == (Person("Ann"), Person("Bo"))
    doc["players"][1]["members"] = ["Cy"]
    with pytest.raises(EventError, match="player 't2': members has 2 name"):
        from_cmn(doc)
