"""What follows by itself at a table: a turn begins, everyone is ready, a member goes.

After the event a command caused, the table may move on without another
command: the game ends, a stand-in hands back its seat, a blocked disc goes
to the ditch, the next round or the rematch starts when everyone agreed, a
new host is chosen.  Every handler that can bring such a moment calls the
function here that looks for it; each emits into the command's
:class:`~crokinole.table.draft.Draft`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from crokinole.board import Seat
from crokinole.rules import Phase
from crokinole.table.draft import Draft, empty_seat
from crokinole.table.events import (
    Closed,
    GameFinished,
    GameStarted,
    HostChanged,
    MemberLeft,
    RoundStarted,
    SeatChanged,
    StandInOff,
    TurnTimedOut,
)
from crokinole.table.members import Cpu, Member, Person
from crokinole.table.settings import Kind
from crokinole.table.state import Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["abandon", "begin_turn", "leave", "offer_open", "settle", "start_game"]


def _first_seat(t: Table) -> Seat:
    """Game 1 opens with the first seat; each later game with the seat after the last opener."""
    seats = t.settings.seats
    if t.game is None or t.game.first_seat not in seats:
        return seats[0]
    return seats[(seats.index(t.game.first_seat) + 1) % len(seats)]


def _here(t: Table, present: str | None) -> tuple[set[str], set[str]]:
    """The seated people, and those of them connected (``present``, pressing now, is here)."""
    seated = {o.mid for o in t.seats.values() if isinstance(o, Person)}
    here = {mid for mid in seated if (m := t.member(mid)) is not None and m.connected}
    return seated, here | ({present} & seated if present is not None else set())


def _ready(t: Table, present: str | None = None) -> bool:
    """Whether every connected seated person pressed Next, and one who pressed is here.

    ``present`` is the member pressing now (here, whatever their presence says).
    """
    seated = {o.mid for o in t.seats.values() if isinstance(o, Person)}
    connected = {mid for mid in seated if (m := t.member(mid)) is not None and m.connected}
    _, here = _here(t, present)
    return bool(t.next_pressed & here) and connected <= t.next_pressed


def _rematch_agreed(t: Table, present: str | None = None) -> bool:
    """Every seat filled, and every seated person accepted the offer and is here.

    ``present`` is the member accepting now (here, whatever their presence
    says).  An absent player never counts as agreeing.
    """
    if t.rematch_until is None or empty_seat(t) is not None:
        return False
    seated, here = _here(t, present)
    return bool(seated) and seated <= t.rematch_votes and seated <= here


def _person_back(t: Table, seat: Seat) -> bool:
    occupant = t.seats.get(seat)
    if not isinstance(occupant, Person):
        return False
    member = t.member(occupant.mid)
    return member is not None and member.connected


def offer_open(t: Table, now: float) -> bool:
    """Whether a rematch is offered now (not lapsed, even if its deadline has not fired)."""
    return t.rematch_until is not None and now < t.rematch_until


def begin_turn(d: Draft) -> None:
    """After a turn or a new round: end the game, end a stand-in, or skip a blocked disc."""
    for _ in range(200):  # a round has at most 12 discs a seat
        t = d.table
        game = t.game
        if game is None or t.stage is not Stage.PLAYING:
            return
        outcome = game.outcome
        if outcome is not None:
            d.emit(GameFinished, winner=outcome.winner, drawn=outcome.drawn, abandoned=False)
            return
        seat = game.current_seat
        if seat is None:
            return
        if seat in t.standing_in and _person_back(t, seat):
            d.emit(StandInOff, seat=seat)
        if game.can_place(seat):
            return
        # No room on the line (R3): the disc goes to the ditch at once.
        d.emit(TurnTimedOut, seat=seat, reason="no_room")


def settle(d: Draft, present: str | None = None) -> None:
    """Go on when everyone is ready: the next round, or a rematch (``present``: who pressed)."""
    t = d.table
    game = t.game
    if t.stage is Stage.PLAYING and game is not None and game.phase is Phase.ROUND_OVER:
        if _ready(t, present):
            d.emit(RoundStarted, round=game.round_number + 1)
            begin_turn(d)
    elif t.stage is Stage.FINISHED and t.kind is Kind.PARTY and _rematch_agreed(t, present):
        start_game(d)


def start_game(d: Draft) -> None:
    """The next game starts, opened by the seat after the last game's opener."""
    t = d.table
    d.emit(GameStarted, game_number=t.game_number + 1, first_seat=_first_seat(t))
    begin_turn(d)


def leave(d: Draft, member: Member, *, removed: bool) -> None:
    """A member goes; mid-game their seats pass to the stand-in CPU."""
    if d.table.stage is Stage.PLAYING:
        for seat in d.table.seats_of(member.mid):
            d.emit(SeatChanged, seat=seat, occupant=Cpu(d.table.settings.standin_level))
    d.emit(MemberLeft, mid=member.mid, removed=removed)
    t = d.table
    players = [m for m in t.members if not m.spectator]
    if not players:
        if t.stage is Stage.PLAYING:
            d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        d.emit(Closed, reason="everyone left")
        return
    if t.host is None:
        connected = [m for m in players if m.connected]
        d.emit(HostChanged, mid=(connected or players)[0].mid)
    settle(d)


def abandon(d: Draft) -> None:
    """Solo: the device gives up; the game is abandoned and the table closes."""
    if d.table.stage is Stage.PLAYING:
        d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        d.emit(Closed, reason="resigned")
    else:
        d.emit(Closed, reason="left")
