"""The env extra is optional: ``import crokinole`` and crokinole.env's plain modules need none."""

from __future__ import annotations

import json
import subprocess
import sys

#: Code run first in a fresh interpreter: gymnasium and pettingzoo cannot be imported.
BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("gymnasium", "pettingzoo"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Block())
"""


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", BLOCK + code], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_the_core_and_the_plain_env_modules_work_without_the_extra() -> None:
    loaded = _run(
        "import crokinole, crokinole.env, crokinole.env.tasks\n"
        "from crokinole.env import Episode\n"
        "import numpy as np\n"
        "from crokinole.board import Shot\n"
        "print(Episode('open_20', rng=np.random.default_rng(0)).play(Shot(0, 0, 28)).reward)\n"
        "import json; print(json.dumps(sorted(sys.modules)))"
    ).splitlines()
    assert loaded[0] == "20.0"
    assert not {m for m in json.loads(loaded[1]) if m.split(".")[0] in ("gymnasium", "pettingzoo")}


def test_an_environment_without_the_extra_says_how_to_install_it() -> None:
    said = _run(
        "import crokinole.env\n"
        "try:\n"
        "    crokinole.env.CrokinoleEnv\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    assert said == "crokinole.env.CrokinoleEnv needs gymnasium: pip install 'crokinole[env]'"
