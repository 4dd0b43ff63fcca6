"""Uncertainty and significance for per-query scores: bootstrap CIs and paired tests.

Benchmark tables report means over queries; with 60-400 queries those means move by whole
points between resamples (DORIS-MAE prints ± bootstrap standard errors for that reason), so
every report carries a confidence interval and every run comparison a paired test.

All functions are pure numpy (no store, no loaders) and seeded, so a report regenerated from
the same run files prints the same intervals and p-values.

NaN handling: a per-query value may be undefined (e.g. Kendall τ for a one-item list,
recall for a query without relevant documents). Such values are *dropped*: from the sample
in :func:`bootstrap_ci`, and pairwise (the whole pair) in :func:`paired_test`, because a
paired test needs both runs' scores for the same query. ``None`` is treated as NaN, since run
files store NaN as JSON ``null``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from scholarkg.errors import InputError

__all__ = ["PairedTestResult", "bootstrap_ci", "paired_test"]

#: Sign-flip distributions are enumerated exactly up to this many pairs (2**12 = 4096 rows).
EXACT_MAX_N = 12
#: Upper bound on resample-matrix cells held at once, so 100k-query runs stay in memory.
_BLOCK_CELLS = 2_000_000

Method = Literal["randomization", "bootstrap"]


@dataclass(frozen=True)
class PairedTestResult:
    """Outcome of comparing run ``b`` against run ``a`` on the same queries.

    ``delta`` is ``mean_b - mean_a`` (positive: ``b`` scores higher). ``n`` counts the pairs
    used after NaN pairs were dropped; ``exact`` says the p-value came from full enumeration.
    """

    mean_a: float
    mean_b: float
    delta: float
    p_value: float
    method: str
    n: int
    exact: bool = False


def _as_float_array(values: Iterable[float | None], field: str) -> np.ndarray:
    try:
        return np.asarray([np.nan if v is None else v for v in values], dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"values must be numbers or None: {err}", field=field) from err


def _resampled_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap samples (with replacement), computed in blocks."""
    n = values.size
    block = max(1, _BLOCK_CELLS // max(n, 1))
    out = np.empty(n_resamples, dtype=float)
    for start in range(0, n_resamples, block):
        stop = min(start + block, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = values[idx].mean(axis=1)
    return out


def bootstrap_ci(
    values: Iterable[float | None],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of the mean (queries resampled with replacement).

    NaN/None values are dropped first. Returns ``(nan, nan)`` for an empty sample and
    ``(x, x)`` for a single value or a constant sample (every resample has the same mean).

    We deliberately do not call ``scipy.stats.bootstrap``: it raises for one-element samples,
    warns and returns NaN for degenerate (constant) samples, and materialises the whole
    resample matrix. The percentile interval computed here is the same estimator (checked
    against scipy in ``tests/metrics/test_stats.py``).
    """
    if not 0.0 < confidence < 1.0:
        raise InputError(f"confidence must be in (0, 1), got {confidence}", field="confidence")
    if n_resamples < 1:
        raise InputError(f"n_resamples must be >= 1, got {n_resamples}", field="n_resamples")
    arr = _as_float_array(values, "values")
    arr = arr[np.isfinite(arr)]
    if arr.size == 0:
        return (float("nan"), float("nan"))
    if arr.size == 1 or np.all(arr == arr[0]):
        return (float(arr[0]), float(arr[0]))
    rng = np.random.default_rng(seed)
    means = _resampled_means(arr, n_resamples, rng)
    alpha = 1.0 - confidence
    low, high = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return (float(low), float(high))


def _tolerance(observed: float) -> float:
    # Relative slack so that a resampled statistic equal to the observed one up to float
    # rounding counts as "at least as extreme" (scipy.stats.permutation_test does the same).
    return 1e-12 * max(1.0, abs(observed))


def _randomization_p(
    diffs: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> tuple[float, bool]:
    """Two-sided sign-flip test of mean(diffs) = 0; exact enumeration for small n.

    Under H0 each pair's difference is equally likely to have either sign, so the null
    distribution of the mean is obtained by flipping signs. p = P(|T*| >= |T_obs|).
    Exact: over all 2**n sign vectors. Monte Carlo: (hits + 1) / (B + 1), which counts the
    observed assignment and never returns 0.
    """
    n = diffs.size
    observed = abs(float(diffs.mean()))
    tol = _tolerance(observed)
    if n <= EXACT_MAX_N:
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        signs = 1.0 - 2.0 * bits
        stats = np.abs((signs * diffs).mean(axis=1))
        return float(np.mean(stats >= observed - tol)), True
    hits = 0
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, n))
        stats = np.abs((signs * diffs).mean(axis=1))
        hits += int(np.count_nonzero(stats >= observed - tol))
    return (hits + 1) / (n_resamples + 1), False


def _bootstrap_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    """Paired bootstrap test (Efron & Tibshirani 1993, alg. 16.2; Sakai 2006 for IR).

    The differences are shifted to mean 0 (imposing H0), resampled with replacement, and
    p = (#{|mean*| >= |mean_obs|} + 1) / (B + 1).
    """
    observed = abs(float(diffs.mean()))
    centred = diffs - diffs.mean()
    means = np.abs(_resampled_means(centred, n_resamples, rng))
    hits = int(np.count_nonzero(means >= observed - _tolerance(observed)))
    return (hits + 1) / (n_resamples + 1)


def paired_test(
    a: Iterable[float | None],
    b: Iterable[float | None],
    *,
    method: Method = "randomization",
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedTestResult:
    """Two-sided paired significance test of mean(b) vs mean(a) over the same queries.

    ``a[i]`` and ``b[i]`` must be the two runs' scores for query ``i``. Pairs where either
    value is NaN/None are dropped (see the module docstring); means and ``delta`` are taken
    over the remaining pairs. ``method="randomization"`` is the paired sign-flip
    (permutation) test, exact for n <= 12; ``method="bootstrap"`` the shifted paired
    bootstrap. With no pairs left every number is NaN; identical runs give p = 1.
    """
    if method not in ("randomization", "bootstrap"):
        raise InputError(
            f"unknown test method {method!r}; choose randomization or bootstrap", field="method"
        )
    if n_resamples < 1:
        raise InputError(f"n_resamples must be >= 1, got {n_resamples}", field="n_resamples")
    xa = _as_float_array(a, "a")
    xb = _as_float_array(b, "b")
    if xa.shape != xb.shape:
        raise InputError(f"paired samples differ in length: {xa.size} vs {xb.size}", field="b")
    keep = np.isfinite(xa) & np.isfinite(xb)
    xa, xb = xa[keep], xb[keep]
    n = int(xa.size)
    if n == 0:
        nan = float("nan")
        return PairedTestResult(nan, nan, nan, nan, method, 0)
    mean_a, mean_b = float(xa.mean()), float(xb.mean())
    diffs = xb - xa
    exact = False
    if np.all(diffs == 0):
        p = 1.0
        exact = True
    elif method == "randomization":
        p, exact = _randomization_p(diffs, n_resamples, np.random.default_rng(seed))
    else:
        p = _bootstrap_p(diffs, n_resamples, np.random.default_rng(seed))
    return PairedTestResult(mean_a, mean_b, mean_b - mean_a, min(1.0, p), method, n, exact)
