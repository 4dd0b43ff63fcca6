"""FastRP in numpy (``graphalgo/fastrp.py``) against values computed by hand on tiny graphs.

The generator is checked against a plain-Python transcription of GDS's ``HighQualityRandom``
and ``java.util.Random.nextDouble`` (integers mod 2^64, one call at a time), the propagation
against the manual's formula written out for a three-node path. Equality with GDS itself is
the Neo4j contract test's job (``test_fastrp_contract.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from scholarkg.errors import InputError
from scholarkg.graphalgo.fastrp import (
    FastRPConfig,
    fastrp,
    improve_seed,
    initial_vectors,
    java_doubles,
    node_keys,
    property_vectors,
)

MASK = (1 << 64) - 1


class ScalarHighQualityRandom:
    """GDS's HighQualityRandom, one Python int at a time (the reference for the vectorised
    generator)."""

    def __init__(self, seed: int) -> None:
        self.v = 4101842887655102017
        self.w = 1
        self.u = (seed ^ self.v) & MASK
        self.next_long()
        self.v = self.u
        self.next_long()
        self.w = self.v
        self.next_long()

    def next_long(self) -> int:
        self.u = (self.u * 2862933555777941757 + 7046029254386353087) & MASK
        self.v ^= self.v >> 17
        self.v ^= (self.v << 31) & MASK
        self.v ^= self.v >> 8
        self.w = (4294957665 * self.w + (self.w >> 32)) & MASK
        x = self.u ^ ((self.u << 21) & MASK)
        x ^= x >> 35
        x ^= (x << 4) & MASK
        return ((x + self.v) & MASK) ^ self.w

    def next_double(self) -> float:
        hi = self.next_long() >> (64 - 26)
        lo = self.next_long() >> (64 - 27)
        return ((hi << 27) + lo) * 2.0**-53


def test_vectorised_generator_equals_the_scalar_transcription() -> None:
    seeds = [0, 1, 42, 2**63 - 1, (-5) & MASK]
    got = java_doubles(np.array(seeds, np.uint64), 7)
    for row, seed in zip(got, seeds, strict=True):
        ref = ScalarHighQualityRandom(seed)
        assert row.tolist() == [ref.next_double() for _ in range(7)]
    assert improve_seed(42) == ScalarHighQualityRandom(42).next_long()
    assert improve_seed(-1) == ScalarHighQualityRandom(MASK).next_long()


def test_initial_vectors_are_very_sparse_projections_seeded_per_node() -> None:
    cfg = FastRPConfig(embedding_dimension=12, random_seed=7)
    keys = np.array([3, 11], np.uint64)
    r = initial_vectors(keys, np.array([2.0, 0.0]), cfg)
    entry = np.float32(math.sqrt(3)) / np.float32(math.sqrt(12))  # deg^0 = 1
    seed = improve_seed(7)
    for row, key in zip(r, keys.tolist(), strict=True):
        ref = ScalarHighQualityRandom(seed ^ key)
        expected = []
        for _ in range(12):
            x = ref.next_double()
            expected.append(entry if x < 1 / 6 else -entry if x < 2 / 6 else 0.0)
        assert row.tolist() == pytest.approx(expected, abs=0)
    # normalizationStrength scales by deg^beta (a degree-0 node keeps factor 1)
    scaled = initial_vectors(keys, np.array([4.0, 0.0]), FastRPConfig(12, (1.0,), -0.5, 0, 0, 7))
    assert scaled[0].tolist() == pytest.approx((r[0] * 0.5).tolist(), rel=1e-6)
    assert scaled[1].tolist() == r[1].tolist()


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n else v


def test_path_graph_by_hand() -> None:
    """0 - 1 - 2 (one relationship each way counted once, UNDIRECTED), node 3 isolated:
    e1_0 = r1, e1_1 = (r0 + r2)/2, e1_2 = r1; e2_0 = e1_1, e2_1 = (e1_0 + e1_2)/2 = r1."""
    cfg = FastRPConfig(embedding_dimension=16, iteration_weights=(0.5, 2.0), random_seed=3)
    src, dst = np.array([0, 1]), np.array([1, 2])
    res = fastrp(4, src, dst, cfg)
    r = initial_vectors(np.arange(4, dtype=np.uint64), np.array([1.0, 2.0, 1.0, 0.0]), cfg)
    r = r.astype(np.float64)
    e1 = [r[1], (r[0] + r[2]) / 2, r[1]]
    e2 = [e1[1], (e1[0] + e1[2]) / 2, e1[1]]
    for n in range(3):
        expected = 0.5 * _unit(e1[n]) + 2.0 * _unit(e2[n])
        assert res.embeddings[n].tolist() == pytest.approx(expected.tolist(), abs=1e-6)
    assert not res.embeddings[3].any()  # no neighbours, no self influence: zero
    # nodeSelfInfluence adds w0 * normalize(r): now the isolated node has its own direction
    with_self = fastrp(4, src, dst, FastRPConfig(16, (0.5, 2.0), 0.0, 1.5, 0.0, 3))
    assert with_self.embeddings[3].tolist() == pytest.approx((1.5 * _unit(r[3])).tolist())
    assert with_self.embeddings[0].tolist() == pytest.approx(
        (res.embeddings[0] + 1.5 * _unit(r[0])).tolist(), abs=1e-6
    )


def test_orientation_natural_follows_out_edges_only() -> None:
    cfg = FastRPConfig(embedding_dimension=8, iteration_weights=(1.0,))
    res = fastrp(3, np.array([0, 0]), np.array([1, 2]), cfg, orientation="natural")
    r = initial_vectors(np.arange(3, dtype=np.uint64), np.array([2.0, 0.0, 0.0]), cfg)
    expected = _unit((r[1].astype(np.float64) + r[2]) / 2)
    assert res.embeddings[0].tolist() == pytest.approx(expected.tolist(), abs=1e-6)
    assert not res.embeddings[1:].any()  # sinks have no out-neighbours
    reverse = fastrp(3, np.array([0, 0]), np.array([1, 2]), cfg, orientation="reverse")
    assert reverse.embeddings[1].tolist() == pytest.approx(_unit(r[0]).tolist(), abs=1e-6)


def test_feature_part_is_a_random_combination_of_the_features() -> None:
    cfg = FastRPConfig(embedding_dimension=10, property_ratio=0.5, random_seed=1)
    features = np.array([[1.0, 0.0], [2.0, -1.0]])
    p = property_vectors(2, cfg)
    assert p.shape == (2, 5)
    ref = ScalarHighQualityRandom(improve_seed(1))
    entry = np.float32(math.sqrt(3)) / np.float32(math.sqrt(10))
    flat = [ref.next_double() for _ in range(10)]  # dimension-major: d0f0 d0f1 d1f0 ...
    for d in range(5):
        for f in range(2):
            x = flat[d * 2 + f]
            assert p[f, d] == (entry if x < 1 / 6 else -entry if x < 2 / 6 else 0.0)
    r = initial_vectors(np.array([0, 1], np.uint64), np.array([1.0, 1.0]), cfg, features)
    np.testing.assert_allclose(r[:, 5:], features @ p, atol=1e-6)


def test_node_keys_are_stable_and_distinct() -> None:
    keys = node_keys(["s2:1", "s2:2", "s2:1"])
    assert keys[0] == keys[2] and keys[0] != keys[1]
    assert int(keys.max()) < 2**63  # a non-negative Java long


def test_config_is_checked_like_gds() -> None:
    with pytest.raises(InputError):
        FastRPConfig(embedding_dimension=0)
    with pytest.raises(InputError):
        FastRPConfig(iteration_weights=(), node_self_influence=0.0)
    with pytest.raises(InputError):
        FastRPConfig(node_self_influence=-1.0)
    with pytest.raises(InputError):
        fastrp(2, np.array([0]), np.array([1]), FastRPConfig(8, property_ratio=0.5))
    assert FastRPConfig(embedding_dimension=10, property_ratio=0.55).property_dimension == 5
