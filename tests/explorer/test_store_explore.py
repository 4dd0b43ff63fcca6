"""``GraphStore.explore``: the store method behind the explorer, on the real embedded server.

Read-only and the timeout are enforced by FalkorDB itself (``GRAPH.RO_QUERY``, the TIMEOUT
argument), so these tests send real writes and real slow queries.
"""

from __future__ import annotations

import time

import pytest

from scholarkg.errors import CypherError, InputError
from scholarkg.store.falkordb.store import FalkorDBStore


@pytest.fixture
def tiny(store: FalkorDBStore) -> FalkorDBStore:
    """p1 -> p2 -> p3 (CITES), p1 authored by a1."""
    store.merge_nodes("Paper", [{"id": f"p{i}", "title": f"Paper {i}"} for i in (1, 2, 3)])
    store.merge_nodes("Author", [{"id": "a1", "name": "Ada"}])
    store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": "p1", "end": "p2"}, {"start": "p2", "end": "p3"}]
    )
    store.merge_relationships(
        "AUTHORED_BY", "Paper", "Author", [{"start": "p1", "end": "a1", "props": {"position": 1}}]
    )
    return store


def test_nodes_come_with_labels_refs_and_relationships(tiny: FalkorDBStore) -> None:
    res = tiny.explore(
        "MATCH (a:Paper)-[c:CITES]->(b:Paper) RETURN a, c, b, a.title AS t ORDER BY a.id"
    )
    assert res.columns == ["a", "c", "b", "t"]
    assert len(res.rows) == 2 and not res.truncated
    assert {n.properties["id"] for n in res.nodes.values()} == {"p1", "p2", "p3"}
    assert all(n.labels == ("Paper",) for n in res.nodes.values())
    first = res.rows[0]
    a, c, b = res.nodes[first[0]["~node"]], res.relationships[first[1]["~rel"]], first[2]
    assert a.properties["id"] == "p1" and first[3] == "Paper 1"
    assert c.type == "CITES" and c.start == a.ref and c.end == b["~node"]
    payload = res.as_dict()
    assert len(payload["nodes"]) == 3 and len(payload["relationships"]) == 2


def test_paths_list_their_refs(tiny: FalkorDBStore) -> None:
    res = tiny.explore("MATCH p = (:Paper {id: 'p1'})-[:CITES*2]->(:Paper) RETURN p")
    (cell,) = res.rows[0]
    refs = cell["~path"]
    assert len(refs) == 5
    assert [res.nodes[r].properties["id"] for r in refs[::2]] == ["p1", "p2", "p3"]
    assert all(res.relationships[r].type == "CITES" for r in refs[1::2])


def test_read_only_refuses_a_write_in_the_database(tiny: FalkorDBStore) -> None:
    # a write the text gives no hint of (a procedure would pass a keyword filter too)
    for query in ("CREATE (:Paper {id: 'x'})", "MATCH (p:Paper {id: 'p1'}) SET p.title = 'y'"):
        with pytest.raises(CypherError, match="read-only"):
            tiny.explore(query)
    assert tiny.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"] == 3
    assert tiny.run("MATCH (p:Paper {id: 'p1'}) RETURN p.title AS t")[0]["t"] == "Paper 1"


def test_allow_writes_writes(tiny: FalkorDBStore) -> None:
    tiny.explore("CREATE (:Paper {id: 'p4'})", allow_writes=True)
    assert tiny.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"] == 4


def test_timeout_stops_a_slow_query(tiny: FalkorDBStore) -> None:
    start = time.monotonic()
    with pytest.raises(CypherError, match="timed out"):
        tiny.explore(
            "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(*)",
            timeout_ms=100,
        )
    assert time.monotonic() - start < 5


def test_row_limit_truncates(tiny: FalkorDBStore) -> None:
    res = tiny.explore("UNWIND range(1, 500) AS x RETURN x", row_limit=20)
    assert [r[0] for r in res.rows] == list(range(1, 21))
    assert res.truncated
    assert not tiny.explore("UNWIND range(1, 20) AS x RETURN x", row_limit=20).truncated


def test_limits_are_checked(tiny: FalkorDBStore) -> None:
    with pytest.raises(InputError, match="timeout"):
        tiny.explore("RETURN 1", timeout_ms=0)
    with pytest.raises(InputError, match="row limit"):
        tiny.explore("RETURN 1", row_limit=0)


def test_neighbours_of_a_node(tiny: FalkorDBStore) -> None:
    res = tiny.explore("MATCH (p:Paper {id: 'p1'}) RETURN p")
    ref = res.rows[0][0]["~node"]
    around = tiny.explore_neighbours(ref)
    ids = {n.properties["id"] for n in around.nodes.values()}
    assert ids == {"p1", "p2", "a1"}
    assert sorted(r.type for r in around.relationships.values()) == ["AUTHORED_BY", "CITES"]
    assert len(tiny.explore_neighbours(ref, limit=1).relationships) == 1
    with pytest.raises(InputError):
        tiny.explore_neighbours("not-a-number")


def test_a_lonely_node_expands_to_itself(tiny: FalkorDBStore) -> None:
    tiny.merge_nodes("Venue", [{"id": "v1", "name": "Nowhere"}])
    ref = tiny.explore("MATCH (v:Venue) RETURN v").rows[0][0]["~node"]
    around = tiny.explore_neighbours(ref)
    assert list(around.nodes) == [ref] and not around.relationships


def test_indexes_are_listed(tiny: FalkorDBStore) -> None:
    tiny.apply_schema()
    rows = tiny.explore_indexes()
    assert {"label": "Paper", "entity": "NODE", "properties": ["id"]}.items() <= next(
        r for r in rows if r["label"] == "Paper" and r["properties"] == ["id"]
    ).items()
    assert not any("UNIQUE" in r["type"] for r in rows)  # keys are range indexes here
    assert any("FULLTEXT" in r["type"] for r in rows)


def test_vectors_are_summarised(tiny: FalkorDBStore) -> None:
    tiny.run(
        "MATCH (p:Paper {id: 'p1'}) SET p.emb_minilm_l6 = vecf32($v), p.scores = $s, p.tags = $t",
        {"v": [0.5] * 16, "s": list(range(100)), "t": ["a", "b"]},
    )
    props = next(
        iter(tiny.explore("MATCH (p:Paper {id: 'p1'}) RETURN p").nodes.values())
    ).properties
    assert props["emb_minilm_l6"] == "<vector, 16 values>"
    assert props["scores"] == "<vector, 100 values>"
    assert props["tags"] == ["a", "b"]


def test_a_graph_that_does_not_exist_says_so(store: FalkorDBStore) -> None:
    with pytest.raises(CypherError, match="does not exist yet"):
        store.explore("RETURN 1")
