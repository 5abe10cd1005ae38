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

from tests.server_database import server_database


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
            schema of that path, :func:`tests.server_database.server_database`).
        options: more ``crokinole serve`` options (limits, origins).
        env: more environment variables (e.g. test-only fault injection).
    """
    port = free_port()
    url = ServerProcess(f"http://127.0.0.1:{port}")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    database = server_database(db)
    proc = subprocess.Popen(
        [sys.executable, "-m", "crokinole", "serve", "--port", str(port), "--db", database,
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
