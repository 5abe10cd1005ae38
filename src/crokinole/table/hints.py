"""Help at a table: a hint or a heat map, on one's own turn, where the settings allow it.

The table only decides whether a player may take help now and counts it
(``HintTaken``); working the hint out is :mod:`crokinole.analysis`'s job,
done by the server once the table has agreed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crokinole.errors import ErrorCode, TableError
from crokinole.table.commands import HINT_KINDS, TakeHint
from crokinole.table.draft import Draft, check_open, check_seat, player, shooter
from crokinole.table.events import HintTaken
from crokinole.table.evolve import game_of
from crokinole.table.members import Person
from crokinole.table.settings import Kind
from crokinole.table.state import Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["take_hint"]


def _no_hints(t: Table) -> TableError:
    if t.kind is Kind.RANKED:
        return TableError(ErrorCode.NO_HINTS, "hints are off: ranked games never allow them")
    if t.kind is Kind.PARTY:
        return TableError(ErrorCode.NO_HINTS, "the host has not allowed hints at this table")
    return TableError(ErrorCode.NO_HINTS, "hints were turned off for this game")


def _check_stage(t: Table) -> None:
    if t.stage is Stage.LOBBY:
        raise TableError(ErrorCode.ILLEGAL_ACTION, "the game has not started yet")
    if t.stage is Stage.FINISHED:
        raise TableError(ErrorCode.GAME_OVER, "the game is over: no more hints")


def take_hint(d: Draft, c: TakeHint) -> None:
    """A player takes a hint or a heat map on their turn (each counted once a turn)."""
    t = d.table
    check_open(t)
    if c.kind not in HINT_KINDS:
        raise TableError(
            ErrorCode.ILLEGAL_ACTION, f"one asks for a hint or a heatmap, not {c.kind!r}"
        )
    member = player(t, c.device)  # a spectator is told so first
    if not t.settings.hints:
        raise _no_hints(t)
    _check_stage(t)
    seat = check_seat(t, c.seat)
    if t.seats[seat] != Person(member.mid):
        raise TableError(ErrorCode.NOT_YOUR_SEAT, f"{seat.key} is not your seat")
    if seat in t.standing_in:
        raise TableError(
            ErrorCode.NOT_YOUR_TURN, "a CPU plays this turn for you; your next one is yours"
        )
    game = game_of(t)
    current = shooter(game)
    if current is not seat:
        raise TableError(ErrorCode.NOT_YOUR_TURN, f"it is {current.title}'s turn")
    if (seat, c.kind, len(game.actions)) in t.hinted:
        return  # asked again this turn: counted once
    d.emit(HintTaken, member=member.mid, seat=seat, kind=c.kind)
