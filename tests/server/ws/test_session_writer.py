"""The session's writer: messages sent in order, and a send that takes too long drops the client.

The socket is a stand-in whose sends take as long as the test says, so the
send timeout is seen without filling a real socket's buffers (the queue's
own limits would drop such a client first: tests/server/ws/test_session_limits.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json

from crokinole.server.limits import RateLimiter, ServerSettings
from crokinole.server.ws.session import CLOSE_TOO_SLOW, Attendance, Session

SEND_TIMEOUT = 0.2


class _Socket:
    """A websocket whose n-th send takes ``delays[n]`` seconds (None: it never ends)."""

    def __init__(self, delays: list[float | None]) -> None:
        self.delays = delays
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        delay = self.delays[len(self.sent)] if len(self.sent) < len(self.delays) else 0.0
        if delay is None:
            await asyncio.Event().wait()  # a client that stopped reading
        await asyncio.sleep(delay)
        self.sent.append(text)


def _session(socket: _Socket) -> Session:
    return Session(
        socket,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]  # the writer reads nothing of the tables
        ServerSettings(warm_up=False, send_timeout=SEND_TIMEOUT),
        RateLimiter(20, 60.0),
        Attendance(),
    )


async def _write(session: Session, messages: int, *, idle: float = 0.0, wait: float) -> None:
    """Queue ``messages`` pongs (after ``idle`` seconds), and let the writer run ``wait`` s."""
    writer = asyncio.create_task(session.writer())
    await asyncio.sleep(idle)
    for n in range(messages):
        session.send({"type": "pong", "n": n})
    with contextlib.suppress(TimeoutError):  # still open at the end: the test looks why
        await asyncio.wait_for(session.done.wait(), wait)
    writer.cancel()  # as the endpoint does once the session is done
    await asyncio.gather(writer, return_exceptions=True)


def test_a_send_that_never_ends_drops_the_client_as_too_slow() -> None:
    socket = _Socket([0.0, 0.0, None])
    session = _session(socket)
    asyncio.run(_write(session, 4, wait=20 * SEND_TIMEOUT))
    assert [json.loads(t)["n"] for t in socket.sent] == [0, 1]
    assert session.dropped == (CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
    assert session.done.is_set()


def test_sends_that_each_end_within_the_timeout_keep_the_client() -> None:
    # Six sends of half the timeout each: three timeouts in all, none of them in one send.
    socket = _Socket([SEND_TIMEOUT / 2] * 6)
    session = _session(socket)
    asyncio.run(_write(session, 6, wait=6 * SEND_TIMEOUT))
    assert [json.loads(t)["n"] for t in socket.sent] == list(range(6))
    assert session.dropped is None and not session.done.is_set()


def test_a_client_idle_for_longer_than_the_timeout_is_dropped_for_a_stuck_send_only() -> None:
    # Nothing to send for longer than the timeout is no slow send; the stuck one after it is.
    socket = _Socket([0.0, None])
    session = _session(socket)
    asyncio.run(_write(session, 2, idle=3 * SEND_TIMEOUT, wait=20 * SEND_TIMEOUT))
    assert [json.loads(t)["n"] for t in socket.sent] == [0]
    assert session.dropped == (CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
