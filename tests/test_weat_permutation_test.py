"""WEAT's permutation test on s values (``embias.classic.weat_permutation_test``, the test
:func:`embias.weat` reports) against a hand enumeration of every re-partition of X ∪ Y."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from embias.classic import weat_permutation_test


def _enumerated(s: np.ndarray, n_x: int) -> tuple[float, float, np.ndarray]:
    """Statistic, two-sided p-value (about the null mean, the observed partition counted)
    and null effect sizes (sample sd), by listing every partition."""
    stat = s[:n_x].sum() - s[n_x:].sum()
    nulls, effects = [], []
    for xs in itertools.combinations(range(s.size), n_x):
        mask = np.zeros(s.size, bool)
        mask[list(xs)] = True
        nulls.append(s[mask].sum() - s[~mask].sum())
        effects.append((s[mask].mean() - s[~mask].mean()) / s.std(ddof=1))
    nulls = np.array(nulls)
    centre = nulls.mean()
    p = np.mean(np.abs(nulls - centre) >= abs(stat - centre) - 1e-9)
    return float(stat), float(p), np.array(effects)


@pytest.mark.parametrize("n_x", [3, 4])
def test_exact_test_equals_the_enumeration_of_every_partition(n_x: int) -> None:
    s = np.array([0.31, 0.12, 0.25, -0.05, 0.02, -0.11, 0.07, -0.2])[: 2 * n_x + 1]
    test = weat_permutation_test(s, n_x, rng=np.random.default_rng(0))
    stat, p, effects = _enumerated(s, n_x)
    assert test.exact and test.p_value_se == 0.0
    assert test.statistic == pytest.approx(stat, abs=1e-12)
    assert test.p_value == pytest.approx(p, abs=1e-12)
    assert test.n_permutations == effects.size
    assert np.allclose(np.sort(test.null_effect_sizes), np.sort(effects), atol=1e-12)


def test_monte_carlo_p_value_is_within_its_standard_error_of_the_exact_one() -> None:
    s = np.random.default_rng(3).normal(size=16)
    exact = weat_permutation_test(s, 8, rng=np.random.default_rng(0))
    mc = weat_permutation_test(s, 8, permutations=20_000, rng=np.random.default_rng(1))
    assert not mc.exact and mc.n_permutations == 20_000
    # (hits + 1)/(m + 1) is within 4 binomial standard errors of the exact p
    assert abs(mc.p_value - exact.p_value) < 4 * mc.p_value_se + 1 / 20_001
