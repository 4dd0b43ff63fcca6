"""Bootstrap CIs and paired tests: hand-computed tiny cases and scipy cross-checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from scholarkg.benchmark.metrics.stats import bootstrap_ci, paired_test
from scholarkg.errors import InputError


def _scipy_paired_p(a: np.ndarray, b: np.ndarray, n_resamples: float, seed: int = 1) -> float:
    res = sps.permutation_test(
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue)


def test_randomization_exact_hand_computed() -> None:
    # diffs 1, 2, 3: signed sums over 8 flips are ±6, ±4, ±2, 0, 0; |sum| >= 6 twice -> 2/8.
    res = paired_test([0, 0, 0], [1, 2, 3])
    assert res.exact
    assert res.n == 3
    assert res.mean_a == 0 and res.mean_b == 2 and res.delta == 2
    assert res.p_value == pytest.approx(0.25)
    # four equal diffs: only all-plus and all-minus reach |sum| = 4 -> 2/16.
    assert paired_test([0] * 4, [1] * 4).p_value == pytest.approx(0.125)
    # diffs +1, -1: observed mean 0, every flip is at least as extreme -> p = 1.
    assert paired_test([0, 1], [1, 0]).p_value == pytest.approx(1.0)


def test_identical_runs_and_sign_of_delta() -> None:
    same = paired_test([0.2, 0.4, 0.9], [0.2, 0.4, 0.9], method="bootstrap")
    assert same.p_value == 1.0 and same.delta == 0
    worse = paired_test([1, 1, 1], [0, 0, 0])
    assert worse.delta == -1


def test_nan_pairs_dropped() -> None:
    res = paired_test([1.0, float("nan"), 0.0, None], [2.0, 5.0, float("nan"), 3.0])
    assert res.n == 1
    assert (res.mean_a, res.mean_b, res.delta) == (1.0, 2.0, 1.0)
    # one pair with diff 1: flips give +1 / -1, both as extreme -> p = 1
    assert res.p_value == 1.0
    empty = paired_test([float("nan")], [1.0])
    assert empty.n == 0 and math.isnan(empty.p_value) and math.isnan(empty.delta)


def test_bootstrap_hand_computed() -> None:
    # diffs 1 and 3: centred -1, +1; resampled means are -1, 0 or +1, never >= 2 in
    # absolute value, so only the +1 of the (hits + 1) / (B + 1) formula remains.
    res = paired_test([0, 0], [1, 3], method="bootstrap", n_resamples=999)
    assert res.p_value == pytest.approx(1 / 1000)
    # diffs 0 and 2: centred -1, +1; |mean*| >= 1 exactly when both draws agree: P = 1/2.
    res = paired_test([0, 0], [0, 2], method="bootstrap", n_resamples=20_000)
    assert res.p_value == pytest.approx(0.5, abs=0.015)


@pytest.mark.parametrize("n", [2, 5, 9, 12])
def test_randomization_matches_scipy_exact(n: int) -> None:
    rng = np.random.default_rng(n)
    a = rng.random(n)
    b = a + rng.normal(0.1, 0.3, n)
    ours = paired_test(a, b)
    assert ours.exact
    assert ours.p_value == pytest.approx(_scipy_paired_p(a, b, np.inf), abs=1e-12)


def test_randomization_monte_carlo_close_to_scipy() -> None:
    rng = np.random.default_rng(42)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.3, 40)
    ours = paired_test(a, b, n_resamples=20_000, seed=3)
    assert not ours.exact
    ref = _scipy_paired_p(a, b, 20_000)
    assert 0.01 < ref < 0.99  # a non-trivial case
    assert ours.p_value == pytest.approx(ref, abs=0.015)
    # seeded: same seed, same p
    assert paired_test(a, b, n_resamples=20_000, seed=3).p_value == ours.p_value


def test_bootstrap_and_randomization_agree_on_clear_effect() -> None:
    rng = np.random.default_rng(7)
    a = rng.random(100)
    b = a + 0.2 + rng.normal(0, 0.05, 100)
    assert paired_test(a, b, n_resamples=2000).p_value < 0.001
    assert paired_test(a, b, method="bootstrap", n_resamples=2000).p_value < 0.001


def test_paired_input_errors() -> None:
    with pytest.raises(InputError, match="length"):
        paired_test([1, 2], [1])
    with pytest.raises(InputError, match="method"):
        paired_test([1], [1], method="t-test")  # type: ignore[arg-type]  # the wrong value is the test


def test_bootstrap_ci_hand_computed() -> None:
    # two values 0 and 1: resample means are 0 (1/4), 0.5 (1/2), 1 (1/4) -> 95% CI (0, 1)
    assert bootstrap_ci([0.0, 1.0], n_resamples=4000) == (0.0, 1.0)
    assert bootstrap_ci([0.3]) == (0.3, 0.3)
    assert bootstrap_ci([0.5, 0.5, None, float("nan")]) == (0.5, 0.5)
    low, high = bootstrap_ci([])
    assert math.isnan(low) and math.isnan(high)
    with pytest.raises(InputError, match="confidence"):
        bootstrap_ci([1.0, 2.0], confidence=1.5)


def test_bootstrap_ci_matches_scipy_percentile() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(0.4, 0.2, 60)
    ours = bootstrap_ci(values, n_resamples=20_000, seed=1)
    ref = sps.bootstrap(
        (values,), np.mean, method="percentile", n_resamples=20_000, rng=np.random.default_rng(2)
    ).confidence_interval
    assert ours[0] == pytest.approx(ref.low, abs=0.006)
    assert ours[1] == pytest.approx(ref.high, abs=0.006)
    assert ours[0] < values.mean() < ours[1]
    assert bootstrap_ci(values, seed=5) == bootstrap_ci(values, seed=5)
