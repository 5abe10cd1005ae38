"""Rooms: one authoritative game each, its connections, its event log and its CPU.

Every action is applied to a copy of the room's :class:`~crokinole.rules.Game`
(in a worker thread: a shot is a simulation), turned into events with the
next numbers, committed to the store, and only then adopted and sent to the
room's connections, so a crash loses nothing anyone has seen.  The last shot
of a game and its ``finished`` event are committed together.  A room that is
abandoned or finished refuses every later action, and the store refuses any
write that is not at the room's current event (two tabs racing).  Sending
never waits for a client: each connection queues what it is sent (see
:mod:`crokinole.server.client`).  The CPU thinks in a worker thread on a copy
of the game, so no room ever waits for another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
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
from crokinole.rules import Game, Phase, Rules, Scoring, ShotReport
from crokinole.server.payloads import game_payload, report_payload, trajectory_payload
from crokinole.server.protocol import LEVEL_IDS, NewGame, ProtocolError, message
from crokinole.store import Store, StoreConflictError

log = logging.getLogger("crokinole.server")

#: A reconnecting client that missed more events than this gets a snapshot.
MAX_CATCH_UP = 50

#: Test-only fault injection: ``exit-after-final-commit`` ends the process
#: right after the commit holding a game's last shot (to test durability).
FAULT_ENV = "CROKINOLE_FAULT"


class Connection(Protocol):
    """What a room needs of a client connection."""

    def send_text(self, text: str) -> None:
        """Queue one message; never waits (a client that cannot keep up is dropped)."""
        ...


@dataclass(eq=False)
class Room:
    """A game and everything around it.

    Attributes:
        status: ``playing``, ``finished`` or ``abandoned``; only a playing
            room accepts actions.
    """

    id: str
    token: str
    opponent: str
    settings: dict[str, Any]
    game: Game
    event: int = 0
    status: str = "playing"
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
            given["north"] = f"CPU {Level(self.opponent).label}"
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

    def broadcast(self, payload: dict[str, Any], skip: Connection | None = None) -> None:
        """Queue ``payload`` for every connection of the room; never waits."""
        text = json.dumps(payload)
        for connection in list(self.connections):
            if connection is not skip:
                connection.send_text(text)

    def shot_message(
        self,
        number: int,
        before: Game,
        after: Game,
        report: ShotReport,
        *,
        cpu: bool,
    ) -> dict[str, Any]:
        """The ``shot`` message of event ``number``: ``report`` took ``before`` to ``after``."""
        ids = [d.id for d in before.discs] + [before.next_disc_id]
        owners = [d.owner.name.lower() for d in before.discs] + [report.seat.name.lower()]
        return message(
            "shot",
            self.id,
            number,
            seat=report.seat.name.lower(),
            shot=_shot_payload(report.shot),
            report=report_payload(report, before),
            trajectory=trajectory_payload(report.physics, ids, owners),
            game=self.snapshot(after),
            cpu=cpu,
        )


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


def _play(game: Game, seat: Seat, shot: Shot) -> tuple[Game, ShotReport]:
    """Shoot on a copy of ``game`` (run in a worker thread: it simulates)."""
    after = game.copy()
    try:
        report = after.shoot(seat, shot)
    except NotYourTurn as exc:
        raise ProtocolError("not_your_turn", str(exc)) from None
    except IllegalPlacement as exc:
        raise ProtocolError("illegal_placement", str(exc)) from None
    except InvalidShotError as exc:
        raise ProtocolError("illegal_shot", str(exc)) from None
    except IllegalActionError as exc:
        raise ProtocolError("illegal_action", str(exc)) from None
    return after, report


@dataclass(frozen=True, slots=True)
class _ShotItem:
    """A shot (or a timeout) to publish: it took ``before`` to ``after``."""

    before: Game
    after: Game
    report: ShotReport
    cpu: bool


@dataclass(frozen=True, slots=True)
class _RoundItem:
    """A new round to publish, and the game as it starts."""

    after: Game


def _shot_payload(shot: Shot | None) -> dict[str, float] | None:
    """A shot as messages and events carry it (None: no shot, a timeout)."""
    if shot is None:
        return None
    return {
        "position": float(shot.position),
        "direction": float(shot.direction),
        "power": float(shot.power),
    }


def _shot_event(report: ShotReport, *, cpu: bool) -> dict[str, Any]:
    return {
        "type": "shot",
        "seat": report.seat.name.lower(),
        "shot": _shot_payload(report.shot),
        "cpu": cpu,
    }


def warm_up() -> None:
    """Compile the simulator and the CPU search before the first game.

    The kernels compile on first use (seconds); done at startup in a worker
    thread, the first shot of the first game is as quick as any other.
    """
    game = Game(Rules())
    game.shoot(Seat.SOUTH, Shot(0.0, 4.0, 28.0))  # leaves a disc on the board
    rng = np.random.default_rng(0)
    for level in Level:
        make_player(level).choose_shot(game.copy(), rng)


class Rooms:
    """All rooms of the server, loaded from the store on demand."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._rooms: dict[str, Room] = {}
        self._rng = np.random.default_rng()
        # Loading a room and creating one (which abandons the device's others)
        # happen one at a time, so a room is never in memory twice.
        self._loading = asyncio.Lock()
        self._fault = os.environ.get(FAULT_ENV)

    @property
    def store(self) -> Store:
        """The store behind the rooms."""
        return self._store

    async def device_record(self, token: str) -> dict[str, Any]:
        """The device's results against each CPU level."""
        return await anyio.to_thread.run_sync(self._store.device_record, token, LEVEL_IDS)

    # ------------------------------------------------------------ lifecycle

    async def create(
        self, token: str, settings: NewGame, connection: Connection | None = None
    ) -> Room:
        """A new room for ``token``; its unfinished rooms are abandoned (a loss vs the CPU).

        The other tabs of an abandoned room (not ``connection``, which asked
        for the new game) are sent its ``finished``.
        """
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
            others = [r for r in self._rooms.values() if r.token == token and r.status == "playing"]
            async with contextlib.AsyncExitStack() as stack:
                # No action of an old room can be half-way while it is abandoned.
                for other in others:
                    await stack.enter_async_context(other.lock)
                with anyio.CancelScope(shield=True):
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
                for other in others:
                    self._close(other, "abandoned")
            self._rooms[room.id] = room
        if others:
            record = await self.device_record(token)
            for other in others:
                other.broadcast(self._abandoned_message(other, record), skip=connection)
        return room

    def _abandoned_message(self, room: Room, record: dict[str, Any]) -> dict[str, Any]:
        return message(
            "finished", room.id, room.event, game=room.snapshot(), record=record, abandoned=True
        )

    def _close(self, room: Room, status: str) -> None:
        """The room takes no more actions; its CPU stops at its next look."""
        room.status = status
        if status == "abandoned" and self._rooms.get(room.id) is room:
            del self._rooms[room.id]

    def release(self, room: Room, connection: Connection) -> None:
        """A connection left the room; an idle room leaves memory (the store keeps it)."""
        room.connections.discard(connection)
        thinking = room.cpu_task is not None and not room.cpu_task.done()
        if not room.connections and not thinking and self._rooms.get(room.id) is room:
            del self._rooms[room.id]

    async def get(self, room_id: str) -> Room | None:
        """The room, loaded from the store if it is not in memory (None if abandoned)."""
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
                status=data.status,
            )
            if room.game.is_over:
                # An older server committed the last shot and the end apart;
                # if it crashed between the two, the end is written now.
                last = await anyio.to_thread.run_sync(
                    lambda: self._store.events_after(room_id, data.event_number - 1, limit=1)
                )
                if not last or last[-1][1].get("type") != "finished":
                    await self._commit(
                        room, room.game, [{"type": "finished"}], current_status=data.status
                    )
            self._rooms[room.id] = room
            return room

    # ------------------------------------------------------------ catching up

    async def catch_up(self, room: Room, last_event: int | None) -> list[dict[str, Any]]:
        """What a reconnecting client needs: the missed events, or a snapshot."""
        if last_event is None or last_event > room.event:
            return [room.state_message()]
        missed = room.event - last_event
        if missed == 0:
            return []
        if missed > MAX_CATCH_UP:
            return [room.state_message()]
        game, upto = room.game, room.event
        events = await anyio.to_thread.run_sync(
            lambda: self._store.events_after(room.id, last_event, limit=MAX_CATCH_UP)
        )
        if [n for n, _ in events] != list(range(last_event + 1, upto + 1)):
            return [room.state_message()]
        # The device record goes only in a ``finished`` message: most catch-ups
        # have none, and skip the query.
        ends = any(event.get("type") == "finished" for _, event in events)
        record = await self.device_record(room.token) if ends else {}
        rebuilt = await anyio.to_thread.run_sync(
            lambda: self._rebuild(room, game, dict(events), record)
        )
        return rebuilt if rebuilt is not None else [room.state_message()]

    def _rebuild(
        self,
        room: Room,
        final: Game,
        events: dict[int, dict[str, Any]],
        record: dict[str, Any],
    ) -> list[dict[str, Any]] | None:
        """The messages of ``events`` (number → event), rebuilt by replaying the game record.

        Event ``k`` of a game is its ``k``-th action (a shot, a timeout or a
        new round); a ``finished`` event follows the last.  Replaying is
        deterministic, so the messages are those first sent (a ``finished``
        carries the device record as it is now).  None if the record and
        the events disagree (the caller sends a snapshot).
        """
        game = Game(final.rules, final.board, final.first_seat)
        actions = final.actions
        out: list[dict[str, Any]] = []
        for number in range(1, max(events) + 1):
            event = events.get(number)
            if number > len(actions):
                if event is None or event.get("type") != "finished":
                    return None
                out.append(message("finished", room.id, number, game=room.snapshot(game),
                                   record=record, abandoned=False))  # fmt: skip
                continue
            action = actions[number - 1]
            before = game.copy()
            try:
                if action["type"] == "shoot":
                    shot = Shot(action["position"], action["direction"], action["power"])
                    report = game.shoot(Seat[action["seat"].upper()], shot)
                elif action["type"] == "timeout":
                    report = game.timeout(Seat[action["seat"].upper()])
                else:
                    game.next_round()
                    report = None
            except (CrokinoleError, KeyError):
                return None
            if game.actions[-1] != action:
                return None  # the simulation no longer gives the recorded result
            if event is None:
                continue
            if report is None:
                out.append(message("round", room.id, number, game=room.snapshot(game)))
            else:
                out.append(
                    room.shot_message(
                        number,
                        before,
                        game,
                        report,
                        cpu=bool(event.get("cpu")),
                    )
                )
        return out

    # ------------------------------------------------------------ actions

    @staticmethod
    def _check_open(room: Room) -> None:
        if room.status == "abandoned":
            raise ProtocolError(
                "game_abandoned", "that game was abandoned: nothing more can happen in it"
            )

    async def _commit(
        self,
        room: Room,
        game: Game,
        events: list[dict[str, Any]],
        *,
        current_status: str = "playing",
    ) -> None:
        """Store ``events`` with ``game`` (the room's game after them), then adopt them.

        The room changes only once the store has the events: if writing fails,
        the room is exactly as it was.  The write cannot be cancelled halfway
        (the room would then lag behind the store).
        """
        status = result = None
        if any(e["type"] == "finished" for e in events):
            status, result = "finished", room.human_result(game)
        record_json = game.to_json()
        expected = room.event
        with anyio.CancelScope(shield=True):
            try:
                await anyio.to_thread.run_sync(
                    lambda: self._store.append_events(
                        room.id,
                        expected,
                        events,
                        record_json,
                        status=status,
                        result=result,
                        current_status=current_status,
                    )
                )
            except StoreConflictError as exc:
                log.warning("refused a stale write: %s", exc)
                self._close(room, "abandoned")
                raise ProtocolError(
                    "game_abandoned", "that game was abandoned: nothing more can happen in it"
                ) from None
        if self._fault == "exit-after-final-commit" and status == "finished":
            os._exit(70)  # test-only: a crash right after the game's last commit
        room.game = game
        room.event = expected + len(events)
        if status is not None:
            room.status = status

    async def _publish(self, room: Room, game: Game, items: list[_ShotItem | _RoundItem]) -> None:
        """Commit and send shots, rounds and the end (``game`` is the room's game after them).

        A ``finished`` event is added when ``game`` is over.
        """
        events = [
            _shot_event(item.report, cpu=item.cpu)
            if isinstance(item, _ShotItem)
            else {"type": "round"}
            for item in items
        ]
        if game.is_over:
            events.append({"type": "finished"})
        first = room.event + 1
        await self._commit(room, game, events)
        payloads = []
        for number, item in enumerate(items, start=first):
            if isinstance(item, _ShotItem):
                payloads.append(
                    room.shot_message(number, item.before, item.after, item.report, cpu=item.cpu)
                )
            else:
                payloads.append(message("round", room.id, number, game=room.snapshot(item.after)))
        if game.is_over:
            record = await self.device_record(room.token)
            payloads.append(message("finished", room.id, room.event, game=room.snapshot(game),
                                    record=record, abandoned=False))  # fmt: skip
        for payload in payloads:
            room.broadcast(payload)

    @staticmethod
    def _timeouts(game: Game, cpu_seat: Seat | None) -> list[_ShotItem | _RoundItem]:
        """Shooters with no room on the line lose the disc at once (R3, a timeout).

        Applies them to ``game`` and returns the shot items for them.
        """
        items: list[_ShotItem | _RoundItem] = []
        while game.phase is Phase.PLAYING:
            seat = game.current_seat
            if seat is None or game.can_place(seat):
                break
            before = game.copy()
            report = game.timeout(seat)
            items.append(_ShotItem(before, game.copy(), report, seat is cpu_seat))
        return items

    async def shoot(self, room: Room, seat: Seat, shot: Shot, *, cpu: bool = False) -> None:
        """Apply a shot, commit it, send it; then let the CPU answer if it is its turn."""
        async with room.lock:
            self._check_open(room)
            before = room.game
            after, report = await anyio.to_thread.run_sync(_play, before, seat, shot)
            items: list[_ShotItem | _RoundItem] = [_ShotItem(before, after.copy(), report, cpu)]
            items += self._timeouts(after, room.cpu_seat)
            await self._publish(room, after, items)
        if not cpu:
            self.schedule_cpu(room)

    async def next_round(self, room: Room) -> None:
        """Confirm the round result and start the next round."""
        async with room.lock:
            self._check_open(room)
            game = room.game.copy()
            try:
                game.next_round()
            except IllegalActionError as exc:
                raise ProtocolError("illegal_action", str(exc)) from None
            items: list[_ShotItem | _RoundItem] = [_RoundItem(game.copy())]
            items += self._timeouts(game, room.cpu_seat)
            await self._publish(room, game, items)
        self.schedule_cpu(room)

    async def resign(self, room: Room) -> None:
        """Abandon the game (a loss against the CPU); every tab of the room gets ``finished``."""
        async with room.lock:
            self._check_open(room)
            if room.status == "finished":
                raise ProtocolError("illegal_action", "the game is over already")
            result = "loss" if room.cpu_seat else None
            with anyio.CancelScope(shield=True):
                changed = await anyio.to_thread.run_sync(self._store.abandon, room.id, result)
            self._close(room, "abandoned")
            if not changed:
                raise ProtocolError(
                    "game_abandoned", "that game was abandoned: nothing more can happen in it"
                )
        room.broadcast(self._abandoned_message(room, await self.device_record(room.token)))

    # ------------------------------------------------------------ the CPU

    def schedule_cpu(self, room: Room) -> None:
        """Start the CPU's turns if it is to move and not already thinking."""
        if room.status != "playing" or room.cpu_seat is None:
            return
        if room.game.current_seat is not room.cpu_seat:
            return
        if room.cpu_task is not None and not room.cpu_task.done():
            return
        room.cpu_task = asyncio.get_running_loop().create_task(self._cpu_turns(room))

    async def _cpu_turns(self, room: Room) -> None:
        try:
            await self._cpu_loop(room)
        except asyncio.CancelledError:
            raise
        except ProtocolError as exc:
            log.info("the CPU of room %s stops: %s", room.id, exc.message)
        except Exception:
            log.exception("the CPU of room %s failed", room.id)
        finally:
            if not room.connections and self._rooms.get(room.id) is room:
                del self._rooms[room.id]  # nobody watches: the store keeps it

    async def _cpu_loop(self, room: Room) -> None:
        player = make_player(room.opponent)
        while (
            room.status == "playing"
            and room.cpu_seat is not None
            and room.game.current_seat is room.cpu_seat
        ):
            seen = room.event
            rng = np.random.default_rng(self._rng.integers(2**63))
            shot = await anyio.to_thread.run_sync(player.choose_shot, room.game.copy(), rng)
            if room.event != seen:
                continue  # the game changed while the CPU thought: think again
            await self.shoot(room, room.cpu_seat, shot, cpu=True)
