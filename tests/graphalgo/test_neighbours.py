"""Citation-neighbourhood signals with works left out equal the same signals on a graph built
without those works (and their edges), and each equals its definition counted by hand."""

from __future__ import annotations

import numpy as np
import pytest

from scholarkg.graphalgo import neighbours as nb
from scholarkg.graphalgo.projection import Projection, ProjectionKey
from scholarkg.store.pagerank import personalized_pagerank

KEY = ProjectionKey("embedded", "g", "Paper", ("CITES",))


def _projection(ids: list[str], edges: list[tuple[str, str]]) -> Projection:
    pos = {i: n for n, i in enumerate(ids)}
    src = np.asarray([pos[a] for a, _ in edges], np.int64)
    dst = np.asarray([pos[b] for _, b in edges], np.int64)
    return Projection(KEY, ids, src, dst)


def _random_graph(seed: int, n: int = 60, m: int = 400) -> tuple[list[str], list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    ids = [f"w{i:02d}" for i in range(n)]
    edges = {(ids[a], ids[b]) for a, b in rng.integers(0, n, (m, 2)) if a != b}
    return ids, sorted(edges)


def _named(proj: Projection, scores: dict[int, float]) -> dict[str, float]:
    return {proj.ids[i]: v for i, v in scores.items()}


def _both(seed: int, absent: set[str]) -> tuple[nb.Without, Projection]:
    ids, edges = _random_graph(seed)
    full = _projection(ids, edges)
    smaller = _projection(
        [i for i in ids if i not in absent],
        [(a, b) for a, b in edges if a not in absent and b not in absent],
    )
    return nb.Without.of(full, absent), smaller


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_signal_without_some_works_equals_the_graph_built_without_them(seed: int) -> None:
    absent = {"w03", "w10", "w41"}
    view, smaller = _both(seed, absent)
    full = view.projection
    seed_ids = ["w05", "w07", "w10", "w22"]  # w10 is absent: never a seed
    w_full = {full.index[s]: 1.0 / (n + 1) for n, s in enumerate(seed_ids)}
    w_small = {smaller.index[s]: 1.0 / (n + 1) for n, s in enumerate(seed_ids) if s not in absent}
    bare = nb.Without(smaller)
    for fn in (nb.reference_scores, nb.cocitation_scores, nb.coupling_scores, nb.citer_scores):
        got = _named(full, fn(view, w_full))
        want = _named(smaller, fn(bare, w_small))
        assert got.keys() == want.keys(), fn.__name__
        for k in got:
            assert got[k] == pytest.approx(want[k], abs=1e-12), (fn.__name__, k)
        assert not absent & got.keys()
    nodes = [full.index[i] for i in ("w00", "w05", "w22", "w50")]
    small_nodes = [smaller.index[i] for i in ("w00", "w05", "w22", "w50")]
    assert nb.in_degrees(view, nodes).tolist() == nb.in_degrees(bare, small_nodes).tolist()
    got = _named(full, nb.personalized_scores(view, list(w_full), tolerance=1e-9))
    want = _named(smaller, nb.personalized_scores(bare, list(w_small), tolerance=1e-9))
    assert got.keys() == want.keys()
    for k in got:
        assert got[k] == pytest.approx(want[k], rel=1e-9, abs=1e-15), k


def test_personalized_pagerank_with_an_empty_view_is_the_store_walk() -> None:
    ids, edges = _random_graph(7)
    proj = _projection(ids, edges)
    seeds = [proj.index["w01"], proj.index["w02"]]
    nodes, scores = personalized_pagerank(
        proj.transition("natural"), dict.fromkeys(seeds, 1.0), tolerance=1e-6
    )
    got = nb.personalized_scores(nb.Without(proj), seeds, tolerance=1e-6)
    assert got == {int(n): float(s) for n, s in zip(nodes, scores, strict=True) if s > 0}


def test_each_signal_counted_by_hand() -> None:
    # a -> x, a -> y; b -> x, b -> z; c -> y; s1 -> x; s2 -> y, s2 -> x
    ids = ["a", "b", "c", "s1", "s2", "x", "y", "z"]
    edges = [("a", "x"), ("a", "y"), ("b", "x"), ("b", "z"), ("c", "y"), ("s1", "x"),
             ("s2", "y"), ("s2", "x")]  # fmt: skip
    proj = _projection(ids, edges)
    view = nb.Without(proj)
    i = proj.index
    # seeds x (weight 1) and y (weight 0.5)
    seeds = {i["x"]: 1.0, i["y"]: 0.5}
    # citers: of x: a, b, s1, s2; of y: a, c, s2
    assert _named(proj, nb.citer_scores(view, seeds)) == {
        "a": 1.5, "b": 1.0, "s1": 1.0, "s2": 1.5, "c": 0.5,
    }  # fmt: skip
    # co-citation (q cites seed s and c != s): a: (x,y),(y,x); b: (x,z); s2: (x,y),(y,x)
    assert _named(proj, nb.cocitation_scores(view, seeds)) == {"y": 2.0, "x": 1.0, "z": 1.0}
    assert _named(proj, nb.cocitation_scores(view, seeds, drop_seeds=True)) == {"z": 1.0}
    # references of seeds s1 (1) and s2 (0.25)
    refs = {i["s1"]: 1.0, i["s2"]: 0.25}
    assert _named(proj, nb.reference_scores(view, refs)) == {"x": 1.25, "y": 0.25}
    # coupling of s1: cites x, cited also by a, b, s2; of s2 (0.25): x -> a, b, s1; y -> a, c
    assert _named(proj, nb.coupling_scores(view, refs)) == {
        "a": 1.5, "b": 1.25, "s2": 1.0, "s1": 0.25, "c": 0.25,
    }  # fmt: skip
    # without a: its pairs are gone
    gone = nb.Without.of(proj, ["a"])
    assert _named(proj, nb.cocitation_scores(gone, seeds)) == {"y": 1.0, "x": 0.5, "z": 1.0}
    assert nb.in_degrees(gone, [i["x"], i["y"]]).tolist() == [3.0, 2.0]


def test_a_work_whose_only_reference_leaves_sends_nothing() -> None:
    proj = _projection(["a", "b", "c"], [("a", "b"), ("b", "c")])
    view = nb.Without.of(proj, ["c"])
    matrix = view.transition()
    assert matrix[proj.index["b"]].sum() == 0.0  # b is dangling in the smaller graph
    assert matrix[proj.index["a"], proj.index["b"]] == 1.0
    assert nb.Without.of(proj, ["nope"]).empty
