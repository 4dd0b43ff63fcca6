"""``scholarkg.recommend.ppr``, the managed Neo4j's personalized PageRank procedure, against the
client's sparse personalized PageRank on the projection seen without the excluded works
(``graphalgo.neighbours.personalized_scores``): the same numbers, the same order, on graphs
with parallel citations, self-citations, dangling works, hubs, left-out seeds and left-out
references; and what it refuses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scholarkg.errors import StoreError
from scholarkg.graphalgo import neighbours as nb
from scholarkg.graphalgo.projection import Projection
from scholarkg.graphalgo.resident import ProjectionKey

PPR = {"damping_factor": 0.85, "max_iterations": 20, "tolerance": 1e-3}


Graph = tuple[list[str], np.ndarray, np.ndarray]


def _random_graph(seed: int, n: int = 400, m: int = 2400) -> Graph:
    """A citation-like graph: skewed in-degrees (hubs), some works citing nothing, a few
    parallel citations and self-citations."""
    rng = np.random.default_rng(seed)
    ids = [f"p{i:04d}" for i in range(n)]
    src = rng.integers(0, int(n * 0.8), m)  # the last fifth cite nothing
    dst = np.minimum((rng.pareto(1.2, m) * 20).astype(np.int64), n - 1)
    src = np.concatenate([src, src[:15], np.arange(5)])  # parallel edges, self-citations
    dst = np.concatenate([dst, dst[:15], np.arange(5)])
    return ids, src.astype(np.int64), dst.astype(np.int64)


def _load(store: Any, ids: list[str], src: np.ndarray, dst: np.ndarray) -> None:
    store.run("UNWIND $ids AS i CREATE (:Paper {id: i})", {"ids": ids})
    pairs = [{"a": ids[int(a)], "b": ids[int(b)]} for a, b in zip(src, dst, strict=True)]
    for lo in range(0, len(pairs), 1000):
        store.run(
            "UNWIND $rows AS r MATCH (a:Paper {id: r.a}), (b:Paper {id: r.b}) "
            "CREATE (a)-[:CITES]->(b)",
            {"rows": pairs[lo : lo + 1000]},
        )


def _client(proj: Projection, seeds: list[str], exclude: list[str], **cfg: Any) -> dict[str, float]:
    view = nb.Without.of(proj, exclude)
    pos = proj.index
    present = [pos[s] for s in dict.fromkeys(seeds) if s in pos and s not in exclude]
    scores = nb.personalized_scores(view, present, **{**PPR, **cfg})
    for s in present:
        scores.pop(s, None)
    return nb.as_ids(proj, scores)


def _server(
    store: Any, seeds: list[str], exclude: list[str], limit: int, **cfg: Any
) -> list[tuple[str, float]]:
    params = {"seeds": seeds, "exclude": exclude, "limit": limit, **PPR, **cfg}
    return [(str(r["id"]), float(r["score"])) for r in store.run_named("recommend/ppr", params)]


def _ranked(scores: dict[str, float], limit: int) -> list[tuple[str, float]]:
    return sorted(scores.items(), key=lambda kv: (-round(kv[1], 12), kv[0]))[:limit]


def _same(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [i for i, _ in got] == [i for i, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9, abs=1e-15)


def test_the_procedure_gives_the_clients_personalized_pagerank(neo4j_store: Any) -> None:
    ids, src, dst = _random_graph(7)
    _load(neo4j_store, ids, src, dst)
    proj = Projection(ProjectionKey("neo4j", "t", "Paper", ("CITES",)), ids, src, dst)
    rng = np.random.default_rng(1)
    hub = ids[int(np.bincount(dst).argmax())]
    cases: list[tuple[list[str], list[str], dict[str, Any]]] = [
        (["p0001", "p0002", "p0003"], [], {}),
        (["p0001", "p0001", "p0010"], [], {}),  # a seed named twice counts once
        (["p0001", "p0002", "p0003"], ["p0002"], {}),  # a left-out seed is no seed
        (["p0001", "p0002", "p0003"], [hub], {}),  # the hub gone: its citers share elsewhere
        (["p0004"], ["p0004"], {}),  # every seed left out: nothing
        (["p0001", "nope"], ["also-nope"], {}),  # ids the graph lacks are ignored
        (["p0390"], [], {}),  # a work citing nothing: its mass stays, no answer
        (["p0001", "p0005"], [], {"tolerance": 0.0, "max_iterations": 6}),
        (["p0001", "p0005"], [], {"max_iterations": 1}),  # no push at all
        (["p0003"], [], {"damping_factor": 0.5, "tolerance": 1e-4}),
    ]
    for _ in range(8):
        seeds = [ids[int(i)] for i in rng.choice(300, 30, replace=False)]
        exclude = [ids[int(i)] for i in rng.choice(400, 5, replace=False)]
        cases.append((seeds, exclude, {}))
    for seeds, exclude, cfg in cases:
        want = _client(proj, seeds, exclude, **cfg)
        for limit in (5, 100, 10_000):
            got = _server(neo4j_store, seeds, exclude, limit, **cfg)
            _same(got, _ranked(want, limit))
        assert not {i for i, _ in got} & (set(seeds) | set(exclude))


def test_exclude_equals_the_graph_without_the_work(neo4j_store: Any) -> None:
    """Leaving a work out in the procedure gives the numbers of a graph that never held it."""
    ids, src, dst = _random_graph(11, n=200, m=1000)
    _load(neo4j_store, ids, src, dst)
    hub = ids[int(np.bincount(dst).argmax())]
    seeds = ids[:25]
    with_exclude = _server(neo4j_store, seeds, [hub, "p0003"], 10_000)
    neo4j_store.run("MATCH (p:Paper) WHERE p.id IN $ids DETACH DELETE p", {"ids": [hub, "p0003"]})
    _same(with_exclude, _server(neo4j_store, seeds, [], 10_000))


def test_ties_go_to_the_smaller_id_and_only_the_limit_crosses(neo4j_store: Any) -> None:
    ids = ["s", *(f"c{i:02d}" for i in range(12))]
    _load(neo4j_store, ids, np.zeros(12, np.int64), np.arange(1, 13))
    got = _server(neo4j_store, ["s"], [], 4)
    assert [i for i, _ in got] == ["c00", "c01", "c02", "c03"]
    assert [s for _, s in got] == pytest.approx([0.85 * 0.15 / 12] * 4)
    assert _server(neo4j_store, ["s"], [], 0) == []


@pytest.mark.parametrize(
    "cfg,message",
    [
        ({"damping_factor": 1.0}, "dampingFactor"),
        ({"max_iterations": 0}, "maxIterations"),
        ({"tolerance": -1.0}, "tolerance"),
        ({"limit": -1}, "limit"),
    ],
)
def test_bad_settings_are_refused(neo4j_store: Any, cfg: dict[str, Any], message: str) -> None:
    params = {"seeds": ["x"], "exclude": [], "limit": 5, **PPR, **cfg}
    with pytest.raises(StoreError, match=message):
        neo4j_store.run_named("recommend/ppr", params)
