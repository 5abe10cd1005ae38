"""The ``crokinole`` command: ``crokinole bench physics [options]``.

Run ``crokinole --help`` (or ``python -m crokinole --help``) for the commands.
Bad options are reported by argparse with exit status 2; a finished run
returns 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from rich.console import Console

from crokinole.bench import physics
from crokinole.cli import ai_commands, serve

Handler = Callable[[argparse.Namespace], int]


def _count(least: int) -> Callable[[str], int]:
    """An argparse type: an integer at least ``least``, with a plain-words error."""
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(
        least, f"an integer >= {least}"
    )

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def _bench_physics(args: argparse.Namespace) -> int:
    console = Console()
    start = time.perf_counter()
    figures = physics.run_physics_bench(
        args.shots,
        args.batch,
        args.repeats,
        args.seed,
        console,
        pymunk_shots=args.pymunk_shots,
        pymunk_repeats=args.pymunk_repeats,
        accuracy_shots=args.accuracy_shots,
    )
    physics.print_physics_report(figures, console)
    console.print(f"benchmark ran in {time.perf_counter() - start:.1f} s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``crokinole`` command."""
    parser = argparse.ArgumentParser(
        prog="crokinole",
        description="Crokinole: rules engine, disc-physics simulator and tools.",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    bench = commands.add_parser(
        "bench",
        help="run a benchmark",
        description="Run a benchmark and print its figures.",
    )
    bench.set_defaults(help_parser=bench)
    benchmarks = bench.add_subparsers(title="benchmarks", metavar="BENCHMARK")

    phys = benchmarks.add_parser(
        "physics",
        help="simulator throughput against pymunk, and pymunk's accuracy",
        description=(
            "Measure the physics simulator on boards with 0, 6 and 14 discs in play: "
            "simulate_shot in a Python loop, simulate_batch, and pymunk stepping at "
            "1/600 s on the same shots (pymunk is in the 'bench' extra). Then compare "
            "pymunk at 1/600 s and 1/6000 s with the exact simulator on fast shots."
        ),
    )
    phys.add_argument(
        "--shots",
        type=_count(1),
        default=physics.DEFAULT_SHOTS,
        metavar="N",
        help="shots per timed run of the simulate_shot loop (default: %(default)s)",
    )
    phys.add_argument(
        "--batch",
        type=_count(1),
        default=physics.DEFAULT_BATCH,
        metavar="N",
        help="shots in each timed simulate_batch call (default: %(default)s)",
    )
    phys.add_argument(
        "--repeats",
        type=_count(1),
        default=physics.DEFAULT_REPEATS,
        metavar="N",
        help="timed runs of each mode; the median is reported (default: %(default)s)",
    )
    phys.add_argument(
        "--pymunk-shots",
        type=_count(0),
        default=physics.DEFAULT_PYMUNK_SHOTS,
        metavar="N",
        help=(
            "shots per timed pymunk run, the first of the same shots; 0 skips pymunk "
            "(default: %(default)s)"
        ),
    )
    phys.add_argument(
        "--pymunk-repeats",
        type=_count(1),
        default=None,
        metavar="N",
        help="timed pymunk runs; the median is reported (default: the value of --repeats)",
    )
    phys.add_argument(
        "--accuracy-shots",
        type=_count(0),
        default=physics.DEFAULT_ACCURACY_SHOTS,
        metavar="N",
        help=(
            "fast shots (power >= 70%%) of the 6-disc board in the accuracy section; "
            "0 skips it (default: %(default)s)"
        ),
    )
    phys.add_argument(
        "--seed",
        type=_count(0),
        default=physics.DEFAULT_SEED,
        metavar="N",
        help="seed of the random generator behind the discs and the shots (default: %(default)s)",
    )
    phys.set_defaults(handler=_bench_physics)
    ai_commands.add_commands(commands, _count)
    serve.add_command(commands, _count)
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
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else list(argv))
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        # No (sub)command: show the help of the level that was reached.
        help_parser: argparse.ArgumentParser = args.help_parser
        help_parser.print_help()
        return 0
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
