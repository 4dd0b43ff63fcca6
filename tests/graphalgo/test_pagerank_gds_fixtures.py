"""``store.pagerank`` must reproduce Neo4j GDS PageRank to the last digit.

Expected values are the published results of the GDS manual's PageRank examples
(``neo4j/graph-data-science:doc/modules/ROOT/pages/algorithms/page-rank.adoc``), which
run ``gds.pageRank.stream`` on an 8-page web graph. Matching them at 1e-12 pins every
semantic detail (delta form, per-node tolerance, iteration counting, lost dangling mass).
The small cases below are computed by hand in the test.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.errors import InputError
from scholarkg.store.pagerank import pagerank

TOL = 1e-12


def doc_graph() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    index = {name: i for i, name in enumerate(PAGES)}
    src = np.array([index[a] for a, _, _ in LINKS])
    dst = np.array([index[b] for _, b, _ in LINKS])
    weight = np.array([w for _, _, w in LINKS])
    return src, dst, weight


def by_name(scores: np.ndarray) -> dict[str, float]:
    return {name: float(scores[i]) for i, name in enumerate(PAGES)}


def assert_scores(scores: np.ndarray, expected: dict[str, float]) -> None:
    got = by_name(scores)
    assert set(expected) == set(PAGES)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=TOL, rel=0), name


def sites(value: float) -> dict[str, float]:
    return {f"Site {c}": value for c in "ABCD"}


def test_unweighted_stream_example() -> None:
    src, dst, _ = doc_graph()
    scores, ran, converged = pagerank(len(PAGES), src, dst)
    assert_scores(
        scores,
        {
            "Home": 3.215681999884452,
            "About": 1.0542700552146722,
            "Links": 1.0542700552146722,
            "Product": 1.0542700552146722,
            **sites(0.3278578964488539),
        },
    )
    # The manual's mutate/write examples report ranIterations = 20 for this configuration.
    assert (ran, converged) == (20, False)


def test_weighted_example() -> None:
    src, dst, weight = doc_graph()
    scores, ran, _ = pagerank(len(PAGES), src, dst, weight)
    assert_scores(
        scores,
        {
            "Home": 3.53751028396339,
            "Product": 1.9357838291651097,
            "About": 0.7452612763883698,
            "Links": 0.7452612763883698,
            **sites(0.18152677135466103),
        },
    )
    assert ran == 20


def test_tolerance_example_uses_per_node_threshold() -> None:
    src, dst, _ = doc_graph()
    scores, ran, converged = pagerank(len(PAGES), src, dst, tolerance=0.1)
    assert_scores(
        scores,
        {
            "Home": 1.5812450669583336,
            "About": 0.5980194356381945,
            "Links": 0.5980194356381945,
            "Product": 0.5980194356381945,
            **sites(0.23374955154166668),
        },
    )
    assert converged and ran < 20


def test_damping_factor_example() -> None:
    src, dst, _ = doc_graph()
    scores, _, converged = pagerank(len(PAGES), src, dst, damping_factor=0.05)
    assert_scores(
        scores,
        {
            "Home": 1.2487309425844906,
            "About": 0.9708121818724536,
            "Links": 0.9708121818724536,
            "Product": 0.9708121818724536,
            **sites(0.9597081216238426),
        },
    )
    assert converged


def test_personalised_from_site_a() -> None:
    src, dst, _ = doc_graph()
    scores, _, _ = pagerank(len(PAGES), src, dst, source_bias={PAGES.index("Site A"): 1.0})
    assert_scores(
        scores,
        {
            "Home": 0.39902290442518784,
            "Site A": 0.16890325301726694,
            "About": 0.11220151747374331,
            "Links": 0.11220151747374331,
            "Product": 0.11220151747374331,
            "Site B": 0.01890325301726691,
            "Site C": 0.01890325301726691,
            "Site D": 0.01890325301726691,
        },
    )


# --- hand-computed cases --------------------------------------------------------------


def test_dangling_target_loses_mass_and_converges() -> None:
    # a -> b. Superstep 0: r = [.15, .15]; step 1: b += .85 * .15; b is dangling, a gets
    # nothing, so step 2 has no delta left: converged after 2 iterations.
    scores, ran, converged = pagerank(2, np.array([0]), np.array([1]))
    assert scores.tolist() == pytest.approx([0.15, 0.15 + 0.85 * 0.15], abs=TOL)
    assert (ran, converged) == (2, True)
    assert scores.sum() < 2  # mass lost at the dangling node, never redistributed


def test_two_cycle_runs_max_iterations_without_converging() -> None:
    # a <-> b: each superstep k adds .15 * .85**k, so 20 supersteps give 1 - .85**20.
    scores, ran, converged = pagerank(2, np.array([0, 1]), np.array([1, 0]))
    expected = sum(0.15 * 0.85**k for k in range(20))
    assert expected == pytest.approx(1 - 0.85**20, abs=TOL)
    assert scores.tolist() == pytest.approx([expected, expected], abs=TOL)
    assert (ran, converged) == (20, False)


def test_weights_are_shares_of_out_weight() -> None:
    # a -> b (w 3), a -> c (w 1); two supersteps.
    scores, ran, converged = pagerank(
        3, np.array([0, 0]), np.array([1, 2]), np.array([3.0, 1.0]), max_iterations=2
    )
    assert scores.tolist() == pytest.approx(
        [0.15, 0.15 + 0.85 * 0.15 * 0.75, 0.15 + 0.85 * 0.15 * 0.25], abs=TOL
    )
    assert (ran, converged) == (2, False)


def test_parallel_edges_and_self_loops_count() -> None:
    # a -> b twice, a -> a once: b gets 2/3 of a's delta, a gets 1/3 back.
    scores, _, _ = pagerank(2, np.array([0, 0, 0]), np.array([1, 1, 0]), max_iterations=2)
    assert scores.tolist() == pytest.approx(
        [0.15 + 0.85 * 0.15 / 3, 0.15 + 0.85 * 0.15 * 2 / 3], abs=TOL
    )


def test_negative_weights_are_dropped() -> None:
    scores, _, _ = pagerank(
        3, np.array([0, 0]), np.array([1, 2]), np.array([-5.0, 1.0]), max_iterations=2
    )
    assert scores.tolist() == pytest.approx([0.15, 0.15, 0.15 + 0.85 * 0.15], abs=TOL)


def test_zero_out_weight_is_dangling() -> None:
    scores, ran, converged = pagerank(2, np.array([0]), np.array([1]), np.array([0.0]))
    assert scores.tolist() == pytest.approx([0.15, 0.15], abs=TOL)
    assert (ran, converged) == (1, True)


def test_personalised_bias_is_not_normalised() -> None:
    # bias 2 on a, a -> b: r_a = .15 * 2, r_b = .85 * .3; b is dangling -> converged.
    scores, ran, converged = pagerank(2, np.array([0]), np.array([1]), source_bias={0: 2.0})
    assert scores.tolist() == pytest.approx([0.3, 0.85 * 0.3], abs=TOL)
    assert (ran, converged) == (2, True)


def test_damping_zero_and_single_iteration() -> None:
    scores, ran, converged = pagerank(2, np.array([0]), np.array([1]), damping_factor=0.0)
    assert scores.tolist() == [1.0, 1.0]
    assert (ran, converged) == (1, True)
    scores, ran, converged = pagerank(2, np.array([0, 1]), np.array([1, 0]), max_iterations=1)
    assert scores.tolist() == pytest.approx([0.15, 0.15], abs=TOL)
    assert (ran, converged) == (1, False)


def test_isolated_nodes_keep_one_minus_d_and_empty_graph() -> None:
    scores, _, _ = pagerank(3, np.array([0]), np.array([1]))
    assert scores[2] == pytest.approx(0.15, abs=TOL)
    scores, _, _ = pagerank(0, np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert scores.shape == (0,)


def test_tolerance_zero_equals_power_iteration() -> None:
    """With tolerance 0 the delta form is K-1 steps of x <- a*b + d*M*x (§4), checked densely."""
    rng = np.random.default_rng(7)
    n, m = 40, 160
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    weight = rng.random(m)
    out = np.bincount(src, weights=weight, minlength=n)
    dense = np.zeros((n, n))
    for u, v, w in zip(src, dst, weight, strict=True):
        dense[v, u] += w / out[u]
    base = np.full(n, 0.15)
    x = base.copy()
    for _ in range(19):
        x = base + 0.85 * dense @ x
    scores, ran, _ = pagerank(n, src, dst, weight, tolerance=0.0)
    assert ran == 20
    np.testing.assert_allclose(scores, x, rtol=0, atol=1e-12)


def test_networkx_is_not_interchangeable() -> None:
    """networkx normalises to 1 and iterates to convergence: different scale *and* values.

    On a 2-cycle fed by a source node, 20 GDS supersteps are still ~4% away from the
    stationary vector networkx returns, so even rescaling GDS scores to sum 1 disagrees.
    """
    edges = [(0, 1), (1, 0), (2, 1)]
    src = np.array([a for a, _ in edges])
    dst = np.array([b for _, b in edges])
    ours, ran, converged = pagerank(3, src, dst)
    assert (ran, converged) == (20, False)
    theirs = nx.pagerank(nx.DiGraph(edges), alpha=0.85)
    theirs_arr = np.array([theirs[i] for i in range(3)])
    assert theirs_arr.sum() == pytest.approx(1.0)
    assert ours.sum() > 2.5  # unnormalised: about |V| when nothing dangles
    rescaled = ours / ours.sum()
    assert np.max(np.abs(rescaled - theirs_arr) / theirs_arr) > 0.01


# --- input validation -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"src": np.array([0, 5]), "dst": np.array([1, 0])}, "src"),
        ({"src": np.array([0]), "dst": np.array([-1])}, "dst"),
        ({"src": np.array([0, 1]), "dst": np.array([1])}, "dst"),
        ({"src": np.array([0.0]), "dst": np.array([1])}, "src"),
        ({"src": np.array([[0]]), "dst": np.array([1])}, "src"),
        ({"weight": np.array([1.0, 2.0])}, "weight"),
        ({"weight": np.array([np.nan])}, "weight"),
        ({"damping_factor": 1.0}, "damping_factor"),
        ({"damping_factor": -0.1}, "damping_factor"),
        ({"max_iterations": 0}, "max_iterations"),
        ({"max_iterations": 2.5}, "max_iterations"),
        ({"tolerance": -1e-9}, "tolerance"),
        ({"tolerance": float("nan")}, "tolerance"),
        ({"source_bias": {0: -1.0}}, "source_bias"),
        ({"source_bias": {7: 1.0}}, "source_bias"),
        ({"source_bias": {"a": 1.0}}, "source_bias"),
        ({"n_nodes": -1}, "n_nodes"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {"n_nodes": 2, "src": np.array([0]), "dst": np.array([1])} | kwargs
    n, src, dst = args.pop("n_nodes"), args.pop("src"), args.pop("dst")
    weight = args.pop("weight", None)
    with pytest.raises(InputError) as info:
        pagerank(n, src, dst, weight, **args)
    assert info.value.field == field
