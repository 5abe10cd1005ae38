"""The session as a state machine: its transition table, and a session moving through it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from crokinole.errors import CrokinoleError, ErrorCode
from crokinole.server.limits import RateLimiter, ServerSettings
from crokinole.server.ws.session import Attendance, Session
from crokinole.server.ws.state import (
    TRANSITIONS,
    IllegalTransitionError,
    Lifecycle,
    SessionState,
)

TOKEN = "dev-ann-0000000001"
TABLE = "a" * 32
OPEN = frozenset(SessionState) - {SessionState.CLOSING, SessionState.CLOSED}


def _at(state: SessionState) -> Lifecycle:
    """A life cycle brought to ``state`` along allowed moves."""
    paths = {
        SessionState.AWAITING_HELLO: [],
        SessionState.READY: [SessionState.READY],
        SessionState.AT_TABLE: [SessionState.READY, SessionState.AT_TABLE],
        SessionState.CATCHING_UP: [SessionState.READY, SessionState.CATCHING_UP],
        SessionState.CLOSING: [SessionState.CLOSING],
        SessionState.CLOSED: [SessionState.CLOSED],
    }
    life = Lifecycle()
    for step in paths[state]:
        life.move(step)
    assert life.state is state
    return life


def test_a_session_starts_awaiting_hello() -> None:
    assert Lifecycle().state is SessionState.AWAITING_HELLO


@pytest.mark.parametrize("start", list(SessionState))
def test_every_allowed_move_is_made_and_every_other_raises(start: SessionState) -> None:
    for to in SessionState:
        life = _at(start)
        if to in TRANSITIONS[start]:
            life.move(to)
            assert life.state is to
        else:
            with pytest.raises(IllegalTransitionError) as info:
                life.move(to)
            assert life.state is start  # a refused move changes nothing
            assert str(info.value) == f"a session {start.value} cannot become {to.value}"


def test_the_table_of_moves() -> None:
    assert TRANSITIONS[SessionState.AWAITING_HELLO] == {
        SessionState.READY,
        SessionState.CLOSING,
        SessionState.CLOSED,
    }
    # Only hello leaves "awaiting hello"; no table is opened before it.
    assert SessionState.AT_TABLE not in TRANSITIONS[SessionState.AWAITING_HELLO]
    assert SessionState.CATCHING_UP not in TRANSITIONS[SessionState.AWAITING_HELLO]
    # A catch-up ends at the table; leaving a table goes back to ready.
    assert TRANSITIONS[SessionState.CATCHING_UP] >= {SessionState.AT_TABLE}
    assert SessionState.READY in TRANSITIONS[SessionState.AT_TABLE]
    # Every open state may close; closing only ends closed; closed is the end.
    for state in OPEN:
        assert {SessionState.CLOSING, SessionState.CLOSED} <= TRANSITIONS[state]
    assert TRANSITIONS[SessionState.CLOSING] == {SessionState.CLOSED}
    assert TRANSITIONS[SessionState.CLOSED] == frozenset()
    # No state moves to itself, and no state back to awaiting hello.
    for state, targets in TRANSITIONS.items():
        assert state not in targets
        assert SessionState.AWAITING_HELLO not in targets


def test_an_illegal_transition_is_a_crokinole_error() -> None:
    life = _at(SessionState.CLOSED)
    with pytest.raises(CrokinoleError, match="a session closed cannot become ready"):
        life.move(SessionState.READY)
    assert life.closed and life.ending
    assert _at(SessionState.CLOSING).ending and not _at(SessionState.CLOSING).closed
    assert not _at(SessionState.AT_TABLE).ending


class _Store:
    def open_tables_of_device(self, device: str) -> list[str]:
        return []

    def devices_record(self, devices: list[str], opponents: Any) -> dict[str, Any]:
        return {"devices": list(devices)}


class _Tables:
    """Just what hello and an error read from the tables' owner."""

    store = _Store()

    def now(self) -> float:
        return 1000.0


def _session() -> Session:
    return Session(
        None,  # type: ignore[arg-type]  # never written to: the outbox is read here
        _Tables(),  # type: ignore[arg-type]
        ServerSettings(warm_up=False),
        RateLimiter(20, 60.0),
        Attendance(),
    )


def _sent(session: Session) -> list[dict[str, Any]]:
    out = []
    while not session._outbox.empty():
        item = session._outbox.get_nowait()
        assert isinstance(item, str)
        out.append(json.loads(item))
    return out


def test_a_message_before_hello_is_answered_hello_first() -> None:
    async def scenario() -> tuple[SessionState, list[dict[str, Any]]]:
        session = _session()
        await session.handle(json.dumps({"type": "open", "table": TABLE}))
        await session.handle(json.dumps({"type": "start", "table": TABLE}))
        return session.state, _sent(session)

    state, sent = asyncio.run(scenario())
    assert state is SessionState.AWAITING_HELLO  # nothing changed
    assert [m["type"] for m in sent] == ["error", "error"]
    assert {m["code"] for m in sent} == {ErrorCode.HELLO_FIRST}
    assert all(m["table"] == TABLE for m in sent)


def test_hello_makes_the_session_ready_and_a_second_device_is_refused() -> None:
    async def scenario() -> tuple[list[SessionState], list[dict[str, Any]]]:
        session = _session()
        states = [session.state]
        await session.handle(json.dumps({"type": "ping"}))  # a ping needs no hello
        await session.handle(json.dumps({"type": "hello", "token": TOKEN}))
        states.append(session.state)
        await session.handle(json.dumps({"type": "hello", "token": TOKEN}))  # again: welcome
        states.append(session.state)
        await session.handle(json.dumps({"type": "hello", "token": "dev-bob-0000000001"}))
        states.append(session.state)
        return states, _sent(session)

    states, sent = asyncio.run(scenario())
    assert states == [
        SessionState.AWAITING_HELLO,
        SessionState.READY,
        SessionState.READY,
        SessionState.READY,
    ]
    assert [m["type"] for m in sent] == ["pong", "welcome", "welcome", "error"]
    assert sent[1]["token"] == TOKEN
    assert sent[1]["record"] == {"devices": [TOKEN]}
    assert sent[3]["code"] == ErrorCode.BAD_MESSAGE


def test_closing_sends_nothing_more_and_ends_closed() -> None:
    async def scenario() -> tuple[list[SessionState], list[dict[str, Any]], bool]:
        session = _session()
        states = []
        await session.handle(json.dumps({"type": "hello", "token": TOKEN}))
        session.close_after(1008, "too many messages")
        states.append(session.state)
        session.send({"type": "pong"})  # not queued: the session is closing
        session.close_after(1008, "again")  # changes nothing
        states.append(session.state)
        session.drop(1008, "too many messages")
        states.append(session.state)
        session.drop(1013, "too slow")  # already closed: kept as it was
        return states, _sent(session), session.done.is_set()

    states, sent, done = asyncio.run(scenario())
    assert states == [SessionState.CLOSING, SessionState.CLOSING, SessionState.CLOSED]
    assert [m["type"] for m in sent] == ["welcome"]
    assert done


def test_a_dropped_session_is_closed_and_its_state_moves_no_more() -> None:
    async def scenario() -> Session:
        session = _session()
        session.drop(1008, "say hello first")
        return session

    session = asyncio.run(scenario())
    assert session.state is SessionState.CLOSED
    assert session.dropped == (1008, "say hello first")
    assert session.done.is_set()
    with pytest.raises(IllegalTransitionError):
        session._life.move(SessionState.READY)
