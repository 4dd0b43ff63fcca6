"""Every benchmark family gives the same numbers on Neo4j as on the embedded store.

Why: tasks reach the graph only through named queries and the ``GraphStore`` interface, so a
dialect gap (a ``.neo4j.cypher`` variant that orders, rounds or types differently, a missing
index, a tie broken another way) shows up as a different metric, not as an error. Each test
loads one synthetic corpus (``scholarkg/synthetic/``, real file formats, real loaders) into a
fresh embedded graph and a cleared Neo4j database, runs the family's baseline and main
ranker through ``run_task`` on both, and compares aggregate and per-instance metrics:
exactly for deterministic rankers, within 1e-6 where PageRank / personalized PageRank enter
(GDS and the scipy implementation agree to the solver's tolerance, not bit for bit).

Encoders are the deterministic no-model stand-ins the family tests use (hashing
embedders); the dense top-k check on the real MiniLM model is ``model``-marked.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from _fakes import HashEmbedder

from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import TaskRun, run_task
from scholarkg.benchmark.task import AnswerSource, BenchmarkTask
from scholarkg.config import Settings, load_settings
from scholarkg.loaders.steps import Step, run_steps, s2_steps
from scholarkg.loaders.writer import write_records
from scholarkg.store.base import GraphStore

pytestmark = pytest.mark.neo4j

#: PageRank / PPR scores: GDS vs scipy agree to the solver tolerance, not bit for bit
PR_TOL = 1e-6


# --------------------------------------------------------------------------- helpers


@pytest.fixture
def both(store: GraphStore, neo4j_store: GraphStore) -> dict[str, GraphStore]:
    """The embedded test graph and the cleared Neo4j database, schema applied on each."""
    for st in (store, neo4j_store):
        st.apply_schema()
    return {"embedded": store, "neo4j": neo4j_store}


@pytest.fixture
def load_settings_tmp(scholarkg_home: Path, tmp_path: Path) -> Settings:
    """Settings whose checkpoints live in this test's temp dir (each backend loads afresh)."""
    return load_settings().with_overrides(home=tmp_path / "home")


def _ranker(name: str, *, hashed: bool = False) -> Callable[[], AnswerSource]:
    """A ranker answer source made anew for each backend (with its own hash embedder)."""
    if hashed:
        return lambda: AnswerSource.ranker(name, embedder=HashEmbedder())
    return lambda: AnswerSource.ranker(name)


def _load_both(both: Mapping[str, GraphStore], load: Callable[[GraphStore], object]) -> None:
    for st in both.values():
        load(st)
    emb, neo = both["embedded"].counts(), both["neo4j"].counts()
    assert dict(emb.nodes) == dict(neo.nodes)
    assert dict(emb.relationships) == dict(neo.relationships)


def _run_both(
    task: BenchmarkTask | Callable[[], BenchmarkTask],
    both: Mapping[str, GraphStore],
    source: Callable[[], AnswerSource],
    options: Mapping[str, Any] | None = None,
) -> dict[str, TaskRun]:
    """One ``run_task`` per backend (a fresh task and answer source each: nothing cached in
    a task or a ranker may carry numbers from one backend to the other)."""
    runs = {}
    for backend, st in both.items():
        t = task() if callable(task) and not isinstance(task, BenchmarkTask) else task
        runs[backend] = run_task(t, st, source(), dict(options or {}), record_in_graph=False)
    return runs


def _assert_same(runs: Mapping[str, TaskRun], *, tol: float = 0.0) -> None:
    """Same instances, same aggregate and per-instance metrics (``tol`` 0: exactly)."""
    a, b = runs["embedded"], runs["neo4j"]
    assert [i.id for i in a.instances] == [i.id for i in b.instances]
    _same_scores(a.result.aggregate, b.result.aggregate, tol, "aggregate")
    assert set(a.result.per_instance) == set(b.result.per_instance)
    for iid, scores in a.result.per_instance.items():
        _same_scores(scores, b.result.per_instance[iid], tol, iid)


def _same_scores(a: Mapping[str, Any], b: Mapping[str, Any], tol: float, where: str) -> None:
    assert set(a) == set(b), where
    for key, va in a.items():
        vb = b[key]
        if tol and isinstance(va, float) and isinstance(vb, float):
            assert vb == pytest.approx(va, abs=tol), (where, key)
        else:
            assert va == vb, (where, key, va, vb)


# --------------------------------------------------------------------------- LEGOBench RPG


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_legobench_rpg_parity(both: dict[str, GraphStore], tmp_path: Path) -> None:
    """PageRank baseline (edge weights from the hashing encoder, PageRank in GDS on Neo4j)
    and the pairwise 'ours', in a text-only and a citation configuration."""
    from scholarkg.loaders.apc import read_citations, read_comparisons, read_papers
    from scholarkg.synthetic.legobench_corpus import generate, write_corpus

    files = write_corpus(generate(n_papers=160, n_leaderboards=14, seed=13), tmp_path / "lego")

    def load(st: GraphStore) -> None:
        write_records(st, read_papers(files["papers"]))
        write_records(st, read_citations(files["citations"]))
        write_records(st, read_comparisons(files["comparisons"]))

    _load_both(both, load)
    task = load_task("legobench-rpg")
    for config in ("cn-tabs", "pcn-ft"):
        opts = {
            "config": config,
            "split": "all",
            "encoder": "hashing",
            "ground_truth": files["leaderboards"],
        }
        names = ("pagerank", "pagerank-hybrid", "ours", "ours-strict", "date", "indegree")
        for name in names if config == "cn-tabs" else ("pagerank", "ours"):
            tol = PR_TOL if name.startswith("pagerank") else 0.0
            runs = _run_both(task, both, _ranker(name), opts)
            _assert_same(runs, tol=tol)
            _same_rankings(runs, tol=tol)


def _same_rankings(runs: Mapping[str, TaskRun], *, tol: float = 0.0) -> None:
    """The rankings themselves (``Ranking`` answers): same ids in the same order, scores
    equal (within ``tol``)."""
    emb, neo = runs["embedded"].answers.by_instance, runs["neo4j"].answers.by_instance
    assert set(emb) == set(neo)
    for iid, a in emb.items():
        b = neo[iid]
        assert list(a.ids) == list(b.ids), iid
        assert list(b.scores) == pytest.approx(list(a.scores), abs=tol, rel=0), iid


# --------------------------------------------------------------------------- DORIS-MAE


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_dorismae_parity(both: dict[str, GraphStore], tmp_path: Path) -> None:
    """BM25 baseline, aspect-BM25 and graph PPR (ours) on the candidate pools."""
    from scholarkg.loaders.dorismae import DorisReader
    from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

    world = SyntheticDoris(n_queries=6, pool_size=16, n_background=20, seed=11)
    path = write_json(world, tmp_path / "DORIS-MAE_dataset_v1.json")
    _load_both(both, lambda st: write_records(st, DorisReader(path).records(), batch_size=500))
    task = load_task("dorismae")
    for name in ("bm25", "tfidf", "aspect-bm25"):
        runs = _run_both(task, both, _ranker(name), {"task": "subquery"})
        _assert_same(runs)
        assert runs["embedded"].answers.by_instance == runs["neo4j"].answers.by_instance
    for name in ("aspect-both", "graph-ppr", "hybrid-rrf", "fusion-learned"):
        runs = _run_both(task, both, _ranker(name, hashed=True))
        _assert_same(runs, tol=PR_TOL)
    # the whole corpus through the vector index (Neo4j: a native vector index)
    runs = _run_both(
        task, both, lambda: AnswerSource.ranker("dense", embedder=HashEmbedder()),
        {"pool": "corpus"},
    )  # fmt: skip
    _assert_same(runs)
    assert runs["embedded"].answers.by_instance == runs["neo4j"].answers.by_instance


# --------------------------------------------------------------------------- citerec


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_citerec_parity(
    both: dict[str, GraphStore], tmp_path: Path, load_settings_tmp: Settings
) -> None:
    """Synthetic S2 world in a graph another family's papers are already in (as in the demo:
    the projection then numbers its nodes in each backend's own order): BM25 baseline, the
    graph rankers, the RRF hybrid and the learned fusion."""
    from scholarkg.loaders.corpus_lookup import corpus_lookup
    from scholarkg.loaders.dorismae import DorisReader
    from scholarkg.loaders.tolerant import SkipReport
    from scholarkg.synthetic.citation_world import generate
    from scholarkg.synthetic.citerec_corpus import write_world
    from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

    # DORIS-MAE's papers ("v:..." ids) first: FalkorDB numbers nodes by insertion, Neo4j's
    # snapshot by id, so the two projections order their nodes differently
    doris = write_json(
        SyntheticDoris(n_queries=2, pool_size=12, n_background=10, seed=3), tmp_path / "d.json"
    )
    files = write_world(generate(160, seed=13), tmp_path / "s2")

    def load(st: GraphStore) -> None:
        write_records(st, DorisReader(doris).records())
        steps = s2_steps(files, SkipReport(), corpus_lookup(st))
        run_steps(st, steps, settings=load_settings_tmp, batch_size=500)

    _load_both(both, load)
    task = load_task("citerec")
    for name in ("bm25", "dense", "ppr", "cocitation", "coupling", "popularity", "hybrid",
                 "hybrid-learned"):  # fmt: skip
        runs = {}
        for backend, st in both.items():
            opts = {"projection_cache": str(tmp_path / f"proj-{backend}")}
            source = AnswerSource.ranker(name, embedder=HashEmbedder())
            runs[backend] = run_task(task, st, source, opts, record_in_graph=False)
        tol = PR_TOL if name in ("ppr", "hybrid", "hybrid-learned") else 0.0
        _assert_same(runs, tol=tol)
        # the top-10 lists themselves (ties included), not only their scores
        assert runs["embedded"].answers.by_instance == runs["neo4j"].answers.by_instance, name


def _write_beir(out: Path) -> Path:
    """The synthetic BEIR-layout collection (the retrieval family's synthetic corpus)."""
    from scholarkg.synthetic.beir import write_collection

    return write_collection(out)


def test_retrieval_parity(
    both: dict[str, GraphStore], tmp_path: Path, load_settings_tmp: Settings
) -> None:
    """A BEIR-layout collection: BM25 baseline, the RRF hybrid and the learned hybrid."""
    from scholarkg.commands.load_retrieval import beir_steps
    from scholarkg.loaders.tolerant import SkipReport

    directory = _write_beir(tmp_path / "beir")

    def load(st: GraphStore) -> None:
        steps = beir_steps(directory, "synth", SkipReport())
        run_steps(st, steps, settings=load_settings_tmp, batch_size=500)

    _load_both(both, load)
    task = load_task("retrieval")
    opts = {"dataset": "synth", "depth": 50}
    _assert_same(_run_both(task, both, lambda: AnswerSource.ranker("bm25"), opts))
    for name in ("dense", "hybrid", "hybrid-learned"):
        runs = _run_both(task, both, _ranker(name, hashed=True), opts)
        _assert_same(runs, tol=PR_TOL)


# --------------------------------------------------------------------------- AAAR-1.0


def test_aaar_parity(both: dict[str, GraphStore], tmp_path: Path) -> None:
    """ExpDesign's copy-input baseline and Weakness / ExpDesign imported predictions, scored
    with a deterministic keyword encoder (no model)."""
    from scholarkg.benchmark.tasks.aaar.expdesign import ExpDesignTask
    from scholarkg.benchmark.tasks.aaar.weakness import WeaknessTask
    from scholarkg.loaders.aaar import aaar_groups, task_sources
    from scholarkg.synthetic.aaar import (
        write_expdesign_results,
        write_synthetic,
        write_weakness_results,
    )

    data = write_synthetic(tmp_path / "aaar", n_expdesign=4)
    records = [r for task, p in task_sources(data.root) for _, g in aaar_groups(task, p) for r in g]
    _load_both(both, lambda st: write_records(st, records, batch_size=200))

    def enc() -> HashEmbedder:
        return HashEmbedder("aaar-hash")

    exp = _run_both(
        lambda: ExpDesignTask(encoder=enc()), both, lambda: AnswerSource.ranker("copy-input")
    )
    _assert_same(exp)
    gold = {}
    for pid in data.expdesign_ids:
        out = json.loads((data.expdesign / pid / "data_text.json").read_text())["output"]
        gold[pid] = tuple(out.values())
    # imported answers: the gold experiments, explanations in reverse order
    exp_pred = write_expdesign_results(
        tmp_path / "exp-pred", {p: (e, w[::-1]) for p, (e, w) in gold.items()}, gold=gold
    )
    _assert_same(
        _run_both(
            lambda: ExpDesignTask(encoder=enc()), both, lambda: AnswerSource.predictions(exp_pred)
        )
    )
    # imported weaknesses: the first reviewer's list for every paper
    wk_gold = data.weakness_gold
    write_weakness_results(
        tmp_path / "wk-pred" / "3000" / "eval_results.json",
        {p: g[0] for p, g in wk_gold.items()},
        wk_gold,
    )
    _assert_same(
        _run_both(
            lambda: WeaknessTask(encoder=enc()),
            both,
            lambda: AnswerSource.predictions(tmp_path / "wk-pred"),
        )
    )


# --------------------------------------------------------------------------- SciReplicate


def test_scireplicate_parity(
    both: dict[str, GraphStore], tmp_path: Path, load_settings_tmp: Settings
) -> None:
    """Imported code: another task's reference code (the floor) and the reference (ceiling),
    judged by the identity matcher and a hashing step encoder (no model)."""
    from scholarkg.benchmark.tasks.scireplicate.task import ScireplicateTask
    from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate
    from scholarkg.synthetic.scireplicate import (
        generate,
        write_benchmark,
        write_reference_predictions,
    )

    root = tmp_path / "scirep"
    data = write_benchmark(root, generate(2, 4, seed=7), seed=7)

    def load(st: GraphStore) -> None:
        step = Step(
            "scireplicate", data, "scireplicate",
            lambda: read_scireplicate(
                data, papers_dir=root / "papers", repos_dir=root / "repos",
                report=ScireplicateReport(),
            ),
        )  # fmt: skip
        run_steps(st, [step], settings=load_settings_tmp, batch_size=8)

    _load_both(both, load)
    preds = write_reference_predictions(data, tmp_path)
    for path in preds.values():
        for judge in ("identity", "embedding"):
            runs = _run_both(
                lambda: ScireplicateTask(encoder=HashEmbedder("scirep-hash")),
                both,
                functools.partial(AnswerSource.predictions, path),
                {"judge": judge, "embedding_cache": False},
            )
            _assert_same(runs)
