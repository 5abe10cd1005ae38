"""One websocket connection under protocol version 2: a device at its tables.

A session reads the client's messages, turns each into a command of the
table (:mod:`crokinole.table`) and sends it to the tables' owner
(:class:`~crokinole.server.owner.tables.Tables`); it never changes a table itself
(what each message does is :mod:`crokinole.server.ws.dispatch`).
It subscribes to the table it has open on the hub, and renders the events
the owner publishes as this viewer's messages (:mod:`crokinole.server.ws.views`).
Where it stands (awaiting hello, ready, at a table, catching up, closing,
closed) is its state (:mod:`crokinole.server.ws.state`), moved only along
the transitions allowed.

Writing is never waited for: messages go onto a queue bounded in messages
and bytes, emptied by the session's own writer, so no client can make a
table (or another client) wait.  A client whose queue overflows, or whose
socket takes longer than the send timeout for one message, is dropped; it
reconnects and is sent the table again.

Reading is limited too: each connection has a token bucket of messages
(``ServerSettings.message_burst`` at once, ``messages_per_second`` on
average); a client over it is sent ``error`` ``too_many_messages`` and closed.
The reader gives the event loop back after every message, so one
connection's backlog of messages never holds the other connections up.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from crokinole.errors import ErrorCode
from crokinole.server import protocol
from crokinole.server.accounts import Account, Accounts
from crokinole.server.bots import BotLogin
from crokinole.server.limits import RateLimiter, ServerSettings, Slot, TokenBucket
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked import rated
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws import messages as inbound
from crokinole.server.ws import views
from crokinole.server.ws.challenges import Challenges
from crokinole.server.ws.dispatch import Dispatch
from crokinole.server.ws.state import Lifecycle, SessionState
from crokinole.store import Store
from crokinole.table import (
    Command,
    Connect,
    Disconnect,
    Event,
    Join,
    Kind,
    MemberLeft,
    Played,
    Table,
    TableError,
    event_from_dict,
)
from crokinole.table.members import MAX_NAME

log = logging.getLogger("crokinole.server")

#: Close codes sent when the server drops a client (RFC 6455 §7.4).
CLOSE_TOO_SLOW = 1013  # "try again later": reconnect and catch up
CLOSE_POLICY = 1008

#: How long a connection closed for too many messages has to read its last ``error``
#: (the server reads nothing more from it meanwhile).
CLOSE_FLUSH_S = 2.0

#: The opponents a device record counts: the CPU levels, then other people.
RECORD_OPPONENTS: tuple[str, ...] = (*inbound.LEVEL_IDS, "people")

#: A reconnecting client that missed more events than this is sent the whole table.
MAX_CATCH_UP = 50
#: Tables with a longer log are not replayed for a catch-up (the whole table is sent).
MAX_REPLAY = 2000

#: Bytes counted for a message whose text is made later (a ``finished`` waiting
#: for its device record).
_DEFERRED_BYTES = 64 * 1024


def _replay(
    store: Store, table: Table, last_event: int
) -> tuple[Table, list[Event], dict[int, Played]] | None:
    """The table at ``last_event`` and the events after it, with their shots (blocking).

    None when the stored log does not lead to ``table`` (it moved on, or is too long).
    """
    if table.version > MAX_REPLAY:
        return None
    events = [event_from_dict(row) for row in store.table_events(table.id, 0, table.version)]
    if [e.version for e in events] != list(range(1, table.version + 1)):
        return None
    before = Table.replay(events[:last_event])
    missed = events[last_event:]
    return before, missed, views.replay_turns(before, missed)


class Attendance:
    """How many connections of each device have each table open.

    A device is connected to a table while at least one of its connections
    has it open: a second tab, or a reconnection that arrives before the old
    socket is noticed gone, does not make it flicker.
    """

    def __init__(self) -> None:
        self._open: Counter[tuple[str, str]] = Counter()

    def arrive(self, table_id: str, device: str) -> bool:
        """Count a connection in; True if it is the device's first at the table."""
        key = (table_id, device)
        self._open[key] += 1
        return self._open[key] == 1

    def depart(self, table_id: str, device: str) -> bool:
        """Count a connection out; True if it was the device's last at the table."""
        key = (table_id, device)
        if self._open[key] <= 0:
            return False
        self._open[key] -= 1
        if self._open[key] == 0:
            del self._open[key]
            return True
        return False


Outgoing = str | Callable[[], Awaitable[str]]


class Session(Dispatch):
    """One websocket connection and the table it has open.

    What its messages do is the other half, :class:`~crokinole.server.ws.dispatch.Dispatch`.
    """

    def __init__(
        self,
        websocket: WebSocket,
        tables: Tables,
        settings: ServerSettings,
        limiter: RateLimiter,
        presence: Attendance,
        *,
        accounts: Accounts | None = None,
        ranked: RankedQueue | None = None,
        challenges: Challenges | None = None,
    ) -> None:
        self.websocket = websocket
        self.tables, self.settings, self.limiter = tables, settings, limiter
        self.presence, self.accounts, self.ranked = presence, accounts, ranked
        #: The device token said in hello (None before it).
        self.token: str | None = None
        #: The account logged in by the handshake's session cookie (read at hello).
        self.account: Account | None = None
        #: The token hash of that login session: when it ends, this connection is closed.
        self.login: str | None = None
        #: The bot this connection speaks for (an API token logged it in), or None.
        self.bot: BotLogin | None = None
        #: Logs a bot in by the token of its ``hello`` (the endpoint's; False: refused,
        #: the connection is being closed).
        self.bot_login: Callable[[str], Awaitable[bool]] | None = None
        #: The bucket of the bot's token (20 messages a second, its sockets in this
        #: process together), and with several processes the site's count of them.
        self.bot_bucket: TokenBucket | None = None
        self.bot_rate: RateLimiter | None = None
        #: The counted sockets of the bot's token and account (the endpoint's).
        self.bot_slots: list[Slot] = []
        #: The challenges, and the ids of those this connection sent and are pending.
        self.challenges = challenges
        self.challenges_sent: set[str] = set()
        #: Who this connection is at the open table: the device token, or at
        #: a ranked table the account's identity.
        self._me: str | None = None
        #: The table this connection has open, and the table as last sent to it.
        self.table_id: str | None = None
        self._shown: Table | None = None
        self._present = False
        #: Where this connection stands (awaiting hello, ready, at a table ...).
        self._life = Lifecycle()
        #: Deliveries held back while a catch-up is prepared (state ``CATCHING_UP``).
        self._waiting: list[tuple[Table, Sequence[Event]]] = []
        self._outbox: asyncio.Queue[Outgoing] = asyncio.Queue()
        self._queued_bytes = 0
        self.dropped: tuple[int, str] | None = None
        #: Whether a dropped client is sent a close frame: not one that floods
        #: (the closing handshake would read, and parse, all it sent first).
        self.close_frame = True
        #: Called when this client goes over its message limit (the app cools its address).
        self.on_flood: Callable[[], None] | None = None
        #: The writer found the client gone (its messages are counted, no more handled).
        self._gone = False
        #: When the send in progress began (loop time; None: none), and the timer that
        #: watches it for the send timeout (:meth:`_watch_send`).
        self._sending: float | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._bucket = TokenBucket(
            settings.messages_per_second, settings.message_burst, time.monotonic()
        )
        #: Set when the session is closed (the app waits on it).
        self.done = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        #: The hint or heat map being computed for this connection (one at a time).
        self._helping: asyncio.Task[None] | None = None

    @property
    def state(self) -> SessionState:
        """Where this connection stands (:mod:`crokinole.server.ws.state`)."""
        return self._life.state

    def _end(self) -> None:
        """The connection is over, whatever it was doing: ``done`` is set."""
        if not self._life.closed:
            self._life.move(SessionState.CLOSED)
        self.done.set()

    def _entered_table(self) -> None:
        """The open table was sent: the session is at it (unless already, or ending)."""
        if self.state in (SessionState.READY, SessionState.CATCHING_UP):
            self._life.move(SessionState.AT_TABLE)

    @property
    def account_id(self) -> int | None:
        """The logged-in account's id, or None (a guest)."""
        return self.account.id if self.account is not None else None

    def _me_at(self, table: Table) -> str | None:
        """Who this connection is at ``table``: its account at a ranked table, else its device
        (and at an event's table the device of a spectator who is not one of its players)."""
        if table.kind is Kind.RANKED:
            account = self.account
            player = None if account is None else rated.identity(account.id, bot=account.bot)
            if table.event is None or (player is not None and table.member_of(player)):
                return player
        return self.token

    # ------------------------------------------------------------ sending

    def _queue(self, item: Outgoing, size: int) -> None:
        if self._life.ending:
            return
        if (
            self._outbox.qsize() >= self.settings.queue_messages
            or self._queued_bytes + size > self.settings.queue_bytes
        ):
            self.drop(CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
            return
        self._queued_bytes += size
        self._outbox.put_nowait(item)

    def send(self, payload: dict[str, Any]) -> None:
        """Queue one message (never waits)."""
        self.send_text(protocol.encode(payload))

    def send_text(self, text: str) -> None:
        """Queue one message already encoded (never waits)."""
        self._queue(text, len(text))

    def send_later(self, make: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        """Queue a message made when its turn to be sent comes (it may read the store).

        It keeps its place: the messages queued after it are sent after it.
        """

        async def text() -> str:
            return protocol.encode(await make())

        self._queue(text, _DEFERRED_BYTES)

    def session_ended(self) -> None:
        """The login session of this connection ended (logged out, a new password ...): the
        connection is closed, so that it plays no more as the account (it may come back as a
        guest)."""
        self.account = None
        self.login = None
        self.drop(CLOSE_POLICY, "the login session ended: log in again")

    def drop(self, code: int, reason: str) -> None:
        """Disconnect this client: it gets nothing more."""
        if self._life.closed:
            return
        self.dropped = (code, reason)
        log.info("dropping a client (%s)", reason)
        self._end()

    def close_after(self, code: int, reason: str) -> None:
        """Disconnect this client :data:`CLOSE_FLUSH_S` from now.

        Nothing more is queued; the messages queued so far are sent
        meanwhile, so a client that reads gets them before the socket ends.
        """
        if self._life.ending:
            return
        self._life.move(SessionState.CLOSING)
        asyncio.get_running_loop().call_later(CLOSE_FLUSH_S, self.drop, code, reason)

    async def writer(self) -> None:
        """Send the queued messages in order, each within the send timeout."""
        loop = asyncio.get_running_loop()
        try:
            while True:
                item = await self._outbox.get()
                if isinstance(item, str):
                    self._queued_bytes -= len(item)
                    text = item
                else:
                    self._queued_bytes -= _DEFERRED_BYTES
                    text = await item()
                # A send is watched by the session's one timer, not a timer
                # of its own: nearly every send is done at once (the socket
                # buffers it), and a timer per message cost more than the rest
                # of sending it.
                self._sending = loop.time()
                if self._watch is None:
                    self._watch = loop.call_at(
                        self._sending + self.settings.send_timeout, self._watch_send
                    )
                await self.websocket.send_text(text)
                self._sending = None
        except WebSocketDisconnect:
            # The client went: the reader counts what it had sent (a flood
            # that hangs up is a flood) and ends the session at its disconnect.
            self._gone = True
        except (OSError, RuntimeError):
            self._end()
        finally:
            if self._watch is not None:
                self._watch.cancel()
                self._watch = None

    def _watch_send(self) -> None:
        """The send timer: drop a client whose send in progress took the send timeout; while
        it has not, watch until it would have (no send in progress: the next one starts it)."""
        self._watch = None
        started = self._sending
        if started is None or self._life.closed:
            return
        loop = asyncio.get_running_loop()
        due = started + self.settings.send_timeout
        if loop.time() < due:
            self._watch = loop.call_at(due, self._watch_send)
        else:
            # The session ends: the endpoint cancels the send stuck in progress.
            self.drop(CLOSE_TOO_SLOW, "too slow: reconnect to catch up")

    async def reader(self) -> None:
        """Read and handle messages until the client leaves, or sends too many."""
        try:
            while True:
                received = await self.websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                if not self._bucket.take(time.monotonic()):
                    self._too_many()
                    return
                if self._gone:
                    continue  # nobody to answer: counted, not handled
                text = received.get("text")
                if text is None:
                    text = (received.get("bytes") or b"").decode("utf-8", errors="replace")
                # A message is handled to the end even if the client is
                # dropped meanwhile: the owner applies whole commands only.
                with anyio.CancelScope(shield=True):
                    await self.handle(text)
                # A backlog of messages already read is not handled in one
                # go: the other connections and tables get their turn.
                await asyncio.sleep(0)
        except WebSocketDisconnect:
            pass
        finally:
            if self.state is not SessionState.CLOSING:
                self._end()

    def _too_many(self) -> None:
        """Over the message limit: an ``error``, then the connection is closed."""
        burst, rate = self.settings.message_burst, self.settings.messages_per_second
        self.error(
            ErrorCode.TOO_MANY_MESSAGES,
            f"too many messages: at most {burst} at once and {rate:g} a second; "
            "this connection is closed",
        )
        self.close_frame = False
        if self.on_flood is not None:
            self.on_flood()
        self.close_after(CLOSE_POLICY, "too many messages")

    async def hello_deadline(self) -> None:
        """A socket that never says hello is closed after the hello timeout."""
        await anyio.sleep(self.settings.hello_timeout)
        if self.token is None:  # awaiting hello, or closing before it said hello
            self.drop(CLOSE_POLICY, "say hello first")

    def error(self, code: str, text: str, table_id: str | None = None) -> None:
        """Queue an ``error`` message (at the open table's version)."""
        shown = self._shown
        if shown is not None and table_id in (None, shown.id):
            self.send(protocol.message("error", shown.id, shown.version, code=code, message=text))
        else:
            self.send(protocol.message("error", table_id, 0, code=code, message=text))

    # ------------------------------------------------------------ the hub's side

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        """Render ``events`` (``table`` as it stands after them) as this viewer's messages.

        Called by the hub on the event loop; only queues.  Events this
        viewer was already shown (by a full view sent meanwhile) are
        skipped; a gap (events lost on the way) is answered with the full view.
        """
        if self.state is SessionState.CATCHING_UP:
            self._waiting.append((table, events))  # after the catch-up being prepared
            return
        shown = self._shown
        if self._life.closed or shown is None or table.id != shown.id:
            return
        fresh = [e for e in events if e.version > shown.version]
        if not fresh:
            return
        self._shown = table
        now = self.tables.now()
        messages: Sequence[views.Rendered]
        if fresh[0].version != shown.version + 1:
            messages = [views.table_message(table, self._me, now)]
        else:
            try:
                messages = views.event_texts(shown, table, fresh, self._me, now)
            except Exception:
                log.exception("rendering the events of table %s failed; sending it whole", table.id)
                messages = [views.table_message(table, self._me, now)]
        self._send_all(messages, table)
        me = shown.member_of(self._me) if self._me is not None else None
        if me is not None and any(
            isinstance(e, MemberLeft) and e.mid == me.mid and e.removed for e in fresh
        ):
            # Removed by the host: this connection no longer follows the table.
            self._close_table()
            return
        now_me = table.member_of(self._me)
        if self._present and now_me is not None and not now_me.connected:
            # Marked absent while this connection is here (the table was
            # loaded again by an owner who cannot know): here after all.
            self._spawn(self._command_quietly(table.id, Connect(now_me.device)))

    def _send_all(self, messages: Sequence[views.Rendered], table: Table) -> None:
        """Queue event messages (texts, or messages to encode); a ``finished`` is completed
        with this device's record (and at a ranked table with the ratings the game changed)."""
        for item in messages:
            if isinstance(item, str):
                self.send_text(item)
            elif item["type"] == "finished":
                self.send_later(self._with_record(item, table))
            else:
                self.send(item)

    def _with_record(
        self, payload: dict[str, Any], table: Table
    ) -> Callable[[], Awaitable[dict[str, Any]]]:
        ranked = table.kind is Kind.RANKED
        game_number = table.game_number

        async def make() -> dict[str, Any]:
            try:
                record = await self._record()
            except Exception:
                log.exception("reading the device record failed")
                record = None
            if not ranked:
                return {**payload, "record": record}
            try:
                ratings = await anyio.to_thread.run_sync(
                    rated.finished_ratings, self.tables.store, table.id, game_number
                )
            except Exception:
                log.exception("reading the ratings of table %s failed", table.id)
                ratings = []
            return {**payload, "record": record, "ratings": ratings}

        return make

    async def _record(self) -> dict[str, Any]:
        """This device's record; logged in, with the games of every device attached to the
        account (its guest games count for it, whichever device it plays on now)."""
        token = self.token
        if token is None:
            return {}
        store = self.tables.store
        account = self.account

        def read() -> dict[str, Any]:
            devices = [token]
            if account is not None:
                devices += store.account_devices(account.id)
            return dict(store.devices_record(devices, RECORD_OPPONENTS))

        return await anyio.to_thread.run_sync(read)

    # ------------------------------------------------------------ tables

    async def _open(self, table_id: str, last_event: int | None = None) -> None:
        """Open the table on this connection (a member's; at an event's table anyone's,
        who watches it).

        A client that was shown the table up to ``last_event`` and missed a
        few events since is sent those events (a shot it missed is animated);
        any other is sent the whole view.  A refusal (no such table, not a
        member) leaves the table open here as it was.
        """
        assert self.token is not None
        shown = self._shown
        if shown is not None and shown.id == table_id:
            # Already open here: the client asks to be sent it all again.
            self._show(self.tables.held(table_id) or shown)
            return
        table = await self.tables.get(table_id, subscriber=self)
        if table is None:
            raise TableError(ErrorCode.UNKNOWN_TABLE, f"there is no table {table_id}")
        me = self._me_at(table)
        if (me is None or table.member_of(me) is None) and table.event is not None:
            table, me = await self._spectate(table), self.token
        if me is None or table.member_of(me) is None:
            self.tables.hub.unsubscribe(table_id, self)
            if table.kind is Kind.RANKED:
                raise TableError(
                    ErrorCode.RANKED_TABLE, "this is a ranked game: only its players can join"
                )
            raise TableError(
                ErrorCode.NOT_A_MEMBER, "you are not at this table: join it with its code or link"
            )
        self._switch_table()
        self._me = me
        # A ranked player's device (not an event's spectator, who is there by its device).
        if table.kind is Kind.RANKED and table.stage == "playing" and me != self.token:
            await self._note_ranked_device(table.id)
        missed = table.version - last_event if last_event is not None else 0
        if last_event is not None and last_event >= 1 and 0 < missed <= MAX_CATCH_UP:
            await self._catch_up(table, last_event)
        else:
            self._show(table)
        await self._arrive()

    async def _spectate(self, table: Table) -> Table:
        """Anyone who opens an event's table (its players excepted) watches it: they join
        as a spectator, named after their account (or ``Spectator``)."""
        assert self.token is not None
        name = self.account.username[:MAX_NAME] if self.account is not None else "Spectator"
        events = await self.tables.command(table.id, Join(self.token, name, spectator=True))
        at_least = max((e.version for e in events), default=table.version)
        watched = await self.tables.get(table.id, subscriber=self, at_least=at_least)
        return watched if watched is not None else table

    async def _note_ranked_device(self, table_id: str) -> None:
        """Keep the device a ranked player plays from: engine help is refused to it until
        the game ends (:mod:`crokinole.server.ranked.fair_play`)."""
        token = self.token
        if token is None:
            return
        try:
            await anyio.to_thread.run_sync(self.tables.store.add_ranked_device, table_id, token)
        except Exception:
            log.exception("could not note the device of a ranked player at table %s", table_id)

    async def _catch_up(self, table: Table, last_event: int) -> None:
        """Send the events after ``last_event`` as they were first sent (else the whole view).

        They are rebuilt from the stored log: the table at ``last_event`` is
        replayed (shots simulated again, deterministic) off the event loop.
        Events published meanwhile wait, then follow.
        """
        self.table_id = table.id
        self._shown = table
        self._waiting = []
        if self.state is SessionState.READY:
            self._life.move(SessionState.CATCHING_UP)
        try:
            replayed = await anyio.to_thread.run_sync(_replay, self.tables.store, table, last_event)
        except Exception:
            log.exception("catching up on table %s failed; sending it whole", table.id)
            replayed = None
        finally:
            # Caught up as soon as the missed events are queued (nothing awaits in between).
            waiting, self._waiting = self._waiting, []
            self._entered_table()
        now = self.tables.now()
        messages = None
        if replayed is not None:
            before, missed, turns = replayed
            try:
                messages = views.event_texts(before, table, missed, self._me, now, turns=turns)
            except Exception:
                log.exception("rendering the catch-up of table %s failed", table.id)
        if messages is None:
            self.send(views.table_message(table, self._me, now))
        else:
            self._send_all(messages, table)
        for later, events in waiting:
            self.deliver(later, events)

    def _show(self, table: Table) -> None:
        """Make ``table`` (just subscribed to) the open one and send its full view."""
        self.table_id = table.id
        self._shown = table
        self._me = self._me_at(table)
        self._entered_table()
        self.send(views.table_message(table, self._me, self.tables.now()))

    async def _arrive(self) -> None:
        """Count this connection in at the open table; the device's first marks it connected."""
        table_id, token = self.table_id, self._me
        if table_id is None or token is None or self._present:
            return
        self._present = True
        first = self.presence.arrive(table_id, token)
        member = self._shown.member_of(token) if self._shown is not None else None
        if first or (member is not None and not member.connected):
            await self._command_quietly(table_id, Connect(token))

    def _close_table(self) -> tuple[str, str] | None:
        """Stop following the open table and count this connection out.

        Returns the table and device when this was the device's last
        connection there (the device is then to be marked disconnected).
        """
        table_id, token = self.table_id, self._me
        self.table_id = None
        self._shown = None
        if self.state is SessionState.AT_TABLE:
            self._life.move(SessionState.READY)
        if table_id is None:
            return None
        self.tables.hub.unsubscribe(table_id, self)
        if not self._present or token is None:
            return None
        self._present = False
        return (table_id, token) if self.presence.depart(table_id, token) else None

    def _switch_table(self) -> None:
        """Close the open table before opening another (the device may go absent there)."""
        gone = self._close_table()
        if gone is not None:
            self._spawn(self._command_quietly(gone[0], Disconnect(gone[1])))

    async def _command_quietly(self, table_id: str, command: Command) -> None:
        """A presence command: a refusal (no longer a member, closed) is nobody's error."""
        try:
            await self.tables.command(table_id, command)
        except TableError as exc:
            log.debug("presence at table %s: %s", table_id, exc.message)
        except Exception:
            log.exception("presence at table %s failed", table_id)

    async def open_table(self, table_id: str) -> None:
        """Open the table here (a challenge accepted: the usual ``table`` view follows)."""
        await self._open(table_id)

    def spawn_open(self, table_id: str) -> None:
        """Open the table here soon (the hub's news of an accepted challenge); a refusal is
        this connection's ``error``."""

        async def opened() -> None:
            try:
                await self._open(table_id)
            except TableError as exc:
                self.error(exc.code, exc.message, table_id)
            except Exception:
                log.exception("opening the table %s of a challenge failed", table_id)

        self._spawn(opened())

    def _spawn(self, coroutine: Awaitable[None]) -> None:
        async def run() -> None:
            await coroutine

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """The connection ended: stop following the table, and count the device out."""
        self._end()
        if self._helping is not None:
            self._helping.cancel()  # nobody to send it to (its hint stays counted)
        if self.ranked is not None:
            self.ranked.disconnected(self)
        gone = self._close_table()
        if gone is not None:
            # The device's last connection there: it is marked disconnected
            # (a stand-in may take its turn).
            await self._command_quietly(gone[0], Disconnect(gone[1]))
        for task in list(self._tasks):
            await task
