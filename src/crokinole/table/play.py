"""The game's commands: a shot, the next round, a rematch, and the clock's tick.

:func:`shoot` checks what only the table knows (who sends the shot for
which seat, the table's version, its clock, the human hand) and leaves the
rules to :meth:`crokinole.rules.Game.shoot`: what the rules refuse comes
back as their exception, whose ``code`` the table's
:class:`~crokinole.errors.TableError` carries on.  :func:`tick` fires the
deadlines that are due (see :meth:`crokinole.table.Table.next_deadline`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from crokinole.board import Seat, Shot
from crokinole.errors import (
    CrokinoleError,
    ErrorCode,
    IllegalPlacement,
    InvalidShotError,
    TableError,
)
from crokinole.rules import Game, Phase
from crokinole.table.commands import DeclineRematch, NextRound, Rematch, Shoot, Tick
from crokinole.table.draft import (
    Draft,
    check_not_ranked,
    check_open,
    check_seat,
    check_seated,
    player,
    shooter,
)
from crokinole.table.events import (
    GameAborted,
    GameFinished,
    NextPressed,
    RematchDeclined,
    RematchLapsed,
    RematchOffered,
    RematchVoted,
    RoundStarted,
    ShotPlayed,
    StandInOn,
    TurnTimedOut,
)
from crokinole.table.evolve import game_of
from crokinole.table.flow import begin_turn, offer_open, settle, start_game
from crokinole.table.members import Cpu, Member, Person
from crokinole.table.settings import HAND_NOISE, Hand, Kind
from crokinole.table.state import DeadlineKind, Played, Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["decline_rematch", "next_round", "rematch", "shoot", "tick"]


def _check_shooting(d: Draft, c: Shoot) -> None:
    """A shot now: a player's (or the server's), during a game, at the table's version."""
    t = d.table
    check_open(t)
    if not c.cpu:
        player(t, c.device)  # a spectator is told so first
    if t.stage is Stage.LOBBY:
        raise TableError(ErrorCode.ILLEGAL_ACTION, "the game has not started yet")
    if t.stage is Stage.FINISHED:
        raise TableError(ErrorCode.GAME_OVER, "the game is over: no more shots")
    if c.expected_version is not None and c.expected_version != t.version:
        raise TableError(
            ErrorCode.STALE,
            f"the table moved on (version {t.version}, not {c.expected_version}): look again",
        )


def _shooter(d: Draft, c: Shoot, seat: Seat) -> str:
    """Who shoots for ``seat``: ``person``, ``cpu`` or ``standin`` (else ``not_your_seat``)."""
    t = d.table
    occupant = t.seats[seat]
    if c.cpu:
        if c.device is not None:
            raise TableError(ErrorCode.NOT_YOUR_SEAT, "only the server plays a CPU's shots")
        if isinstance(occupant, Cpu):
            return "cpu"
        if seat in t.standing_in:
            return "standin"
        raise TableError(ErrorCode.NOT_YOUR_SEAT, f"no CPU plays {seat.key}")
    member = player(t, c.device)
    if occupant != Person(member.mid):
        raise TableError(ErrorCode.NOT_YOUR_SEAT, f"{seat.key} is not your seat")
    if seat in t.standing_in:
        raise TableError(
            ErrorCode.NOT_YOUR_TURN, "a CPU plays this turn for you; your next one is yours"
        )
    return "person"


def _check_clock(d: Draft) -> None:
    """R3: the server's clock decides, whether or not its timer has fired yet."""
    deadline = d.table.next_deadline()
    if deadline is None or d.now < deadline.at:
        return
    if deadline.kind is DeadlineKind.TURN:
        raise TableError(
            ErrorCode.NOT_YOUR_TURN, "the clock ran out on this turn: the disc goes to the ditch"
        )
    if deadline.kind is DeadlineKind.NO_SHOW:
        raise TableError(
            ErrorCode.NOT_YOUR_TURN, "the clock ran out on your first turn: this game is aborted"
        )


def _by_hand(d: Draft, game: Game, seat: Seat, shot: Shot) -> Shot:
    """The shot a person's hand plays when they aim ``shot`` (the human hand's noise).

    The rules see only the shot played, so the aim is checked here, as
    :meth:`Game.shoot` would: a hand cannot make a shot that was illegal as
    aimed legal (the noise keeps a shot within R3's limits).
    """
    problem = game.placement_problem(seat, shot.position)
    if problem is not None:
        raise TableError.of(IllegalPlacement(problem))
    try:
        game.board.launch(seat, shot)
    except InvalidShotError as exc:
        raise TableError.of(exc) from None
    t = d.table
    rng = np.random.default_rng([t.seed, t.version + 1])
    played = HAND_NOISE.perturb(game.board, shot, rng)
    if game.placement_problem(seat, played.position) is not None:
        # Placing is deliberate: a hand does not slide the disc onto another.
        played = Shot(shot.position, played.direction, played.power)
    return played


def shoot(d: Draft, c: Shoot) -> None:
    """A person, a CPU or a stand-in shoots for a seat (R3-R5)."""
    _check_shooting(d, c)
    t = d.table
    seat = check_seat(t, c.seat)
    by = _shooter(d, c, seat)
    game = game_of(t)
    current = shooter(game)
    aimed: Shot | None = None
    played = c.shot
    # Another seat's shot goes to the rules as it is, which refuse it (not_your_turn).
    if current is seat:
        if by == "person":
            _check_clock(d)
        if not isinstance(played, Shot):
            raise TableError(
                ErrorCode.ILLEGAL_SHOT, f"a shot is (position, direction, power), not {played!r}"
            )
        if by == "person" and t.settings.hand is Hand.HUMAN:
            aimed, played = played, _by_hand(d, game, seat, played)
    after = game.copy()
    try:
        report = after.shoot(seat, played)
    except CrokinoleError as exc:
        raise TableError.of(exc) from None
    outcome = Played(report, game, after)
    d.emit(ShotPlayed, outcome=outcome, seat=seat, aimed=aimed, played=played, by=by)
    begin_turn(d)


def next_round(d: Draft, c: NextRound) -> None:
    """A seated player is ready for the next round; it starts when everyone is."""
    t = d.table
    check_open(t)
    member = player(t, c.device)  # a spectator is told so first
    if t.stage is Stage.FINISHED:
        raise TableError(ErrorCode.GAME_OVER, "the game is over: there is no next round")
    game = t.game
    if t.stage is not Stage.PLAYING or game is None or game.phase is not Phase.ROUND_OVER:
        raise TableError(ErrorCode.ILLEGAL_ACTION, "there is no round result to leave now")
    check_seated(t, member)
    if member.mid not in t.next_pressed:
        d.emit(NextPressed, mid=member.mid)
    settle(d, member.mid)  # pressed again: those who went away may have completed it


def _rematch_sender(t: Table, device: str | None) -> Member:
    """Who answers about a rematch: a player at an open table that is not ranked."""
    check_open(t)
    check_not_ranked(t)
    return player(t, device)  # a spectator is told so first


def decline_rematch(d: Draft, c: DeclineRematch) -> None:
    """A seated player declines the rematch offered: it is withdrawn."""
    t = d.table
    member = _rematch_sender(t, c.device)
    if t.kind is Kind.SOLO or t.stage is not Stage.FINISHED or not offer_open(t, d.now):
        raise TableError(
            ErrorCode.ILLEGAL_ACTION, "no rematch is offered now: there is nothing to decline"
        )
    check_seated(t, member)
    d.emit(RematchDeclined, mid=member.mid)


def _offer_or_accept(d: Draft, mid: str) -> None:
    """Offer a rematch if none is open (one that lapsed goes first), else accept it."""
    t = d.table
    if not offer_open(t, d.now):
        if t.rematch_until is not None:
            d.emit(RematchLapsed)  # its deadline had not fired yet
        d.emit(RematchOffered, mid=mid, until=d.now + t.timings.rematch_offer)
    elif mid not in t.rematch_votes:
        d.emit(RematchVoted, mid=mid)


def rematch(d: Draft, c: Rematch) -> None:
    """A seated player offers or accepts a rematch (solo: the next game starts)."""
    t = d.table
    member = _rematch_sender(t, c.device)
    if t.stage is not Stage.FINISHED:
        raise TableError(ErrorCode.ILLEGAL_ACTION, "a rematch is offered after a game")
    check_seated(t, member)
    if t.kind is Kind.SOLO:
        start_game(d)
        return
    _offer_or_accept(d, member.mid)
    settle(d, member.mid)  # accepted again: those who went away may have completed it


def tick(d: Draft, c: Tick) -> None:
    """The server's clock: every deadline due by now fires, in order."""
    for _ in range(200):
        t = d.table
        deadline = t.next_deadline()
        if deadline is None or deadline.at > d.now or t.game is None:
            return
        seat = t.game.current_seat
        if deadline.kind is DeadlineKind.REMATCH:
            d.emit(RematchLapsed)
        elif deadline.kind is DeadlineKind.ROUND:
            d.emit(RoundStarted, round=t.game.round_number + 1)
            begin_turn(d)
        elif seat is not None and deadline.kind is DeadlineKind.NO_SHOW:
            # The player never took a first shot: nobody is rated for a game not played.
            d.emit(GameAborted, seat=seat, reason="no_show")
            d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        elif seat is not None and deadline.kind is DeadlineKind.STANDIN:
            d.emit(StandInOn, seat=seat)
        elif seat is not None:
            # R3: the clock ran out; the disc goes to the ditch unplayed.
            d.emit(TurnTimedOut, seat=seat, reason="clock")
            begin_turn(d)
