"""ArviZ's own functions on a fit's ``DataTree``: ``az.summary``, ``az.rhat``, ``az.ess``,
``az.plot_forest`` and ``az.loo`` take ``fit.posterior`` at every level (dataset, word,
hierarchical, crossed, and the crossed model of a sentence table with template effects),
before and after saving, and give the numbers embias gives.

Known answers: posterior means by NumPy; r̂ and ESS by embias's own diagnostics (the same
estimators, checked against ArviZ to 1e-9 elsewhere); each compared word's
log-likelihood by scipy (a sum of Normal densities, or at the crossed level the word's
multivariate Normal with its effect u integrated out); ``az.loo``'s elpd by the sum of its
pointwise values and by :func:`embias.compare_models` (leave one compared word out).
"""

from __future__ import annotations

import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

import embias
from embias.bayes.crossed import WORD_KIND_OF_CONNECTION, row_template_effects
from embias.bayes.fit import arviz_ready

pytestmark = [pytest.mark.xdist_group("arviz_on_fits"), pytest.mark.slow]

LEVELS = ("dataset", "word", "hierarchical", "crossed", "templates")
SAMPLING = {"draws": 200, "tune": 300, "chains": 2}


def religion_subset() -> pd.DataFrame:
    """Four protected words of religion/GloVe and 60 compared words (every connection)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the study's one missing word
        table = embias.study_table("religion", "glove-6b-50d")
    words = list(dict.fromkeys(table["protected_word"]))[:4]
    part = table[table["protected_word"].isin(words)]
    compared = list(dict.fromkeys(part["word_to_compare"]))
    keep = set(np.random.default_rng(0).choice(compared, size=60, replace=False))
    part = part[part["word_to_compare"].isin(keep)].reset_index(drop=True)
    part.attrs.update(table.attrs)
    assert set(part["connection"]) == {"associated", "different", "none", "human"}
    return part


def template_table(seed: int = 3) -> pd.DataFrame:
    """A sentence-like table drawn from the crossed model with templates: 4 protected words
    in 4 templates each, 4 attribute words, 6 neutral and 3 human words."""
    rng = np.random.default_rng(seed)
    bar = {"associated": 0.80, "different": 0.85, "human": 0.82, "none": 0.90}
    classes = {"a": ["a1", "a2"], "b": ["b1", "b2"]}
    compared = ([(w, "a_attr", "a") for w in ("x1", "x2")]
                + [(w, "b_attr", "b") for w in ("y1", "y2")]
                + [(f"n{i}", "neutral", None) for i in range(6)]
                + [(f"h{i}", "human", None) for i in range(3)])
    templates = [f"T{i} {{term}}." for i in range(4)]
    coef = {(p, c): bar[c] + 0.05 * rng.standard_normal()
            for ws in classes.values() for p in ws for c in bar}
    u = {w: 0.08 * rng.standard_normal() for w, _, _ in compared}
    v = {(t, k): 0.03 * rng.standard_normal() for t in templates
         for k in ("attribute", "neutral", "human")}
    rows = []
    for cls, ws in classes.items():
        for p in ws:
            for t in templates:
                for w, word_class, owner in compared:
                    con = ("none" if word_class == "neutral" else "human"
                           if word_class == "human" else "associated" if owner == cls
                           else "different")
                    y = (coef[(p, con)] + u[w] + v[(t, WORD_KIND_OF_CONNECTION[con])]
                         + 0.04 * rng.standard_normal())
                    rows.append({"protected_word": p, "protected_class": cls, "template": t,
                                 "word_to_compare": w, "word_class": word_class,
                                 "connection": con, "cosine_distance": y})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def fits() -> dict[str, embias.BiasFit]:
    table = religion_subset()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # short chains: convergence is not the question
        for level in LEVELS[:4]:
            out[level] = embias.fit_bias_model(table, level=level, random_seed=11,
                                               progress=False, **SAMPLING)
        out["templates"] = embias.fit_bias_model(template_table(), level="crossed",
                                                 random_seed=11, progress=False,
                                                 target_accept=0.95, **SAMPLING)
    assert "template_kind_effect" in out["templates"].posterior["posterior"]
    return out


def _check_arviz(fit: embias.BiasFit, tree: xr.DataTree) -> float:
    """ArviZ's functions on ``tree`` against embias's and NumPy's numbers; returns the
    elpd of ``az.loo``."""
    post = tree["posterior"]
    summary = az.summary(tree, round_to="none")
    for con in post["connection"].values:
        draws = post["connection_mean"].sel(connection=con).values
        assert summary.loc[f"connection_mean[{con}]", "mean"] == pytest.approx(
            draws.mean(), rel=1e-12)
        assert summary.loc[f"connection_mean[{con}]", "sd"] == pytest.approx(
            draws.std(ddof=1), rel=1e-6)
    ours = fit.diagnostics().set_index("parameter")
    rhat, ess = az.rhat(tree), az.ess(tree, method="bulk")
    for con in post["connection"].values:
        name = f"connection_mean[{con}]"
        assert float(rhat["connection_mean"].sel(connection=con)) == pytest.approx(
            ours.loc[name, "r_hat"], abs=1e-9)
        assert float(ess["connection_mean"].sel(connection=con)) == pytest.approx(
            ours.loc[name, "ess_bulk"], rel=1e-9)
    # every scalar of the posterior is a row of the summary; embias checks all of them but
    # the word effects the crossed level draws afterwards from their exact conditional
    conditional = (fit.settings["level"] == "crossed" and fit.settings["data"] == "summary")
    expected = {p for p in summary.index
                if not (conditional and p.startswith("word_effect["))}
    assert set(ours.index) == expected
    assert conditional == any(p.startswith("word_effect[") for p in summary.index)
    forest = az.plot_forest(tree, var_names=["connection_mean"], combined=True)
    assert forest is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Pareto k of 200 draws
        loo = az.loo(tree, pointwise=True)
    assert loo.elpd == pytest.approx(float(loo.elpd_i.sum()), rel=1e-12)
    words = fit.table["word_to_compare"].nunique()
    assert loo.n_data_points == words  # leave one compared word out
    return float(loo.elpd)


@pytest.mark.parametrize("level", LEVELS)
def test_arviz_functions_take_the_fit_and_agree_with_embias(fits, level) -> None:
    fit = fits[level]
    _check_arviz(fit, fit.posterior)


@pytest.mark.parametrize("level", LEVELS)
def test_a_saved_and_reloaded_fit_gives_arviz_the_same_numbers(fits, level,
                                                                 tmp_path) -> None:
    fit = fits[level]
    before = _check_arviz(fit, fit.posterior)
    again = embias.load_fit(embias.save_fit(fit, tmp_path / level).path)
    assert _check_arviz(again, again.posterior) == pytest.approx(before, rel=1e-12)
    pd.testing.assert_frame_equal(az.summary(again.posterior, round_to="none"),
                                  az.summary(fit.posterior, round_to="none"))
    if level in ("crossed", "templates"):
        kinds = again.to_interval_table().query("estimand == 'compared_word_effect'")
        assert kinds.set_index("group")["word_kind"].to_dict() == {
            w: WORD_KIND_OF_CONNECTION[c] for w, c in zip(
                again.table["word_to_compare"], again.table["connection"], strict=True)}


def test_loo_of_the_tree_is_embias_leave_one_word_out(fits) -> None:
    pair = {"hierarchical": fits["hierarchical"], "crossed": fits["crossed"]}
    table = embias.compare_models(pair, by="word", progress=False).set_index("model")
    for level, fit in pair.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            elpd = az.loo(fit.posterior).elpd
        assert elpd == pytest.approx(table.loc[level, "elpd"], rel=1e-12)


@pytest.mark.parametrize("level", ["hierarchical", "word"])
def test_a_words_log_likelihood_is_the_sum_of_its_rows_normal_densities(fits, level) -> None:
    fit = fits[level]
    post = fit.posterior["posterior"]
    word = fit.table["word_to_compare"].iloc[7]
    part = fit.table[fit.table["word_to_compare"] == word]
    d = post.isel(chain=1, draw=57)
    mu = [float(d["coef"].sel(protected_word=p, connection=c))
          for p, c in zip(part["protected_word"], part["connection"], strict=True)]
    sd = [float(d["sigma"].sel(connection=c)) if "connection" in d["sigma"].dims
          else float(d["sigma"]) for c in part["connection"]]
    expected = stats.norm(mu, sd).logpdf(part["cosine_distance"]).sum()
    got = float(fit.posterior["log_likelihood"]["compared_word"].isel(chain=1, draw=57)
                .sel(word_to_compare=word))
    assert got == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("level", ["crossed", "templates"])
def test_a_crossed_words_log_likelihood_integrates_its_effect_out(fits, level) -> None:
    """The word's rows are jointly Normal with covariance diag σ² + τ_u²·11ᵀ around
    coef (+ the rows' template effects for a sentence table)."""
    fit = fits[level]
    post = fit.posterior["posterior"]
    table = fit.table
    templates = row_template_effects(fit.posterior, table, fit.cells)
    assert (templates is None) == (level == "crossed")
    for word, (chain, draw) in (("n2" if level == "templates" else
                                 table["word_to_compare"].iloc[3], (0, 5)),
                                (table["word_to_compare"].iloc[-1], (1, 150))):
        rows = np.flatnonzero(table["word_to_compare"] == word)
        part = table.iloc[rows]
        d = post.isel(chain=chain, draw=draw)
        mu = np.array([float(d["coef"].sel(protected_word=p, connection=c)) for p, c in
                       zip(part["protected_word"], part["connection"], strict=True)])
        if templates is not None:
            mu += templates[chain * post.sizes["draw"] + draw, rows]
        var = np.array([float(d["sigma"].sel(connection=c)) ** 2 for c in part["connection"]])
        kind = WORD_KIND_OF_CONNECTION[part["connection"].iloc[0]]
        t2 = float(d["tau_word"].sel(word_kind=kind)) ** 2
        expected = stats.multivariate_normal(mu, np.diag(var) + t2).logpdf(
            part["cosine_distance"])
        got = float(fit.posterior["log_likelihood"]["compared_word"].isel(
            chain=chain, draw=draw).sel(word_to_compare=word))
        assert got == pytest.approx(expected, rel=1e-10)


def test_a_tree_saved_by_embias_0_3_is_made_arviz_ready(fits) -> None:
    """embias 0.3 kept the compared words' kind as a coordinate of the posterior and, after
    compare_models, both log-likelihoods in the tree: az.summary and az.loo failed."""
    fit = fits["crossed"]
    tree = fit.posterior.copy(deep=True)
    kinds = tree["constant_data"]["compared_word_kind"].values
    post = tree["posterior"].to_dataset().assign_coords(
        compared_word_kind=("word_to_compare", kinds))
    rows = xr.DataArray(np.zeros((2, SAMPLING["draws"], len(fit.table))),
                        dims=("chain", "draw", "row"))
    old = xr.DataTree.from_dict({
        "posterior": post,
        "sample_stats": tree["sample_stats"].to_dataset(),
        "log_likelihood": tree["log_likelihood"].to_dataset().assign(cosine_distance=rows)})
    with pytest.raises(ValueError, match="compared_word_kind"):
        az.summary(old)
    with pytest.raises(TypeError, match="several log likelihood arrays"):
        az.loo(old)
    ready = arviz_ready(old, fit.table, fit.cells)
    assert list(ready["log_likelihood"].data_vars) == ["compared_word"]
    np.testing.assert_array_equal(ready["constant_data"]["compared_word_kind"].values, kinds)
    pd.testing.assert_frame_equal(az.summary(ready, round_to="none"),
                                  az.summary(fit.posterior, round_to="none"))
    old_fit = embias.BiasFit(posterior=ready, table=fit.table, cells=fit.cells,
                             settings=fit.settings, classic=fit.classic)
    pd.testing.assert_frame_equal(old_fit.to_interval_table(), fit.to_interval_table())
