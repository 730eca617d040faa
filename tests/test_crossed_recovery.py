"""Parameter recovery of the crossed model (embias.bayes.crossed) from data it generated.

Six tables with the rows of the religion table on GloVe 6B 50d are drawn from the
crossed model (:func:`embias.simulate_words.simulate_word_table`) with the parameters
measured on that table (with its association differences): every table draws new
coefficients coef[p, con] ~ N(bar, τ), new compared-word effects u ~ N(0, τ_u[kind]) and new
noise ~ N(0, σ[con]). Each is fitted with the crossed model (nutpie, 2 × (700 + 1000)
draws). Known answers: the drawn coef and u of every table, and σ and τ_u.

Tolerances are Monte Carlo errors: intervals of one table share its hyperparameters, so
the coverage of the 6 × 60 coefficients (and 6 × 321 word effects) gets a cluster
standard error from the spread of the per-table coverage; σ and τ_u (6 × 7 intervals) a
binomial one.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from mcmc_bounds import max_divergences, max_rhat_bound

import embias
from embias.simulate_words import calibrate_word_sampling, simulate_word_table

# the same xdist worker as tests/test_word_sampling.py: one nutpie compile of this shape
pytestmark = [pytest.mark.xdist_group("nutpie-religion-design"), pytest.mark.slow]

N_TABLES = 6
CI_PROB = 0.89
SEED = 20240607


@pytest.fixture(scope="module")
def recovery() -> pd.DataFrame:
    import arviz as az

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the one neutral word GloVe lacks
        design = embias.study_table("religion", "glove-6b-50d")
    truth = calibrate_word_sampling(design)
    tables = [simulate_word_table(design, truth, random_seed=np.random.default_rng([SEED, i]))
              for i in range(N_TABLES)]
    jobs = [embias.FitJob(t, embias.FitSettings(level="crossed", sampler="nutpie", draws=1000,
                                                tune=700, random_seed=SEED + i))
            for i, t in enumerate(tables)]
    fits = embias.fit_many(jobs, progress=False, warn=False)
    rows = []
    for i, (table, fit) in enumerate(zip(tables, fits, strict=True)):
        post = fit.posterior["posterior"]
        # diagnostics within their Monte Carlo spread (tests/mcmc_bounds.py): divergences
        # below 0.5% of the 2 × 1000 draws, r̂ within what well-mixed chains give at the
        # fit's own smallest ESS
        diagnostics = fit.diagnostics()
        ess = float(diagnostics[["ess_bulk", "ess_tail"]].min().min())
        assert fit.divergences <= max_divergences(1000, 2)
        assert diagnostics["r_hat"].max() <= max_rhat_bound(ess, len(diagnostics)), ess
        intervals = fit.to_interval_table(ci_prob=CI_PROB)
        coef_sd = post["coef"].std(("chain", "draw"))
        coef_true = table.attrs["truth"]["coef"]
        for r in intervals[intervals["estimand"] == "word_coefficient"].itertuples():
            rows.append({"table": i, "kind": "coef", "truth": coef_true.loc[r.protected_word,
                                                                          r.connection],
                         "estimate": r.estimate, "lower": r.lower, "upper": r.upper,
                         "sd": float(coef_sd.sel(protected_word=r.protected_word,
                                                 connection=r.connection))})
        u_sd = post["word_effect"].std(("chain", "draw"))
        u_true = table.attrs["truth"]["word_effect"]
        for r in intervals[intervals["estimand"] == "compared_word_effect"].itertuples():
            rows.append({"table": i, "kind": "u", "truth": u_true[r.group],
                         "estimate": r.estimate, "lower": r.lower, "upper": r.upper,
                         "sd": float(u_sd.sel(word_to_compare=r.group))})
        for r in intervals[intervals["estimand"] == "compared_word_sd"].itertuples():
            draws = post["tau_word"].sel(word_kind=r.group)
            rows.append({"table": i, "kind": f"tau_u[{r.group}]",
                         "truth": truth.tau_word[r.group], "estimate": r.estimate,
                         "lower": r.lower, "upper": r.upper, "sd": float(draws.std())})
        hdi = az.hdi(post["sigma"], prob=CI_PROB)
        for con in post["connection"].values:
            draws = post["sigma"].sel(connection=con)
            rows.append({"table": i, "kind": f"sigma[{con}]", "truth": truth.sigma[str(con)],
                         "estimate": float(draws.mean()),
                         "lower": float(hdi.sel(connection=con, ci_bound="lower")),
                         "upper": float(hdi.sel(connection=con, ci_bound="upper")),
                         "sd": float(draws.std())})
    out = pd.DataFrame(rows)
    out["covered"] = (out["lower"] <= out["truth"]) & (out["truth"] <= out["upper"])
    out["z"] = (out["estimate"] - out["truth"]) / out["sd"]
    return out


def test_every_parameter_is_recovered(recovery):
    counts = recovery.groupby("kind").size()
    assert counts["coef"] == N_TABLES * 15 * 4
    assert counts["u"] == N_TABLES * 321
    assert {k for k in counts.index if k.startswith(("sigma", "tau_u"))} == {
        "sigma[associated]", "sigma[different]", "sigma[human]", "sigma[none]",
        "tau_u[attribute]", "tau_u[neutral]", "tau_u[human]"}


@pytest.mark.parametrize("kind", ["coef", "u"])
def test_random_effects_intervals_cover_at_the_nominal_rate(recovery, kind):
    # the table is the unit of the Monte Carlo error (its intervals share hyperparameters)
    rows = recovery[recovery["kind"] == kind]
    per_table = rows.groupby("table")["covered"].mean()
    binomial = math.sqrt(CI_PROB * (1 - CI_PROB) / len(rows))
    se = max(per_table.std(ddof=1) / math.sqrt(N_TABLES), binomial)
    assert abs(per_table.mean() - CI_PROB) <= 3 * se, (per_table.mean(), se)


@pytest.mark.parametrize("kind", ["coef", "u"])
def test_random_effects_posterior_means_are_unbiased_and_calibrated(recovery, kind):
    # (posterior mean − truth) / posterior sd: mean 0 and sd 1 when the posterior is right
    z = recovery.loc[recovery["kind"] == kind].groupby("table")["z"]
    assert abs(z.mean().mean()) <= 3 * z.mean().std(ddof=1) / math.sqrt(N_TABLES) + 0.05
    assert 0.8 <= recovery.loc[recovery["kind"] == kind, "z"].std() <= 1.2


def test_sigma_and_word_sd_intervals_cover_at_the_nominal_rate(recovery):
    rows = recovery[recovery["kind"].str.startswith(("sigma", "tau_u"))]
    assert len(rows) == N_TABLES * 7
    coverage = rows["covered"].mean()
    assert abs(coverage - CI_PROB) <= 3 * math.sqrt(CI_PROB * (1 - CI_PROB) / len(rows))


@pytest.mark.parametrize("kind", ["sigma[associated]", "sigma[different]", "sigma[human]",
                                  "sigma[none]", "tau_u[attribute]", "tau_u[neutral]",
                                  "tau_u[human]"])
def test_sigma_and_word_sd_posterior_means_recover_the_truth(recovery, kind):
    # the mean of the 6 posterior means lies within 3 Monte Carlo se of the truth (the se
    # from the posterior sds: each table's posterior mean scatters about that much); and
    # every posterior mean within 30% of it
    rows = recovery[recovery["kind"] == kind]
    truth = rows["truth"].iloc[0]
    se = math.sqrt((rows["sd"] ** 2).mean() / N_TABLES)
    assert abs(rows["estimate"].mean() - truth) <= 3 * se + 0.002, (rows["estimate"].mean(),
                                                                      truth, se)
    # each dataset's estimate near the truth too — except the attribute words' sd, which 11
    # words pin down only to about ±40% (its posterior sd), so only its mean is checked
    if kind != "tau_u[attribute]":
        assert (abs(rows["estimate"] - truth) <= 0.3 * truth).all()
