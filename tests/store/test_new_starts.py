"""``merge_relationships(new_starts=…)``: rows from nodes the caller just created may be
CREATEd (the embedded store does; Neo4j decides on the server), with the same result as
MERGE: one relationship per pair, rows with a missing endpoint skipped and not counted,
a blank endpoint an ``InputError`` naming its row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore


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


def _authorships(store: GraphStore) -> list[tuple[str, str, object, object]]:
    rows = store.run(
        "MATCH (a:Paper)-[r:AUTHORED_BY]->(b:Author) "
        "RETURN a.id AS a, b.id AS b, r.position AS position, r.name AS name"
    )
    return sorted((r["a"], r["b"], r["position"], r["name"]) for r in rows)


def test_new_starts_create_rows_with_their_own_properties(any_store: GraphStore) -> None:
    """Rows that each carry their properties (authorships): those from new starts are
    CREATEd with them, the rest MERGEd onto what is there; the count is MERGE's."""
    store = any_store
    store.merge_nodes("Paper", [{"id": i} for i in ("old", "new1", "new2")])
    store.merge_nodes("Author", [{"id": i} for i in ("x", "y", "z")])
    store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "old", "end": "x", "position": 9}]
    )
    rows = [
        {"start": "new1", "end": "x", "props": {"position": 1, "name": "X. One"}},
        {"start": "new1", "end": "y", "props": {"position": 2}},
        {"start": "new2", "end": "z", "props": {"position": 1, "name": "Zed"}},
        {"start": "new2", "end": "missing", "props": {"position": 2}},  # skipped
        {"start": "old", "end": "x", "props": {"position": 1}},  # MERGEd: one edge, updated
        {"start": "old", "end": "y", "props": {"position": 2, "name": "Y"}},
    ]
    written = store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", rows, batch_size=2, new_starts={"new1", "new2"}
    )
    assert written == 5
    assert _authorships(store) == [
        ("new1", "x", 1, "X. One"), ("new1", "y", 2, None), ("new2", "z", 1, "Zed"),
        ("old", "x", 1, None), ("old", "y", 2, "Y"),
    ]  # fmt: skip


def test_new_starts_rows_with_a_pair_twice_are_merged_row_by_row(any_store: GraphStore) -> None:
    """A pair twice among rows with their own properties: all of them go as plain MERGE,
    so the count and the edges are the ones the same rows give without ``new_starts``."""
    any_store.merge_nodes("Paper", [{"id": "new"}, {"id": "plain"}, {"id": "old"}])
    any_store.merge_nodes("Author", [{"id": "x"}, {"id": "y"}])
    # the type exists first: FalkorDB counts a pair twice in the statement that creates a
    # relationship type once, and twice afterwards
    any_store.merge_relationships("AUTHORED_BY", "Paper", "Author", [{"start": "old", "end": "y"}])

    def rows(start: str) -> list[dict[str, Any]]:
        return [
            {"start": start, "end": "x", "props": {"position": 1}},
            {"start": start, "end": "y", "props": {"position": 2}},
            {"start": start, "end": "x", "props": {"position": 1}},
        ]

    merged = any_store.merge_relationships("AUTHORED_BY", "Paper", "Author", rows("plain"))
    written = any_store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", rows("new"), new_starts={"new"}
    )
    assert written == merged
    assert _authorships(any_store) == [
        ("new", "x", 1, None), ("new", "y", 2, None), ("old", "y", None, None),
        ("plain", "x", 1, None), ("plain", "y", 2, None),
    ]  # fmt: skip


def test_new_starts_rows_blank_endpoint_names_the_row(any_store: GraphStore) -> None:
    any_store.merge_nodes("Paper", [{"id": "a"}])
    any_store.merge_nodes("Author", [{"id": "b"}])
    rows: list[dict[str, Any]] = [
        {"start": "a", "end": "b", "props": {"position": 1}},
        {"start": " ", "end": "b"},
    ]
    with pytest.raises(InputError) as err:
        any_store.merge_relationships("AUTHORED_BY", "Paper", "Author", rows, new_starts={"a"})
    assert err.value.line == 2 and err.value.field == "start"
    assert _authorships(any_store) == []  # nothing of the batch was sent


def test_embedded_store_creates_new_starts_rows_in_groups(
    store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded store sends the rows of new starts as one grouped CREATE and only the
    others as MERGE (Neo4j decides on the server, whatever ``new_starts`` says)."""
    store.merge_nodes("Paper", [{"id": "new"}, {"id": "old"}])
    store.merge_nodes("Author", [{"id": "x"}, {"id": "y"}])
    sent: list[tuple[str, dict[str, Any]]] = []
    send = store._send_counted

    def recording(query: str, params: Mapping[str, Any]) -> int:
        sent.append((query, dict(params)))
        return send(query, params)

    monkeypatch.setattr(store, "_send_counted", recording)
    rows = [
        {"start": "new", "end": "x", "props": {"position": 1}},
        {"start": "new", "end": "y", "props": {"position": 2}},
        {"start": "old", "end": "x", "props": {"position": 1}},
    ]
    assert (
        store.merge_relationships("AUTHORED_BY", "Paper", "Author", rows, new_starts={"new"}) == 3
    )
    assert [("CREATE" in q, "MERGE" in q) for q, _ in sent] == [(True, False), (False, True)]
    assert sent[0][1] == {"groups": [["new", [["x", {"position": 1}], ["y", {"position": 2}]]]]}
    assert [r["start"] for r in sent[1][1]["rows"]] == ["old"]
