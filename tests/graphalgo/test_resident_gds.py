"""The resident-GDS-projection bookkeeping, without a Neo4j server.

What GDS computes is checked by the Neo4j contract suite (``test_projection_contract.py``, when
``NEO4J_URI`` is set). What can be checked here is the catalogue logic around it, which no
server run would exercise on its own: one projection per database state, reuse across
processes, older states dropped only after the current one exists, a projection raced by a
concurrent process or by a write, and which ``SHOW DATABASES`` row the fingerprint uses. The
store below records the calls it receives; it stands in only for those four GDS methods
(``resident_graphs``, ``project_native``, ``drop_projected``, ``write_fingerprint``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from scholarkg.errors import NotSupported, StoreError
from scholarkg.graphalgo.projection import ProjectionKey
from scholarkg.graphalgo.resident import ResidentGdsGraph
from scholarkg.store.base import PageRankConfig, PageRankResult
from scholarkg.store.neo4j import dialect as neo4j_dialect
from scholarkg.store.neo4j.gds import Neo4jGds
from scholarkg.store.neo4j.store import Neo4jStore

KEY = ProjectionKey("neo4j", "neo4j", "Paper", ("CITES",))


class RecordingGds:
    """The GDS catalogue calls of ``Neo4jStore``, over an in-memory set of graph names."""

    def __init__(self, counts: tuple[int, int] = (5, 4), fingerprint: str = "F1") -> None:
        self.graphs: set[str] = set()
        self.calls: list[tuple[str, str]] = []
        self.counts = counts
        self.fingerprint = fingerprint
        self.fail_project: Exception | None = None

    def resident_graphs(self, prefix: str) -> dict[str, dict[str, Any]]:
        return {
            g: {"nodes": self.counts[0], "relationships": self.counts[1], "properties": set()}
            for g in sorted(self.graphs)
            if g.startswith(prefix)
        }

    def project_native(
        self, name: str, label: str, rel_types: Any, *, node_properties: Any = None
    ) -> dict[str, int]:
        self.calls.append(("project", name))
        if self.fail_project is not None:
            raise self.fail_project
        self.graphs.add(name)
        return {"nodes": self.counts[0], "relationships": self.counts[1], "project_millis": 3}

    def drop_projected(self, name: str) -> None:
        self.calls.append(("drop", name))
        self.graphs.discard(name)

    def write_fingerprint(self) -> str:
        return self.fingerprint

    def pagerank_projected(
        self,
        name: str,
        node_label: str,
        config: PageRankConfig,
        *,
        weighted: bool = False,
        node_ids: Sequence[str] | None = None,
        property_name: str | None = None,
    ) -> PageRankResult:
        raise AssertionError("these tests rank nothing")


def test_one_projection_per_state_reused_then_replaced() -> None:
    gds = RecordingGds()
    first = ResidentGdsGraph(gds, KEY, "F1", 5, 4)
    assert first.ensure() == first.name and first.ensure() == first.name
    assert gds.calls == [("project", first.name)]  # reused, not projected again
    other_process = ResidentGdsGraph(gds, KEY, "F1", 5, 4)
    assert other_process.name == first.name and other_process.ensure() == first.name
    assert len(gds.calls) == 1

    gds.fingerprint = "F2"
    newer = ResidentGdsGraph(gds, KEY, "F2", 6, 4)
    gds.counts = (6, 4)
    assert newer.ensure() == newer.name != first.name
    # the new state is projected before the old one is dropped
    assert gds.calls[1:] == [("project", newer.name), ("drop", first.name)]
    assert list(gds.resident_graphs(newer.prefix)) == [newer.name]


def test_a_projection_created_concurrently_is_used() -> None:
    gds = RecordingGds()
    resident = ResidentGdsGraph(gds, KEY, "F1", 5, 4)
    gds.fail_project = StoreError("A graph with name 'x' already exists.")
    assert resident.ensure() == resident.name
    gds.fail_project = StoreError("Procedure failed: out of memory")
    with pytest.raises(StoreError, match="out of memory"):
        ResidentGdsGraph(gds, KEY, "F9", 5, 4).ensure()


@pytest.mark.parametrize(("counts", "moved"), [((6, 4), False), ((5, 5), False), ((5, 4), True)])
def test_a_write_during_projection_is_never_mislabelled(
    counts: tuple[int, int], moved: bool
) -> None:
    gds = RecordingGds(counts=counts)
    if moved:
        gds.fingerprint = "F2"  # same counts, but the database moved on meanwhile
    resident = ResidentGdsGraph(gds, KEY, "F1", 5, 4)
    with pytest.raises(StoreError, match="changed while it was being projected"):
        resident.ensure()
    assert gds.graphs == set()  # the mislabelled projection was dropped


def test_drop_removes_every_state_of_the_key_only() -> None:
    gds = RecordingGds()
    a = ResidentGdsGraph(gds, KEY, "F1", 5, 4)
    a.ensure()
    gds.graphs.add(a.prefix + "older")
    other_key = ResidentGdsGraph(gds, ProjectionKey("neo4j", "neo4j", "Paper", ("X",)), "F1", 5, 4)
    other_key.ensure()
    a.drop()
    assert gds.graphs == {other_key.name}


def _store_with_rows(
    monkeypatch: pytest.MonkeyPatch, database: str | None, rows: list[dict[str, Any]]
) -> tuple[Neo4jStore, list[tuple[str, dict[str, Any]]]]:
    from neo4j import GraphDatabase

    store = Neo4jStore(GraphDatabase.driver("bolt://localhost:1"), database)
    sent: list[tuple[str, dict[str, Any]]] = []

    def system(query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        sent.append((query, dict(params or {})))
        if query == neo4j_dialect.HOME_DATABASE:
            return [{"name": "home-db"}]
        return rows

    monkeypatch.setattr(store, "_system", system)
    return store, sent


def test_fingerprint_reads_the_home_database_writer_row(monkeypatch: pytest.MonkeyPatch) -> None:
    row = {"lastCommittedTxn": 42, "started": "t1", "created": "t0"}
    store, sent = _store_with_rows(monkeypatch, None, [row])
    try:
        assert store.write_fingerprint() == "home-db:t0:t1:42"
        assert sent[0][0] == neo4j_dialect.HOME_DATABASE
        assert sent[1] == (neo4j_dialect.DATABASE_WRITE_STATE, {"name": "home-db"})
        assert "writer" in neo4j_dialect.DATABASE_WRITE_STATE
    finally:
        store.close()
    for rows in ([], [row, row], [{**row, "lastCommittedTxn": None}]):
        store, _ = _store_with_rows(monkeypatch, "papers", rows)
        try:
            with pytest.raises(NotSupported, match="'papers'"):
                store.write_fingerprint()
        finally:
            store.close()


def test_node_properties_make_a_second_resident_graph() -> None:
    gds = RecordingGds()
    plain = ResidentGdsGraph(gds, KEY, "F1")
    with_text = ResidentGdsGraph(gds, KEY, "F1", node_properties={"emb_minilm": [0.0]})
    assert plain.name != with_text.name and with_text.name.startswith(plain.prefix)
    plain.ensure()
    with_text.ensure()
    # each keeps its own states: ensuring one never drops the other
    assert gds.graphs == {plain.name, with_text.name}
    assert plain.found_resident is False and plain.project_millis == 3
    assert ResidentGdsGraph(gds, KEY, "F1").ensure() == plain.name


def test_a_graph_found_resident_reports_no_projection() -> None:
    gds = RecordingGds()
    ResidentGdsGraph(gds, KEY, "F1").ensure()
    again = ResidentGdsGraph(gds, KEY, "F1")
    again.ensure()
    assert again.found_resident and again.project_millis is None
    assert (again.nodes, again.relationships) == gds.counts


def _offline_store(monkeypatch: pytest.MonkeyPatch, rows: list[dict[str, Any]]) -> Neo4jStore:
    from neo4j import GraphDatabase

    store = Neo4jStore(
        GraphDatabase.driver("bolt://localhost:1"), capabilities=("fulltext", "vector", "gds")
    )
    monkeypatch.setattr(store, "run", lambda query, params=None: rows)
    return store


@pytest.mark.parametrize(
    ("cpus", "edition", "want"),
    [(2, "OpenGDS", 2), (16, "Community", 4), (16, "OpenGDS", 4), (16, "Enterprise", 16)],
)
def test_gds_concurrency_follows_the_server_within_the_edition_limit(
    monkeypatch: pytest.MonkeyPatch, cpus: int, edition: str, want: int
) -> None:
    monkeypatch.delenv("SCHOLARKG_GDS_CONCURRENCY", raising=False)
    rows: list[dict[str, Any]] = [
        {"key": "availableCPUs", "value": cpus},
        {"key": "gdsEdition", "value": edition},
    ]
    store = _offline_store(monkeypatch, rows)
    try:
        assert store.gds is not None and store.gds.concurrency == want
    finally:
        store.close()


def test_gds_concurrency_override(monkeypatch: pytest.MonkeyPatch) -> None:
    from scholarkg.errors import ConfigError

    store = _offline_store(monkeypatch, [])
    try:
        monkeypatch.setenv("SCHOLARKG_GDS_CONCURRENCY", "3")
        assert store.gds is not None and store.gds.concurrency == 3  # asked once, then kept
        fresh = Neo4jGds(store)
        monkeypatch.setenv("SCHOLARKG_GDS_CONCURRENCY", "many")
        with pytest.raises(ConfigError, match="positive integer"):
            _ = fresh.concurrency
    finally:
        store.close()


def test_gds_memory_figures_are_read_in_bytes() -> None:
    from scholarkg.store.neo4j.gds import memory_bytes

    assert memory_bytes("230 MiB") == 230 * 2**20
    assert memory_bytes("[314 MiB ... 677 MiB]") == 677 * 2**20  # the upper end
    assert memory_bytes("392 Bytes") == 392 and memory_bytes("1.5 GiB") == 3 * 2**29
    with pytest.raises(StoreError, match="unreadable"):
        memory_bytes("lots")
