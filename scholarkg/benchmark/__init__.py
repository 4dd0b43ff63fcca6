"""Benchmarks run on the graph: tasks produce runs, ``metrics`` score them.

``benchmark.metrics`` is pure (numpy on plain data) and imports nothing from ``store``,
``loaders`` or ``services``, so scores can be recomputed from files without a database.
"""
