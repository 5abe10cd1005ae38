"""One websocket connection under protocol version 2: a device at its tables.

A session reads the client's messages, turns each into a command of the
table (:mod:`crokinole.table`) and sends it to the tables' owner
(:class:`~crokinole.server.owner.tables.Tables`); it never changes a table itself.
It subscribes to the table it has open on the hub, and renders the events
the owner publishes as this viewer's messages (:mod:`crokinole.server.ws.wire`).

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
import functools
import json
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from crokinole.analysis import Accuracy, AnalysisError, hints
from crokinole.analysis.heatmap import heat_map
from crokinole.board import Seat
from crokinole.server.accounts import Account, Accounts, token_hash
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.http.accounts import COOKIE
from crokinole.server.http.review import NO_ACCURACY, own_accuracy
from crokinole.server.limits import RateLimiter, ServerSettings, TokenBucket
from crokinole.server.owner.tables import UNAVAILABLE, Tables
from crokinole.server.ranked import rated
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws import wire
from crokinole.store import Store, StoreUnavailableError
from crokinole.table import (
    REACTIONS,
    ChangeSettings,
    Command,
    Connect,
    DeclineRematch,
    Disconnect,
    Event,
    Hand,
    HintTaken,
    Kind,
    Leave,
    MemberLeft,
    MoveMember,
    NextRound,
    Played,
    React,
    Rematch,
    Remove,
    Rename,
    Resign,
    SetCpu,
    Shoot,
    Stage,
    Start,
    Table,
    TableError,
    TableSettings,
    TakeHint,
    TakeSeat,
    event_from_dict,
)

log = logging.getLogger("crokinole.server")

#: Close codes sent when the server drops a client (RFC 6455 §7.4).
CLOSE_TOO_SLOW = 1013  # "try again later": reconnect and catch up
CLOSE_POLICY = 1008

#: How long a connection closed for too many messages has to read its last ``error``
#: (the server reads nothing more from it meanwhile).
CLOSE_FLUSH_S = 2.0

#: The opponents a device record counts: the CPU levels, then other people.
RECORD_OPPONENTS: tuple[str, ...] = (*wire.LEVEL_IDS, "people")

#: ``welcome.tables`` lists at most this many of the device's tables, latest first.
MAX_WELCOME_TABLES = 20
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
    return before, missed, wire.replay_turns(before, missed)


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


class Session:
    """One websocket connection and the table it has open."""

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
    ) -> None:
        self.websocket = websocket
        self.accounts = accounts
        self.ranked = ranked
        #: The account logged in by the handshake's session cookie (read at hello).
        self.account: Account | None = None
        #: The token hash of that login session: when it ends, this connection is closed.
        self.login: str | None = None
        #: Who this connection is at the open table: the device token, or at
        #: a ranked table the account's identity.
        self._me: str | None = None
        self.tables = tables
        self.settings = settings
        self.limiter = limiter
        self.presence = presence
        self.token: str | None = None
        #: The table this connection has open, and the table as last sent to it.
        self.table_id: str | None = None
        self._shown: Table | None = None
        self._present = False
        #: Deliveries held back while a catch-up is prepared (None: none is).
        self._waiting: list[tuple[Table, Sequence[Event]]] | None = None
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
        #: Set when the connection is to close once its queued messages are sent.
        self._closing: tuple[int, str] | None = None
        self._bucket = TokenBucket(
            settings.messages_per_second, settings.message_burst, time.monotonic()
        )
        self.done = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        #: The hint or heat map being computed for this connection (one at a time).
        self._helping: asyncio.Task[None] | None = None

    @property
    def account_id(self) -> int | None:
        """The logged-in account's id, or None (a guest)."""
        return self.account.id if self.account is not None else None

    def _me_at(self, table: Table) -> str | None:
        """Who this connection is at ``table``: its account at a ranked table, else its device."""
        if table.kind is Kind.RANKED:
            return rated.identity(self.account.id) if self.account is not None else None
        return self.token

    # ------------------------------------------------------------ sending

    def _queue(self, item: Outgoing, size: int) -> None:
        if self.done.is_set() or self._closing is not None:
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
        text = json.dumps(payload)
        self._queue(text, len(text))

    def send_later(self, make: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        """Queue a message made when its turn to be sent comes (it may read the store).

        It keeps its place: the messages queued after it are sent after it.
        """

        async def text() -> str:
            return json.dumps(await make())

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
        if self.done.is_set():
            return
        self.dropped = (code, reason)
        log.info("dropping a client (%s)", reason)
        self.done.set()

    def close_after(self, code: int, reason: str) -> None:
        """Disconnect this client :data:`CLOSE_FLUSH_S` from now.

        Nothing more is queued; the messages queued so far are sent
        meanwhile, so a client that reads gets them before the socket ends.
        """
        if self.done.is_set() or self._closing is not None:
            return
        self._closing = (code, reason)
        asyncio.get_running_loop().call_later(CLOSE_FLUSH_S, self.drop, code, reason)

    async def writer(self) -> None:
        """Send the queued messages in order, each within the send timeout."""
        try:
            while True:
                item = await self._outbox.get()
                if isinstance(item, str):
                    self._queued_bytes -= len(item)
                    text = item
                else:
                    self._queued_bytes -= _DEFERRED_BYTES
                    text = await item()
                with anyio.move_on_after(self.settings.send_timeout) as scope:
                    await self.websocket.send_text(text)
                if scope.cancelled_caught:
                    self.drop(CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
                    return
        except WebSocketDisconnect:
            # The client went: the reader counts what it had sent (a flood
            # that hangs up is a flood) and ends the session at its disconnect.
            self._gone = True
        except (OSError, RuntimeError):
            self.done.set()

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
            if self._closing is None:
                self.done.set()

    def _too_many(self) -> None:
        """Over the message limit: an ``error``, then the connection is closed."""
        burst, rate = self.settings.message_burst, self.settings.messages_per_second
        self.error(
            "too_many_messages",
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
        if self.token is None:
            self.drop(CLOSE_POLICY, "say hello first")

    def error(self, code: str, text: str, table_id: str | None = None) -> None:
        """Queue an ``error`` message (at the open table's version)."""
        shown = self._shown
        if shown is not None and table_id in (None, shown.id):
            self.send(wire.message("error", shown.id, shown.version, code=code, message=text))
        else:
            self.send(wire.message("error", table_id, 0, code=code, message=text))

    # ------------------------------------------------------------ the hub's side

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        """Render ``events`` (``table`` as it stands after them) as this viewer's messages.

        Called by the hub on the event loop; only queues.  Events this
        viewer was already shown (by a full view sent meanwhile) are
        skipped; a gap (events lost on the way) is answered with the full view.
        """
        if self._waiting is not None:
            self._waiting.append((table, events))  # after the catch-up being prepared
            return
        shown = self._shown
        if self.done.is_set() or shown is None or table.id != shown.id:
            return
        fresh = [e for e in events if e.version > shown.version]
        if not fresh:
            return
        self._shown = table
        now = self.tables.now()
        if fresh[0].version != shown.version + 1:
            messages = [wire.table_message(table, self._me, now)]
        else:
            try:
                messages = wire.event_messages(shown, table, fresh, self._me, now)
            except Exception:
                log.exception("rendering the events of table %s failed; sending it whole", table.id)
                messages = [wire.table_message(table, self._me, now)]
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

    def _send_all(self, messages: list[dict[str, Any]], table: Table) -> None:
        """Queue event messages; a ``finished`` is completed with this device's record
        (and at a ranked table with the ratings the game changed)."""
        for payload in messages:
            if payload["type"] == "finished":
                self.send_later(self._with_record(payload, table))
            else:
                self.send(payload)

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
        """Open the table on this connection (a member's).

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
            raise TableError("unknown_table", f"there is no table {table_id}")
        me = self._me_at(table)
        if me is None or table.member_of(me) is None:
            self.tables.hub.unsubscribe(table_id, self)
            if table.kind is Kind.RANKED:
                raise TableError("ranked_table", "this is a ranked game: only its players can join")
            raise TableError(
                "not_a_member", "you are not at this table: join it with its code or link"
            )
        self._switch_table()
        self._me = me
        if table.kind is Kind.RANKED and table.stage == "playing":
            await self._note_ranked_device(table.id)
        missed = table.version - last_event if last_event is not None else 0
        if last_event is not None and last_event >= 1 and 0 < missed <= MAX_CATCH_UP:
            await self._catch_up(table, last_event)
        else:
            self._show(table)
        await self._arrive()

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
        try:
            replayed = await anyio.to_thread.run_sync(_replay, self.tables.store, table, last_event)
        except Exception:
            log.exception("catching up on table %s failed; sending it whole", table.id)
            replayed = None
        finally:
            waiting, self._waiting = self._waiting, None
        now = self.tables.now()
        messages = None
        if replayed is not None:
            before, missed, turns = replayed
            try:
                messages = wire.event_messages(before, table, missed, self._me, now, turns=turns)
            except Exception:
                log.exception("rendering the catch-up of table %s failed", table.id)
        if messages is None:
            self.send(wire.table_message(table, self._me, now))
        else:
            self._send_all(messages, table)
        for later, events in waiting:
            self.deliver(later, events)

    def _show(self, table: Table) -> None:
        """Make ``table`` (just subscribed to) the open one and send its full view."""
        self.table_id = table.id
        self._shown = table
        self._me = self._me_at(table)
        self.send(wire.table_message(table, self._me, self.tables.now()))

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

    def _spawn(self, coroutine: Awaitable[None]) -> None:
        async def run() -> None:
            await coroutine

        task = asyncio.get_running_loop().create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """The connection ended: stop following the table, and count the device out."""
        self.done.set()
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

    # ------------------------------------------------------------ messages

    async def handle(self, text: str) -> None:
        """Handle one message from the client; a refusal is an ``error`` and changes nothing."""
        table_id: str | None = None
        try:
            msg = wire.parse_message(text)
            table_id = getattr(msg, "table", None)
            await self._dispatch(msg)
        except wire.WireError as exc:
            self.error(exc.code, exc.message, table_id)
        except TableError as exc:
            self.error(exc.code, exc.message, table_id)
        except (HubUnavailableError, StoreUnavailableError) as exc:
            log.warning("a message could not be handled: %s", exc)
            self.error("unavailable", UNAVAILABLE, table_id)
        except Exception:
            log.exception("error while handling a message")
            self.error("server_error", "the server failed; the table is unchanged", table_id)

    async def _dispatch(self, msg: wire.ClientMessage) -> None:
        if isinstance(msg, wire.Ping):
            shown = self._shown
            self.send(
                wire.message(
                    "pong",
                    shown.id if shown else None,
                    shown.version if shown else 0,
                    server_time=self.tables.now(),
                )
            )
            return
        if isinstance(msg, wire.Hello):
            await self._hello(msg)
            return
        token = self.token
        if token is None:
            raise wire.WireError("hello_first", "say hello with your device token first")
        if isinstance(msg, wire.Queue | wire.LeaveQueue):
            await self._ranked_queue(msg)
        elif isinstance(msg, wire.Create):
            await self._create(token, msg)
        elif isinstance(msg, wire.Join):
            await self._join(token, msg)
        elif isinstance(msg, wire.Open):
            await self._open(msg.table, msg.last_event)
        elif isinstance(msg, wire.Hint | wire.Heatmap):
            await self._help(token, msg)
        else:
            await self._table_command(token, msg)

    async def _hello(self, msg: wire.Hello) -> None:
        if self.token is not None and self.token != msg.token:
            raise wire.WireError(
                "bad_message", "hello: token: this connection already said hello as another device"
            )
        self.token = msg.token
        store = self.tables.store
        if self.accounts is not None and self.account is None:
            cookie = self.websocket.cookies.get(COOKIE)
            if cookie:
                self.account = await anyio.to_thread.run_sync(
                    self.accounts.account_for_token, cookie
                )
                self.login = None if self.account is None else token_hash(cookie)

        account = self.account

        def open_tables() -> list[dict[str, Any]]:
            found = []
            # The account's ranked tables (its seats, from any device) come first.
            ranked = (
                [] if account is None else store.open_tables_of_device(rated.identity(account.id))
            )
            for table_id in [*ranked, *store.open_tables_of_device(msg.token)][:MAX_WELCOME_TABLES]:
                data = store.table(table_id)
                if data is not None:
                    found.append({"table": data.id, "kind": data.kind, "stage": data.status})
            return found

        tables = await anyio.to_thread.run_sync(open_tables)
        self.send(
            {
                **wire.message("welcome", None, 0),
                "token": msg.token,
                "tables": tables,
                "record": await self._record(),
                "levels": wire.levels_payload(),
                "reactions": list(REACTIONS),
                "protocol": wire.PROTOCOL_VERSION,
                "server_time": self.tables.now(),
            }
        )
        if msg.table is not None:
            await self._open(msg.table, msg.last_event)

    async def _ranked_queue(self, msg: wire.Queue | wire.LeaveQueue) -> None:
        """``queue`` / ``leave_queue``: the ranked queue (logged-in connections only)."""
        if self.ranked is None:
            raise wire.WireError("bad_message", "this server has no ranked play")
        if isinstance(msg, wire.LeaveQueue):
            await self.ranked.leave(self)
            return
        if self.account is not None and self.accounts is not None:
            # A session logged out (or ended) since the handshake logs no one in.
            cookie = self.websocket.cookies.get(COOKIE)
            self.account = await anyio.to_thread.run_sync(self.accounts.account_for_token, cookie)
        await self.ranked.queue(self, msg.ladder, msg.partner)

    def _check_rate(self, token: str) -> None:
        if not self.limiter.allow(token, time.monotonic()):
            limit = self.settings.rooms_per_minute
            raise wire.WireError(
                "rate_limited",
                f"at most {limit} new tables or parties joined a minute: wait a moment",
            )

    async def _create(self, token: str, msg: wire.Create) -> None:
        self._check_rate(token)
        settings = TableSettings.from_dict(
            dict(msg.settings), kind=msg.kind, allow_short_clock=self.settings.short_clocks
        )
        seats = None
        if msg.seats is not None:
            seats = {wire.seat_of(name): holder for name, holder in msg.seats.items()}
        names = None
        if msg.names is not None:
            names = {wire.seat_of(seat): name for seat, name in msg.names.items()}
        earlier = []
        if msg.kind == "solo":
            earlier = await anyio.to_thread.run_sync(self.tables.store.open_tables_of_device, token)
        table = await self.tables.create(
            kind=msg.kind, device=token, name=msg.name, settings=settings, seats=seats,
            names=names, subscriber=self,
        )  # fmt: skip
        self._switch_table()  # only once the new table exists: a refusal leaves this one open
        self._show(table)
        await self._arrive()
        await self._abandon_solo_tables(token, [t for t in earlier if t != table.id])

    async def _abandon_solo_tables(self, token: str, table_ids: Sequence[str]) -> None:
        """A device plays one game on its own at a time: a new one abandons the others.

        Abandoning a game against the CPU is a loss (as resigning it is), so a
        game going badly cannot be left unfinished to keep the record clean.
        Their other tabs are sent the end (``finished`` with ``abandoned``).
        Parties are left alone.
        """
        for table_id in table_ids:
            other = await self.tables.get(table_id)
            if other is None or other.kind.value != "solo" or other.stage.value == "closed":
                continue
            try:
                await self.tables.command(table_id, Resign(token))
            except TableError as exc:  # closed meanwhile by another tab
                log.debug("abandoning table %s: %s", table_id, exc.message)

    async def _join(self, token: str, msg: wire.Join) -> None:
        """``join``: the party is opened here once it let the device in.

        A refused join (unknown code, a full party…) changes nothing: the
        table open here stays open, and the device stays at it.
        """
        self._check_rate(token)
        table, _events = await self.tables.join_by_code(
            wire.normal_code(msg.code),
            device=token,
            name=msg.name,
            spectator=msg.spectator,
            subscriber=self,
        )
        if table.id != self.table_id:
            self._switch_table()
        self._show(table)
        await self._arrive()

    async def _table_command(self, token: str, msg: wire.TableMessage) -> None:
        table_id = msg.table
        if self._shown is None or self._shown.id != table_id:
            await self._open(table_id)
        me = self._me if self._me is not None else token
        command = self._command(me, msg)
        await self.tables.command(table_id, command)
        if isinstance(command, Leave | Resign):
            # Gone from the table: this connection follows it no more.
            self._close_table()

    def _command(self, token: str, msg: wire.TableMessage) -> Command:
        """The table's command for a message about a table."""
        if isinstance(msg, wire.ShootMessage):
            return Shoot(token, wire.seat_of(msg.seat), wire.shot_of(msg))
        if isinstance(msg, wire.TakeSeat):
            return TakeSeat(token, None if msg.seat is None else wire.seat_of(msg.seat))
        if isinstance(msg, wire.Move):
            seat = None if msg.seat is None else wire.seat_of(msg.seat)
            return MoveMember(token, msg.member, seat)
        if isinstance(msg, wire.SetCpu):
            return SetCpu(token, wire.seat_of(msg.seat), msg.level)
        if isinstance(msg, wire.Remove):
            return Remove(token, msg.member)
        if isinstance(msg, wire.Settings):
            kind = self._shown.kind if self._shown is not None else "party"
            settings = TableSettings.from_dict(
                dict(msg.settings), kind=kind, allow_short_clock=self.settings.short_clocks
            )
            return ChangeSettings(token, settings)
        if isinstance(msg, wire.Rename):
            return Rename(token, msg.name)
        if isinstance(msg, wire.React):
            return React(token, msg.reaction)
        assert isinstance(msg, wire.TableAction)
        actions: dict[str, Callable[[str], Command]] = {
            "start": Start,
            "next_round": NextRound,
            "rematch": Rematch,
            "decline_rematch": DeclineRematch,
            "leave": Leave,
            "resign": Resign,
        }
        return actions[msg.type](token)

    # ------------------------------------------------------------ hints

    async def _help(self, token: str, msg: wire.Hint | wire.Heatmap) -> None:
        """``hint`` / ``heatmap``: counted at the table, then computed on the CPU pool.

        Checked here (one at a time per connection, else ``busy``; a heat
        map's placement); then, while this connection goes on reading, the
        accuracy is found, the table counts the hint (``TakeHint``: the
        ``hint_taken`` every viewer is sent) and the answer is computed from
        the table after that event and sent to this connection only.
        """
        running = self._helping
        if running is not None and not running.done():
            raise wire.WireError(
                "busy", "one hint or heat map at a time: the last one is still on its way"
            )
        table_id = msg.table
        if self._shown is None or self._shown.id != table_id:
            await self._open(table_id)
        shown = self._shown
        assert shown is not None
        seat = wire.seat_of(msg.seat)
        if isinstance(msg, wire.Heatmap):
            _check_placement(shown, seat, msg.position)
        me = self._me if self._me is not None else token
        task = asyncio.get_running_loop().create_task(self._help_now(shown, me, seat, msg))
        self._helping = task

    async def _help_now(
        self, shown: Table, me: str, seat: Seat, msg: wire.Hint | wire.Heatmap
    ) -> None:
        """Take the hint and send it; a refusal is an ``error`` (as :meth:`handle` words it)."""
        table_id = shown.id
        try:
            payload = await self._helped(shown, me, seat, msg)
        except asyncio.CancelledError:
            raise
        except (wire.WireError, TableError) as exc:
            self.error(exc.code, exc.message, table_id)
            return
        except (HubUnavailableError, StoreUnavailableError) as exc:
            log.warning("a hint could not be given: %s", exc)
            self.error("unavailable", UNAVAILABLE, table_id)
            return
        except Exception:
            log.exception("error while computing a hint")
            self.error("server_error", "the server failed to compute the hint", table_id)
            return
        self.send(payload)

    async def _helped(
        self, shown: Table, me: str, seat: Seat, msg: wire.Hint | wire.Heatmap
    ) -> dict[str, Any]:
        """The ``hints`` or ``heatmap`` message, once the table has counted the hint."""
        table_id = shown.id
        accuracy = await self._accuracy(shown, msg)
        kind = "heatmap" if isinstance(msg, wire.Heatmap) else "hint"
        events = await self.tables.command(table_id, TakeHint(me, seat, kind))
        taken = [e for e in events if isinstance(e, HintTaken)]
        # Nothing new when this kind of help was already counted this turn.
        version = taken[-1].version if taken else shown.version
        table = await self._table_at(table_id, version)
        game = table.game
        if table.stage is not Stage.PLAYING or game is None or game.current_seat is not seat:
            raise TableError("not_your_turn", "the turn moved on before the hint was ready")
        before = game.copy()
        # The same draws for every answer of a turn: asking again shows the same hints.
        seed = table.game_number * 1000 + len(game.actions)
        if isinstance(msg, wire.Hint):
            found = await self.tables.cpu.run(functools.partial(hints, before, accuracy, seed=seed))
            return wire.message(
                "hints", table_id, version, seat=msg.seat, accuracy=accuracy.to_dict(),
                hints=[h.to_dict() for h in found],
            )  # fmt: skip
        try:
            mapped = await self.tables.cpu.run(
                functools.partial(
                    heat_map, before, msg.position, accuracy, metric=msg.metric, seed=seed
                )
            )
        except AnalysisError as exc:
            raise TableError("illegal_placement", str(exc)) from None
        return wire.message("heatmap", table_id, version, seat=msg.seat, **mapped.to_dict())

    async def _accuracy(self, table: Table, msg: wire.Hint | wire.Heatmap) -> Accuracy:
        """How the hint's shots are valued: the table's hand, a CPU level's or the player's own."""
        name = "hand" if isinstance(msg, wire.Hint) else msg.accuracy
        if name == "hand":
            return Accuracy.human() if table.settings.hand is Hand.HUMAN else Accuracy.steady()
        if name != "mine":
            return Accuracy.of_level(name)
        try:
            mine = await own_accuracy(self.tables.store, self.tables, self.token, self.account_id)
        except AnalysisError as exc:
            raise wire.WireError("no_accuracy", str(exc)) from None
        if mine is None:
            raise wire.WireError("no_accuracy", NO_ACCURACY)
        return mine

    async def _table_at(self, table_id: str, version: int) -> Table:
        """The table at ``version`` or later: as shown here, held here, or read from the store."""
        shown = self._shown
        if shown is not None and shown.id == table_id and shown.version >= version:
            return shown
        table = await self.tables.get(table_id, at_least=version)
        if table is None:
            raise TableError("unknown_table", f"there is no table {table_id}")
        return table


def _check_placement(table: Table, seat: Seat, position: float) -> None:
    """A heat map's placement must be free on the seat's quarter of the line (R3).

    Checked on the seat's own turn where hints are allowed (else the table's
    refusal says why), before the hint is counted.
    """
    game = table.game
    if not table.settings.hints or table.stage is not Stage.PLAYING or game is None:
        return
    if game.current_seat is seat:
        problem = game.placement_problem(seat, position)
        if problem is not None:
            raise TableError("illegal_placement", f"no heat map there: {problem}")
