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

from crokinole.server import protocol
from crokinole.server.accounts import Accounts
from crokinole.server.bots import (
    EVENT_TABLE,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    REVOKED,
    SOCKETS_PER_TOKEN,
    Bots,
)
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.limits import (
    AddressConnections,
    RateLimiter,
    ServerSettings,
    SharedCounts,
    Slot,
    TokenBucket,
    origin_allowed,
)
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws.challenges import Challenges
from crokinole.server.ws.messages import CODE_ALPHABET, CODE_LENGTH, TABLE_PATTERN
from crokinole.server.ws.session import CLOSE_POLICY, CLOSE_TOO_SLOW, Attendance, Session
from crokinole.store import StoreUnavailableError

__all__ = ["SESSION_ENDED", "Connections", "affinity_problem"]

log = logging.getLogger("crokinole.server")

#: The hub's topic on which the token hashes of ended login sessions are broadcast.
SESSION_ENDED = "accounts.ended"
#: Close codes of a bot's socket: its API token logs nobody in (bad, revoked), or the
#: token has its sockets open already.
CLOSE_BAD_TOKEN = 4401
CLOSE_TOO_MANY_SOCKETS = 4429
BAD_TOKEN = (
    "this API token is not valid (mistyped, or revoked): make a new one on the Bots page (/bots)"
)
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
        bots: Bots | None = None,
    ) -> None:
        self.tables, self.settings, self.accounts, self.ranked = tables, settings, accounts, ranked
        self.bots = bots
        #: Each API token's open sockets (at most :data:`SOCKETS_PER_TOKEN`), and each bot
        #: account's (online: one or more), for every process with ``shared``.
        self.bot_sockets = AddressConnections(SOCKETS_PER_TOKEN, shared)
        self.bot_accounts = AddressConnections(1_000_000, shared)
        #: Each token's bucket of messages (its sockets in this process together), and
        #: with ``shared`` their count for the whole site: :data:`MESSAGE_BURST` in any
        #: burst / rate seconds (40 in 2 s: 20 a second on average, 40 at once).
        self.bot_buckets: dict[int, TokenBucket] = {}
        self.bot_rate = (
            None
            if shared is None
            else RateLimiter(
                MESSAGE_BURST,
                MESSAGE_BURST / MESSAGES_PER_SECOND,
                shared=shared,
                kind="bot_messages",
            )
        )
        self.challenges = Challenges(tables, lambda: self.live, self.bots_online)
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
        """Hear of the sessions the other processes end, the tokens they revoke and their
        challenges (once the hub has started)."""
        self.tables.hub.listen(SESSION_ENDED, self.on_session_ended)
        self.tables.hub.listen(REVOKED, self.on_revoked)
        self.tables.hub.listen(EVENT_TABLE, self.on_event_table)
        self.challenges.listen()

    async def renew_forever(self) -> None:
        """Renew the counts of this process's sockets (by address, token and bot) and expire
        the challenges, until cancelled."""
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self.per_address.renew_forever)
            tasks.start_soon(self.bot_sockets.renew_forever)
            tasks.start_soon(self.bot_accounts.renew_forever)
            tasks.start_soon(self.challenges.expire_forever)

    # ------------------------------------------------------------ bots

    def on_revoked(self, payload: dict[str, Any]) -> None:
        """Close this process's sockets of the revoked API tokens (the hub's message)."""
        revoked = set(payload.get("tokens", ()))
        for session in [s for s in self.live if s.bot is not None and s.bot.token_id in revoked]:
            session.drop(CLOSE_BAD_TOKEN, "this API token was revoked")

    def on_event_table(self, payload: dict[str, Any]) -> None:
        """Tell this process's sockets of the seated bots of an event's new table:
        ``event_table {"event", "name", "stage", "round", "board", "game"}`` (docs/bots.md);
        the bot opens it with ``open``."""
        seated = set(payload.get("accounts", ()))
        fields = {k: payload.get(k) for k in ("event", "name", "stage", "round", "board", "game")}
        notice = protocol.message("event_table", payload.get("table"), 0, **fields)
        for session in self.live:
            if session.bot is not None and session.bot.account.id in seated:
                session.send(notice)

    async def tokens_revoked(self, token_ids: list[int]) -> None:
        """Close the sockets of the revoked tokens, in every process."""
        try:
            await self.tables.hub.broadcast(REVOKED, {"tokens": token_ids})
        except HubUnavailableError as exc:  # closed here; the others' sweep closes theirs
            log.warning("could not tell the other processes that tokens were revoked: %s", exc)
            self.on_revoked({"tokens": token_ids})

    async def bots_online(self, account_ids: list[int]) -> set[int]:
        """Which of the bot accounts have a socket open now (in any process)."""
        online = set()
        for account in account_ids:
            if await self.bot_accounts.count(f"bot:{account}") > 0:
                online.add(account)
        return online

    async def bot_login(self, session: Session, text: str) -> bool:
        """Log the session in as the bot of the API token ``text``; False when refused (the
        session is dropped: 4401 for a token that logs nobody in, 4429 for one with its
        sockets open already)."""
        if self.bots is None:
            session.drop(CLOSE_BAD_TOKEN, "this server takes no API tokens")
            return False
        try:
            login = await anyio.to_thread.run_sync(self.bots.login, text)
        except StoreUnavailableError as exc:
            log.warning("could not check an API token: %s", exc)
            session.drop(CLOSE_TOO_SLOW, "the server cannot check tokens now: try again soon")
            return False
        if login is None:
            session.drop(CLOSE_BAD_TOKEN, BAD_TOKEN)
            return False
        slot = await self.bot_sockets.open(f"token:{login.token_id}")
        if slot is None:
            session.drop(
                CLOSE_TOO_MANY_SOCKETS,
                f"this API token has {SOCKETS_PER_TOKEN} sockets open already: close one",
            )
            return False
        session.bot_slots = [slot]
        online = await self.bot_accounts.open(f"bot:{login.account.id}")
        if online is not None:
            session.bot_slots.append(online)
        session.bot = login
        session.bot_bucket = self.bot_buckets.setdefault(
            login.token_id,
            TokenBucket(MESSAGES_PER_SECOND, MESSAGE_BURST, time.monotonic()),
        )
        session.bot_rate = self.bot_rate
        return True

    async def _bot_logout(self, session: Session) -> None:
        slots = session.bot_slots
        session.bot_slots = []
        if slots:
            await self.bot_sockets.close(slots[0])
        for slot in slots[1:]:
            await self.bot_accounts.close(slot)
        bot = session.bot
        if bot is not None and self.bot_sockets.here[f"token:{bot.token_id}"] <= 0:
            self.bot_buckets.pop(bot.token_id, None)

    async def sweep_sessions(self) -> None:
        """Close the sockets whose login session ended unheard of (a broadcast lost, an expiry)."""
        while True:
            await anyio.sleep(self.settings.session_sweep)
            logins = {s.login for s in self.live if s.login is not None}
            tokens = {s.bot.token_id for s in self.live if s.bot is not None}
            try:
                ended = await anyio.to_thread.run_sync(self.accounts.ended_sessions, sorted(logins))
                revoked = (
                    set()
                    if self.bots is None or not tokens
                    else await anyio.to_thread.run_sync(self.bots.revoked, sorted(tokens))
                )
            except StoreUnavailableError as exc:
                log.warning("could not check the websockets' login sessions: %s", exc)
                continue
            if ended:
                self.on_session_ended({"sessions": sorted(ended)})
            if revoked:
                self.on_revoked({"tokens": sorted(revoked)})

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
            challenges=self.challenges,
        )
        self.live.add(session)
        session.on_flood = functools.partial(self.cool, slot.address)
        session.bot_login = functools.partial(self.bot_login, session)
        try:
            await websocket.accept()
            authorization = websocket.headers.get("authorization")
            if authorization is not None:
                scheme, _, text = authorization.partition(" ")
                if scheme.lower() != "bearer":
                    session.drop(CLOSE_BAD_TOKEN, "send the token as Authorization: Bearer crk_…")
                else:
                    await self.bot_login(session, text.strip())
                if session.dropped is not None:
                    code, reason = session.dropped
                    with anyio.move_on_after(1.0), contextlib.suppress(Exception):
                        await websocket.close(code=code, reason=reason)
                    return
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
                await self._bot_logout(session)
                await self.per_address.close(slot)
