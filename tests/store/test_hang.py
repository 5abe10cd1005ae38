"""A database server that hangs (accepts connections, answers nothing), or refuses them.

The store reaches a real PostgreSQL (skipped when none is reachable) through
a TCP relay (:class:`tests.support.cluster.TcpProxy`) that the test makes
silent (``hang``) or cuts (``cut``).  Every call on a silent server fails
with :class:`StoreUnavailableError` ("did not answer within N s") once its
bound has passed (the connection is discarded), reads, writes and the
health check's ping alike; a refused connection fails at once; and the
store works again once the relay does.  The bounds are shortened here (the
module's constants) so that the test is quick; a call that hangs for ever
fails the test (its thread is still waiting after :data:`HUNG_S`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from crokinole.store import Store, StoreUnavailableError, TableMember
from crokinole.store import database as db
from tests.support.cluster import TcpProxy

#: Seconds after which a call still waiting is taken to hang for ever (the test fails).
HUNG_S = 30.0

ANN = TableMember("m1", "tok-ann", "Ann", seats=("south",))


def _outcome(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a thread: what it raised (None if it returned); fail if it hangs."""
    raised: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as error:
            raised.append(error)
        else:
            raised.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=HUNG_S)
    assert not thread.is_alive(), f"the call still waits for the database after {HUNG_S:g} s"
    return raised[0]


def _unavailable(call: Callable[[], Any]) -> str:
    """The message of the :class:`StoreUnavailableError` that ``call`` raises (in bounded time)."""
    error = _outcome(call)
    assert isinstance(error, StoreUnavailableError), repr(error)
    message = str(error)
    assert "\n" not in message
    return message


@pytest.fixture
def relayed(
    postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Store, TcpProxy]]:
    """A store that reaches its PostgreSQL schema through a relay, with short bounds."""
    monkeypatch.setattr(db, "ANSWER_TIMEOUT_S", 1.0)
    monkeypatch.setattr(db, "PING_TIMEOUT_S", 0.5)
    monkeypatch.setattr(db, "CONNECT_TIMEOUT", 2)  # libpq's least
    url = make_url(postgres_database)
    proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
    store = Store.open(url.set(host="127.0.0.1", port=proxy.port).render_as_string(False))
    store.create_table(
        "t1", kind="party", code=None, events=[{"type": "created", "version": 1}],
        snapshot={}, members=[ANN], deadline=None, status="lobby",
    )  # fmt: skip
    yield store, proxy
    proxy.close()
    store.close()


def _shot(store: Store, version: int) -> None:
    store.append_table_events(
        "t1", version - 1, [{"type": "shot", "version": version}], None,
        deadline=None, status="playing",
    )  # fmt: skip


@pytest.mark.postgres
def test_a_database_that_hangs_is_unavailable_within_a_bound_then_works_again(
    relayed: tuple[Store, TcpProxy],
) -> None:
    store, proxy = relayed
    _shot(store, 2)
    proxy.hang()
    # A pooled connection: the read's answer never comes.
    read = _unavailable(lambda: store.table("t1"))
    assert read.startswith("the database did not answer within 1 s"), read
    # A shot's append (the driver's own connection) and a write through a
    # session: each on a new connection, whose handshake is never answered.
    _unavailable(lambda: _shot(store, 3))
    _unavailable(lambda: store.append_table_events(
        "t1", 2, [{"type": "shot", "version": 3}], None, members=[ANN], deadline=None,
        status="playing",
    ))  # fmt: skip
    # The health check's ping too.
    _unavailable(store.ping)
    proxy.restore()
    # Nothing was written meanwhile, and the store works again (new connections).
    assert _outcome(store.ping) is None
    table = store.table("t1")
    assert table is not None and table.version == 2
    _shot(store, 3)
    assert [e["version"] for e in store.table_events("t1")] == [1, 2, 3]


@pytest.mark.postgres
def test_a_pooled_connection_whose_answer_never_comes_is_discarded(
    relayed: tuple[Store, TcpProxy],
) -> None:
    store, proxy = relayed
    _shot(store, 2)
    proxy.hang()
    _unavailable(lambda: _shot(store, 3))
    proxy.restore()
    # The connection the watchdog shut is not lent again: the next call works.
    _shot(store, 3)
    assert [e["version"] for e in store.table_events("t1")] == [1, 2, 3]


@pytest.mark.postgres
def test_a_database_that_refuses_connections_is_unavailable_at_once(
    relayed: tuple[Store, TcpProxy],
) -> None:
    store, proxy = relayed
    _shot(store, 2)
    proxy.cut()  # every relayed connection dropped, new ones refused
    for call in (lambda: store.table("t1"), lambda: _shot(store, 3), store.ping):
        message = _unavailable(call)
        assert message.startswith("the database cannot be reached ("), message
    proxy.restore()
    _shot(store, 3)
    assert [e["version"] for e in store.table_events("t1")] == [1, 2, 3]
