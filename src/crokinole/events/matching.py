"""Minimum-cost perfect matchings with lexicographic costs (networkx's blossom algorithm).

The pairing modules (:mod:`~crokinole.events.swiss`,
:mod:`~crokinole.events.doubles`, :mod:`~crokinole.events.bracket`) give each
candidate pair a tuple of costs, the most important first.  Each level is
scaled to outweigh every level below it summed over a whole matching, so the
matching of the most pairs (``max_weight_matching(maxcardinality=True)``) of
the highest weight is the one whose costs are lexicographically least.
Weights are Python integers, so the blossom algorithm works exactly.

>>> sorted(cheapest_matching(4, {(0, 1): (0, 5), (2, 3): (0, 5), (0, 2): (0, 1),
...                              (1, 3): (0, 1), (0, 3): (1, 0), (1, 2): (1, 0)}))
[(0, 2), (1, 3)]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import networkx as nx

from crokinole.errors import ErrorCode, EventError

__all__ = ["cheapest_matching", "check_round"]


def cheapest_matching(
    nodes: int, costs: Mapping[tuple[int, int], tuple[int, ...]]
) -> list[tuple[int, int]]:
    """The pairs ``(i, j)`` (``i < j``) of a largest matching of nodes ``0 .. nodes - 1``
    whose summed costs are lexicographically least.

    Args:
        nodes: how many nodes.
        costs: each candidate edge ``(i, j)`` with its costs (non-negative
            integers, the same number of levels for every edge).
    """
    if not costs:
        return []
    levels = len(next(iter(costs.values())))
    pairs = nodes // 2 + 1
    scale = [1] * levels
    for level in range(levels - 2, -1, -1):
        below = max(c[level + 1] for c in costs.values())
        scale[level] = scale[level + 1] * (below * pairs + 1)
    total = {
        edge: sum(c * s for c, s in zip(cost, scale, strict=True)) for edge, cost in costs.items()
    }
    top = max(total.values()) + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(nodes))
    for (i, j), value in sorted(total.items()):
        graph.add_edge(i, j, weight=top - value)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return sorted((min(u, v), max(u, v)) for u, v in matching)


def check_round(players: Sequence[Any], round: int, kind: type[Any], what: str, noun: str) -> None:
    """The checks every pairing makes of its input (the Swiss's entrants, doubles' players).

    Raises:
        EventError: ``bad_event`` for a round below 1, an item not of ``kind``,
            an empty or repeated id, a score or rating that is not a number,
            or a negative count of byes; the message calls one ``what``
            ("a Swiss entrant") and ``noun`` ("entrant").
    """
    if isinstance(round, bool) or not isinstance(round, int) or round < 1:
        raise EventError(ErrorCode.BAD_EVENT, f"a round is numbered from 1, not {round!r}")
    seen: set[str] = set()
    for player in players:
        if not isinstance(player, kind):
            raise EventError(ErrorCode.BAD_EVENT, f"{what} is a {kind.__name__}, not {player!r}")
        if not player.id or player.id in seen:
            raise EventError(
                ErrorCode.BAD_EVENT, f"{noun} ids are distinct and not empty: {player.id!r} is not"
            )
        seen.add(player.id)
        if not (math.isfinite(player.score) and math.isfinite(player.rating)):
            raise EventError(
                ErrorCode.BAD_EVENT, f"{noun} {player.id}'s score and rating are numbers"
            )
        if player.byes < 0:
            raise EventError(
                ErrorCode.BAD_EVENT, f"{noun} {player.id} cannot have had {player.byes} byes"
            )
