"""scholarkg: the scholarly record in a graph database, with benchmarks run on it."""

__version__ = "0.1.0"
__all__ = ["__version__"]
