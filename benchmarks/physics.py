"""Physics benchmark: ``python benchmarks/physics.py [--shots N] [--batch N] ...``.

The same as ``crokinole bench physics``; see ``--help`` for the options.
"""

import sys

from crokinole.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main(["bench", "physics", *sys.argv[1:]]))
