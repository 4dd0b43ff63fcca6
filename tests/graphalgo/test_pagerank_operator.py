"""The prebuilt transition operator (issue 22): same numbers, built once, no allocation per
superstep.

The operator path must give exactly what building the matrix per call gives, and both must
equal the textbook delta-form loop written out here (the pre-issue-22 implementation), on
graphs with dangling nodes, parallel edges, weights, personalization and early halting.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.errors import InputError
from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.pagerank import pagerank, transition_operator


def allocating_loop(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray | None,
    start: np.ndarray,
    d: float,
    iterations: int,
    tol: float,
) -> tuple[np.ndarray, int, bool]:
    """The delta-form iteration as it was written before the operator existed."""
    w = np.ones(src.shape[0]) if weight is None else weight
    out = np.bincount(src, weights=w, minlength=n)
    share = np.divide(w, out[src], out=np.zeros_like(w), where=out[src] > 0)
    matrix = sp.csr_matrix((share, (dst, src)), shape=(n, n))
    scores, delta = start.copy(), start.copy()
    for step in range(1, iterations):
        delta = d * (matrix @ delta)
        scores += delta
        delta[delta <= tol] = 0.0
        if not delta.any():
            return scores, step, True
    return scores, iterations, False


def random_graph(seed: int, n: int = 3000, m: int = 9000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    # a third of the nodes never cite (dangling), parallel edges and self loops occur
    return rng.integers(0, 2 * n // 3, m), rng.integers(0, n, m)


@pytest.mark.parametrize(
    ("damping", "iterations", "tol", "weighted", "personal"),
    [
        (0.85, 20, 1e-7, False, False),
        (0.85, 20, 1e-3, False, False),  # halts early: converged before max_iterations
        (0.5, 7, 0.0, True, False),
        (0.85, 40, 1e-9, True, True),
        (0.0, 3, 1e-7, False, True),
    ],
)
def test_operator_equals_the_allocating_loop(
    damping: float, iterations: int, tol: float, weighted: bool, personal: bool
) -> None:
    n = 3000
    src, dst = random_graph(seed=int(damping * 100) + iterations)
    rng = np.random.default_rng(1)
    weight = np.asarray(rng.random(len(src))) if weighted else None
    bias = {int(i): float(b) for i, b in zip(rng.integers(0, n, 5), rng.random(5), strict=True)}
    start = np.full(n, 1 - damping)
    if personal:
        start = np.zeros(n)
        for i, b in bias.items():
            start[i] = (1 - damping) * b
    expected = allocating_loop(n, src, dst, weight, start, damping, iterations, tol)

    source_bias = bias if personal else None
    op = transition_operator(n, src, dst, weight)
    fresh = pagerank(
        n, src, dst, weight, damping_factor=damping, max_iterations=iterations,
        tolerance=tol, source_bias=source_bias,
    )  # fmt: skip
    reused = [
        pagerank(
            n,
            src,
            dst,
            operator=op,
            damping_factor=damping,
            max_iterations=iterations,
            tolerance=tol,
            source_bias=source_bias,
        )
        for _ in range(2)
    ]
    for got in (fresh, *reused):
        np.testing.assert_allclose(got[0], expected[0], rtol=0, atol=1e-12)
        assert got[1:] == expected[1:]
    assert np.array_equal(reused[0][0], reused[1][0])  # no state carried between runs
    assert reused[0][0] is not reused[1][0]  # each run hands back its own array
    if tol == 1e-3:
        assert expected[2] and expected[1] < iterations  # the early-halt case is exercised


def test_the_iteration_allocates_nothing_per_superstep() -> None:
    """Peak traced memory does not grow with the number of supersteps: the buffers are made
    once per call (the old loop made four arrays of n entries per superstep)."""
    n = 200_000
    src, dst = random_graph(seed=3, n=n, m=4 * n)
    op = transition_operator(n, src, dst)
    pagerank(n, src, dst, operator=op, max_iterations=2)  # the operator's damped values, once

    def peak(iterations: int) -> int:
        tracemalloc.start()
        pagerank(n, src, dst, operator=op, max_iterations=iterations, tolerance=0.0)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    few, many = peak(2), peak(30)
    assert many - few < n  # far below one float64 vector (8n bytes)
    assert few < 5 * 8 * n  # start, scores, delta, received, halted: a handful of vectors


def test_operator_size_mismatch_is_an_input_error() -> None:
    op = transition_operator(3, np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(InputError) as err:
        pagerank(4, np.array([0]), np.array([1]), operator=op)
    assert err.value.field == "operator"


def test_projection_builds_its_operator_once_and_keeps_gds_numbers(
    store: GraphStore, tmp_path: Path
) -> None:
    store.merge_nodes("Paper", [{"id": p} for p in PAGES])
    store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b, _ in LINKS]
    )
    catalog = ProjectionCatalog(tmp_path)
    proj = catalog.get(store)
    first = proj.pagerank_array()
    op = proj.operator()
    again = catalog.get(store)  # warm: the same projection, so the same operator
    assert again is proj and again.operator() is op
    assert np.array_equal(again.pagerank_array(), first)
    # GDS manual (page-rank.adoc), unweighted stream example: Home 3.215681999884452
    assert first[proj.index["Home"]] == pytest.approx(3.215681999884452, abs=1e-12)
    ppr = again.pagerank(PageRankConfig(source_nodes={"Site A": 1.0})).scores
    assert ppr["Home"] == pytest.approx(0.39902290442518784, abs=1e-12)
