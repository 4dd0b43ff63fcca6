"""FastRP node embeddings in numpy/scipy, as the Neo4j GDS manual defines the algorithm.

Why here: on Neo4j ``gds.fastRP`` computes the embeddings next to the data; the embedded store
has no such procedure, so the same algorithm runs on its resident projection
(:mod:`scholarkg.graphalgo.projection`). Same configuration names, same semantics, and — given
the same "original node ids" and ``randomSeed`` — the same numbers as GDS 2.13 (the Neo4j
contract test compares them to ``gds.fastRP.stream``; float32 rounding aside).

The algorithm (GDS manual, *Fast Random Projection*; Chen et al., arXiv 1908.11512):

1. every node ``n`` gets a *very sparse random projection* vector ``r_n`` (Achlioptas 2003):
   each of the first ``embeddingDimension - propertyDimension`` entries is
   ``+s``, ``-s`` or ``0`` with probability 1/6, 1/6, 2/3, where
   ``s = deg(n)^normalizationStrength * sqrt(3) / sqrt(embeddingDimension)`` (``deg = 0`` →
   factor 1). The last ``propertyDimension = int(embeddingDimension * propertyRatio)``
   entries are ``Σ_f x_{n,f} p_f``: the node's feature values times one random vector
   ``p_f`` per feature (entries ``±sqrt(3)/sqrt(embeddingDimension)``, same sparsity);
2. intermediate embeddings ``e^0 = r`` and ``e^i_n = (1/deg(n)) Σ_{m ∈ N(n)} e^{i-1}_m``
   (a neighbour counted once per relationship; no neighbour → zero);
3. the embedding ``e_n = w_0 · normalize(r_n) + Σ_{i=1..k} w_i · normalize(e^i_n)`` with
   ``w_0 = nodeSelfInfluence`` and ``(w_1 … w_k) = iterationWeights``; ``normalize``
   divides by the L2 norm (a zero vector stays zero).

Random numbers: GDS draws each node's vector from its own generator seeded by
``improvedSeed XOR originalNodeId`` (``improvedSeed`` = the first ``nextLong`` of a generator
seeded with ``randomSeed``), using its ``HighQualityRandom`` (a combined LCG / xorshift /
multiply-with-carry generator, Numerical Recipes 3rd ed. §7.1 "Ranq1"-style) and
``java.util.Random.nextDouble``'s 53-bit construction. :func:`java_doubles` reproduces that
generator vectorised over nodes (one uint64 state triple per node, one column at a time),
deliberately hand-written: no library offers this Java generator, and without it the
embedded store could only claim "a FastRP", not GDS's. On the embedded store a node's
"original id" is :func:`node_keys` of its stable ``id`` string, so both backends' projections
(which number nodes differently) give a node the same random vector.

Everything is pure (arrays in, arrays out); no store access.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from scholarkg.errors import InputError

__all__ = [
    "FastRPConfig",
    "FastRPResult",
    "adjacency",
    "fastrp",
    "improve_seed",
    "initial_vectors",
    "java_doubles",
    "node_keys",
]

SPARSITY = 3
ENTRY_PROBABILITY = 1.0 / (2 * SPARSITY)
ORIENTATIONS = ("natural", "reverse", "undirected")

U64 = npt.NDArray[np.uint64]
F32 = npt.NDArray[np.float32]

# HighQualityRandom's constants (GDS FastRP.java; Numerical Recipes' Ranq1 family)
_LCG_MUL = np.uint64(2862933555777941757)
_LCG_ADD = np.uint64(7046029254386353087)
_V0 = np.uint64(4101842887655102017)
_MWC_MUL = np.uint64(4294957665)
_DOUBLE_UNIT = 1.0 / (1 << 53)


@dataclass(frozen=True)
class FastRPConfig:
    """GDS's FastRP configuration (same names, same defaults; ``embeddingDimension`` has none
    in GDS, 128 here)."""

    embedding_dimension: int = 128
    iteration_weights: tuple[float, ...] = (0.0, 1.0, 1.0)
    normalization_strength: float = 0.0
    node_self_influence: float = 0.0
    property_ratio: float = 0.0
    random_seed: int = 42

    def __post_init__(self) -> None:
        if not 1 <= self.embedding_dimension <= 4096:
            raise InputError(
                "embeddingDimension must be in 1..4096 (a vector index holds at most 4096)",
                field="embedding_dimension",
            )
        if self.node_self_influence < 0:
            raise InputError("nodeSelfInfluence may not be negative", field="node_self_influence")
        if not self.iteration_weights and self.node_self_influence == 0:
            raise InputError(
                "iterationWeights must not be empty if nodeSelfInfluence is zero",
                field="iteration_weights",
            )
        if not 0.0 <= self.property_ratio <= 1.0:
            raise InputError("propertyRatio must be in [0, 1]", field="property_ratio")
        if not -(2**63) <= self.random_seed < 2**63:
            raise InputError("randomSeed must be a 64-bit integer", field="random_seed")

    @property
    def property_dimension(self) -> int:
        """``int(embeddingDimension * propertyRatio)``, as GDS truncates it."""
        return int(self.embedding_dimension * self.property_ratio)

    def gds(self) -> dict[str, Any]:
        """The same configuration as a ``gds.fastRP.*`` configuration map."""
        return {
            "embeddingDimension": self.embedding_dimension,
            "iterationWeights": [float(w) for w in self.iteration_weights],
            "normalizationStrength": float(self.normalization_strength),
            "nodeSelfInfluence": float(self.node_self_influence),
            "propertyRatio": float(self.property_ratio),
            "randomSeed": int(self.random_seed),
        }


@dataclass
class FastRPResult:
    """Embeddings (one float32 row per node, projection order) and where the time went,
    named like GDS's result columns."""

    embeddings: F32
    pre_processing_millis: float = 0.0  # adjacency and degrees
    compute_millis: float = 0.0  # random vectors and propagation
    timings: dict[str, float] = field(default_factory=dict)
    #: with ``keep_levels``: the intermediate embeddings ``e^1 … e^k`` (before normalising),
    #: what :mod:`scholarkg.graphalgo.fastrp_without` updates when works are left out
    levels: list[F32] = field(default_factory=list)

    @property
    def node_count(self) -> int:
        return int(self.embeddings.shape[0])


# ----------------------------------------------------------------------------- random numbers


def _next_long(u: U64, v: U64, w: U64) -> U64:
    """One ``HighQualityRandom.nextLong`` step of every generator, in place (uint64 = Java's
    long with wrap-around; ``>>`` on uint64 is Java's ``>>>``)."""
    u *= _LCG_MUL
    u += _LCG_ADD
    v ^= v >> np.uint64(17)
    v ^= v << np.uint64(31)
    v ^= v >> np.uint64(8)
    w[:] = _MWC_MUL * w + (w >> np.uint64(32))
    x = u ^ (u << np.uint64(21))
    x ^= x >> np.uint64(35)
    x ^= x << np.uint64(4)
    out: U64 = (x + v) ^ w
    return out


def _seeded(seeds: U64) -> tuple[U64, U64, U64]:
    """``HighQualityRandom.reseed`` of one generator per seed."""
    with np.errstate(over="ignore"):
        v = np.full(seeds.shape, _V0, np.uint64)
        w = np.ones(seeds.shape, np.uint64)
        u = seeds ^ v
        _next_long(u, v, w)
        v = u.copy()
        _next_long(u, v, w)
        w = v.copy()
        _next_long(u, v, w)
    return u, v, w


def _as_u64(value: int) -> np.uint64:
    return np.uint64(value & 0xFFFF_FFFF_FFFF_FFFF)


def improve_seed(random_seed: int) -> int:
    """GDS's ``improveSeed``: the first ``nextLong`` of a generator seeded with the user's
    ``randomSeed`` (returned as an unsigned 64-bit int: the same bits as Java's long)."""
    u, v, w = _seeded(np.array([_as_u64(random_seed)], np.uint64))
    with np.errstate(over="ignore"):
        return int(_next_long(u, v, w)[0])


def java_doubles(seeds: U64, count: int) -> npt.NDArray[np.float64]:
    """``count`` successive ``nextDouble()`` of a ``HighQualityRandom(seed)`` per seed:
    shape ``(len(seeds), count)``. ``nextDouble = ((next(26) << 27) + next(27)) · 2^-53``
    with ``next(bits) = nextLong() >>> (64 - bits)`` (java.util.Random's construction)."""
    u, v, w = _seeded(np.asarray(seeds, np.uint64))
    out = np.empty((u.shape[0], count), np.float64)
    with np.errstate(over="ignore"):
        for j in range(count):
            hi = _next_long(u, v, w) >> np.uint64(38)
            lo = _next_long(u, v, w) >> np.uint64(37)
            out[:, j] = ((hi << np.uint64(27)) + lo).astype(np.float64) * _DOUBLE_UNIT
    return out


def _sparse_entries(doubles: npt.NDArray[np.float64], entry: F32 | np.float32) -> F32:
    """GDS's ``computeRandomEntry``: ``+entry`` below 1/6, ``-entry`` below 2/6, else 0."""
    sign = np.where(
        doubles < ENTRY_PROBABILITY, 1.0, np.where(doubles < 2 * ENTRY_PROBABILITY, -1.0, 0.0)
    ).astype(np.float32)
    out: F32 = sign * entry
    return out


def node_keys(ids: Sequence[str]) -> U64:
    """A stable 63-bit "original node id" per node id string (BLAKE2b), so a node's random
    vector depends on its id, not on where a backend's projection put it."""
    out = np.empty(len(ids), np.uint64)
    for i, node_id in enumerate(ids):
        digest = hashlib.blake2b(node_id.encode("utf-8"), digest_size=8).digest()
        out[i] = int.from_bytes(digest, "little") & 0x7FFF_FFFF_FFFF_FFFF
    return out


# ----------------------------------------------------------------------------- the algorithm


def adjacency(
    n_nodes: int,
    src: npt.NDArray[np.integer[Any]],
    dst: npt.NDArray[np.integer[Any]],
    orientation: str = "undirected",
) -> sp.csr_matrix:
    """Relationship counts ``A[n, m]`` (parallel relationships counted, as GDS's adjacency
    lists hold them) in the projected orientation: GDS ``NATURAL``, ``REVERSE`` or
    ``UNDIRECTED`` (each relationship in both directions)."""
    if orientation not in ORIENTATIONS:
        raise InputError(f"orientation must be one of {ORIENTATIONS}", field="orientation")
    s = np.asarray(src, np.int64)
    d = np.asarray(dst, np.int64)
    if orientation == "reverse":
        s, d = d, s
    elif orientation == "undirected":
        s, d = np.concatenate([s, d]), np.concatenate([d, s])
    return sp.csr_matrix(
        (np.ones(s.shape[0], np.float32), (s, d)), shape=(n_nodes, n_nodes), dtype=np.float32
    )


def initial_vectors(
    keys: U64,
    degrees: npt.NDArray[np.floating[Any]],
    config: FastRPConfig,
    features: npt.NDArray[np.floating[Any]] | None = None,
) -> F32:
    """The random vectors ``r`` (step 1 of the module doc), float32 like GDS's."""
    dim = config.embedding_dimension
    base = dim - config.property_dimension
    seed = _as_u64(improve_seed(config.random_seed))
    sqrt_sparsity = np.float32(math.sqrt(SPARSITY))
    sqrt_dim = np.float32(math.sqrt(dim))
    deg = np.asarray(degrees, np.float64)
    scaling = np.where(
        deg == 0, 1.0, np.power(np.where(deg == 0, 1.0, deg), config.normalization_strength)
    ).astype(np.float32)
    entry = (scaling * sqrt_sparsity / sqrt_dim).astype(np.float32)[:, None]
    out = np.zeros((keys.shape[0], dim), np.float32)
    block = 1 << 16  # nodes per block: bounds the float64 scratch to ~base × 0.5 MB
    for lo in range(0, keys.shape[0], block):
        hi = min(lo + block, keys.shape[0])
        doubles = java_doubles(keys[lo:hi] ^ seed, base)
        out[lo:hi, :base] = _sparse_entries(doubles, entry[lo:hi])
    if config.property_dimension > 0:
        if features is None or features.ndim != 2 or features.shape[0] != keys.shape[0]:
            raise InputError(
                "propertyRatio > 0 needs one feature row per node", field="feature_properties"
            )
        out[:, base:] = np.asarray(features, np.float32) @ property_vectors(
            features.shape[1], config
        )
    return out


def property_vectors(n_features: int, config: FastRPConfig) -> F32:
    """One random vector per input feature, ``(n_features, propertyDimension)``: GDS draws
    them from one generator seeded with the improved seed, dimension-major."""
    pdim = config.property_dimension
    seed = np.array([_as_u64(improve_seed(config.random_seed))], np.uint64)
    doubles = java_doubles(seed, pdim * n_features)[0].reshape(pdim, n_features).T
    entry = np.float32(
        np.float32(math.sqrt(SPARSITY)) / np.float32(math.sqrt(config.embedding_dimension))
    )
    return _sparse_entries(doubles, entry)


def _normalized(x: F32) -> F32:
    norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64)).astype(np.float32)
    norms[norms == 0] = 1.0
    out: F32 = x / norms[:, None]
    return out


def fastrp(
    n_nodes: int,
    src: npt.NDArray[np.integer[Any]],
    dst: npt.NDArray[np.integer[Any]],
    config: FastRPConfig | None = None,
    *,
    keys: U64 | None = None,
    features: npt.NDArray[np.floating[Any]] | None = None,
    orientation: str = "undirected",
    progress: Callable[[int, int], None] | None = None,
    keep_levels: bool = False,
) -> FastRPResult:
    """FastRP embeddings of the graph ``(src[i] → dst[i])`` on nodes ``0 … n_nodes-1``.

    ``keys`` are the nodes' "original ids" that seed their random vectors (default: the
    position, as a GDS graph generated in memory has); ``features`` a ``(n_nodes, f)`` matrix
    for ``propertyRatio > 0``; ``progress(done, total)`` counts the iterations;
    ``keep_levels`` keeps every iteration's ``e^i`` in :attr:`FastRPResult.levels`.
    """
    cfg = config or FastRPConfig()
    t0 = time.perf_counter()
    matrix = adjacency(n_nodes, src, dst, orientation)
    degrees = np.asarray(matrix.sum(axis=1), np.float64).ravel()
    inv = np.divide(1.0, degrees, out=np.zeros_like(degrees), where=degrees > 0)
    mean_of_neighbours = sp.csr_matrix(sp.diags(inv.astype(np.float32)) @ matrix)
    t1 = time.perf_counter()
    node_key = np.arange(n_nodes, dtype=np.uint64) if keys is None else np.asarray(keys, np.uint64)
    if node_key.shape[0] != n_nodes:
        raise InputError(f"{node_key.shape[0]} keys for {n_nodes} nodes", field="keys")
    current = initial_vectors(node_key, degrees, cfg, features)
    t2 = time.perf_counter()
    embeddings = np.zeros_like(current)
    if cfg.node_self_influence:
        embeddings += np.float32(cfg.node_self_influence) * _normalized(current)
    total = len(cfg.iteration_weights)
    levels: list[F32] = []
    for i, weight in enumerate(cfg.iteration_weights):
        current = np.asarray(mean_of_neighbours @ current, np.float32)
        if keep_levels:
            levels.append(current)
        if weight:
            embeddings += np.float32(weight) * _normalized(current)
        if progress is not None:
            progress(i + 1, total)
    t3 = time.perf_counter()
    return FastRPResult(
        embeddings=embeddings,
        pre_processing_millis=(t1 - t0) * 1000.0,
        compute_millis=(t3 - t1) * 1000.0,
        timings={"adjacency_s": t1 - t0, "random_vectors_s": t2 - t1, "propagation_s": t3 - t2},
        levels=levels,
    )
