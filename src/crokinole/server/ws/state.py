"""Where one websocket connection stands: the session's states and the moves between them.

A connection first says hello (its device token); then it is ready, with no
table open; it opens a table (create, join, open), and is at it; a client
that reconnects having missed a few events is caught up first (the events
it missed are rebuilt from the log while newer ones wait).  Leaving, being
removed or resigning takes it back to ready.  A connection over its message
limit is closing (its last ``error`` is still sent); every connection ends
closed.  :class:`SessionState` names these, :data:`TRANSITIONS` the moves
allowed, and :class:`Lifecycle` holds one connection's state and refuses any
other move (:class:`IllegalTransitionError`), as Starlette's
``WebSocketState`` does for the socket itself.
"""

from __future__ import annotations

from enum import Enum

from crokinole.errors import CrokinoleError

__all__ = ["TRANSITIONS", "IllegalTransitionError", "Lifecycle", "SessionState"]


class SessionState(Enum):
    """The states of a session (DESIGN.md, *Protocol*)."""

    AWAITING_HELLO = "awaiting hello"
    READY = "ready"
    AT_TABLE = "at a table"
    CATCHING_UP = "catching up"
    CLOSING = "closing"
    CLOSED = "closed"


_ENDING = frozenset({SessionState.CLOSING, SessionState.CLOSED})

#: The states each state may move to.  Closing and closed are reachable from
#: every open state; closed is the end.
TRANSITIONS: dict[SessionState, frozenset[SessionState]] = {
    SessionState.AWAITING_HELLO: frozenset({SessionState.READY}) | _ENDING,
    SessionState.READY: frozenset({SessionState.AT_TABLE, SessionState.CATCHING_UP}) | _ENDING,
    SessionState.AT_TABLE: frozenset({SessionState.READY}) | _ENDING,
    SessionState.CATCHING_UP: frozenset({SessionState.AT_TABLE}) | _ENDING,
    SessionState.CLOSING: frozenset({SessionState.CLOSED}),
    SessionState.CLOSED: frozenset(),
}


class IllegalTransitionError(CrokinoleError, RuntimeError):
    """A session asked to move between two states that :data:`TRANSITIONS` does not link."""


class Lifecycle:
    """One connection's state, moved only along :data:`TRANSITIONS`.

    >>> life = Lifecycle()
    >>> life.move(SessionState.READY)
    >>> life.state
    <SessionState.READY: 'ready'>
    >>> life.move(SessionState.CATCHING_UP)
    >>> life.move(SessionState.READY)
    Traceback (most recent call last):
    ...
    crokinole.server.ws.state.IllegalTransitionError: a session catching up cannot become ready
    """

    def __init__(self) -> None:
        self.state = SessionState.AWAITING_HELLO

    def move(self, to: SessionState) -> None:
        """Move to ``to``.

        Raises:
            IllegalTransitionError: ``to`` is not reachable from the state now.
        """
        if to not in TRANSITIONS[self.state]:
            raise IllegalTransitionError(f"a session {self.state.value} cannot become {to.value}")
        self.state = to

    @property
    def ending(self) -> bool:
        """Closing or closed: nothing more is queued for the client."""
        return self.state in _ENDING

    @property
    def closed(self) -> bool:
        """The connection is over."""
        return self.state is SessionState.CLOSED
