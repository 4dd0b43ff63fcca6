"""Shared metric rules (``benchmark/metrics/_common.py``), values computed by hand."""

from __future__ import annotations

import math

import pytest

from scholarkg.benchmark.metrics._common import check_paired_lists, mean_defined
from scholarkg.errors import InputError


def test_mean_defined_leaves_undefined_scores_out() -> None:
    # (0.5 + 1.0) / 2: None and NaN are undefined, not zero
    assert mean_defined([0.5, None, math.nan, 1.0]) == pytest.approx(0.75)
    assert mean_defined([0.0, 0.0, 0.3]) == pytest.approx(0.1)
    assert mean_defined([None, math.nan, math.inf]) is None
    assert mean_defined([]) is None


def test_check_paired_lists_names_the_problem() -> None:
    check_paired_lists([["a"]], [["b"]], ids=["p1"])  # well-formed: returns quietly
    with pytest.raises(InputError, match="2 prediction lists but 1 reference lists"):
        check_paired_lists([[], []], [[]])
    with pytest.raises(InputError, match="no papers to score"):
        check_paired_lists([], [])
    with pytest.raises(InputError, match="1 ids for 2 papers") as info:
        check_paired_lists([[], []], [[], []], ids=["p1"])
    assert info.value.field == "ids"
