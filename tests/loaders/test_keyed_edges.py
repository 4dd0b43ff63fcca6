"""Keyed relationships through the shared ``RecordWriter`` on the embedded FalkorDB.

An ``EdgeRecord`` with ``MERGE_KEY`` keeps one relationship per (start, end, key values):
several judgements of one pair stay several edges, and reloading adds none.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders.writer import RecordWriter, write_records
from scholarkg.schema.records import EdgeRecord, Judgement, NodeRecord, Paper
from scholarkg.store.base import GraphStore


class Graded(EdgeRecord):
    """A Paper -> Paper judgement keyed by who judged (``source``)."""

    TYPE: ClassVar[str] = "JUDGED"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Paper"
    MERGE_KEY: ClassVar[tuple[str, ...]] = ("source",)
    source: str | None = None
    score: float


def _judged(store: GraphStore) -> list[dict[str, object]]:
    return store.run(
        "MATCH (a:Paper)-[r:JUDGED]->(b:Paper) "
        "RETURN a.id AS a, b.id AS b, r.source AS source, r.score AS score "
        "ORDER BY a, b, source"
    )


def test_two_keys_on_one_pair_are_two_edges_and_reloading_keeps_two(store: GraphStore) -> None:
    records: list[NodeRecord | EdgeRecord] = [
        Paper(id="p1", title="one"),
        Paper(id="p2", title="two"),
        Graded(start="p1", end="p2", source="gpt", score=2.0),
        Graded(start="p1", end="p2", source="human", score=1.0),
    ]
    report = write_records(store, records)
    assert report.relationships["JUDGED"] == 2
    assert store.counts().relationships == {"JUDGED": 2}
    write_records(store, records, batch_size=1)  # again, one row per batch
    assert store.counts().relationships == {"JUDGED": 2}
    assert _judged(store) == [
        {"a": "p1", "b": "p2", "source": "gpt", "score": 2.0},
        {"a": "p1", "b": "p2", "source": "human", "score": 1.0},
    ]


def test_same_key_in_one_batch_is_one_write_later_props_win(store: GraphStore) -> None:
    with RecordWriter(store) as writer:
        writer.add(Paper(id="p1"))
        writer.add(Paper(id="p2"))
        writer.add(Graded(start="p1", end="p2", source="gpt", score=0.0))
        writer.add(Graded(start="p1", end="p2", source="gpt", score=2.0))
        writer.add(Graded(start="p1", end="p2", source="human", score=1.0))
        writer.add(Graded(start="p1", end="ghost", source="gpt", score=1.0))
    assert writer.report.relationships["JUDGED"] == 2
    assert writer.report.skipped_relationships["JUDGED"] == 1  # the missing endpoint
    assert [r["score"] for r in _judged(store)] == [2.0, 1.0]


def test_a_keyed_record_without_its_key_is_an_input_error(store: GraphStore) -> None:
    with pytest.raises(InputError, match="no merge key value") as info:
        write_records(store, [Paper(id="p1"), Graded(start="p1", end="p1", score=1.0)])
    assert info.value.field == "source"
    # what was read before it is stored (a Paper known by its id only: a stub)
    assert store.counts().nodes == {"Paper": 1, "Stub": 1}


def test_judgements_default_to_one_key_per_source_and_pair() -> None:
    given = Judgement(start="a", end="p", score=1.0, source="gpt", key="gpt:7")
    made = Judgement(start="a", end="p", score=1.0, source="llm")
    assert given.merge_key() == {"key": "gpt:7"}
    assert made.merge_key() == {"key": "llm:a:p"} == {"key": made.properties()["key"]}
