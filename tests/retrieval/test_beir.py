"""BEIR-layout collections: ``scholarkg load beir`` through the CLI, then the ``retrieval`` task.

The loader and the end-to-end BM25 run talk to the live embedded FalkorDB; the task's own logic
(the fusion fit, depths, split and threshold handling) runs on beir-mini served by the
recording double (``_beir_double.beir_recording_store``), where no server is needed.

The fixture ``beir-mini`` is written by us in BEIR's exact layout and holds planted defects
(a line that is not JSON, a document without ``_id``, a query line that is not an object, a
qrels row with two columns, one with a non-numeric score, one naming an unknown document).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _cli import cli_ok
from _fakes import RecordingStore, encoded_by, num

from scholarkg.benchmark.rankers.fusion import FusionRanker
from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.config import Settings
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

FIX = Path(__file__).parent.parent / "fixtures" / "retrieval" / "beir-mini"


def _counts(store: FalkorDBStore) -> tuple[dict[str, int], dict[str, int]]:
    c = store.counts()
    return dict(c.nodes), dict(c.relationships)


def test_load_reports_bad_lines_and_is_idempotent(graph: FalkorDBStore) -> None:
    out = " ".join(cli_ok(["load", "beir", str(FIX), "--name", "mini"]).split())
    assert "corpus.jsonl: 2 malformed line(s) skipped" in out
    assert "queries.jsonl: 1 malformed line(s) skipped" in out
    assert "test.tsv: 2 malformed line(s) skipped" in out
    assert "corpus.jsonl:5: invalid JSON" in out
    assert "corpus.jsonl:8 (_id): missing value" in out
    assert "test.tsv:9: expected 3 tab-separated columns (or TREC's 4), got 2" in out
    assert "test.tsv:11 (score): score 'maybe' is not a number" in out
    nodes, rels = _counts(graph)
    assert nodes["Paper"] == 8 and nodes["Query"] == 4 and nodes["Collection"] == 1
    # 7 valid test judgements + 1 dev; q2 -> d9 names no document (skipped by the writer)
    assert rels["HAS_QREL"] == 8 and rels["IN_COLLECTION"] == 12
    assert "1 relationship(s) skipped" in out

    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    assert _counts(graph) == (nodes, rels)

    rows = graph.run(
        "MATCH (q:Query {qid: 'q1'})-[j:HAS_QREL]->(p:Paper)-[m:IN_COLLECTION]->(:Collection) "
        "RETURN m.doc_id AS doc, p.id AS id, j.score AS score, j.split AS split ORDER BY doc",
        {},
    )
    assert rows == [
        {"doc": "10.1234/ZORB.5", "id": "doi:10.1234/zorb.5", "score": 0.0, "split": "test"},
        {"doc": "d1", "id": "beir:mini:d1", "score": 2.0, "split": "test"},
        {"doc": "d7", "id": "beir:mini:d7", "score": 1.0, "split": "test"},
    ]


def test_doi_and_arxiv_documents_join_existing_papers(graph: FalkorDBStore) -> None:
    graph.merge_nodes(
        "Paper", [{"id": "arxiv:2101.00007", "title": "From elsewhere", "citation_count": 3}]
    )
    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    rows = graph.run(
        "MATCH (p:Paper {id: 'arxiv:2101.00007'})-[m:IN_COLLECTION]->(c:Collection) "
        "RETURN p.citation_count AS cc, p.arxiv_id AS a, m.doc_id AS doc, c.id AS c",
        {},
    )
    assert rows == [
        {"cc": 3, "a": "2101.00007", "doc": "2101.00007v2", "c": "collection:beir:mini"}
    ]
    assert graph.counts().nodes["Paper"] == 8


def test_load_beir_errors_name_the_problem(tmp_path: Path, graph: FalkorDBStore) -> None:
    from _cli import runner

    from scholarkg.cli import app

    (tmp_path / "corpus.jsonl").write_text("")
    res = runner.invoke(app, ["load", "beir", str(tmp_path)])
    assert res.exit_code != 0
    assert isinstance(res.exception, InputError) and "queries.jsonl" in str(res.exception)


def _independent_bm25(k: int) -> dict[str, dict[str, float]]:
    """bm25s straight on the files: same tokenisation (bm25s.tokenize, English stop-words,
    lower-case, bm25s' default token pattern), Lucene BM25 k1=1.5 b=0.75; title + " " + text."""
    import bm25s

    ids, texts = [], []
    for line in (FIX / "corpus.jsonl").read_text().splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "_id" in obj:
            ids.append(obj["_id"])
            texts.append(obj.get("title", "") + " " + obj.get("text", ""))
    queries = {}
    for line in (FIX / "queries.jsonl").read_text().splitlines():
        obj = json.loads(line)
        if isinstance(obj, dict):
            queries[obj["_id"]] = obj["text"]
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(
        bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False),
        show_progress=False,
    )
    out = {}
    for qid, text in queries.items():
        toks = bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        scores = retriever.get_scores(toks)
        out[qid] = {d: float(s) for d, s in zip(ids, scores, strict=True) if d != qid}
    return out


def _read_trec(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        qid, _, doc, _rank, score, _tag = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    return run


def test_bm25_retrieval_equals_independent_bm25s(graph: FalkorDBStore, tmp_path: Path) -> None:
    import pytrec_eval

    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    task = load_task("retrieval")
    run = run_task(task, graph, AnswerSource.ranker("bm25"), {"dataset": "mini"}, out_dir=tmp_path)
    ours = _read_trec(tmp_path / "run.trec")
    ref = _independent_bm25(k=1000)
    judged = {"q1", "q2", "q3"}  # q4 is judged only in dev
    assert set(ours) == judged
    for qid in judged:
        assert set(ours[qid]) == set(ref[qid])
        for doc, score in ref[qid].items():
            assert ours[qid][doc] == pytest.approx(score, rel=1e-6, abs=1e-6), (qid, doc)

    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert set(metrics) >= {"aggregate", "per_query", "units"}
    assert set(metrics["aggregate"]) == {"nDCG@10", "R@10", "R@100", "MRR@10", "MAP"}
    assert set(metrics["per_query"]) == judged
    assert all(0.0 <= v <= 1.0 for v in metrics["aggregate"].values())
    # q3's judged q3 document is its own id: BEIR drops it, so recall is at most 1/2
    assert metrics["per_query"]["q3"]["R@100"] == pytest.approx(0.5)

    qrels = {
        "q1": {"d1": 2, "d7": 1, "10.1234/ZORB.5": 0},
        "q2": {"2101.00007v2": 1, "d2": 1},
        "q3": {"q3": 1, "d4": 1},
    }
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.10"})
    per = ev.evaluate({q: ours[q] for q in judged})
    for qid in judged:
        assert metrics["per_query"][qid]["nDCG@10"] == pytest.approx(per[qid]["ndcg_cut_10"])
        assert metrics["per_query"][qid]["MAP"] == pytest.approx(per[qid]["map"])
        assert metrics["per_query"][qid]["R@10"] == pytest.approx(per[qid]["recall_10"])
    assert run.record.config["units"]["nDCG@10"] == "fraction"
    assert np.isclose(
        num(run.result.aggregate["nDCG@10"]), np.mean([per[q]["ndcg_cut_10"] for q in judged])
    )


def test_a_later_record_of_a_shared_document_changes_no_score(
    any_store: GraphStore, settings: Settings
) -> None:
    """The DOI and arXiv documents are the Papers every source of those works writes; a
    later record rewrites their shared title and abstract, and the collection ranks its own
    text, kept on the edge (collection-scoped documents need no copy). On both backends."""
    from scholarkg.commands.load_retrieval import beir_steps
    from scholarkg.loaders.steps import run_steps
    from scholarkg.loaders.tolerant import SkipReport

    graph = any_store
    run_steps(graph, beir_steps(FIX, "mini", SkipReport()), settings=settings)
    task = load_task("retrieval")
    before = run_task(task, graph, AnswerSource.ranker("bm25"), {"dataset": "mini"})
    copies = graph.run(
        "MATCH (p:Paper)-[m:IN_COLLECTION]->(:Collection) WHERE m.own_text "
        "RETURN p.id AS id ORDER BY id"
    )
    assert [r["id"] for r in copies] == ["arxiv:2101.00007", "doi:10.1234/zorb.5"]
    graph.merge_nodes(  # another source's records of the two works
        "Paper",
        [
            {"id": "arxiv:2101.00007", "title": "Zorbic lattices", "abstract": "zorbic lattice"},
            {"id": "doi:10.1234/zorb.5", "title": "Glorp", "abstract": "glorp networks glorp"},
        ],
    )
    after = run_task(task, graph, AnswerSource.ranker("bm25"), {"dataset": "mini"})
    assert after.answers.by_instance == before.answers.by_instance
    assert after.result.aggregate == before.result.aggregate


def test_dense_and_hybrid_rankers_and_splits(graph: FalkorDBStore, tmp_path: Path) -> None:
    from _fakes import HashEmbedder

    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    task = load_task("retrieval")
    emb = HashEmbedder()
    dev = run_task(
        task,
        graph,
        AnswerSource.ranker("hybrid", embedder=emb),
        {"dataset": "mini", "split": "dev", "depth": 5},
    )
    assert [i.data["qid"] for i in dev.instances] == ["q4"]
    ranking = dev.answers.by_instance[dev.instances[0].id]
    assert len(ranking) == 5 and next(iter(ranking)) == "d3"  # pagerank citation doc first
    assert dev.answers.params["ranker"] == "rrf"
    dense = run_task(task, graph, AnswerSource.ranker("dense", embedder=emb), {"dataset": "mini"})
    assert dense.answers.params["model"] == "hash-embedder"
    with pytest.raises(InputError, match="no BEIR collection 'nope'"):
        run_task(task, graph, AnswerSource.ranker("bm25"), {"dataset": "nope"})
    with pytest.raises(InputError, match="needs --dataset"):
        run_task(task, graph, AnswerSource.ranker("bm25"))


def test_hybrid_after_dense_encodes_nothing(graph: FalkorDBStore, tmp_path: Path) -> None:
    """The corpus (and the queries) are encoded by the first run only: a second run, in a new
    encoder instance as a new process would have, reads every vector from the file cache."""
    from _fakes import HashEmbedder

    from scholarkg.services.embeddings import CachingEmbedder

    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    task = load_task("retrieval")
    first = CachingEmbedder(HashEmbedder(), tmp_path / "cache")
    seen: list[tuple[str, int, int]] = []
    dense = run_task(
        task,
        graph,
        AnswerSource.ranker("dense", embedder=first),
        {"dataset": "mini"},
        progress=lambda stage, done, total: seen.append((stage, done, total)),
    )
    n_docs = dense.answers.extra["n_docs"]
    assert len(encoded_by(first)) == n_docs + len(dense.instances)
    assert dense.answers.extra["vectors"] == {"cached": 0, "encoded": n_docs + 3}
    assert ("encode", n_docs, n_docs) in seen  # the corpus encoding reports its progress
    assert dense.answers.params["encoder"] == {"model": "hash-embedder", "dim": 32}

    second = CachingEmbedder(HashEmbedder(), tmp_path / "cache")
    hybrid = run_task(
        task, graph, AnswerSource.ranker("hybrid", embedder=second), {"dataset": "mini"}
    )
    assert encoded_by(second) == []  # encoder calls on the second run: none
    assert hybrid.answers.extra["vectors"] == {"cached": n_docs + 3, "encoded": 0}
    assert num(hybrid.result.aggregate["nDCG@10"]) > 0


def test_hybrid_learned_fits_its_weight_on_dev(mini: RecordingStore) -> None:
    from _fakes import HashEmbedder

    from scholarkg.benchmark.rankers.fusion import RRF_K, RRF_K_GRID, WEIGHT_GRID, simplex_grid

    task = load_task("retrieval")
    emb = HashEmbedder()
    test = run_task(
        task, mini, AnswerSource.ranker("hybrid-learned", embedder=emb), {"dataset": "mini"}
    )
    fit = test.answers.extra["fit"]
    assert (fit["split"], fit["n_queries"], fit["in_sample"]) == ("dev", 1, False)
    assert fit["metric"] == "nDCG@10"
    # every candidate was scored: RRF constants on the BM25 + dense pair (the unfitted
    # hybrid) and on all four inputs, CombSUM weights on the simplex
    assert set(fit["grid"]) == (
        {f"rrf k={k} of (0, 2)" for k in RRF_K_GRID}
        | {f"rrf k={k}" for k in RRF_K_GRID}
        | {"combsum w=(" + ", ".join(f"{x:g}" for x in w) + ")" for w in simplex_grid(4)}
    )
    assert fit["score"] == pytest.approx(max(fit["grid"].values()))
    assert fit["score"] == pytest.approx(fit["grid"][fit["chosen"]])
    # the unfitted hybrid (RRF at the task's k) is a candidate, so the fit never loses to it
    assert fit["score"] >= fit["grid"][f"rrf k={RRF_K} of (0, 2)"]
    names = ["bm25", "bm25-ref-window", "dense", "dense-rocchio"]
    fused = [i["ranker"] for i in test.answers.params["inputs"]]
    if fit["method"] == "combsum":
        assert test.answers.params["weights"] == pytest.approx(fit["weights"])
        assert fused == names
    else:
        assert test.answers.params["k"] == fit["k"]
        assert fused == [names[i] for i in fit["inputs"]]
    assert test.answers.params["method"] == fit["method"]
    # without the window and feedback inputs: the two-input fit of BM25 and dense
    two = run_task(
        task, mini, AnswerSource.ranker("hybrid-learned", embedder=emb),
        {"dataset": "mini", "ref_window": 0, "rocchio_docs": 0},
    )  # fmt: skip
    assert set(two.answers.extra["fit"]["grid"]) == {f"rrf k={k}" for k in RRF_K_GRID} | {
        f"combsum w={w}" for w in WEIGHT_GRID
    }
    assert [i["ranker"] for i in two.answers.params["inputs"]] == ["bm25", "dense"]
    for opt in ("ref_window", "rocchio_docs"):
        with pytest.raises(InputError, match=f"--{opt.replace('_', '-')} must be >= 0"):
            run_task(task, mini, AnswerSource.ranker("hybrid-learned", embedder=emb),
                     {"dataset": "mini", opt: -1})  # fmt: skip
    assert [i.data["qid"] for i in test.instances] == ["q1", "q2", "q3"]
    # fitted and scored on dev: the run's nDCG@10 is the fit's own figure for that weight
    dev = run_task(
        task,
        mini,
        AnswerSource.ranker("hybrid-learned", embedder=emb),
        {"dataset": "mini", "split": "dev"},
    )
    assert dev.answers.extra["fit"]["in_sample"] is True
    assert dev.result.aggregate["nDCG@10"] == pytest.approx(dev.answers.extra["fit"]["score"])
    with pytest.raises(InputError, match=r"qrels/train\.tsv or pick another split"):
        run_task(
            task,
            mini,
            AnswerSource.ranker("hybrid-learned", embedder=emb),
            {"dataset": "mini", "fit_split": "train"},
        )


def test_hybrid_learned_inputs_clean_the_raw_query_themselves() -> None:
    """Four inputs, each given the raw citing sentence: BM25 and dense read it cleaned, the
    window input also reads the words around ``<REF>`` (which cleaning would lose), and the
    Rocchio input moves the dense query towards the BM25 + dense RRF's top documents."""
    from _fakes import HashEmbedder

    from scholarkg.benchmark.rankers.bm25 import BM25Ranker
    from scholarkg.benchmark.tasks.retrieval.querytext import citation_query, weigh_ref_window
    from scholarkg.benchmark.tasks.retrieval.task import build_text_ranker

    ids = ["a", "b", "c"]
    texts = ["lattice protein folding", "theorem proving with lattices", "graph citation networks"]
    params = {"embedder": HashEmbedder(), "query_mode": "clean", "ref_window": 2,
              "rocchio_docs": 2, "fusion_depth": 3}  # fmt: skip
    ranker = build_text_ranker("hybrid-learned", ids, texts, params)
    assert ranker.name == "hybrid-learned"
    assert isinstance(ranker, FusionRanker)
    bm25_in, window_in, dense_in, rocchio_in = ranker.rankers
    raw = "Smith et al. (2019) proved <REF> lattice folding bounds in Theorem REF"
    bm25 = BM25Ranker(ids, texts, strict_candidates=False)
    assert bm25_in.rank(raw, 3).scores == bm25.rank(citation_query(raw), 3).scores
    assert window_in.rank(raw, 3).scores == bm25.rank(weigh_ref_window(raw, 2), 3).scores
    assert window_in.rank(raw, 3).scores != bm25_in.rank(raw, 3).scores
    dense_ranking = dense_in.rank(raw, 3)
    assert dense_ranking.ranker == "dense" and dense_ranking.params["query_rewrite"] == "clean"
    assert rocchio_in.rank(raw, 3).ranker == "dense-rocchio"
    assert rocchio_in.params["first_stage"]["ranker"] == "rrf"
    # settings 0 drop the two extra inputs
    plain = build_text_ranker(
        "hybrid-learned", ids, texts, {**params, "ref_window": 0, "rocchio_docs": 0}
    )
    assert isinstance(plain, FusionRanker)
    assert [r.name for r in plain.rankers] == ["bm25", "dense"]


def test_fusion_depth_is_what_each_ranker_contributes(mini: RecordingStore) -> None:
    """``--fusion-depth N`` changes the hybrid run at the default ``--depth 1000`` (it was a
    no-op: the fusion took max(N, depth + 1)), and the record shows the fusion depth."""
    from _fakes import HashEmbedder

    task = load_task("retrieval")
    emb = HashEmbedder()
    default = run_task(task, mini, AnswerSource.ranker("hybrid", embedder=emb),
                       {"dataset": "mini"})  # fmt: skip
    shallow = run_task(task, mini, AnswerSource.ranker("hybrid", embedder=emb),
                       {"dataset": "mini", "fusion_depth": 1})  # fmt: skip
    assert default.answers.params["fusion_depth"] == 100  # chosen on real dev queries
    assert shallow.answers.params["fusion_depth"] == 1
    assert shallow.record.config["answer"]["params"]["depth"] == 1000
    assert shallow.record.config["answer"]["params"]["fusion_depth"] == 1
    # two inputs, their top 1 each: at most 2 documents per query (the query's own id dropped)
    assert all(len(r) <= 2 for r in shallow.answers.by_instance.values())
    assert any(len(r) > 2 for r in default.answers.by_instance.values())
    assert shallow.answers.by_instance != default.answers.by_instance
    with pytest.raises(InputError, match="--fusion-depth must be >= 1"):
        run_task(task, mini, AnswerSource.ranker("bm25"), {"dataset": "mini", "fusion_depth": 0})


def test_a_split_that_was_not_loaded_names_the_loaded_ones(mini: RecordingStore) -> None:
    with pytest.raises(InputError) as err:
        run_task(load_task("retrieval"), mini, AnswerSource.ranker("bm25"),
                 {"dataset": "mini", "split": "train"})  # fmt: skip
    text = str(err.value)
    assert "no queries judged in split 'train'" in text
    assert "dev (1 queries)" in text and "test (3 queries)" in text and "--split" in text


def test_relevance_threshold_and_the_warning_for_queries_without_relevant_documents(
    mini: RecordingStore,
) -> None:
    """At threshold 2 only q1's d1 (grade 2) is relevant: q2 and q3 have none, the run says
    so, and the binary metrics count d1 alone (nDCG uses the grades either way)."""
    task = load_task("retrieval")
    one = run_task(task, mini, AnswerSource.ranker("bm25"), {"dataset": "mini"})
    two = run_task(task, mini, AnswerSource.ranker("bm25"),
                   {"dataset": "mini", "relevance_threshold": 2})  # fmt: skip
    assert one.result.notes == []
    assert len(two.result.notes) == 1
    note = two.result.notes[0]
    assert note.startswith("2 of 3 queries have no document with grade >= 2 (q2, q3)")
    assert "2 of 3 queries" in (two.record.notes or "")
    assert two.record.config["configuration"]["relevance_threshold"] == 2.0
    by_qid = {i.id: i.data["qid"] for i in two.instances}
    per = {by_qid[k]: v for k, v in two.result.per_instance.items()}
    assert per["q2"]["MAP"] == 0.0 and per["q3"]["R@100"] == 0.0
    ranking = list(two.answers.by_instance[next(k for k, q in by_qid.items() if q == "q1")])
    assert per["q1"]["MRR@10"] == pytest.approx(1 / (ranking.index("d1") + 1))
    assert per["q1"]["nDCG@10"] == pytest.approx(
        {by_qid[k]: v for k, v in one.result.per_instance.items()}["q1"]["nDCG@10"]
    )


def test_the_recording_double_answers_as_the_loaded_graph(graph: FalkorDBStore) -> None:
    """The unit tests above run on ``beir_recording_store``: its rows for the task's four
    named queries are the live graph's after ``load beir`` (qrels compared as sets: Cypher's
    ``collect`` has no order)."""
    from ._beir_double import beir_recording_store

    cli_ok(["load", "beir", str(FIX), "--name", "mini"])
    double = beir_recording_store()
    coll = {"collection": "collection:beir:mini", "source": "beir:mini"}
    asks: list[tuple[str, dict[str, Any]]] = [
        ("retrieval/collection_info", {"collection": coll["collection"]}),
        ("retrieval/collection_info", {"collection": "collection:beir:nope"}),
        ("retrieval/beir_splits", coll),
        ("retrieval/beir_queries", {**coll, "split": "test"}),
        ("retrieval/beir_queries", {**coll, "split": "dev"}),
        ("retrieval/collection_docs", {"collection": coll["collection"], "skip": 0, "limit": 5}),
        ("retrieval/collection_docs", {"collection": coll["collection"], "skip": 5, "limit": 5}),
    ]

    def canonical(rows: list[dict[str, object]]) -> list[dict[str, object]]:
        return [
            {k: sorted(map(str, v)) if isinstance(v, list) else v for k, v in r.items()}
            for r in rows
        ]

    for name, params in asks:
        live = graph.run_named(name, params)
        assert canonical(live) == canonical(double.run_named(name, params)), (name, params)
    assert double.asked() == [name for name, _ in asks]
