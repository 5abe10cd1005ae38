"""The texts the session sends (``views.event_texts``) are the messages of ``views.event_messages``.

``event_texts`` encodes the part of a message every viewer gets alike once per
event and splices each viewer's ``you`` and server time into it; here every
kind of event message, for both players, a spectator and a viewer who is not
a member, is checked against the plain message encoded whole
(``protocol.encode``), character for character, and parsed back.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
from collections.abc import Sequence
from typing import Any

from crokinole.board import Seat, Shot
from crokinole.server import protocol
from crokinole.server.ws import views
from crokinole.table import (
    ChangeSettings,
    Closed,
    Command,
    Connect,
    DeclineRematch,
    Disconnect,
    Event,
    GameAborted,
    HostChanged,
    Join,
    Leave,
    MemberLeft,
    NextRound,
    Played,
    React,
    Rematch,
    RematchLapsed,
    RematchVoted,
    Remove,
    Rename,
    Shoot,
    Start,
    Table,
    TableSettings,
    TakeHint,
    Tick,
)
from tests.support.table import device, legal_shot

T0 = 1000.0
SPECTATOR = "spectator-device-1"
#: Both players, a spectator, and a viewer who is no member (a ``you`` of nobody).
VIEWERS: tuple[str | None, ...] = (device(1), device(2), SPECTATOR, None)

#: Every message type an event can make (``table`` is the whole view, no event's).
EVENT_MESSAGE_TYPES = {
    "member", "seat", "settings", "presence", "game_started", "shot", "timeout", "stand_in",
    "next_pressed", "round", "finished", "aborted", "rematch_vote", "rematch_offer",
    "rematch_declined", "rematch_lapsed", "reaction", "hint_taken", "closed",
}  # fmt: skip


def _same_texts(
    before: Table,
    after: Table,
    events: Sequence[Event],
    *,
    turns: dict[int, Played] | None = None,
) -> set[str]:
    """Check every viewer's texts against their plain messages; the message types seen."""
    kinds: set[str] = set()
    for number, viewer in enumerate(VIEWERS):
        now = T0 + 0.125 * number  # each viewer's own server time
        # The texts first: the first viewer's make the shared parts, the others' reuse them.
        texts = views.event_texts(before, after, events, viewer, now, turns=turns)
        plain = views.event_messages(before, after, events, viewer, now, turns=turns)
        assert len(texts) == len(plain)
        for text, message in zip(texts, plain, strict=True):
            if isinstance(text, dict):
                # A finished is completed by the session with the viewer's record.
                assert message["type"] == "finished" and text == message
            else:
                assert text == protocol.encode(message)
                assert json.loads(text) == json.loads(json.dumps(message))
                assert json.loads(text)["lobby"]["you"] == views.you_payload(after, viewer)
                assert json.loads(text)["server_time"] == now
            kinds.add(message["type"])
    return kinds


class Party:
    """A party played by commands, each step's messages checked."""

    def __init__(self, **options: Any) -> None:
        settings = TableSettings.for_kind(
            "party", **{"rounds": 2, "hand": "steady", "turn_time": 30, **options}
        )
        # A table id of its own: the shared parts are kept by table id and version.
        self.table, _ = Table.create(
            id=secrets.token_hex(16), kind="party", code="ABC234", host_device=device(1),
            host_name="Ann", settings=settings, seed=11, now=T0,
        )  # fmt: skip
        self.now = T0
        self.kinds: set[str] = set()
        self.log: list[Event] = []

    def act(self, command: Command, later: float = 1.0) -> list[Event]:
        self.now += later
        before = self.table
        self.table, events = before.apply(command, self.now)
        assert events, command
        self.log += events
        self.kinds |= _same_texts(before, self.table, events)
        return events

    def shoot(self) -> None:
        game = self.table.game
        assert game is not None and game.current_seat is not None
        seat = game.current_seat
        if self.table.cpu_turn() is not None:  # the stand-in's shot, played by the server
            self.act(Shoot(None, seat, legal_shot(game, seat), cpu=True))
            return
        shooter = device(1) if seat is Seat.SOUTH else device(2)
        self.act(Shoot(shooter, seat, legal_shot(game, seat)))


def test_every_event_message_is_the_same_text_spliced_as_encoded_whole() -> None:
    party = Party()
    party.act(Join(device(2), "Bob"))
    party.act(Join(SPECTATOR, "Sam", spectator=True))
    party.act(Rename(SPECTATOR, "Samantha"))
    party.act(ChangeSettings(device(1), dataclasses.replace(party.table.settings, hints=True)))
    party.act(Disconnect(SPECTATOR))
    party.act(Connect(SPECTATOR))
    party.act(Start(device(1)))
    party.act(React(device(2), views.REACTIONS[0]))
    party.shoot()
    party.act(TakeHint(device(2), Seat.NORTH, "hint"))
    party.shoot()
    party.act(Tick(), later=60.0)  # south's clock runs out
    party.act(Disconnect(device(2)))
    party.act(Tick(), later=60.0)  # north stood in for
    party.act(Connect(device(2)))
    for _ in range(2):  # two rounds
        while (game := party.table.game) is not None and game.current_seat is not None:
            party.shoot()
        if party.table.stage == "playing":
            party.act(NextRound(device(1)))
            party.act(NextRound(device(2)))  # the next round starts
    party.act(Rematch(device(1)))
    party.act(DeclineRematch(device(2)))
    party.act(Remove(device(1), party.table.member_of(SPECTATOR).mid))  # type: ignore[union-attr]
    party.act(Leave(device(1)))
    party.act(Leave(device(2)))
    # The rest, rarer, as if they came next (each event has a version of its own).
    table, at = party.table, party.now
    rare: list[Event] = [
        MemberLeft(version=table.version + 1, at=at, mid="m2", removed=False),
        HostChanged(version=table.version + 2, at=at, mid="m2"),
        GameAborted(version=table.version + 3, at=at, seat=Seat.NORTH, reason="no_show"),
        RematchLapsed(version=table.version + 4, at=at),
        Closed(version=table.version + 5, at=at, reason="everyone left"),
        RematchVoted(version=table.version + 6, at=at, mid="m1"),
    ]
    for event in rare:
        party.kinds |= _same_texts(table, table, [event], turns={})
    assert party.kinds == EVENT_MESSAGE_TYPES


def test_several_events_at_once_and_a_catch_up_are_spliced_too() -> None:
    party = Party()
    party.act(Join(device(2), "Bob"))
    party.act(Start(device(1)))
    before = party.table
    for _ in range(3):
        party.shoot()
    # A reconnecting client is sent the three shots at once, replayed from the log.
    missed = [e for e in party.log if e.version > before.version]
    assert len(missed) == 3
    turns = views.replay_turns(before, missed)
    assert _same_texts(before, party.table, missed, turns=turns) == {"shot"}
    # Or as its table's owner has them, with the shots' reports kept.
    assert _same_texts(before, party.table, missed) == {"shot"}


def test_a_message_orjson_cannot_encode_goes_out_escaped_by_the_standard_library() -> None:
    # A client's text quoted in an error may hold a lone surrogate, which
    # orjson refuses: the text is then the standard library's, escaped.
    text = protocol.encode(protocol.message("error", None, 0, message="bad " + chr(0xD800)))
    assert text.isascii() and json.loads(text)["message"] == "bad \ud800"
    assert protocol.encode({"shot": Shot(1.0, 2.0, 3.0).power}) == '{"shot":3.0}'
