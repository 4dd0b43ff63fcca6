"""The Neo4j dialect and store helpers that need no server: DDL text, Lucene quoting,
whitelists, value conversion, credentials hygiene. (Syntax is checked by the Cypher lint.)"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from scholarkg.config import Neo4jSettings, Settings
from scholarkg.errors import ConfigError, InputError, ServerError, StoreError
from scholarkg.schema.ddl import FulltextIndex, LookupIndex, NodeKey, SchemaSpec, VectorIndex
from scholarkg.store import open_store
from scholarkg.store.base import GraphStore
from scholarkg.store.neo4j import dialect as d
from scholarkg.store.neo4j.store import Neo4jStore, plain, redact_uri


def test_schema_ddl_is_idempotent_text_and_skips_keyed_lookups() -> None:
    spec = SchemaSpec(
        keys=(NodeKey("Paper"),),
        lookups=(
            LookupIndex("Paper", "id"),
            LookupIndex("Paper", "year"),
            LookupIndex("Paper", "year"),
        ),
        fulltext=(FulltextIndex("paper_text", "Paper", ("title", "abstract")),),
        vector=(VectorIndex("paper_vec", "Paper", "embedding", 384),),
    )
    assert d.schema_ddl(spec) == [
        "CREATE CONSTRAINT key_Paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE",
        "CREATE INDEX idx_Paper_year IF NOT EXISTS FOR (n:Paper) ON (n.year)",
        "CREATE FULLTEXT INDEX paper_text IF NOT EXISTS "
        "FOR (n:Paper) ON EACH [n.title, n.abstract]",
        "CREATE VECTOR INDEX paper_vec IF NOT EXISTS FOR (n:Paper) ON (n.embedding) "
        "OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: "
        "'cosine', `vector.quantization.enabled`: false}}",
    ]
    assert all("IF NOT EXISTS" in s for s in d.schema_ddl(spec))


@pytest.mark.parametrize(
    "bad",
    [
        lambda: d.unique_constraint_ddl("Paper) DETACH DELETE (x"),
        lambda: d.range_index_ddl("Paper", "year} RETURN 1 //"),
        lambda: d.fulltext_index_ddl(FulltextIndex("x y", "Paper", ("title",))),
        lambda: d.count_relationships_query("CITES]->() DELETE r //"),
        lambda: d.snapshot_edges_query("Paper", "CITES", "w) RETURN 1 //", subset=False),
    ],
)
def test_names_outside_the_whitelist_never_reach_cypher(bad: Callable[[], object]) -> None:
    with pytest.raises(InputError):
        bad()


def test_vector_index_checks_similarity_and_dimensions() -> None:
    with pytest.raises(StoreError):
        d.vector_index_ddl(VectorIndex("v", "Paper", "e", 384, similarity="euclidean"))
    with pytest.raises(StoreError):
        d.vector_index_ddl(VectorIndex("v", "Paper", "e", 5000))


def test_lucene_query_quotes_every_token() -> None:
    assert d.fulltext_query_text(["graph", "neural"]) == '"graph" OR "neural"'
    assert d.fulltext_query_text(["graph", "neural"], require_all=True) == '"graph" AND "neural"'
    # operators, reserved words and quotes end up inside a phrase, escaped
    assert d.fulltext_query_text(["AND", "C++", 'say "hi"', "a\\b"]) == (
        '"AND" OR "C++" OR "say \\"hi\\"" OR "a\\\\b"'
    )
    # punctuation-only tokens cannot match anything: dropped; nothing left -> ''
    assert d.fulltext_query_text(["(", "*", "-"]) == ""
    assert d.fulltext_query_text([]) == ""


def test_pagerank_queries_follow_the_config() -> None:
    q = d.pagerank_mutate_query("Paper", weighted=False, personalized=False)
    assert "relationshipWeightProperty" not in q and "sourceNodes" not in q
    q = d.pagerank_mutate_query("Paper", weighted=True, personalized=True)
    assert "relationshipWeightProperty: 'weight'" in q and "collect(s) AS sourceNodes" in q
    q = d.pagerank_mutate_query("Paper", weighted=False, personalized=True, biased=True)
    assert "collect([s, src.bias]) AS sourceNodes" in q
    proj = d.pagerank_projection_query("Paper", "CITES", "w")
    assert "OPTIONAL MATCH" in proj and "coalesce(r.w, 1.0)" in proj


def test_all_statements_are_unique_and_parameterised() -> None:
    statements = d.all_statements()
    assert len({s.name for s in statements}) == len(statements)
    for s in statements:
        for name in s.parameters:
            assert f"${name}" in s.text, (s.name, name)


def test_plain_converts_driver_values() -> None:
    from neo4j.time import Date, DateTime

    assert plain({"d": Date(2024, 5, 1), "l": [DateTime(2024, 5, 1, 12, 0, 0)]}) == {
        "d": "2024-05-01",
        "l": ["2024-05-01T12:00:00.000000000"],
    }
    assert plain((1, "a", None, 2.5, True)) == [1, "a", None, 2.5, True]


def test_credentials_never_appear(caplog: pytest.LogCaptureFixture) -> None:
    from neo4j import GraphDatabase

    assert redact_uri("neo4j+s://bob:hunter2@db.example:7687") == "neo4j+s://***@db.example:7687"
    driver = GraphDatabase.driver("bolt://localhost:1", auth=("neo4j", "hunter2"))
    store = Neo4jStore(driver, None, uri="bolt://u:hunter2@localhost:1", user="neo4j")
    try:
        assert "hunter2" not in repr(store)
        assert store.graph == "neo4j" and store.backend == "neo4j"
        assert isinstance(store, GraphStore)
    finally:
        store.close()
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ServerError) as info:
        Neo4jStore.from_settings(Neo4jSettings(uri="bolt://127.0.0.1:1", password="hunter2"))
    assert "hunter2" not in str(info.value)
    assert "hunter2" not in caplog.text
    assert "hunter2" not in repr(Neo4jSettings(uri="bolt://x", password="hunter2"))


def test_batched_deletes_are_sent_outside_managed_transactions() -> None:
    """``CALL … IN TRANSACTIONS`` fails inside ``execute_query``; ``run`` must detect it."""
    from scholarkg.store.neo4j.store import _IN_TRANSACTIONS

    assert _IN_TRANSACTIONS.search(d.DELETE_ALL)
    assert _IN_TRANSACTIONS.search("CALL { CREATE (:Paper) } IN 4 CONCURRENT TRANSACTIONS")
    assert not _IN_TRANSACTIONS.search("MATCH (p:Paper) RETURN p.id AS transactions")


def test_plain_turns_nodes_relationships_and_paths_into_dicts() -> None:
    """Same shapes as the embedded store: property dicts; a path in *path* order."""
    from neo4j.graph import Graph, Node, Path

    graph = Graph()
    a = Node(graph, "4:x:1", 1, ["Paper"], {"id": "a"})
    b = Node(graph, "4:x:2", 2, ["Paper"], {"id": "b"})
    cites = graph.relationship_type("CITES")(graph, "5:x:3", 3, {"w": 2})
    # b CITES a, traversed from a: (a)<-[:CITES]-(b). The driver's hydrator sets the
    # endpoints the same way.
    cites._start_node, cites._end_node = b, a
    assert plain({"n": a, "r": cites}) == {"n": {"id": "a"}, "r": {"w": 2}}
    assert plain(Path(a, cites)) == [{"id": "a"}, {"w": 2}, {"id": "b"}]


def test_open_store_without_uri_names_the_variable(tmp_path: Path) -> None:
    """``from_settings`` needs a URI; ``open_store`` without one uses the managed server
    (tests/store/test_managed_neo4j.py), and an unknown backend is refused."""
    settings = Settings(home=tmp_path, backend="neo4j", neo4j=Neo4jSettings(uri=None))
    with pytest.raises(ConfigError, match="NEO4J_URI"):
        Neo4jStore.from_settings(settings.neo4j)
    with pytest.raises(ConfigError, match="unknown backend"):
        open_store(dataclasses.replace(settings, backend="nope"))


def test_group_by_start_keeps_order_and_refuses_a_repeated_pair() -> None:
    """Rows grouped for ``merge_grouped_relationships_query``: starts in first-seen order,
    ends in row order, extra columns kept with their end; a repeated (start, end) pair
    sends the batch the row-by-row way (``None``)."""
    assert d.group_by_start([["a", "b"], ["c", "a"], ["a", "c"]]) == [
        ["a", ["b", "c"]],
        ["c", ["a"]],
    ]
    assert d.group_by_start([("a", "x", {"position": 1}), ("a", "y", {})]) == [
        ["a", [["x", {"position": 1}], ["y", {}]]]
    ]
    assert d.group_by_start([["a", "b"], ["a", "b"]]) is None
    assert d.group_by_start([]) == []


def test_grouped_relationship_writes_take_names_from_the_whitelist() -> None:
    text = d.merge_grouped_relationships_query("CITES", "Paper", "Paper", shared_props=True)
    assert "CREATE (a)-[r:CITES]->(b)" in text and "MERGE (a)-[r:CITES]->(b)" in text
    assert "SET a.id = a.id" in text  # the start node's lock before its degree is read
    with pytest.raises(InputError):
        d.merge_grouped_relationships_query("CITES]->() DELETE (a", "Paper", "Paper",
                                            shared_props=False)  # fmt: skip
