"""Test configuration shared by every suite.

In CI (``CI`` set) hypothesis runs derandomized, so a run is repeatable and
a submission cannot fail on an example no earlier run met; locally it
explores new examples every time.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
