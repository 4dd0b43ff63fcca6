"""FalkorDB-only details: query text rendering, score conversion, error parsing, snapshot
edge cases. Pure functions are checked against hand-written expectations; the rest runs
on the session server."""

from __future__ import annotations

import pytest

from scholarkg.errors import InputError, StoreError
from scholarkg.schema.ddl import FulltextIndex, LookupIndex, NodeKey, SchemaSpec, VectorIndex
from scholarkg.store.falkordb import dialect as d
from scholarkg.store.falkordb.store import FalkorDBStore


def test_fulltext_query_text() -> None:
    assert d.fulltext_query_text(["graph", "neural"]) == "graph|neural"
    assert d.fulltext_query_text(["graph", "neural"], require_all=True) == "graph neural"
    assert d.fulltext_query_text(["state-of-the-art", "x"]) == "(state of the art)|x"
    assert d.fulltext_query_text(["C++", "a|b", "(", '"', "*"]) == "C|(a b)"
    assert d.fulltext_query_text(["", "  ", "-"]) == ""
    assert d.fulltext_query_text(["naïve"]) == "(naïve|Naïve|NAÏVE)"
    # RediSearch folds only ASCII case: non-ASCII pieces are OR-ed over their case forms
    assert d.fulltext_query_text(["NAÏVE", "Graph"]) == "(naïve|Naïve|NAÏVE)|Graph"
    assert d.fulltext_query_text(["über-all"], require_all=True) == "((über|Über|ÜBER) all)"


def test_similarity_from_distance() -> None:
    assert d.similarity_from_distance(0.0) == 1.0
    assert d.similarity_from_distance(1.0) == 0.5
    assert d.similarity_from_distance(2.0) == 0.0
    assert d.similarity_from_distance(2.0000001) == 0.0  # float32 rounding stays in [0, 1]
    assert d.similarity_from_distance(0.2) == pytest.approx(0.9)


def test_cypher_error_keeps_message_and_position() -> None:
    raw = Exception(
        "errMsg: Invalid input 'R': expected a label line: 1, column: 10, offset: 9 "
        "errCtx: MATCH (n RETURN n errCtxOffset: 9"
    )
    msg = str(d.cypher_error(raw, "MATCH (n RETURN n"))
    assert msg == (
        "FalkorDB rejected the query: Invalid input 'R': expected a label (line 1, column 10)"
        " in: MATCH (n RETURN n"
    )
    assert str(d.cypher_error(Exception("'m' not defined"))) == (
        "FalkorDB rejected the query: 'm' not defined"
    )


def test_ddl_rendering_uses_whitelists() -> None:
    assert d.range_index_ddl("Paper", "doi") == "CREATE INDEX FOR (n:Paper) ON (n.doi)"
    assert d.fulltext_index_ddl("Paper", ["title", "abstract"]) == (
        "CALL db.idx.fulltext.createNodeIndex('Paper', 'title', 'abstract')"
    )
    assert d.vector_index_ddl(VectorIndex("v", "Chunk", "emb", 384)) == (
        "CREATE VECTOR INDEX FOR (n:Vec_Chunk_emb) ON (n.emb) "
        "OPTIONS {dimension: 384, similarityFunction: 'cosine', efConstruction: 64}"
    )
    assert d.drop_unique_constraint_command("g", "Paper", "id") == [
        "GRAPH.CONSTRAINT", "DROP", "g", "UNIQUE", "NODE", "Paper", "PROPERTIES", 1, "id",
    ]  # fmt: skip
    with pytest.raises(InputError):
        d.range_index_ddl("Paper", "x) DETACH DELETE (n")
    with pytest.raises(InputError):
        d.fulltext_index_ddl("Nope", ["title"])
    with pytest.raises(StoreError):
        d.vector_index_ddl(VectorIndex("v", "Chunk", "emb", 384, similarity="euclidean"))


def test_plan_schema_merges_fulltext_per_label() -> None:
    spec = SchemaSpec(
        keys=(NodeKey("Paper"),),
        lookups=(LookupIndex("Paper", "id"), LookupIndex("Paper", "doi")),
        fulltext=(
            FulltextIndex("a", "Paper", ("title",)),
            FulltextIndex("b", "Paper", ("abstract", "title")),
        ),
    )
    steps = [s.describe() for s in d.plan_schema(spec, [], [])]
    assert steps == [
        "range index on :Paper(id)",
        "range index on :Paper(doi)",
        "fulltext index on :Paper(title, abstract)",
    ]
    # a store made when keys were unique constraints has its key's dropped
    old = [("UNIQUE", "Paper", ("id",), "OPERATIONAL"), ("UNIQUE", "Author", ("orcid",), "OK")]
    assert [s.describe() for s in d.plan_schema(spec, [], old)][1] == (
        "unique constraint on :Paper(id) dropped (FalkorDB's check crashed the server)"
    )


def test_a_stores_old_key_constraint_is_dropped_and_a_padded_key_no_longer_crashes(
    store: FalkorDBStore,
) -> None:
    """Keys were FalkorDB unique constraints, whose check crashed the server on a key with
    surrounding whitespace, an empty one or one over 4,096 bytes — from a user's own
    ``SET p.id = ''`` too. Applying the schema drops such a constraint (the range index under
    it stays), and so does a user's first write before it runs (a restored backup that no
    load touched since); the writes that crashed it are then stored, the server up."""
    old_key = ("GRAPH.CONSTRAINT", "CREATE", store.graph, "UNIQUE", "NODE", "Paper",
               "PROPERTIES", 1, "id")  # fmt: skip
    store.apply_schema()
    store._command(*old_key)
    d.await_indexes(store._g, constraints_only=True)
    assert ("UNIQUE", "Paper", ("id",), "OPERATIONAL") in d.list_constraints(store._g)
    assert store.apply_schema() == [
        "unique constraint on :Paper(id) dropped (FalkorDB's check crashed the server)"
    ]
    assert d.list_constraints(store._g) == [] and store.apply_schema() == []
    assert d.has_index(d.list_indexes(store._g), "Paper", "id", "RANGE")
    store._command(*old_key)  # as a restored backup has it
    d.await_indexes(store._g, constraints_only=True)
    for write in ("CREATE (:Paper {id: ' x'})", "CREATE (:Paper {id: ''})",
                  "CREATE (:Paper {id: '" + "y" * 5000 + "'})"):  # fmt: skip
        store.explore(write, allow_writes=True)
    assert d.list_constraints(store._g) == []
    assert store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 3}]


def test_apply_custom_schema_then_nothing_left(store: FalkorDBStore) -> None:
    spec = SchemaSpec(
        keys=(NodeKey("Chunk"),),
        fulltext=(FulltextIndex("chunk_text", "Chunk", ("text",)),),
        vector=(VectorIndex("chunk_vec", "Chunk", "embedding", 4),),
    )
    created = store.apply_schema(spec)
    assert "vector index on :Chunk(embedding)" in created
    assert store.apply_schema(spec) == []
    store.merge_nodes("Chunk", [{"id": "c1", "text": "hello graph world"}])
    assert [h.id for h in store.fulltext("chunk_text", ["graph"])] == ["c1"]


def test_merge_creates_the_key_index_lazily(store: FalkorDBStore) -> None:
    store.merge_nodes("Venue", [{"id": "v1"}])
    indexes = d.list_indexes(store._g)
    assert d.has_index(indexes, "Venue", "id", "RANGE")


def test_snapshot_skips_nodes_without_id_and_odd_ids(store: FalkorDBStore) -> None:
    store.run("CREATE (:Paper {id: 'a'})-[:CITES]->(:Paper)-[:CITES]->(:Paper {id: 'c'})")
    store.run("MATCH (a:Paper {id: 'a'}), (c:Paper {id: 'c'}) CREATE (a)-[:CITES]->(c)")
    snap = store.edge_snapshot("Paper", "CITES")
    assert snap.ids == ["a", "c"] and (snap.src.tolist(), snap.dst.tolist()) == ([0], [1])
    odd = "x\x1fy,z"  # contains the join separator: that window falls back to a list
    store.merge_nodes("Paper", [{"id": odd}])
    store.merge_relationships("CITES", "Paper", "Paper", [{"start": odd, "end": "a"}])
    snap = store.edge_snapshot("Paper", "CITES")
    assert snap.ids == ["a", "c", odd]
    assert sorted(zip(snap.src.tolist(), snap.dst.tolist(), strict=True)) == [(0, 1), (2, 0)]


def test_store_rejects_bad_graph_name(store: FalkorDBStore) -> None:
    with pytest.raises(InputError):
        FalkorDBStore(store.db, "two words")


@pytest.mark.parametrize(
    ("query", "may"),
    [
        ("MATCH (n:Paper {id: 'p2'}) SET n.`id` = 'p1'", True),
        ("MATCH (n), (m) SET n.title = 'x', n = properties(m)", True),
        ("MATCH (n), (m) SET n.title = 'x', n = m", True),
        ("MATCH (n) SET n.id /* a comment */ = 'p1'", True),
        ("MATCH (n) SET n += $map", True),
        ("MATCH (n) SET n = $map", True),
        ("MATCH (n:Paper {id: 'p1'}) SET n.title = 'x', n.year = 2020", False),
        ("MATCH (n) WHERE n.title =~ 'x' SET n.t = 1", False),
        ("MATCH (n) SET n.t = 1 // , n = m", False),
        # a URL's // in a string is no comment (the review's case: the SET after it was hidden)
        ("MATCH (p:Paper {url: 'http://x.org'}) SET p.id = 'W1'", True),
        ('MATCH (p {u: "a\\"//"}) SET p.id = 1', True),
        ("MATCH (p) SET p.t = 'n.id = 1'", False),
    ],
)
def test_a_write_that_may_set_a_key_is_followed_by_the_scan(query: str, may: bool) -> None:
    """Which user writes are followed by the shared-key scan (``FalkorDBStore.explore``):
    every way a review found to set ``id`` (a quoted name, a map assignment after another
    item, a comment inside), and not a write that names ``id`` only to find its node."""
    from scholarkg.store.falkordb.store import _may_share_a_key

    assert _may_share_a_key(query, {"properties set": 1}) is may
    assert _may_share_a_key(query, {"nodes created": 1}) is True
    assert _may_share_a_key(query, {"relationships created": 1}) is False
