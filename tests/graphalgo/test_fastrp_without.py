"""FastRP of a graph without some works, updated from the full graph's levels, equals FastRP
computed from scratch on the graph built without them (float32 rounding aside), for both
orientations and with a degree-dependent normalisation; the levels survive a disk round trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp, node_keys
from scholarkg.graphalgo.fastrp_without import FastRPLevels
from scholarkg.graphalgo.neighbours import Without
from scholarkg.graphalgo.projection import Projection, ProjectionKey

KEY = ProjectionKey("embedded", "g", "Paper", ("CITES",))


def _graph(seed: int, n: int = 200, m: int = 900) -> Projection:
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    return Projection(KEY, [f"p{i}" for i in range(n)], src[keep].astype(np.int64),
                      dst[keep].astype(np.int64))  # fmt: skip


@pytest.mark.parametrize(
    ("orientation", "strength", "weights"),
    [("undirected", 0.0, (0.0, 1.0, 1.0)), ("undirected", -0.5, (0.0, 1.0, 1.0)),
     ("natural", 0.0, (1.0, 0.5, 1.0, 0.25))],
)  # fmt: skip
def test_updated_embeddings_equal_fastrp_on_the_smaller_graph(
    orientation: str, strength: float, weights: tuple[float, ...]
) -> None:
    proj = _graph(3)
    cfg = FastRPConfig(embedding_dimension=32, iteration_weights=weights,
                       normalization_strength=strength)  # fmt: skip
    levels = FastRPLevels.compute(proj, cfg, orientation=orientation)
    absent = ["p3", "p17", "p150"]
    changed = levels.without(Without.of(proj, absent))
    kept = [i for i in range(proj.n_nodes) if proj.ids[i] not in absent]
    remap = {old: new for new, old in enumerate(kept)}
    gone = {proj.index[a] for a in absent}
    mask = np.asarray([s not in gone and d not in gone for s, d in zip(proj.src, proj.dst,
                                                                      strict=True)])  # fmt: skip
    src = np.asarray([remap[s] for s in proj.src[mask]], np.int64)
    dst = np.asarray([remap[d] for d in proj.dst[mask]], np.int64)
    truth = fastrp(len(kept), src, dst, cfg, keys=node_keys([proj.ids[i] for i in kept]),
                   orientation=orientation).embeddings  # fmt: skip
    got = levels.embeddings_of(kept, changed)
    np.testing.assert_allclose(got, truth, atol=2e-6)
    assert 0 < changed.nodes.size < proj.n_nodes
    # cosines against a query vector: the smaller graph's, for every node kept
    query = truth[5] + truth[9]
    norms = np.linalg.norm(truth, axis=1)
    want = np.divide(truth @ query, norms * np.linalg.norm(query), out=np.zeros(len(kept)),
                     where=norms > 0)  # fmt: skip
    np.testing.assert_allclose(levels.cosines(query, changed)[kept], want, atol=2e-6)


def test_nothing_left_out_changes_nothing_and_the_levels_round_trip(tmp_path: Path) -> None:
    proj = _graph(5)
    cfg = FastRPConfig(embedding_dimension=16)
    levels = FastRPLevels.compute(proj, cfg, digest="abc")
    full = fastrp(proj.n_nodes, proj.src, proj.dst, cfg, keys=node_keys(proj.ids)).embeddings
    assert levels.without(Without(proj)).nodes.size == 0
    np.testing.assert_allclose(levels.embeddings_of(range(proj.n_nodes)), full, atol=1e-6)
    levels.save(tmp_path / "fastrp")
    assert FastRPLevels.load(tmp_path / "fastrp", proj, "other") is None  # another state
    back = FastRPLevels.load(tmp_path / "fastrp", proj, "abc")
    assert back is not None and back.config == cfg
    view = Without.of(proj, ["p1"])
    a, b = levels.without(view), back.without(view)
    assert a.nodes.tolist() == b.nodes.tolist()
    np.testing.assert_allclose(a.embeddings, b.embeddings, atol=0)


def test_self_influence_is_refused() -> None:
    with pytest.raises(Exception, match="nodeSelfInfluence"):
        FastRPLevels.compute(_graph(1, 10, 20), FastRPConfig(node_self_influence=1.0))
