"""The architecture of DESIGN.md holds: each layer imports only the layers below it.

Every module of the package is read (``ast``) and each of its project
imports — at the top, inside functions, under ``TYPE_CHECKING``, relative
or absolute — is checked against DESIGN.md's layer table.  A fresh
interpreter then shows what a library user gets from importing the core:
no server, database or asyncio code.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "crokinole"

#: The top-level package (``import crokinole``, the library facade) as a target.
ROOT = "crokinole"
#: The layers of DESIGN.md, each with the project layers it may import.  The
#: leaf module ``errors`` (the one exception root) may be imported by any;
#: a layer may always import itself.
CORE = {"board", "physics", "rules", "ai"}
MAY_IMPORT: dict[str, set[str]] = {
    "errors": set(),
    # Process-wide counters of work done (commits, shots...): any layer that does I/O counts.
    "metrics": set(),
    "board": {"errors"},
    "physics": {"board", "errors"},
    "rules": {"physics", "board", "errors"},
    "ai": {"rules", "physics", "board", "errors"},
    "analysis": {"ai", "rules", "physics", "board", "errors"},
    # The reinforcement-learning environments: the game through the rules, CPU opponents, drills.
    "env": {"ai", "analysis", "rules", "physics", "board", "errors"},
    # The table (seats, people, clocks) is pure: no server, store or clock.
    "table": {"ai", "rules", "physics", "board", "errors"},
    # The store keeps what the server gives it; it knows no server, CPU or client.
    "store": {"rules", "physics", "board", "errors", "metrics"},
    # Ranked play (ratings, the queue) is pure: it decides, the server keeps.
    "ranking": {"errors"},
    # Events (formats, pairings, standings) are pure: the rules score a game, nothing more.
    "events": {"rules", "physics", "board", "errors"},
    "web": set(),  # static files, reached over HTTP only
    # The server may use any layer but the command line.
    "server": {
        "events",
        "table",
        "ranking",
        "analysis",
        "ai",
        "rules",
        "physics",
        "board",
        "store",
        "web",
        "errors",
        "metrics",
        ROOT,
    },
    "cli": {
        "server",
        "events",
        "table",
        "ranking",
        "analysis",
        "ai",
        "rules",
        "physics",
        "board",
        "store",
        "web",
        "errors",
        ROOT,
    },
    # The facade `from crokinole import Game, Rules, Shot` is the pure core.
    ROOT: {"ai", "rules", "physics", "board", "errors"},
    "__main__": {"cli"},
}
#: Top-level modules the pure core must never load.
NOT_IN_CORE = {
    "asyncio",
    "sqlalchemy",
    "sqlite3",
    "alembic",
    "starlette",
    "fastapi",
    "uvicorn",
    "websockets",
    "httpx",
    "pymunk",
    "gymnasium",  # the env extra: only crokinole.env's environments load it
    "pettingzoo",
}


@dataclass(frozen=True)
class Import:
    """One project import found in a module."""

    module: str  # the importing module's file, relative to src/crokinole
    line: int
    target: str  # the imported module, dotted, e.g. crokinole.rules.game


def layer_of_path(relative: Path) -> str:
    """The layer a file of the package belongs to."""
    if len(relative.parts) > 1:
        return relative.parts[0]
    return {"__init__.py": ROOT, "__main__.py": "__main__", "errors.py": "errors"}.get(
        relative.name, relative.stem
    )


def layer_of_target(target: str) -> str:
    """The layer of a dotted module name inside the project."""
    parts = target.split(".")
    return ROOT if len(parts) == 1 else parts[1]


def _module_name(relative: Path) -> list[str]:
    parts = ["crokinole", *relative.with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def _is_layer(name: str) -> bool:
    return (SRC / name).is_dir() or (SRC / f"{name}.py").is_file()


def project_imports(path: Path, source: str | None = None) -> list[Import]:
    """Every import of a ``crokinole`` module in ``path`` (relative ones resolved)."""
    relative = path.relative_to(SRC)
    module = _module_name(relative)
    package = module if path.name == "__init__.py" else module[:-1]
    tree = ast.parse(path.read_text() if source is None else source)
    found: list[Import] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            if stem == ROOT:
                # `from crokinole import rules` imports the layer `rules`, but
                # `from crokinole import Game` imports the facade.
                targets = [f"{ROOT}.{a.name}" if _is_layer(a.name) else ROOT for a in node.names]
            else:
                targets = [stem]
        for target in targets:
            if target == ROOT or target.startswith(ROOT + "."):
                found.append(Import(str(relative), node.lineno, target))
    return found


def violations(path: Path, source: str | None = None) -> list[str]:
    """Imports of ``path`` that break the layer table, as readable lines."""
    layer = layer_of_path(path.relative_to(SRC))
    allowed = MAY_IMPORT[layer] | {layer}
    return [
        f"{imp.module}:{imp.line}: {layer} imports {imp.target} ({layer_of_target(imp.target)})"
        for imp in project_imports(path, source)
        if layer_of_target(imp.target) not in allowed
    ]


MODULES = sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)


def test_every_layer_of_the_package_has_a_rule() -> None:
    layers = {layer_of_path(p.relative_to(SRC)) for p in MODULES}
    assert layers - set(MAY_IMPORT) == set()
    # The table is DESIGN.md's: the core layers form a chain.
    assert {"board", "physics", "rules", "ai"} <= layers


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_each_module_imports_only_the_layers_below_it(path: Path) -> None:
    assert violations(path) == []


@pytest.mark.parametrize(
    ("file", "line", "why"),
    [
        ("board/__init__.py", "from crokinole.physics import simulate_shot", "physics"),
        ("board/__init__.py", "from crokinole import Game", ROOT),
        ("physics/simulate.py", "from crokinole.rules import Game", "rules"),
        ("physics/simulate.py", "from ..rules import game", "rules"),
        ("rules/game.py", "import crokinole.ai.players", "ai"),
        ("rules/game.py", "from crokinole import server", "server"),
        ("ai/players.py", "from crokinole.store import Store", "store"),
        ("store/store.py", "from crokinole.ai import Level", "ai"),
        ("store/store.py", "from crokinole.server.protocol import message", "server"),
        ("server/app.py", "from crokinole.cli.main import main", "cli"),
        ("errors.py", "from crokinole.board import Seat", "board"),
        ("__init__.py", "from crokinole.server import create_app", "server"),
        ("web/__init__.py", "from crokinole.rules import Game", "rules"),
        ("table/table.py", "from crokinole.server import hub", "server"),
        ("table/table.py", "from crokinole.store import Store", "store"),
        ("ranking/ratings.py", "from crokinole.store import Store", "store"),
        ("ranking/matchmaking.py", "from crokinole.table import Table", "table"),
    ],
)
def test_a_forbidden_import_is_caught(file: str, line: str, why: str) -> None:
    # The checker itself: a bad import added anywhere in the module, even
    # inside a function, is reported with the layer it reaches.
    found = violations(SRC / file, _with_import(SRC / file, line))
    assert len(found) == 1
    assert found[0].endswith(f"({why})")


def _with_import(path: Path, line: str) -> str:
    """The module's source with ``line`` imported inside a function added at its end."""
    return path.read_text() + f"\n\ndef _added() -> None:\n    {line}\n"


#: The server's parts (DESIGN.md, *Server*; the README's layout), each with the
#: parts it may import.  ``shared`` is the server's own top-level modules
#: (settings, limits, cache, JSON input, accounts, the protocol's envelope, a
#: table read from its log): they import no part.  ``results`` is what the owner
#: writes with a game's last events (``ranked/rated.py``, ``ranked/fair_play.py``);
#: the rest of ``ranked/`` (the queue) seats players at tables the owner makes.
#: ``http`` may use ``ws``'s payloads and views (a replay's shot is a live shot's
#: message); ``ws`` never imports ``http``.  ``events`` (tournaments: their
#: service, routes, live stream and online tables) stands on all of those but
#: ``app``.  ``app`` (with ``background``, its periodic jobs) wires them all.
SERVER_PARTS: dict[str, set[str]] = {
    "shared": set(),
    "cluster": {"shared"},
    "results": {"shared"},
    "owner": {"cluster", "results", "shared"},
    "ranked": {"owner", "cluster", "results", "shared"},
    "ws": {"ranked", "owner", "cluster", "results", "shared"},
    "http": {"ws", "ranked", "owner", "cluster", "results", "shared"},
    "events": {"http", "ws", "ranked", "owner", "cluster", "results", "shared"},
    "app": {"events", "http", "ws", "ranked", "owner", "cluster", "results", "shared"},
}
RESULTS = {"rated", "fair_play"}
SERVER = SRC / "server"


def server_part(parts: tuple[str, ...] | list[str]) -> str:
    """The part of a server module, from its dotted name below ``crokinole.server``."""
    if parts[0] in {"app", "background", "__init__"}:
        return "app"
    if not (SERVER / parts[0]).is_dir():
        return "shared"
    if parts[0] == "ranked" and len(parts) > 1 and parts[1] in RESULTS:
        return "results"
    return parts[0]


def _server_targets(imp: Import, tree: ast.Module) -> list[list[str]]:
    """The server modules an import names: ``from crokinole.server.ranked import rated``
    names ``ranked.rated``, not the package."""
    names = imp.target.split(".")[2:]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and node.lineno == imp.line
            and SERVER.joinpath(*names).is_dir()
        ):
            return [[*names, alias.name] for alias in node.names]
    return [names]


def server_violations(path: Path, source: str | None = None) -> list[str]:
    """Imports of a server module that break :data:`SERVER_PARTS`, as readable lines."""
    relative = path.relative_to(SERVER).with_suffix("").parts
    part = server_part(
        relative if relative[-1] != "__init__" or len(relative) == 1 else relative[:-1]
    )
    allowed = SERVER_PARTS[part] | {part}
    tree = ast.parse(path.read_text() if source is None else source)
    found = []
    for imp in project_imports(path, source):
        if imp.target.split(".")[:2] != ["crokinole", "server"] or imp.target.count(".") < 2:
            continue
        for names in _server_targets(imp, tree):
            target = server_part(names)
            if target not in allowed:
                found.append(f"{imp.module}:{imp.line}: {part} imports {imp.target} ({target})")
    return found


SERVER_MODULES = sorted(SERVER.rglob("*.py"))


def test_every_part_of_the_server_has_a_rule() -> None:
    parts = {server_part(p.relative_to(SERVER).with_suffix("").parts) for p in SERVER_MODULES}
    assert parts == set(SERVER_PARTS)
    assert {p.name for p in SERVER.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "ws",
        "http",
        "owner",
        "cluster",
        "ranked",
        "events",
    }


@pytest.mark.parametrize("path", SERVER_MODULES, ids=lambda p: str(p.relative_to(SERVER)))
def test_each_server_module_imports_only_the_parts_below_it(path: Path) -> None:
    assert server_violations(path) == []


@pytest.mark.parametrize(
    ("file", "line", "why"),
    [
        ("cluster/hub.py", "from crokinole.server.owner.tables import Tables", "owner"),
        ("owner/tables.py", "from crokinole.server.ranked.queue import RankedQueue", "ranked"),
        ("owner/tables.py", "from crokinole.server.ws import session", "ws"),
        ("ranked/queue.py", "from crokinole.server.ws.views import view", "ws"),
        ("ranked/rated.py", "from crokinole.server.owner import tables", "owner"),
        ("ws/session.py", "from crokinole.server.http.accounts import routes", "http"),
        ("cache.py", "from crokinole.server.cluster.hub import MemoryHub", "cluster"),
        ("protocol.py", "from crokinole.server.app import create_app", "app"),
    ],
)
def test_a_forbidden_server_import_is_caught(file: str, line: str, why: str) -> None:
    found = server_violations(SERVER / file, _with_import(SERVER / file, line))
    assert len(found) == 1
    assert found[0].endswith(f"({why})")


def _fresh_modules(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_importing_the_core_pulls_in_no_server_database_or_asyncio() -> None:
    # STYLE.md: the core imports no server, database or asyncio code.
    core = sorted(CORE | ({"analysis"} if (SRC / "analysis").exists() else set()) | {"table"})
    loaded = _fresh_modules("import crokinole\n" + "".join(f"import crokinole.{c}\n" for c in core))
    assert {m.split(".")[0] for m in loaded} & NOT_IN_CORE == set()
    outside = {m for m in loaded if m.startswith("crokinole.")}
    assert {m.split(".")[1] for m in outside} <= CORE | {"analysis", "errors", "table"}


def _uses_pymunk(path: Path) -> bool:
    """Whether a module imports pymunk, by statement or by ``import_module("pymunk")``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "pymunk" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "pymunk":
            return True
        if isinstance(node, ast.Call) and any(
            isinstance(a, ast.Constant) and a.value == "pymunk" for a in node.args
        ):
            return True
    return False


def test_the_package_holds_no_benchmark_and_the_command_loads_none() -> None:
    # The pymunk comparison is a developer's tool in benchmarks/, not library code.
    assert [p for p in MODULES if _uses_pymunk(p)] == []
    loaded = _fresh_modules("import crokinole.cli.main")
    assert not any(m.startswith(("crokinole.bench", "crokinole_benchmark")) for m in loaded)
    assert {m.split(".")[0] for m in loaded} & {"pymunk", "uvicorn", "starlette", "sqlalchemy"} == (
        set()
    )


def _module_graph() -> dict[str, set[str]]:
    """Each module's project imports, as dotted module names (packages resolved to __init__)."""
    graph: dict[str, set[str]] = {}
    names = {".".join(_module_name(p.relative_to(SRC))) for p in MODULES}
    for path in MODULES:
        name = ".".join(_module_name(path.relative_to(SRC)))
        targets = {imp.target for imp in project_imports(path)}
        # `from crokinole.rules.game import Game` names a module; `from
        # crokinole.rules import Game` names the package's __init__.
        graph[name] = {t for t in targets if t in names and t != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_no_two_modules_import_each_other() -> None:
    # A cycle (even one hidden in a function-level import) means a fact lives
    # in two places; e.g. rules.game and rules.record once imported each other.
    # A package's __init__ importing its own modules is not a cycle of facts.
    graph = {
        name: {t for t in targets if not name.startswith(t + ".")}
        for name, targets in _module_graph().items()
    }
    assert _cycle(graph) is None


def test_ranking_is_pure_and_loads_no_other_layer() -> None:
    # Ratings and the queue decide; the server keeps: no store, server or clock here.
    # `import crokinole.ranking` runs the facade first: look at what it adds.
    added = _fresh_modules("import crokinole.ranking") - _fresh_modules("import crokinole")
    assert {m.split(".")[0] for m in added} & NOT_IN_CORE == set()
    assert {m.split(".")[1] for m in added if m.startswith("crokinole.")} == {"ranking"}
    assert "openskill" in {m.split(".")[0] for m in added}
