"""One interval probability across embias (``embias.settings.DEFAULT_CI_PROB``, 0.89) on
the classifier side, in the simulations and in the sentiment study; and the classifier's
arguments checked by the package's one validation module (``embias._validation``)."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from scipy import stats

import embias.classifier as classifier
import embias.simulate as simulate
import embias.studies.sentiment as sentiment
from embias.classifier import bbu as bbu_module
from embias.classifier import (
    bbu_detectable_delta,
    bbu_interval,
    bbu_required_n,
    parity_comparisons,
    parity_posterior,
)
from embias.classifier import parity as parity_module
from embias.settings import DEFAULT_CI_PROB


def test_every_ci_prob_default_is_the_package_default():
    functions = [getattr(m, name) for m in (classifier, simulate, sentiment)
                 for name in getattr(m, "__all__", dir(m)) if callable(getattr(m, name))]
    functions += [parity_module.ParityPosterior.hdi, parity_module.ParityPosterior.decide,
                  parity_module.ParityPosterior.to_interval_table,
                  simulate.WeatDistribution.interval]
    checked = 0
    for fn in functions:
        try:
            parameters = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for name in ("ci_prob", "confidence"):
            if name in parameters and parameters[name].default is not inspect.Parameter.empty:
                assert parameters[name].default == DEFAULT_CI_PROB, (fn, name)
                checked += 1
    assert checked >= 15


def test_bbu_required_n_defaults_to_89_percent_by_hand():
    # eq. (4) at ρ = .89, C = 1, γ = .5, σ² = (C/γ)² = 4, δ = .05
    bound = (2 * 4 + 2 * 0.05 / 1.5) * -math.log((1 - 0.89) / 2) / 0.05**2
    assert bbu_required_n(0.05) == math.floor(bound) + 1 == 9359
    # the paper's figure is one argument away
    assert bbu_required_n(0.05, ci_prob=0.95) == 11903


def test_bbu_interval_reports_its_default_level():
    row = bbu_interval([1, 0, 1, 1, 0, 0, 1, 0], [1, 1, 1, 1, -1, -1, -1, -1]).iloc[0]
    assert row["ci_prob"] == DEFAULT_CI_PROB


def test_parity_hdi_defaults_to_89_percent_against_scipy():
    post = parity_posterior(20, 100, 30, 100)
    row = post.hdi().iloc[0]
    assert row["ci_prob"] == DEFAULT_CI_PROB
    # the HDI holds 89% of the posterior of the difference: Monte Carlo check with scipy's
    # Beta posteriors (se of a share at 2e5 draws: 7e-4)
    rng = np.random.default_rng(0)
    d = (stats.beta(31, 71).rvs(200_000, random_state=rng)
         - stats.beta(21, 81).rvs(200_000, random_state=rng))
    inside = np.mean((d >= row["lower"]) & (d <= row["upper"]))
    assert abs(inside - 0.89) < 4 * math.sqrt(0.89 * 0.11 / 200_000)
    table = parity_comparisons([20, 30, 25], [100, 100, 100])
    assert set(table["ci_prob"]) == {DEFAULT_CI_PROB}


def test_simulated_range_defaults_to_89_percent():
    r = simulate.simulate_weat(n_sims=4000, random_seed=1)
    lo, hi = r.interval
    assert (lo, hi) == pytest.approx(tuple(np.quantile(r.scores, [0.055, 0.945])))


# --------------------------------------------------------------------------- validation
def test_private_copies_of_the_checks_are_gone():
    assert not hasattr(bbu_module, "_check_count")
    assert not hasattr(bbu_module, "_check_open_unit")


@pytest.mark.parametrize("value", [3.0, np.float64(3.0), True, "3"])
def test_counts_must_be_integers(value):
    with pytest.raises(ValueError, match=r"n must be an integer ≥ 1, got "):
        bbu_detectable_delta(value)
    with pytest.raises(ValueError, match=r"x1 must be an integer"):
        parity_posterior(value, 10, 3, 10)


def test_detectable_delta_names_a_bad_count_as_given():
    with pytest.raises(ValueError, match=r"^n must be an integer ≥ 1, got 0$"):
        bbu_detectable_delta([3160, 0])
    assert bbu_detectable_delta(np.array([3160]), ci_prob=0.95)[0] == pytest.approx(
        0.0974, abs=5e-5)


@pytest.mark.parametrize("value", ["0.5", None, 1.0, 0.0, float("nan")])
def test_ci_prob_must_be_a_probability(value):
    with pytest.raises(ValueError, match=r"^ci_prob must be "):
        bbu_required_n(0.05, ci_prob=value)
    with pytest.raises(ValueError, match=r"^ci_prob must be "):
        parity_posterior(2, 10, 3, 10).hdi(value)


def test_other_numbers_refuse_strings():
    with pytest.raises(ValueError, match=r"^max_cost must be a number, got '1'"):
        bbu_required_n(0.05, max_cost="1")
    with pytest.raises(ValueError, match=r"^gamma must be a number, got '0.5' \(a lower bound"):
        bbu_required_n(0.05, gamma="0.5")
    with pytest.raises(ValueError, match=r"^rope must be a number, got '0.1'"):
        parity_posterior(2, 10, 3, 10).decide("0.1")
    with pytest.raises(ValueError, match=r"^prior must be a pair"):
        parity_posterior(2, 10, 3, 10, prior=("1", 1))
