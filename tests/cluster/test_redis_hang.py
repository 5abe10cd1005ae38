"""A Redis that hangs or is cut off, as a load balancer sees it: ``/healthz`` (issue 21).

A Redis that accepts connections and answers nothing (``TcpProxy.hang``)
used to leave ``/healthz`` at 200 while every move was refused: the hub's
pub/sub reader only waits for messages, and a silent connection sends none.
The health check now pings Redis with a short timeout.  Each test runs real
``crokinole serve`` processes, each reaching Redis through a cable of its
own (``Cluster(redis_proxy=True)``), hangs or cuts one process's cable and
asks every process's ``/healthz``: the process off Redis answers 503 with a
plain reason (and answers at all: the check is bounded), the other 200;
after ``restore()`` both answer 200 again.  A PostgreSQL that hangs
(``Cluster(proxy=True)``) gets a 503 in time too, not a health check that
hangs with it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cluster import Client, Node, cluster, require_services, wait_for

#: Seconds a health check may take to answer at most (its checks are bounded by 2 s).
ANSWER_S = 6.0
#: Seconds within which a hung or cut Redis shows in ``/healthz``.
NOTICED_S = 15.0


def health(node: Node) -> tuple[int, dict[str, object]]:
    """``GET /healthz`` on ``node``: the status and the body (it must answer in time)."""
    try:
        with urllib.request.urlopen(f"{node.url}/healthz", timeout=ANSWER_S) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def status_becomes(node: Node, status: int) -> Callable[[], tuple[int, dict[str, object]] | None]:
    def check() -> tuple[int, dict[str, object]] | None:
        answer = health(node)
        return answer if answer[0] == status else None

    return check


@pytest.mark.parametrize("fault", ["hang", "cut"])
def test_healthz_is_503_while_a_process_cannot_use_redis_and_200_once_back(
    tmp_path: Path, fault: str
) -> None:
    require_services()
    with cluster(tmp_path, redis_proxy=True) as servers:
        a, b = servers.start(2)
        assert a.redis_cable is not None
        assert health(a)[0] == 200 and health(b)[0] == 200
        if fault == "hang":
            a.redis_cable.hang()
        else:
            a.redis_cable.cut()
        status, body = wait_for(status_becomes(a, 503), NOTICED_S, f"/healthz 503 ({fault})")
        assert body["ok"] is False
        reason = body["redis"]
        assert isinstance(reason, str) and "Redis" in reason, body
        assert "database" not in body, body  # PostgreSQL is fine
        assert health(b)[0] == 200  # the other process is not concerned
        a.redis_cable.restore()
        wait_for(status_becomes(a, 200), NOTICED_S, f"/healthz 200 after the {fault} ended")
        print(f"{fault}: /healthz said {status} {body}")


def test_a_hung_redis_lets_new_connections_in_counted_in_the_process(tmp_path: Path) -> None:
    # The limits are counted in Redis; a Redis that hangs must not hold every
    # new websocket (nor refuse it): the process counts in its own memory and
    # says so once.
    require_services()
    with cluster(tmp_path, redis_proxy=True) as servers:
        (a,) = servers.start(1)
        assert a.redis_cable is not None
        a.redis_cable.hang()
        clients = []
        for _ in range(3):
            client = Client(a.url)
            client.send({"type": "ping"})
            assert client.recv(timeout=10)["type"] == "pong"
            clients.append(client)
        for client in clients:
            client.close()
        wait_for(lambda: "counted in this process" in a.output(), 10, "the fallback's log line")
        assert a.output().count("counted in this process") == 1, a.output()


def test_healthz_answers_503_in_time_while_the_database_hangs(tmp_path: Path) -> None:
    # PostgreSQL accepting connections and answering nothing: the health check
    # used to hang with it (a load balancer's check timing out, not told why).
    # Each check is now bounded; one that hung is waited for again, not started
    # once more (no thread piles up per request).
    require_services()
    with cluster(tmp_path, proxy=True) as servers:
        (a,) = servers.start(1)
        assert servers.proxy is not None
        assert health(a)[0] == 200
        servers.proxy.hang()
        answers = [health(a) for _ in range(3)]  # each answers within ANSWER_S
        assert [status for status, _ in answers] == [503, 503, 503], answers
        body = answers[-1][1]
        assert body["ok"] is False and "redis" not in body, body
        assert body["database"] == "the database did not answer within 2 s", body
