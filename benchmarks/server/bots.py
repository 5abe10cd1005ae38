"""The bots: websocket clients that play online parties as two players' devices would.

A :class:`Party` is two :class:`Bot` s at one singles table: the host
creates it, the guest joins it by its code, both shoot when the view says it
is their turn (at a legal place, one pace apart), press Next and offer a
rematch; in a stand-in party the guest leaves so the server's CPU plays for
it.  A :class:`Tally` counts what the bots of one window saw: the latency of
each person shot, the events, the errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:  # the client library is in the 'bench' (and 'dev') extra; main() says so if missing
    from websockets.asyncio.client import ClientConnection, connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    HAVE_WEBSOCKETS = True
except ImportError:  # pragma: no cover
    HAVE_WEBSOCKETS = False


#: Where the websocket of protocol version 2 may be, in the order tried.
WS_PATHS = ("/ws/v2", "/ws")
#: Seconds one setup step (a reply to create, join, take_seat, start) may take.
STEP_TIMEOUT = 60.0
#: Seconds the warm-up game (until a person's and a CPU's shot are back) may take.
WARM_UP_TIMEOUT = 300.0
#: Bots place a disc at least this far (degrees) inside a free stretch of the line.
PLACEMENT_MARGIN = 0.25
#: Bots aim within ±this many degrees of the centre, at this power range (%).
DIRECTION_SPREAD = 8.0
POWER_RANGE = (30.0, 65.0)
#: Error samples kept for the report.
ERROR_SAMPLES = 5

PLAYING_MESSAGES = frozenset({"shot", "timeout", "round", "game_started", "finished"})


class BenchError(Exception):
    """A step of the run failed (a party's setup, the warm-up): the message says which and why."""


@dataclass(slots=True)
class Tally:
    """What the bots of one run count (mutable while the run lasts)."""

    measuring: bool = False
    shooting: bool = True
    latencies: list[float] = field(default_factory=list)
    own_latencies: list[float] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    loop_lags: list[float] = field(default_factory=list)
    shot_bytes: list[int] = field(default_factory=list)

    def note(self, event: str) -> None:
        """Count one ``event`` (``shot``, ``standin_shot``, ``timeout``, ``round``) seen in the
        window."""
        if self.measuring:
            self.events[event] += 1

    def error(self, kind: str, detail: str) -> None:
        """Count an error of ``kind`` (e.g. ``error not_your_turn``) and keep a sample."""
        self.errors[kind] += 1
        if len(self.error_samples) < ERROR_SAMPLES:
            self.error_samples.append(f"{kind}: {detail}")


@dataclass(slots=True)
class Pending:
    """A person shot sent and not yet seen back on every socket that should get it.

    ``tally`` is the tally of the measuring window the shot was sent in, which
    times it whenever it comes back (None: sent outside any window, not timed).
    """

    seat: str
    sent: float
    tally: Tally | None
    own_seen: bool = False
    other_seen: bool = False

    @property
    def counted(self) -> bool:
        """Whether the shot was sent in a measuring window (its latency counts)."""
        return self.tally is not None


class Bot:
    """One player's device: a websocket, a token, a seat; plays when the view says so."""

    def __init__(self, party: Party, name: str, seat: str, *, compression: bool = True) -> None:
        self.party = party
        self.name = name
        self.seat = seat
        self.compression = compression
        self.token = secrets.token_urlsafe(24)
        self.ws: ClientConnection | None = None
        self.leaving = False
        self.game: dict[str, Any] | None = None
        self.placement: dict[str, list[list[float]]] = {}
        self.aiming = False
        self.shot_sent = False
        self.pressed_round: tuple[int, int] | None = None
        self.reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[Any]]] = []

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        # The loop keeps only weak references to tasks: hold each until it ends.
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel_tasks(self) -> None:
        """Cancel the bot's pending sends (a shot waiting for its turn to come)."""
        for task in list(self._tasks):
            task.cancel()

    @property
    def connected(self) -> bool:
        """Whether this bot's socket is open and meant to stay open."""
        return self.ws is not None and not self.leaving

    async def open(self, url: str) -> None:
        """Connect and say hello; return once welcomed."""
        self.ws = await connect(
            url,
            max_size=None,
            open_timeout=STEP_TIMEOUT,
            compression="deflate" if self.compression else None,
        )
        self.reader = asyncio.create_task(self._read())
        await self.ask({"type": "hello", "token": self.token}, "welcome")

    async def ask(self, message: dict[str, Any], answer: str, **match: Any) -> dict[str, Any]:
        """Send ``message``; return the first ``answer`` message with ``match``ing fields.

        Raises:
            BenchError: an ``error`` came first, or nothing within the step timeout.
        """

        def wanted(reply: dict[str, Any]) -> bool:
            if reply.get("type") == "error":
                return True
            return reply.get("type") == answer and all(reply.get(k) == v for k, v in match.items())

        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((wanted, future))
        await self.send(message)
        try:
            reply = await asyncio.wait_for(future, STEP_TIMEOUT)
        except TimeoutError:
            raise BenchError(
                f"{self.name}: no {answer} within {STEP_TIMEOUT:.0f} s of {message['type']}"
            ) from None
        if reply.get("type") == "error":
            raise BenchError(
                f"{self.name}: {message['type']} refused: {reply.get('code')}: "
                f"{reply.get('message')}"
            )
        return reply

    async def wait_for(self, answer: str) -> dict[str, Any]:
        """The next ``answer`` message (raises BenchError after the step timeout)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((lambda reply: reply.get("type") == answer, future))
        try:
            return await asyncio.wait_for(future, STEP_TIMEOUT)
        except TimeoutError:
            raise BenchError(f"{self.name}: no {answer} within {STEP_TIMEOUT:.0f} s") from None

    async def take_a_seat(self, view: dict[str, Any]) -> None:
        """Keep the seat the server gave this bot in ``view``, or take the first free one."""
        held = view["you"]["seats"]
        if held:
            self.seat = held[0]
            return
        free = [s["seat"] for s in view["seats"] if s["occupant"] is None]
        if not free:
            raise BenchError(f"{self.name}: no free seat at the table")
        self.seat = free[0]
        await self.ask({"type": "take_seat", "table": view["table"], "seat": self.seat}, "seat")

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message (a closed socket is counted when the reader ends)."""
        if self.ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(message))

    async def leave(self) -> None:
        """Disconnect on purpose (the server's stand-in CPU is to take the seat)."""
        self.leaving = True
        if self.ws is not None:
            await self.ws.close()

    async def _read(self) -> None:
        assert self.ws is not None
        tally = self.party.tally
        try:
            async for raw in self.ws:
                arrived = time.perf_counter()
                message = json.loads(raw)
                if message.get("type") == "shot" and tally.measuring:
                    tally.shot_bytes.append(len(raw))
                self._handle(message, arrived)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in the bot is reported, not swallowed
            tally.error("bot failure", f"{self.name}: {exc!r}")
        finally:
            if not self.leaving and not self.party.closing:
                code = self.ws.close_code
                tally.error("socket dropped", f"{self.name}: closed with code {code}")
            for _, future in self._waiters:
                if not future.done():
                    future.set_exception(BenchError(f"{self.name}: the socket closed"))

    def _handle(self, message: dict[str, Any], arrived: float) -> None:
        kind = message.get("type")
        self._answer_waiters(message)
        if kind == "pong":
            return
        if kind == "error":
            self._on_error(message)
            return
        self._take_view(message)
        party = self.party
        if kind in PLAYING_MESSAGES:
            party.last_progress = arrived
        if kind == "shot":
            party.on_shot(self, message, arrived)
        elif kind in ("timeout", "round") and self.is_first_connected():
            party.tally.note(kind)
        elif kind == "finished" and party.started and not message.get("abandoned"):
            self._ask_rematch()
        if party.started:
            self.act()

    def _answer_waiters(self, message: dict[str, Any]) -> None:
        # Each waiter of ask() and wait_for() gets the first message it wants.
        for waiter in list(self._waiters):
            wanted, future = waiter
            if not future.done() and wanted(message):
                future.set_result(message)
                self._waiters.remove(waiter)

    def _on_error(self, message: dict[str, Any]) -> None:
        party = self.party
        if party.started:
            party.tally.error(
                f"error {message.get('code')}", f"{self.name}: {message.get('message')}"
            )
        if self.shot_sent:  # the shot was refused: nothing is coming back for it
            self.shot_sent = False
            party.pending = None
            self._spawn(self._aim_again())

    def _take_view(self, message: dict[str, Any]) -> None:
        # What the bot plays from: the game, its number and the free stretches of the line.
        view = message.get("view")
        if isinstance(view, dict):
            self.game = view.get("game")
            self.party.game_number = int(view.get("game_number") or self.party.game_number)
            self.placement = view.get("placement") or {}
        if "game" in message:
            self.game = message["game"]
        lobby = message.get("lobby")
        if isinstance(lobby, dict) and "placement" in lobby:
            self.placement = lobby["placement"] or {}

    def _ask_rematch(self) -> None:
        party = self.party
        if party.standin and self is party.host:
            # The guest left: a rematch is for present players only, so the
            # host seats a CPU of the stand-in level there first.
            seat = {"type": "set_cpu", "table": party.table, "seat": party.guest.seat}
            self._spawn(self.send({**seat, "level": "normal"}))
        self._spawn(self.send({"type": "rematch", "table": party.table}))

    def is_first_connected(self) -> bool:
        """Whether this bot counts the party's events (so each is counted once)."""
        return next((b for b in self.party.bots if b.connected), None) is self

    def act(self) -> None:
        """Do what the game asks of this bot now: press Next, or aim a shot."""
        game = self.game
        if game is None or not self.party.tally.shooting:
            return
        phase = game.get("phase")
        if phase == "round_over":
            key = (int(self.party.game_number), int(game.get("round", 0)))
            if self.pressed_round != key:
                self.pressed_round = key
                self._spawn(self.send({"type": "next_round", "table": self.party.table}))
        elif phase == "playing" and game.get("current_seat") == self.seat and not self.aiming:
            stretches = self.placement.get(self.seat)
            if stretches:
                self.aiming = True
                self._spawn(self._shoot(stretches))

    async def _aim_again(self) -> None:
        # A refused shot changed nothing, so no message will come to prompt the
        # next try: try again one pace later (the refusal is already an error).
        await asyncio.sleep(self.party.pace)
        self.aiming = False
        if self.party.started:
            self.act()

    async def _shoot(self, stretches: list[list[float]]) -> None:
        party = self.party
        delay = party.last_shot + party.pace - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if not party.tally.shooting or self.ws is None:
            self.aiming = False
            return
        # The stretches as the latest message has them (they do not change
        # while it is this seat's turn, unless the game moved on).
        position, direction, power = party.choose_shot(self.placement.get(self.seat) or stretches)
        sent = time.perf_counter()
        party.last_shot = sent
        party.pending = Pending(self.seat, sent, party.tally if party.tally.measuring else None)
        self.shot_sent = True
        await self.send(
            {
                "type": "shoot",
                "table": party.table,
                "seat": self.seat,
                "position": position,
                "direction": direction,
                "power": power,
            }
        )


class Party:
    """Two bots at one singles table; in a stand-in party the second one leaves."""

    def __init__(
        self,
        index: int,
        standin: bool,
        tally: Tally,
        pace: float,
        seed: int,
        *,
        compression: bool = True,
    ) -> None:
        self.index = index
        self.standin = standin
        self.tally = tally
        self.pace = pace
        self.rng = np.random.default_rng([seed, index])
        self.host = Bot(self, f"party {index} host", "south", compression=compression)
        self.guest = Bot(self, f"party {index} guest", "north", compression=compression)
        self.bots = (self.host, self.guest)
        self.table: str | None = None
        self.game_number = 0
        self.started = False
        self.closing = False
        self.pending: Pending | None = None
        # The first shot of each party comes at a random point of one pace, so
        # the parties do not all shoot in step.
        self.last_shot = time.perf_counter() + float(self.rng.uniform(0.0, pace)) - pace
        self.last_progress = time.perf_counter()

    def choose_shot(self, stretches: list[list[float]]) -> tuple[float, float, float]:
        """A legal shot: a place inside a free stretch (picked by its length), an aim, a power."""
        widths = np.array([max(hi - lo, 0.0) for lo, hi in stretches])
        pick = int(self.rng.choice(len(stretches), p=widths / widths.sum())) if widths.sum() else 0
        lo, hi = stretches[pick]
        if hi - lo > 2 * PLACEMENT_MARGIN:
            position = float(self.rng.uniform(lo + PLACEMENT_MARGIN, hi - PLACEMENT_MARGIN))
        else:
            position = (lo + hi) / 2.0
        direction = float(self.rng.uniform(-DIRECTION_SPREAD, DIRECTION_SPREAD))
        power = float(self.rng.uniform(*POWER_RANGE))
        return round(position, 4), round(direction, 4), round(power, 3)

    def on_shot(self, bot: Bot, message: dict[str, Any], arrived: float) -> None:
        """A ``shot`` message reached ``bot``: time it if it is the pending person shot."""
        if bot.is_first_connected():
            self.tally.note("shot")
        by = message.get("by")
        if by != "person":
            if bot.is_first_connected():
                self.tally.note("standin_shot")
                self.last_shot = max(self.last_shot, arrived)
            return
        if message.get("seat") == bot.seat:
            bot.aiming = bot.shot_sent = False  # its shot is played: it may aim the next one
        pending = self.pending
        if pending is None or message.get("seat") != pending.seat:
            return
        if bot.seat == pending.seat:
            pending.own_seen = True
            if not self.guest.connected and pending.tally is not None:
                pending.tally.own_latencies.append(arrived - pending.sent)
        else:
            pending.other_seen = True
            if pending.tally is not None:
                pending.tally.latencies.append(arrived - pending.sent)
        others = [b for b in self.bots if b.connected and b.seat != pending.seat]
        if pending.own_seen and (pending.other_seen or not others):
            self.pending = None

    async def open(self, url: str, guest_url: str | None = None) -> None:
        """Create the party, join it by code, take the seats, start; the guest may leave.

        The host connects to ``url``, the guest to ``guest_url`` (default: the same).
        """
        await asyncio.gather(self.host.open(url), self.guest.open(guest_url or url))
        created = await self.host.ask(
            {
                "type": "create",
                "kind": "party",
                "settings": {"layout": "singles"},
                "name": f"Host {self.index}",
            },
            "table",
        )
        view = created["view"]
        self.table = view["table"]
        await self.host.take_a_seat(view)
        joined = await self.guest.ask(
            {"type": "join", "code": view["code"], "name": f"Guest {self.index}"}, "table"
        )
        await self.guest.take_a_seat(joined["view"])
        waits = [asyncio.create_task(bot.wait_for("game_started")) for bot in self.bots]
        await self.host.send({"type": "start", "table": self.table})
        await asyncio.gather(*waits)
        self.started = True
        if self.standin:
            await self.guest.leave()
        for bot in self.bots:
            if bot.connected:
                bot.act()

    async def close(self) -> None:
        """Close every socket (the run is over: closing is not an error)."""
        self.closing = True
        for bot in self.bots:
            bot.cancel_tasks()
            if bot.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(bot.ws.close(), 5.0)
            if bot.reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(bot.reader, 5.0)


async def protocol_2_websocket(base: str) -> str:
    """The URL of the server's websocket that speaks protocol 2 (its welcome says so)."""
    for path in WS_PATHS:
        url = f"{base}{path}"
        with contextlib.suppress(OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
            async with connect(url, open_timeout=STEP_TIMEOUT) as ws:
                hello = {"type": "hello", "token": secrets.token_urlsafe(24)}
                await ws.send(json.dumps(hello))
                welcome = json.loads(await asyncio.wait_for(ws.recv(), STEP_TIMEOUT))
                if welcome.get("protocol") == 2:
                    return url
    raise BenchError(f"no websocket of {base} ({', '.join(WS_PATHS)}) speaks protocol 2")


async def warm_up(url: str) -> None:
    """A game against the CPU until a person's and a CPU's shot are back (kernels compiled)."""
    tally = Tally()
    party = Party(0, standin=False, tally=tally, pace=0.0, seed=0)
    bot = party.host
    bot.name = "warm-up game"
    await bot.open(url)
    try:
        created = await bot.ask(
            {
                "type": "create",
                "kind": "solo",
                "settings": {"layout": "singles"},
                "name": "Warm-up",
                "seats": {"south": "me", "north": "normal"},
            },
            "table",
        )
        party.table = created["view"]["table"]
        bot.seat = created["view"]["you"]["seats"][0]
        bot.game = created["view"].get("game")
        bot.placement = created["view"].get("placement") or {}
        seen: set[str] = set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WARM_UP_TIMEOUT
        party.started = True
        bot.act()
        while seen != {"person", "cpu"}:
            left = deadline - loop.time()
            if left <= 0:
                raise BenchError(f"the warm-up game took over {WARM_UP_TIMEOUT:.0f} s")
            shot = await asyncio.wait_for(bot.wait_for("shot"), left)
            seen.add(str(shot.get("by")))
        if tally.errors:
            raise BenchError(f"the warm-up game failed: {'; '.join(tally.error_samples)}")
        party.started = False
        await bot.send({"type": "resign", "table": party.table})
    finally:
        await party.close()
