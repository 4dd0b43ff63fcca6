"""Benchmark tasks: each family in its own subpackage (``legobench``, ...).

A task turns loaded data (and, for generation tasks, model answers) into metric inputs and
calls the pure functions in ``scholarkg.benchmark.metrics``.
"""
