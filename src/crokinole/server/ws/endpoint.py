"""The game websocket's endpoint: who is admitted, the live sessions, and ending them.

:class:`Connections` owns what the server keeps about its sockets: how many
each address has open (bounded by the settings), the addresses cooling down
after a flood, and the live :class:`~crokinole.server.ws.session.Session`\\ s.
When a login session ends (log out, a new password), every socket it logged
in is closed, in every process: the ended sessions are broadcast on the
hub's :data:`SESSION_ENDED` topic, and a sweep closes the sockets whose
session ended unheard of (a broadcast lost, an expiry).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import time
from typing import Any

import anyio
import anyio.to_thread
from starlette.datastructures import QueryParams
from starlette.websockets import WebSocket

from crokinole.server.accounts import Accounts
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.limits import (
    AddressConnections,
    RateLimiter,
    ServerSettings,
    SharedCounts,
    Slot,
    origin_allowed,
)
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws.messages import CODE_ALPHABET, CODE_LENGTH, TABLE_PATTERN
from crokinole.server.ws.session import CLOSE_POLICY, Attendance, Session
from crokinole.store import StoreUnavailableError

__all__ = ["SESSION_ENDED", "Connections", "affinity_problem"]

log = logging.getLogger("crokinole.server")

#: The hub's topic on which the token hashes of ended login sessions are broadcast.
SESSION_ENDED = "accounts.ended"
#: Cooling addresses remembered at most (the cooled down are forgotten beyond).
MAX_COOLING = 10_000

#: What the websocket's address may name for a load balancer to hash on, and its form.
AFFINITY = {
    "table": (re.compile(TABLE_PATTERN), "a table's id (32 hex digits)"),
    "party": (
        re.compile(f"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$"),
        f"a party code as the server gives it ({CODE_LENGTH} capitals and digits)",
    ),
}


def affinity_problem(query: QueryParams) -> str | None:
    """Why the websocket's address names its table or party wrongly, or None if it is fine.

    ``/ws?table=ID`` or ``/ws?party=CODE`` is for a load balancer to send the
    players of one game to one process (docs/deploy.md); the server reads
    nothing else there (the ``hello`` says which table), but a malformed one
    is refused so that a client's mistake shows at once.  Other parameters
    are ignored.

    >>> affinity_problem(QueryParams("party=ABC234"))
    >>> affinity_problem(QueryParams(""))
    >>> affinity_problem(QueryParams("party=abc234"))
    'party must be a party code as the server gives it (6 capitals and digits)'
    >>> affinity_problem(QueryParams("table=1&party=ABC234"))
    'name the table or the party in the address, not both'
    """
    named = [name for name in AFFINITY if name in query]
    if len(named) > 1:
        return "name the table or the party in the address, not both"
    for name in named:
        pattern, form = AFFINITY[name]
        values = query.getlist(name)
        if len(values) != 1 or pattern.fullmatch(values[0]) is None:
            return f"{name} must be {form}"
    return None


class Connections:
    """The websockets of this process: admission, the live sessions, their login sessions."""

    def __init__(
        self,
        tables: Tables,
        settings: ServerSettings,
        accounts: Accounts,
        ranked: RankedQueue,
        *,
        shared: SharedCounts | None = None,
    ) -> None:
        self.tables, self.settings, self.accounts, self.ranked = tables, settings, accounts, ranked
        # With ``shared`` (several processes on Redis) both limits hold for the whole site.
        self.limiter = RateLimiter(settings.rooms_per_minute, 60.0, shared=shared, kind="rooms")
        self.presence = Attendance()
        self.per_address = AddressConnections(settings.connections_per_address, shared)
        #: Addresses refused new websockets until a monotonic time (after a flood).
        self.cooling: dict[str, float] = {}
        #: This process's connections (those a login session ended are closed).
        self.live: set[Session] = set()

    # ------------------------------------------------------------ login sessions

    def on_session_ended(self, payload: dict[str, Any]) -> None:
        """Close this process's sockets of the ended login sessions (the hub's message)."""
        ended = set(payload.get("sessions", ()))
        for session in [s for s in self.live if s.login is not None and s.login in ended]:
            session.session_ended()

    async def session_ended(self, hashes: list[str]) -> None:
        """Close the connections of the ended sessions, in every process."""
        try:
            await self.tables.hub.broadcast(SESSION_ENDED, {"sessions": hashes})
        except HubUnavailableError as exc:  # this process's were closed; the others' will not be
            log.warning("could not tell the other processes that sessions ended: %s", exc)

    def listen(self) -> None:
        """Hear of the sessions the other processes end (once the hub has started)."""
        self.tables.hub.listen(SESSION_ENDED, self.on_session_ended)

    async def sweep_sessions(self) -> None:
        """Close the sockets whose login session ended unheard of (a broadcast lost, an expiry)."""
        while True:
            await anyio.sleep(self.settings.session_sweep)
            logins = {s.login for s in self.live if s.login is not None}
            try:
                ended = await anyio.to_thread.run_sync(self.accounts.ended_sessions, sorted(logins))
            except StoreUnavailableError as exc:
                log.warning("could not check the websockets' login sessions: %s", exc)
                continue
            if ended:
                self.on_session_ended({"sessions": sorted(ended)})

    # ------------------------------------------------------------ admission

    async def admitted(self, websocket: WebSocket) -> Slot | None:
        """The client's counted connection if the handshake may go on (else it was
        refused: HTTP 403)."""
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host")
        if not origin_allowed(origin, host, self.settings.allowed_origins):
            log.warning("refused a websocket from origin %r", origin)
            await websocket.close(code=CLOSE_POLICY)  # before accepting: HTTP 403
            return None
        problem = affinity_problem(websocket.query_params)
        if problem is not None:
            # Accepted to be closed with the reason (a refused handshake has none).
            await websocket.accept()
            await websocket.close(code=CLOSE_POLICY, reason=problem)
            return None
        address = websocket.client.host if websocket.client else "?"
        if self.cooling.get(address, 0.0) > time.monotonic():
            # This address flooded a socket a moment ago: each new socket costs
            # the server the parsing of what it sends before it can be closed.
            await websocket.close(code=CLOSE_POLICY)
            return None
        slot = await self.per_address.open(address)
        if slot is None:
            await websocket.close(code=CLOSE_POLICY)
        return slot

    def cool(self, address: str) -> None:
        """Refuse the address new websockets for a while: one of its sockets flooded."""
        now = time.monotonic()
        if len(self.cooling) > MAX_COOLING:  # forget the cooled down: memory stays bounded
            for cooled in [a for a, until in self.cooling.items() if until <= now]:
                del self.cooling[cooled]
        self.cooling[address] = now + self.settings.flood_cooldown

    # ------------------------------------------------------------ the endpoint

    async def play(self, websocket: WebSocket) -> None:
        """The websocket endpoint: one client speaking protocol version 2."""
        slot = await self.admitted(websocket)
        if slot is None:
            return
        session = Session(
            websocket,
            self.tables,
            self.settings,
            self.limiter,
            self.presence,
            accounts=self.accounts,
            ranked=self.ranked,
        )
        self.live.add(session)
        session.on_flood = functools.partial(self.cool, slot.address)
        try:
            await websocket.accept()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(session.writer)
                tasks.start_soon(session.reader)
                tasks.start_soon(session.hello_deadline)
                await session.done.wait()
                tasks.cancel_scope.cancel()
            # A client dropped for flooding gets no closing handshake: the
            # socket just ends (the handshake would parse all it sent first).
            if session.dropped is not None and session.close_frame:
                # The close frame may never get through to a client that does
                # not read: the server gives up on it after a second.
                code, reason = session.dropped
                with anyio.move_on_after(1.0), contextlib.suppress(Exception):
                    await websocket.close(code=code, reason=reason)
        finally:
            self.live.discard(session)
            with anyio.CancelScope(shield=True):
                await session.close()
                await self.per_address.close(slot)
