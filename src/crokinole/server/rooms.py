"""Rooms: one authoritative game each, its connections, its event log and its CPU.

Every action is applied to the room's :class:`~crokinole.rules.Game`, turned
into an event with the next number, committed to the store, and only then
sent to the room's connections, so a crash loses nothing anyone has seen.
The CPU thinks in a worker thread on a copy of the game, so no room ever
waits for another.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio.to_thread
import numpy as np

from crokinole.ai import Level, make_player
from crokinole.board import Seat, Shot
from crokinole.errors import (
    CrokinoleError,
    IllegalActionError,
    IllegalPlacement,
    InvalidShotError,
    NotYourTurn,
)
from crokinole.rules import Game, Phase, Rules, Scoring
from crokinole.server.protocol import (
    NewGame,
    ProtocolError,
    game_payload,
    level_name,
    message,
    report_payload,
    trajectory_payload,
)
from crokinole.store import Store

log = logging.getLogger("crokinole.server")

#: A reconnecting client that missed more events than this gets a snapshot.
MAX_CATCH_UP = 50


class Connection(Protocol):
    """What a room needs of a client connection."""

    async def send_json(self, data: Any) -> None:
        """Send one message."""
        ...


@dataclass(eq=False)
class Room:
    """A game and everything around it."""

    id: str
    token: str
    opponent: str
    settings: dict[str, Any]
    game: Game
    event: int = 0
    connections: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cpu_task: asyncio.Task[None] | None = None

    @property
    def cpu_seat(self) -> Seat | None:
        """The CPU's seat (north), or None in a two-player game."""
        return None if self.opponent == "local" else Seat.NORTH

    @property
    def human_seats(self) -> tuple[Seat, ...]:
        """Seats the device controls."""
        return (Seat.SOUTH,) if self.cpu_seat else (Seat.SOUTH, Seat.NORTH)

    @property
    def names(self) -> dict[str, str]:
        given: dict[str, str] = dict(self.settings.get("names") or {})
        if self.cpu_seat:
            given.setdefault("south", "You")
            given["north"] = f"CPU {level_name(Level(self.opponent))}"
        else:
            given.setdefault("south", "South")
            given.setdefault("north", "North")
        return given

    @property
    def cpu_levels(self) -> dict[str, str]:
        return {"north": self.opponent} if self.cpu_seat else {}

    def snapshot(self, game: Game | None = None) -> dict[str, Any]:
        """The ``game`` payload of the room's game (or of ``game``, its next state)."""
        return game_payload(game or self.game, self.names, self.cpu_levels)

    def state_message(self) -> dict[str, Any]:
        """A full ``state`` message at the current event number."""
        return message(
            "state",
            self.id,
            self.event,
            game=self.snapshot(),
            you=[s.name.lower() for s in self.human_seats],
            opponent=self.opponent,
        )

    def human_result(self, game: Game | None = None) -> str | None:
        """win/draw/loss of the device against the CPU once the game is over."""
        outcome = (game or self.game).outcome
        if outcome is None or self.cpu_seat is None:
            return None
        if outcome.winner is None:
            return "draw" if 0 in outcome.drawn else "loss"
        return "win" if outcome.winner == 0 else "loss"


def rules_for(settings: NewGame) -> Rules:
    """The rules a ``new_game`` message asks for."""
    scoring = Scoring(settings.scoring)
    rounds = settings.rounds if scoring is Scoring.FOUR_ROUNDS else None
    return Rules(
        discs_per_side=settings.discs,
        scoring=scoring,
        rounds=rounds,
        required_contact=settings.required_contact,
    )


class Rooms:
    """All rooms of the server, loaded from the store on demand."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._rooms: dict[str, Room] = {}
        self._rng = np.random.default_rng()
        # Loading a room and creating one (which abandons the device's others)
        # happen one at a time, so a room is never in memory twice.
        self._loading = asyncio.Lock()

    @property
    def store(self) -> Store:
        """The store behind the rooms."""
        return self._store

    async def create(self, token: str, settings: NewGame) -> Room:
        """A new room for ``token``; its unfinished rooms are abandoned."""
        try:
            rules = rules_for(settings)
        except CrokinoleError as exc:
            raise ProtocolError("bad_message", f"new_game: {exc}") from None
        game = Game(rules)
        room = Room(
            id=secrets.token_hex(16),
            token=token,
            opponent=settings.opponent,
            settings=settings.model_dump(exclude={"type"}),
            game=game,
        )
        async with self._loading:
            await anyio.to_thread.run_sync(
                lambda: self._store.create_room(
                    room.id,
                    token,
                    room.opponent,
                    settings=room.settings,
                    record_json=game.to_json(),
                    scoring=rules.scoring.value,
                )
            )
            for other in list(self._rooms.values()):
                if other.token == token and other.game.phase is not Phase.GAME_OVER:
                    self._forget(other)
            self._rooms[room.id] = room
        return room

    def release(self, room: Room, connection: Connection) -> None:
        """A connection left the room; an idle room leaves memory (the store keeps it)."""
        room.connections.discard(connection)
        thinking = room.cpu_task is not None and not room.cpu_task.done()
        if not room.connections and not thinking and self._rooms.get(room.id) is room:
            del self._rooms[room.id]

    def _forget(self, room: Room) -> None:
        if room.cpu_task is not None:
            room.cpu_task.cancel()
        self._rooms.pop(room.id, None)

    async def get(self, room_id: str) -> Room | None:
        """The room, loaded from the store if it is not in memory."""
        room = self._rooms.get(room_id)
        if room is not None:
            return room
        async with self._loading:
            room = self._rooms.get(room_id)  # loaded while this one waited
            if room is not None:
                return room
            data = await anyio.to_thread.run_sync(self._store.room, room_id)
            if data is None or data.status == "abandoned":
                return None
            room = Room(
                id=data.id,
                token=data.device_token,
                opponent=data.opponent,
                settings=data.settings,
                game=Game.from_json(data.record_json),
                event=data.event_number,
            )
            self._rooms[room.id] = room
            return room

    async def catch_up(self, room: Room, last_event: int | None) -> list[dict[str, Any]]:
        """What a reconnecting client needs: the missed events, or a snapshot."""
        if last_event is None or last_event > room.event:
            return [room.state_message()]
        missed = room.event - last_event
        if missed == 0:
            return []
        if missed > MAX_CATCH_UP:
            return [room.state_message()]
        events = await anyio.to_thread.run_sync(
            lambda: self._store.events_after(room.id, last_event, limit=MAX_CATCH_UP)
        )
        return events if len(events) == missed else [room.state_message()]

    async def _commit_and_send(self, room: Room, game: Game, payload: dict[str, Any]) -> None:
        """Store ``payload`` with ``game`` (the room's game after it), then adopt and send it.

        The room changes only once the store has the event: if writing fails,
        the room is exactly as it was.
        """
        status = result = None
        if game.is_over:
            status, result = "finished", room.human_result(game)
        await anyio.to_thread.run_sync(
            lambda: self._store.append_event(
                room.id, payload["event"], payload, game.to_json(), status=status, result=result
            )
        )
        room.game = game
        room.event = payload["event"]
        await self._broadcast(room, payload)

    async def _broadcast(self, room: Room, payload: dict[str, Any]) -> None:
        for connection in list(room.connections):
            try:
                await connection.send_json(payload)
            except Exception:  # a dead connection just leaves the room
                room.connections.discard(connection)

    async def shoot(self, room: Room, seat: Seat, shot: Shot, *, cpu: bool = False) -> None:
        """Apply a shot, commit it, send it; then let the CPU answer if it is its turn."""
        async with room.lock:
            game = room.game.copy()
            before = game.discs
            shot_id = game.next_disc_id
            try:
                report = game.shoot(seat, shot)
            except NotYourTurn as exc:
                raise ProtocolError("not_your_turn", str(exc)) from None
            except IllegalPlacement as exc:
                raise ProtocolError("illegal_placement", str(exc)) from None
            except InvalidShotError as exc:
                raise ProtocolError("illegal_shot", str(exc)) from None
            except IllegalActionError as exc:
                raise ProtocolError("illegal_action", str(exc)) from None
            ids = [d.id for d in before] + [shot_id]
            owners = [d.owner.name.lower() for d in before] + [seat.name.lower()]
            payload = message(
                "shot",
                room.id,
                room.event + 1,
                seat=seat.name.lower(),
                shot={"position": shot.position, "direction": shot.direction, "power": shot.power},
                report=report_payload(report, room.game),
                trajectory=trajectory_payload(report.physics, ids, owners),
                game=room.snapshot(game),
                cpu=cpu,
            )
            await self._commit_and_send(room, game, payload)
            if room.game.is_over:
                await self._finish(room)
        await self._no_room_to_place(room)
        if not cpu:
            self.schedule_cpu(room)

    async def _no_room_to_place(self, room: Room) -> None:
        """A shooter whose quarter is blocked by discs loses the disc at once (R3, a timeout)."""
        while room.game.phase is Phase.PLAYING:
            seat = room.game.current_seat
            if seat is None or room.game.can_place(seat):
                return
            async with room.lock:
                game = room.game.copy()
                report = report_payload(game.timeout(seat), room.game, unplayed=True)
                payload = message(
                    "shot",
                    room.id,
                    room.event + 1,
                    seat=seat.name.lower(),
                    shot=None,
                    report=report,
                    trajectory=trajectory_payload(None, [], []),
                    game=room.snapshot(game),
                    cpu=seat is room.cpu_seat,
                )
                await self._commit_and_send(room, game, payload)
                if room.game.is_over:
                    await self._finish(room)

    async def _finish(self, room: Room) -> None:
        record = await anyio.to_thread.run_sync(self._store.device_record, room.token)
        payload = message("finished", room.id, room.event + 1, game=room.snapshot(), record=record)
        await self._commit_and_send(room, room.game, payload)

    async def next_round(self, room: Room) -> None:
        """Confirm the round result and start the next round."""
        async with room.lock:
            game = room.game.copy()
            try:
                game.next_round()
            except IllegalActionError as exc:
                raise ProtocolError("illegal_action", str(exc)) from None
            payload = message("round", room.id, room.event + 1, game=room.snapshot(game))
            await self._commit_and_send(room, game, payload)
        await self._no_room_to_place(room)
        self.schedule_cpu(room)

    async def resign(self, room: Room) -> dict[str, Any]:
        """Abandon the game (a loss against the CPU); answers with the device record."""
        async with room.lock:
            if room.game.is_over:
                raise ProtocolError("illegal_action", "the game is over already")
            if room.cpu_task is not None:
                room.cpu_task.cancel()
            result = "loss" if room.cpu_seat else None
            await anyio.to_thread.run_sync(
                lambda: self._store.set_status(room.id, "abandoned", result)
            )
            self._rooms.pop(room.id, None)
            record = await anyio.to_thread.run_sync(self._store.device_record, room.token)
            return message("finished", room.id, room.event, game=room.snapshot(), record=record)

    def schedule_cpu(self, room: Room) -> None:
        """Start the CPU's turns if it is to move and not already thinking."""
        if room.cpu_seat is None or room.game.current_seat is not room.cpu_seat:
            return
        if room.cpu_task is not None and not room.cpu_task.done():
            return
        room.cpu_task = asyncio.get_running_loop().create_task(self._cpu_turns(room))

    async def _cpu_turns(self, room: Room) -> None:
        try:
            await self._cpu_loop(room)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the CPU of room %s failed", room.id)
        finally:
            if not room.connections and self._rooms.get(room.id) is room:
                del self._rooms[room.id]  # nobody watches: the store keeps it

    async def _cpu_loop(self, room: Room) -> None:
        player = make_player(room.opponent)
        while room.cpu_seat is not None and room.game.current_seat is room.cpu_seat:
            seen = len(room.game.actions)
            rng = np.random.default_rng(self._rng.integers(2**63))
            shot = await anyio.to_thread.run_sync(player.choose_shot, room.game.copy(), rng)
            if len(room.game.actions) != seen:
                continue  # the game changed while the CPU thought: think again
            await self.shoot(room, room.cpu_seat, shot, cpu=True)
