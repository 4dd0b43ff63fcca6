"""``fewer_collections``: raised thresholds inside a load, the caller's restored after it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from scholarkg.loaders.collection_pace import LOAD_THRESHOLDS, fewer_collections


@pytest.fixture
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("default_thresholds")
def test_thresholds_are_raised_inside_and_restored_after_even_on_an_error() -> None:
    with fewer_collections():
        assert gc.get_threshold() == LOAD_THRESHOLDS
        with fewer_collections():  # nested: the outer one's stay
            assert gc.get_threshold() == LOAD_THRESHOLDS
        assert gc.get_threshold() == LOAD_THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("a load failed")
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.usefixtures("default_thresholds")
def test_a_callers_higher_thresholds_are_kept() -> None:
    gc.set_threshold(1_000_000, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (1_000_000, 10, 10)
    assert gc.get_threshold() == (1_000_000, 10, 10)


@pytest.mark.usefixtures("default_thresholds")
def test_the_collector_still_runs_inside() -> None:
    before = gc.get_stats()[0]["collections"]
    with fewer_collections():
        keep = [[i] for i in range(3 * LOAD_THRESHOLDS[0])]
    assert gc.get_stats()[0]["collections"] > before
    assert len(keep) == 3 * LOAD_THRESHOLDS[0]
