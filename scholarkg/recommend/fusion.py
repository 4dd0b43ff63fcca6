"""The recommender's inputs and how they are fused (what a fit chooses and stores)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.benchmark.rankers.fusion import fuse
from scholarkg.recommend.signals import GRAPH_SIGNALS

TEXT_INPUTS = ("bm25", "dense")
INPUTS = (*TEXT_INPUTS, *GRAPH_SIGNALS)

__all__ = ["INPUTS", "TEXT_INPUTS", "Fusion"]


@dataclass(frozen=True)
class Fusion:
    """How the inputs are fused: RRF (constant ``k``) of ``inputs``, or CombSUM of their
    min-max normalised scores with ``weights`` (one per input)."""

    method: str = "rrf"
    inputs: tuple[str, ...] = INPUTS
    weights: tuple[float, ...] | None = None
    k: int = 60

    def used(self) -> tuple[str, ...]:
        """The inputs that count (a CombSUM weight of 0 does not)."""
        if self.method == "combsum" and self.weights is not None:
            return tuple(n for n, w in zip(self.inputs, self.weights, strict=True) if w > 0)
        return self.inputs

    def fuse(self, parts: Mapping[str, Ranking], depth: int) -> Ranking:
        names = [n for n in self.used() if n in parts]
        rankings = [parts[n] for n in names]
        if not rankings or not any(r.ids for r in rankings):
            return Ranking([], [], "fused")
        if self.method == "combsum" and self.weights is not None:
            w = dict(zip(self.inputs, self.weights, strict=True))
            return fuse(rankings, "combsum", depth=depth, weights=[w[n] for n in names])
        return fuse(rankings, "rrf", depth=depth, k=self.k)

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "inputs": list(self.inputs),
            "weights": None if self.weights is None else list(self.weights),
            "k": self.k,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Fusion:
        w = d.get("weights")
        return cls(
            method=str(d["method"]),
            inputs=tuple(d["inputs"]),
            weights=None if w is None else tuple(float(x) for x in w),
            k=int(d.get("k") or 60),
        )

    def describe(self) -> str:
        if self.method == "combsum" and self.weights is not None:
            parts = [f"{n} {w:g}" for n, w in zip(self.inputs, self.weights, strict=True) if w]
            return "CombSUM (" + ", ".join(parts) + ")"
        return f"RRF k={self.k} of " + ", ".join(self.inputs)
