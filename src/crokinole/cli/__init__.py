"""The ``crokinole`` command line (see :func:`crokinole.cli.main.main`)."""
