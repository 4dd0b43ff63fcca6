"""A small synthetic SciReplicate-Bench (our own made-up papers and code, released format)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarkg.synthetic.scireplicate import generate, write_benchmark


@pytest.fixture(scope="session")
def synthetic_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``Data.json`` (3 papers, 8 tasks) with ``papers/`` and ``repos/`` beside it."""
    out = tmp_path_factory.mktemp("scirep")
    return write_benchmark(out, generate(3, 8, seed=11), seed=11)
