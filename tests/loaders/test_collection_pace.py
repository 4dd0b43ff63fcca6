"""``fewer_collections``: raised thresholds inside a load, the caller's restored after it;
``paused_collections``: the collector off inside (identity resolution of a chunk), its state
restored after."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from scholarkg.loaders.collection_pace import (
    LOAD_THRESHOLDS,
    fewer_collections,
    paused_collections,
)


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


def test_paused_collections_turn_the_collector_off_and_restore_it_even_on_an_error() -> None:
    assert gc.isenabled()
    before = gc.get_stats()[0]["collections"]
    with paused_collections():
        assert not gc.isenabled()
        keep = [[i] for i in range(3 * 700)]  # past the default young threshold
        assert gc.get_stats()[0]["collections"] == before
        with paused_collections():  # nested: still off, and the outer one re-enables
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    assert len(keep) == 3 * 700
    with pytest.raises(RuntimeError), paused_collections():
        raise RuntimeError("a chunk failed")
    assert gc.isenabled()


def test_paused_collections_leave_a_callers_disabled_collector_off() -> None:
    gc.disable()
    try:
        with paused_collections():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
