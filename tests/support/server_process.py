"""Start the real game server (``crokinole serve``) in a subprocess for tests."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.support.server_database import server_options


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The variables of ``crokinole serve`` that would make a test's server one of a cluster.
CLUSTER_VARIABLES = ("CROKINOLE_REDIS_URL", "CROKINOLE_REDIS_PREFIX", "CROKINOLE_LEASE_SECONDS")


class ServerProcess(str):
    """The URL of a running server (a ``str``), with its process."""

    proc: subprocess.Popen[str]


@contextlib.contextmanager
def running_server(
    db: Path, *options: str, env: dict[str, str] | None = None
) -> Iterator[ServerProcess]:
    """Run ``crokinole serve`` on a free port with the database ``db``; yield its URL.

    Args:
        db: the SQLite file (under ``$CROKINOLE_TEST_DATABASE_URL``: the PostgreSQL
            schema of that path, and under ``$CROKINOLE_TEST_REDIS_URL`` too, Redis
            with that path's key prefix: :func:`tests.support.server_database.server_options`).
        options: more ``crokinole serve`` options (limits, origins).
        env: more environment variables (e.g. test-only fault injection).
    """
    port = free_port()
    url = ServerProcess(f"http://127.0.0.1:{port}")
    # Where the server keeps its data is this run's choice (the options below), not the
    # caller's environment: a developer's own $CROKINOLE_REDIS_URL is left out.
    inherited = {k: v for k, v in os.environ.items() if k not in CLUSTER_VARIABLES}
    env = {**inherited, "PYTHONUNBUFFERED": "1", **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "crokinole", "serve", "--port", str(port), *server_options(db),
         "--log-level", "warning", *options],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    url.proc = proc
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if proc.poll() is not None:
                    out = proc.stdout.read() if proc.stdout else ""
                    raise RuntimeError(f"the server did not start:\n{out}") from None
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not answer within 60 s") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
