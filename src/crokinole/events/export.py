"""Export and import of an event: standings as CSV, every match as CMN 1.0 JSON.

This module owns the two outside formats of an event:

- :func:`standings_csv`: the standings as a spreadsheet (RFC 4180 CSV), every
  cell guarded against formula injection (:func:`crokinole.rules.sheet.csv_cell`);
- :func:`to_cmn` and :func:`from_cmn`: Crokinole Match Notation 1.0, our
  reading of the clubs' draft (``docs/cmn.md``).  Words: a CMN **match** is
  our game, a CMN **game** is our round of discs; a best-of-3 pairing is up
  to three CMN matches sharing its round and table, told apart by ``set``.

An event exported and imported again gives the same standings, values
included.  :func:`from_cmn` refuses a bad document with
``EventError(bad_event)`` naming the field and the match, never a
``KeyError`` or ``TypeError``.

>>> from crokinole.events.model import (EventSettings, Entrant, Format, GameScore,
...     MatchResult, Pairing, Person, RoundScore)
>>> settings = EventSettings(name="Club night", format=Format.SWISS, rounds=1)
>>> people = [Entrant("e1", "Ann", (Person("Ann"),)), Entrant("e2", "=Bo", (Person("=Bo"),))]
>>> game = GameScore(tuple(RoundScore((20, 10), (1, 0)) for _ in range(4)))
>>> matches = [(Pairing(1, 1, (("e1",), ("e2",))), MatchResult((game,)))]
>>> doc = to_cmn(settings, people, matches)
>>> doc["matches"][0]["games"][0]
{'number': 1, 'scores': [20, 10], 'twenties': [1, 0]}
>>> settings2, people2, matches2 = from_cmn(doc)
>>> standings(settings2, people2, matches2) == standings(settings, people, matches)
True
>>> for line in standings_csv(standings(settings, people, matches)).splitlines():
...     print(line)
Rank,Name,Played,W,D,L,Byes,Match points,20s,Head-to-head,Differential
1,Ann,1,1,0,0,0,2,4,0,40
2,'=Bo,1,0,0,1,0,0,0,0,-40
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from crokinole.errors import ErrorCode, EventError
from crokinole.events.model import (
    MAX_ENTRANTS,
    Entrant,
    EntrantStatus,
    EventSettings,
    GameScore,
    MatchResult,
    Pairing,
    Person,
    RoundScore,
    Teams,
    TieBreak,
)
from crokinole.events.standings import Standing, standings
from crokinole.rules.sheet import csv_cell

__all__ = [
    "CMN_VERSION",
    "TIE_BREAK_NAMES",
    "from_cmn",
    "standings_csv",
    "to_cmn",
]

#: The CMN draft this module writes and reads.
CMN_VERSION = "1.0"

#: Each tie-break's name for people (the CSV's header).
TIE_BREAK_NAMES: Mapping[TieBreak, str] = {
    TieBreak.MATCH_POINTS: "Match points",
    TieBreak.TWENTIES: "20s",
    TieBreak.HEAD_TO_HEAD: "Head-to-head",
    TieBreak.DIFFERENTIAL: "Differential",
    TieBreak.WINS: "Wins",
    TieBreak.GAME_POINTS: "Game points",
    TieBreak.BUCHHOLZ: "Buchholz",
    TieBreak.RATING: "Rating",
    TieBreak.BRACKET: "Bracket round reached",
}

#: The most CMN matches a document may hold (every entrant, every round, best of 5).
MAX_CMN_MATCHES = MAX_ENTRANTS * 30 * 5


# --- CSV ---------------------------------------------------------------------------


def _number(value: float) -> str:
    """A number as a cell: whole numbers without a decimal point."""
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def standings_csv(rows: Sequence[Standing], tie_breaks: Sequence[TieBreak] | None = None) -> str:
    """The standings as CSV: rank, name, played, W, D, L, byes, then each tie-break.

    Args:
        rows: the standings (:func:`~crokinole.events.standings.standings`).
        tie_breaks: the columns after the record; left out, the first
            standing's tie-breaks (none for empty standings).

    A name that a spreadsheet would run as a formula (``=``, ``+``, ``-``,
    ``@`` …) is written with a leading ``'``.
    """
    order = list(tie_breaks if tie_breaks is not None else (rows[0].values if rows else ()))
    header = ["Rank", "Name", "Played", "W", "D", "L", "Byes"]
    header += [TIE_BREAK_NAMES[t] for t in order]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180: CRLF, "" inside quotes
    writer.writerow(header)
    for row in rows:
        tally = row.tally
        record = (tally.played, tally.wins, tally.draws, tally.losses, tally.byes)
        writer.writerow(
            [str(row.rank), csv_cell(row.name)]
            + [str(n) for n in record]
            + [_number(row.values.get(t, 0)) for t in order]
        )
    return out.getvalue()


# --- CMN out -------------------------------------------------------------------------


def _match_id(pairing: Pairing, number: int) -> str:
    return f"r{pairing.round}-t{pairing.table}-s{number}"


def to_cmn(
    settings: EventSettings,
    entrants: Sequence[Entrant],
    matches: Sequence[tuple[Pairing, MatchResult | None]],
) -> dict[str, Any]:
    """The event as a CMN 1.0 document (``docs/cmn.md``): JSON-ready.

    Args:
        settings: the event's settings.
        entrants: every entrant.
        matches: the played matches and the byes (a bye's result is None),
            as :func:`~crokinole.events.standings.standings` takes them.

    Raises:
        EventError: what :func:`~crokinole.events.standings.standings`
            refuses, or two pairings at the same round and table.
    """
    standings(settings, entrants, matches)  # the same checks as the standings
    seen: set[tuple[int, int]] = set()
    out: list[dict[str, Any]] = []
    for pairing, result in matches:
        key = (pairing.round, pairing.table)
        if key in seen:
            raise EventError(
                ErrorCode.BAD_EVENT,
                f"two pairings are at round {pairing.round}, table {pairing.table}",
            )
        seen.add(key)
        common = {
            "round": pairing.round,
            "table": pairing.table,
            "stage": pairing.stage,
            "best_of": pairing.best_of,
            "slot": list(pairing.slot) if pairing.slot is not None else None,
        }
        if result is None:
            out.append(
                {
                    "id": _match_id(pairing, 1),
                    **common,
                    "set": 1,
                    "first": 0,
                    "bye": True,
                    "sides": [list(pairing.sides[0])],
                    "games": [],
                    "forfeit": None,
                }
            )
            continue
        for number, game in enumerate(result.games, 1):
            out.append(
                {
                    "id": _match_id(pairing, number),
                    **common,
                    "set": number,
                    "first": pairing.first if number % 2 else 1 - pairing.first,
                    "bye": False,
                    "sides": [list(pairing.sides[0]), list(pairing.sides[1])],
                    "games": [
                        {
                            "number": index,
                            "scores": list(played.totals),
                            "twenties": list(played.twenties),
                        }
                        for index, played in enumerate(game.rounds, 1)
                    ],
                    "forfeit": game.forfeit,
                }
            )
    return {
        "cmn": CMN_VERSION,
        "event": settings.to_dict(),
        "players": [
            {
                "id": e.id,
                "name": e.name,
                "members": [p.name for p in e.members],
                "rating": e.rating,
                "status": e.status.value,
            }
            for e in entrants
        ],
        "matches": out,
    }


# --- CMN in --------------------------------------------------------------------------


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


def _get(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise _fail(f"{where}: {key!r} is missing")
    return obj[key]


def _whole(value: Any, what: str, low: int = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(f"{what} is a whole number, not {value!r}")
    if value < low or (high is not None and value > high):
        top = "" if high == low else f" to {high}" if high is not None else " or more"
        raise _fail(f"{what} is {low}{top}, not {value}")
    return value


def _text(value: Any, what: str, most: int = 80) -> str:
    if not isinstance(value, str):
        raise _fail(f"{what} is a text, not {value!r}")
    if not value.strip() or len(value) > most:
        raise _fail(f"{what} is 1 to {most} characters, not {value!r}")
    return value


def _array(value: Any, what: str, most: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(f"{what} is a list, not {value!r}")
    if most is not None and len(value) > most:
        raise _fail(f"{what} has at most {most} entries, not {len(value)}")
    return value


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(f"{what} is a JSON object, not {value!r}")
    return value


def _player(data: Any, index: int, settings: EventSettings) -> Entrant:
    where = f"players[{index}]"
    data = _object(data, where)
    entrant_id = _text(_get(data, "id", where), f"{where}.id", 40)
    where = f"player {entrant_id!r}"
    name = _text(_get(data, "name", where), f"{where}: name")
    size = 2 if settings.teams is Teams.FIXED else 1
    members = _array(_get(data, "members", where), f"{where}: members", size)
    if len(members) != size:
        raise _fail(f"{where}: members has {size} name(s) in a {settings.teams.value} event")
    people = tuple(Person(_text(m, f"{where}: members[{i}]")) for i, m in enumerate(members))
    rating = data.get("rating", 0.0)
    if isinstance(rating, bool) or not isinstance(rating, int | float) or not math.isfinite(rating):
        raise _fail(f"{where}: rating is a number, not {rating!r}")
    status_value = data.get("status", EntrantStatus.ACTIVE.value)
    try:
        status = EntrantStatus(status_value)
    except ValueError:
        raise _fail(f"{where}: status is active, paused or dropped, not {status_value!r}") from None
    return Entrant(entrant_id, name, people, float(rating), status, checked_in=True)


def _ids(value: Any, what: str) -> tuple[str, ...]:
    return tuple(_text(i, f"{what}[{n}]", 40) for n, i in enumerate(_array(value, what, 2)))


def _rounds(value: Any, where: str) -> tuple[RoundScore, ...]:
    played: list[RoundScore] = []
    for index, item in enumerate(_array(value, f"{where}: games", 64)):
        what = f"{where}: games[{index}]"
        data = _object(item, what)
        _whole(_get(data, "number", what), f"{what}.number", index + 1, index + 1)
        pair: list[tuple[int, int]] = []
        for key in ("scores", "twenties"):
            values = _array(_get(data, key, what), f"{what}.{key}", 2)
            if len(values) != 2:
                raise _fail(f"{what}.{key} has two numbers, one a side")
            pair.append(
                (_whole(values[0], f"{what}.{key}[0]"), _whole(values[1], f"{what}.{key}[1]"))
            )
        try:
            played.append(RoundScore(pair[0], pair[1]))
        except EventError as exc:
            raise _fail(f"{what}: {exc.message}") from None
    return tuple(played)


_SHARED = ("round", "table", "stage", "best_of", "sides", "slot", "bye")


def _cmn_match(data: Any, index: int) -> dict[str, Any]:
    """One CMN match's fields, each checked for its kind."""
    where = f"matches[{index}]"
    data = _object(data, where)
    match_id = _text(_get(data, "id", where), f"{where}.id", 80)
    where = f"match {match_id!r}"
    bye = data.get("bye", False)
    if not isinstance(bye, bool):
        raise _fail(f"{where}: bye is true or false, not {bye!r}")
    sides = _array(_get(data, "sides", where), f"{where}: sides", 2)
    if bye and (len(sides) not in (1, 2) or (len(sides) == 2 and sides[1] != [])):
        raise _fail(f"{where}: a bye has one side")
    if not bye and len(sides) != 2:
        raise _fail(f"{where}: a match has two sides")
    parsed_sides = [_ids(side, f"{where}: sides[{n}]") for n, side in enumerate(sides)]
    if bye:
        parsed_sides = [parsed_sides[0], ()]
    slot = data.get("slot")
    if slot is not None:
        slot = _array(slot, f"{where}: slot", 2)
        if len(slot) != 2:
            raise _fail(f"{where}: slot is [bracket round, match]")
        slot = (_whole(slot[0], f"{where}: slot[0]", 1), _whole(slot[1], f"{where}: slot[1]", 1))
    forfeit = data.get("forfeit")
    if forfeit is not None:
        forfeit = _whole(forfeit, f"{where}: forfeit", 0, 1)
    stage = data.get("stage", "")
    if not isinstance(stage, str) or len(stage) > 80:
        raise _fail(f"{where}: stage is a text of at most 80 characters, not {stage!r}")
    return {
        "id": match_id,
        "where": where,
        "round": _whole(_get(data, "round", where), f"{where}: round", 1),
        "table": _whole(_get(data, "table", where), f"{where}: table", 1),
        "stage": stage,
        "best_of": _whole(_get(data, "best_of", where), f"{where}: best_of", 1, 5),
        "set": _whole(_get(data, "set", where), f"{where}: set", 1),
        "first": _whole(data.get("first", 0), f"{where}: first", 0, 1),
        "bye": bye,
        "sides": (parsed_sides[0], parsed_sides[1]),
        "slot": slot,
        "rounds": _rounds(data.get("games", []), where),
        "forfeit": forfeit,
    }


def _pairing(sets: list[dict[str, Any]]) -> tuple[Pairing, MatchResult | None]:
    """The pairing and result of one round and table's CMN matches (in set order)."""
    head = sets[0]
    for number, item in enumerate(sets, 1):
        where = item["where"]
        if item["set"] != number:
            raise _fail(
                f"{where}: round {head['round']}, table {head['table']} has no set {number}"
            )
        for key in _SHARED:
            if item[key] != head[key]:
                raise _fail(f"{where}: {key} differs from set 1 of the same round and table")
        expected = head["first"] if number % 2 else 1 - head["first"]
        if item["first"] != expected:
            raise _fail(f"{where}: first is {expected} (the first shooter alternates each set)")
    pairing = Pairing(
        round=head["round"],
        table=head["table"],
        sides=head["sides"],
        first=head["first"],
        stage=head["stage"],
        best_of=head["best_of"],
        slot=head["slot"],
    )
    if head["bye"]:
        if len(sets) != 1 or head["rounds"] or head["forfeit"] is not None:
            raise _fail(f"{head['where']}: a bye has one set, no games and no forfeit")
        return pairing, None
    return pairing, MatchResult(tuple(GameScore(s["rounds"], s["forfeit"]) for s in sets))


def from_cmn(
    doc: Any,
) -> tuple[EventSettings, tuple[Entrant, ...], tuple[tuple[Pairing, MatchResult | None], ...]]:
    """The settings, entrants and matches of a CMN 1.0 document (``docs/cmn.md``).

    Raises:
        EventError: ``bad_event`` naming the field (and the match or the
            player) that is missing or wrong, or the result that cannot
            count (a game not finished, a best of 3 not decided …).
    """
    doc = _object(doc, "a CMN document")
    version = doc.get("cmn")
    if version != CMN_VERSION:
        raise _fail(f"cmn is the version {CMN_VERSION!r}, not {version!r}")
    event = _object(_get(doc, "event", "the document"), "event")
    for key, kind, words in (
        ("name", str, "a text"),
        ("date", str, "a text (YYYY-MM-DD)"),
        ("rated", bool, "true or false"),
        ("tie_breaks", list, "a list"),
        ("points", dict, "a JSON object"),
        ("rules", dict, "a JSON object"),
    ):
        if key in event and not isinstance(event[key], kind):
            raise _fail(f"event: {key} is {words}, not {event[key]!r}")
    try:
        settings = EventSettings.from_dict(event)
    except EventError as exc:
        raise _fail(f"event: {exc.message}") from None
    players = _array(_get(doc, "players", "the document"), "players", MAX_ENTRANTS)
    entrants = tuple(_player(p, i, settings) for i, p in enumerate(players))
    seen_ids: set[str] = set()
    for entrant in entrants:
        if entrant.id in seen_ids:
            raise _fail(f"players: two players have the id {entrant.id!r}")
        seen_ids.add(entrant.id)
    items = _array(_get(doc, "matches", "the document"), "matches", MAX_CMN_MATCHES)
    groups: dict[tuple[int, int], list[dict[str, Any]]] = {}
    match_ids: set[str] = set()
    for index, data in enumerate(items):
        item = _cmn_match(data, index)
        if item["id"] in match_ids:
            raise _fail(f"matches: two matches have the id {item['id']!r}")
        match_ids.add(item["id"])
        groups.setdefault((item["round"], item["table"]), []).append(item)
    matches = tuple(_pairing(sorted(sets, key=lambda s: int(s["set"]))) for sets in groups.values())
    try:
        standings(settings, entrants, matches)
    except EventError as exc:
        raise _fail(exc.message) from None
    return settings, entrants, matches
