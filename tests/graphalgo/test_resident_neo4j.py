"""PageRank in GDS on a resident projection, live on Neo4j: only the top k crosses Bolt.

Every test counts what the driver really returned (a wrapper around ``execute_query`` records
each query and its records), on the GDS manual's PageRank example graph, whose published
scores (and ties: About, Links and Product share 1.05427) pin the numbers. The embedded
store's answers (scipy, GDS semantics) are the reference for order and scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest
from _cli import runner
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.benchmark.rankers.pagerank import GraphPageRank
from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.graphalgo.resident import estimate, kept_pagerank_property, resident_gds_graph
from scholarkg.graphalgo.topk import pagerank_scores_of, pagerank_top
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.neo4j.gds import Neo4jGds

pytestmark = pytest.mark.neo4j

#: the GDS manual's unweighted scores
HOME, TIED, PRODUCT_RANK = 3.215682, 1.054270, 4


@dataclass
class Sent:
    query: str
    records: int


class RecordCounter:
    """Wraps the store's driver: each query sent and the number of records it returned."""

    def __init__(self, store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[Sent] = []
        real = store._driver.execute_query

        def counting(query: Any, *args: Any, **kwargs: Any) -> Any:
            result = real(query, *args, **kwargs)
            records = getattr(result, "records", None)
            self.sent.append(Sent(str(query), len(records) if records is not None else -1))
            return result

        monkeypatch.setattr(store._driver, "execute_query", counting)

    def matching(self, text: str) -> list[Sent]:
        return [s for s in self.sent if text in s.query]

    def clear(self) -> None:
        self.sent.clear()


S = TypeVar("S", bound=GraphStore)


def _load(store: S) -> S:
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": p, "title": f"page {p}"} for p in PAGES])
    store.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b, _ in LINKS]
    )
    return store


@pytest.fixture
def doc(neo4j_store: GraphStore) -> GraphStore:
    return _load(neo4j_store)


@pytest.fixture
def counter(doc: GraphStore, monkeypatch: pytest.MonkeyPatch) -> RecordCounter:
    return RecordCounter(doc, monkeypatch)


@pytest.fixture
def embedded(store: FalkorDBStore, tmp_path: Any) -> Iterator[FalkorDBStore]:
    yield _load(store)


def test_top_k_returns_k_records_and_keeps_the_scores(
    doc: GraphStore, counter: RecordCounter, embedded: FalkorDBStore, tmp_path: Any
) -> None:
    from scholarkg.graphalgo.projection import ProjectionCatalog

    top = pagerank_top(doc, PRODUCT_RANK)  # no tie at rank 4: one top-k query
    assert [i for i, _ in top.rows] == ["Home", "About", "Links", "Product"]
    assert top.rows[0][1] == pytest.approx(HOME, abs=1e-6)
    assert top.engine == "gds" and top.computed and top.projection == "projected"
    assert top.ran_iterations is not None and top.did_converge is not None
    assert top.records == PRODUCT_RANK
    reads = counter.matching("gds.graph.nodeProperty.stream")
    assert [s.records for s in reads] == [PRODUCT_RANK]
    assert not counter.matching("propertyValue >= $threshold")  # no tie query was needed
    assert top.timings["computeMillis"] >= 0 and "preProcessingMillis" in top.timings

    # the same ids and scores as the embedded store on the same graph (within 1e-6)
    ref = pagerank_top(embedded, PRODUCT_RANK, catalog=ProjectionCatalog(tmp_path))
    assert [i for i, _ in ref.rows] == [i for i, _ in top.rows]
    assert [v for _, v in top.rows] == pytest.approx([v for _, v in ref.rows], abs=1e-6)

    counter.clear()
    again = pagerank_top(doc, 1)  # kept: read, never computed again
    assert not again.computed and again.projection == "resident"
    assert not counter.matching("gds.pageRank.mutate") and not counter.matching("gds.graph.project")
    assert again.records == 1 and again.rows[0][0] == "Home"
    graph = resident_gds_graph(doc)
    assert kept_pagerank_property(PageRankConfig()) in graph.properties


def test_a_tie_at_the_kth_score_is_resolved_by_id_with_k_records_per_query(
    doc: GraphStore, counter: RecordCounter, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = pagerank_top(doc, 3)  # About, Links, Product tie: Product (by id) is left out
    assert [i for i, _ in top.rows] == ["Home", "About", "Links"]
    assert [v for _, v in top.rows][1:] == pytest.approx([TIED, TIED], abs=1e-6)
    reads = counter.matching("gds.graph.nodeProperty.stream")
    assert [s.records for s in reads] == [3]  # resolved in the same query
    counter.clear()
    gds = doc.gds
    assert isinstance(gds, Neo4jGds)
    monkeypatch.setattr(gds, "TOP_K_SLACK", 0)  # a tie wider than the heap
    again = pagerank_top(doc, 3)
    assert again.rows == top.rows
    reads = counter.matching("gds.graph.nodeProperty.stream")
    assert [s.records for s in reads] == [3, 3]  # the ties query, k records too


def test_personalized_top_k_in_one_round_trip(doc: GraphStore, counter: RecordCounter) -> None:
    cfg = PageRankConfig(source_nodes={"Site A": 1.0})
    top = pagerank_top(doc, 2, cfg)
    assert [i for i, _ in top.rows] == ["Home", "Site A"]
    assert [v for _, v in top.rows] == pytest.approx([0.399023, 0.168903], abs=1e-6)
    streams = counter.matching("gds.pageRank.stream")
    assert [s.records for s in streams] == [2] and top.records == 2
    assert not counter.matching("gds.pageRank.mutate")  # no global run on the side

    counter.clear()
    with pytest.raises(InputError, match=r"not in the Paper graph: \['Nowhere'\]"):
        pagerank_top(doc, 2, PageRankConfig(source_nodes={"Site A": 1.0, "Nowhere": 1.0}))
    assert not counter.matching("gds.pageRank.mutate")  # never a silent global run


def test_candidate_scores_by_index_seek(doc: GraphStore, counter: RecordCounter) -> None:
    got = pagerank_scores_of(doc, ["About", "Home", "Nowhere"])
    assert got == {"About": pytest.approx(TIED, abs=1e-6), "Home": pytest.approx(HOME, abs=1e-6)}
    seeks = counter.matching("gds.util.nodeProperty")
    assert [s.records for s in seeks] == [2]


def test_the_candidate_ranker_creates_no_graph_per_query(
    doc: GraphStore, counter: RecordCounter, embedded: FalkorDBStore
) -> None:
    pools = [["About", "Home", "Links", "Site A"], ["Site B", "Home", "Product"], ["Links"]]

    def projections() -> int:
        return len(counter.matching("CALL gds.graph.project("))

    for scope, projected in (("subgraph", 0), ("graph", 1)):  # graph: the resident one, once
        ranker = GraphPageRank(scope=scope)
        for cands in pools:
            got = ranker.bind(doc).rank("q", 3, candidates=cands)
            ref = ranker.bind(embedded).rank("q", 3, candidates=cands)
            assert got.ids == ref.ids and got.scores == pytest.approx(ref.scores, abs=1e-6)
        assert projections() == projected, scope
    assert not counter.matching("gds.graph.drop")
    with pytest.raises(InputError, match="scope"):
        GraphPageRank(personalized=True, scope="graph")


def test_write_stores_every_score_with_gds(doc: GraphStore) -> None:
    top = pagerank_top(doc, 1, write="pagerank")
    assert top.written == len(PAGES) and "writeMillis" in top.timings
    rows = doc.run("MATCH (p:Paper {id: 'Home'}) RETURN p.pagerank AS pr")
    assert rows[0]["pr"] == pytest.approx(HOME, abs=1e-6)


def test_gds_memory_estimates(doc: GraphStore) -> None:
    here = estimate(doc)
    assert (here["nodes"], here["relationships"]) == (len(PAGES), len(LINKS))
    big = estimate(doc, node_count=10_000_000, relationship_count=200_000_000, fastrp_dimension=64)
    assert (big["nodes"], big["relationships"]) == (10_000_000, 200_000_000)
    assert 0 < big["projection_min"] <= big["projection_max"]
    assert big["pagerank_max"] > here["pagerank_max"] and big["fastrp_max"] > 0


def test_cli_on_neo4j_prints_timings_and_the_embedded_numbers(
    doc: GraphStore, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    base = ["--backend", "neo4j", "graph", "pagerank"]
    result = runner.invoke(app, [*base, "--top", "3", "-f", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert [r["id"] for r in out["top"]] == ["Home", "About", "Links"]
    assert out["summary"]["engine"] == "gds" and out["summary"]["records"] == 3
    assert out["summary"]["timings"]["computeMillis"] >= 0
    verbose = runner.invoke(app, [*base, "-s", "Site A", "-k", "2", "--verbose"])
    assert verbose.exit_code == 0, verbose.output
    assert "where the time went" in verbose.output and "stream_server_millis" in verbose.output
    est = runner.invoke(app, [*base, "--estimate"])
    assert est.exit_code == 0 and "gds.graph.project.estimate" in est.output
    client = runner.invoke(app, [*base, "--client-projection", "-k", "3", "-f", "json"])
    assert client.exit_code == 0, client.output
    assert json.loads(client.output)["summary"]["projection"] == "built"
    assert [r["id"] for r in json.loads(client.output)["top"]] == ["Home", "About", "Links"]
