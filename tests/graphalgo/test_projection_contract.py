"""Resident projections behave the same on every backend (``any_store``: the embedded store
always, Neo4j + GDS when ``NEO4J_URI`` is set).

Expected numbers are the GDS manual's PageRank example (the Neo4j GDS manual, PageRank), the same
ones
the scipy implementation is pinned to, so a backend that drifts from GDS semantics fails here.
On Neo4j this is also where GDS's own personalized PageRank is compared with the sparse
client-side iteration the citation recommenders use.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.errors import InputError
from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.graphalgo.resident import ResidentGdsGraph
from scholarkg.store.base import GdsCatalog, GraphStore, PageRankConfig

#: GDS manual, unweighted stream example and personalized from "Site A" (the Neo4j GDS manual,
#: PageRank)
GLOBAL = {"Home": 3.215681999884452, "About": 1.0542700552146722, "Site A": 0.3278578964488539}
FROM_SITE_A = {
    "Home": 0.39902290442518784,
    "Site A": 0.16890325301726694,
    "Site B": 0.01890325301726691,
}


def _doc_graph(store: GraphStore) -> None:
    store.merge_nodes("Paper", [{"id": p} for p in PAGES])
    store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b, _ in LINKS]
    )


def _gds(store: GraphStore) -> GdsCatalog:
    assert store.gds is not None, "the GDS catalogue, on Neo4j only"
    return store.gds


def _uses_gds(store: GraphStore) -> bool:
    return store.backend == "neo4j" and "gds" in store.capabilities


def test_projection_pagerank_matches_the_gds_manual(any_store: GraphStore, tmp_path: Path) -> None:
    _doc_graph(any_store)
    proj = ProjectionCatalog(tmp_path).get(any_store)
    assert (proj.n_nodes, proj.n_edges) == (len(PAGES), len(LINKS))
    assert (proj.resident is not None) == _uses_gds(any_store)

    result = proj.pagerank()
    for page, score in GLOBAL.items():
        assert result.scores[page] == pytest.approx(score, abs=1e-9)
    assert result.scores == pytest.approx(any_store.pagerank("Paper", "CITES").scores, abs=1e-9)
    array = proj.pagerank_array()
    assert array.tolist() == pytest.approx([result.scores[i] for i in proj.ids], abs=1e-12)


def test_personalized_on_the_client_equals_the_backends_ppr(
    any_store: GraphStore, tmp_path: Path
) -> None:
    _doc_graph(any_store)
    proj = ProjectionCatalog(tmp_path).get(any_store)
    site_a = proj.index["Site A"]
    nodes, scores = proj.personalized({site_a: 1.0})
    client = {proj.ids[i]: float(s) for i, s in zip(nodes, scores, strict=True)}
    backend = proj.pagerank(PageRankConfig(source_nodes={"Site A": 1.0})).scores
    for page, score in FROM_SITE_A.items():
        assert client[page] == pytest.approx(score, abs=1e-9)
        assert backend[page] == pytest.approx(score, abs=1e-9)
    # nodes the walk never reaches are absent on the client and 0 in the backend
    assert {p for p, s in backend.items() if s > 0} == set(client)


def test_catalogue_reuses_then_rebuilds_after_a_write(
    any_store: GraphStore, tmp_path: Path
) -> None:
    _doc_graph(any_store)
    catalog = ProjectionCatalog(tmp_path)
    first = catalog.get(any_store)
    assert catalog.last_source == "built"
    assert catalog.get(any_store) is first and catalog.last_source == "memory"
    fresh = ProjectionCatalog(tmp_path)
    assert fresh.get(any_store).ids == first.ids and fresh.last_source == "disk"

    any_store.merge_relationships("CITES", "Paper", "Paper", [{"start": "About", "end": "Links"}])
    changed = catalog.get(any_store)
    assert catalog.last_source == "built" and changed.n_edges == len(LINKS) + 1
    # About now shares its vote between Home and Links: Links gains, Home loses
    before, after = first.pagerank().scores, changed.pagerank().scores
    assert after["Links"] > before["Links"] and after["Home"] < before["Home"]
    # the older projection still ranks its own state (on Neo4j: on its arrays, since GDS
    # can no longer project that state), as a dict and as an array alike
    assert first.pagerank_array().tolist() == pytest.approx(
        [before[i] for i in first.ids], abs=1e-9
    )


def test_drop_forgets_memory_disk_and_gds(any_store: GraphStore, tmp_path: Path) -> None:
    _doc_graph(any_store)
    catalog = ProjectionCatalog(tmp_path)
    proj = catalog.get(any_store)
    proj.pagerank()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".npz"]
    catalog.drop(any_store)
    assert list(tmp_path.iterdir()) == []
    if proj.resident is not None:
        assert _gds(any_store).projected_graphs(proj.resident.prefix) == []
    assert catalog.get(any_store) is not proj and catalog.last_source == "built"


def test_bad_names_are_refused_before_any_query(any_store: GraphStore, tmp_path: Path) -> None:
    catalog = ProjectionCatalog(tmp_path)
    with pytest.raises(InputError, match="unknown node label"):
        catalog.get(any_store, "Paper) DETACH DELETE (n", ("CITES",))
    with pytest.raises(InputError, match="relationship type"):
        catalog.drop(any_store, "Paper", ("CITES]->() DELETE (",))
    with pytest.raises(InputError, match="at least one relationship type"):
        catalog.get(any_store, "Paper", ())


def test_gds_projection_stays_resident_until_the_graph_changes(
    neo4j_store: GraphStore, tmp_path: Path
) -> None:
    """Neo4j + GDS only (the embedded store has no resident server-side projection): one GDS
    graph per database state, reused across runs and catalogues, replaced (old one dropped)
    after a write."""
    any_store = neo4j_store
    _doc_graph(any_store)
    proj = ProjectionCatalog(tmp_path).get(any_store)
    resident = proj.resident
    assert isinstance(resident, ResidentGdsGraph)
    proj.pagerank()
    proj.pagerank_array()
    assert _gds(any_store).projected_graphs(resident.prefix) == [resident.name]
    again = ProjectionCatalog(tmp_path).get(any_store)  # another process: same GDS graph
    assert again.resident is not None and again.resident.name == resident.name
    assert again.pagerank().scores == pytest.approx(proj.pagerank().scores, abs=0)

    any_store.merge_nodes("Paper", [{"id": "New"}])
    newer = ProjectionCatalog(tmp_path).get(any_store)
    assert newer.resident is not None and newer.resident.name != resident.name
    assert newer.pagerank().scores["New"] == pytest.approx(0.15, abs=1e-12)
    assert _gds(any_store).projected_graphs(resident.prefix) == [newer.resident.name]


def test_write_fingerprint_moves_on_writes_only(any_store: GraphStore) -> None:
    _doc_graph(any_store)
    before = any_store.write_fingerprint()
    any_store.run("MATCH (p:Paper) RETURN count(p) AS n")
    any_store.merge_nodes("Paper", [{"id": "Home"}])  # MERGE that changes nothing
    assert any_store.write_fingerprint() == before
    any_store.merge_nodes("Paper", [{"id": "Elsewhere"}])
    assert any_store.write_fingerprint() != before


def test_projection_pagerank_array_needs_no_sources(any_store: GraphStore, tmp_path: Path) -> None:
    _doc_graph(any_store)
    proj = ProjectionCatalog(tmp_path).get(any_store)
    with pytest.raises(InputError, match="global PageRank"):
        proj.pagerank_array(PageRankConfig(source_nodes={"Home": 1.0}))
    assert np.isfinite(proj.pagerank_array()).all()
