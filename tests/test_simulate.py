"""Pre-averaging simulations (embias.simulate): published figures, corrected figures,
exact laws, data sets as long-form tables, CLI.

Tolerances are Monte Carlo errors: a share p from n simulations has binomial se
√(p(1 − p)/n); a quantile's se is estimated from the order statistics
(``WeatSimulation.interval_se``). Comparing two Monte Carlo figures of the same size
(ours against the published one) the difference has se √2·se; we allow 3 such se.
Comparing with an exact value we allow 4 se of our own estimate. All seeds are fixed.
"""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from embias.classic import association_scores, weat_effect_size
from embias.plots import plot_simulated_table, plot_weat_simulations
from embias.simulate import (
    NUMERATORS,
    PUBLISHED_FIGURES,
    WeatSimulation,
    exact_weat_distribution,
    largest_weat_index,
    max_abs_weat,
    simulate_weat,
    simulate_weat_grid,
    simulated_cosine_table,
    summarize_simulations,
)
from embias.simulate.noise.draws import _scores
from embias.tables import TABLE_COLUMNS

N_SIMS = 10_000

# The slides ("The problem with pre-averaging"): 10k simulations, 8 + 8 protected words,
# 8 + 8 attributes, sd .08. Quoted here, not imported, so the test does not trust the
# module's copy.
SLIDES = {
    0.0: (-2.763, 2.698, 0.2138),
    0.1: (0.851, 2.764, 0.513),
    0.4: (1.679, 2.185, 0.829),
}


def t_transform_quantile(q: float, n: int, ddof: int = 1, numerator: str = "mean") -> float:
    """Null quantile of WEAT from Student's t with 2n − 2 df, written out independently:
    WEAT = c·T/√(2n − 2 + T²), c = ‖v‖√(2n − ddof)."""
    k = 2 * n - 2
    norm = math.sqrt(2 / n) if numerator == "mean" else math.sqrt(2)
    c = norm * math.sqrt(2 * n - ddof)
    t = stats.t.ppf(q, k)
    return c * t / math.sqrt(k + t * t)


def share_se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 1 / n) / n)  # floor: a share of 0 still has an se


# --------------------------------------------------------------------------- published
@pytest.mark.parametrize("association", [0.0, 0.1, 0.4])
def test_first_word_numerator_reproduces_the_published_figures(association):
    lo_pub, hi_pub, share_pub = SLIDES[association]
    r = simulate_weat(association=association, numerator="first-word", n_sims=N_SIMS,
                      ci_prob=0.95, random_seed=20240401)
    lo, hi = r.interval
    lo_se, hi_se = r.interval_se
    assert lo_se > 0 and hi_se > 0
    assert abs(lo - lo_pub) <= 3 * math.sqrt(2) * lo_se, (lo, lo_pub, lo_se)
    assert abs(hi - hi_pub) <= 3 * math.sqrt(2) * hi_se, (hi, hi_pub, hi_se)
    tol = 3 * math.sqrt(2) * share_se(share_pub, N_SIMS)
    assert abs(r.share_above - share_pub) <= tol, (r.share_above, share_pub, tol)
    # the tolerances are tight enough to tell the two numerators apart
    assert abs(r.share_above - simulate_weat(association=association, n_sims=N_SIMS,
                                             random_seed=20240401).share_above) > tol


@pytest.mark.parametrize("association", [0.0, 0.1, 0.4])
def test_published_figures_agree_with_the_exact_first_word_law(association):
    """The published numbers are Monte Carlo draws of the exact first-word law (and far
    from the mean-numerator law): the diagnosis of the R mean() slip, independently of
    our simulator."""
    lo_pub, hi_pub, share_pub = SLIDES[association]
    first = exact_weat_distribution(association=association, numerator="first-word")
    lo, hi = first.interval(0.95)
    # quantile se of a 10k-draw estimate
    se = simulate_weat(association=association, numerator="first-word", n_sims=N_SIMS,
                       ci_prob=0.95, random_seed=7).interval_se
    assert abs(lo - lo_pub) <= 3 * se[0] and abs(hi - hi_pub) <= 3 * se[1]
    assert abs(first.share_above(1.81) - share_pub) <= 3 * share_se(share_pub, N_SIMS)
    mean = exact_weat_distribution(association=association, numerator="mean")
    assert abs(mean.share_above(1.81) - share_pub) > 10 * share_se(share_pub, N_SIMS)


def test_module_copy_of_the_published_figures():
    assert PUBLISHED_FIGURES == SLIDES


# --------------------------------------------------------------------------- corrected
def test_corrected_null_matches_student_t_transform():
    r = simulate_weat(n_sims=N_SIMS, ci_prob=0.95, random_seed=11)
    exact = (t_transform_quantile(0.025, 8), t_transform_quantile(0.975, 8))
    assert exact == pytest.approx((-0.9630, 0.9630), abs=1e-4)  # "about (−0.96, 0.96)"
    lo, hi = r.interval
    lo_se, hi_se = r.interval_se
    assert abs(lo - exact[0]) <= 4 * lo_se and abs(hi - exact[1]) <= 4 * hi_se
    # |WEAT| ≥ 1.81 under the null with 8 words per group: exact probability ~1e-7
    assert exact_weat_distribution().share_above(1.81) < 1e-6
    assert r.share_above == 0.0
    assert r.numerator == "mean" and r.max_abs_weat == pytest.approx(math.sqrt(15 / 4))


@pytest.mark.parametrize(("association", "lo", "hi", "share"), [
    (0.1, 1.700, 1.887, 0.572),
    (0.4, 1.921, 1.933, 1.000),
])
def test_corrected_alternatives(association, lo, hi, share):
    """With the correct numerator a mean similarity of .1 already puts WEAT near its
    ceiling √(15/4) ≈ 1.936; exact values from the non-central t."""
    dist = exact_weat_distribution(association=association)
    assert dist.interval(0.95) == pytest.approx((lo, hi), abs=1e-3)
    assert dist.share_above(1.81) == pytest.approx(share, abs=1e-3)
    r = simulate_weat(association=association, n_sims=N_SIMS, ci_prob=0.95, random_seed=12)
    (s_lo, s_hi), (lo_se, hi_se) = r.interval, r.interval_se
    e_lo, e_hi = dist.interval(0.95)
    assert abs(s_lo - e_lo) <= 4 * lo_se + 1e-12 and abs(s_hi - e_hi) <= 4 * hi_se + 1e-12
    p = dist.share_above(1.81)
    assert abs(r.share_above - p) <= 4 * share_se(p, N_SIMS)


# --------------------------------------------------------------------------- exact laws
@pytest.mark.parametrize("numerator", NUMERATORS)
def test_two_words_per_group_null_is_uniform(numerator):
    """With n = 2 (t with 2 df) |WEAT|/c is Uniform(0, 1): P(|WEAT| ≥ w) = 1 − w/c,
    c = √3 (mean) or √6 (first word)."""
    c = math.sqrt(3) if numerator == "mean" else math.sqrt(6)
    dist = exact_weat_distribution(n_protected_per_group=2, n_attributes=5, sd=0.05,
                                   numerator=numerator)
    assert dist.bound == pytest.approx(c)
    r = simulate_weat(n_protected_per_group=2, n_attributes=5, sd=0.05, numerator=numerator,
                      n_sims=N_SIMS, random_seed=4)
    for w in (0.5, 1.0, 1.5, 1.7):
        assert dist.share_above(w) == pytest.approx(1 - w / c, abs=1e-9)
        observed = np.mean(np.abs(r.scores) >= w)
        assert abs(observed - (1 - w / c)) <= 4 * share_se(1 - w / c, N_SIMS)
    assert dist.share_above(1.5) == pytest.approx(0.134, abs=5e-4) if numerator == "mean" \
        else dist.share_above(1.81) == pytest.approx(0.261, abs=5e-4)


def test_quadrature_path_agrees_with_noncentral_t():
    """The first-word law with an association uses quadrature; with a vanishing residual
    non-centrality it must agree with the mean-numerator closed form of the same (μ_Z, df):
    compare the first-word law at association ε against its own null t transform."""
    tiny = exact_weat_distribution(association=1e-9, numerator="first-word")
    assert tiny.residual_noncentrality > 0  # takes the quadrature path
    for q in (0.025, 0.3, 0.975):
        assert tiny.ppf(q) == pytest.approx(t_transform_quantile(q, 8, numerator="first-word"),
                                            abs=1e-6)


@pytest.mark.parametrize("n", [3, 8])
def test_first_word_exact_law_against_simulation(n):
    dist = exact_weat_distribution(n_protected_per_group=n, association=0.05,
                                   numerator="first-word")
    r = simulate_weat(n_protected_per_group=n, association=0.05, numerator="first-word",
                      n_sims=N_SIMS, random_seed=n)
    for w in (-0.5, 0.5, 1.0, 2.0):
        p = float(dist.cdf(w))
        assert abs(np.mean(r.scores <= w) - p) <= 4 * share_se(p, N_SIMS)


def test_null_does_not_depend_on_sd_or_attribute_list_length():
    """Pure noise: WEAT is scale-free, so sd changes nothing (same raw draws up to scale),
    and attribute-list length changes nothing either (exactly the same law)."""
    a = simulate_weat(sd=0.08, n_sims=2000, random_seed=3)
    b = simulate_weat(sd=0.05, n_sims=2000, random_seed=3)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-10)
    short = exact_weat_distribution(n_attributes=2, sd=0.01)
    long = exact_weat_distribution(n_attributes=200, sd=0.3)
    assert short.interval() == pytest.approx(long.interval(), abs=1e-12)
    m50 = simulate_weat(n_attributes=50, n_sims=N_SIMS, ci_prob=0.95, random_seed=5)
    (lo, hi), (lo_se, hi_se) = m50.interval, m50.interval_se
    assert abs(lo - short.ppf(0.025)) <= 4 * lo_se and abs(hi - short.ppf(0.975)) <= 4 * hi_se


def test_bounds_and_one_word_per_group():
    assert max_abs_weat(1) == pytest.approx(math.sqrt(2))
    assert max_abs_weat(2) == pytest.approx(math.sqrt(3))
    assert max_abs_weat(8, numerator="first-word") == pytest.approx(math.sqrt(30))
    assert max_abs_weat(1, ddof=0) == pytest.approx(2.0)
    for numerator in NUMERATORS:
        one = simulate_weat(n_protected_per_group=1, numerator=numerator, n_sims=500,
                            random_seed=1)
        np.testing.assert_allclose(np.abs(one.scores), math.sqrt(2), rtol=1e-12)
        assert 0.35 < np.mean(one.scores > 0) < 0.65  # both signs occur
    r = simulate_weat(n_protected_per_group=4, association=0.3, n_sims=3000, random_seed=2)
    assert np.all(np.abs(r.scores) <= r.max_abs_weat + 1e-12)
    assert r.scores.max() > r.max_abs_weat - 0.01  # a strong signal presses on the ceiling


def weat_of_raw(raw: np.ndarray, ddof: int) -> np.ndarray:
    """WEAT (``numerator="mean"``) of raw similarity blocks (k, 2, n, 2, m) → (k,), with
    the public functions simulate_weat computes it with."""
    s = association_scores(raw[..., 0, :], raw[..., 1, :])  # (k, 2, n)
    return np.atleast_1d(np.asarray(weat_effect_size(s[:, 0], s[:, 1], ddof=ddof)))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 5), m=st.integers(1, 4), ddof=st.sampled_from([0, 1]),
       data=st.data())
def test_weat_never_exceeds_its_ceiling_for_any_data(n, m, ddof, data):
    """The ceiling ‖v‖√(2n − ddof) holds for arbitrary raw similarities (Cauchy–Schwarz),
    and is attained when every X word has the same s and every Y word another."""
    values = data.draw(st.lists(st.floats(-1, 1), min_size=4 * n * m, max_size=4 * n * m))
    raw = np.asarray(values).reshape(1, 2, n, 2, m)
    s = raw[..., 0, :].mean(-1) - raw[..., 1, :].mean(-1)
    assume(np.ptp(s) > 1e-6)
    assert abs(weat_of_raw(raw, ddof)[0]) <= max_abs_weat(n, ddof=ddof) * (1 + 1e-9)
    # the published first-word numerator of given raw similarities has no public function
    # (simulate_weat draws its own raw data, with sd > 0): the simulation's own one
    assert abs(_scores(raw, "first-word", ddof)[0]) <= max_abs_weat(
        n, numerator="first-word", ddof=ddof) * (1 + 1e-9)
    extreme = np.zeros((1, 2, n, 2, m))
    extreme[0, 0, :, 0, :] = 0.3  # X words: s = .3, Y words: s = 0
    assert weat_of_raw(extreme, ddof)[0] == pytest.approx(max_abs_weat(n, ddof=ddof))


def test_result_arrays_are_read_only():
    r = simulate_weat(n_sims=10, random_seed=0)
    with pytest.raises(ValueError, match="read-only"):
        r.scores[0] = 0.0


def test_raw_sd_and_sd_of_means():
    """Unbiased variances: E[raw sd²] = σ² + Σ(μᵢ − μ̄)²/(N − 1) and under the null
    E[sd of means²] = σ²/m."""
    sd, m, n = 0.08, 8, 8
    null = simulate_weat(sd=sd, n_sims=4000, random_seed=8)
    for values, target in ((null.raw_sd**2, sd**2), (null.means_sd**2, sd**2 / m)):
        se = values.std(ddof=1) / math.sqrt(values.size)
        assert abs(values.mean() - target) <= 4 * se
    a = 0.1
    alt = simulate_weat(sd=sd, association=a, n_sims=4000, random_seed=9)
    big_n = 4 * n * m
    target = sd**2 + big_n * (a / 2) ** 2 / (big_n - 1)  # half the cells at a, half at 0
    values = alt.raw_sd**2
    assert abs(values.mean() - target) <= 4 * values.std(ddof=1) / math.sqrt(values.size)


# --------------------------------------------------------------------------- mechanics
def test_scores_by_hand_tiny_case():
    """The slides' four-word example as raw numbers (m = 2): s = .5, .3, −.6, −.3."""
    raw = np.array([
        [[[0.6, 0.7], [0.2, 0.1]],    # he:    s = .65 − .15 = .5
         [[0.4, 0.4], [0.1, 0.1]]],   # man:   s = .3
        [[[0.1, 0.1], [0.7, 0.7]],    # woman: s = −.6
         [[0.2, 0.2], [0.5, 0.5]]],   # she:   s = −.3
    ])[None]
    sd = math.sqrt(0.2625)  # sample sd of (.5, .3, −.6, −.3)
    assert weat_of_raw(raw, 1)[0] == pytest.approx(0.85 / sd)
    assert _scores(raw, "first-word", 1)[0] == pytest.approx(1.1 / sd)  # no public function


def test_scores_match_hand_computation_from_regenerated_raw_data():
    """Across several blocks: regenerate raw data sets and recompute WEAT with the
    statistics module."""
    r = simulate_weat(n_protected_per_group=25, n_attributes=500, n_sims=200,
                      association=0.01, random_seed=6)
    first = simulate_weat(n_protected_per_group=25, n_attributes=500, n_sims=200,
                          association=0.01, random_seed=6, numerator="first-word")
    for k in (0, 82, 83, 150, 199):  # block size is 83 here
        raw = r.raw_similarities(k)
        s = [statistics.fmean(raw[g, i, 0]) - statistics.fmean(raw[g, i, 1])
             for g in range(2) for i in range(25)]
        sd = statistics.stdev(s)
        assert r.scores[k] == pytest.approx(
            (statistics.fmean(s[:25]) - statistics.fmean(s[25:])) / sd, rel=1e-9)
        assert first.scores[k] == pytest.approx((s[0] - s[25]) / sd, rel=1e-9)
        assert r.raw_sd[k] == pytest.approx(statistics.stdev(raw.ravel()), rel=1e-9)
        np.testing.assert_array_equal(raw, first.raw_similarities(k))


def test_reproducible_prefix_stable_and_generator_seed_recorded():
    a = simulate_weat(n_sims=100, random_seed=5)
    b = simulate_weat(n_sims=3000, random_seed=5)
    np.testing.assert_array_equal(a.scores, b.scores[:100])
    g = simulate_weat(n_sims=50, random_seed=np.random.default_rng(1))
    again = simulate_weat(n_sims=50, random_seed=g.seed)
    np.testing.assert_array_equal(g.scores, again.scores)
    assert not np.array_equal(simulate_weat(n_sims=50, random_seed=6).scores, a.scores[:50])


def test_summary_table():
    sims = simulate_weat_grid(n_protected_per_group=(1, 8), association=(0.0, 0.1),
                              numerator=NUMERATORS, n_sims=1000, ci_prob=0.95,
                              random_seed=0)
    assert [(s.n_protected_per_group, s.association, s.numerator) for s in sims] == [
        (1, 0.0, "mean"), (1, 0.0, "first-word"), (1, 0.1, "mean"), (1, 0.1, "first-word"),
        (8, 0.0, "mean"), (8, 0.0, "first-word"), (8, 0.1, "mean"), (8, 0.1, "first-word")]
    np.testing.assert_array_equal(sims[4].raw_similarities(3), sims[5].raw_similarities(3))
    table = summarize_simulations(sims)
    assert list(table["ci_kind"].unique()) == ["simulation"] and set(table["ci_prob"]) == {0.95}
    row = table.iloc[4]
    assert (row["lower"], row["upper"]) == sims[4].interval
    assert row["estimate"] == pytest.approx(np.median(sims[4].scores))
    assert row["exact_upper"] == pytest.approx(0.963, abs=1e-3)
    assert table.loc[:3, "exact_lower"].isna().all()  # one word per group: no exact law
    with pytest.raises(ValueError, match=re.escape("different ci_prob values [0.9, 0.95]")):
        summarize_simulations([sims[0], simulate_weat(n_sims=10, ci_prob=0.9,
                                                      random_seed=0)])


# --------------------------------------------------------------------------- data sets
def test_simulated_cosine_table():
    r = simulate_weat(n_protected_per_group=3, n_attributes=4, association=0.4, n_sims=20,
                      random_seed=1)
    k = largest_weat_index(r)
    assert abs(r.scores[k]) == np.abs(r.scores).max()
    table = simulated_cosine_table(r, sim_index=k)
    assert list(table.columns) == list(TABLE_COLUMNS)
    assert len(table) == 4 * 3 * 4
    assert table.attrs["weat"] == r.scores[k] and table.attrs["sim_index"] == k
    np.testing.assert_allclose(table["cosine_distance"], 1 - table["cosine_similarity"])
    own = table["protected_word"].str[0].map({"x": "a", "y": "b"})
    assoc = own == table["word_to_compare"].str[0]
    assert ((table["connection"] == "associated") == assoc).all()
    assert (table["protected_class"] == table["protected_word"].str[0].str.upper()).all()
    assert ((table["word_class"] == table["protected_class"]) == assoc).all()
    # the WEAT recomputed from the table
    pivot = table.pivot_table(index="protected_word", columns="word_class",
                              values="cosine_similarity", aggfunc="mean")
    s = pivot["X"] - pivot["Y"]
    expected = (s.filter(like="x").mean() - s.filter(like="y").mean()) / s.std(ddof=1)
    assert table.attrs["weat"] == pytest.approx(expected, rel=1e-12)
    # association .4 shows up in the associated cells, and nowhere else
    means = table.groupby("connection")["cosine_similarity"].mean()
    assert means["associated"] == pytest.approx(0.4, abs=4 * 0.08 / math.sqrt(24))
    assert means["different"] == pytest.approx(0.0, abs=4 * 0.08 / math.sqrt(24))


def test_table_is_accepted_by_the_table_validator():
    from embias.tables import validate_table

    r = simulate_weat(n_sims=5, random_seed=0)
    validate_table(simulated_cosine_table(r, sim_index=4))
    with pytest.raises(ValueError, match=re.escape("sim_index must be < n_sims=5, got 5")):
        simulated_cosine_table(r, sim_index=5)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sd": 0}, "sd must be a positive finite number, got 0"),
    ({"sd": -0.08}, "sd must be a positive finite number, got -0.08"),
    ({"n_sims": 0}, "n_sims must be an integer ≥ 1, got 0"),
    ({"n_sims": 2.5}, "n_sims must be an integer ≥ 1, got 2.5"),
    ({"n_protected_per_group": 0}, "n_protected_per_group must be an integer ≥ 1, got 0"),
    ({"n_attributes": 0}, "n_attributes must be an integer ≥ 1, got 0"),
    ({"numerator": "median"}, "numerator='median' is not one of ['mean', 'first-word']"),
    ({"ddof": 2}, "ddof must be 0 or 1, got 2"),
    ({"threshold": 0}, "threshold must be a positive finite number, got 0"),
    ({"ci_prob": 1.0}, "ci_prob must be in (0, 1), got 1.0"),
    ({"association": float("nan")}, "association must be a finite number, got nan"),
    ({"random_seed": -1}, "random_seed must be a non-negative integer, a numpy Generator or "
                           "None, got -1"),
])
def test_simulate_weat_validation(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        simulate_weat(**{"n_sims": 10, **kwargs})


def test_exact_law_needs_two_words_per_group():
    with pytest.raises(ValueError, match=re.escape(
            "needs at least 2 protected words per group (its within-group sd has 2n − 2 "
            "degrees of freedom), got n_protected_per_group=1")):
        exact_weat_distribution(n_protected_per_group=1)
    with pytest.raises(ValueError, match=re.escape("sd must be a positive finite number, "
                                                   "got -1")):
        exact_weat_distribution(sd=-1)
    r = simulate_weat(n_protected_per_group=1, n_sims=10, random_seed=0)
    with pytest.raises(ValueError, match="got n_protected_per_group=1"):
        r.exact()


# --------------------------------------------------------------------------- plots
def test_plots_draw_what_they_are_given():
    import matplotlib.pyplot as plt

    sims = [simulate_weat(n_sims=300, random_seed=i, association=a, label=f"a={a}")
            for i, a in enumerate((0.0, 0.1))]
    fig = plot_weat_simulations(sims)
    ax = fig.axes[0]
    assert len(ax.patches) == 2  # one step histogram per simulation
    assert len(ax.lines) == 2 * 2 + 2  # ±bound per simulation, ±threshold once
    assert "a=0.1" in ax.get_legend().get_texts()[1].get_text()
    plt.close(fig)
    table = simulated_cosine_table(sims[0], sim_index=0)
    fig = plot_simulated_table(table)
    assert f"{sims[0].scores[0]:.2f}" in fig.axes[0].get_title()
    assert len(fig.axes[0].get_xticklabels()) == 16
    plt.close(fig)
    with pytest.raises(ValueError, match="no simulations"):
        plot_weat_simulations([])


def test_result_is_frozen():
    r = simulate_weat(n_sims=10, random_seed=0)
    assert isinstance(r, WeatSimulation)
    with pytest.raises(AttributeError):
        r.sd = 1.0  # type: ignore[misc]
    assert isinstance(r.summary(), pd.DataFrame) and len(r.summary()) == 1
