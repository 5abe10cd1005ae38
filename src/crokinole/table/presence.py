"""Presence at a table: a device connects or goes, and a member's quick reaction.

Connecting and disconnecting are facts the server reports, never refused
at an open table (a closed one ignores them); a reaction is the one thing a
member may send that changes nothing but the chat of the moment.
"""

from __future__ import annotations

from crokinole.errors import ErrorCode, TableError
from crokinole.table.commands import REACTIONS, Connect, Disconnect, React
from crokinole.table.draft import Draft, check_open, player, sender
from crokinole.table.events import Presence, Reacted
from crokinole.table.flow import settle
from crokinole.table.state import Stage

__all__ = ["presence", "react"]


def presence(d: Draft, c: Connect | Disconnect) -> None:
    """A member's device connected or went away."""
    t = d.table
    if t.stage is Stage.CLOSED:
        return
    member = sender(t, c.device)
    connected = isinstance(c, Connect)
    if member.connected != connected:
        d.emit(Presence, mid=member.mid, connected=connected)
        # Gone: the others may all have pressed.  Back: one who pressed
        # may now be the only one here.
        settle(d)


def react(d: Draft, c: React) -> None:
    """A player sends a quick reaction (one at a time)."""
    t = d.table
    check_open(t)
    member = player(t, c.device)
    if c.reaction not in REACTIONS:
        raise TableError(
            ErrorCode.UNKNOWN_REACTION,
            f"{c.reaction!r} is not a reaction: {', '.join(REACTIONS)}",
        )
    last = member.reacted_at
    if last is not None and d.now < last + t.timings.reaction_gap:
        raise TableError(ErrorCode.TOO_MANY_REACTIONS, "one reaction at a time: wait a moment")
    d.emit(Reacted, mid=member.mid, reaction=c.reaction)
