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


def test_writes_are_checked_against_the_schema_whitelists() -> None:
    store = RecordingStore()
    assert store.merge_nodes("Leaderboard", [{"id": "lb:1", "name": None}]) == 1
    assert store.nodes == {"Leaderboard": {"lb:1": {"id": "lb:1"}}}
    with pytest.raises(InputError, match="unknown node label"):
        store.merge_nodes("NoSuchLabel", [{"id": "x"}])
    with pytest.raises(InputError, match="unknown relationship type"):
        store.merge_relationships("NO_SUCH", "Paper", "Paper", [{"start": "a", "end": "b"}])
