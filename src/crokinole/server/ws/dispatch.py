"""What each client message does: the session's half that turns messages into table commands.

:class:`Dispatch` is mixed into :class:`~crokinole.server.ws.session.Session`
(the connection's life cycle: reading, writing, the table it follows, its
state).  It parses a message (:mod:`crokinole.server.ws.messages`), refuses
it before hello (``hello_first``), and answers it: hello and welcome,
creating and joining tables, the commands about the open table, the ranked
queue, and hints and heat maps (computed on the CPU pool while the
connection goes on reading).  A refusal is an ``error`` and changes nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.websockets import WebSocket

from crokinole.analysis import Accuracy, AnalysisError, hints
from crokinole.analysis.heatmap import heat_map
from crokinole.board import Seat
from crokinole.errors import ErrorCode
from crokinole.server import protocol
from crokinole.server.accounts import COOKIE, Account, Accounts, token_hash
from crokinole.server.bots import MESSAGE_BURST, MESSAGES_PER_SECOND, BotLogin
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.limits import RateLimiter, ServerSettings, TokenBucket
from crokinole.server.owner.accuracy import NO_ACCURACY, own_accuracy
from crokinole.server.owner.tables import UNAVAILABLE, Tables
from crokinole.server.ranked import rated
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws import messages as inbound
from crokinole.server.ws import views
from crokinole.server.ws.challenges import Challenges, games_left
from crokinole.server.ws.state import Lifecycle, SessionState
from crokinole.store import StoreUnavailableError
from crokinole.table import (
    REACTIONS,
    ChangeSettings,
    Command,
    DeclineRematch,
    Event,
    Hand,
    HintTaken,
    Leave,
    MoveMember,
    NextRound,
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
)

log = logging.getLogger("crokinole.server")

#: ``welcome.tables`` lists at most this many of the device's tables, latest first.
MAX_WELCOME_TABLES = 20

#: The table's command for each message that is nothing but its type and table.
_ACTIONS: dict[str, Callable[[str], Command]] = {
    "start": Start,
    "next_round": NextRound,
    "rematch": Rematch,
    "decline_rematch": DeclineRematch,
    "leave": Leave,
    "resign": Resign,
}


class Dispatch:
    """Handling one client message at a time (mixed into the session)."""

    # The session's parts this half uses (:class:`~crokinole.server.ws.session.Session`).
    websocket: WebSocket
    tables: Tables
    settings: ServerSettings
    limiter: RateLimiter
    accounts: Accounts | None
    ranked: RankedQueue | None
    account: Account | None
    login: str | None
    bot: BotLogin | None
    bot_login: Callable[[str], Awaitable[bool]] | None
    bot_bucket: TokenBucket | None
    bot_rate: RateLimiter | None
    challenges: Challenges | None
    token: str | None
    table_id: str | None
    _shown: Table | None
    _me: str | None
    _life: Lifecycle
    _helping: asyncio.Task[None] | None

    if TYPE_CHECKING:

        @property
        def state(self) -> SessionState: ...
        @property
        def account_id(self) -> int | None: ...
        def send(self, payload: dict[str, Any]) -> None: ...
        def error(self, code: str, text: str, table_id: str | None = None) -> None: ...
        async def _record(self) -> dict[str, Any]: ...
        async def _open(self, table_id: str, last_event: int | None = None) -> None: ...
        def _show(self, table: Table) -> None: ...
        async def _arrive(self) -> None: ...
        def _switch_table(self) -> None: ...
        def _close_table(self) -> tuple[str, str] | None: ...
        def deliver(self, table: Table, events: Sequence[Event]) -> None: ...

    async def handle(self, text: str) -> None:
        """Handle one message from the client; a refusal is an ``error`` and changes nothing."""
        table_id: str | None = None
        try:
            msg = inbound.parse_message(text)
            table_id = getattr(msg, "table", None)
            await self._dispatch(msg)
        except (protocol.WireError, TableError) as exc:
            self.error(exc.code, exc.message, table_id)
        except (HubUnavailableError, StoreUnavailableError) as exc:
            log.warning("a message could not be handled: %s", exc)
            self.error(ErrorCode.UNAVAILABLE, UNAVAILABLE, table_id)
        except Exception:
            log.exception("error while handling a message")
            self.error(
                ErrorCode.SERVER_ERROR, "the server failed; the table is unchanged", table_id
            )

    async def _bot_checks(self, msg: inbound.ClientMessage) -> None:
        """A bot's message: within its token's rate (``rate_limited``) and scopes (``scope``).

        The rate is this process's bucket of the token first (a flood stops here, at no
        cost to Redis), then, with several processes, the site's count of the token's
        messages in Redis (its sockets may be on two processes)."""
        bot = self.bot
        if bot is None:
            return
        bucket = self.bot_bucket
        shared = self.bot_rate
        if (bucket is not None and not bucket.take(time.monotonic())) or (
            shared is not None and await shared.take(f"token:{bot.token_id}") is None
        ):
            raise protocol.WireError(
                ErrorCode.RATE_LIMITED,
                f"at most {MESSAGES_PER_SECOND} messages a second per token ({MESSAGE_BURST} at "
                "once): this one was not handled; send it again in a moment",
            )
        scope = inbound.SCOPE_OF.get(msg.type)
        if scope is not None and scope not in bot.scopes:
            raise protocol.WireError(
                ErrorCode.SCOPE,
                f"this token may not {inbound.SCOPE_WORDS[scope]}: it needs the "
                f"{scope!r} scope (make a token with it)",
            )

    async def _dispatch(self, msg: inbound.ClientMessage) -> None:
        await self._bot_checks(msg)
        if isinstance(msg, inbound.Ping):
            shown = self._shown
            self.send(
                protocol.message(
                    "pong",
                    shown.id if shown else None,
                    shown.version if shown else 0,
                    server_time=self.tables.now(),
                )
            )
            return
        if isinstance(msg, inbound.Hello):
            await self._hello(msg)
            return
        token = self.token
        # (A session closed before its hello has no token either.)
        if self.state is SessionState.AWAITING_HELLO or token is None:
            raise protocol.WireError(
                ErrorCode.HELLO_FIRST, "say hello with your device token first"
            )
        if isinstance(msg, inbound.Queue | inbound.LeaveQueue):
            await self._ranked_queue(msg)
        elif isinstance(msg, inbound.Challenge | inbound.ChallengeAnswer | inbound.ChallengeCancel):
            await self._challenge(msg)
        elif isinstance(msg, inbound.Create):
            await self._create(token, msg)
        elif isinstance(msg, inbound.Join):
            await self._join(token, msg)
        elif isinstance(msg, inbound.Open):
            await self._open(msg.table, msg.last_event)
        elif isinstance(msg, inbound.Hint | inbound.Heatmap):
            await self._help(token, msg)
        else:
            await self._table_command(token, msg)

    async def _hello(self, msg: inbound.Hello) -> None:
        if msg.api_token is not None and self.bot is None:
            if self.bot_login is None:
                raise protocol.WireError(ErrorCode.BAD_MESSAGE, "this server takes no API tokens")
            if not await self.bot_login(msg.api_token):
                return  # refused: the connection is being closed (4401 or 4429)
        bot = self.bot
        if bot is not None:
            # A bot is its account at every table, whatever device it names.
            device = rated.identity(bot.account.id, bot=True)
            self.account = bot.account
        elif msg.token is None:
            raise protocol.WireError(ErrorCode.BAD_MESSAGE, "hello: token: Field required")
        else:
            device = msg.token
        if self.token is not None and self.token != device:
            raise protocol.WireError(
                ErrorCode.BAD_MESSAGE,
                "hello: token: this connection already said hello as another device",
            )
        self.token = device
        if self.state is SessionState.AWAITING_HELLO:
            self._life.move(SessionState.READY)
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
                []
                if account is None or bot is not None
                else store.open_tables_of_device(rated.identity(account.id, bot=account.bot))
            )
            listed = [*ranked, *store.open_tables_of_device(device)][:MAX_WELCOME_TABLES]
            for table_id in listed:
                data = store.table(table_id)
                if data is not None:
                    found.append({"table": data.id, "kind": data.kind, "stage": data.status})
            return found

        tables = await anyio.to_thread.run_sync(open_tables)
        self.send(
            {
                **protocol.message("welcome", None, 0),
                "token": device,
                "tables": tables,
                "record": await self._record(),
                "levels": views.levels_payload(),
                "reactions": list(REACTIONS),
                "protocol": inbound.PROTOCOL_VERSION,
                "server_time": self.tables.now(),
            }
        )
        if msg.table is not None:
            await self._open(msg.table, msg.last_event)

    async def _ranked_queue(self, msg: inbound.Queue | inbound.LeaveQueue) -> None:
        """``queue`` / ``leave_queue``: the ranked queue (logged-in connections only)."""
        if self.ranked is None:
            raise protocol.WireError(ErrorCode.BAD_MESSAGE, "this server has no ranked play")
        if isinstance(msg, inbound.LeaveQueue):
            await self.ranked.leave(self)
            return
        bots_ladder = msg.ladder == "bots"
        if self.bot is not None:
            if not bots_ladder:
                raise protocol.WireError(
                    ErrorCode.BAD_LADDER, 'a bot queues on the bots ladder: {"ladder": "bots"}'
                )
            await games_left(self.bot, self.tables.store)
            await self.ranked.queue(self, msg.ladder, msg.partner)
            return
        if bots_ladder:
            raise protocol.WireError(
                ErrorCode.BAD_LADDER, "the bots ladder is for bots (logged in by an API token)"
            )
        if self.account is not None and self.account.bot:
            raise protocol.WireError(
                ErrorCode.BAD_LADDER, "a bot account plays people's ladders never: it queues "
                "on the bots ladder with an API token",
            )  # fmt: skip
        if self.account is not None and self.accounts is not None:
            # A session logged out (or ended) since the handshake logs no one in.
            cookie = self.websocket.cookies.get(COOKIE)
            self.account = await anyio.to_thread.run_sync(self.accounts.account_for_token, cookie)
        await self.ranked.queue(self, msg.ladder, msg.partner)

    async def _challenge(
        self, msg: inbound.Challenge | inbound.ChallengeAnswer | inbound.ChallengeCancel
    ) -> None:
        """``challenge``, ``challenge_answer``, ``challenge_cancel`` (docs/bots.md)."""
        challenges = self.challenges
        if challenges is None:
            raise protocol.WireError(ErrorCode.BAD_MESSAGE, "this server has no challenges")
        if isinstance(msg, inbound.Challenge):
            await challenges.send(self, msg)  # type: ignore[arg-type]
        elif isinstance(msg, inbound.ChallengeAnswer):
            await challenges.answer(self, msg)  # type: ignore[arg-type]
        else:
            await challenges.cancel(self, msg)  # type: ignore[arg-type]

    async def _check_rate(self, token: str) -> None:
        if await self.limiter.take(token) is None:
            limit = self.settings.rooms_per_minute
            raise protocol.WireError(
                ErrorCode.RATE_LIMITED,
                f"at most {limit} new tables or parties joined a minute: wait a moment",
            )

    async def _create(self, token: str, msg: inbound.Create) -> None:
        await self._check_rate(token)
        await games_left(self.bot, self.tables.store)
        settings = TableSettings.from_dict(
            dict(msg.settings), kind=msg.kind, allow_short_clock=self.settings.short_clocks
        )
        seats = None
        if msg.seats is not None:
            seats = {Seat.parse(name): holder for name, holder in msg.seats.items()}
        names = None
        if msg.names is not None:
            names = {Seat.parse(seat): name for seat, name in msg.names.items()}
        earlier = []
        # A bot plays several games at once: its solo games are not abandoned.
        if msg.kind == "solo" and self.bot is None:
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

    async def _join(self, token: str, msg: inbound.Join) -> None:
        """``join``: the party is opened here once it let the device in.

        A refused join (unknown code, a full party…) changes nothing: the
        table open here stays open, and the device stays at it.
        """
        await self._check_rate(token)
        await games_left(self.bot, self.tables.store)
        table, _events = await self.tables.join_by_code(
            inbound.normal_code(msg.code),
            device=token,
            name=msg.name,
            spectator=msg.spectator,
            subscriber=self,
        )
        if table.id != self.table_id:
            self._switch_table()
        self._show(table)
        await self._arrive()

    async def _table_command(self, token: str, msg: inbound.TableMessage) -> None:
        table_id = msg.table
        if self._shown is None or self._shown.id != table_id:
            await self._open(table_id)
        me = self._me if self._me is not None else token
        command = self._command(me, msg)
        await self.tables.command(table_id, command)
        if isinstance(command, Leave | Resign):
            # Gone from the table: this connection follows it no more.
            self._close_table()

    def _command(self, token: str, msg: inbound.TableMessage) -> Command:
        """The table's command for a message about a table."""
        if isinstance(msg, inbound.ShootMessage):
            return Shoot(token, Seat.parse(msg.seat), inbound.shot_of(msg))
        if isinstance(msg, inbound.TakeSeat):
            return TakeSeat(token, None if msg.seat is None else Seat.parse(msg.seat))
        if isinstance(msg, inbound.Move):
            seat = None if msg.seat is None else Seat.parse(msg.seat)
            return MoveMember(token, msg.member, seat)
        if isinstance(msg, inbound.SetCpu):
            return SetCpu(token, Seat.parse(msg.seat), msg.level)
        if isinstance(msg, inbound.Remove):
            return Remove(token, msg.member)
        if isinstance(msg, inbound.Settings):
            kind = self._shown.kind if self._shown is not None else "party"
            settings = TableSettings.from_dict(
                dict(msg.settings), kind=kind, allow_short_clock=self.settings.short_clocks
            )
            return ChangeSettings(token, settings)
        if isinstance(msg, inbound.Rename):
            return Rename(token, msg.name)
        if isinstance(msg, inbound.React):
            return React(token, msg.reaction)
        assert isinstance(msg, inbound.TableAction)
        return _ACTIONS[msg.type](token)

    # ------------------------------------------------------------ hints

    async def _help(self, token: str, msg: inbound.Hint | inbound.Heatmap) -> None:
        """``hint`` / ``heatmap``: counted at the table, then computed on the CPU pool.

        Checked here (one at a time per connection, else ``busy``; a heat
        map's placement); then, while this connection goes on reading, the
        accuracy is found, the table counts the hint (``TakeHint``: the
        ``hint_taken`` every viewer is sent) and the answer is computed from
        the table after that event and sent to this connection only.
        """
        running = self._helping
        if running is not None and not running.done():
            raise protocol.WireError(
                ErrorCode.BUSY, "one hint or heat map at a time: the last one is still on its way"
            )
        table_id = msg.table
        if self._shown is None or self._shown.id != table_id:
            await self._open(table_id)
        shown = self._shown
        assert shown is not None
        seat = Seat.parse(msg.seat)
        if isinstance(msg, inbound.Heatmap):
            _check_placement(shown, seat, msg.position)
        me = self._me if self._me is not None else token
        task = asyncio.get_running_loop().create_task(self._help_now(shown, me, seat, msg))
        self._helping = task

    async def _help_now(
        self, shown: Table, me: str, seat: Seat, msg: inbound.Hint | inbound.Heatmap
    ) -> None:
        """Take the hint and send it; a refusal is an ``error`` (as :meth:`handle` words it)."""
        table_id = shown.id
        try:
            payload = await self._helped(shown, me, seat, msg)
        except asyncio.CancelledError:
            raise
        except (protocol.WireError, TableError) as exc:
            self.error(exc.code, exc.message, table_id)
            return
        except (HubUnavailableError, StoreUnavailableError) as exc:
            log.warning("a hint could not be given: %s", exc)
            self.error(ErrorCode.UNAVAILABLE, UNAVAILABLE, table_id)
            return
        except Exception:
            log.exception("error while computing a hint")
            self.error(ErrorCode.SERVER_ERROR, "the server failed to compute the hint", table_id)
            return
        self.send(payload)

    async def _helped(
        self, shown: Table, me: str, seat: Seat, msg: inbound.Hint | inbound.Heatmap
    ) -> dict[str, Any]:
        """The ``hints`` or ``heatmap`` message, once the table has counted the hint."""
        table_id = shown.id
        accuracy = await self._accuracy(shown, msg)
        kind = "heatmap" if isinstance(msg, inbound.Heatmap) else "hint"
        events = await self.tables.command(table_id, TakeHint(me, seat, kind))
        taken = [e for e in events if isinstance(e, HintTaken)]
        # Nothing new when this kind of help was already counted this turn.
        version = taken[-1].version if taken else shown.version
        table = await self._table_at(table_id, version)
        game = table.game
        if table.stage is not Stage.PLAYING or game is None or game.current_seat is not seat:
            raise TableError(ErrorCode.NOT_YOUR_TURN, "the turn moved on before the hint was ready")
        before = game.copy()
        # The same draws for every answer of a turn: asking again shows the same hints.
        seed = table.game_number * 1000 + len(game.actions)
        if isinstance(msg, inbound.Hint):
            found = await self.tables.cpu.run(functools.partial(hints, before, accuracy, seed=seed))
            return protocol.message(
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
            raise TableError(ErrorCode.ILLEGAL_PLACEMENT, str(exc)) from None
        return protocol.message("heatmap", table_id, version, seat=msg.seat, **mapped.to_dict())

    async def _accuracy(self, table: Table, msg: inbound.Hint | inbound.Heatmap) -> Accuracy:
        """How the hint's shots are valued: the table's hand, a CPU level's or the player's own."""
        name = "hand" if isinstance(msg, inbound.Hint) else msg.accuracy
        if name == "hand":
            return Accuracy.human() if table.settings.hand is Hand.HUMAN else Accuracy.steady()
        if name != "mine":
            return Accuracy.of_level(name)
        try:
            mine = await own_accuracy(self.tables.store, self.tables, self.token, self.account_id)
        except AnalysisError as exc:
            raise protocol.WireError(ErrorCode.NO_ACCURACY, str(exc)) from None
        if mine is None:
            raise protocol.WireError(ErrorCode.NO_ACCURACY, NO_ACCURACY)
        return mine

    async def _table_at(self, table_id: str, version: int) -> Table:
        """The table at ``version`` or later: as shown here, held here, or read from the store."""
        shown = self._shown
        if shown is not None and shown.id == table_id and shown.version >= version:
            return shown
        table = await self.tables.get(table_id, at_least=version)
        if table is None:
            raise TableError(ErrorCode.UNKNOWN_TABLE, f"there is no table {table_id}")
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
            raise TableError(ErrorCode.ILLEGAL_PLACEMENT, f"no heat map there: {problem}")
