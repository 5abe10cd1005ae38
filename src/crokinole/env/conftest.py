"""Doctest collection of this package without the ``env`` extra: skip what needs it.

``pytest --doctest-modules`` imports every module under ``src/crokinole``;
the environments import gymnasium (or pettingzoo), which the default install
lacks, so their modules are left out where it is missing.
"""

from importlib.util import find_spec

collect_ignore = [
    name
    for name, needs in (
        ("single.py", "gymnasium"),
        ("vector.py", "gymnasium"),
        ("aec.py", "pettingzoo"),
    )
    if find_spec(needs) is None
]
