"""``crokinole bench env``: the vector env's speed; ``crokinole bench env baselines``: baselines.

``crokinole bench env [OPTIONS]`` runs ``benchmarks/env_speed.py`` and
``crokinole bench env baselines [OPTIONS]`` runs ``benchmarks/env_baselines.py``;
each takes ``--help``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from crokinole.cli.main import load_benchmark


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the speed benchmark, or the baselines when the first word is ``baselines``."""
    words = list(sys.argv[1:] if argv is None else argv)
    name = prog or "crokinole bench env"
    if words[:1] == ["baselines"]:
        status: int = load_benchmark("env_baselines").main(words[1:], prog=f"{name} baselines")
        return status
    status = load_benchmark("env_speed").main(words, prog=name)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
