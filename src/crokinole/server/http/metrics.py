"""The process's counters for a monitoring system (HTTP, Prometheus's text format).

| method | route | answers |
|---|---|---|
| GET | /metrics | the counters of :mod:`crokinole.metrics`, the CPU seconds (``--metrics``) |

Without ``crokinole serve --metrics`` it answers 404, as for a page that does not exist.

A counter ``name`` is shown as ``crokinole_<name>_total``; the process's CPU
time (user and system, every thread) as ``process_cpu_seconds_total``, the
name Prometheus's own client libraries give it.  Each process of a cluster
answers for itself: a scraper (or ``crokinole bench server --fixed``) sums
them.  It is off by default because it tells anyone who asks how busy the
server is.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from crokinole import metrics
from crokinole.server.http.context import context

__all__ = ["CONTENT_TYPE", "exposition", "routes", "serve_metrics"]

#: Prometheus's text exposition format, version 0.0.4.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

#: What each counter the server keeps counts (others get a plain line).
ABOUT = {
    metrics.DB_COMMITS: "Database transactions committed by this process.",
    metrics.DB_CONNECTIONS: "New database connections this process opened.",
    metrics.COMMANDS: "Table commands this process applied (each stored with its events).",
    metrics.SHOTS: "Shots this process applied as the owner of their table.",
    metrics.LEASES_LOST: "Leases on tables this process lost (another process may own them).",
}


def _metric_name(counter: str) -> str:
    # Prometheus names are [a-zA-Z_:][a-zA-Z0-9_:]*; a counter named otherwise is kept readable.
    return "crokinole_" + re.sub(r"[^a-zA-Z0-9_]", "_", counter) + "_total"


def exposition(counts: Mapping[str, int], cpu_seconds: float) -> str:
    """The counters ``counts`` and the CPU seconds as Prometheus text (every known counter,
    at 0 before its first count, so a scraper sees each from the start).

    >>> text = exposition({"shots": 3}, 1.5)
    >>> [line for line in text.splitlines() if not line.startswith("#")][-3:]
    ['crokinole_leases_lost_total 0', 'crokinole_shots_total 3', 'process_cpu_seconds_total 1.5']
    >>> "# TYPE crokinole_shots_total counter" in text
    True
    """
    every = dict.fromkeys(ABOUT, 0) | dict(counts)
    lines = []
    for counter in sorted(every):
        name = _metric_name(counter)
        lines += [
            f"# HELP {name} {ABOUT.get(counter, f'The counter {counter} of this process.')}",
            f"# TYPE {name} counter",
            f"{name} {every[counter]}",
        ]
    lines += [
        "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
        "# TYPE process_cpu_seconds_total counter",
        f"process_cpu_seconds_total {cpu_seconds:.6g}",
    ]
    return "\n".join(lines) + "\n"


async def serve_metrics(request: Request) -> Response:
    """``GET /metrics``: the counters, when ``crokinole serve --metrics`` was given."""
    if not context(request).settings.metrics:
        # As any path the server does not have: nothing tells that the route exists.
        raise HTTPException(status_code=404)
    return Response(
        exposition(metrics.counts(), time.process_time()),
        media_type=CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )


routes: list[BaseRoute] = [Route("/metrics", serve_metrics, methods=["GET"])]
