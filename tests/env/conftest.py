"""The environments' tests need the ``env`` extra (gymnasium, pettingzoo); skipped without it."""

from importlib.util import find_spec

collect_ignore_glob = [] if find_spec("gymnasium") and find_spec("pettingzoo") else ["test_*.py"]
