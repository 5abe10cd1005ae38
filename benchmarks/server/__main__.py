"""``python -m benchmarks.server`` (from the checkout) or ``python benchmarks/server``: run it.

Run as a folder, this file has no package to import its neighbours from, so
it loads the package the way ``crokinole bench server`` does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent

if __package__:
    from . import main

    PROG = f"python -m {__package__}"
else:  # python benchmarks/server
    from crokinole.cli.main import load_benchmark

    main = load_benchmark(FOLDER.name, FOLDER.parent).main
    PROG = f"python {os.path.relpath(FOLDER)}"

raise SystemExit(main(sys.argv[1:], prog=PROG))
