"""The half-widths of the BBU intervals refuse sizes, variances and group shares they cannot
use (a ValueError naming the value), instead of returning inf or NaN; good input still
gives the published formulas."""

import math

import numpy as np
import pytest

from embias.classifier import bernstein_half_width, hoeffding_half_width


@pytest.mark.parametrize("n", [0, -5, float("nan"), [100, 0]])
def test_bernstein_half_width_refuses_a_size_that_is_not_positive(n):
    with pytest.raises(ValueError, match=r"n must be a positive finite number, got"):
        bernstein_half_width(n, sigma2=1.0)


@pytest.mark.parametrize("n", [0, -5, [100, -1]])
def test_hoeffding_half_width_refuses_a_size_that_is_not_positive(n):
    with pytest.raises(ValueError, match=r"n must be a positive finite number, got"):
        hoeffding_half_width(n)


@pytest.mark.parametrize("sigma2", [-1.0, float("inf"), [1.0, -0.5]])
def test_bernstein_half_width_refuses_a_negative_or_infinite_variance(sigma2):
    with pytest.raises(ValueError, match=r"sigma2 must be a finite number ≥ 0, got"):
        bernstein_half_width(100, sigma2=sigma2)


@pytest.mark.parametrize("gamma", [0, 0.6, 2.0, [0.5, 0.0]])
def test_half_widths_refuse_a_group_share_outside_zero_to_one_half(gamma):
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 0.5\].*smaller group's share"):
        bernstein_half_width(100, sigma2=1.0, gamma=gamma)
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 0.5\].*smaller group's share"):
        hoeffding_half_width(100, gamma=gamma)


def test_half_widths_of_good_input_follow_the_published_formulas():
    # Ethayarajh (2020), eq. 3 and the Hoeffding bound, written out with L = -log((1-ρ)/2)
    big_l = -math.log((1 - 0.95) / 2)
    n = np.array([100, 400])
    sigma2 = np.array([1.0, 2.5])
    gamma = np.array([0.5, 0.25])
    b = 2 * 1.0 * big_l / (3 * gamma)
    expected = (b + np.sqrt(b**2 + 8 * n * sigma2 * big_l)) / (2 * n)
    got = bernstein_half_width(n, sigma2=sigma2, ci_prob=0.95, gamma=gamma)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(hoeffding_half_width(n, ci_prob=0.95, gamma=gamma),
                               (2 / gamma) * np.sqrt(big_l / (2 * n)), rtol=1e-12)
    assert bernstein_half_width(100.0, sigma2=0.0) == pytest.approx(
        2 * 2 * -math.log(0.055) / (3 * 0.5) / 200, rel=1e-12)
