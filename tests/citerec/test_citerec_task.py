"""The ``citerec`` task: metrics by hand, no leakage of the held-out citation, and the planted-
structure experiment (hybrid vs BM25 with a paired test) on the synthetic S2 world."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok

from scholarkg.benchmark.metrics.stats import paired_test
from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import Answers, AnswerSource, Instance
from scholarkg.benchmark.tasks.citerec.build import _PopularityOverBM25, build_recommender
from scholarkg.benchmark.tasks.citerec.recommenders import ContextQuery, query_text
from scholarkg.benchmark.tasks.citerec.task import class_table, context_queries, split_of
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.citation_world import generate
from scholarkg.synthetic.citerec_corpus import write_world


def _inst(iid: str, gold: str, cls: str) -> Instance:
    return Instance(
        id=iid, data={"gold": gold, "classes": [cls], "text": "", "citing": "p", "known_refs": []}
    )


def test_score_by_hand() -> None:
    task = load_task("citerec")
    insts = [
        _inst("a", "g1", "intent:method"),
        _inst("b", "g2", "intent:method"),
        _inst("c", "g3", "intent:result"),
    ]
    answers = Answers(
        by_instance={
            "a": ["x", "y", "g1"],  # rank 3
            "b": ["x", "x", "g2"],  # a duplicate keeps its first rank: gold at rank 2
            # "c": no answer -> 0
        },
        source=AnswerSource.ranker("bm25"),
    )
    res = task.score(insts, answers, task.resolve_options({}))
    assert res.per_instance["a"] == {"Recall@10": 1.0, "MRR@10": pytest.approx(1 / 3)}
    assert res.per_instance["b"] == {"Recall@10": 1.0, "MRR@10": 0.5}
    assert res.per_instance["c"] == {"Recall@10": 0.0, "MRR@10": 0.0}
    assert res.aggregate["Recall@10"] == pytest.approx(2 / 3)
    assert res.aggregate["MRR@10"] == pytest.approx((1 / 3 + 0.5) / 3)
    assert res.classes["intent:method"]["MRR@10"] == pytest.approx((1 / 3 + 0.5) / 2)
    assert res.classes["intent:result"] == {"Recall@10": 0.0, "MRR@10": 0.0}
    table = class_table(res, "bm25")
    assert "| intent:method | 1.000 | 0.417 |" in table and "| **all** | 0.667 | 0.278 |" in table


def test_query_text_strips_markers() -> None:
    assert query_text("As in [3, 4] and (Smith et al., 2019) <REF> works [CIT].") == (
        "As in and works ."
    )


def test_split_is_by_citing_paper_and_stable() -> None:
    assert split_of("s2:1", 0.3) == split_of("s2:1", 0.3)
    shares = [split_of(f"s2:{i}", 0.3) for i in range(2000)]
    assert 0.25 < shares.count("dev") / 2000 < 0.35
    assert set(split_of(f"s2:{i}", 0.0) for i in range(50)) == {"test"}


def test_graph_rankers_never_use_the_held_out_edge(any_store: GraphStore, tmp_path: Path) -> None:
    """On every backend (Neo4j: the projection is built through its fingerprint and Cypher)."""
    store = any_store
    # P cites G (held out) and R; Q cites R and X; only P co-cites R and G
    papers = ["P", "G", "R", "Q", "X"]
    store.merge_nodes("Paper", [{"id": p, "title": p, "year": 2000} for p in papers])
    store.merge_relationships(
        "CITES",
        "Paper",
        "Paper",
        [
            {"start": "P", "end": "G"},
            {"start": "P", "end": "R"},
            {"start": "Q", "end": "R"},
            {"start": "Q", "end": "X"},
        ],
    )
    q = ContextQuery(id="c", text="t", citing="P", known_refs=("R",), year=2001)
    opts = {"projection_cache": tmp_path}
    coc = build_recommender("cocitation", store, {}, opts).rank_context(q, 10)
    assert coc.ids == ["X"]  # G would appear only through P itself
    ppr = build_recommender("ppr", store, {}, opts).rank_context(q, 10)
    assert "G" not in ppr.ids and "P" not in ppr.ids and ppr.ids[0] in ("Q", "X")
    cpl = build_recommender("coupling", store, {}, opts).rank_context(q, 10)
    assert cpl.ids == ["Q"]
    pop = build_recommender("popularity", store, {}, opts)
    assert isinstance(pop, _PopularityOverBM25)
    # G and R are cited by P: that edge never counts; R keeps Q's citation
    assert pop.pop.in_degree(["G", "R", "X"], q.citing).tolist() == [0.0, 1.0, 1.0]


@pytest.fixture
def synthetic(
    graph_env: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> Iterator[FalkorDBStore]:
    files = write_world(generate(400, seed=13), tmp_path / "world")
    cli_ok(
        [
            "load",
            "s2",
            "--papers",
            str(files["papers"]),
            "--abstracts",
            str(files["abstracts"]),
            "--citations",
            str(files["citations"]),
            "--s2orc",
            str(files["s2orc"]),
        ]
    )
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    yield st
    st.close()


def test_hybrid_beats_bm25_on_planted_structure(synthetic: FalkorDBStore, tmp_path: Path) -> None:
    task = load_task("citerec")
    opts = {"projection_cache": str(tmp_path / "proj")}
    runs = {
        name: run_task(
            task,
            synthetic,
            AnswerSource.ranker(name),
            opts,
            out_dir=tmp_path / name,
            record_in_graph=False,
        )
        for name in ("bm25", "hybrid", "hybrid-learned")
    }
    ids = [i.id for i in runs["bm25"].instances]
    assert len(ids) > 300 and all(
        i.data["gold"] not in i.data["known_refs"] for i in runs["bm25"].instances
    )
    tests = {}
    for name in ("hybrid", "hybrid-learned"):
        for metric in ("Recall@10", "MRR@10"):
            a = [runs["bm25"].result.per_instance[i][metric] for i in ids]
            b = [runs[name].result.per_instance[i][metric] for i in ids]
            tests[name, metric] = paired_test(a, b, n_resamples=5000, seed=0)
    # the learned fusion beats BM25 on both metrics, significantly; plain RRF beats it
    # clearly on MRR@10 and by a smaller, borderline margin on Recall@10 at this size
    # (n = 467; measured p = 0.04 with PPR tolerance 1e-3, 0.07 with 1e-4): asserted as > 0
    # only — reported as such in the README
    for metric in ("Recall@10", "MRR@10"):
        t = tests["hybrid-learned", metric]
        assert t.delta > 0.1 and t.p_value < 0.01, (metric, t)
    assert tests["hybrid", "MRR@10"].delta > 0 and tests["hybrid", "MRR@10"].p_value < 0.01
    assert tests["hybrid", "Recall@10"].delta > 0
    assert runs["hybrid-learned"].record.config["answer"]["extra"]["fit"]["n_queries"] > 50
    # the fit keeps its model only when it beats the unfitted RRF on the dev contexts
    fit = runs["hybrid-learned"].record.config["answer"]["extra"]["fit"]
    kept = fit["dev"]["rrf" if fit["fallback"] else "fitted"]
    assert (kept["hits@10"], kept["rr@10"]) >= (fit["dev"]["rrf"]["hits@10"],
                                                 fit["dev"]["rrf"]["rr@10"])  # fmt: skip
    assert fit["fallback"] in (None, "rrf")
    metrics = json.loads((tmp_path / "hybrid" / "metrics.json").read_text())
    assert set(metrics["aggregate"]) == {"Recall@10", "MRR@10"}
    assert any(label.startswith("section:") for label in metrics["classes"])
    assert "| **all** |" in (tmp_path / "hybrid" / "table.md").read_text()
    line = json.loads((tmp_path / "hybrid" / "run.jsonl").read_text().splitlines()[0])
    assert set(line) == {"id", "gold", "ranking"} and len(line["ranking"]) <= 10


def test_bulk_load_builds_the_same_graph_as_merge(
    graph_env: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    files = write_world(generate(150, seed=3), tmp_path / "w")
    args = [
        "--papers",
        str(files["papers"]),
        "--abstracts",
        str(files["abstracts"]),
        "--citations",
        str(files["citations"]),
        "--s2orc",
        str(files["s2orc"]),
    ]
    cli_ok(["load", "s2", *args])
    bulk_name = graph_env + "_bulk"
    cli_ok(["--graph", bulk_name, "load", "s2", "--bulk", *args])
    merged = FalkorDBStore(embedded_server.connect(), graph_env)
    bulk = FalkorDBStore(embedded_server.connect(), bulk_name)
    try:
        assert bulk.counts() == merged.counts()
        assert bulk.counts().nodes["CitationContext"] > 50
        q = (
            "MATCH (c:CitationContext)-[:GOLD]->(g:Paper), (c)-[:IN_PAPER]->(p:Paper) "
            "RETURN c.id AS id, c.text AS t, g.id AS g, p.id AS p ORDER BY id"
        )
        assert bulk.run(q, {}) == merged.run(q, {})
        c = (
            "MATCH (a:Paper)-[r:CITES]->(b:Paper) "
            "RETURN a.id AS a, b.id AS b, r.context_intents AS i ORDER BY a, b"
        )
        assert bulk.run(c, {}) == merged.run(c, {})
    finally:
        bulk.clear()
        bulk.close()
        merged.close()


def test_projection_graph_features_equal_the_named_queries(
    synthetic: FalkorDBStore, tmp_path: Path
) -> None:
    from scholarkg.benchmark.tasks.citerec.build import projection_for
    from scholarkg.benchmark.tasks.citerec.recommenders import projection_graph_scores

    proj = projection_for(synthetic, tmp_path / "proj")
    task = load_task("citerec")
    insts = task.build_instances(synthetic, task.resolve_options({"split": "all"}))[:40]
    for inst in insts:
        seeds, citing = inst.data["known_refs"], inst.data["citing"]
        for kind, query in (
            ("cocitation", "citerec/cocited_with"),
            ("coupling", "citerec/coupled_with"),
        ):
            rows = synthetic.run_named(query, {"seeds": seeds, "citing": citing, "limit": 10**6})
            want = {r["id"]: float(r["score"]) for r in rows}
            assert projection_graph_scores(proj, kind, seeds, citing) == want, (kind, inst.id)


@pytest.mark.parametrize(
    ("hybrid", "inputs"),
    [("hybrid-dense", ["bm25", "dense", "ppr", "cocitation"]), ("hybrid-text", ["bm25", "dense"])],
)
def test_rrf_hybrids_are_the_rrf_of_their_inputs(
    synthetic: FalkorDBStore, tmp_path: Path, hybrid: str, inputs: list[str]
) -> None:
    """``hybrid-dense`` = RRF (k = 60) over bm25, dense, ppr and co-citation, ``hybrid-text``
    over bm25 and dense only (no graph), each input truncated at ``depth``; recomputed here
    by hand from the components' own rankings."""
    from scholarkg.benchmark.tasks.legobench.rpg.core import HashingEmbedder

    task = load_task("citerec")
    opts = {"projection_cache": tmp_path / "proj", "depth": 30}
    params = {"embedder": HashingEmbedder(128)}
    extra: dict[str, Any] = {}
    fused = build_recommender(hybrid, synthetic, params, opts, extra)
    assert fused.name == hybrid and extra["encoder"] == "hashing-128"
    assert fused.params["inputs"] == inputs
    parts = {name: build_recommender(name, synthetic, params, opts) for name in inputs}
    insts = task.build_instances(synthetic, task.resolve_options({"split": "all"}))[:25]
    assert insts
    for q in context_queries(insts):
        expected: dict[str, float] = {}
        for ranker in parts.values():
            for rank, doc in enumerate(ranker.rank_context(q, 30).ids, start=1):
                expected[doc] = expected.get(doc, 0.0) + 1.0 / (60 + rank)
        got = fused.rank_context(q, 10)
        assert q.citing not in got.ids
        assert got.scores == pytest.approx(sorted(expected.values(), reverse=True)[:10])
        assert all(got.scores[i] == pytest.approx(expected[d]) for i, d in enumerate(got.ids))


def test_dense_inputs_encode_a_runs_contexts_in_one_batched_call(
    synthetic: FalkorDBStore, tmp_path: Path
) -> None:
    """``answer`` hands every context to the rankers first (``prepare_contexts``): a dense
    input encodes the run's query texts in one call, not one call per context (on 10,713
    real contexts the per-context calls took minutes), and ranks exactly as before."""
    from scholarkg.benchmark.tasks.legobench.rpg.core import HashingEmbedder

    class Counting(HashingEmbedder):
        calls = 0

        def encode(self, texts: Sequence[str], **kw: Any) -> Any:
            Counting.calls += 1
            return super().encode(texts, **kw)

    task = load_task("citerec")
    options = task.resolve_options({"split": "all", "projection_cache": tmp_path / "proj"})
    insts = task.build_instances(synthetic, options)[:40]
    unprepared = build_recommender("hybrid-text", synthetic, {"embedder": HashingEmbedder(64)},
                                   options)  # fmt: skip
    expected = {q.id: unprepared.rank_context(q, 10).ids for q in context_queries(insts)}
    source = AnswerSource(kind="ranker", name="hybrid-text", params={"embedder": Counting(64)})
    answers = task.answer(synthetic, insts, source, options)
    assert Counting.calls == 2  # the corpus, then every context at once
    assert answers.by_instance == expected
