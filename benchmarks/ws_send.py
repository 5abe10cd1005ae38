"""Server CPU per websocket message, by uvicorn's websocket implementation and compression.

Run it from a checkout: ``python benchmarks/ws_send.py [--messages N] [--repeats R]``;
``--help`` lists the options.

For each uvicorn websocket implementation installed (``websockets-sansio``,
the default; ``websockets``; ``wsproto``) and with permessage-deflate off and
on (``crokinole serve --compress``; the clients always offer it, as browsers
do), a uvicorn server process is started on a loopback port with a small
Starlette app that does what a game session does with its socket: it sends
text messages one ``await websocket.send_text`` at a time, and reads the
clients' messages with ``websocket.receive``.  Clients (the ``websockets``
library, in this process) ask each connection for ``--messages`` copies of a
real ``shot`` message (:func:`crokinole.server.ws.views.event_texts` of a first
shot) and read them, then send as many ``shoot`` messages and wait for the
count.  The server process's CPU time (user + system, from ``/proc``) over
each phase, divided by the messages, is the figure: its median over the
repeats is printed, microseconds per message sent and per message read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

#: The uvicorn ``ws`` implementations measured (each if its library is installed).
IMPLEMENTATIONS = ("websockets-sansio", "websockets", "wsproto")
#: A client's ``shoot`` message, as the bots and the browser send it.
SHOOT = json.dumps(
    {"type": "shoot", "table": "f" * 32, "seat": "south", "position": 1.25,
     "direction": -3.5, "power": 61.0}
)  # fmt: skip


def shot_text() -> str:
    """The text of a first shot's ``shot`` message, as the server sends it."""
    from crokinole.board import Seat, Shot  # noqa: PLC0415
    from crokinole.server.ws import views  # noqa: PLC0415
    from crokinole.table import Shoot, Table, TableSettings, Timings  # noqa: PLC0415

    table, _ = Table.create(
        id="f" * 32, kind="solo", code=None, host_device="dev", host_name="Ann",
        settings=TableSettings.from_dict({"layout": "singles", "hand": "steady"}),
        timings=Timings(), seed=7, now=5.0, seats={Seat.SOUTH: "me", Seat.NORTH: "hard"},
    )  # fmt: skip
    after, events = table.apply(Shoot("dev", Seat.SOUTH, Shot(0.0, 0.0, 30.0)), 6.0)
    (text,) = views.event_texts(table, after, events, "dev", 6.5)
    assert isinstance(text, str)
    return text


# ----------------------------------------------------------------- the server


def serve(port: int, ws: str, deflate: bool) -> None:
    """Run the measured server (blocks): ``send N`` is answered with N shot texts and
    ``sent``; every other message is counted, and ``count`` answered with the count."""
    import uvicorn  # noqa: PLC0415
    from starlette.applications import Starlette  # noqa: PLC0415
    from starlette.responses import PlainTextResponse  # noqa: PLC0415
    from starlette.routing import Route, WebSocketRoute  # noqa: PLC0415
    from starlette.websockets import WebSocket  # noqa: PLC0415

    text = shot_text()

    async def socket_endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        read = 0
        paced = False
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                return
            said = received.get("text") or ""
            if said in ("paced", "burst"):
                paced = said == "paced"
            elif said.startswith("send "):
                for _ in range(int(said.split()[1])):
                    await websocket.send_text(text)
                await websocket.send_text("sent")
            elif paced and said.startswith("{"):
                await websocket.send_text(text)
            elif said == "count":
                await websocket.send_text(str(read))
                read = 0
            else:
                read += 1

    async def healthz(_request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/healthz", healthz), WebSocketRoute("/ws", socket_endpoint)])
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws=ws,  # type: ignore[arg-type]
        ws_max_size=65536, ws_per_message_deflate=deflate,
    )  # fmt: skip
    uvicorn.Server(config).run()


# ----------------------------------------------------------------- the driver


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def installed(ws: str) -> bool:
    module = {"websockets-sansio": "websockets", "websockets": "websockets"}.get(ws, ws)
    try:
        __import__(module)
    except ImportError:
        return False
    return True


async def measure(port: int, pid: int, clients: int, messages: int) -> tuple[float, float, float]:
    """Server CPU microseconds per message sent, per message read, and per round trip
    (a ``shoot`` read and a ``shot`` sent back before the next ``shoot``)."""
    from websockets.asyncio.client import connect  # noqa: PLC0415

    sockets = [
        await connect(f"ws://127.0.0.1:{port}/ws", compression="deflate", max_size=None)
        for _ in range(clients)
    ]

    async def take(ws: object) -> None:
        await ws.send(f"send {messages}")  # type: ignore[attr-defined]
        while await ws.recv() != "sent":  # type: ignore[attr-defined]
            pass

    async def give(ws: object) -> None:
        for _ in range(messages):
            await ws.send(SHOOT)  # type: ignore[attr-defined]
        await ws.send("count")  # type: ignore[attr-defined]
        assert int(await ws.recv()) == messages  # type: ignore[attr-defined]

    async def volley(ws: object) -> None:
        for _ in range(messages):
            await ws.send(SHOOT)  # type: ignore[attr-defined]
            await ws.recv()  # type: ignore[attr-defined]

    try:
        start = cpu_seconds(pid)
        await asyncio.gather(*(take(ws) for ws in sockets))
        sent = cpu_seconds(pid) - start
        start = cpu_seconds(pid)
        await asyncio.gather(*(give(ws) for ws in sockets))
        read = cpu_seconds(pid) - start
        for ws in sockets:
            await ws.send("paced")
        start = cpu_seconds(pid)
        await asyncio.gather(*(volley(ws) for ws in sockets))
        paced = cpu_seconds(pid) - start
    finally:
        for ws in sockets:
            await ws.close()
    total = clients * messages
    return sent / total * 1e6, read / total * 1e6, paced / total * 1e6


def run_one(
    ws: str, deflate: bool, clients: int, messages: int, repeats: int
) -> tuple[float, float, float]:
    port = free_port()
    command = [sys.executable, __file__, "--serve", str(port), "--ws", ws]
    server = subprocess.Popen([*command, *(["--deflate"] if deflate else [])])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).read()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"the {ws} server did not start") from None
                time.sleep(0.1)
        asyncio.run(measure(port, server.pid, clients, messages // 10))  # warm up
        runs = [asyncio.run(measure(port, server.pid, clients, messages)) for _ in range(repeats)]
    finally:
        server.terminate()
        server.wait()
    sent, read, paced = (statistics.median(r[i] for r in runs) for i in range(3))
    return sent, read, paced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000, help="per connection and phase")
    parser.add_argument("--clients", type=int, default=10, help="connections at once")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ws", nargs="*", default=list(IMPLEMENTATIONS))
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--deflate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.ws[0], args.deflate)
        return 0
    print(f"shot message: {len(shot_text())} characters; {args.clients} connections")
    print(f"{'implementation':<20}{'deflate':<9}{'µs/sent':>9}{'µs/read':>9}{'µs/trip':>9}")
    for ws in args.ws:
        if not installed(ws):
            print(f"{ws:<20}(not installed)")
            continue
        for deflate in (False, True):
            sent, read, trip = run_one(ws, deflate, args.clients, args.messages, args.repeats)
            shown = f"{sent:>9.1f}{read:>9.1f}{trip:>9.1f}"
            print(f"{ws:<20}{'on' if deflate else 'off':<9}{shown}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
