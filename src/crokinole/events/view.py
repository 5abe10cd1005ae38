"""The public JSON of an event (docs/events.md, "The public view"), as every page shows it.

``event_view(event)``; the event itself knows nothing of it.

No device claims and no account ids are in it: it is sent to anyone who
opens the event's page.
"""

from __future__ import annotations

from typing import Any

from crokinole.events.bracket import Bracket
from crokinole.events.codec import pairing_to_dict, result_to_dict
from crokinole.events.event import Event
from crokinole.events.model import Format
from crokinole.events.schedule import pool_name

__all__ = ["event_view"]


def event_view(event: Event) -> dict[str, Any]:
    """The public JSON of the event (docs/events.md, "The public view").

    No device claims and no account ids are in it.
    """
    rules = event.settings.rules
    rounds = []
    for state in event.rounds:
        pairings = []
        for p in state.pairings:
            current = state.results.get(p.table)
            if p.bye:
                status = "bye"
            elif current is not None:
                status = "confirmed" if current.confirmed else "reported"
            else:
                status = "playing" if state.started else "waiting"
            winner = None
            if current is not None and current.confirmed:
                side = current.result.winner(rules, p.best_of)
                winner = None if side is None else side
            pairings.append(
                {
                    **pairing_to_dict(p),
                    "names": [event.names(p.sides[0]), event.names(p.sides[1])],
                    "bye": p.bye,
                    "state": status,
                    "reported_by": None if current is None else current.reported_by,
                    "tables": list(state.tables.get(p.table, ())),
                    "sheet": state.sheets.get(p.table),
                    "result": None if current is None else result_to_dict(current.result),
                    "winner": winner,
                }
            )
        stages = sorted({p.stage for p in state.pairings if p.stage})
        rounds.append(
            {
                "number": state.number,
                "started": state.started,
                "over": state.over,
                "stage": stages[0] if len(stages) == 1 else f"Round {state.number}",
                "pairings": pairings,
            }
        )
    table = []
    for standing in event.standings():
        tally = standing.tally
        table.append(
            {
                "rank": standing.rank,
                "id": standing.id,
                "name": standing.name,
                "played": tally.played,
                "wins": tally.wins,
                "draws": tally.draws,
                "losses": tally.losses,
                "byes": tally.byes,
                "values": {k.value: v for k, v in standing.values.items()},
                "decided_by": None if standing.decided_by is None else standing.decided_by.value,
            }
        )
    bracket = event.bracket()
    return {
        "id": event.id,
        "code": event.code,
        "version": event.version,
        "status": event.status.value,
        "paused": event.paused,
        "complete": event.complete,
        "settings": event.settings.to_dict(),
        "organiser": event.organiser,
        "entrants": [
            {
                "id": e.id,
                "name": e.name,
                "rating": e.rating,
                "status": e.status.value,
                "checked_in": e.checked_in,
                "joined_round": e.joined_round,
                "online": e.online,
                "bot": e.bot,
                "members": [p.name for p in e.members],
            }
            for e in event.entrants
        ],
        "pools": [
            {"name": pool_name(i), "entrants": list(pool)} for i, pool in enumerate(event.pools)
        ]
        if event.settings.format in (Format.POOLS, Format.POOLS_PLAYOFFS)
        else [],
        "rounds": rounds,
        "standings": table,
        # The standings' order: the settings' tie-breaks, after the bracket for a knockout.
        "order": (["bracket"] if bracket is not None else [])
        + [t.value for t in event.settings.tie_breaks],
        "bracket": None if bracket is None else _bracket_view(event, bracket),
        "corrections": [
            {"round": c.round, "table": c.table, "reason": c.reason, "at": c.at}
            for c in event.corrections
        ],
    }


def _bracket_view(event: Event, bracket: Bracket) -> dict[str, Any]:
    rounds = []
    for number, matches in enumerate(bracket.rounds, 1):
        rounds.append(
            {
                "name": bracket.round_name(number),
                "matches": [
                    {
                        "slot": list(m.slot),
                        "sides": list(m.sides),
                        "names": [event.names((s,)) if s else "—" for s in m.sides],
                        "winner": m.winner,
                        "bye": m.bye,
                    }
                    for m in matches
                ],
            }
        )
    return {"size": bracket.size, "rounds": rounds, "champion": bracket.champion}
