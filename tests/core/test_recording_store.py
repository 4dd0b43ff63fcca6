"""The recording store double (``tests/_fakes.RecordingStore``) keeps unit tests honest.

It answers only what a test gave it, only for queries that exist, and refuses writes the real
stores refuse, so a test on the double cannot pass by asking for something the code would never
get from a real store.
"""

from __future__ import annotations

import pytest
from _fakes import RecordingStore

from scholarkg.errors import InputError
from scholarkg.leaderboards import list_leaderboards


def test_answers_named_queries_and_records_what_was_asked() -> None:
    rows = [{"id": "lb:1", "task": "t", "dataset": "d", "metric": "m", "entries": 3}]
    store = RecordingStore({"legobench/leaderboard_list": lambda p: rows[: p.get("limit", 9)]})
    assert [r["id"] for r in list_leaderboards(store)] == ["lb:1"]
    assert store.asked() == ["legobench/leaderboard_list"]


def test_unknown_or_unanswered_queries_fail() -> None:
    store = RecordingStore({"no/such_query": []})
    with pytest.raises(AssertionError, match="is not a named query"):
        store.run_named("no/such_query")
    with pytest.raises(AssertionError, match="gave no rows"):
        store.run_named("legobench/leaderboard_list")
    with pytest.raises(AssertionError, match="gave no rows"):
        store.run("MATCH (n) RETURN n")


def test_answers_templated_queries_and_checks_their_identifiers() -> None:
    """Library code that fills a query's ``{{placeholders}}`` (the node counts of the
    embedding service here) runs on the double like any other: identifiers are kept, and
    refused as the real stores refuse them."""
    from scholarkg.services.embeddings import count_nodes

    store = RecordingStore({"embeddings/count_nodes": [{"n": 7}]})
    assert count_nodes(store, "Paper") == 7
    assert store.identifiers == [("embeddings/count_nodes", {"label": "Paper"})]
    with pytest.raises(InputError, match="unknown node label"):
        store.run_named("embeddings/count_nodes", {}, label="Paper) DETACH DELETE (x")
    with pytest.raises(InputError, match="missing"):
        store.run_named("embeddings/count_nodes", {})


def test_writes_are_checked_against_the_schema_whitelists() -> None:
    store = RecordingStore()
    assert store.merge_nodes("Leaderboard", [{"id": "lb:1", "name": None}]) == 1
    assert store.nodes == {"Leaderboard": {"lb:1": {"id": "lb:1"}}}
    with pytest.raises(InputError, match="unknown node label"):
        store.merge_nodes("NoSuchLabel", [{"id": "x"}])
    with pytest.raises(InputError, match="unknown relationship type"):
        store.merge_relationships("NO_SUCH", "Paper", "Paper", [{"start": "a", "end": "b"}])


def test_loaded_graph_merges_as_the_writer_does() -> None:
    """``LoadedGraph`` (what the doubles' answers read) keeps one node per id with later
    properties added, one relationship per endpoints and merge key with later properties
    winning, and drops a relationship whose endpoint was not loaded under its label."""
    from _fakes import LoadedGraph

    from scholarkg.schema.records import Aspect, Citation, Judgement, Paper

    g = LoadedGraph(
        [
            Aspect(aspect_id="1", source="s"),
            Paper(id="p:1", title="One"),
            Paper(id="p:2"),
            Aspect(aspect_id="1", source="s", text="later text"),
            Judgement(start="aspect:s:1", end="p:1", score=1.0, source="gpt", key="k1"),
            Judgement(start="aspect:s:1", end="p:1", score=2.0, source="gpt", key="k2"),
            Judgement(start="aspect:s:1", end="p:1", score=3.0, source="gpt", key="k1"),
            Citation(start="p:1", end="p:2"),
            Citation(start="p:1", end="p:nowhere"),
            Judgement(start="p:1", end="p:2", score=1.0, source="gpt"),  # start is no Aspect
        ]
    )
    assert g.props("aspect:s:1")["text"] == "later text"
    assert g.label("p:1") == "Paper" and g.label("p:nowhere") is None
    judged = g.out("aspect:s:1", "JUDGED")
    assert sorted((end, j["key"], j["score"]) for end, j in judged) == [
        ("p:1", "k1", 3.0),
        ("p:1", "k2", 2.0),
    ]
    assert [end for end, _ in g.out("p:1", "CITES")] == ["p:2"]
    assert g.out("p:1", "JUDGED") == []
    assert [p["id"] for p in g.of_label("Paper")] == ["p:1", "p:2"]
