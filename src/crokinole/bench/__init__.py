"""Benchmarks of the crokinole library (run them with ``crokinole bench ...``)."""
