"""PostgreSQL's connections: bounded waits on a server that hangs, a check as they leave the pool.

Imported only for a ``postgresql`` URL (the driver, psycopg, is optional).
A database server can fail in two ways: it refuses (or drops) connections,
which the driver reports at once; or it accepts them and then answers
nothing (a hung server, a proxy or a network that swallows packets), and a
psycopg call blocked on a silent socket waits for ever: neither the server's
``statement_timeout`` nor TCP keepalives (answered by any proxy in between)
end it.  :class:`TimedConnection` bounds every wait for an answer: a
:class:`Watchdog` thread shuts the socket down once the wait has lasted too
long, so the call fails as if the server had dropped the connection (which
SQLAlchemy then discards) with a plain "did not answer within N s".

A connection the server closed while it sat in the pool (a restart, a
failover, ``pg_terminate_backend``) has the server's goodbye waiting on its
socket: :func:`check_alive` finds it as the connection leaves the pool, with
no round trip to the server (what a pre-ping costs), and SQLAlchemy replaces
it.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import threading
import time
from typing import Any, TypeVar

import psycopg
from psycopg.abc import PQGen
from sqlalchemy.exc import DisconnectionError

_Result = TypeVar("_Result")

#: Seconds between two looks of the watchdog at the calls it watches (how late it may act).
WATCH_STEP_S = 0.1


class Watchdog:
    """Shuts down the socket of a connection whose call has waited past its deadline.

    One daemon thread (started with the first call watched) looks every
    :data:`WATCH_STEP_S` seconds; arming and disarming a call is a
    dictionary write under a lock, cheap enough for every round trip.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._deadlines: dict[TimedConnection, float] = {}
        self._thread: threading.Thread | None = None

    def arm(self, connection: TimedConnection, seconds: float) -> None:
        """Watch ``connection`` for ``seconds`` from now (until :meth:`disarm`)."""
        with self._lock:
            self._deadlines[connection] = time.monotonic() + seconds
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="crokinole-db-watchdog", daemon=True
                )
                self._thread.start()

    def disarm(self, connection: TimedConnection) -> None:
        """The call on ``connection`` is over (answered or failed)."""
        with self._lock:
            self._deadlines.pop(connection, None)

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_STEP_S)
            now = time.monotonic()
            # Under the lock: a call that ends meanwhile cannot have its
            # connection (reused by the next call) shut down by mistake.
            with self._lock:
                late = [c for c, deadline in self._deadlines.items() if deadline <= now]
                for connection in late:
                    del self._deadlines[connection]
                    connection.timed_out = True
                    _shut_down(connection)


def _shut_down(connection: psycopg.Connection[Any]) -> None:
    """End every wait on the connection's socket (it reads the end of the stream)."""
    # A duplicate of the descriptor: shutting it down ends the socket for libpq
    # too, and closing it leaves libpq's own descriptor to libpq.
    with (
        contextlib.suppress(OSError, psycopg.Error),
        socket.socket(fileno=os.dup(connection.fileno())) as duplicate,
    ):
        duplicate.shutdown(socket.SHUT_RDWR)


#: The process's one watchdog.
WATCHDOG = Watchdog()


class TimedConnection(psycopg.Connection[Any]):
    """A psycopg connection whose every wait for the server is bounded by :attr:`answer_within`.

    Every round trip of psycopg (a statement, a commit, a rollback) goes
    through :meth:`wait`; connecting is bounded by libpq's
    ``connect_timeout`` already.
    """

    #: Seconds a call may wait for the server's answer; None: no bound (a migration's DDL).
    answer_within: float | None = None
    #: The watchdog gave a call up: the connection is dead.
    timed_out: bool = False

    def wait(self, gen: PQGen[_Result], *args: Any, **kwargs: Any) -> _Result:
        within = self.answer_within
        if within is None:
            return super().wait(gen, *args, **kwargs)
        WATCHDOG.arm(self, within)
        try:
            return super().wait(gen, *args, **kwargs)
        except psycopg.Error as error:
            if self.timed_out:
                raise psycopg.OperationalError(
                    f"the database did not answer within {within:g} s"
                ) from error
            raise
        finally:
            WATCHDOG.disarm(self)


def check_alive(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pool's checkout listener: a connection the server closed is replaced, with no round trip.

    An idle connection is sent nothing by the server, except its goodbye
    (an error and the end of the stream) when it closes the connection: a
    socket with something to read is one the server let go of.

    Raises:
        DisconnectionError: the connection is dead (the pool replaces it).
    """
    if dbapi_connection.closed or dbapi_connection.broken:
        raise DisconnectionError("the connection was closed")
    poll = select.poll()
    poll.register(dbapi_connection.fileno(), select.POLLIN)
    if poll.poll(0):
        raise DisconnectionError("the database server closed the connection")
