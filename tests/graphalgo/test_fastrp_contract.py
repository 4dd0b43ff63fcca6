"""FastRP embeddings on both backends (``any_store``): stored, indexed, and queried by
``graph similar``'s path, which returns exactly k rows.

* a planted two-community graph: the nearest neighbours of a node are in its community
  (>= 90 %) on the embedded store (numpy FastRP) and on Neo4j (``gds.fastRP.write``);
* on Neo4j, the numpy FastRP given GDS's node ids equals ``gds.fastRP.stream`` (same random
  vectors, same propagation), for the defaults and for a configuration using every option.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scholarkg.errors import InputError
from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp
from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.services.graph_embeddings import (
    embed_graph,
    estimate_embedding,
    fastrp_index,
    similar,
)
from scholarkg.store.base import GraphStore

SIZE = 60  # nodes per community


def _planted(store: GraphStore, seed: int = 11) -> dict[str, int]:
    """Two communities of SIZE papers: citations inside one with p = 0.15, across p = 0.005."""
    rng = np.random.default_rng(seed)
    n = 2 * SIZE
    community = {f"c{i:03d}": i // SIZE for i in range(n)}
    ids = list(community)
    edges = []
    for a in range(n):
        for b in range(n):
            if a == b:
                continue
            p = 0.15 if a // SIZE == b // SIZE else 0.005
            if rng.random() < p:
                edges.append({"start": ids[a], "end": ids[b]})
    store.merge_nodes("Paper", [{"id": i, "title": f"paper {i}"} for i in ids])
    store.merge_relationships("CITES", "Paper", "Paper", edges)
    return community


def test_planted_communities_nearest_neighbours(any_store: GraphStore, tmp_path: Path) -> None:
    community = _planted(any_store)
    cfg = FastRPConfig(embedding_dimension=64, random_seed=5)
    report = embed_graph(any_store, "Paper", ("CITES",), cfg, catalog=ProjectionCatalog(tmp_path))
    uses_gds = any_store.backend == "neo4j" and "gds" in any_store.capabilities
    assert report.engine == ("gds" if uses_gds else "numpy")
    assert report.node_count == 2 * SIZE and report.written == 2 * SIZE
    assert report.compute_millis >= 0 and report.property == "fastrp_64"

    same = total = 0
    for node in list(community)[::6]:  # 20 nodes, both communities
        rows = similar(any_store, node, dimension=64, k=10)
        assert len(rows) == 10  # exactly k records came back
        assert node not in {r["id"] for r in rows}
        assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
        assert all(0.0 <= r["score"] <= 1.0 for r in rows)
        same += sum(community[r["id"]] == community[node] for r in rows)
        total += len(rows)
    assert same / total >= 0.9, f"only {same}/{total} neighbours in the node's community"

    with pytest.raises(InputError, match="no Paper node"):
        similar(any_store, "nope", dimension=64, k=3)
    with pytest.raises(InputError, match="graph embed"):
        similar(any_store, "c000", dimension=32, k=3)  # no 32-dimensional vectors stored


def test_numpy_fastrp_equals_gds(neo4j_store: GraphStore) -> None:
    if "gds" not in neo4j_store.capabilities:
        pytest.skip("this Neo4j has no GDS")
    _planted(neo4j_store, seed=3)
    name = "scholarkg_test_fastrp"
    neo4j_store.run(
        "CALL gds.graph.project($g, 'Paper', {CITES: {orientation: 'UNDIRECTED'}})", {"g": name}
    )
    try:
        edges = neo4j_store.run(
            "MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN id(a) AS a, id(b) AS b ORDER BY a, b"
        )
        configs = [
            FastRPConfig(embedding_dimension=32),
            FastRPConfig(
                embedding_dimension=24,
                iteration_weights=(0.3, 1.0, 0.0, 2.0),
                normalization_strength=-0.4,
                node_self_influence=0.6,
                random_seed=-987654321,
            ),
        ]
        for cfg in configs:
            # gds.fastRP.write, the procedure the product calls (the managed server loads
            # only those: stream is not on its allow-list), then the written vectors read back
            neo4j_store.run(
                "CALL gds.fastRP.write($g, $c) YIELD nodePropertiesWritten RETURN 1",
                {"g": name, "c": {**cfg.gds(), "writeProperty": "fastrp_contract"}},
            )
            rows = neo4j_store.run(
                "MATCH (n:Paper) RETURN id(n) AS nodeId, n.fastrp_contract AS embedding "
                "ORDER BY nodeId"
            )
            node_ids = np.array([r["nodeId"] for r in rows], np.int64)
            pos = {int(v): i for i, v in enumerate(node_ids)}
            src = np.array([pos[r["a"]] for r in edges])
            dst = np.array([pos[r["b"]] for r in edges])
            ours = fastrp(len(node_ids), src, dst, cfg, keys=node_ids.astype(np.uint64))
            theirs = np.array([r["embedding"] for r in rows], np.float32)
            np.testing.assert_allclose(ours.embeddings, theirs, atol=2e-6, rtol=1e-5)
    finally:
        neo4j_store.run("CALL gds.graph.drop($g, false) YIELD graphName RETURN 1", {"g": name})


def test_gds_estimate_and_index(neo4j_store: GraphStore) -> None:
    if "gds" not in neo4j_store.capabilities:
        pytest.skip("this Neo4j has no GDS")
    _planted(neo4j_store, seed=4)
    est = estimate_embedding(neo4j_store, config=FastRPConfig(embedding_dimension=16))
    assert est["nodeCount"] == 2 * SIZE and est["bytesMax"] >= est["bytesMin"] > 0
    embed_graph(neo4j_store, config=FastRPConfig(embedding_dimension=16))
    names = {r["name"] for r in neo4j_store.run("SHOW VECTOR INDEXES YIELD name RETURN name")}
    assert fastrp_index("Paper", 16).name in names
    left = neo4j_store.run(
        "CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'scholarkg_fastrp_' "
        "RETURN graphName"
    )
    assert left == []  # the run's projection is dropped
