"""Bayesian parity tests: the blog post's figures, exact answers, coverage.

Published numbers come from Ambiata, "How to detect algorithmic bias in production"
(blog post): the three scenarios (20/100 vs 30/100, 40/80 vs 20/40, 400/1000 vs
600/1000), the C code for the posterior variance, and the monitoring experiment
(N = 100 / 1,000 / 10,000, threshold 10%, confidence 90%).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

from embias.classifier import (
    ParityPosterior,
    parity_comparisons,
    parity_hdi_coverage,
    parity_posterior,
    simulate_detection,
)
from embias.report import validate_interval_table

# --------------------------------------------------------------------------------------
# the blog's three scenarios
# --------------------------------------------------------------------------------------


def test_scenario_1_twenty_vs_thirty_of_100():
    post = parity_posterior(20, 100, 30, 100)
    # "an average value of 9.8% bias": exactly 31/102 − 21/102
    assert post.mean == pytest.approx(10 / 102, abs=1e-15)
    assert round(post.mean, 4) == 0.0980
    # P(|d| > .1) = .488 (DESIGN §7 check; the post: "half … outside the threshold")
    assert post.prob_exceeds(0.1) == pytest.approx(0.488, abs=5e-4)


def test_scenario_2_forty_of_80_vs_twenty_of_40():
    post = parity_posterior(40, 80, 20, 40)
    # "29% of the probability density lies outside … 71% confidence … less than 10%"
    assert post.mean == 0.0
    assert post.prob_exceeds(0.1) == pytest.approx(0.29, abs=5e-3)
    assert post.prob_exceeds(0.1) == pytest.approx(0.290, abs=5e-4)
    assert post.prob_inside(0.1) == pytest.approx(0.71, abs=5e-3)


def test_scenario_3_four_hundred_vs_six_hundred_of_1000():
    post = parity_posterior(400, 1000, 600, 1000)
    # DESIGN §7: P(inside) ≈ 3.3e-6 ("5 nines" of confidence in more than 10% bias)
    inside = post.prob_inside(0.1)
    assert inside == pytest.approx(3.3e-6, abs=0.05e-6)
    # the two routes (direct band integral and the two tails) agree to 1e-9 absolute
    assert inside + post.prob_exceeds(0.1) == pytest.approx(1.0, abs=1e-9)
    # "the mean bias is the same as the observed bias" (to 4e-4)
    assert post.mean == pytest.approx(0.2, abs=4e-4)


def _blog_variance(x1: float, n1: float, x2: float, n2: float) -> float:
    """The blog post's C code for the variance of e₂ − e₁, transcribed term by term."""
    m = (n1 - n2 - 2 * x1 - n2 * x1 + 2 * x2 + n1 * x2) / ((2 + n1) * (2 + n2))
    ms, n1s, n2s, x1s, x2s = m * m, n1 * n1, n2 * n2, x1 * x1, x2 * x2
    var = (6 + 36 * ms + 4 * n1 - 18 * m * n1 + 30 * ms * n1 + 2 * n1s - 6 * m * n1s
           + 6 * ms * n1s + 4 * n2 + 18 * m * n2 + 30 * ms * n2 - 2 * n1 * n2
           + 25 * ms * n1 * n2 - 2 * m * n1s * n2 + 5 * ms * n1s * n2 + 2 * n2s + 6 * m * n2s
           + 6 * ms * n2s + 2 * m * n1 * n2s + 5 * ms * n1 * n2s + ms * n1s * n2s + 36 * m * x1
           - 6 * n1 * x1 + 12 * m * n1 * x1 + 9 * n2 * x1 + 30 * m * n2 * x1 - 2 * n1 * n2 * x1
           + 10 * m * n1 * n2 * x1 + 3 * n2s * x1 + 6 * m * n2s * x1 + 2 * m * n1 * n2s * x1
           + 6 * x1s + 5 * n2 * x1s + n2s * x1s - 36 * m * x2 + 9 * n1 * x2 - 30 * m * n1 * x2
           + 3 * n1s * x2 - 6 * m * n1s * x2 - 6 * n2 * x2 - 12 * m * n2 * x2 - 2 * n1 * n2 * x2
           - 10 * m * n1 * n2 * x2 - 2 * m * n1s * n2 * x2 - 18 * x1 * x2 - 6 * n1 * x1 * x2
           - 6 * n2 * x1 * x2 - 2 * n1 * n2 * x1 * x2 + 6 * x2s + 5 * n1 * x2s + n1s * x2s
           ) / ((2 + n1) * (3 + n1) * (2 + n2) * (3 + n2))
    return var


@pytest.mark.parametrize("counts", [(20, 100, 30, 100), (40, 80, 20, 40),
                                    (400, 1000, 600, 1000), (0, 7, 7, 7), (25, 100, 20, 110)])
def test_closed_forms_match_the_blogs_formulas(counts):
    x1, n1, x2, n2 = counts
    post = parity_posterior(*counts)
    blog_mean = (n1 * x2 - n2 * x1 + n1 - n2 - 2 * x1 + 2 * x2) / ((n1 + 2) * (n2 + 2))
    assert post.mean == pytest.approx(blog_mean, rel=1e-12, abs=1e-15)
    assert post.variance == pytest.approx(_blog_variance(*map(float, counts)), rel=1e-9)


# --------------------------------------------------------------------------------------
# exact answers for the quadrature
# --------------------------------------------------------------------------------------


def _prob_b_beats_a(a_a: int, b_a: int, a_b: int, b_b: int) -> float:
    """Exact P(p_B > p_A) for integer Beta parameters (Evan Miller's closed form)."""
    total = 0.0
    for i in range(a_b):
        total += math.exp(special.betaln(a_a + i, b_a + b_b) - math.log(b_b + i)
                          - special.betaln(1 + i, b_b) - special.betaln(a_a, b_a))
    return total


@pytest.mark.parametrize("counts", [(20, 100, 30, 100), (3, 10, 5, 12), (40, 80, 20, 40)])
def test_prob_greater_than_zero_is_exact(counts):
    x1, n1, x2, n2 = counts
    post = parity_posterior(*counts)
    exact = _prob_b_beats_a(x1 + 1, n1 - x1 + 1, x2 + 1, n2 - x2 + 1)
    assert post.prob_exceeds(0.0, side="greater") == pytest.approx(exact, abs=1e-9)
    assert float(post.cdf(0.0)) == pytest.approx(1 - exact, abs=1e-9)


def test_uniform_priors_without_data_give_the_triangle():
    # e₁, e₂ ~ U(0, 1): d has density 1 − |d| on [−1, 1] (exact answers throughout)
    post = ParityPosterior(0, 0, 0, 0)
    assert post.mean == 0.0 and post.variance == pytest.approx(1 / 6)
    assert post.pdf(0.5) == pytest.approx(0.5, abs=1e-9)
    assert post.cdf(-0.5) == pytest.approx(0.125, abs=1e-9)
    assert post.prob_exceeds(0.5) == pytest.approx(0.25, abs=1e-9)
    assert post.prob_exceeds(0.5, side="greater") == pytest.approx(0.125, abs=1e-9)
    # 95% HDI: [−a, a] with 1 − (1 − a)² = .95 ⇒ a = 1 − √.05
    hdi = post.hdi(0.95).iloc[0]
    a = 1 - math.sqrt(0.05)
    assert (hdi["lower"], hdi["upper"]) == pytest.approx((-a, a), abs=1e-5)


def test_hdi_has_its_mass_and_equal_end_densities():
    post = parity_posterior(20, 100, 30, 100)
    row = post.hdi(0.95).iloc[0]
    validate_interval_table(post.hdi(0.95))
    lo, hi = row["lower"], row["upper"]
    # checked against the independent quadrature routes (cdf, pdf), not the grid
    assert post.cdf(hi) - post.cdf(lo) == pytest.approx(0.95, abs=1e-5)
    p_lo, p_hi = post.pdf([lo, hi])
    assert p_lo == pytest.approx(p_hi, rel=1e-4)
    # and against 2,000,000 seeded posterior draws (shortest-interval estimate, ±2e-3)
    rng = np.random.default_rng(0)
    d = np.sort(rng.beta(31, 71, 2_000_000) - rng.beta(21, 81, 2_000_000))
    k = int(0.95 * d.size)
    i = int(np.argmin(d[k:] - d[: d.size - k]))
    assert (lo, hi) == pytest.approx((d[i], d[i + k]), abs=2e-3)
    assert row["ci_kind"] == "hdi" and row["group"] == "group 2 − group 1"


def test_pdf_integrates_to_one_and_matches_draws():
    post = parity_posterior(3, 10, 5, 12)
    grid = np.linspace(-1, 1, 801)  # trapezoid error on this smooth density < 1e-5
    assert np.trapezoid(post.pdf(grid), grid) == pytest.approx(1.0, abs=1e-5)
    rng = np.random.default_rng(1)
    d = rng.beta(6, 8, 1_000_000) - rng.beta(4, 8, 1_000_000)
    # P(d ≤ .1): s.e. of the draws ≈ 5e-4 ⇒ tolerance 2.5e-3
    assert float(post.cdf(0.1)) == pytest.approx(np.mean(d <= 0.1), abs=2.5e-3)


def test_symmetric_case_has_symmetric_hdi():
    post = parity_posterior(5, 10, 5, 10)
    row = post.hdi(0.9).iloc[0]
    assert row["lower"] == pytest.approx(-row["upper"], abs=1e-9)


# --------------------------------------------------------------------------------------
# decisions
# --------------------------------------------------------------------------------------


def test_decisions_in_the_three_scenarios():
    clear = parity_posterior(400, 1000, 600, 1000).decide(0.1, 0.95)
    assert (clear.simple, clear.hdi_rope) == ("credible difference", "credible difference")
    assert clear.hdi_lower > 0.1
    unsure = parity_posterior(40, 80, 20, 40).decide(0.1, 0.95)
    assert (unsure.simple, unsure.hdi_rope) == ("undecided", "undecided")
    fair = parity_posterior(5000, 10000, 5010, 10000).decide(0.1, 0.95)
    assert (fair.simple, fair.hdi_rope) == ("practically equivalent", "practically equivalent")
    assert fair.prob_outside < 1e-12


def test_simple_rule_z_convention():
    post = parity_posterior(20, 100, 30, 100)
    dec = post.decide(0.0, 0.9)
    assert dec.z == pytest.approx(stats.norm.ppf(0.9))  # 1.2816: one-sided 90%
    # μ − zσ > 0 ⇔ z < μ/σ = 1.625: flagged at z = 1.28 (90%), not at z = 2
    assert dec.simple == "credible difference"
    assert post.decide(0.0, 0.9, z=2.0).simple == "undecided"


def test_monitoring_reproduces_the_blog():
    # Blog: "For 10,000 samples … less than 1% of unbiased algorithms will be flagged,
    # and more than 80% of biased algorithms" and "if there are only 100 samples, the
    # same settings will flag 5% of unbiased algorithms as biased, and only detect 20%".
    # 20,000 simulated systems per N: s.e. ≤ .005 for TPR, ≤ .003 for FPR.
    res = simulate_detection([100, 1000, 10000], rope=0.1, ci_prob=0.9,
                             n_sims=20000, random_seed=42).set_index("n")
    print("\nmonitoring (threshold 10%, confidence 90%):")
    print(res[["tpr", "fpr"]].to_string())
    assert res.loc[100, "fpr"] == pytest.approx(0.05, abs=0.015)
    assert res.loc[100, "tpr"] == pytest.approx(0.20, abs=0.04)
    assert res.loc[10000, "fpr"] < 0.01
    assert res.loc[10000, "tpr"] > 0.80
    assert res.loc[100, "tpr"] < res.loc[1000, "tpr"] < res.loc[10000, "tpr"]
    assert res.loc[100, "fpr"] > res.loc[1000, "fpr"] > res.loc[10000, "fpr"]


# --------------------------------------------------------------------------------------
# more than two groups
# --------------------------------------------------------------------------------------


def test_parity_comparisons_pairwise_and_rest():
    table = parity_comparisons([20, 30, 25], [100, 100, 100], labels=["a", "b", "c"],
                               rope=0.1, ci_prob=0.95)
    validate_interval_table(table)
    assert table["estimand"].tolist() == ["pairwise_difference"] * 3 + ["difference_vs_rest"] * 3
    assert table["group"].tolist() == ["b − a", "c − a", "c − b", "a − rest", "b − rest",
                                       "c − rest"]
    ab = table.iloc[0]
    direct = parity_posterior(20, 100, 30, 100).hdi(0.95).iloc[0]
    assert (ab["estimate"], ab["lower"], ab["upper"]) == pytest.approx(
        (direct["estimate"], direct["lower"], direct["upper"]))
    # "a vs rest" pools b and c: 55/200 vs 20/100
    a_rest = table.iloc[3]
    assert (a_rest["x1"], a_rest["n1"], a_rest["x2"], a_rest["n2"]) == (55, 200, 20, 100)
    assert a_rest["estimate"] == pytest.approx(21 / 102 - 56 / 202)
    assert ab["prob_outside"] == pytest.approx(0.488, abs=5e-4)


# --------------------------------------------------------------------------------------
# coverage under the null of equal rates
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [0.3, 0.5])
def test_hdi_coverage_under_null_of_equal_rates(rate):
    # 1000 simulated data sets, 100 per group, equal rates. An HDI is not a confidence
    # interval, so coverage is ≈ .95 rather than ≥ .95 (long-run figures with 20,000
    # sets: .950 at .3, .944 at .5, ±.0015; see benchmarks/bench_classifier.py). Assert
    # coverage ≥ .95 − 3 s.e. with s.e. = √(.95·.05/1000) = .0069.
    row = parity_hdi_coverage(rate, 100, n_sims=1000, ci_prob=0.95, random_seed=11).iloc[0]
    print(f"\nparity 95% HDI coverage under the null (rate {rate}, 100/group): "
          f"{row['coverage']:.3f}")
    assert row["true_difference"] == 0.0
    assert row["coverage"] >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 1000)


# --------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------


def test_bad_counts():
    with pytest.raises(ValueError, match=r"x1=120 exceeds n1=100"):
        parity_posterior(120, 100, 30, 100)
    with pytest.raises(ValueError, match=r"n2 must be an integer ≥ 0, got -5"):
        parity_posterior(1, 10, 0, -5)
    with pytest.raises(ValueError, match=r"x2 must be an integer ≥ 0, got -1"):
        parity_posterior(1, 10, -1, 10)
    with pytest.raises(ValueError, match=r"n1=0: group 1 is empty"):
        parity_posterior(0, 0, 1, 10)
    with pytest.raises(ValueError, match=r"x1 must be an integer ≥ 0, got 2\.5"):
        parity_posterior(2.5, 10, 1, 10)
    with pytest.raises(ValueError, match=r"x \(b\)=12 exceeds n \(b\)=10"):
        parity_comparisons([1, 12], [10, 10], labels=["a", "b"])


def test_bad_parameters():
    post = parity_posterior(20, 100, 30, 100)
    with pytest.raises(ValueError, match=r"ci_prob must be in \(0, 1\), got 1\.2"):
        post.hdi(1.2)
    with pytest.raises(ValueError, match=r"threshold must be in \[0, 1\), got -0\.1"):
        post.prob_exceeds(-0.1)
    with pytest.raises(ValueError, match=r"side must be 'two-sided', 'greater' or 'less', "
                                         r"got 'both'"):
        post.prob_exceeds(0.1, side="both")
    with pytest.raises(ValueError, match=r"prior must be a pair \(alpha, beta\) of positive "
                                         r"numbers, got \(0, 1\)"):
        parity_posterior(1, 2, 1, 2, prior=(0, 1))
    with pytest.raises(ValueError, match=r"ci_prob must be in \(0, 1\), got 1"):
        simulate_detection(100, ci_prob=1)
    with pytest.raises(ValueError, match=r"need at least two groups, got 1"):
        parity_comparisons([1], [10])
