"""The ``crokinole`` command: ``serve``, ``db``, ``match``, ``calibrate``, ``review`` and ``bench``.

Run ``crokinole --help`` (or ``python -m crokinole --help``) for the commands.
Bad options are reported by argparse with exit status 2; a finished run
returns 0.

Starting the command loads no server, database or benchmark code: ``serve``
imports the server when it runs, and ``bench physics`` runs the script
``benchmarks/physics.py`` of the checkout (or a package of
``benchmarks/``, such as ``benchmarks/server/``) (benchmarks are developers' tools,
kept out of the installed package).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

from crokinole.cli import ai_commands, analysis_commands, db, serve
from crokinole.cli.arguments import command_group, count_argument

Handler = Callable[[argparse.Namespace], int]

#: Benchmarks that ``crokinole bench NAME`` runs: ``benchmarks/NAME.py`` of the checkout.
BENCHMARKS = {
    "physics": "simulator throughput against pymunk, and pymunk's accuracy",
    "cpu_fouls": "how often each CPU level means (and plays) a foul where a valid hit exists",
    "server": "bot clients play N concurrent online parties on one server process "
    "(or, with --processes 1 2, on clusters on PostgreSQL and Redis): "
    "shot-to-broadcast latency, errors, memory per game, games held",
    "flood": "N parties play while one client floods the server with pings it never reads: "
    "the other games' p99 shot-to-broadcast quiet and flooded, and their ratio",
    "analysis_load": "a CPU Expert's reply p99 quiet and while two long game reviews are "
    "computed on the same server, and their ratio",
    "analysis": "hint p50/p95 on crowded boards, aim heat-map time and the review of a "
    "64-shot game, on one core, against their targets",
    "login": "failed logins for unknown and known usernames: median times and their ratio "
    "(the same work either way)",
    "cpu": "CPU Hard's, Expert's and Master's decision time (p50/p95, CPU seconds) on crowded "
    "boards (12-disc singles, 20-disc doubles, 22-disc singles at the round's second-to-last "
    "shot; many seeds) against their targets",
    "events_pairing": "Swiss pairing per round (128 and 512 players, 7 rounds of random "
    "results: CPU ms, rematches, byes) and rotating doubles' repeats (16 players, 7 rounds)",
    "env": "the vector environment's env steps a second (1,024 boards, one core) against the "
    "target; `bench env baselines`: Random, CPU Easy and CPU Expert returns on each task",
    "compile": "CPU time of a cold numba compile (fresh process, empty cache): the first "
    "shot and the server's warm-up, against the target",
}


def benchmark_script(name: str, folder: Path | None = None) -> Path | None:
    """The benchmark ``NAME`` of the checkout: ``benchmarks/NAME.py``, or the package
    ``benchmarks/NAME/`` (its ``__init__.py``); None if absent.

    An editable install (``make``) runs the package from ``src/crokinole`` of
    the checkout, beside ``benchmarks/`` (or ``folder`` when given); an
    installed wheel has no benchmarks.
    """
    folder = folder or Path(__file__).resolve().parents[3] / "benchmarks"
    for path in (folder / f"{name}.py", folder / name / "__init__.py"):
        if path.is_file():
            return path
    return None


def load_benchmark(name: str, folder: Path | None = None) -> ModuleType:
    """The benchmark ``NAME`` loaded as the module ``crokinole_benchmark_NAME`` (once).

    Benchmarks are not part of the installed package, so they are loaded from
    their files; a package's modules import each other relatively, under that name.
    The other benchmarks reuse the server benchmark's machinery this way.

    Raises:
        FileNotFoundError: the checkout has no such benchmark.
    """
    module_name = f"crokinole_benchmark_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    path = benchmark_script(name, folder)
    if path is None:
        raise FileNotFoundError(f"no benchmark {name} in {folder or 'the checkout'}")
    search = [str(path.parent)] if path.name == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(
        module_name, path, submodule_search_locations=search
    )
    assert spec is not None and spec.loader is not None  # a .py file always has both
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while it loads
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    return module


def run_benchmark(name: str, argv: Sequence[str]) -> int:
    """Run the benchmark ``NAME`` with ``argv``, as ``crokinole bench NAME``."""
    try:
        module = load_benchmark(name)
    except FileNotFoundError:
        print(
            f"crokinole: the {name} benchmark is not part of the installed package; "
            f"run `python benchmarks/{name}.py` in a checkout of the project",
            file=sys.stderr,
        )
        return 2
    status: int = module.main(list(argv), prog=f"crokinole bench {name}")
    return status


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``crokinole`` command."""
    parser = argparse.ArgumentParser(
        prog="crokinole",
        description="Crokinole: rules engine, disc-physics simulator and tools.",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    benchmarks = command_group(
        commands,
        "bench",
        about="run a benchmark",
        description="Run a benchmark and print its figures.",
        title="benchmarks",
        metavar="BENCHMARK",
    )
    for name, about in BENCHMARKS.items():
        # Listed for --help only: main() hands `bench NAME ...` to the script,
        # which owns its options.
        benchmarks.add_parser(name, help=about, add_help=False)
    ai_commands.add_commands(commands, count_argument)
    analysis_commands.add_commands(commands, count_argument)
    serve.add_command(commands)
    db.add_command(commands)
    parser.set_defaults(help_parser=parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``crokinole`` command and return its exit status.

    Args:
        argv: the arguments after the program name (``sys.argv[1:]`` when None).

    Returns:
        0 on success (also after printing help for a missing command), 130 when
        interrupted.  Bad arguments make argparse exit with status 2.
    """
    words = sys.argv[1:] if argv is None else list(argv)
    try:
        if len(words) >= 2 and words[0] == "bench" and words[1] in BENCHMARKS:
            return run_benchmark(words[1], words[2:])
        args = build_parser().parse_args(words)
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:
            # No (sub)command: show the help of the level that was reached.
            help_parser: argparse.ArgumentParser = args.help_parser
            help_parser.print_help()
            return 0
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
