"""The event loop never runs a simulation: shots, the CPU and the warm-up run in worker threads.

The server runs in this process (uvicorn on a real socket, in a thread of
its own) with a profiler hook on every thread, which records the thread each
watched function runs in: no timing is involved.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from pathlib import Path
from types import FrameType
from typing import Any

from crokinole.ai import CpuPlayer
from crokinole.physics import simulate_batch, simulate_shot
from crokinole.server.limits import ServerSettings
from crokinole.server.owner import cpu
from crokinole.server.ws.session import Session
from tests.support.server import Player, serving


def test_shots_the_cpu_and_the_warm_up_run_off_the_event_loop(tmp_path: Path) -> None:
    watched = {
        Session.handle.__code__: "loop",  # handles messages: runs on the event loop
        simulate_shot.__code__: "simulate",
        simulate_batch.__code__: "simulate",
        CpuPlayer.choose_shot.__code__: "cpu",
        cpu.warm_up.__code__: "warm_up",
    }
    threads: dict[str, set[int]] = defaultdict(set)
    names: dict[str, set[str]] = defaultdict(set)

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code in watched:
            threads[watched[frame.f_code]].add(threading.get_ident())
            names[watched[frame.f_code]].add(threading.current_thread().name)

    threading.setprofile(profile)  # every thread started from now on
    try:
        # The warm-up compiles the kernels at startup, while the server answers.
        with serving(tmp_path / "loop.db", ServerSettings(warm_up=True)) as url:
            me = Player(url)
            me.hello()
            me.create("solo", "Ann", seats={"south": "me", "north": "easy"})
            me.shoot("south")
            assert me.until("shot")["by"] == "person"
            assert me.until("shot")["by"] == "cpu"  # the CPU's answer
            me.close()
    finally:
        threading.setprofile(None)
    (loop,) = threads["loop"]
    for work in ("simulate", "cpu", "warm_up"):
        assert threads[work], f"{work} never ran"
        assert loop not in threads[work], f"{work} ran on the event loop"
    # The CPU players think, and the kernels are warmed, on the CPU pool's threads.
    for work in ("cpu", "warm_up"):
        assert all(name.startswith("crokinole-cpu") for name in names[work]), names[work]
