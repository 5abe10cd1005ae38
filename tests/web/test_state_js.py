"""The browser client's pure state module (``static/state.js``), tested in node.

The JavaScript tests live in ``tests/web/js/*.test.mjs`` and run with ``node --test``
(node 20 or newer); without node they are skipped with the reason.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS_TESTS = Path(__file__).parent / "js"


def test_state_module_in_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the tests of static/state.js need node 20 or newer")
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    assert files, f"no JavaScript tests in {JS_TESTS}"
    done = subprocess.run(
        [node, "--test", *files], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
