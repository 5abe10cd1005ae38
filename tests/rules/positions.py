"""Helpers that set up a game at a given position, through the public record format."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.rules import Game, Rules, turn_order
from crokinole.rules.record import game_from_json, game_to_record

B = TOURNAMENT_BOARD


def game_at(
    rules: Rules,
    discs: Sequence[tuple[Seat, float, float]],
    to_move: Seat,
    twenties: Sequence[int] | None = None,
) -> Game:
    """A game in round 1 with ``discs`` on the board and ``to_move`` to shoot.

    The turn is the first one of ``to_move`` at which enough discs have been
    shot to account for those on the board and the 20s; the rest went to the
    ditch.
    """
    game = Game(rules)
    n_sides = len(rules.sides)
    twenties = list(twenties or [0] * n_sides)
    order = turn_order(rules, rules.seats[0])
    owned = Counter(owner for owner, _, _ in discs)
    need = [sum(owned[s] for s in rules.sides[side]) + twenties[side] for side in range(n_sides)]
    for t, seat in enumerate(order):
        if seat is not to_move:
            continue
        taken_seat = Counter(order[:t])
        taken_side = Counter(rules.side_of(s) for s in order[:t])
        if all(taken_seat[s] >= owned[s] for s in rules.seats) and all(
            taken_side[side] >= need[side] for side in range(n_sides)
        ):
            break
    else:
        raise AssertionError("no turn fits that position")
    record = game_to_record(game)
    record["state"] = {
        "round": 1,
        "round_first": rules.seats[0].name.lower(),
        "turn": t,
        "phase": "playing",
        "in_hand": {s.name.lower(): rules.discs_per_player(s) - taken_seat[s] for s in rules.seats},
        "discs": [[k, owner.name.lower(), x, y] for k, (owner, x, y) in enumerate(discs)],
        "twenties": twenties,
        "ditch": [taken_side[side] - need[side] for side in range(n_sides)],
        "next_id": max(t, len(discs)),
        "scores": [0] * n_sides,
        "history": [],
        "outcome": None,
    }
    return game_from_json(json.dumps(record))


def straight(seat_x: float = 0.0) -> tuple[float, float]:
    """Position and direction (degrees) of a south shot travelling due north along x = seat_x."""
    angle = math.degrees(math.asin(seat_x / B.shooting_line_radius))
    return angle, angle


def power_to_travel(distance: float) -> float:
    """Power (percent) that slides a free disc exactly ``distance`` inches."""
    return 100.0 * math.sqrt(2.0 * B.deceleration * distance) / B.max_launch_speed


def north_shot(distance: float, x: float = 0.0) -> Shot:
    """A south shot due north along x that would slide ``distance`` inches if unhindered."""
    position, direction = straight(x)
    return Shot(position, direction, power_to_travel(distance))
