"""The rows the store keeps beside a table's events: its members, and the devices' results.

:func:`members_of` is what finds a device's tables; :func:`results_of` is a
device's record of wins, draws and losses (the ratings of ranked games are
:mod:`crokinole.server.ranked.rated`'s).  Both are written in the same
transaction as the events that cause them.
"""

from __future__ import annotations

from collections.abc import Sequence

from crokinole.store import TableMember, TableResult
from crokinole.table import Cpu, Event, GameAborted, GameFinished, MemberLeft, Stage, Table


def members_of(table: Table) -> list[TableMember]:
    """The table's members as the store keeps them (what finds a device's tables)."""
    return [
        TableMember(
            m.mid,
            m.device,
            m.name,
            m.spectator,
            tuple(seat.key for seat in table.seats_of(m.mid)),
        )
        for m in table.members
    ]


def results_of(
    table: Table, events: Sequence[Event], *, before: Table | None = None
) -> list[TableResult]:
    """The device records of a game that ``events`` finish, or that a player left.

    Each device that plays exactly one side gets a win, draw or loss (a
    device on several sides, hot-seat on one screen, gets none).  The
    opponent is the CPU level when every opposing seat is a CPU of one
    level, else ``people``.  An abandoned game is a loss for the devices
    still playing it (a resigned game on one device), and for a player who
    leaves a game under way (``before``: the table before ``events``; one
    the host removed abandoned nothing).  A ranked game aborted for a
    no-show counts for nobody.
    """
    rows = _left_mid_game(before, events) if before is not None else []
    if any(isinstance(e, GameAborted) for e in events):
        return rows  # a ranked no-show: a game never played counts in nobody's record
    finished = [e for e in events if isinstance(e, GameFinished)]
    if not finished or table.game is None:
        return rows
    end = finished[-1]
    rules = table.game.rules
    sides_of: dict[str, set[int]] = {}
    for member in table.members:
        for seat in table.seats_of(member.mid):
            sides_of.setdefault(member.device, set()).add(rules.side_of(seat))
    for device, sides in sides_of.items():
        if len(sides) != 1:
            continue
        (side,) = sides
        opponent = _opponent(table, side)
        if end.abandoned:
            result = "loss"
        elif end.winner is None:
            result = "draw" if side in end.drawn else "loss"
        else:
            result = "win" if end.winner == side else "loss"
        rows.append(
            TableResult(
                game_number=table.game_number,
                device_token=device,
                opponent=opponent,
                scoring=rules.scoring.value,
                result=result,
            )
        )
    return rows


def _opponent(table: Table, side: int) -> str:
    """``people``, or the CPU level when every seat against ``side`` was a CPU of that level.

    A seat a person held when the game started is a person's, though a
    stand-in played it to the end after they left.
    """
    assert table.game is not None
    rules = table.game.rules
    opponents = [
        None if seat in table.people_seats else occupant
        for seat, occupant in table.seats.items()
        if rules.side_of(seat) != side
    ]
    levels = {o.level for o in opponents if isinstance(o, Cpu)}
    everyone_cpu = all(isinstance(o, Cpu) for o in opponents)
    return levels.pop() if everyone_cpu and len(levels) == 1 else "people"


def _left_mid_game(before: Table, events: Sequence[Event]) -> list[TableResult]:
    """A loss for each player who left (not removed) the game under way in ``before``."""
    game = before.game
    if before.stage is not Stage.PLAYING or game is None:
        return []
    rows = []
    for event in events:
        if not isinstance(event, MemberLeft) or event.removed:
            continue
        member = before.member(event.mid)
        sides = {game.rules.side_of(seat) for seat in before.seats_of(event.mid)}
        if member is None or len(sides) != 1:
            continue
        rows.append(
            TableResult(
                game_number=before.game_number,
                device_token=member.device,
                opponent=_opponent(before, sides.pop()),
                scoring=game.rules.scoring.value,
                result="loss",
            )
        )
    return rows
