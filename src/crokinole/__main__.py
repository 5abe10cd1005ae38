"""``python -m crokinole``: the same as the ``crokinole`` command."""

from crokinole.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
