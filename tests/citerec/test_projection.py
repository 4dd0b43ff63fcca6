"""Resident projections: sparse PPR = GDS-semantics PPR; the catalogue's memory/disk/validity."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.pagerank import pagerank, personalized_pagerank


def _matrix(n: int, src: np.ndarray, dst: np.ndarray) -> Any:
    import scipy.sparse as sp

    adj = sp.csr_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    out = np.asarray(adj.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
    return sp.csr_matrix(sp.diags(inv) @ adj)


def test_personalized_pagerank_reproduces_the_gds_manual_example() -> None:
    pos = {p: i for i, p in enumerate(PAGES)}
    src = np.array([pos[a] for a, _, _ in LINKS])
    dst = np.array([pos[b] for _, b, _ in LINKS])
    nodes, scores = personalized_pagerank(_matrix(len(PAGES), src, dst), {pos["Site A"]: 1.0})
    got = dict(zip((PAGES[i] for i in nodes), scores, strict=True))
    # the Neo4j GDS manual, PageRank: GDS PPR from Site A
    assert got["Home"] == pytest.approx(0.39902290442518784, abs=1e-12)
    assert got["Site A"] == pytest.approx(0.16890325301726694, abs=1e-12)
    assert got["Site B"] == pytest.approx(0.01890325301726691, abs=1e-12)


@pytest.mark.parametrize("tolerance", [1e-7, 1e-4, 0.0])
def test_personalized_pagerank_equals_dense_pagerank(tolerance: float) -> None:
    rng = np.random.default_rng(7)
    n, m = 300, 1500
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    bias = {3: 1.0, 17: 0.5, 200: 2.0}
    dense, _, _ = pagerank(n, src, dst, source_bias=bias, tolerance=tolerance)
    nodes, scores = personalized_pagerank(_matrix(n, src, dst), bias, tolerance=tolerance)
    full = np.zeros(n)
    full[nodes] = scores
    assert np.allclose(full, dense, rtol=0, atol=1e-12)


def test_exclude_blocks_every_path_through_a_node() -> None:
    # a -> p -> g and a -> x: excluding p, g gets nothing from a
    src, dst = np.array([0, 1, 0]), np.array([1, 2, 3])
    nodes, scores = personalized_pagerank(_matrix(4, src, dst), {0: 1.0}, exclude=[1])
    got = dict(zip(nodes.tolist(), scores.tolist(), strict=True))
    assert 2 not in got and 1 not in got and got[3] > 0


def _graph(store: FalkorDBStore, edges: list[tuple[str, str]]) -> None:
    ids = sorted({x for e in edges for x in e} | {"iso"})
    store.merge_nodes("Paper", [{"id": i} for i in ids])
    store.merge_relationships("CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b in edges])


def test_catalog_memory_disk_and_invalidation(
    store: FalkorDBStore, tmp_path: Path, embedded_server: EmbeddedServer
) -> None:
    _graph(store, [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")])
    catalog = ProjectionCatalog(tmp_path)
    proj = catalog.get(store)
    assert catalog.last_source == "built"
    assert (proj.n_nodes, proj.n_edges) == (5, 4)
    result = proj.pagerank()
    expected = store.pagerank("Paper", "CITES")
    assert result.scores == pytest.approx(expected.scores, abs=1e-12)
    assert catalog.get(store) is proj and catalog.last_source == "memory"

    fresh = ProjectionCatalog(tmp_path)  # a new process: from disk, no edge pull
    again = fresh.get(store)
    assert fresh.last_source == "disk" and again.ids == proj.ids
    assert np.array_equal(again.src, proj.src) and np.array_equal(again.dst, proj.dst)
    assert fresh.get(store) is again and fresh.last_source == "memory"  # read once, then kept

    # a write elsewhere on the server moves the fingerprint; the checksum says: unchanged
    other = FalkorDBStore(embedded_server.connect(), store.graph + "_other")
    try:
        other.merge_nodes("Paper", [{"id": "zzz"}])
        assert catalog.get(store) is proj and catalog.last_source == "memory-revalidated"
    finally:
        other.clear()
        other.close()

    store.merge_relationships("CITES", "Paper", "Paper", [{"start": "iso", "end": "a"}])
    changed = catalog.get(store)
    assert catalog.last_source == "built" and changed.n_edges == 5
    assert ProjectionCatalog(tmp_path).get(store).n_edges == 5  # the disk copy was replaced


def test_checksum_sees_swapped_edges_and_a_reused_internal_id(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """Changes that keep every count and id sum equal are still changes."""
    from scholarkg.graphalgo.projection import ProjectionKey, _checksum

    _graph(store, [("a", "b"), ("c", "d")])
    key = ProjectionKey.of(store, "Paper", ("CITES",))
    before = _checksum(store, key)
    store.run("MATCH (:Paper {id: 'a'})-[r:CITES]->(:Paper {id: 'b'}) DELETE r")
    store.run("MATCH (:Paper {id: 'c'})-[r:CITES]->(:Paper {id: 'd'}) DELETE r")
    store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": "a", "end": "d"}, {"start": "c", "end": "b"}]
    )
    swapped = _checksum(store, key)
    assert (
        swapped != before
        and swapped.split("|")[1].split(":")[1:4] == before.split("|")[1].split(":")[1:4]
    )  # same count and endpoint sums: only the mix tells
    store.run("MATCH (n:Paper {id: 'iso'}) DELETE n")
    store.merge_nodes("Paper", [{"id": "isolated"}])  # FalkorDB reuses the internal id
    assert _checksum(store, key) != swapped
