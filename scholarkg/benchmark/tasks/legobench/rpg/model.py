"""RPG's learned model: the logistic pairwise model, its order aggregation, its fit, and the
stored coefficients (a JSON data file with its training provenance).

``P(a ≻ b) = σ(Σ coef_k · φ_k(a, b) / scale_k)`` over the antisymmetric features
:data:`~.features.PAIR_FEATURES`, L2-regularised, no intercept. The order is the Borda
count of the pairwise probabilities (the maximum-likelihood Kemeny order is NP-hard; Borda is
its standard 5-approximation and exact when the pairwise model is transitive, which a model
linear in node differences nearly is), then adjacent swaps where the pairwise odds disagree.

The stored models (``models/rpg_pairwise.json``) were fitted by
:func:`~.training.fit_synthetic` — ``scholarkg bench fit legobench-rpg`` — on the dev
split of the seeded synthetic world; the file says how, and
``tests/legobench/test_rpg_training.py`` re-fits and compares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from scholarkg.benchmark.tasks.legobench.rpg.features import CONTEXT_FEATURES, PAIR_FEATURES
from scholarkg.errors import InputError

#: the stored models, beside this module
STORED_MODELS = "models/rpg_pairwise.json"
#: model sets in the file: fitted without / with Papers with Code Results in the graph
MODEL_SETS = ("graph_only", "with_context")


@dataclass(frozen=True)
class PairwiseModel:
    """Logistic pairwise model: ``P(a ≻ b) = σ(Σ coef_k · φ_k(a, b) / scale_k)``.

    ``scale`` is each feature's root-mean-square on the dev pairs (no centring: centring would
    break antisymmetry); ``coef`` is on the standardised features, so coefficients compare.
    """

    coef: tuple[float, ...]
    scale: tuple[float, ...]
    l2: float = 1.0
    hybrid_k: int = 100
    features: tuple[str, ...] = PAIR_FEATURES
    fit_info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [f for f in self.features if f not in PAIR_FEATURES]
        if unknown:
            raise InputError(f"unknown pairwise features {unknown}", field="features")
        if not (len(self.coef) == len(self.scale) == len(self.features)):
            raise InputError("coef, scale and features must align", field="coef")
        if self.hybrid_k < 0:
            raise InputError("hybrid_k must be >= 0", field="hybrid_k")

    @property
    def weights(self) -> np.ndarray:
        """Weights on the raw features (coef / scale), in :data:`PAIR_FEATURES` order."""
        w = np.zeros(len(PAIR_FEATURES))
        for name, c, s in zip(self.features, self.coef, self.scale, strict=True):
            w[PAIR_FEATURES.index(name)] = c / s
        return w

    @property
    def uses_context(self) -> bool:
        return any(
            c != 0.0 for n, c in zip(self.features, self.coef, strict=True) if n in CONTEXT_FEATURES
        )

    def to_params(self) -> dict[str, Any]:
        return {
            "model": "logistic-pairwise",
            "features": list(self.features),
            "coef": [round(float(c), 6) for c in self.coef],
            "scale": [round(float(s), 6) for s in self.scale],
            "l2": self.l2,
            "hybrid_k": self.hybrid_k,
            **({"fit": dict(self.fit_info)} if self.fit_info else {}),
        }

    @classmethod
    def from_params(cls, p: Mapping[str, Any]) -> PairwiseModel:
        try:
            feats = tuple(p.get("features", PAIR_FEATURES))
            return cls(
                coef=tuple(float(c) for c in p["coef"]),
                scale=tuple(float(s) for s in p.get("scale", [1.0] * len(feats))),
                l2=float(p.get("l2", 1.0)),
                hybrid_k=int(p.get("hybrid_k", 100)),
                features=feats,
                fit_info=dict(p.get("fit", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"bad pairwise model parameters: {exc}", field="params") from None


def aggregate_order(ids: Sequence[str], years: np.ndarray, logit: np.ndarray) -> list[str]:
    """Borda count of pairwise probabilities, then adjacent swaps (see module docstring)."""
    n = len(ids)
    if n == 0:
        return []
    prob = 1.0 / (1.0 + np.exp(-np.clip(logit, -50, 50)))
    np.fill_diagonal(prob, 0.0)
    score = prob.sum(axis=1)
    order = sorted(range(n), key=lambda i: (-score[i], -years[i], ids[i]))
    for _ in range(n):  # bubble passes: adjacent pairs must agree with their pairwise odds
        swapped = False
        for k in range(n - 1):
            a, b = order[k], order[k + 1]
            if logit[b, a] > logit[a, b]:
                order[k], order[k + 1] = b, a
                swapped = True
        if not swapped:
            break
    return [ids[i] for i in order]


def _log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Mean logistic loss + (l2 / 2)·|w|² and its gradient (labels y ∈ {0, 1})."""
    z = x @ w
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * float(w @ w)
    p = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
    grad = x.T @ (p - y) / len(y) + l2 * w
    return float(loss), grad


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """L2-regularised logistic regression without intercept (L-BFGS on the exact gradient).

    scikit-learn is deliberately not used: it is not a dependency, and this convex problem
    (a few thousand rows, nine columns) is a dozen lines with scipy.
    """
    from scipy.optimize import minimize

    if len(y) == 0:
        return np.zeros(x.shape[1])
    res = minimize(
        _log_loss, np.zeros(x.shape[1]), args=(x, y, l2), jac=True, method="L-BFGS-B",
        options={"maxiter": 500},
    )  # fmt: skip
    return np.asarray(res.x)


@cache
def stored_models() -> dict[str, Any]:
    """The stored-models document (``models/rpg_pairwise.json``), read once."""
    # the models live with the family (``legobench/models/``), one level above this package
    family = __package__.rpartition(".")[0]
    text = resources.files(family).joinpath(STORED_MODELS).read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    for name in MODEL_SETS:
        if name not in doc:
            raise InputError(f"stored RPG models lack the {name!r} set", path=STORED_MODELS)
    return doc


def stored_params(config_name: str, *, context: bool) -> dict[str, Any]:
    """The stored :meth:`PairwiseModel.to_params` dict of one configuration (a copy)."""
    table = stored_models()["with_context" if context else "graph_only"]
    if config_name not in table:
        raise InputError(
            f"no stored coefficients for configuration {config_name!r}; run with --tune",
            field="config",
        )
    params: dict[str, Any] = json.loads(json.dumps(table[config_name]))
    return params


#: ``{configuration: params}`` of the stored models without / with leaderboard context
#: (read from the JSON file; kept as mappings for callers that list or compare them)
OURS_DEFAULTS: dict[str, dict[str, Any]] = dict(stored_models()["graph_only"])
OURS_DEFAULTS_CONTEXT: dict[str, dict[str, Any]] = dict(stored_models()["with_context"])
