"""The ``fastrp`` citation recommender: embeddings without the held-out citations, cosine to the
other references, and its RRF hybrid — on a projection built from arrays and on the synthetic
world through ``build_recommender``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from _cli import cli_ok

from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.tasks.citerec.build import build_recommender
from scholarkg.benchmark.tasks.citerec.fastrp_ranker import FastRPRanker, held_out_edges
from scholarkg.benchmark.tasks.citerec.recommenders import ContextQuery
from scholarkg.benchmark.tasks.citerec.task import context_queries
from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp, node_keys
from scholarkg.graphalgo.projection import Projection, ProjectionKey
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.citation_world import generate
from scholarkg.synthetic.citerec_corpus import write_world

KEY = ProjectionKey("embedded", "t", "Paper", ("CITES",))


def _projection(ids: list[str], edges: list[tuple[str, str]]) -> Projection:
    pos = {p: i for i, p in enumerate(ids)}
    src = np.array([pos[a] for a, _ in edges], np.int64)
    dst = np.array([pos[b] for _, b in edges], np.int64)
    return Projection(key=KEY, ids=ids, src=src, dst=dst)


def _two_communities() -> tuple[Projection, dict[str, int]]:
    rng = np.random.default_rng(2)
    ids = [f"a{i:02d}" for i in range(40)] + [f"b{i:02d}" for i in range(40)]
    edges = []
    for x in ids:
        for y in ids:
            same = x[0] == y[0]
            if x != y and rng.random() < (0.2 if same else 0.004):
                edges.append((x, y))
    return _projection(ids, edges), {p: int(p[0] == "b") for p in ids}


def test_held_out_edges_are_the_citing_papers_other_references() -> None:
    proj = _projection(["p", "g", "s", "t"], [("p", "g"), ("p", "s"), ("t", "g"), ("p", "g")])
    q = ContextQuery(id="c1", text="", citing="p", known_refs=("s",))
    mask = held_out_edges(proj, [q])
    assert mask.tolist() == [True, False, False, True]  # both parallel p -> g edges
    assert not held_out_edges(proj, [ContextQuery("c2", "", "x", ())]).any()


def test_embeddings_leave_out_the_held_out_citation() -> None:
    proj, _ = _two_communities()
    citing = "a00"
    refs = sorted({proj.ids[j] for j in proj.neighbours(proj.index[citing], "natural")})
    gold, known = refs[0], tuple(refs[1:])
    cfg = FastRPConfig(embedding_dimension=32)
    ranker = FastRPRanker(proj, cfg)
    q = ContextQuery(id="c", text="", citing=citing, known_refs=known)
    ranker.prepare_contexts([q])
    keep = ~((proj.src == proj.index[citing]) & (proj.dst == proj.index[gold]))
    want = fastrp(proj.n_nodes, proj.src[keep], proj.dst[keep], cfg, keys=node_keys(proj.ids))
    norms = np.linalg.norm(want.embeddings, axis=1, keepdims=True)
    assert ranker.unit is not None
    np.testing.assert_allclose(ranker.unit, want.embeddings / np.where(norms, norms, 1), atol=1e-6)
    assert ranker.params["held_out_edges"] == 1


def test_ranks_the_citing_papers_community_first() -> None:
    proj, community = _two_communities()
    ranker = FastRPRanker(proj, FastRPConfig(embedding_dimension=64))
    queries = [
        ContextQuery(
            id=f"q{p}",
            text="",
            citing=p,
            known_refs=tuple(
                sorted({proj.ids[j] for j in proj.neighbours(proj.index[p], "natural")})
            )[1:],
        )
        for p in ("a01", "a05", "b02", "b07")
    ]
    ranker.prepare_contexts(queries)
    for q in queries:
        got = ranker.rank_context(q, 10)
        assert len(got.ids) == 10 and q.citing not in got.ids
        assert not set(got.ids) & set(q.known_refs)  # seeds are not recommended
        assert got.scores == sorted(got.scores, reverse=True)
        assert sum(community[i] == community[q.citing] for i in got.ids) >= 9
        pool = [*got.ids[3:], "a30", "b30"]
        sub = ranker.rank(q, 3, query_id=q.id, candidates=pool)
        assert set(sub.ids) <= set(pool) and len(sub.ids) == 3
    unseen = ContextQuery(id="new", text="", citing="a03", known_refs=("a04",))
    assert ranker.rank_context(unseen, 5).ids  # embedded on demand, without its own gold


@pytest.fixture
def synthetic(
    graph_env: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> Iterator[FalkorDBStore]:
    files = write_world(generate(300, seed=5), tmp_path / "world")
    cli_ok(["load", "s2", *(x for k in ("papers", "abstracts", "citations", "s2orc")
                           for x in (f"--{k}", str(files[k])))])  # fmt: skip
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    yield st
    st.close()


def test_registered_and_fused(synthetic: FalkorDBStore, tmp_path: Path) -> None:
    from scholarkg.benchmark.tasks.legobench.rpg.core import HashingEmbedder

    opts = {"projection_cache": tmp_path / "proj", "depth": 30}
    params = {"embedder": HashingEmbedder(64)}
    alone = build_recommender("fastrp", synthetic, params, opts)
    fused = build_recommender("hybrid-dense-fastrp", synthetic, params, opts)
    assert fused.params["inputs"] == ["bm25", "dense", "ppr", "cocitation", "fastrp"]
    graph_only = build_recommender("hybrid-fastrp", synthetic, params, opts)
    assert graph_only.params["inputs"] == ["bm25", "ppr", "cocitation", "fastrp"]
    task = load_task("citerec")
    queries = context_queries(
        task.build_instances(synthetic, task.resolve_options({"split": "all"}))[:20]
    )
    alone.prepare_contexts(queries)
    fused.prepare_contexts(queries)
    for q in queries:
        a = alone.rank_context(q, 10)
        assert q.citing not in a.ids and not set(a.ids) & set(q.known_refs)
        f = fused.rank_context(q, 10)
        assert q.citing not in f.ids and len(f.ids) == len(set(f.ids))
