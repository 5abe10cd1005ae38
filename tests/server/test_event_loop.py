"""The event loop never runs a simulation: shots, the CPU and the warm-up run in worker threads.

The server runs in this process (uvicorn on a real socket, in a thread of
its own) with a profiler hook on every thread, which records the thread each
watched function runs in: no timing is involved.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn

from crokinole.ai import CpuPlayer
from crokinole.physics import simulate_batch, simulate_shot
from crokinole.server import create_app
from crokinole.server.client import Client as ServerClient
from crokinole.server.limits import ServerSettings
from crokinole.server.rooms import warm_up
from tests.server.helpers import Client, shoot_msg
from tests.server_process import free_port


def test_simulations_run_off_the_event_loop(tmp_path: Path) -> None:
    watched = {
        ServerClient.handle.__code__: "loop",  # handles messages: runs on the event loop
        simulate_shot.__code__: "simulate",
        simulate_batch.__code__: "simulate",
        CpuPlayer.choose_shot.__code__: "cpu",
        warm_up.__code__: "warm_up",
    }
    threads: dict[str, set[int]] = defaultdict(set)

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code in watched:
            threads[watched[frame.f_code]].add(threading.get_ident())

    threading.setprofile(profile)  # every thread started from now on
    try:
        port = free_port()
        app = create_app(str(tmp_path / "loop.db"), ServerSettings())
        server = uvicorn.Server(uvicorn.Config(app, port=port, log_level="warning"))
        running = threading.Thread(target=server.run)
        running.start()
        try:
            for _ in range(600):
                if server.started:
                    break
                time.sleep(0.1)
            url = f"http://127.0.0.1:{port}"
            c = Client(url)
            c.hello()
            c.recv()
            room = c.new_game(opponent="easy")["room"]
            c.send(shoot_msg(room, "south", power=28.0))
            assert c.until("shot")["cpu"] is False
            assert c.until("shot")["cpu"] is True  # the CPU's answer
            c.close()
        finally:
            server.should_exit = True
            running.join(timeout=60)
    finally:
        threading.setprofile(None)
    (loop,) = threads["loop"]
    for work in ("simulate", "cpu", "warm_up"):
        assert threads[work], f"{work} never ran"
        assert loop not in threads[work], f"{work} ran on the event loop"
