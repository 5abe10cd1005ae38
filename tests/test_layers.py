"""The architecture of DESIGN.md holds: the pure core imports no I/O layer.

Checked in a fresh interpreter (what a library user gets from ``import
crokinole``) and by reading each layer's imports.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "crokinole"
FORBIDDEN = {"asyncio", "sqlalchemy", "sqlite3", "starlette", "fastapi", "uvicorn", "websockets"}
FORBIDDEN |= {"pymunk"}  # a bench-only dependency


def test_importing_the_core_pulls_in_no_server_database_or_asyncio() -> None:
    code = (
        "import json, sys\n"
        "import crokinole, crokinole.board, crokinole.physics\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(json.loads(out))
    assert loaded & FORBIDDEN == set()


def _project_imports(package: str) -> set[str]:
    found: set[str] = set()
    for path in (SRC / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found |= {n.split(".")[1] for n in names if n.startswith("crokinole.")}
    return found


def test_board_imports_nothing_else_of_the_project() -> None:
    # errors is the one leaf module every layer may use.
    assert _project_imports("board") <= {"errors"}


def test_physics_imports_only_board_and_errors() -> None:
    assert _project_imports("physics") <= {"board", "errors", "physics"}
