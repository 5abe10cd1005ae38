"""Helpers that set up a game at a given position, through the public record format."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.rules import Game, Rules, game_from_json, round_points, turn_order
from crokinole.rules.state import round_opener

B = TOURNAMENT_BOARD


def game_at(
    rules: Rules,
    discs: Sequence[tuple[Seat, float, float]],
    to_move: Seat,
    twenties: Sequence[int] | None = None,
    *,
    earlier_rounds: Sequence[Sequence[int]] = (),
    turn: int | None = None,
) -> Game:
    """A game with ``discs`` on the board and ``to_move`` to shoot, as play could reach it.

    The game was opened by the first seat of ``rules``.  ``earlier_rounds``
    gives each finished round's totals per side (scored by R6, e.g.
    ``[(40, 20), (20, 40)]``); the current round is the next one.  The turn
    is ``turn`` if given, else the first one of ``to_move`` at which enough
    discs have been shot to account for those on the board and the 20s.  The
    discs get the ids of turns their owners played, in the order given; every
    other disc shot went to the ditch.
    """
    n_sides = len(rules.sides)
    twenties = list(twenties or [0] * n_sides)
    history, scores = _history(rules, earlier_rounds)
    number = len(history) + 1
    first = round_opener(rules, rules.seats[0], number)
    order = turn_order(rules, first)
    owners = [owner for owner, _, _ in discs]
    need = [
        sum(1 for o in owners if rules.side_of(o) == side) + twenties[side]
        for side in range(n_sides)
    ]
    turns = range(len(order)) if turn is None else [turn]
    for t in turns:
        if order[t] is not to_move:
            continue
        ids = _shot_turns(order[:t], owners)
        taken_side = Counter(rules.side_of(s) for s in order[:t])
        if ids is not None and all(taken_side[side] >= need[side] for side in range(n_sides)):
            break
    else:
        raise AssertionError("no turn fits that position")
    taken_seat = Counter(order[:t])
    record = Game(rules).to_record()
    record["state"] = {
        "round": number,
        "round_first": first.name.lower(),
        "turn": t,
        "phase": "playing",
        "in_hand": {s.name.lower(): rules.discs_per_player(s) - taken_seat[s] for s in rules.seats},
        "discs": [[i, o.name.lower(), x, y] for i, (o, x, y) in zip(ids, discs, strict=True)],
        "twenties": twenties,
        "ditch": [taken_side[side] - need[side] for side in range(n_sides)],
        "next_id": t,
        "scores": scores,
        "history": history,
        "outcome": None,
    }
    return game_from_json(json.dumps(record))


def _shot_turns(played: Sequence[Seat], owners: Sequence[Seat]) -> list[int] | None:
    """Increasing turns, one per disc, each played by the disc's owner (None if impossible)."""
    ids: list[int] = []
    k = 0
    for owner in owners:
        while k < len(played) and played[k] is not owner:
            k += 1
        if k == len(played):
            return None
        ids.append(k)
        k += 1
    return ids


def _history(
    rules: Rules, earlier_rounds: Sequence[Sequence[int]]
) -> tuple[list[dict[str, object]], list[int]]:
    """Finished rounds with these totals, as the record holds them, and the scores after."""
    scores = [0] * len(rules.sides)
    history: list[dict[str, object]] = []
    for k, totals in enumerate(earlier_rounds):
        points = round_points(totals, rules.scoring)
        scores = [s + p for s, p in zip(scores, points, strict=True)]
        counts = []
        for total in totals:
            # The fewest discs that make the total: 20s first, then one of 15, 10 or 5.
            n20, rest = divmod(total, 20)
            counts.append([n20, int(rest == 15), int(rest == 10), int(rest == 5)])
        history.append(
            {"number": k + 1, "counts": counts, "points": list(points), "scores_after": scores}
        )
    return history, scores


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
