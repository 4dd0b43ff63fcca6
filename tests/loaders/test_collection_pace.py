"""``fewer_collections``: raised thresholds inside a load, the caller's restored after it;
``paused_collections``: the collector off inside (identity resolution of a chunk), its state
restored after; inside a load, a resolved chunk's survivors frozen until the load ends."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from scholarkg.loaders import collection_pace
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


class _Cycle:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self
        self.rows: list[list[int]] = []


def test_a_load_freezes_a_resolved_chunks_survivors_and_hands_them_back_at_its_end() -> None:
    assert gc.get_freeze_count() == 0
    with fewer_collections():
        with paused_collections():  # a chunk's resolution
            survivors = [[i] for i in range(1_000)]
            garbage = weakref.ref(_Cycle())  # cyclic garbage made while resolving
        frozen = gc.get_freeze_count()
        assert frozen >= len(survivors)  # out of every generation: no collection walks them
        gc.collect()
        assert garbage() is not None  # frozen: kept until the load ends
        del survivors  # still freed by reference counting while frozen
        assert gc.get_freeze_count() < frozen
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert garbage() is None  # handed back to the collector when the load ended


def test_frozen_cycles_are_collected_once_the_load_has_grown_by_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Cyclic garbage holding many blocks (as the Neo4j driver's results held their rows) is
    not kept until the load ends: the chunk after which the interpreter holds
    ``BLOCKS_GROWTH`` more blocks collects everything, frozen included, before freezing."""
    monkeypatch.setattr(collection_pace, "BLOCKS_GROWTH", 50_000)
    monkeypatch.setattr(collection_pace, "BLOCKS_GROWTH_SHARE", 0.0)
    with fewer_collections():
        with paused_collections():  # a chunk that makes a little cyclic garbage
            small = weakref.ref(_Cycle())
        assert small() is not None  # frozen: under the bound
        with paused_collections():  # one that makes a cycle holding 100,000 blocks
            cycle = _Cycle()
            cycle.rows = [[i] for i in range(100_000)]
            big = weakref.ref(cycle)
            del cycle
            survivors = [[i] for i in range(1_000)]
        assert big() is None and small() is None  # collected before the freeze
        assert gc.get_freeze_count() >= len(survivors)  # and what is alive frozen
        with paused_collections():  # the bound counts from that collection
            later = weakref.ref(_Cycle())
        assert later() is not None
    gc.collect()
    assert later() is None


def test_the_frozen_chunks_are_handed_back_when_a_load_fails() -> None:
    with pytest.raises(RuntimeError), fewer_collections():
        with paused_collections():
            keep = [[i] for i in range(100)]
        assert gc.get_freeze_count() > 0
        raise RuntimeError("a load failed")
    assert gc.get_freeze_count() == 0
    assert len(keep) == 100


def test_a_callers_own_frozen_objects_stay_frozen_and_nothing_is_added() -> None:
    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        with fewer_collections():
            with paused_collections():
                keep = [[i] for i in range(100)]
            assert gc.get_freeze_count() <= mine  # the load froze nothing
        assert 0 < gc.get_freeze_count() <= mine  # and unfroze nothing of the caller's
    finally:
        gc.unfreeze()
    assert len(keep) == 100


def test_resolution_outside_a_load_freezes_nothing() -> None:
    with paused_collections():
        keep = [[i] for i in range(100)]
    assert gc.get_freeze_count() == 0
    assert len(keep) == 100
