"""Challenges: a person (logged in) or a bot asks a bot for a game; accepted, both sit down.

``challenge {"opponent", "settings"}`` (a bot's username, a party's
``TableSettings`` fields, singles) is checked here (the opponent is a bot,
online, not the sender; the settings are a party's), answered to the sender
with ``challenge_sent {"id", "expires"}`` and sent to each of the opponent's sockets as
``challenge {"id", "from": {"username", "bot"}, "settings", "expires"}``
(``expires``: server time, :data:`CHALLENGE_TTL_S` after it was sent).  The
opponent answers ``challenge_answer {"id", "accept"}``: accepted, a party
table is made with both seated and its game started, and the sockets that
sent and accepted it are shown it (the usual ``table``); declined, expired
or cancelled by its sender (``challenge_cancel {"id"}``), the sender (and
the opponent) get ``challenge_declined {"id", "reason"}`` (``declined``,
``expired``, ``cancelled``).

Several processes: every challenge is broadcast on the hub (each process
keeps the pending ones, to answer them from any of them), and so is its end
(each process tells its own sockets).  The process that a challenge was sent
from lets it expire.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import anyio
import anyio.to_thread

from crokinole.errors import ErrorCode
from crokinole.rules import Layout
from crokinole.server import protocol
from crokinole.server.accounts import Account
from crokinole.server.bots import GAMES_AT_ONCE, BotLogin
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.limits import ServerSettings
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked import rated
from crokinole.server.ws import messages as inbound
from crokinole.store import Store
from crokinole.table import Join, Start, TableError, TableSettings, TakeSeat


class Session(Protocol):
    """What a challenge needs of a connection (:class:`~crokinole.server.ws.session.Session`)."""

    bot: BotLogin | None
    account: Account | None
    token: str | None
    settings: ServerSettings
    challenges_sent: set[str]

    def send(self, payload: dict[str, Any]) -> None: ...
    async def open_table(self, table_id: str) -> None: ...
    def spawn_open(self, table_id: str) -> None: ...


__all__ = ["CHALLENGE_TTL_S", "ENDED", "SENT", "Challenges"]

log = logging.getLogger("crokinole.server")

#: A challenge not answered in this many seconds expires.
CHALLENGE_TTL_S = 60.0
#: Challenges a sender may have pending at once.
PENDING_PER_SENDER = 4
#: The hub's topics: a challenge sent; a challenge ended (accepted, declined, expired...).
SENT = "challenges.sent"
ENDED = "challenges.ended"
#: How often the pending challenges are checked for expiry (seconds of the event loop).
SWEEP_S = 0.5


def _refused(code: ErrorCode, message: str) -> protocol.WireError:
    return protocol.WireError(code, message)


class Challenges:
    """The challenges of this process's sockets, told to and by the other processes.

    Args:
        tables: the tables' owner (the table an accepted challenge makes; its hub).
        live: this process's sessions now.
        online: which of some bot accounts have a socket open (in any process).
        clock: server time in seconds (the tables' clock by default: a test's own).
        ttl: seconds before a challenge expires.
    """

    def __init__(
        self,
        tables: Tables,
        live: Callable[[], Iterable[Session]],
        online: Callable[[list[int]], Any],
        *,
        clock: Callable[[], float] | None = None,
        ttl: float = CHALLENGE_TTL_S,
    ) -> None:
        self.tables = tables
        self._live = live
        self._online = online
        self.clock = clock or tables.now
        self.ttl = ttl
        #: The pending challenges by id (each process has them all).
        self.pending: dict[str, dict[str, Any]] = {}
        self._listening = False
        self._tasks: set[asyncio.Task[None]] = set()

    def listen(self) -> None:
        """Hear the other processes' challenges (once the hub has started)."""
        if self._listening:
            return
        self._listening = True
        self.tables.hub.listen(SENT, self._on_sent)
        self.tables.hub.listen(ENDED, self._on_ended)

    # ------------------------------------------------------------ messages

    async def send(self, session: Session, msg: inbound.Challenge) -> None:
        """``challenge``: checked, told to the opponent's sockets (``challenge_sent`` here).

        Raises:
            WireError: ``not_logged_in``, ``bad_opponent``, ``bad_settings``,
                ``too_many_games``, ``rate_limited`` (too many pending).
        """
        self.listen()
        sender = session.bot.account if session.bot is not None else session.account
        if sender is None or session.token is None:
            raise _refused(ErrorCode.NOT_LOGGED_IN, "log in to challenge a bot")
        name = msg.opponent.strip()
        store = self.tables.store
        found = await anyio.to_thread.run_sync(store.account_by_key, name.lower())
        if found is None:
            raise _refused(ErrorCode.BAD_OPPONENT, f"no player is called {name}")
        if not found.bot:
            raise _refused(ErrorCode.BAD_OPPONENT, f"{found.username} is not a bot: only bots "
                           "are challenged (play people in a party or ranked)")  # fmt: skip
        if found.id == sender.id:
            raise _refused(ErrorCode.BAD_OPPONENT, "a bot cannot challenge itself")
        settings = TableSettings.from_dict(
            dict(msg.settings), kind="party", allow_short_clock=session.settings.short_clocks
        )
        if settings.layout is not Layout.SINGLES:
            raise TableError(ErrorCode.BAD_SETTINGS, "a challenge is a singles game")
        online = await self._online([found.id])
        if found.id not in online:
            raise _refused(ErrorCode.BAD_OPPONENT, f"{found.username} is not online now")
        if session.bot is not None:
            await games_left(session.bot, self.tables.store)
        mine = [c for c in self.pending.values() if c["from_account"] == sender.id]
        if len(mine) >= PENDING_PER_SENDER:
            raise _refused(
                ErrorCode.RATE_LIMITED,
                f"at most {PENDING_PER_SENDER} challenges waiting at once: cancel one first",
            )
        challenge: dict[str, Any] = {
            "id": secrets.token_hex(16),
            "origin": self.tables.hub.origin,
            "from_account": sender.id,
            "from_username": sender.username,
            "from_bot": sender.bot,
            "from_device": session.token,
            "to_account": found.id,
            "to_username": found.username,
            "settings": settings.to_dict(),
            "expires": self.clock() + self.ttl,
        }
        session.challenges_sent.add(challenge["id"])
        self.pending[challenge["id"]] = challenge
        session.send(
            protocol.message(
                "challenge_sent", None, 0, id=challenge["id"], expires=challenge["expires"]
            )
        )
        await self._broadcast(SENT, challenge)

    async def answer(self, session: Session, msg: inbound.ChallengeAnswer) -> None:
        """``challenge_answer``: accepted, the party is made with both seated; else declined.

        Raises:
            WireError: ``unknown_challenge`` (none for this bot, or over),
                ``too_many_games``.
        """
        challenge = self.pending.get(msg.id)
        bot = session.bot
        if challenge is None or bot is None or challenge["to_account"] != bot.account.id:
            raise _refused(ErrorCode.UNKNOWN_CHALLENGE, f"there is no challenge {msg.id} for you")
        if challenge["expires"] <= self.clock():
            await self._end(challenge, "expired")
            raise _refused(ErrorCode.UNKNOWN_CHALLENGE, f"the challenge {msg.id} has expired")
        if not msg.accept:
            await self._end(challenge, "declined")
            return
        await games_left(session.bot, self.tables.store)
        self.pending.pop(msg.id, None)  # (no second accept while the table is made)
        try:
            table_id = await self._seat(challenge, session)
        except Exception:
            await self._end(challenge, "failed")
            raise
        await self._end(challenge, "accepted", table=table_id)
        await session.open_table(table_id)

    async def cancel(self, session: Session, msg: inbound.ChallengeCancel) -> None:
        """``challenge_cancel``: the sender takes its challenge back.

        Raises:
            WireError: ``unknown_challenge``.
        """
        challenge = self.pending.get(msg.id)
        sender = session.bot.account if session.bot is not None else session.account
        if challenge is None or sender is None or challenge["from_account"] != sender.id:
            raise _refused(ErrorCode.UNKNOWN_CHALLENGE, f"you have no challenge {msg.id} waiting")
        await self._end(challenge, "cancelled")

    # ------------------------------------------------------------ inside

    async def _seat(self, challenge: dict[str, Any], session: Session) -> str:
        """Make the challenge's party, both players seated, its game started: its id."""
        tables = self.tables
        sender, opponent = challenge["from_device"], session.token
        assert opponent is not None
        table = await tables.create(
            kind="party",
            device=sender,
            name=challenge["from_username"],
            settings=challenge["settings"],
        )
        await tables.command(table.id, Join(opponent, challenge["to_username"]))
        layout = Layout.SINGLES
        for device, seat in ((sender, layout.sides[0][0]), (opponent, layout.sides[1][0])):
            now = await tables.get(table.id)
            member = now.member_of(device) if now is not None else None
            if now is not None and member is not None and seat not in now.seats_of(member.mid):
                await tables.command(table.id, TakeSeat(device, seat))
        await tables.command(table.id, Start(sender))
        return table.id

    async def _end(self, challenge: dict[str, Any], reason: str, **more: Any) -> None:
        self.pending.pop(challenge["id"], None)
        await self._broadcast(ENDED, {"id": challenge["id"], "reason": reason,
                                      "challenge": challenge, **more})  # fmt: skip

    async def _broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        try:
            await self.tables.hub.broadcast(topic, payload)
        except HubUnavailableError as exc:  # told here only
            log.warning("could not tell the other processes of a challenge: %s", exc)
            (self._on_sent if topic == SENT else self._on_ended)(payload)

    def _on_sent(self, challenge: dict[str, Any]) -> None:
        """A challenge sent (here or elsewhere): kept, and told to the opponent's sockets."""
        self.pending[challenge["id"]] = challenge
        told = protocol.message(
            "challenge", None, 0, id=challenge["id"],
            **{"from": {"username": challenge["from_username"], "bot": challenge["from_bot"]}},
            settings=challenge["settings"], expires=challenge["expires"],
        )  # fmt: skip
        for session in self._live():
            bot = session.bot
            if bot is not None and bot.account.id == challenge["to_account"]:
                session.send(told)

    def _on_ended(self, payload: dict[str, Any]) -> None:
        """A challenge ended: its sender's sockets are told (an accepted one: shown the table),
        and the opponent's (declined, expired, cancelled)."""
        challenge_id, reason = payload["id"], payload["reason"]
        challenge = payload.get("challenge") or self.pending.get(challenge_id) or {}
        self.pending.pop(challenge_id, None)
        table = payload.get("table")
        declined = protocol.message("challenge_declined", None, 0, id=challenge_id, reason=reason)
        for session in list(self._live()):
            sent = challenge_id in session.challenges_sent
            bot = session.bot
            to_me = bot is not None and bot.account.id == challenge.get("to_account")
            if sent:
                session.challenges_sent.discard(challenge_id)
                if table is not None:
                    session.spawn_open(table)
                else:
                    session.send(declined)
            elif to_me and table is None and reason != "declined":
                session.send(declined)

    def expire(self) -> None:
        """End the challenges sent from this process that have expired."""
        now = self.clock()
        origin = self.tables.hub.origin
        for challenge in [
            c for c in self.pending.values() if c["expires"] <= now and c["origin"] == origin
        ]:
            self.pending.pop(challenge["id"], None)
            task = asyncio.get_running_loop().create_task(self._end(challenge, "expired"))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def expire_forever(self) -> None:
        """:meth:`expire` every :data:`SWEEP_S` seconds, until cancelled."""
        while True:
            await anyio.sleep(SWEEP_S)
            try:
                self.expire()
            except Exception:
                log.exception("expiring the challenges failed")


async def games_left(bot: BotLogin | None, store: Store) -> None:
    """Refuse a bot that plays :data:`GAMES_AT_ONCE` games already (``too_many_games``);
    anyone else passes."""
    if bot is None:
        return
    device = rated.identity(bot.account.id, bot=True)
    games = await anyio.to_thread.run_sync(store.games_of_device, device)
    if games >= GAMES_AT_ONCE:
        raise _refused(
            ErrorCode.TOO_MANY_GAMES,
            f"a bot plays at most {GAMES_AT_ONCE} games at once: finish one first",
        )
