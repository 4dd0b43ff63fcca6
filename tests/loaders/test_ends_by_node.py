"""On the embedded store a new work's ``CITES`` to a work its look-up found take that end by
the internal node id the look-up read (``identity/lookup_papers.falkordb.cypher``,
``IdentityResolver._nodes``, ``dialect.create_grouped_by_node_query``), checked against the
id the end should carry. The graph is the one the id index seek leaves, through merges,
renames and stubs described later; every node the resolver still holds is the node that
carries that id; and a hint naming a node that does not carry the row's end (stale, or
another Paper's) never writes a relationship to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import citing_work as _work
from _catalogue_works import load_work_by_work, write_openalex

from scholarkg.loaders import openalex
from scholarkg.queries import load_query
from scholarkg.store.falkordb.store import FalkorDBStore

from .test_bulk_equals_incremental import everything


def _stored(store: FalkorDBStore) -> None:
    """Before the load: W80 described, W50 as a stub of its OpenAlex id and the same work
    keyed by its DOI (W50's own record merges the two)."""
    store.apply_schema()
    store.run("CREATE (:Paper {id: 'openalex:W80', openalex_id: 'W80', title: 'Work 80'})")
    store.run("CREATE (:Paper:Stub {id: 'openalex:W50', openalex_id: 'W50'})")
    store.run("CREATE (:Paper {id: 'doi:10.5555/50', doi: '10.5555/50', title: 'Work 50'})")


def test_ends_taken_by_node_leave_the_graph_the_id_seek_leaves(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    works = [
        _work(1, [80, 50, 60]),  # W80 and W50 found: by node; W60 unknown: its stub
        _work(2, [80, 50, 60, 1]),  # W1 written by chunk 1, found now
        _work(50, [80], doi="10.5555/50"),  # W50 described: a merge (drops every node held)
        _work(60, [2], doi="10.5555/60"),  # the stub W60 described: renamed to its DOI
        _work(3, [80, 50, 60, 2]),  # W50 names the survivor, W60 its renamed node
        _work(4, [80, 50, 60, 3]),
    ]
    path = write_openalex(tmp_path / "snap", works)
    part = openalex.snapshot_files([path.parents[2]])[0][0]
    sent: list[int] = []
    original = FalkorDBStore._send_groups

    def counting(self: FalkorDBStore, query: str, groups: list[list[Any]], *a: Any) -> int:
        if "id(b) = n" in query:
            sent.append(sum(len(g[1]) for g in groups))
        return original(self, query, groups, *a)

    monkeypatch.setattr(FalkorDBStore, "_send_groups", counting)
    graphs = []
    for by_node in (True, False):
        monkeypatch.setattr(FalkorDBStore, "_takes_ends_by_node", by_node)
        store.clear()
        _stored(store)
        sent.clear()
        resolver = load_work_by_work(store, part)
        if by_node:
            assert sum(sent) >= 8  # W80 by every work, W50, W1, W2, W3 and the renamed W60
            held = resolver._nodes
            assert held
            rows = store.run("MATCH (p:Paper) RETURN p.id AS id, id(p) AS node")
            now = {str(r["id"]): str(r["node"]) for r in rows}
            assert {pid: now.get(pid) for pid in held} == held  # each the node with that id
        else:
            assert not sent
        graphs.append(everything(store))
    assert graphs[0] == graphs[1]
    cites = store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE a.openalex_id = 'W4' RETURN b.id AS b"
    )
    assert sorted(r["b"] for r in cites) == [
        "doi:10.5555/50", "doi:10.5555/60", "openalex:W3", "openalex:W80",
    ]  # fmt: skip


def _nodes(store: FalkorDBStore) -> dict[str, int]:
    rows = store.run("MATCH (p:Paper) RETURN p.id AS id, id(p) AS n")
    return {str(r["id"]): int(r["n"]) for r in rows}


def test_a_hint_naming_another_node_writes_nothing_to_it(store: FalkorDBStore) -> None:
    """A row whose node does not carry its end (another Paper's node; a node deleted and
    its id given to the next one created) is not written, and never to that node; the
    rows without a hint, or with their own node, are written as the seek writes them."""
    store.merge_nodes("Paper", [{"id": i} for i in ("new", "b", "c", "gone")])
    node = _nodes(store)
    store.delete_nodes("Paper", ["gone"])
    store.merge_nodes("Author", [{"id": "a1"}])  # takes the deleted Paper's id
    reused = store.run("MATCH (a:Author {id: 'a1'}) RETURN id(a) AS n")[0]["n"]
    assert reused == node["gone"]  # FalkorDB's reuse, which the check guards against
    props = {"from_openalex": True}
    rows: list[dict[str, Any]] = [
        {"start": "new", "end": "b", "props": props, "node": str(node["b"])},  # its own node
        {"start": "new", "end": "c", "props": props, "node": str(node["b"])},  # b's node
        {"start": "new", "end": "gone", "props": props, "node": str(node["gone"])},  # Author's
        {"start": "new", "end": "new", "props": props},  # no hint: sought by id
    ]
    written = store.merge_relationships("CITES", "Paper", "Paper", rows, new_starts={"new"})
    assert written == 2
    edges = store.run("MATCH (a)-[r:CITES]->(b) RETURN a.id AS a, b.id AS b ORDER BY b")
    assert [(r["a"], r["b"]) for r in edges] == [("new", "b"), ("new", "new")]
    assert store.run("MATCH ()-[r]->(:Author) RETURN count(r) AS n")[0]["n"] == 0


def test_the_falkordb_look_up_is_the_look_up_with_each_rows_node() -> None:
    """The FalkorDB variant of ``identity/lookup_papers`` is the shared look-up, branch for
    branch, with the node column added: an edit of one that the other misses fails here."""

    def body(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("//")]

    shared = body(load_query("identity/lookup_papers", "neo4j"))
    with_node = [
        line.replace("p.id AS id", "p.id AS id, toString(id(p)) AS node")
        if line.startswith("RETURN")
        else line
        for line in shared
    ]
    assert body(load_query("identity/lookup_papers", "falkordb")) == with_node
    assert sum(line.startswith("RETURN") for line in shared) == 19
