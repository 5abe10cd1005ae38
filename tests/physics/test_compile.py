"""The cold compile: each kernel function in one version, and a shot compiles no batch kernel.

A fresh process with an empty ``NUMBA_CACHE_DIR`` plays one shot and lists
the compiled versions of every function of the kernel.  Constants passed as
literals once compiled ``_log`` in 32 versions (most of a 60 s compile);
``crokinole bench compile`` prints the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHOT_THEN_LIST = """
import json
from numba.core.registry import CPUDispatcher
from crokinole.board import Seat, Shot
from crokinole.physics import kernel
from crokinole.rules import Game, Rules
Game(Rules()).shoot(Seat.SOUTH, Shot(0.0, 0.0, 30.0))
print(json.dumps({
    name: len(f.signatures)
    for name, f in vars(kernel).items()
    if isinstance(f, CPUDispatcher)
}))
"""


@pytest.mark.slow
def test_a_cold_first_shot_compiles_each_function_once_and_no_batch_kernel(
    tmp_path: Path,
) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", SHOT_THEN_LIST], env=env, check=True, capture_output=True, text=True
    )
    versions = json.loads(out.stdout.strip().splitlines()[-1])
    assert versions["run_shot"] == 1 and versions["_run"] == 1
    assert versions["_log"] == 1 and versions["_resolve_contacts"] == 1
    assert max(versions.values()) == 1, versions
    # What the first shot does not need is left for the server's warm-up.
    assert versions["run_batch"] == 0 and versions["first_invalid_launch"] == 0


FIRST_SHOTS_AT_ONCE = """
import threading
from crokinole.board import Seat, Shot
from crokinole.rules import Game, Rules
start = threading.Barrier(4)
failures = []
def first_shot():
    start.wait()
    try:
        Game(Rules()).shoot(Seat.SOUTH, Shot(0.0, 0.0, 30.0))
    except Exception as exc:
        failures.append(repr(exc))
threads = [threading.Thread(target=first_shot) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("failures:", failures)
"""


def test_the_first_shots_of_a_process_may_come_from_several_threads_at_once() -> None:
    """A fresh server's first shots come from its worker threads together: the kernel's
    helpers get their one signature once, and no thread meets "compilation disabled"."""
    out = subprocess.run(
        [sys.executable, "-c", FIRST_SHOTS_AT_ONCE], check=True, capture_output=True, text=True
    )
    assert out.stdout.strip().splitlines()[-1] == "failures: []", out.stdout + out.stderr
