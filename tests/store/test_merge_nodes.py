"""``merge_nodes`` on a node that exists: a row's properties replace the ones they name, and
a row equal to what is stored leaves the node as it is (the embedded store then skips the
write: ``falkordb/dialect.merge_changed_nodes_query``), on both backends alike."""

from __future__ import annotations

from scholarkg.store.base import GraphStore


def _authors(store: GraphStore) -> dict[str, dict[str, object]]:
    rows = store.run("MATCH (n:Author) RETURN n.id AS id, properties(n) AS p")
    return {str(r["id"]): dict(r["p"]) for r in rows}


def test_rows_change_what_they_name_and_nothing_else(any_store: GraphStore) -> None:
    store = any_store
    store.merge_nodes(
        "Author",
        [
            {"id": "a", "name": "Ada", "orcid": "0000-1", "aliases": ["A. L."]},
            {"id": "b", "name": "Charles"},
            {"id": "c", "name": "Grace", "h_index": 3},
        ],
    )
    before = _authors(store)
    written = store.merge_nodes(
        "Author",
        [
            {"id": "a", "name": "Ada", "orcid": "0000-1", "aliases": ["A. L."]},  # equal
            {"id": "b", "name": "Charles B."},  # one value changed
            {"id": "c", "name": "Grace", "h_index": 4, "orcid": None},  # a null is no change
            {"id": "d"},  # new, no properties
            {"id": "e", "aliases": ["E.", "E. F."]},  # new, a list
        ],
    )
    assert written == 5
    after = _authors(store)
    assert after["a"] == before["a"]
    assert after["b"] == {"id": "b", "name": "Charles B."}
    assert after["c"] == {"id": "c", "name": "Grace", "h_index": 4}
    assert after["d"] == {"id": "d"}
    assert after["e"] == {"id": "e", "aliases": ["E.", "E. F."]}
    # a list that changes is replaced whole
    store.merge_nodes("Author", [{"id": "a", "aliases": ["A. L.", "Ada L."]}])
    assert _authors(store)["a"]["aliases"] == ["A. L.", "Ada L."]
