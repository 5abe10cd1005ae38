"""The JSON of the event's values, as its log stores them and its view shows them.

Each ``*_to_dict`` has its ``*_from_dict``, which validates and raises
:class:`~crokinole.errors.EventError` (``bad_result`` for a result,
``bad_event`` for the rest) with the field named; never a ``KeyError``.

>>> result = MatchResult((GameScore((RoundScore((35, 10), (1, 0)),)),))
>>> result_from_dict(result_to_dict(result)) == result
True
>>> result_from_dict({"games": [{"rounds": [{"totals": [35]}]}]})
Traceback (most recent call last):
...
crokinole.errors.EventError: game 1, round 1: totals are two whole numbers, one a side
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crokinole.errors import ErrorCode, EventError
from crokinole.events.model import (
    Entrant,
    EntrantStatus,
    GameScore,
    MatchResult,
    Pairing,
    Person,
    RoundScore,
)

__all__ = [
    "entrant_from_dict",
    "entrant_to_dict",
    "pairing_from_dict",
    "pairing_to_dict",
    "result_from_dict",
    "result_to_dict",
]

#: The most games in a match (best of 5) and rounds in a game (4 + 4 extra, or a long game to 100).
MAX_GAMES = 5
MAX_GAME_ROUNDS = 60


def result_to_dict(result: MatchResult) -> dict[str, Any]:
    """A match result as JSON: ``{"games": [{"rounds": [{"totals", "twenties"}], "forfeit"}]}``."""
    return {
        "games": [
            {
                "rounds": [
                    {"totals": list(r.totals), "twenties": list(r.twenties)} for r in game.rounds
                ],
                "forfeit": game.forfeit,
            }
            for game in result.games
        ]
    }


def _bad(message: str) -> EventError:
    return EventError(ErrorCode.BAD_RESULT, message)


def _pair(value: object, what: str, where: str) -> tuple[int, int]:
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise _bad(f"{where}: {what} are two whole numbers, one a side")
    return (int(value[0]), int(value[1]))


def result_from_dict(data: object) -> MatchResult:
    """A match result from JSON, validated (every round's totals and 20s, R6)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("games"), list):
        raise _bad('a result is {"games": [...]}, one entry per game')
    games_data = data["games"]
    if not 1 <= len(games_data) <= MAX_GAMES:
        raise _bad(f"a result has 1 to {MAX_GAMES} games, not {len(games_data)}")
    games = []
    for number, game in enumerate(games_data, 1):
        if not isinstance(game, Mapping):
            raise _bad(f"game {number} is an object with its rounds")
        forfeit = game.get("forfeit")
        if forfeit not in (None, 0, 1) or isinstance(forfeit, bool):
            raise _bad(f"game {number}: forfeit is 0, 1 or null, not {forfeit!r}")
        rounds_data = game.get("rounds", [])
        if not isinstance(rounds_data, list) or len(rounds_data) > MAX_GAME_ROUNDS:
            raise _bad(f"game {number}: rounds is a list of at most {MAX_GAME_ROUNDS} rounds")
        if forfeit is None and not rounds_data:
            raise _bad(f"game {number} has no rounds and is not a forfeit")
        rounds = []
        for index, played in enumerate(rounds_data, 1):
            where = f"game {number}, round {index}"
            if not isinstance(played, Mapping):
                raise _bad(f"{where} is an object with totals and twenties")
            totals = _pair(played.get("totals"), "totals", where)
            twenties = _pair(played.get("twenties", [0, 0]), "twenties", where)
            try:
                rounds.append(RoundScore(totals, twenties))
            except EventError as exc:
                raise _bad(f"{where}: {exc}") from None
        games.append(GameScore(tuple(rounds), forfeit))
    return MatchResult(tuple(games))


def pairing_to_dict(pairing: Pairing) -> dict[str, Any]:
    """A pairing as JSON."""
    return {
        "round": pairing.round,
        "table": pairing.table,
        "sides": [list(pairing.sides[0]), list(pairing.sides[1])],
        "first": pairing.first,
        "stage": pairing.stage,
        "best_of": pairing.best_of,
        "slot": None if pairing.slot is None else list(pairing.slot),
    }


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


def _ids(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(f"{what} is a list of entrant ids")
    return tuple(value)


def pairing_from_dict(data: object) -> Pairing:
    """A pairing from JSON, validated for its shape (the event checks who is in it)."""
    if not isinstance(data, Mapping):
        raise _fail("a pairing is an object")
    sides = data.get("sides")
    if not isinstance(sides, list) or len(sides) != 2:
        raise _fail("a pairing has two sides (the second empty for a bye)")
    numbers = {}
    for key, default in (("round", None), ("table", None), ("first", 0), ("best_of", 1)):
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _fail(f"a pairing's {key} is a whole number, not {value!r}")
        numbers[key] = value
    if numbers["first"] not in (0, 1):
        raise _fail("a pairing's first side is 0 or 1")
    slot = data.get("slot")
    if slot is not None:
        slot = _pair_of_ints(slot)
    return Pairing(
        round=numbers["round"],
        table=numbers["table"],
        sides=(_ids(sides[0], "side 1"), _ids(sides[1], "side 2")),
        first=numbers["first"],
        stage=str(data.get("stage", "")),
        best_of=numbers["best_of"],
        slot=slot,
    )


def _pair_of_ints(value: object) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise _fail("a bracket slot is [round, match]")
    return (value[0], value[1])


def entrant_to_dict(entrant: Entrant) -> dict[str, Any]:
    """An entrant as the log stores it (with its claim and accounts; the view leaves them out)."""
    return {
        "id": entrant.id,
        "name": entrant.name,
        "members": [
            {"name": p.name, "account_id": p.account_id} | ({"bot": True} if p.bot else {})
            for p in entrant.members
        ],
        "rating": entrant.rating,
        "status": entrant.status.value,
        "checked_in": entrant.checked_in,
        "joined_round": entrant.joined_round,
        "claim": entrant.claim,
    }


def entrant_from_dict(data: Mapping[str, Any]) -> Entrant:
    """An entrant from the log."""
    try:
        return Entrant(
            id=str(data["id"]),
            name=str(data["name"]),
            members=tuple(
                Person(
                    str(m["name"]),
                    None if m.get("account_id") is None else int(m["account_id"]),
                    bool(m.get("bot", False)),
                )
                for m in data["members"]
            ),
            rating=float(data.get("rating", 0.0)),
            status=EntrantStatus(data.get("status", "active")),
            checked_in=bool(data.get("checked_in", False)),
            joined_round=int(data.get("joined_round", 1)),
            claim=data.get("claim"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(f"an entrant in the log is not valid: {exc}") from None
