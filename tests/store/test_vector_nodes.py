"""Where vectors live: written in batches they equal vectors written one by one (both
backends); on the embedded store each vector sits on a node of its own
(``(:Vec_<Label>_<prop>)-[:VECTOR_OF]->(node)``, ``store/falkordb/dialect.py``), the node
itself is never written by ``set_vectors``, every reader finds the vectors there, and a
store written by the previous version (vectors on the nodes) is upgraded in place."""

from __future__ import annotations

import numpy as np
import pytest

from scholarkg.config import Settings
from scholarkg.schema.ddl import VectorIndex
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb import dialect
from scholarkg.store.falkordb.store import FalkorDBStore

IDS = [f"w{i:02d}" for i in range(40)]


def _vectors(dims: int, seed: int) -> dict[str, list[float]]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((4, dims))
    data = centres[rng.integers(0, 4, len(IDS))] + 0.3 * rng.standard_normal((len(IDS), dims))
    return {i: data[n].tolist() for n, i in enumerate(IDS)}


def _hits(st: GraphStore, index: VectorIndex, query: list[float]) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 6)) for h in st.vector(index, query, k=10)]


def _read_vectors(st: GraphStore, prop: str) -> dict[str, list[float]]:
    rows = st.run_named("rankers/dense_candidate_vectors", {"ids": IDS}, label="Paper", prop=prop)
    return {str(r["id"]): [float(x) for x in r["v"]] for r in rows}


def test_vectors_in_batches_equal_vectors_one_by_one(any_store: GraphStore) -> None:
    any_store.apply_schema()
    any_store.merge_nodes("Paper", [{"id": i, "title": f"work {i}"} for i in IDS])
    vecs = _vectors(16, seed=5)
    batched = VectorIndex("paper_emb_batched", "Paper", "emb_batched", 16)
    single = VectorIndex("paper_emb_single", "Paper", "emb_single", 16)
    for index in (batched, single):
        any_store.ensure_vector_index(index)
    assert any_store.set_vectors("Paper", "emb_batched", list(vecs.items()), batch_size=7) == 40
    for i, v in vecs.items():
        assert any_store.set_vectors("Paper", "emb_single", [(i, v)]) == 1
    stored = _read_vectors(any_store, "emb_batched")
    assert stored == _read_vectors(any_store, "emb_single")
    assert sorted(stored) == IDS
    for i, v in vecs.items():  # float32 on the embedded store, doubles on Neo4j
        assert np.allclose(stored[i], v, rtol=1e-6, atol=1e-7)
    rng = np.random.default_rng(11)
    for _ in range(8):
        query = rng.standard_normal(16).tolist()
        found = _hits(any_store, batched, query)
        assert len(found) == 10
        assert found == _hits(any_store, single, query)
    # the hits are the exact cosine top 10
    q = np.asarray(query)
    exact = sorted(IDS, key=lambda i: -float(np.dot(vecs[i], q) / np.linalg.norm(vecs[i])))
    assert {i for i, _ in found} == set(exact[:10])
    # rewritten (a re-embedded text): the new vectors, not the old ones (FalkorDB took two
    # vecf32 of one length for equal and kept the old one)
    again = _vectors(16, seed=6)
    assert any_store.set_vectors("Paper", "emb_batched", list(again.items()), batch_size=9) == 40
    for i, v in again.items():
        any_store.set_vectors("Paper", "emb_single", [(i, v)])
    stored = _read_vectors(any_store, "emb_batched")
    assert stored == _read_vectors(any_store, "emb_single")
    for i, v in again.items():
        assert np.allclose(stored[i], v, rtol=1e-6, atol=1e-7)
    top_id, top_score = _hits(any_store, batched, again["w07"])[0]
    assert top_id == "w07" and top_score == pytest.approx(1.0, abs=1e-5)
    assert _hits(any_store, batched, query) == _hits(any_store, single, query)


def test_vectors_leave_the_node_alone(store: FalkorDBStore) -> None:
    """The embedded store writes a vector (and its hash and model) onto the node's vector
    node, so no index of the node's label is touched; a rewrite updates that vector node."""
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": "a", "title": "t"}, {"id": "b", "title": "u"}])
    index = VectorIndex("paper_emb_x", "Paper", "emb_x", 2)
    store.ensure_vector_index(index)
    extra = {"a": {"emb_x_hash": "h1", "emb_x_model": "m"}}
    assert store.set_vectors("Paper", "emb_x", [("a", [1.0, 0.0]), ("b", [0.0, 1.0])], extra=extra)
    assert store.set_vectors("Paper", "emb_x", [("a", [0.6, 0.8])]) == 1  # rewrite
    papers = store.run("MATCH (n:Paper) RETURN n.id AS id, properties(n) AS p ORDER BY id")
    assert [r["p"] for r in papers] == [{"id": "a", "title": "t"}, {"id": "b", "title": "u"}]
    rows = store.run(
        "MATCH (v:Vec_Paper_emb_x)-[:VECTOR_OF]->(n:Paper) "
        "RETURN n.id AS id, v.emb_x AS v, v.emb_x_hash AS h ORDER BY id"
    )
    assert [(r["id"], r["h"]) for r in rows] == [("a", "h1"), ("b", None)]
    assert np.allclose(rows[0]["v"], [0.6, 0.8])
    assert store.counts().nodes == {"Paper": 2}  # vector nodes are no scholarkg nodes
    indexes = dialect.list_indexes(store._g)
    assert dialect.has_index(indexes, "Vec_Paper_emb_x", "emb_x", "VECTOR")
    assert not dialect.has_index(indexes, "Paper", "emb_x", "VECTOR")
    # a deleted work's vector node is no hit
    store.run("MATCH (n:Paper {id: 'a'}) DETACH DELETE n")
    assert [h.id for h in store.vector(index, [1.0, 0.0], k=2)] == ["b"]


def test_vector_labels_read_back() -> None:
    assert dialect.vector_label("Paper", "emb_minilm_l6") == "Vec_Paper_emb_minilm_l6"
    assert dialect.parse_vector_label("Vec_Paper_emb_minilm_l6") == ("Paper", "emb_minilm_l6")
    assert dialect.parse_vector_label("Vec_Chunk_fastrp_128") == ("Chunk", "fastrp_128")
    for other in ("Paper", "Vec_", "Vec_Paper", "Vec_Nope_emb_x", "Vec_Paper_x-y"):
        assert dialect.parse_vector_label(other) is None


def _old_layout(st: FalkorDBStore, n: int = 30) -> dict[str, list[float]]:
    """A graph as the previous version wrote it: vectors, hash and model on the papers and
    the vector index on ``Paper`` itself."""
    st.apply_schema()
    ids = IDS[:n]
    st.merge_nodes("Paper", [{"id": i, "title": f"work {i}"} for i in ids])
    st.run(
        "CREATE VECTOR INDEX FOR (n:Paper) ON (n.emb_old) "
        "OPTIONS {dimension: 8, similarityFunction: 'cosine'}"
    )
    # built before the vectors are written, as the previous version waited for it: adding
    # a field rebuilds the label's index, and during the rebuild FalkorDB's look-ups by id
    # miss nodes that are there (the SET below then wrote some of the 30 vectors, or none)
    dialect.await_indexes(st._g)
    vecs = {i: v for i, v in _vectors(8, seed=3).items() if i in ids}
    st.run(
        "UNWIND $rows AS r MATCH (n:Paper {id: r.id}) SET n.emb_old = vecf32(r.v), "
        "n.emb_old_hash = r.h, n.emb_old_model = 'm'",
        {"rows": [{"id": i, "v": v, "h": f"h{i}"} for i, v in vecs.items()]},
    )
    return vecs


def test_a_store_of_the_previous_version_is_upgraded(store: FalkorDBStore) -> None:
    vecs = _old_layout(store)
    index = VectorIndex("paper_emb_old", "Paper", "emb_old", 8)
    # an upgrade interrupted after one batch: some vectors moved, the old index still there
    store.run(dialect.move_vectors_query("Paper", "emb_old"), {"batch": 4})
    seen: list[int] = []
    assert store.upgrade_vectors(seen.append) == 26
    assert seen and seen[-1] == 26
    assert store.upgrade_vectors() == 0  # done: nothing old left
    assert dialect.old_vector_indexes(store._g) == []
    assert store.run("MATCH (n:Paper) WHERE n.emb_old IS NOT NULL RETURN count(n) AS c") == [
        {"c": 0}
    ]
    stored = _read_vectors(store, "emb_old")
    assert sorted(stored) == sorted(vecs)
    for i, v in vecs.items():
        assert np.allclose(stored[i], v, rtol=1e-6)
    page = store.run_named(
        "embeddings/node_page",
        {"after": "", "limit": 100, "fields": ["title"]},
        label="Paper",
        prop="emb_old",
    )
    assert {(r["id"], r["h"], r["m"], r["has_vec"]) for r in page} == {
        (i, f"h{i}", "m", True) for i in vecs
    }
    count = store.run_named("recommend/count_vectors", {}, label="Paper", prop="emb_old")
    assert count == [{"n": 30}]
    # search answers as a store written by this version does
    fresh = VectorIndex("paper_emb_new", "Paper", "emb_new", 8)
    store.ensure_vector_index(fresh)
    store.set_vectors("Paper", "emb_new", list(vecs.items()))
    rng = np.random.default_rng(2)
    for _ in range(5):
        query = rng.standard_normal(8).tolist()
        assert _hits(store, index, query) == _hits(store, fresh, query)


def test_opening_a_store_upgrades_it(
    store: FalkorDBStore, settings: Settings, graph_name: str
) -> None:
    """What a user sees: the first command on a store the previous version wrote moves its
    vectors (``from_settings``), and searches answer."""
    vecs = _old_layout(store, n=12)
    opened = FalkorDBStore.from_settings(settings, graph=graph_name)
    try:
        assert dialect.old_vector_indexes(opened._g) == []
        index = VectorIndex("paper_emb_old", "Paper", "emb_old", 8)
        hits = opened.vector(index, vecs["w03"], k=3)
        assert hits[0].id == "w03" and hits[0].score == pytest.approx(1.0, abs=1e-5)
    finally:
        opened.close()


def test_a_users_own_vector_indexes_are_left_alone(
    store: FalkorDBStore, settings: Settings, graph_name: str
) -> None:
    """Vector indexes a user made through ``scholarkg cypher`` are not an old store's: one on
    a label of the user's own, one with dimension 0 and one on a Paper property scholarkg
    does not name its vectors by. Taken for one, each made every command fail, or moved the
    user's values off the Papers."""
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": "w1", "title": "work 1"}])
    store.run("CREATE (:Tmp {y: vecf32([1.0, 0.0, 0.0, 0.0])})")
    store.run("MATCH (p:Paper {id: 'w1'}) SET p.hqv = vecf32([1.0, 2.0])")
    for ddl in (
        "CREATE VECTOR INDEX FOR (n:Tmp) ON (n.y) "
        "OPTIONS {dimension: 4, similarityFunction: 'euclidean'}",
        "CREATE VECTOR INDEX FOR (n:Nothing) ON (n.e) "
        "OPTIONS {dimension: 0, similarityFunction: 'cosine'}",
        "CREATE VECTOR INDEX FOR (n:Paper) ON (n.hqv) "
        "OPTIONS {dimension: 2, similarityFunction: 'cosine'}",
    ):
        store.run(ddl)
    dialect.await_indexes(store._g)
    assert dialect.old_vector_indexes(store._g) == []
    opened = FalkorDBStore.from_settings(settings, graph=graph_name)  # what every command does
    try:
        assert opened.upgrade_vectors() == 0
        assert opened.run("MATCH (p:Paper {id: 'w1'}) RETURN p.hqv IS NOT NULL AS kept") == [
            {"kept": True}
        ]
        indexed = {
            (r["label"], p)
            for r in opened.run("CALL db.indexes() YIELD label, types RETURN label, types")
            for p, kinds in r["types"].items()
            if "VECTOR" in kinds
        }
        assert {("Tmp", "y"), ("Nothing", "e"), ("Paper", "hqv")} <= indexed
    finally:
        opened.close()


def test_deleting_a_node_deletes_its_vector_nodes(store: FalkorDBStore) -> None:
    """``delete_nodes`` (a merge's loser, a failed batch's undo) takes the node's vector nodes
    with it: left behind, they would hold slots of the vector index for good."""
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": "a"}, {"id": "b"}])
    for prop in ("emb_x", "emb_y"):
        store.ensure_vector_index(VectorIndex(f"paper_{prop}", "Paper", prop, 2))
        store.set_vectors("Paper", prop, [("a", [1.0, 0.0]), ("b", [0.0, 1.0])])
    assert store.delete_nodes("Paper", ["a", "missing"]) == 1
    rows = store.run(
        "MATCH (v)-[:VECTOR_OF]->(n) RETURN labels(v)[0] AS label, n.id AS id ORDER BY label"
    )
    assert rows == [
        {"label": "Vec_Paper_emb_x", "id": "b"},
        {"label": "Vec_Paper_emb_y", "id": "b"},
    ]
    assert store.run(
        "MATCH (v) WHERE NOT (v)-[:VECTOR_OF]->() AND NOT v:Paper RETURN count(v) AS n"
    ) == [{"n": 0}]
