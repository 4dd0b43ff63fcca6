"""Tests against a real Neo4j 5.26 + GDS server: the managed one the test session starts
(``neo4j_env`` in conftest.py), or the server at ``NEO4J_URI`` (e.g. ``docker compose up``).

They clear the target database (use a throw-away one). The cross-backend contract suite
(``tests/store/test_contract.py``) runs against Neo4j under the same condition.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.config import Neo4jSettings, load_settings
from scholarkg.store import transfer
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.pagerank import pagerank

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("neo4j_env")]


def _load_doc_graph(st: GraphStore) -> None:
    st.merge_nodes("Paper", [{"id": p, "title": p} for p in [*PAGES, "Lonely"]])
    st.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": a, "end": b, "w": w} for a, b, w in LINKS]
    )


@pytest.mark.parametrize(
    ("weighted", "config"),
    [
        (False, PageRankConfig()),
        (True, PageRankConfig()),
        (False, PageRankConfig(tolerance=0.1)),
        (False, PageRankConfig(damping_factor=0.05)),
        (False, PageRankConfig(source_nodes={"Site A": 1.0})),
        (True, PageRankConfig(source_nodes={"Site A": 2.0, "Links": 0.5})),
    ],
)
def test_gds_pagerank_equals_graphalgo(
    neo4j_store: GraphStore, weighted: bool, config: PageRankConfig
) -> None:
    if "gds" not in neo4j_store.capabilities:
        pytest.skip("GDS plugin not installed on this server")
    _load_doc_graph(neo4j_store)
    res = neo4j_store.pagerank(
        "Paper", "CITES", weight_property="w" if weighted else None, config=config
    )
    ids = [*PAGES, "Lonely"]
    pos = {p: i for i, p in enumerate(ids)}
    expected, ran, converged = pagerank(
        len(ids),
        np.array([pos[a] for a, _, _ in LINKS]),
        np.array([pos[b] for _, b, _ in LINKS]),
        np.array([w for _, _, w in LINKS]) if weighted else None,
        damping_factor=config.damping_factor,
        tolerance=config.tolerance,
        source_bias=(
            {pos[k]: v for k, v in config.source_nodes.items()} if config.source_nodes else None
        ),
    )
    assert set(res.scores) == set(ids)  # the isolated node is projected too
    for node, i in pos.items():
        assert res.scores[node] == pytest.approx(expected[i], abs=1e-9), node
    assert (res.ran_iterations, res.did_converge) == (ran, converged)
    assert not neo4j_store.run("CALL gds.graph.list() YIELD graphName RETURN graphName")


def test_embedded_to_neo4j_round_trip(
    store: FalkorDBStore, neo4j_store: GraphStore, tmp_path: Path
) -> None:
    """Build on the embedded store, export, import into Neo4j, compare everything."""
    from scholarkg.schema.ddl import VectorIndex

    _load_doc_graph(store)
    store.merge_nodes("Author", [{"id": "a1", "name": "Ada", "tags": ["x", "y"]}])
    store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "Home", "end": "a1", "position": 0}]
    )
    vec = VectorIndex("paper_emb_t", "Paper", "emb_t", 2)
    store.ensure_vector_index(vec)
    store.set_vectors("Paper", "emb_t", [("Home", [1.0, 0.0]), ("About", [0.0, 1.0])])
    transfer.export_graph(store, tmp_path / "dump", page_size=3)
    report = transfer.import_graph(neo4j_store, tmp_path / "dump")
    assert report.skipped_relationships == 0
    assert neo4j_store.counts() == store.counts()
    q = "MATCH (n:Paper) RETURN n.id AS id, n.title AS title ORDER BY id"
    assert neo4j_store.run(q) == store.run(q)
    q = "MATCH (a)-[r:CITES]->(b) RETURN a.id AS a, b.id AS b, r.w AS w ORDER BY a, b"
    assert neo4j_store.run(q) == store.run(q)
    hits = neo4j_store.vector(vec, [1.0, 0.0], k=2)
    assert [h.id for h in hits] == ["Home", "About"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-6)
    assert hits[1].score == pytest.approx(0.5, abs=1e-6)


def test_gds_python_client_reaches_the_same_server() -> None:
    from scholarkg.store.neo4j.store import gds_client

    gds = gds_client(load_settings().neo4j)
    try:
        assert gds.server_version()  # GDS answers through its own Python client
        frame = gds.run_cypher("RETURN 1 AS x")
        assert frame["x"].tolist() == [1]
    finally:
        gds.close()


def test_a_routing_uri_reaches_the_single_server(
    neo4j_store: GraphStore, neo4j_env: Neo4jSettings
) -> None:
    """Aura and clusters are reached through routing URIs (``neo4j://``, ``neo4j+s://``): the
    driver asks the server for its routing table, then sends writes to the leader and reads to
    any member. A single server answers with itself, so the same store code runs unchanged."""
    import dataclasses

    from scholarkg.store.neo4j.store import Neo4jStore

    if not neo4j_env.uri or not neo4j_env.uri.startswith("bolt://"):
        pytest.skip("the session's server is already reached through a routing URI")
    routed = dataclasses.replace(neo4j_env, uri="neo4j://" + neo4j_env.uri[len("bolt://") :])
    st = Neo4jStore.from_settings(routed)
    try:
        assert "gds" in st.capabilities
        st.merge_nodes("Paper", [{"id": "r1", "title": "routed"}])  # a write: the leader
        rows = st.run("MATCH (p:Paper {id: $id}) RETURN p.title AS t", {"id": "r1"})
        assert rows == [{"t": "routed"}]
        assert neo4j_store.counts().nodes == {"Paper": 1}  # the same database as bolt://
    finally:
        st.close()
