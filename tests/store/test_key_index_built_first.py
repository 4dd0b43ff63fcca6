"""The embedded store's first write to a label without an ``id`` index creates the index
and waits until it is built (``FalkorDBStore._ensure_key_index``).

FalkorDB builds an index in the background and answers queries meanwhile, wrongly for a
writer: a new index is bypassed by a label scan per row (minutes for a few thousand merges
into a label of tens of thousands of nodes), and a field added to a label's existing index
rebuilds that index, during which look-ups miss nodes that are there. Labels here get their
nodes through raw Cypher, as a user's own ``CREATE`` would, before any scholarkg write; and an
index the user creates through ``scholarkg cypher`` is built when the command returns."""

from __future__ import annotations

from scholarkg.store.falkordb import dialect
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

NODES = 30_000


def _create_venues(store: FalkorDBStore) -> None:
    store.run(
        "UNWIND range(0, $n - 1) AS i CREATE (:Venue {id: 'v' + toString(i), name: 'x'})",
        {"n": NODES},
    )


def _venue_index(store: FalkorDBStore) -> dialect.IndexInfo:
    (info,) = [i for i in dialect.list_indexes(store._g) if i.label == "Venue"]
    return info


def test_a_new_key_index_is_built_before_the_first_write(store: FalkorDBStore) -> None:
    _create_venues(store)
    assert store.merge_nodes("Venue", [{"id": "v0", "name": "y"}]) == 1
    store.settle()
    info = _venue_index(store)
    assert "RANGE" in info.types["id"]
    assert info.status == "OPERATIONAL"  # not "[Indexing] 0/30000: UNDER CONSTRUCTION"
    # many merges now take index look-ups, not a scan each
    rows = [{"id": f"v{i}", "name": "y"} for i in range(0, NODES, 10)]
    assert store.merge_nodes("Venue", rows) == len(rows)
    store.settle()
    assert store.run("MATCH (v:Venue) RETURN count(v) AS n, count(DISTINCT v.id) AS ids") == [
        {"n": NODES, "ids": NODES}
    ]
    assert store.run("MATCH (v:Venue {name: 'y'}) RETURN count(v) AS n") == [{"n": NODES // 10}]


def test_a_write_waits_for_an_index_another_client_is_rebuilding(
    store: FalkorDBStore, embedded_server: EmbeddedServer
) -> None:
    """The label's ``id`` index is there, and another client (a user's ``CREATE INDEX``)
    adds a field to it, so FalkorDB rebuilds the label's index; a store opened then waits
    for the rebuild before its first write to the label instead of writing through it."""
    _create_venues(store)
    store.merge_nodes("Venue", [{"id": "v0", "name": "x"}])  # the id index, built
    store.settle()
    store.run("CREATE INDEX FOR (v:Venue) ON (v.name)")  # not waited for
    writer = FalkorDBStore(embedded_server.connect(), store.graph)
    try:
        assert writer.merge_nodes("Venue", [{"id": "v0", "name": "y"}]) == 1
        writer.settle()
        assert _venue_index(store).status == "OPERATIONAL"
        rows = [{"id": f"v{i}", "name": "y"} for i in range(0, NODES, 3)]
        assert writer.merge_nodes("Venue", rows) == len(rows)
        writer.settle()
    finally:
        writer.close()
    assert store.run("MATCH (v:Venue) RETURN count(v) AS n, count(DISTINCT v.id) AS ids") == [
        {"n": NODES, "ids": NODES}
    ]
    assert store.run("MATCH (v:Venue {name: 'y'}) RETURN count(v) AS n") == [{"n": len(rows)}]


def test_an_index_made_through_scholarkg_cypher_is_built_when_it_returns(
    store: FalkorDBStore,
) -> None:
    """``scholarkg cypher`` (``explore`` with writes) answers a ``CREATE INDEX`` once the
    index is built, as ``schema apply`` does, so the user's next query meets no build."""
    _create_venues(store)
    store.merge_nodes("Venue", [{"id": "v0", "name": "x"}])
    store.settle()
    store.explore("CREATE INDEX FOR (v:Venue) ON (v.name)", allow_writes=True)
    info = _venue_index(store)
    assert "RANGE" in info.types["name"] and info.status == "OPERATIONAL"
