"""``merge_relationships(new_starts=…)``: rows from nodes the caller just created may be
CREATEd (the embedded store does; Neo4j decides on the server), with the same result as
MERGE: one relationship per pair, rows with a missing endpoint skipped and not counted,
a blank endpoint an ``InputError`` naming its row."""

from __future__ import annotations

import pytest

from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore


def _edges(store: GraphStore) -> list[tuple[str, str, object]]:
    rows = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN a.id AS a, b.id AS b, r.from_openalex AS f"
    )
    return sorted((r["a"], r["b"], r["f"]) for r in rows)


def test_new_starts_create_what_merge_would(any_store: GraphStore) -> None:
    store = any_store
    store.merge_nodes("Paper", [{"id": i} for i in ("old", "new1", "new2", "e1", "e2", "e3")])
    store.merge_relationships("CITES", "Paper", "Paper", [{"start": "old", "end": "e1"}])
    rows = [
        {"start": s, "end": e, "props": {"from_openalex": True}}
        for s, e in [
            ("new1", "e1"),
            ("new1", "e2"),
            ("new1", "e1"),  # a pair twice: one relationship
            ("new2", "e3"),
            ("new2", "missing"),  # no such end: skipped
            ("old", "e1"),
            ("old", "e2"),  # not new: MERGEd onto what is there
        ]
    ]
    written = store.merge_relationships(
        "CITES", "Paper", "Paper", rows, batch_size=2, new_starts={"new1", "new2"}
    )
    assert written == 6  # the rows that found both ends, as MERGE counts them
    assert _edges(store) == [
        ("new1", "e1", True), ("new1", "e2", True), ("new2", "e3", True),
        ("old", "e1", True), ("old", "e2", True),
    ]  # fmt: skip


def test_new_starts_blank_endpoint_names_the_row(any_store: GraphStore) -> None:
    any_store.merge_nodes("Paper", [{"id": "a"}, {"id": "b"}])
    rows = [{"start": "a", "end": "b", "props": {}}, {"start": "a", "end": " ", "props": {}}]
    with pytest.raises(InputError) as err:
        any_store.merge_relationships("CITES", "Paper", "Paper", rows, new_starts={"a"})
    assert err.value.line == 2 and err.value.field == "end"
