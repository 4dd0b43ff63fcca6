"""Fusion: hand-computed RRF/CombSUM/CombMNZ and agreement with ranx on toy cases."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from _fakes import TableEmbedder, synthetic_corpus

from scholarkg.benchmark.rankers import Ranker, Ranking, RunQuery
from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.benchmark.rankers.fusion import (
    FusionRanker,
    RunFusion,
    comb_mnz,
    comb_sum,
    fuse,
    min_max,
    rrf,
)
from scholarkg.errors import InputError

A = Ranking(ids=["a", "b", "c"], scores=[3.0, 2.0, 1.0], ranker="x", query_id="q1")
B = Ranking(ids=["c", "a", "d"], scores=[0.9, 0.5, 0.1], ranker="y", query_id="q1")


def test_rrf_by_hand() -> None:
    fused = rrf([A, B])
    expected = {
        "a": 1 / 61 + 1 / 62,
        "c": 1 / 63 + 1 / 61,
        "b": 1 / 62,
        "d": 1 / 63,
    }
    assert fused.ids == ["a", "c", "b", "d"]
    assert fused.scores == pytest.approx([expected[i] for i in fused.ids], abs=1e-12)
    assert fused.ranker == "rrf"
    assert fused.params == {"k": 60, "inputs": ["x", "y"]}
    assert fused.query_id == "q1"
    assert rrf([A, B], k=0, depth=1).as_dict() == {"a": pytest.approx(1 / 1 + 1 / 2)}


def test_comb_sum_and_mnz_by_hand() -> None:
    # min-max: A -> a 1, b .5, c 0; B -> c 1, a .5, d 0
    s = comb_sum([A, B])
    assert s.ids == ["a", "c", "b", "d"]
    assert s.scores == pytest.approx([1.5, 1.0, 0.5, 0.0])
    m = comb_mnz([A, B])
    assert m.ids == ["a", "c", "b", "d"]
    assert m.scores == pytest.approx([3.0, 2.0, 0.5, 0.0])


def test_min_max_constant_scores_are_zero() -> None:
    assert min_max([2.0, 2.0]) == [0.0, 0.0]
    assert min_max([]) == []
    assert min_max([1.0, 3.0, 2.0]) == [0.0, 1.0, 0.5]


def _random_rankings(seed: int) -> list[Ranking]:
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(25)]
    out = []
    for r in range(3):
        chosen = rng.sample(docs, rng.randint(5, 20))
        scores = sorted((rng.uniform(-2, 5) for _ in chosen), reverse=True)
        out.append(Ranking(ids=chosen, scores=scores, ranker=f"r{r}", query_id="q"))
    return out


# slow: ranx JIT-compiles its fusion with numba on first use (20 s here, most of the module);
# the formulas are checked by hand above in the default suite. ranx is imported here, not at
# the top: importing it (numba, matplotlib, seaborn: ~5 s) cost every pytest-xdist worker that
# much at collection, for a test the default suite leaves out
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agrees_with_ranx(seed: int) -> None:
    from ranx import Run
    from ranx.fusion import comb_mnz as ranx_comb_mnz
    from ranx.fusion import comb_sum as ranx_comb_sum
    from ranx.fusion import rrf as ranx_rrf
    from ranx.normalization import min_max_norm

    rankings = _random_rankings(seed)
    runs = [Run({"q": r.as_dict()}) for r in rankings]
    expected_rrf = ranx_rrf(runs, k=60).to_dict()["q"]
    got = rrf(rankings).as_dict()
    assert got.keys() == expected_rrf.keys()
    for doc_id, score in got.items():
        assert score == pytest.approx(expected_rrf[doc_id], abs=1e-9)
    normed = [min_max_norm(run) for run in runs]
    for ours, theirs in ((comb_sum, ranx_comb_sum), (comb_mnz, ranx_comb_mnz)):
        expected = theirs(normed).to_dict()["q"]
        got = ours(rankings).as_dict()
        assert got.keys() == expected.keys()
        for doc_id, score in got.items():
            assert score == pytest.approx(expected[doc_id], abs=1e-9)


def test_fuse_dispatch_and_errors() -> None:
    assert fuse([A, B], "combmnz").scores == comb_mnz([A, B]).scores
    with pytest.raises(InputError, match="unknown fusion method"):
        fuse([A, B], "borda")
    with pytest.raises(InputError, match="at least one ranking"):
        rrf([])
    other = Ranking(ids=["a"], scores=[1.0], ranker="z", query_id="q2")
    with pytest.raises(InputError, match="different queries"):
        rrf([A, other])


def test_fusion_ranker_combines_bm25_and_dense() -> None:
    ids = ["p1", "p2", "p3"]
    texts = ["graph ranking", "neural model", "citation network"]
    bm25 = BM25Ranker(ids, texts)
    table: dict[str, list[float]] = {
        "graph ranking": [1, 0, 0],
        "neural model": [0, 1, 0],
        "citation network": [0.8, 0, 0.6],
        "graph query": [0.6, 0, 0.8],
    }
    dense = DenseRanker.from_texts(TableEmbedder(table), ids, texts)
    fused = FusionRanker([bm25, dense], method="rrf", depth=3).rank("graph query", 2)
    # bm25: p1 only (p2, p3 score 0 -> corpus order) = [p1, p2, p3]
    # dense cosines: p1 .6, p2 0, p3 .6*.8+.8*.6 = .96 -> [p3, p1, p2]
    expected = {"p1": 1 / 61 + 1 / 62, "p3": 1 / 63 + 1 / 61, "p2": 1 / 62 + 1 / 63}
    assert fused.ids == ["p1", "p3"]
    assert fused.scores == pytest.approx([expected["p1"], expected["p3"]])
    assert fused.ranker == "rrf"
    assert [i["ranker"] for i in fused.params["inputs"]] == ["bm25", "dense"]


def test_fusion_ranker_passes_candidates() -> None:
    ids, texts = synthetic_corpus(n_docs=20)
    bm25 = BM25Ranker(ids, texts)
    fused = FusionRanker([bm25, bm25], method="combsum").rank(texts[0], 5, candidates=ids[5:10])
    assert set(fused.ids) <= set(ids[5:10])
    assert fused.ids == bm25.rank(texts[0], 5, candidates=ids[5:10]).ids
    assert np.all(np.diff(fused.scores) <= 0)


def test_weighted_comb_sum_by_hand() -> None:
    # min-max: A -> a 1, b .5, c 0; B -> c 1, a .5, d 0; weights 2, 0.5
    s = comb_sum([A, B], weights=[2.0, 0.5])
    assert s.ids == ["a", "b", "c", "d"]
    assert s.scores == pytest.approx([2.25, 1.0, 0.5, 0.0])
    assert s.params["weights"] == [2.0, 0.5]
    assert comb_sum([A, B], weights=[1.0, 1.0]).scores == comb_sum([A, B]).scores
    with pytest.raises(InputError, match="1 weight"):
        comb_sum([A, B], weights=[1.0])


class _Fixed(Ranker[str]):
    """Scores by hand per query text; records which queries it was asked."""

    name = "fixed"

    def __init__(self, scores: dict[str, dict[str, float]]) -> None:
        self.scores = scores
        self.asked: list[str] = []
        super().__init__({"table": "by hand"})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[Sequence[str], Sequence[float]]:
        self.asked.append(query)
        table = self.scores[query]
        ids = sorted(candidates or table, key=lambda d: -table[d])[:k]
        return ids, [table[d] for d in ids]


class _TopOnly(RunFusion):
    """A run-level fusion: keeps, per query, the input that scores best on the whole run."""

    def _fuse(
        self, queries: Sequence[RunQuery], parts: Sequence[Mapping[str, Ranking]]
    ) -> dict[str, Ranking]:
        best = max(range(len(parts)), key=lambda n: sum(p.scores[0] for p in parts[n].values()))
        return {q.id: parts[best][q.id] for q in queries}


def test_rankers_rank_whole_runs_one_query_at_a_time() -> None:
    r = _Fixed({"x": {"a": 1.0, "b": 2.0, "c": 0.0}, "y": {"a": 3.0, "b": 1.0, "c": 2.0}})
    queries = [RunQuery("q1", "x", 2), RunQuery("q2", "y", 3, candidates=["b", "c"])]
    seen: list[tuple[int, int]] = []
    run = r.rank_all(queries, progress=lambda n, t: seen.append((n, t)))
    assert {q: x.ids for q, x in run.items()} == {"q1": ["b", "a"], "q2": ["c", "b"]}
    assert run["q2"].query_id == "q2" and run["q2"].params == {"table": "by hand"}
    assert seen == [(1, 2), (2, 2)] and r.asked == ["x", "y"]


def test_run_fusion_fuses_whole_runs_and_nests() -> None:
    one = _Fixed({"x": {"a": 3.0, "b": 2.0, "c": 1.0}})
    two = _Fixed({"x": {"c": 0.9, "a": 0.5, "d": 0.1}})
    queries = [RunQuery("q1", "x", 3)]
    fused = RunFusion([one, two], method="rrf").rank_all(queries)["q1"]
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63; depth = the query's k = 3
    assert fused.ids == ["a", "c", "b"]
    assert fused.scores == pytest.approx([1 / 61 + 1 / 62, 1 / 63 + 1 / 61, 1 / 62])
    fusion = RunFusion([one, two], method="combsum", name="mine", params={"how": "by hand"})
    assert (fusion.name, fusion.params) == ("mine", {"how": "by hand"})
    # default name and params are derived from the method and the inputs
    default = RunFusion([one, two])
    assert (default.name, default.params) == (
        "rrf",
        {"method": "rrf", "inputs": ["fixed"] * 2, "k": 60},
    )
    assert RunFusion([one], method="combmnz").params == {"method": "combmnz", "inputs": ["fixed"]}
    # a run-level fusion is an input like any other
    nested = _TopOnly([RunFusion([one, two]), two], name="top")
    assert nested.rank_all(queries)["q1"].ids == two.rank_all(queries)["q1"].ids
    with pytest.raises(InputError, match="at least one ranker"):
        RunFusion([])
    with pytest.raises(InputError, match="unknown fusion method"):
        RunFusion([one], method="borda")
    # the per-query FusionRanker refuses the same set-ups, naming itself
    with pytest.raises(InputError, match="FusionRanker needs at least one ranker"):
        FusionRanker([])
    with pytest.raises(InputError, match="unknown fusion method 'borda'"):
        FusionRanker([one], method="borda")


def test_run_fusion_reports_progress_over_its_inputs_and_refuses_duplicate_ids() -> None:
    one = _Fixed({"x": {"a": 1.0}, "y": {"a": 2.0}})
    two = _Fixed({"x": {"b": 1.0}, "y": {"b": 2.0}})
    queries = [RunQuery("q1", "x", 2), RunQuery("q2", "y", 2)]
    seen: list[tuple[int, int]] = []
    RunFusion([one, two]).rank_all(queries, progress=lambda n, t: seen.append((n, t)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]  # both inputs' queries, in order
    with pytest.raises(InputError, match="'q1' appears twice"):
        RunFusion([one, two]).rank_all([queries[0], queries[0]])
    assert one.rank_many({"q1": "x", "q2": "y"}, 1)["q2"].ids == ["a"]


def _pair(qid: str, a: dict[str, float], b: dict[str, float]) -> tuple[Ranking, Ranking]:
    def r(name: str, d: dict[str, float]) -> Ranking:
        return Ranking(ids=list(d), scores=list(d.values()), ranker=name, query_id=qid)

    return r("bm25", a), r("dense", b)


def test_fit_combsum_weight_by_hand() -> None:
    from scholarkg.benchmark.rankers.fusion import WEIGHT_GRID, fit_combsum_weight

    # q1: fused g1 = 1 - w, x = 0.9 + 0.1 w -> g1 first only for w < 1/11, i.e. w = 0
    q1 = _pair("q1", {"g1": 1.0, "x": 0.9, "y": 0.0}, {"x": 1.0, "y": 0.5, "g1": 0.0})
    # q2: g2 = w, x = 1 - w -> g2 first for w > 0.5 (at 0.5 the tie goes to x, seen first)
    q2 = _pair("q2", {"x": 1.0, "g2": 0.0}, {"g2": 1.0, "x": 0.0})
    qrels = {"q1": {"g1": 1.0}, "q2": {"g2": 1.0}}
    only_q1 = fit_combsum_weight({"q1": q1}, qrels)
    assert (only_q1.weight, only_q1.score, only_q1.n_queries) == (0.0, 1.0, 1)
    only_q2 = fit_combsum_weight({"q2": q2}, qrels)
    # 0.6 .. 1.0 all put g2 first: the tie goes to the weight nearest 0.5
    assert only_q2.weight == 0.6 and only_q2.score == 1.0
    assert only_q2.grid[0.5] == pytest.approx(1 / np.log2(3))  # g2 second
    assert set(only_q2.grid) == set(WEIGHT_GRID)
    # dropping a document (BEIR's ignore_identical_ids) lifts the gold to rank 1
    dropped = fit_combsum_weight({"q2": q2}, qrels, grid=[0.5], drop={"q2": "x"})
    assert dropped.score == 1.0
    assert fit_combsum_weight({"q2": q2}, qrels).as_dict()["grid"]["0.6"] == 1.0
    with pytest.raises(InputError, match="no judged queries"):
        fit_combsum_weight({"q3": q2}, qrels)
    with pytest.raises(InputError, match=r"weights must lie in \[0, 1\]"):
        fit_combsum_weight({"q2": q2}, qrels, grid=[1.5])


def test_fusion_ranker_weights_need_combsum() -> None:
    ids, texts = ["d1", "d2"], ["graph neural networks", "speech audio"]
    bm25 = BM25Ranker(ids, texts)
    with pytest.raises(InputError, match="apply to combsum"):
        FusionRanker([bm25, bm25], method="rrf", weights=[0.5, 0.5])
    with pytest.raises(InputError, match="1 weight"):
        FusionRanker([bm25, bm25], method="combsum", weights=[1.0])
    fused = FusionRanker([bm25, bm25], method="combsum", weights=[0.3, 0.7], name="w")
    r = fused.rank("graph networks", 2)
    assert r.ranker == "w" and r.params["weights"] == [0.3, 0.7]
    assert r.ids[0] == "d1" and r.scores[0] == pytest.approx(1.0)


def test_fit_fusion_picks_the_best_of_rrf_and_combsum_by_hand() -> None:
    """Two queries whose best fusions differ: every candidate's dev score is recomputed by
    hand with the fusion functions, and ties go to RRF at the default k."""
    from scholarkg.benchmark.metrics.ir import evaluate
    from scholarkg.benchmark.rankers.fusion import (
        RRF_K,
        RRF_K_GRID,
        WEIGHT_GRID,
        comb_sum,
        fit_fusion,
        rrf,
    )

    a = Ranking(ids=["x", "y", "z"], scores=[3.0, 2.9, 0.1], ranker="a", query_id="q1")
    b = Ranking(ids=["y", "z", "x"], scores=[0.9, 0.2, 0.1], ranker="b", query_id="q1")
    parts = {"q1": (a, b)}
    qrels = {"q1": {"y": 1.0}}
    fit = fit_fusion(parts, qrels, depth=3)
    for k in RRF_K_GRID:
        run = {"q1": rrf([a, b], k=k, depth=3).as_dict()}
        want = evaluate(qrels, run, ["nDCG@10"]).aggregate["nDCG@10"]
        assert fit.grid[f"rrf k={k}"] == pytest.approx(want)
    for w in WEIGHT_GRID:
        run = {"q1": comb_sum([a, b], depth=3, weights=(1 - w, w)).as_dict()}
        want = evaluate(qrels, run, ["nDCG@10"]).aggregate["nDCG@10"]
        assert fit.grid[f"combsum w={w}"] == pytest.approx(want)
    assert fit.score == max(fit.grid.values())
    # y is 2nd and 1st: every RRF and every CombSUM but w = 0 put it first; the tie goes to
    # RRF at the default k
    assert (fit.method, fit.k, fit.score) == ("rrf", RRF_K, 1.0)
    assert fit.grid["combsum w=0.0"] < 1.0
    assert fit.as_dict()["chosen"] == f"rrf k={RRF_K}"
    # a query only CombSUM with most weight on b answers
    # (RRF ties the two documents, and trec_eval's order puts "b" first on a tie)
    c = Ranking(ids=["b", "a"], scores=[1.0, 0.0], ranker="a", query_id="q2")
    d = Ranking(ids=["a", "b"], scores=[1.0, 0.99], ranker="b", query_id="q2")
    only_b = fit_fusion({"q2": (c, d)}, {"q2": {"a": 1.0}}, rrf_ks=[60], depth=2)
    assert only_b.method == "combsum" and only_b.weight is not None and only_b.weight > 0.5
    with pytest.raises(InputError):
        fit_fusion({"q3": (c, d)}, {"q2": {"a": 1.0}})


def test_simplex_grid() -> None:
    from scholarkg.benchmark.rankers.fusion import simplex_grid

    grid = simplex_grid(4)
    assert len(grid) == 286  # C(13, 3)
    assert len(set(grid)) == 286
    assert all(abs(sum(w) - 1.0) < 1e-9 and min(w) >= 0 for w in grid)
    assert simplex_grid(2, 2) == [(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)]
    with pytest.raises(InputError):
        simplex_grid(0)


def _rrf_of(rankings: Sequence[Ranking], *, k: int, inputs: tuple[int, ...] | None) -> Ranking:
    """RRF of all ``rankings`` or of those at ``inputs``, as ``fit_fusion`` tries them."""
    chosen = rankings if inputs is None else [rankings[i] for i in inputs]
    return rrf(chosen, k=k, depth=7)


def test_fit_fusion_of_three_inputs_matches_the_fusion_functions() -> None:
    """Every candidate of a three-input fit (RRF on all inputs, RRF on a pair, CombSUM on
    the simplex) scores what the fusion functions' own lists score, ties included: the
    rankings are built with many exact RRF and min-max ties, over random queries."""
    from scholarkg.benchmark.metrics.ir import evaluate
    from scholarkg.benchmark.rankers.fusion import comb_sum, fit_fusion, simplex_grid

    rng = random.Random(3)
    docs = [f"d{i}" for i in range(12)]
    parts, qrels = {}, {}
    for n in range(6):
        q = f"q{n}"
        rankings = []
        for name in ("bm25", "bm25-ref-window", "dense"):
            ids = rng.sample(docs, 6)
            scores = sorted((float(rng.choice([1, 2, 2, 3])) for _ in ids), reverse=True)
            rankings.append(Ranking(ids=ids, scores=scores, ranker=name, query_id=q))
        parts[q] = tuple(rankings)
        qrels[q] = {d: float(rng.choice([0, 1, 2])) for d in rng.sample(docs, 4)}
    drop = {"q0": parts["q0"][0].ids[0]}
    fit = fit_fusion(
        parts, qrels, depth=7, drop=drop, rrf_ks=[5, 60], rrf_inputs=[[0, 2], [0, 1, 2]]
    )

    def score(fuse_one: Callable[[Any], Any]) -> float | None:
        run = {}
        for q, rankings in parts.items():
            fused = fuse_one(rankings).as_dict()
            if q in drop:
                fused.pop(drop[q], None)
            run[q] = fused
        return evaluate(qrels, run, ["nDCG@10"]).aggregate["nDCG@10"]

    for k in (5, 60):
        whole = score(functools.partial(_rrf_of, k=k, inputs=None))
        assert fit.grid[f"rrf k={k}"] == pytest.approx(whole)
        pair = score(functools.partial(_rrf_of, k=k, inputs=(0, 2)))
        assert fit.grid[f"rrf k={k} of (0, 2)"] == pytest.approx(pair)
    for w in simplex_grid(3):
        label = "combsum w=(" + ", ".join(f"{x:g}" for x in w) + ")"
        want = score(functools.partial(comb_sum, depth=7, weights=w))
        assert fit.grid[label] == pytest.approx(want), label
    assert len(fit.grid) == 4 + 66
    assert fit.score == pytest.approx(max(fit.grid.values()))
    assert fit.grid[fit.label] == fit.score
    if fit.method == "rrf":
        assert fit.inputs in ([0, 2], [0, 1, 2]) and fit.weights is None
    else:
        assert fit.weights is not None and sum(fit.weights) == pytest.approx(1.0)
        assert fit.weight is None  # three inputs: no single "second weight"
    assert fit.as_dict()["chosen"] == fit.label


def test_fit_fusion_prefers_the_first_rrf_inputs_on_ties() -> None:
    """A flat dev set (one query every candidate answers perfectly) yields RRF at the
    default k on the first input set, i.e. the unfitted hybrid."""
    from scholarkg.benchmark.rankers.fusion import RRF_K, fit_fusion

    a = Ranking(ids=["y", "x"], scores=[2.0, 1.0], ranker="a", query_id="q")
    parts = {"q": (a, a, a)}
    fit = fit_fusion(parts, {"q": {"y": 1.0}}, rrf_inputs=[[0, 2], [0, 1, 2]])
    assert (fit.method, fit.k, fit.inputs, fit.label) == (
        "rrf",
        RRF_K,
        [0, 2],
        "rrf k=60 of (0, 2)",
    )
    assert fit.score == 1.0
    with pytest.raises(InputError, match="rrf_inputs"):
        fit_fusion(parts, {"q": {"y": 1.0}}, rrf_inputs=[[0, 3]])
    with pytest.raises(InputError, match="different numbers of inputs"):
        fit_fusion({"q": (a, a), "r": (a, a, a)}, {"q": {"y": 1.0}, "r": {"y": 1.0}})
    with pytest.raises(InputError, match="at least two inputs"):
        fit_fusion({"q": (a,)}, {"q": {"y": 1.0}})
