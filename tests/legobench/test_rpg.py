"""LEGOBench RPG on the real embedded FalkorDB: retrieval, weights, PageRank, rankers, leakage.

Two kinds of fixtures: tiny hand-built graphs of made-up words (so candidate sets and cosines
can be computed by hand), and one small synthetic LEGOBench world (450 papers, 40
leaderboards, seed 13) loaded through the real APC loader, shared by the module.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _fakes import TableEmbedder, num
from typer.testing import CliRunner

from scholarkg.benchmark.tasks.legobench.rpg import core as rpg
from scholarkg.benchmark.tasks.legobench.rpg.dates import fractional_year
from scholarkg.benchmark.tasks.legobench.rpg.features import (
    PAIR_FEATURES,
    GraphIndex,
    context_quality,
    pair_features,
)
from scholarkg.benchmark.tasks.legobench.rpg.model import (
    OURS_DEFAULTS,
    OURS_DEFAULTS_CONTEXT,
    PairwiseModel,
    aggregate_order,
    fit_logistic,
)
from scholarkg.benchmark.tasks.legobench.rpg.pipeline import run_rpg
from scholarkg.benchmark.tasks.legobench.rpg.rankers import PairwiseRanker, make_ranker
from scholarkg.benchmark.tasks.legobench.rpg.training import tune_pairwise
from scholarkg.config import Settings
from scholarkg.errors import InputError, TaskNotFound
from scholarkg.loaders.apc import read_citations, read_comparisons, read_papers
from scholarkg.loaders.writer import write_records
from scholarkg.schema import ids
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.pagerank import pagerank
from scholarkg.synthetic.legobench_corpus import generate, write_corpus

SEED = 13


# --------------------------------------------------------------------------- fixtures


def _load(store: FalkorDBStore, files: dict[str, Path]) -> None:
    store.apply_schema()
    write_records(store, read_papers(files["papers"]))
    write_records(store, read_citations(files["citations"]))
    write_records(store, read_comparisons(files["comparisons"]))


@pytest.fixture(scope="module")
def corpus_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    corpus = generate(n_papers=450, n_leaderboards=40, seed=SEED)
    return write_corpus(corpus, tmp_path_factory.mktemp("rpg_corpus"))


@pytest.fixture(scope="module")
def corpus_graph(
    embedded_server: EmbeddedServer, corpus_files: dict[str, Path]
) -> Iterator[FalkorDBStore]:
    """The synthetic corpus in one graph, shared by the read-only tests of this module."""
    st = FalkorDBStore(embedded_server.connect(), f"rpg_{uuid.uuid4().hex[:10]}")
    _load(st, corpus_files)
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.fixture(scope="module")
def instances(corpus_files: dict[str, Path]) -> list[rpg.RPGInstance]:
    return rpg.read_ground_truth(corpus_files["leaderboards"])


@pytest.fixture(scope="module")
def test_split(instances: list[rpg.RPGInstance]) -> list[rpg.RPGInstance]:
    return rpg.select_split(instances, "test", seed=SEED)


def _tiny(
    store: FalkorDBStore,
    papers: list[dict[str, Any]],
    chunks: dict[str, list[str]] | None = None,
) -> None:
    store.apply_schema()
    store.merge_nodes("Paper", papers)
    for pid, texts in (chunks or {}).items():
        rows = [
            {"id": f"{pid}/chunk/{i}", "paper": pid, "ordinal": i, "text": t}
            for i, t in enumerate(texts)
        ]
        store.merge_nodes("Chunk", rows)
        store.merge_relationships(
            "HAS_CHUNK", "Paper", "Chunk", [{"start": pid, "end": r["id"]} for r in rows]
        )


# --------------------------------------------------------------------------- ground truth


def test_read_ground_truth_maps_ids_and_names_bad_fields(tmp_path: Path) -> None:
    good = tmp_path / "lb.jsonl"
    rows = [
        {"task": "Zorp Tagging", "dataset": "Kalo-10", "metric": "f1", "ranking": ["2101.00001"]},
        {"task": "t", "dataset": "d", "metric": "m", "ranking": ["2101.00002", "apc:x"]},
    ]
    good.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    got = rpg.read_ground_truth(good)
    assert [i.gold for i in got] == [("arxiv:2101.00001",), ("arxiv:2101.00002", "apc:x")]
    assert got[0].query.id == ids.leaderboard_id("Zorp Tagging", "Kalo-10", "f1")
    assert got[0].query.key == "zorp tagging|kalo-10|f1"
    assert got[0].query.text == "Zorp Tagging Kalo-10 f1"

    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(rows[0]) + "\n" + json.dumps({**rows[1], "metric": ""}) + "\n")
    with pytest.raises(InputError) as err:
        rpg.read_ground_truth(bad)
    assert (err.value.line, err.value.field) == (2, "metric")
    assert str(bad) in str(err.value)
    bad.write_text(json.dumps({**rows[0], "ranking": ["2101.00001", "2101.00001"]}) + "\n")
    with pytest.raises(InputError) as err:
        rpg.read_ground_truth(bad)
    assert (err.value.line, err.value.field) == (1, "ranking")
    bad.write_text(json.dumps(rows[0]) + "\n\n{not json\n")  # blank lines are skipped
    with pytest.raises(InputError, match="invalid JSON") as err:
        rpg.read_ground_truth(bad)
    assert err.value.line == 3
    with pytest.raises(InputError, match="not found"):
        rpg.read_ground_truth(tmp_path / "missing.jsonl")


def test_split_is_seeded_disjoint_and_order_free(instances: list[rpg.RPGInstance]) -> None:
    dev = rpg.select_split(instances, "dev", seed=SEED)
    test = rpg.select_split(instances, "test", seed=SEED)
    assert {i.query.id for i in dev}.isdisjoint({i.query.id for i in test})
    assert len(dev) + len(test) == len(instances)
    assert 0 < len(dev) < len(instances)
    shuffled = rpg.select_split(list(reversed(instances)), "test", seed=SEED)
    assert {i.query.id for i in shuffled} == {i.query.id for i in test}
    other = rpg.select_split(instances, "test", seed=SEED + 1)
    assert {i.query.id for i in other} != {i.query.id for i in test}


def test_ground_truth_from_graph_leaderboards(store: FalkorDBStore) -> None:
    _tiny(store, [{"id": f"p{i}", "title": f"t{i}"} for i in range(3)])
    store.merge_nodes("Leaderboard", [{"id": "lb1", "task": "T", "dataset": "D", "metric": "M"}])
    store.merge_relationships(
        "HAS_ENTRY", "Leaderboard", "Paper",
        [{"start": "lb1", "end": p, "gt_rank": r} for p, r in (("p2", 0), ("p0", 1), ("p1", 2))],
    )  # fmt: skip
    got = rpg.leaderboards_from_graph(store)
    assert len(got) == 1
    assert got[0].gold == ("p2", "p0", "p1")
    assert got[0].query.id == "lb1"  # the Leaderboard node id: shared with RPLM and LGPLM
    assert got[0].query.key == rpg.leaderboard_key("T", "D", "M")


# --------------------------------------------------------------------------- candidates


def test_strict_candidates_tabs_require_every_unigram(store: FalkorDBStore) -> None:
    _tiny(
        store,
        [
            {"id": "a", "title": "Vorpal zindle", "abstract": "on quibset with brillig"},
            {"id": "b", "title": "Vorpal zindle", "abstract": "on quibset"},  # no metric word
            {"id": "c", "title": "brillig", "abstract": "vorpal zindle quibset"},
            {"id": "d", "title": "zindle", "abstract": "quibset brillig"},  # no 'vorpal'
        ],
    )
    q = rpg.LeaderboardQuery("q", "vorpal zindle", "Quibset", "brillig")
    assert rpg.query_unigrams(q) == ["vorpal", "zindle", "quibset", "brillig"]
    assert rpg.strict_candidates(store, q, rpg.CONFIGS["cn-tabs"]) == ["a", "c"]


def test_strict_candidates_ft_and_holds_per_paper_across_chunks(store: FalkorDBStore) -> None:
    _tiny(
        store,
        [{"id": x, "title": "x"} for x in "abc"],
        chunks={
            "a": ["vorpal zindle", "quibset brillig table"],  # split over two chunks: kept
            "b": ["vorpal zindle quibset"],  # metric missing
            "c": ["brillig", "quibset", "zindle vorpal"],
        },
    )
    q = rpg.LeaderboardQuery("q", "vorpal zindle", "quibset", "brillig")
    assert rpg.strict_candidates(store, q, rpg.CONFIGS["pcn-ft"]) == ["a", "c"]


def test_strict_candidates_on_corpus_are_exactly_the_matching_papers(
    corpus_graph: FalkorDBStore, instances: list[rpg.RPGInstance]
) -> None:
    """Every candidate holds every unigram; every paper holding them is a candidate."""
    papers = {
        r["id"]: f"{r['title']} {r['abstract']}".lower()
        for r in corpus_graph.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS title, "
                           "p.abstract AS abstract")
    }  # fmt: skip
    import re

    def tokens(text: str) -> set[str]:
        return set(re.findall(r"[a-z0-9]+", text))

    for inst in instances[:8]:
        want = {
            pid
            for pid, text in papers.items()
            if all(
                set(re.findall(r"[a-z0-9]+", u)) <= tokens(text)
                for u in rpg.query_unigrams(inst.query)
            )
        }
        got = set(rpg.strict_candidates(corpus_graph, inst.query, rpg.CONFIGS["cn-tabs"]))
        assert got == want, inst.query.id


# --------------------------------------------------------------------------- weights


def test_edge_weights_are_cosines_stored_once(store: FalkorDBStore) -> None:
    _tiny(
        store,
        [
            {"id": "a", "title": "A", "abstract": "x"},
            {"id": "b", "title": "B", "abstract": "y"},
            {"id": "c", "title": "C", "abstract": "z"},
            {"id": "out", "title": "O", "abstract": "w"},
        ],
    )
    store.merge_relationships(
        "CITES", "Paper", "Paper",
        [{"start": s, "end": t} for s, t in (("a", "b"), ("a", "c"), ("c", "b"), ("a", "out"))],
    )  # fmt: skip
    emb = TableEmbedder(
        {"A\nx": [1, 0, 0], "B\ny": [0.6, 0.8, 0], "C\nz": [-1, 0, 0], "O\nw": [0, 0, 1]}
    )
    vectors = rpg.PaperVectors(store, emb)
    assert rpg.ensure_edge_weights(store, "CITES", ["a", "b", "c"], vectors) == 3
    rows = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN a.id AS s, b.id AS t, r.w_table AS w"
    )
    got = {(r["s"], r["t"]): r["w"] for r in rows}
    assert got[("a", "b")] == pytest.approx(0.6, abs=1e-6)
    assert got[("a", "c")] == pytest.approx(-1.0, abs=1e-6)
    assert got[("c", "b")] == pytest.approx(-0.6, abs=1e-6)
    assert got[("a", "out")] is None  # leaves the node set: not weighted
    assert all(-1.0 <= w <= 1.0 for w in got.values() if w is not None)
    # idempotent: nothing left to write, nothing re-encoded (vectors cached on the nodes too)
    n_calls = emb.calls
    assert rpg.ensure_edge_weights(store, "CITES", ["a", "b", "c"], vectors) == 0
    fresh = rpg.PaperVectors(store, emb)
    assert rpg.ensure_edge_weights(store, "CITES", ["a", "b", "c"], fresh) == 0
    assert set(fresh.get(["a", "b"])) == {"a", "b"}
    assert emb.calls == n_calls
    # read as RPG reads it (the embedded store keeps the model beside the vector, on the
    # paper's vector node)
    stored = store.run_named("legobench/rpg_paper_vectors", {"ids": ["a"]}, prop="emb_table")
    assert stored[0]["m"] == "table-embedder"


@pytest.mark.model
def test_minilm_edge_weights_match_model_cosine(store: FalkorDBStore) -> None:
    """The one test with the real bundled MiniLM: stored weights = cosine of its embeddings."""
    papers = [
        {"id": "a", "title": "Sparse attention for speech", "abstract": "Audio transformers."},
        {"id": "b", "title": "Acoustic models", "abstract": "Speech recognition with attention."},
        {"id": "c", "title": "Graph link prediction", "abstract": "Knowledge graph embedding."},
    ]
    _tiny(store, papers)
    store.merge_relationships(
        "COMPARES_WITH", "Paper", "Paper", [{"start": "a", "end": "b"}, {"start": "a", "end": "c"}]
    )
    emb = rpg.load_rpg_embedder("minilm")
    assert (
        rpg.ensure_edge_weights(
            store, "COMPARES_WITH", ["a", "b", "c"], rpg.PaperVectors(store, emb)
        )
        == 2
    )
    vec = emb.encode([f"{p['title']}\n{p['abstract']}" for p in papers])
    w = {
        (r["s"], r["t"]): r["w"]
        for r in store.run(
            "MATCH (a)-[r:COMPARES_WITH]->(b) RETURN a.id AS s, b.id AS t, r.w_minilm_l6 AS w"
        )
    }
    assert w[("a", "b")] == pytest.approx(float(vec[0] @ vec[1]), abs=1e-5)
    assert w[("a", "c")] == pytest.approx(float(vec[0] @ vec[2]), abs=1e-5)
    assert w[("a", "b")] > w[("a", "c")]  # speech~speech closer than speech~graphs


# --------------------------------------------------------------------------- rankers


def test_pagerank_ranking_equals_hand_built_graphalgo_call(
    corpus_graph: FalkorDBStore, test_split: list[rpg.RPGInstance]
) -> None:
    emb = rpg.HashingEmbedder()
    cfg = rpg.CONFIGS["pcn-ft"]
    ranker = make_ranker("pagerank", cfg, embedder=emb)
    inst = max(test_split, key=lambda i: len(rpg.strict_candidates(corpus_graph, i.query, cfg)))
    ranker.bind(corpus_graph)
    cands = ranker.candidates(inst.query)
    assert len(cands) >= 4
    got, _ = ranker.order(inst.query, cands)
    rows = corpus_graph.run(
        "MATCH (a:Paper)-[r:COMPARES_WITH]->(b:Paper) WHERE a.id IN $c AND b.id IN $c "
        "RETURN a.id AS s, b.id AS t, r.w_hashing256 AS w",
        {"c": cands},
    )
    assert rows, "the chosen candidate set should have comparison edges"
    index = {pid: i for i, pid in enumerate(cands)}
    scores, _, _ = pagerank(
        len(cands),
        np.asarray([index[r["s"]] for r in rows]),
        np.asarray([index[r["t"]] for r in rows]),
        np.asarray([r["w"] for r in rows], dtype=np.float64),
    )
    want = sorted(cands, key=lambda pid: (-scores[index[pid]], pid))
    assert got == want


def test_fractional_year_and_fallbacks() -> None:
    assert fractional_year("2019-01-01") == 2019.0
    assert fractional_year("2020-07-02") == pytest.approx(2020 + 183 / 365.25)
    assert fractional_year(2018) == 2018.5
    assert fractional_year(None, "1906.01234") == pytest.approx(2019 + 5.5 / 12)
    assert math.isnan(fractional_year(None, None))


def test_pair_features_by_hand() -> None:
    """Four papers, whole graph a→b, b→c, c→d, d→a, a→c, b→d; candidates a, b, c (not d)."""
    every = ["a", "b", "c", "d"]
    src, dst = np.array([0, 1, 2, 3, 0, 1]), np.array([1, 2, 3, 0, 2, 3])
    index = GraphIndex.from_edges(every, src, dst)
    np.testing.assert_array_equal(index.out_deg, [2, 2, 1, 1])
    np.testing.assert_array_equal(index.in_deg, [1, 1, 2, 2])
    years = np.array([2020.0, 2019.0, 2019.5])
    x = pair_features(["a", "b", "c"], years, index)
    f = {name: x[..., k] for k, name in enumerate(PAIR_FEATURES)}
    for name, m in f.items():  # every feature is antisymmetric
        np.testing.assert_allclose(m, -m.T, err_msg=name)
    assert f["dyear"][0, 1] == 1.0 and f["newer"][1, 2] == -1.0
    assert f["edge_net"][0, 1] == 1.0 and f["edge_net"][0, 2] == 1.0 and f["edge_net"][1, 2] == 1
    # a-b edge, a newer: +1; b-c edge, c newer (seen from b: -1)
    assert f["edge_newer"][0, 1] == 1.0 and f["edge_newer"][1, 2] == -1.0
    # a→x→c: a→b→c (1); c→x→a: c→d→a (1, through the non-candidate d): net 0
    assert f["two_hop_net"][0, 2] == 0.0
    # a→x→b: none; b→x→a: b→d→a (1): net log1p(0) − log1p(1)
    assert f["two_hop_net"][0, 1] == pytest.approx(-math.log(2))
    assert f["out_deg"][0, 2] == pytest.approx(math.log(3) - math.log(2))
    assert f["in_deg"][2, 0] == pytest.approx(math.log(3) - math.log(2))
    assert not f["ctx_net"].any() and not f["ctx_quality"].any()  # no context given
    q = np.array([0.5, -1.0, 0.0])
    xq = pair_features(["a", "b", "c"], years, index, context=np.full((3, 3), 9.0), quality=q)
    assert xq[0, 1, PAIR_FEATURES.index("ctx_net")] == 3.0  # clipped
    assert xq[0, 1, PAIR_FEATURES.index("ctx_quality")] == 1.5


def test_aggregate_order_by_hand() -> None:
    """Borda of σ(logit), then adjacent swaps: a cycle-free 3-paper case and a tie-break."""
    # logit[i, j] = log-odds that i beats j: b beats everyone, a beats c
    logit = np.array([[0.0, -2.0, 1.0], [2.0, 0.0, 3.0], [-1.0, -3.0, 0.0]])
    years = np.array([2018.0, 2019.0, 2020.0])
    assert aggregate_order(["a", "b", "c"], years, logit) == ["b", "a", "c"]
    # no evidence at all: Borda ties, newer first
    assert aggregate_order(["a", "b"], years[:2], np.zeros((2, 2))) == ["b", "a"]


def test_fit_logistic_satisfies_the_optimality_condition() -> None:
    """At the optimum the gradient mean((σ(xw) − y)·x) + l2·w vanishes; signs follow labels."""
    x = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 1.0], [-2.0, -1.0], [0.5, -1.0], [-0.5, 1.0]])
    y = np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    w = fit_logistic(x, y, l2=0.1)
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    np.testing.assert_allclose(x.T @ (p - y) / len(y) + 0.1 * w, 0.0, atol=1e-5)
    assert w[0] > 0  # first column agrees with the labels in every row
    # stronger regularisation shrinks the weights
    assert np.linalg.norm(fit_logistic(x, y, l2=10.0)) < np.linalg.norm(w)


def test_pairwise_model_params_round_trip_and_validation() -> None:
    m = PairwiseModel(coef=(1.0, 2.0), scale=(2.0, 4.0), features=("dyear", "ctx_net"))
    assert PairwiseModel.from_params(m.to_params()) == m
    w = m.weights
    assert w[PAIR_FEATURES.index("dyear")] == 0.5 and w[PAIR_FEATURES.index("ctx_net")] == 0.5
    assert m.uses_context
    with pytest.raises(InputError, match="unknown pairwise features"):
        PairwiseModel(coef=(1.0,), scale=(1.0,), features=("shoe_size",))
    with pytest.raises(InputError, match="bad pairwise model"):
        PairwiseModel.from_params({"features": ["dyear"]})


def test_score_rpg_hand_computed() -> None:
    q = [rpg.LeaderboardQuery(f"q{i}", "t", "d", "m") for i in range(3)]
    inst = [
        rpg.RPGInstance(q[0], ("a", "b", "c")),
        rpg.RPGInstance(q[1], ("a", "b", "c")),
        rpg.RPGInstance(q[2], ("a", "b", "c", "d")),
    ]
    preds = {"q0": ["x", "a", "b", "c"], "q1": ["b", "a", "c"], "q2": ["b", "a"]}
    s = rpg.score_rpg(inst, preds)
    # q0 exact; q1 one discordant pair of 3: tau = 1/3; q2: a,b found reversed, c,d tied bottom
    # q2 bottom ranks x=[0,1,2,3], y=[1,0,2,2]: C=4 (a-c,a-d,b-c,b-d), D=1, Ty=1 -> 3/sqrt(5*6)
    tau2 = 3 / math.sqrt(30)
    assert s.metrics["BEM"] == pytest.approx(100 / 3)
    assert s.metrics["KTau"] == pytest.approx((1 + 1 / 3 + tau2) / 3)
    assert s.metrics["CIS"] == pytest.approx(200 / 3)
    # CP: q0 3/3, q1 2/3, q2 0/6 -> mean 100 * (1 + 2/3 + 0) / 3
    assert s.metrics["CP"] == pytest.approx(100 * (5 / 3) / 3)
    assert s.metrics["KTau_found"] == pytest.approx((1 + 1 / 3 - 1) / 3)
    assert s.per_instance["q2"]["recall"] == 0.5


def test_baseline_runs_in_all_four_configs(
    corpus_graph: FalkorDBStore, test_split: list[rpg.RPGInstance]
) -> None:
    emb = rpg.HashingEmbedder()
    recall = {}
    for name, cfg in rpg.CONFIGS.items():
        res = run_rpg(corpus_graph, test_split, cfg, make_ranker("pagerank", cfg, embedder=emb))
        m = res.scores.metrics
        assert m["n_leaderboards"] == len(test_split)
        assert all(0.0 <= num(m[k]) <= 100.0 for k in ("BEM", "CIS", "CP"))
        assert -1.0 <= num(m["KTau"]) <= 1.0
        assert set(res.predictions) == {i.query.id for i in test_split}
        recall[name] = m["recall"]
        # the baseline ranks exactly its strict candidates
        some = test_split[0]
        assert sorted(res.predictions[some.query.id]) == rpg.strict_candidates(
            corpus_graph, some.query, cfg
        )
    # tables in the full text name dataset, metric and task: FT recall >= TABS recall
    assert num(recall["cn-ft"]) >= num(recall["cn-tabs"])
    n_weighted = corpus_graph.run(
        "MATCH ()-[r:COMPARES_WITH]->() WHERE r.w_hashing256 IS NOT NULL RETURN count(r) AS n"
    )[0]["n"]
    assert n_weighted > 0


def test_ours_beats_the_baseline_on_the_fixed_seed(
    corpus_graph: FalkorDBStore, test_split: list[rpg.RPGInstance]
) -> None:
    emb = rpg.HashingEmbedder()
    for name, cfg in rpg.CONFIGS.items():
        base = run_rpg(corpus_graph, test_split, cfg, make_ranker("pagerank", cfg, embedder=emb))
        ours = run_rpg(corpus_graph, test_split, cfg, make_ranker("ours", cfg))
        b, o = base.scores.metrics, ours.scores.metrics
        assert num(o["KTau"]) > num(b["KTau"]), name
        assert num(o["BEM"]) > num(b["BEM"]), name


def test_learned_model_is_fit_on_dev_only_and_recorded(
    corpus_graph: FalkorDBStore, instances: list[rpg.RPGInstance], corpus_files: dict[str, Path]
) -> None:
    dev = rpg.select_split(instances, "dev", seed=SEED)
    cfg = rpg.CONFIGS["pcn-tabs"]
    params, trials = tune_pairwise(corpus_graph, dev, cfg, hybrid_k=20, l2_grid=(0.01, 1.0))
    # the training pairs are exactly the GT pairs of dev leaderboards found among candidates
    probe = make_ranker("ours", cfg, params=params)
    assert isinstance(probe, PairwiseRanker) and probe.hybrid_k == 20
    want_pairs = 0
    for inst in dev:
        cands = set(probe.bind(corpus_graph).candidates(inst.query))
        k = sum(p in cands for p in inst.gold)
        want_pairs += k * (k - 1) // 2
    fit = params["fit"]
    assert (fit["split"], fit["n_leaderboards"], fit["n_pairs"], fit["context"]) == (
        "dev", len(dev), want_pairs, False
    )  # fmt: skip
    assert 0.5 < fit["date_pair_accuracy"] <= 1.0 and 0.5 < fit["cv_pair_accuracy"] <= 1.0
    assert [t["l2"] for t in trials] == [0.01, 1.0]
    assert params["l2"] == min(trials, key=lambda t: t["cv_log_loss"])["l2"]
    # no Results in this graph: the context features are not part of the model
    assert params["features"] == [f for f in PAIR_FEATURES if not f.startswith("ctx_")]
    dyear = params["coef"][params["features"].index("dyear")]
    assert dyear > 0  # newer is better on the synthetic leaderboards
    # positive control: the labels come from the dev golds. Reversed golds flip the time sign
    flipped = [rpg.RPGInstance(i.query, tuple(reversed(i.gold))) for i in dev]
    params_rev, _ = tune_pairwise(corpus_graph, flipped, cfg, hybrid_k=20, l2_grid=(0.01,))
    assert params_rev["coef"][params_rev["features"].index("dyear")] < 0
    # the coefficients are recorded in the run's config (the one run path: run_task)
    from scholarkg.benchmark.registry import load_task
    from scholarkg.benchmark.runner import run_task
    from scholarkg.benchmark.task import AnswerSource

    gt = {"config": "pcn-tabs", "ground_truth": corpus_files["leaderboards"], "seed": SEED}
    rec = run_task(
        load_task("legobench-rpg"), corpus_graph, AnswerSource.ranker("ours", **params), gt,
        limit=3,
    ).record  # fmt: skip
    assert rec.config["configuration"]["split"] == "test" and len(rec.per_instance) == 3
    rp = rec.config["answer"]["params"]
    assert rp["coef"] == params["coef"] and rp["features"] == params["features"]
    assert rp["fit"]["split"] == "dev" and rp["context_used"] is False


def test_stored_defaults_cover_every_config_and_were_learned_on_dev() -> None:
    for table, ctx in ((OURS_DEFAULTS, False), (OURS_DEFAULTS_CONTEXT, True)):
        assert set(table) == set(rpg.CONFIGS)
        for p in table.values():
            m = PairwiseModel.from_params(p)
            assert p["fit"]["split"] == "dev" and p["fit"]["context"] is ctx
            assert m.uses_context is ctx


def test_no_leakage_from_the_target_leaderboards_results(
    corpus_graph: FalkorDBStore, test_split: list[rpg.RPGInstance]
) -> None:
    """Writing (then reversing) a target leaderboard's own entries and Result nodes into the
    graph changes none of its rankings, not even the ranker that reads leaderboard context;
    the same results filed under a *sibling* leaderboard do change it (positive control).
    One target at a time: another target's results are legitimate context for this one."""
    cfg = rpg.CONFIGS["pcn-tabs"]
    emb = rpg.HashingEmbedder()

    def rankings(inst: rpg.RPGInstance) -> dict[str, list[str]]:
        out = {}
        for name in ("ours", "pagerank", "date", "indegree", "context"):
            if name == "context":  # the context-trained model with a heavy context weight
                p = dict(OURS_DEFAULTS_CONTEXT[cfg.name])
                coef = list(p["coef"])
                coef[p["features"].index("ctx_net")] = 3.0
                ranker = make_ranker("ours", cfg, params={**p, "coef": coef})
            elif name == "ours":  # pinned: the plain model, whether or not Results exist
                ranker = make_ranker("ours", cfg, params=OURS_DEFAULTS[cfg.name])
            else:
                ranker = make_ranker(name, cfg, embedder=emb)
            out[name] = run_rpg(corpus_graph, [inst], cfg, ranker).predictions[inst.query.id]
        return out

    def write_results(inst: rpg.RPGInstance, reverse: bool, metric_suffix: str = "") -> None:
        corpus_graph.merge_nodes(
            "Metric", [{"id": "leak-metric", "name": "m", "direction": "higher"}]
        )
        lb = "leak-lb"
        key = {**_key(inst.query), "metric": inst.query.metric + metric_suffix}
        corpus_graph.merge_nodes("Leaderboard", [{"id": lb, **key}])
        corpus_graph.merge_relationships(
            "USING_METRIC", "Leaderboard", "Metric", [{"start": lb, "end": "leak-metric"}]
        )
        gold = list(reversed(inst.gold)) if reverse else list(inst.gold)
        corpus_graph.merge_relationships(
            "HAS_ENTRY", "Leaderboard", "Paper",
            [{"start": lb, "end": p, "gt_rank": r} for r, p in enumerate(gold)],
        )  # fmt: skip
        results = [
            {"id": f"{lb}/{p}", "metric": key["metric"], "score": 100.0 - r}
            for r, p in enumerate(gold)
        ]
        corpus_graph.merge_nodes("Result", results)
        corpus_graph.merge_relationships(
            "HAS_RESULT", "Paper", "Result", [{"start": p, "end": f"{lb}/{p}"} for p in gold]
        )
        corpus_graph.merge_relationships(
            "IN_LEADERBOARD", "Result", "Leaderboard",
            [{"start": f"{lb}/{p}", "end": lb} for p in gold],
        )  # fmt: skip

    def cleanup() -> None:
        corpus_graph.run("MATCH (r:Result) WHERE r.id STARTS WITH 'leak-lb' DETACH DELETE r")
        corpus_graph.run("MATCH (l:Leaderboard) WHERE l.id STARTS WITH 'leak-lb' DETACH DELETE l")
        corpus_graph.run("MATCH (m:Metric {id: 'leak-metric'}) DETACH DELETE m")

    def default_ours(inst: rpg.RPGInstance) -> tuple[list[str], bool]:
        """Stored defaults: the context-trained set is chosen once the graph holds Results."""
        res = run_rpg(corpus_graph, [inst], cfg, make_ranker("ours", cfg))
        return res.predictions[inst.query.id], res.ranker_params["context_used"]

    changed_by_sibling = 0
    for inst in test_split[:4]:
        before = rankings(inst)
        assert default_ours(inst)[1] is False  # no Results yet: the plain set
        try:
            write_results(inst, reverse=False)
            assert rankings(inst) == before
            forward, used = default_ours(inst)
            assert used is True
            cleanup()
            write_results(inst, reverse=True)  # perturb: every value and gt_rank reversed
            assert rankings(inst) == before
            assert default_ours(inst) == (forward, True)  # the values never reach it
            cleanup()
            write_results(inst, reverse=True, metric_suffix=" (other metric)")
            sibling = rankings(inst)
        finally:
            cleanup()
        assert sibling["ours"] == before["ours"]  # no context features: context never read
        changed_by_sibling += sibling["context"] != before["context"]
    assert changed_by_sibling >= 1


def test_context_matrix_by_hand(store: FalkorDBStore) -> None:
    _tiny(store, [{"id": x, "title": x} for x in "abc"])
    store.merge_nodes("Metric", [
        {"id": "hi", "name": "acc", "direction": "higher"},
        {"id": "lo", "name": "err", "direction": "lower"},
        {"id": "un", "name": "odd"},
    ])  # fmt: skip
    boards = {  # board: (key, metric node, {paper: score})
        "target": (("T", "D", "M"), "hi", {"a": 1.0, "b": 2.0, "c": 3.0}),
        "acc": (("T", "D", "acc"), "hi", {"a": 3.0, "b": 2.0, "c": 1.0}),
        "err": (("T", "D2", "err"), "lo", {"a": 0.5, "b": 0.9}),
        "odd": (("T", "D3", "odd"), "un", {"c": 9.0, "a": 0.0}),
    }
    for board, ((t, d, m), metric, scores) in boards.items():
        store.merge_nodes("Leaderboard", [{"id": board, "task": t, "dataset": d, "metric": m}])
        store.merge_relationships(
            "USING_METRIC", "Leaderboard", "Metric", [{"start": board, "end": metric}]
        )
        store.merge_nodes("Result", [{"id": f"{board}/{p}", "score": v} for p, v in scores.items()])
        store.merge_relationships(
            "HAS_RESULT", "Paper", "Result", [{"start": p, "end": f"{board}/{p}"} for p in scores]
        )
        store.merge_relationships(
            "IN_LEADERBOARD", "Result", "Leaderboard",
            [{"start": f"{board}/{p}", "end": board} for p in scores],
        )  # fmt: skip
    from scholarkg.benchmark.tasks.legobench.rpg.features import context_matrix

    q = rpg.LeaderboardQuery(rpg.leaderboard_key("t", "d", "m"), "t", "d", "m")
    got = context_matrix(store, q, ["a", "b", "c"])
    # 'acc': a>b>c; 'err' (lower is better): a beats b; 'odd': direction unknown; target: dropped
    want = np.array([[0, 2, 1], [-2, 0, 1], [-1, -1, 0]], dtype=float)
    np.testing.assert_array_equal(got, want)


def test_context_quality_by_hand(store: FalkorDBStore) -> None:
    """Per other board: signed score regressed on year; the residual z-score is the quality."""
    years = {"a": "2018-01-01", "b": "2019-01-01", "c": "2020-01-01", "x": "2020-01-01"}
    _tiny(store, [{"id": p, "title": p, "date": d} for p, d in years.items()])
    store.merge_nodes("Metric", [{"id": "hi", "name": "acc", "direction": "higher"}])
    boards = {  # the target's scores would reverse the answer if they leaked
        "target": (("T", "D", "M"), {"a": 9.0, "b": 0.0, "c": 0.0}),
        "acc": (("T", "D", "acc"), {"a": 1.0, "b": 4.0, "c": 3.0}),
        "small": (("T", "D2", "acc"), {"a": 5.0, "x": 0.0}),  # < 3 entries: no evidence
    }
    for board, ((t, d, m), scores) in boards.items():
        store.merge_nodes("Leaderboard", [{"id": board, "task": t, "dataset": d, "metric": m}])
        store.merge_relationships(
            "USING_METRIC", "Leaderboard", "Metric", [{"start": board, "end": "hi"}]
        )
        store.merge_nodes("Result", [{"id": f"{board}/{p}", "score": v} for p, v in scores.items()])
        store.merge_relationships(
            "HAS_RESULT", "Paper", "Result", [{"start": p, "end": f"{board}/{p}"} for p in scores]
        )
        store.merge_relationships(
            "IN_LEADERBOARD", "Result", "Leaderboard",
            [{"start": f"{board}/{p}", "end": board} for p in scores],
        )  # fmt: skip
    q = rpg.LeaderboardQuery(rpg.leaderboard_key("t", "d", "m"), "t", "d", "m")
    # 'acc': t = −1, 0, 1 (centred), s = 1, 4, 3: slope 1, fit 5/3, 8/3, 11/3,
    # residuals −2/3, 4/3, −2/3, sd sqrt(8/9): z = −1/√2, √2, −1/√2
    quality, count = context_quality(store, q, ["a", "b", "c"])
    np.testing.assert_allclose(quality, [-(0.5**0.5), 2**0.5, -(0.5**0.5)], atol=1e-9)
    np.testing.assert_array_equal(count, [1, 1, 1])


def _key(q: rpg.LeaderboardQuery) -> dict[str, str]:
    return {"task": q.task, "dataset": q.dataset, "metric": q.metric}


def test_ranker_and_config_names_are_validated() -> None:
    with pytest.raises(InputError, match="unknown RPG ranker"):
        make_ranker("oracle", rpg.CONFIGS["cn-tabs"])
    with pytest.raises(InputError, match="unknown RPG configuration"):
        rpg.get_config("cn-abstracts")
    with pytest.raises(InputError):
        PairwiseRanker(rpg.CONFIGS["cn-tabs"], None, retrieval="everything")


# --------------------------------------------------------------------------- CLI


def test_registry_lists_what_the_rpg_code_accepts() -> None:
    """The registry is plain data (``bench list`` stays instant): it must track the code."""
    from scholarkg.benchmark.metrics.ranking import PROTOCOLS
    from scholarkg.benchmark.registry import get_task
    from scholarkg.benchmark.tasks.legobench.rpg.rankers import RANKER_NAMES

    info = get_task("legobench-rpg", mode="run")
    assert info.configs == tuple(rpg.CONFIGS)
    assert info.rankers == RANKER_NAMES
    assert get_task("legobench-rplm").configs == PROTOCOLS


def test_cli_bench_list_and_run(
    corpus_graph: FalkorDBStore,
    corpus_files: dict[str, Path],
    settings: Settings,
    scholarkg_home: Path,
) -> None:
    from scholarkg.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["bench", "list", "-f", "json"])
    assert res.exit_code == 0, res.output
    names = [t["task"] for t in json.loads(res.stdout)]
    assert "legobench-rpg" in names and "legobench-rplm" in names

    common = ["--graph", corpus_graph.graph, "bench", "run", "legobench-rpg"]
    gt = ["--ground-truth", str(corpus_files["leaderboards"])]
    res = runner.invoke(
        app, [*common, "--config", "pcn-tabs", "--ranker", "pagerank", "--encoder", "hashing",
              *gt, "-f", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    base = json.loads(res.stdout)
    res = runner.invoke(
        app, [*common, "--config", "pcn-tabs", "--ranker", "pagerank", "--encoder", "hashing",
              *gt, "--no-record"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "LEGOBench RPG" in res.stdout and "config=pcn-tabs, split=test" in res.stdout
    assert "answered by: pagerank (paper's baseline)" in res.stdout
    assert "run recorded" not in res.stdout
    assert f"{base['metrics']['KTau']:.3f}" in res.stdout
    res = runner.invoke(
        app, [*common, "--config", "pcn-tabs", "--ranker", "ours", *gt, "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    ours = json.loads(res.stdout)
    assert ours["metrics"]["KTau"] > base["metrics"]["KTau"]
    assert ours["configuration"]["split"] == "test"
    assert ours["units"]["BEM"] == "percent" and ours["units"]["KTau"] == "score"
    assert base["answer"]["baseline"] is True and ours["answer"]["baseline"] is False
    # both runs recorded: JSON files + :Run nodes, comparable with `runs compare`
    run_files = {p.stem for p in (scholarkg_home / "runs").glob("*.json")}
    assert {base["run_id"], ours["run_id"]} <= run_files
    n_runs = corpus_graph.run("MATCH (r:Run) WHERE r.id IN $ids RETURN count(r) AS n",
                       {"ids": [base["run_id"], ours["run_id"]]})[0]["n"]  # fmt: skip
    assert n_runs == 2
    res = runner.invoke(app, ["runs", "compare", base["run_id"], ours["run_id"], "-f", "json"])
    assert res.exit_code == 0, res.output

    # --tune refits the model on the graph's dev split; the run records its coefficients
    res = runner.invoke(
        app, [*common, "--config", "pcn-tabs", "--ranker", "ours", "--tune", *gt, "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    tuned = json.loads(
        (scholarkg_home / "runs" / f"{json.loads(res.stdout)['run_id']}.json").read_text()
    )
    rp = tuned["config"]["answer"]["params"]
    assert rp["fit"]["split"] == "dev" and len(rp["coef"]) == len(rp["features"])
    assert rp["coef"] != OURS_DEFAULTS["pcn-tabs"]["coef"]  # fitted here, not the stored set

    res = runner.invoke(app, [*common, "--config", "cn-tabs", "--ranker", "ours"])
    # no Leaderboard nodes in this graph and no --ground-truth
    assert isinstance(res.exception, InputError)
    assert "--ground-truth" in str(res.exception)
    res = runner.invoke(app, ["--graph", corpus_graph.graph, "bench", "run", "nope"])
    assert isinstance(res.exception, TaskNotFound)
    assert "legobench-rpg" in str(res.exception)


def test_ground_truth_loaded_by_the_graph_loader_matches_the_jsonl(
    store: FalkorDBStore, corpus_files: dict[str, Path]
) -> None:
    """``loaders/legobench_graph.read_ground_truth`` writes HAS_ENTRY edges we read back."""
    from scholarkg.loaders.legobench_graph import read_ground_truth as read_gt_groups

    _load(store, corpus_files)
    write_records(store, (rec for _, group in read_gt_groups(corpus_files["leaderboards"])
                          for rec in group))  # fmt: skip
    from_graph = {i.query.id: i.gold for i in rpg.load_instances(store)}
    from_file = {i.query.id: i.gold for i in rpg.read_ground_truth(corpus_files["leaderboards"])}
    assert from_graph == from_file


def test_hashing_embedder_is_deterministic_unit_length_and_lexical() -> None:
    emb = rpg.HashingEmbedder(dim=64)
    v = emb.encode(["sparse attention for speech", "speech with sparse attention", "", "graphs"])
    assert v.shape == (4, 64) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v[[0, 1, 3]], axis=1), 1.0, rtol=1e-6)
    assert not v[2].any()  # no words: zero vector, cosine 0 with everything
    assert float(v[0] @ v[1]) > float(v[0] @ v[3])
    np.testing.assert_array_equal(v, rpg.HashingEmbedder(dim=64).encode(
        ["sparse attention for speech", "speech with sparse attention", "", "graphs"]))  # fmt: skip
