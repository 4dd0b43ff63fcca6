"""The lists that move tests to the marked tier (``tests/_tiers.py``) name tests that exist:
an entry whose test was renamed or removed would leave its replacement in the default suite
unnoticed, and the 5-minute budget with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _tiers import MARKED_TIER_TESTS, NEO4J_RUNS_IN_MARKED_TIER

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def test_each_module_moved_to_the_marked_tier_exists() -> None:
    missing = sorted(m for m in NEO4J_RUNS_IN_MARKED_TIER if not (ROOT / m).is_file())
    assert missing == []


def test_each_single_test_moved_to_the_marked_tier_is_defined_where_it_says() -> None:
    """Each entry ``path::name[params]``: the file exists and defines ``name``; a
    parametrized entry's ids are not checked (pytest makes them)."""
    missing = []
    for nodeid in sorted(MARKED_TIER_TESTS):
        path, _, name = nodeid.partition("::")
        function = name.split("[", 1)[0]
        file = ROOT / path
        if not file.is_file() or not re.search(
            rf"^\s*(?:async\s+)?def {re.escape(function)}\(",
            file.read_text(encoding="utf-8"),
            re.MULTILINE,
        ):
            missing.append(nodeid)
    assert missing == []
