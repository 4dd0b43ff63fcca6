"""The ``GraphStore`` contract, run against every backend available.

"embedded" (FalkorDB) always runs; "neo4j" runs only when ``NEO4J_URI`` is set. The same
assertions on both are what make the two dialect modules interchangeable for tasks.
Expected values are computed by hand in each test.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pytest

from scholarkg.errors import CypherError, InputError
from scholarkg.schema.ddl import VectorIndex
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.falkordb.store import FalkorDBStore


def _papers(st: GraphStore, ids: list[str]) -> None:
    st.merge_nodes("Paper", [{"id": i} for i in ids])


# -- run ---------------------------------------------------------------------------------


def test_run_params_and_plain_rows(any_store: GraphStore) -> None:
    rows = any_store.run("RETURN $x AS x, $s AS s, $l AS l", {"x": 1, "s": "a'b\"c", "l": [1, 2]})
    assert rows == [{"x": 1, "s": "a'b\"c", "l": [1, 2]}]
    any_store.run("CREATE (:Paper {id: $id, year: $y})", {"id": "p1", "y": 2020})
    rows = any_store.run("MATCH (p:Paper) RETURN p")
    assert rows == [{"p": {"id": "p1", "year": 2020}}]
    rows = any_store.run(
        "CREATE (a:Paper {id: 'p2'})-[r:CITES {w: 0.5}]->(b:Paper {id: 'p3'}) RETURN a, r, b"
    )
    assert rows == [{"a": {"id": "p2"}, "r": {"w": 0.5}, "b": {"id": "p3"}}]


def test_run_path_is_a_list(any_store: GraphStore) -> None:
    any_store.run("CREATE (:Paper {id: 'a'})-[:CITES {w: 2}]->(:Paper {id: 'b'})")
    rows = any_store.run("MATCH p = (:Paper {id: 'a'})-[:CITES]->(:Paper) RETURN p")
    assert rows == [{"p": [{"id": "a"}, {"w": 2}, {"id": "b"}]}]


def test_cypher_error_carries_server_message(any_store: GraphStore) -> None:
    with pytest.raises(CypherError) as info:
        any_store.run("MATCH (n) RETURN m")
    msg = str(info.value)
    assert "not defined" in msg.lower() and "m" in msg
    assert "\n" not in msg


def test_syntax_error_is_one_line(any_store: GraphStore) -> None:
    with pytest.raises(CypherError) as info:
        any_store.run("MATCH (n RETURN n")
    assert "\n" not in str(info.value)
    assert "line 1" in str(info.value).lower()


# -- writes ------------------------------------------------------------------------------


def test_write_batches_counts_and_progress(any_store: GraphStore) -> None:
    seen: list[int] = []
    n = any_store.write_batches(
        "UNWIND $rows AS row CREATE (:Paper {id: row.id})",
        ({"id": f"p{i}"} for i in range(25)),
        batch_size=10,
        progress=seen.append,
    )
    assert n == 25
    assert seen == [10, 20, 25]
    assert any_store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 25}]


def test_merge_nodes_is_idempotent_and_cleans_props(any_store: GraphStore) -> None:
    rows: list[dict[str, Any]] = [
        {"id": "a", "title": "T1", "year": 2001, "missing": None, "meta": {"k": [1, 2]}},
        {"id": "b", "tags": ["x", None, "y"], "nested": [{"q": 1}]},
    ]
    assert any_store.merge_nodes("Paper", rows) == 2
    assert any_store.merge_nodes("Paper", rows) == 2
    assert any_store.counts().nodes == {"Paper": 2}
    a = any_store.run("MATCH (p:Paper {id: 'a'}) RETURN p")[0]["p"]
    assert a == {"id": "a", "title": "T1", "year": 2001, "meta": json.dumps({"k": [1, 2]})}
    b = any_store.run("MATCH (p:Paper {id: 'b'}) RETURN p")[0]["p"]
    assert b == {"id": "b", "tags": ["x", "y"], "nested": json.dumps([{"q": 1}])}
    # a second merge updates properties in place
    any_store.merge_nodes("Paper", [{"id": "a", "title": "T1b"}])
    assert any_store.run("MATCH (p:Paper {id: 'a'}) RETURN p.title AS t") == [{"t": "T1b"}]


def test_merge_nodes_rejects_missing_id(any_store: GraphStore) -> None:
    with pytest.raises(InputError) as info:
        any_store.merge_nodes("Paper", [{"id": "a"}, {"title": "no id"}])
    assert info.value.line == 2 and info.value.field == "id"


def test_keys_with_surrounding_whitespace_are_stripped_under_the_unique_key(
    any_store: GraphStore,
) -> None:
    """FalkorDB 4.x's unique-constraint check crashed the server on a key like ``" p1"`` or
    ``"p1\\n"`` (and the append-only file replayed the crash at every start): keys are
    stripped on both backends, nodes and relationship endpoints alike."""
    any_store.apply_schema()
    any_store.merge_nodes("Paper", [{"id": " p1"}, {"id": "p2\n"}, {"id": "\tp3 "}])
    assert any_store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": "p1 ", "end": " p2"}]
    )
    ids = sorted(r["id"] for r in any_store.run("MATCH (p:Paper) RETURN p.id AS id"))
    assert ids == ["p1", "p2", "p3"]
    assert any_store.run("MATCH (:Paper {id: 'p1'})-[:CITES]->(b) RETURN b.id AS b") == [
        {"b": "p2"}
    ]
    assert any_store.run("RETURN 1 AS one") == [{"one": 1}]  # the server is still up


def test_a_key_over_the_limit_is_refused_and_the_server_stays_up(any_store: GraphStore) -> None:
    """A key over 4,096 UTF-8 bytes (schema.text.MAX_KEY_BYTES) killed the embedded server in
    its unique-constraint check: it is refused before it is sent, naming the record, on both
    backends (so they stay equal); the longest allowed one is stored."""
    any_store.apply_schema()
    longest = "é" * 2048  # 4,096 bytes
    any_store.merge_nodes("Paper", [{"id": "p1"}, {"id": longest}])
    with pytest.raises(InputError) as info:
        any_store.merge_nodes("Paper", [{"id": "p2"}, {"id": longest + "x"}])
    assert (info.value.line, info.value.field) == (2, "id")
    assert "4,097 bytes long" in str(info.value)
    ids = {r["id"] for r in any_store.run("MATCH (p:Paper) RETURN p.id AS id")}
    assert ids == {"p1", longest}  # nothing of the refused call was written
    assert any_store.run("RETURN 1 AS one") == [{"one": 1}]  # the server is still up


def test_unknown_label_never_reaches_cypher(any_store: GraphStore) -> None:
    with pytest.raises(InputError):
        any_store.merge_nodes("Paper) DETACH DELETE (x", [{"id": "a"}])


INJECTED = "Paper) DETACH DELETE (n"


@pytest.mark.parametrize(
    "call",
    [
        lambda st: st.merge_relationships("CITES]->() DETACH DELETE (n", "Paper", "Paper", []),
        lambda st: st.merge_relationships("CITES", "Paper", INJECTED, []),
        lambda st: st.edge_snapshot(INJECTED, "CITES"),
        lambda st: st.edge_snapshot("Paper", "CITES", node_ids=["a"], weight_property="w} x"),
        lambda st: st.pagerank("Paper", "CITES]->() DELETE r //"),
        lambda st: st.set_vectors("Paper", "emb = 1 DETACH DELETE n //", [("a", [1.0])]),
        lambda st: st.vector(VectorIndex("v", INJECTED, "emb", 2), [1.0, 0.0]),
    ],
    ids=["rel_type", "end_label", "snapshot", "weight", "pagerank", "vector_prop", "vector"],
)
def test_no_unlisted_name_reaches_cypher(
    any_store: GraphStore, call: Callable[[GraphStore], object]
) -> None:
    """Every method that pastes a name checks it against schema/ddl.py first."""
    _papers(any_store, ["a"])
    with pytest.raises(InputError):
        call(any_store)
    assert any_store.counts().nodes == {"Paper": 1}  # nothing was deleted


def test_merge_relationships_skips_missing_endpoints(any_store: GraphStore) -> None:
    _papers(any_store, ["a", "b", "c"])
    rels: list[dict[str, Any]] = [
        {"start": "a", "end": "b", "w": 1.5},
        {"start": "b", "end": "c"},
        {"start": "a", "end": "nope"},
        {"start": "ghost", "end": "c"},
    ]
    assert any_store.merge_relationships("CITES", "Paper", "Paper", rels) == 2
    assert any_store.merge_relationships("CITES", "Paper", "Paper", rels) == 2
    assert any_store.counts().relationships == {"CITES": 2}
    assert any_store.run("MATCH (:Paper {id:'a'})-[r:CITES]->() RETURN r.w AS w") == [{"w": 1.5}]


@pytest.mark.parametrize("batch_size", [1, 3, 10_000])
def test_merge_relationships_from_new_and_known_start_nodes(
    any_store: GraphStore, batch_size: int
) -> None:
    """Neo4j sends relationships grouped by start node and CREATEs them from a start node
    that has none of the type yet (store/neo4j/dialect.merge_grouped_relationships_query):
    the graph and the counts are those of a MERGE per row, on both backends, whatever the
    batching — a start node with edges already, a pair repeated in one call (its later
    properties win), a self-loop, missing endpoints, shared and per-row properties."""
    _papers(any_store, ["a", "b", "c", "d"])
    any_store.merge_nodes("Author", [{"id": "x"}, {"id": "y"}])
    shared = [{"start": s, "end": e, "props": {"src": 1}} for s, e in
              [("a", "b"), ("a", "c"), ("a", "nope"), ("ghost", "b"), ("d", "d")]]  # fmt: skip
    assert any_store.merge_relationships(
        "CITES", "Paper", "Paper", shared, batch_size=batch_size
    ) == 3  # fmt: skip
    again = [{"start": s, "end": e, "props": {"other": 2}} for s, e in
             [("a", "b"), ("a", "d"), ("b", "c"), ("b", "c"), ("c", "a")]]  # fmt: skip
    assert any_store.merge_relationships(
        "CITES", "Paper", "Paper", again, batch_size=batch_size
    ) == 5  # fmt: skip
    rows = [
        {"start": "a", "end": "x", "position": 1},
        {"start": "a", "end": "y", "position": 2},
        {"start": "b", "end": "x", "corr": True},
        {"start": "c", "end": "zz", "position": 1},
    ]
    assert any_store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", rows, batch_size=batch_size
    ) == 3  # fmt: skip
    assert any_store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "b", "end": "x", "position": 1}],
        batch_size=batch_size,
    ) == 1  # fmt: skip
    assert any_store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "a", "end": "x", "position": 3}],
        batch_size=batch_size,
    ) == 1  # fmt: skip
    got = any_store.run(
        "MATCH (s)-[r]->(e) RETURN type(r) AS t, s.id AS s, e.id AS e, properties(r) AS p "
        "ORDER BY t, s, e"
    )
    assert got == [
        {"t": "AUTHORED_BY", "s": "a", "e": "x", "p": {"position": 3}},
        {"t": "AUTHORED_BY", "s": "a", "e": "y", "p": {"position": 2}},
        {"t": "AUTHORED_BY", "s": "b", "e": "x", "p": {"position": 1, "corr": True}},
        {"t": "CITES", "s": "a", "e": "b", "p": {"src": 1, "other": 2}},
        {"t": "CITES", "s": "a", "e": "c", "p": {"src": 1}},
        {"t": "CITES", "s": "a", "e": "d", "p": {"other": 2}},
        {"t": "CITES", "s": "b", "e": "c", "p": {"other": 2}},
        {"t": "CITES", "s": "c", "e": "a", "p": {"other": 2}},
        {"t": "CITES", "s": "d", "e": "d", "p": {"src": 1}},
    ]


def test_merge_relationships_rejects_a_missing_endpoint(any_store: GraphStore) -> None:
    """Regression: ``str(None)`` used to match a node whose id is the text ``"None"``."""
    _papers(any_store, ["a", "b", "None"])
    rels: list[dict[str, Any]] = [{"start": "a", "end": "b"}, {"start": "a", "end": None}]
    with pytest.raises(InputError) as info:
        any_store.merge_relationships("CITES", "Paper", "Paper", rels)
    assert (info.value.line, info.value.field) == (2, "end")
    with pytest.raises(InputError) as info:
        any_store.merge_relationships("CITES", "Paper", "Paper", [{"end": "b"}])
    assert (info.value.line, info.value.field) == (1, "start")
    assert any_store.run(
        "MATCH (:Paper)-[r:CITES]->(:Paper {id: 'None'}) RETURN count(r) AS n"
    ) == [{"n": 0}]


def test_keyed_relationships_are_one_per_key(any_store: GraphStore) -> None:
    """``key=``: one relationship per (start, end, key values), MERGEd, so reruns add none."""
    _papers(any_store, ["a", "b"])
    rels: list[dict[str, Any]] = [
        {"start": "a", "end": "b", "key": {"source": "gpt"}, "props": {"score": 2.0}},
        {"start": "a", "end": "b", "source": "human", "score": 1.0},  # key from the props
    ]
    for _ in range(2):
        assert any_store.merge_relationships("JUDGED", "Paper", "Paper", rels, key=("source",)) == 2
        assert any_store.counts().relationships == {"JUDGED": 2}
    rows = any_store.run(
        "MATCH (:Paper {id: 'a'})-[r:JUDGED]->(:Paper {id: 'b'}) "
        "RETURN r.source AS source, r.score AS score ORDER BY source"
    )
    assert rows == [{"source": "gpt", "score": 2.0}, {"source": "human", "score": 1.0}]
    with pytest.raises(InputError) as info:
        any_store.merge_relationships(
            "JUDGED", "Paper", "Paper", [{"start": "a", "end": "b"}], key=("source",)
        )
    assert (info.value.line, info.value.field) == (1, "source")
    with pytest.raises(InputError, match="invalid property name"):
        any_store.merge_relationships("JUDGED", "Paper", "Paper", rels, key=("x}]->() DELETE (a",))
    assert any_store.counts().relationships == {"JUDGED": 2}


def test_counts_ignore_labels_outside_the_whitelist(any_store: GraphStore) -> None:
    """Both backends count only scholarkg's labels/types: only those are pasted into Cypher."""
    _papers(any_store, ["a"])
    any_store.run("CREATE (:Intruder {id: 'x'})-[:FOREIGN]->(:`Odd Label` {id: 'y'})")
    counts = any_store.counts()
    assert counts.nodes == {"Paper": 1}
    assert counts.relationships == {}


# -- schema and search -------------------------------------------------------------------


def test_apply_schema_is_idempotent_and_keys_stay_one_node(any_store: GraphStore) -> None:
    """A key is one node: Neo4j's constraint refuses a second CREATE; the embedded store's key
    is an index (its constraint crashed the server on odd keys), and a MERGE finds the node
    through it, so scholarkg's writes (all MERGEs on keys) never make a second."""
    assert any_store.apply_schema()
    assert any_store.apply_schema() == []
    any_store.run("CREATE (:Paper {id: 'dup'})")
    any_store.merge_nodes("Paper", [{"id": "dup", "title": "t"}, {"id": "dup", "title": "u"}])
    any_store.run("MERGE (p:Paper {id: 'dup'}) SET p.seen = true")
    if not isinstance(any_store, FalkorDBStore):
        with pytest.raises(CypherError):
            any_store.run("CREATE (:Paper {id: 'dup'})")
    assert any_store.run("MATCH (p:Paper) RETURN count(p) AS n, p.title AS t") == [
        {"n": 1, "t": "u"}
    ]


def _fulltext_fixture(st: GraphStore) -> None:
    st.apply_schema()
    st.merge_nodes(
        "Paper",
        [
            {"id": "g", "title": "Graph neural networks", "abstract": "message passing"},
            {"id": "r", "title": "Neural ranking", "abstract": "a state-of-the-art retriever"},
            {"id": "d", "title": "Graph databases", "abstract": "storage engines for C++"},
        ],
    )


def test_fulltext_any_and_all(any_store: GraphStore) -> None:
    _fulltext_fixture(any_store)
    any_ids = {h.id for h in any_store.fulltext("paper_text", ["graph", "ranking"])}
    assert any_ids == {"g", "r", "d"}
    all_ids = {
        h.id for h in any_store.fulltext("paper_text", ["graph", "neural"], require_all=True)
    }
    assert all_ids == {"g"}
    hits = any_store.fulltext("paper_text", ["passing"], k=5)
    assert [h.id for h in hits] == ["g"]
    assert hits[0].properties["title"] == "Graph neural networks"


def test_fulltext_special_characters_are_escaped(any_store: GraphStore) -> None:
    _fulltext_fixture(any_store)
    assert {h.id for h in any_store.fulltext("paper_text", ["state-of-the-art"])} == {"r"}
    # query syntax in user text is inert: no syntax error, and it matches only as words
    expected: dict[str, set[str]] = {
        "(": set(),
        '"': set(),
        "a|b)": set(),
        "*": set(),
        "x:y": set(),
        "\\": set(),
    }
    expected |= {"-": set(), "C++": {"d"}, "graph*": {"g", "d"}, "ranking)": {"r"}}
    for nasty, ids in expected.items():
        assert {h.id for h in any_store.fulltext("paper_text", [nasty])} == ids, nasty
    assert any_store.fulltext("paper_text", []) == []
    with pytest.raises(InputError):
        any_store.fulltext("no_such_index", ["graph"])


def test_fulltext_is_case_insensitive_beyond_ascii(any_store: GraphStore) -> None:
    """Regression: RediSearch lower-cases indexed text fully but query text only in ASCII,
    so ``NAÏVE`` missed ``Naïve`` on FalkorDB while Lucene (Neo4j) found it."""
    any_store.apply_schema()
    any_store.merge_nodes("Paper", [{"id": "n", "title": "Naïve Bayes for Ärzte"}])
    for terms in (["naïve"], ["NAÏVE"], ["Naïve"], ["ÄRZTE"], ["ärzte", "zzz"]):
        assert [h.id for h in any_store.fulltext("paper_text", terms)] == ["n"], terms


def test_vector_search_scores_and_order(any_store: GraphStore) -> None:
    index = VectorIndex("paper_vec_test", "Paper", "embedding", 3)
    _papers(any_store, ["x", "y", "z"])
    any_store.ensure_vector_index(index)
    any_store.ensure_vector_index(index)  # idempotent
    vecs = {"x": [1.0, 0.0, 0.0], "y": [0.0, 1.0, 0.0], "z": [-1.0, 0.0, 0.0]}
    n = any_store.set_vectors(
        "Paper", "embedding", list(vecs.items()), extra={"x": {"model": "m1"}}
    )
    assert n == 3
    query = [0.8, 0.6, 0.0]  # unit vector: cos with x = 0.8, y = 0.6, z = -0.8
    hits = any_store.vector(index, query, k=3)
    assert [h.id for h in hits] == ["x", "y", "z"]
    expected = {"x": (1 + 0.8) / 2, "y": (1 + 0.6) / 2, "z": (1 - 0.8) / 2}
    for h in hits:
        assert 0.0 <= h.score <= 1.0
        assert h.score == pytest.approx(expected[h.id], abs=1e-5)
        assert "embedding" not in h.properties
    assert hits[0].properties["model"] == "m1"


def test_hits_never_carry_stored_vectors(any_store: GraphStore) -> None:
    """Search hits return properties, not embeddings: a node may hold one vector per model,
    and shipping them back with every hit costs kilobytes per hit on both backends."""
    any_store.apply_schema()
    any_store.merge_nodes("Paper", [{"id": "x", "title": "graph search", "abstract": "a"}])
    first = VectorIndex("paper_vec_a", "Paper", "emb_a", 2)
    second = VectorIndex("paper_vec_b", "Paper", "emb_b", 2)
    for index, vec in ((first, [1.0, 0.0]), (second, [0.0, 1.0])):
        any_store.ensure_vector_index(index)
        assert any_store.set_vectors("Paper", index.property, [("x", vec)]) == 1
    expected = {"id": "x", "title": "graph search", "abstract": "a"}
    assert [h.properties for h in any_store.vector(first, [1.0, 0.0], k=1)] == [expected]
    assert [h.properties for h in any_store.fulltext("paper_text", ["graph"])] == [expected]


def test_vector_search_returns_k_live_nodes_after_updates(any_store: GraphStore) -> None:
    """Regression (FalkorDB 4.16): after a node's other vector (or any indexed property) is
    updated, its stale index entry took one of the k slots and kNN came back short."""
    first = VectorIndex("paper_vec_a", "Paper", "emb_a", 2)
    second = VectorIndex("paper_vec_b", "Paper", "emb_b", 2)
    _papers(any_store, ["x", "y"])
    any_store.ensure_vector_index(first)
    any_store.set_vectors("Paper", "emb_a", [("x", [1.0, 0.0]), ("y", [0.0, 1.0])])
    any_store.ensure_vector_index(second)
    any_store.set_vectors("Paper", "emb_b", [("x", [0.0, 1.0])])  # second model, one node
    assert [h.id for h in any_store.vector(first, [1.0, 0.0], k=2)] == ["x", "y"]
    any_store.set_vectors("Paper", "emb_a", [("x", [1.0, 0.0])])  # re-embed x
    hits = any_store.vector(first, [1.0, 0.0], k=2)
    assert [h.id for h in hits] == ["x", "y"]
    assert [h.score for h in hits] == pytest.approx([1.0, 0.5])  # cos 1 and 0
    assert [h.id for h in any_store.vector(first, [1.0, 0.0], k=1)] == ["x"]
    assert [h.id for h in any_store.vector(first, [1.0, 0.0], k=5)] == ["x", "y"]  # all there is
    assert [h.id for h in any_store.vector(second, [0.0, 1.0], k=5)] == ["x"]


# -- inspection and algorithms -----------------------------------------------------------


def test_counts_per_label_and_type(any_store: GraphStore) -> None:
    assert any_store.counts().total_nodes == 0
    _papers(any_store, ["a", "b", "c"])
    any_store.merge_nodes("Author", [{"id": "u1"}])
    any_store.merge_relationships("CITES", "Paper", "Paper", [{"start": "a", "end": "b"}])
    any_store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "a", "end": "u1"}, {"start": "b", "end": "u1"}]
    )
    counts = any_store.counts()
    assert counts.nodes == {"Paper": 3, "Author": 1}
    assert counts.relationships == {"CITES": 1, "AUTHORED_BY": 2}
    assert counts.total_nodes == 4 and counts.total_relationships == 3


def _dag(st: GraphStore) -> None:
    """a→b (w 3), a→c (w 1), b→c (w 1); d isolated; c and d dangling."""
    _papers(st, ["a", "b", "c", "d"])
    st.merge_relationships(
        "CITES",
        "Paper",
        "Paper",
        [
            {"start": "a", "end": "b", "w": 3.0},
            {"start": "a", "end": "c", "w": 1.0},
            {"start": "b", "end": "c", "w": 1.0},
        ],
    )


def test_edge_snapshot_whole_and_subgraph(any_store: GraphStore) -> None:
    _dag(any_store)
    any_store.merge_nodes("Author", [{"id": "u"}])
    # an edge of the same type to another label is not part of the Paper subgraph
    any_store.run("MATCH (a:Paper {id: 'a'}), (u:Author {id: 'u'}) CREATE (a)-[:CITES]->(u)")
    snap = any_store.edge_snapshot("Paper", "CITES", weight_property="w")
    assert sorted(snap.ids) == ["a", "b", "c", "d"]
    edges = {
        (snap.ids[s], snap.ids[d], w)
        for s, d, w in zip(snap.src.tolist(), snap.dst.tolist(), snap.weight.tolist(), strict=True)
    }
    assert edges == {("a", "b", 3.0), ("a", "c", 1.0), ("b", "c", 1.0)}
    sub = any_store.edge_snapshot("Paper", "CITES", node_ids=["b", "c", "missing"])
    assert sub.ids == ["b", "c"]
    assert [(sub.ids[s], sub.ids[d]) for s, d in zip(sub.src, sub.dst, strict=True)] == [("b", "c")]
    assert sub.weight.tolist() == [1.0]


def test_pagerank_matches_gds_semantics_by_hand(any_store: GraphStore) -> None:
    """Hand-run of GDS's delta iteration (the Neo4j GDS manual, PageRank), d = 0.85, r0 = 0.15.

    Unweighted: step 1 sends 0.85*0.15/2 = 0.06375 from a to b and c, 0.1275 from b to c;
    step 2 sends 0.85*0.06375 = 0.0541875 from b to c; step 3 has nothing to send
    (c, d dangling) → converged after 3 iterations.
    """
    _dag(any_store)
    res = any_store.pagerank("Paper", "CITES")
    expected = {"a": 0.15, "b": 0.21375, "c": 0.15 + 0.19125 + 0.0541875, "d": 0.15}
    assert res.scores.keys() == expected.keys()
    for k, v in expected.items():
        assert math.isclose(res.scores[k], v, abs_tol=1e-12), k
    assert (res.ran_iterations, res.did_converge) == (3, True)

    # weighted: a splits 3:1 → b gets 0.85*0.15*0.75 = 0.095625, c 0.031875 + 0.1275,
    # then c gets 0.85*0.095625 = 0.08128125 from b
    res = any_store.pagerank("Paper", "CITES", weight_property="w")
    assert math.isclose(res.scores["b"], 0.245625, abs_tol=1e-12)
    assert math.isclose(res.scores["c"], 0.15 + 0.159375 + 0.08128125, abs_tol=1e-12)

    # personalized from a: r0 = 0.15 on a only
    res = any_store.pagerank("Paper", "CITES", config=PageRankConfig(source_nodes={"a": 1.0}))
    assert math.isclose(res.scores["b"], 0.06375, abs_tol=1e-12)
    assert math.isclose(res.scores["c"], 0.06375 + 0.0541875, abs_tol=1e-12)
    assert res.scores["d"] == 0.0

    # tolerance 0.1: b's step-1 delta 0.06375 <= 0.1 stops b sending, so c never receives
    # step 2's 0.0541875; c (dangling) sends nothing → converged after 2 iterations
    res = any_store.pagerank("Paper", "CITES", config=PageRankConfig(tolerance=0.1))
    assert math.isclose(res.scores["c"], 0.34125, abs_tol=1e-12)
    assert (res.ran_iterations, res.did_converge) == (2, True)

    with pytest.raises(InputError):
        any_store.pagerank("Paper", "CITES", config=PageRankConfig(source_nodes={"zz": 1.0}))


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (PageRankConfig(damping_factor=1.0), "damping_factor"),
        (PageRankConfig(max_iterations=0), "max_iterations"),
        (PageRankConfig(source_nodes={"a": -1.0}), "source_nodes"),
    ],
)
def test_pagerank_rejects_bad_config_before_reading_the_graph(
    any_store: GraphStore, monkeypatch: pytest.MonkeyPatch, config: PageRankConfig, field: str
) -> None:
    """Both backends name the same field, and neither pulls a snapshot for a bad config."""
    _dag(any_store)

    def no_snapshot(*args: object, **kwargs: object) -> None:
        raise AssertionError("edge_snapshot ran before the config was checked")

    monkeypatch.setattr(any_store, "edge_snapshot", no_snapshot)
    with pytest.raises(InputError) as info:
        any_store.pagerank("Paper", "CITES", config=config)
    assert info.value.field == field


def test_clear_removes_everything(any_store: GraphStore) -> None:
    _dag(any_store)
    any_store.apply_schema()
    any_store.clear()
    assert any_store.counts().total_nodes == 0
    any_store.clear()  # tolerated on a missing graph
    _papers(any_store, ["again"])
    assert any_store.counts().nodes == {"Paper": 1}
