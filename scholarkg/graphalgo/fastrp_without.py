"""FastRP embeddings of the graph without some works, updated from the full graph's levels.

A recommender that leaves a work out (a leave-one-out fit, an evaluation whose query is a
work of the graph) must read every graph signal as a graph loaded without that work would
give it, FastRP included. Recomputing FastRP per query costs the whole graph; but FastRP is
linear propagation (:mod:`scholarkg.graphalgo.fastrp`): with ``e^0 = r`` the random vectors
and ``e^i_n = (1/deg n) Σ_m A[n, m] e^{i-1}_m``, removing the works ``X`` changes ``e^i``
only within ``i`` hops of ``X``, by

    e'^i_n = (deg_n · e^i_n + Σ_m A[n, m] Δ^{i-1}_m) / deg'_n,

where ``Δ^{i-1}`` is ``−e^{i-1}_x`` on the absent works and ``e'^{i-1} − e^{i-1}`` on the
changed ones, and ``deg'_n`` counts the relationships left. :class:`FastRPLevels` keeps the
full graph's ``e^1 … e^k`` (computed once per graph state, cached on disk as arrays), and
:meth:`FastRPLevels.without` applies that update to the changed nodes only: exact, at a
cost proportional to the edges around the absent works. The embedding is then GDS's
``Σ_i w_i · normalize(e^i)`` (``nodeSelfInfluence`` 0; with a ``normalizationStrength``
other than 0 the random vectors of the works whose degree changed are drawn again).

Cosine scores of every node against a query vector need no embedding matrix:
``emb_n · q = Σ_i w_i (e^i_n · q) / ‖e^i_n‖``, one matrix-vector product per level, divided
by ``‖emb_n‖`` (kept); the changed nodes are then scored from their updated vectors.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from scholarkg.errors import InputError
from scholarkg.graphalgo.fastrp import (
    FastRPConfig,
    adjacency,
    fastrp,
    initial_vectors,
    node_keys,
)

if TYPE_CHECKING:
    from scholarkg.graphalgo.neighbours import Without
    from scholarkg.graphalgo.projection import Projection

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

FORMAT = "scholarkg-fastrp-levels"
FORMAT_VERSION = 1

__all__ = ["Changed", "FastRPLevels"]


def _norms(x: F32) -> F32:
    out: F32 = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64)).astype(np.float32)
    return out


def _normalized(x: F32) -> F32:
    n = _norms(x)
    n[n == 0] = 1.0
    out: F32 = x / n[:, None]
    return out


@dataclass
class Changed:
    """The nodes whose embedding differs in the graph without some works, with it."""

    nodes: I64
    embeddings: F32  # (len(nodes), dim), GDS's combination of the updated levels

    def as_map(self) -> dict[int, int]:
        return {int(n): i for i, n in enumerate(self.nodes)}


@dataclass
class FastRPLevels:
    """The full graph's FastRP levels for one projection state (see the module doc)."""

    ids: list[str]
    config: FastRPConfig
    orientation: str
    levels: list[F32]
    level_norms: list[F32]
    emb_norms: F32
    degrees: npt.NDArray[np.float64]
    digest: str = ""
    _adjacency: sp.csr_matrix | None = field(default=None, repr=False)
    _src: I64 | None = field(default=None, repr=False)
    _dst: I64 | None = field(default=None, repr=False)
    _transposed: sp.csr_matrix | None = field(default=None, repr=False)

    # -- building -----------------------------------------------------------------------

    @staticmethod
    def check_config(config: FastRPConfig) -> None:
        if config.node_self_influence:
            raise InputError(
                "the recommender's FastRP signal takes nodeSelfInfluence 0 (the default)",
                field="node_self_influence",
            )
        if config.property_ratio:
            raise InputError("the recommender's FastRP signal takes no node features")

    @classmethod
    def compute(
        cls,
        projection: Projection,
        config: FastRPConfig | None = None,
        *,
        orientation: str = "undirected",
        digest: str = "",
        progress: Callable[[int, int], None] | None = None,
    ) -> FastRPLevels:
        """FastRP of the projection (the numbers ``graph embed`` stores), keeping its levels."""
        cfg = config or FastRPConfig()
        cls.check_config(cfg)
        res = fastrp(
            projection.n_nodes,
            projection.src,
            projection.dst,
            cfg,
            keys=node_keys(projection.ids),
            orientation=orientation,
            progress=progress,
            keep_levels=True,
        )
        matrix = adjacency(projection.n_nodes, projection.src, projection.dst, orientation)
        degrees = np.asarray(matrix.sum(axis=1), np.float64).ravel()
        out = cls(
            ids=list(projection.ids),
            config=cfg,
            orientation=orientation,
            levels=res.levels,
            level_norms=[_norms(x) for x in res.levels],
            emb_norms=_norms(res.embeddings),
            degrees=degrees,
            digest=digest,
        )
        out._adjacency = matrix
        out._src, out._dst = projection.src, projection.dst
        return out

    def bind(self, projection: Projection) -> None:
        """Give a loaded cache the edges of its projection (for the updates)."""
        if projection.n_nodes != len(self.ids):
            raise InputError("FastRP levels of another projection", field="projection")
        self._src, self._dst = projection.src, projection.dst

    @property
    def matrix(self) -> sp.csr_matrix:
        if self._adjacency is None:
            if self._src is None or self._dst is None:
                raise InputError("FastRP levels loaded without their projection: bind() it")
            self._adjacency = adjacency(len(self.ids), self._src, self._dst, self.orientation)
        return self._adjacency

    @property
    def transposed(self) -> sp.csr_matrix:
        """``Aᵀ`` as CSR, built once (the adjacency itself when it is symmetric)."""
        if self._transposed is None:
            a = self.matrix
            self._transposed = a if self.orientation == "undirected" else sp.csr_matrix(a.T)
        return self._transposed

    @property
    def weights(self) -> tuple[float, ...]:
        return tuple(float(w) for w in self.config.iteration_weights)

    # -- persistence --------------------------------------------------------------------

    def save(self, directory: Path) -> None:
        """Arrays as ``.npy`` (read back memory-mapped) and a manifest, written atomically."""
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        for i, (level, norm) in enumerate(zip(self.levels, self.level_norms, strict=True)):
            np.save(tmp / f"level{i + 1}.npy", level)
            np.save(tmp / f"norm{i + 1}.npy", norm)
        np.save(tmp / "emb_norms.npy", self.emb_norms)
        np.save(tmp / "degrees.npy", self.degrees)
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "config": self.config.gds(),
            "orientation": self.orientation,
            "n_nodes": len(self.ids),
            "digest": self.digest,
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        if directory.exists():
            import shutil

            old = directory.with_name(f".{directory.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(directory, old)
            os.replace(tmp, directory)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, directory)

    @classmethod
    def load(cls, directory: Path, projection: Projection, digest: str) -> FastRPLevels | None:
        """The cache in ``directory`` if it is of this projection state (``digest``)."""
        try:
            meta = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if (
            meta.get("format") != FORMAT
            or meta.get("format_version") != FORMAT_VERSION
            or meta.get("digest") != digest
            or meta.get("n_nodes") != projection.n_nodes
        ):
            return None
        c = meta["config"]
        cfg = FastRPConfig(
            embedding_dimension=int(c["embeddingDimension"]),
            iteration_weights=tuple(float(w) for w in c["iterationWeights"]),
            normalization_strength=float(c["normalizationStrength"]),
            node_self_influence=float(c["nodeSelfInfluence"]),
            property_ratio=float(c["propertyRatio"]),
            random_seed=int(c["randomSeed"]),
        )
        k = len(cfg.iteration_weights)
        try:
            levels = [np.load(directory / f"level{i + 1}.npy", mmap_mode="r") for i in range(k)]
            norms = [np.load(directory / f"norm{i + 1}.npy") for i in range(k)]
            emb_norms = np.load(directory / "emb_norms.npy")
            degrees = np.load(directory / "degrees.npy")
        except (OSError, ValueError):
            return None
        out = cls(
            ids=list(projection.ids),
            config=cfg,
            orientation=str(meta["orientation"]),
            levels=levels,
            level_norms=norms,
            emb_norms=emb_norms,
            degrees=degrees,
            digest=digest,
        )
        out.bind(projection)
        return out

    # -- the graph without some works ----------------------------------------------------

    def _random_vectors(self, nodes: I64, degrees: npt.NDArray[np.float64]) -> F32:
        keys = node_keys([self.ids[int(i)] for i in nodes])
        return initial_vectors(keys, degrees, self.config)

    def without(self, view: Without) -> Changed:
        """The updated embeddings of every node whose embedding changes without the view's
        absent works (the absent works themselves are not among them)."""
        dim = self.config.embedding_dimension
        if view.empty:
            return Changed(np.zeros(0, np.int64), np.zeros((0, dim), np.float32))
        at = self.transposed  # row m: the nodes n with A[n, m] (who averages m's vector)
        n_all = len(self.ids)
        absent = view.nodes
        mask = view.mask
        # degrees without the absent works (relationships counted, as FastRP's adjacency)
        touch = at[absent]
        lost = np.bincount(touch.indices, weights=touch.data, minlength=n_all)
        near = np.flatnonzero(lost > 0)
        near = near[~mask[near]]
        new_deg = self.degrees.copy()
        new_deg[near] -= lost[near]
        # Δ^0: the absent works' random vectors leave; with normalizationStrength ≠ 0 the
        # works whose degree changed draw theirs again
        support = absent
        delta = -self._random_vectors(absent, self.degrees[absent])
        if self.config.normalization_strength and near.size:
            old = self._random_vectors(near, self.degrees[near])
            new = self._random_vectors(near, new_deg[near])
            support = np.concatenate([support, near])
            delta = np.vstack([delta, new - old])
        per_level: list[tuple[I64, F32]] = []  # (C_i, e'^i of C_i) per level
        nodes = np.zeros(0, np.int64)
        for level in range(len(self.levels)):
            into = at[support]  # (support x n): A[n, m] for m in support
            reach = np.unique(into.indices)
            nodes = np.union1d(nodes, reach[~mask[reach]])  # C_i ⊇ C_{i-1}
            full = np.asarray(self.levels[level][nodes], np.float32)
            inflow = np.asarray(sp.csr_matrix(into.T)[nodes] @ delta, np.float64)
            deg_new = new_deg[nodes]
            with np.errstate(divide="ignore", invalid="ignore"):
                raw = (self.degrees[nodes][:, None] * full + inflow) / deg_new[:, None]
            upd: F32 = np.where(deg_new[:, None] > 0, raw, 0.0).astype(np.float32)
            per_level.append((nodes, upd))
            # the next level's Δ: the absent works leave with their vectors of this level
            support = np.concatenate([absent, nodes])
            delta = np.vstack(
                [-np.asarray(self.levels[level][absent], np.float32), upd - full]
            ).astype(np.float32)
        # the embedding of every changed node: levels it was not changed at stay as they were
        emb = np.zeros((nodes.size, self.config.embedding_dimension), np.float32)
        for level, w in enumerate(self.weights):
            if not w:
                continue
            rows = np.asarray(self.levels[level][nodes], np.float32)
            level_nodes, upd = per_level[level]
            rows[np.searchsorted(nodes, level_nodes)] = upd
            emb += np.float32(w) * _normalized(rows)
        return Changed(nodes, emb)

    # -- scoring ----------------------------------------------------------------------------

    def embeddings_of(self, nodes: Sequence[int], changed: Changed | None = None) -> F32:
        """The embeddings of ``nodes`` (updated ones from ``changed``)."""
        idx = np.asarray(nodes, np.int64)
        out = np.zeros((idx.size, self.config.embedding_dimension), np.float32)
        for level, w in enumerate(self.weights):
            if w:
                out += np.float32(w) * _normalized(np.asarray(self.levels[level][idx], np.float32))
        if changed is not None and changed.nodes.size:
            where = changed.as_map()
            for row, n in enumerate(idx.tolist()):
                if n in where:
                    out[row] = changed.embeddings[where[n]]
        return out

    def cosines(self, query: F32, changed: Changed | None = None) -> npt.NDArray[np.float64]:
        """Cosine of every node's embedding with ``query`` (any length); nodes without an
        embedding (no neighbour) score 0."""
        q = np.asarray(query, np.float64)
        qn = float(np.linalg.norm(q))
        n = len(self.ids)
        if qn == 0:
            return np.zeros(n)
        q32 = (q / qn).astype(np.float32)
        dot = np.zeros(n, np.float64)
        for level, w in enumerate(self.weights):
            if not w:
                continue
            norm = self.level_norms[level].astype(np.float64)
            part = np.asarray(self.levels[level] @ q32, np.float64)
            dot += w * np.divide(part, norm, out=np.zeros(n), where=norm > 0)
        en = self.emb_norms.astype(np.float64)
        cos = np.divide(dot, en, out=np.zeros(n), where=en > 0)
        if changed is not None and changed.nodes.size:
            emb = changed.embeddings.astype(np.float64)
            norms = np.linalg.norm(emb, axis=1)
            cos[changed.nodes] = np.divide(
                emb @ (q / qn), norms, out=np.zeros(norms.size), where=norms > 0
            )
        return cos
