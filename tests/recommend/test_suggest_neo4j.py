"""On Neo4j the graph signals run in the server (named Cypher queries and scholarkg's
``scholarkg.recommend.ppr`` procedure), ``exclude`` included, and give the client-side
projection's numbers; ``suggest`` and ``related`` answer as on the embedded store, and no
query pulls the graph over Bolt unless ``--engine client`` asks for it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.recommend.fusion import Fusion
from scholarkg.recommend.model import Recommender
from scholarkg.recommend.related import related_works
from scholarkg.recommend.signals import GRAPH_SIGNALS, ProjectionSignals, ServerSignals
from scholarkg.services.paper_lookup import resolve_paper
from scholarkg.store.falkordb.store import FalkorDBStore

from ._group import TOPICS, group_works, text_of, without, work_id

EXACT = ("refs", "cocited", "coupled", "ppr", "popular")


def test_server_signals_equal_the_projections(
    neo4j_store: Any, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    group_loader(neo4j_store)
    rec = Recommender(neo4j_store, cache_root=tmp_path, engine="client")
    server = ServerSignals(neo4j_store)
    client = ProjectionSignals(neo4j_store, cache=tmp_path)
    for text in (TOPICS["graphs"], text_of(group_works()[20])):
        seeds = rec.seeds(rec.text.bm25_ranking(text, 100), None)
        cited = client.signals(seeds, frozenset(), 50, {"refs"}).rankings["refs"].ids
        for exclude in (
            frozenset(),
            frozenset({seeds.ids[1]}),  # a seed
            frozenset({cited[0], cited[3], seeds.ids[5]}),  # references of the seeds
        ):
            got = server.signals(seeds, exclude, 50, set(EXACT))
            want = client.signals(seeds, exclude, 50, set(EXACT))
            for name in EXACT:
                a, b = got.rankings[name], want.rankings[name]
                assert a.ids == b.ids, (name, exclude)
                assert a.scores == pytest.approx(b.scores, rel=1e-6, abs=1e-9), name
            # the server counts the rows it returns (its top 50), the client every work
            assert got.cited_by_seeds
            for doc, n in got.cited_by_seeds.items():
                assert want.cited_by_seeds[doc] == n, doc
            assert not exclude & set(got.rankings["ppr"].ids)
    assert "fastrp" not in server.available()  # no `graph embed` yet
    assert rec.server is None and ServerSignals.supported(neo4j_store)  # --engine client


def test_suggest_and_related_equal_on_both_backends(
    neo4j_store: Any,
    embedded_server: Any,
    group_loader: Callable[..., None],
    tmp_path: Path,
) -> None:
    group_loader(neo4j_store)
    emb = FalkorDBStore(embedded_server.connect(), "t_parity_suggest")
    try:
        group_loader(emb)
        fusion = Fusion("combsum", ("bm25", "refs", "cocited", "ppr", "popular"),
                        (0.2, 0.3, 0.2, 0.2, 0.1))  # fmt: skip
        on_neo4j = Recommender(neo4j_store, cache_root=tmp_path / "n")
        assert on_neo4j.server is not None
        embedded = Recommender(emb, cache_root=tmp_path / "e")
        on_neo4j.fusion = embedded.fusion = fusion
        work = group_works()[30]
        for text, exclude in ((TOPICS["vision"], []), (text_of(work), ["doi:10.5555/w130"])):
            a = on_neo4j.suggest(text, 10, exclude=exclude)
            b = embedded.suggest(text, 10, exclude=exclude)
            assert [r.id for r in a.rows] == [r.id for r in b.rows], exclude
            assert [r.stub for r in a.rows] == [r.stub for r in b.rows]
            assert [r.score for r in a.rows] == pytest.approx([r.score for r in b.rows])
            # no `graph embed` yet: Neo4j has no FastRP vectors, and says so (the embedded
            # store computes its own)
            assert any("no FastRP vectors on the server" in n for n in a.notes), a.notes
            assert not any("FastRP vectors" in n for n in b.notes), b.notes
        assert on_neo4j.client._projection is None  # exclude too ran in the server
        ra = related_works(neo4j_store, "doi:10.5555/w101", k=8)
        rb = related_works(emb, "doi:10.5555/w101", k=8)
        counts_a = {r.id: (r.shared_citing, r.shared_cited) for r in ra.rows}
        counts_b = {r.id: (r.shared_citing, r.shared_cited) for r in rb.rows}
        for doc in counts_a.keys() & counts_b.keys():
            assert counts_a[doc] == counts_b[doc], doc
        assert counts_a  # the two lists share works
        assert any("FastRP" in n for n in ra.notes)  # Neo4j: no vectors before `graph embed`
    finally:
        emb.clear()
        emb.close()


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_suggest_on_neo4j_from_the_command_line_with_fastrp_from_gds(
    neo4j_store: Any, neo4j_env: Any, group_loader: Callable[..., None]
) -> None:
    group_loader(neo4j_store)
    base = ["--backend", "neo4j", "--graph", neo4j_store.graph]
    res = runner.invoke(app, [*base, "graph", "embed"])
    assert res.exit_code == 0, res.output
    assert "fastrp" in ServerSignals(neo4j_store).available()
    res = runner.invoke(app, [*base, "suggest", TOPICS["speech"], "--fit-queries", "20",
                              "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert len(out["suggestions"]) == 10 and out["fit"]["n_queries"] == 20
    assert any(r["stub"] for r in out["suggestions"])
    assert (
        any("fastrp" in r["inputs"] for r in out["suggestions"])
        or "fastrp" not in (out["fit"]["fusion"]["inputs"])
    )
    # FastRP and exclude (docs/decisions.md): the stored vectors are of the whole graph, so a
    # query leaving works out gets no FastRP on Neo4j, and the fit (whose every query leaves
    # its own work out) never weighs it
    assert "fastrp" not in out["fit"]["inputs"]
    assert "fastrp" not in ServerSignals(neo4j_store).available(exclude=True)
    res = runner.invoke(app, [*base, "suggest", TOPICS["speech"], "--no-fit", "--exclude",
                              "W101", "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    left_out = json.loads(res.output)
    assert any("fastrp: left out" in n for n in left_out["notes"]), left_out["notes"]
    assert not any("fastrp" in r["inputs"] for r in left_out["suggestions"])
    assert "doi:10.5555/w101" not in [r["id"] for r in left_out["suggestions"]]
    res = runner.invoke(app, [*base, "suggest", TOPICS["speech"], "--no-fit", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert any("fastrp" in r["inputs"] for r in json.loads(res.output)["suggestions"])
    res = runner.invoke(app, [*base, "related", "W101", "--format", "json"])
    assert res.exit_code == 0, res.output
    rel = json.loads(res.output)
    assert rel["work"]["id"] == "doi:10.5555/w101" and "fastrp" in rel["lists"]


@pytest.mark.parametrize(
    "topic,n",
    # both in make test-marked (make test's 5-minute budget: 10 s each on a cold Neo4j)
    [pytest.param(0, 6, marks=pytest.mark.slow), pytest.param(2, 11, marks=pytest.mark.slow)],
)
def test_exclude_on_neo4j_equals_the_graph_loaded_without_the_work(
    neo4j_store: Any, group_loader: Callable[..., None], tmp_path: Path, topic: int, n: int
) -> None:
    """#38's exclude goal on Neo4j: the top 10 with the work excluded (in the server: named
    queries and the PageRank procedure) against the top 10 of a graph loaded without the
    work, with the full graph's fitted fusion and with RRF of every input (FastRP absent: no
    ``graph embed``): at least 8 of 10 shared — and here, where every input is exact, all
    10 in the same order. The fit itself read nothing but top rows over Bolt."""
    works = group_works()
    wid = work_id(topic, n)
    work = next(w for w in works if w["id"].endswith(f"/{wid}"))
    text = text_of(work)
    group_loader(neo4j_store, works)
    full = Recommender(neo4j_store, cache_root=tmp_path / "full")
    fitted = full.prepare(fit_queries=20)
    assert fitted is not None and full.server is not None
    node = resolve_paper(neo4j_store, wid).id
    fusions = (full.fusion, Fusion("rrf", ("bm25", *GRAPH_SIGNALS), None, 60))
    with_exclude = []
    for fusion in fusions:
        full.fusion = fusion
        got = full.suggest(text, 10, exclude=[node])
        with_exclude.append([r.id for r in got.rows])
        assert node not in with_exclude[-1] and len(with_exclude[-1]) == 10
    assert full.client._projection is None  # neither the fit nor exclude pulled the graph
    neo4j_store.run("MATCH (n) DETACH DELETE n")
    group_loader(neo4j_store, without(works, wid))
    assert not neo4j_store.run_named("papers/resolve", _keys(wid))
    small = Recommender(neo4j_store, cache_root=tmp_path / "small")
    assert small.server is not None  # no exclude: the graph inputs run in the server
    for fusion, top_a in zip(fusions, with_exclude, strict=True):
        small.fusion = fusion
        top_b = [r.id for r in small.suggest(text, 10).rows]
        assert len(set(top_a) & set(top_b)) >= 8, (fusion.describe(), top_a, top_b)
        assert top_a == top_b, fusion.describe()


def _keys(wid: str) -> dict[str, Any]:
    empty: dict[str, Any] = {k: [] for k in ("doi", "arxiv", "corpus", "mag", "pmid", "pmcid",
                                             "s2paper")}  # fmt: skip
    return {"ids": [], **empty, "openalex": [wid]}
