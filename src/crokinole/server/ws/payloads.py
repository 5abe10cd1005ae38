"""The game's data as the wire carries it: snapshots, shot reports and trajectories.

Built from the rules engine's values (``Game``, ``ShotReport``, the
simulator's ``ShotResult``), so no other part of the server formats game
data by hand.  The protocol sends these shapes (docs/protocol.md).
"""

from __future__ import annotations

import functools
from typing import Any

from crokinole.board import Board, Zone
from crokinole.physics import ContactKind, EventKind, ShotResult
from crokinole.rules import Disc, Game, RoundResult, ShotReport

__all__ = ["SIDE_LOOK", "board_payload", "game_payload", "report_payload", "trajectory_payload"]

SIDE_LOOK = (("light", "circle"), ("dark", "triangle"), ("red", "square"), ("blue", "diamond"))


@functools.lru_cache(maxsize=8)
def board_payload(board: Board) -> dict[str, Any]:
    """What the client needs to draw the board.

    Made once per board (the pegs' places take trigonometry, and every game
    snapshot has it): the dict is shared by every snapshot, and nobody
    changes it.
    """
    return {
        "surface_radius": board.surface_radius,
        "shooting_line_radius": board.shooting_line_radius,
        "ten_radius": board.ten_radius,
        "fifteen_radius": board.fifteen_radius,
        "hole_radius": board.hole_radius,
        "line_width": board.line_width,
        "peg_radius": board.peg_radius,
        "pegs": [[p.x, p.y] for p in board.pegs],
        "disc_radius": board.disc_radius,
        "ditch_width": board.ditch_width,
    }


def game_payload(game: Game, names: dict[str, str], cpu: dict[str, str]) -> dict[str, Any]:
    """The ``game`` snapshot of docs/protocol.md."""
    rules = game.rules
    counts = game.round_counts()
    current = game.current_seat
    twenties, ditch, scores = game.twenties, game.ditch, game.scores
    sides = []
    for index, seats in enumerate(rules.sides):
        colour, mark = SIDE_LOOK[index]
        sides.append(
            {
                "side": index,
                "seats": [s.key for s in seats],
                "colour": colour,
                "mark": mark,
                "twenties": twenties[index],
                "ditch": ditch[index],
                "round_total": counts[index].total,
                "score": scores[index],
            }
        )
    outcome = game.outcome
    # The seats in use (the rules work them out at each asking), and each one's
    # side and wire name, found once for the seats and all the discs.
    in_use = rules.seats
    side_of = {s: game.side_of(s) for s in in_use}
    keys = {s: s.key for s in in_use}
    return {
        "rules": rules.to_dict(),
        "phase": game.phase.value,
        "round": game.round_number,
        "round_first": game.round_first_seat.key,
        "current_seat": None if current is None else current.key,
        "seats": [
            {
                "seat": keys[s],
                "side": side_of[s],
                "name": names.get(keys[s], s.title),
                "cpu": cpu.get(keys[s]),
                "in_hand": game.in_hand(s),
            }
            for s in in_use
        ],
        "sides": sides,
        "discs": [
            {"id": d.id, "owner": keys[d.owner], "side": side_of[d.owner], "x": d.x, "y": d.y}
            for d in game.discs
        ],
        "history": [_round_payload(r) for r in game.history],
        "outcome": None
        if outcome is None
        else {"winner": outcome.winner, "drawn": list(outcome.drawn)},
        "placement_limit": game.board.placement_limit,
        "board": board_payload(game.board),
    }


@functools.lru_cache(maxsize=4096)
def _round_payload(result: RoundResult) -> dict[str, Any]:
    """One finished round of the game's ``history``.

    Made once per round result (its totals are counted again at each call
    of ``totals``, and every snapshot of the rest of the game has it): the
    dict is shared by those snapshots, and nobody changes it.
    """
    return {
        "number": result.number,
        "totals": list(result.totals),
        "points": list(result.points),
        "scores_after": list(result.scores_after),
        "counts": [[c.twenties, c.fifteens, c.tens, c.fives] for c in result.counts],
    }


def _zone(board: Board, disc: Disc) -> int | None:
    """Zone value (15, 10, 5) of a disc at rest, or None when it lies out (R6)."""
    zone = board.zone_of(disc.centre)
    return None if zone is Zone.OUT else zone.value


def report_payload(report: ShotReport, before: Game) -> dict[str, Any]:
    """The structured ``report`` of a shot (docs/protocol.md): what happened, not words.

    The client words it for its viewer.  Every disc the shot affected is
    listed (the shot disc first): the shot disc, every disc that moved, every
    disc removed and every 20.

    Args:
        report: the referee's report of the shot.
        before: the game just before the shot (zones the discs lay in, sides).

    ``unplayed`` is true for a timeout (no room on the line, R3): the report
    has no shot, and the disc went to the ditch without being played.
    """
    board = before.board
    shooter_side = before.side_of(report.seat)
    shot_id = report.shot_id
    lay = {d.id: d for d in before.discs}
    entries: dict[int, dict[str, Any]] = {}

    def entry(disc: Disc, result: str, zone: int | None, reason: str | None) -> None:
        was = lay.get(disc.id)
        entries[disc.id] = {
            "id": disc.id,
            "owner": disc.owner.key,
            "side": before.side_of(disc.owner),
            "shot": disc.id == shot_id,
            "from_zone": None if was is None else _zone(board, was),
            "result": result,
            "zone": zone,
            "reason": reason,
            "cancelled_twenty": False,
        }

    cancelled = {d.id for d in report.cancelled_twenties}
    for disc in report.twenties:
        entry(disc, "hole", 20, None)
    for gone in report.removed:
        entry(gone.disc, "ditch", None, gone.reason.name.lower())
        entries[gone.disc.id]["cancelled_twenty"] = gone.disc.id in cancelled
    moved = set(report.moved)
    for disc in report.board_after:
        if disc.id in moved:
            entry(disc, "board", _zone(board, disc), None)
    hit: set[int] = set()
    if report.physics is not None:
        # Simulator indices: the discs before the shot in order, the shot disc last.
        order, owners = report.ids, report.owners
        for contact in report.physics.contacts:
            if contact.kind is not ContactKind.DISC:
                continue
            a, b = contact.disc, contact.other
            own_a = before.side_of(owners[a]) == shooter_side
            own_b = before.side_of(owners[b]) == shooter_side
            if own_a != own_b:
                hit.add(order[b] if own_a else order[a])
    discs = sorted(entries.values(), key=lambda e: (not e["shot"], e["id"]))
    return {
        "seat": report.seat.key,
        "valid": report.valid,
        "foul": None if report.foul is None else report.foul.name.lower(),
        "unplayed": report.shot is None,
        "discs": discs,
        "hit": sorted(hit),
    }


_SOUNDS = {
    EventKind.DISC_CONTACT: "disc",
    EventKind.PEG_CONTACT: "peg",
    EventKind.DROP: "hole",
}


def trajectory_payload(
    result: ShotResult | None, ids: list[int], owners: list[str]
) -> dict[str, Any]:
    """The closed-form trajectory of a shot for the client to animate (moving discs only).

    Args:
        result: the simulator's result (None for a timeout).
        ids: the game's disc id of each simulator disc (the shot disc last).
        owners: the owner seat name of each simulator disc.
    """
    if result is None:
        return {"deceleration": 0.0, "duration": 0.0, "discs": [], "sounds": []}
    per_disc: dict[int, dict[str, Any]] = {}
    sounds: list[list[Any]] = []
    seen_contacts: set[tuple[float, int, int]] = set()
    for ev in result.events:
        entry = per_disc.setdefault(
            ev.disc, {"id": ids[ev.disc], "owner": owners[ev.disc], "segments": [], "leaves": None}
        )
        if ev.kind.changes_motion:
            entry["segments"].append([ev.time, ev.x, ev.y, ev.vx, ev.vy])
        if ev.kind is EventKind.DROP:
            entry["leaves"] = {"t": ev.time, "how": "hole"}
        elif ev.kind is EventKind.DITCH:
            entry["leaves"] = {"t": ev.time, "how": "ditch"}
        sound = _SOUNDS.get(ev.kind)
        if sound == "disc":
            key = (ev.time, min(ev.disc, ev.other), max(ev.disc, ev.other))
            if key in seen_contacts:
                continue
            seen_contacts.add(key)
        if sound is not None:
            sounds.append([ev.time, sound])
    return {
        "deceleration": result.deceleration,
        "duration": result.duration,
        "discs": [per_disc[k] for k in sorted(per_disc)],
        "sounds": sounds,
    }
