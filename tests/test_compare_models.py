"""Model comparison by leave-one-out: compare_models of fits and of
refit_loo results on the authors' religion/Reddit table, PSIS against exact refits
without a compared word, the refit path (ArviZ reloo through embias fits) for a high-k
word, bad input, and ``embias compare-models`` as a subprocess.

Fits are small (2 chains × 500 draws after 500 tuning steps, seeded) and made once per
module through fit_study_model, so the command line reuses them."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

import embias
from embias.bayes.exact_loo import _word_folds, compare_models_refit, refit_loo
from embias.bayes.loo import compare_models
from embias.bayes.refits import check_left_out

ROOT = Path(__file__).resolve().parent.parent
EMBIAS = Path(sys.executable).with_name("embias")
SMALL = {"draws": 500, "tune": 500, "random_seed": 2}
LEVELS = ("dataset", "word", "hierarchical")


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.getbasetemp() / "loo-fits"


@pytest.fixture(scope="module")
def fits(models_dir) -> dict[str, embias.BiasFit]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {level: embias.fit_study_model("religion", "published:reddit", level=level,
                                              models_dir=models_dir, progress=False,
                                              **SMALL)
                for level in LEVELS}


@pytest.fixture(scope="module")
def by_word(fits) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_models_refit(fits, by="word", refit="none")


def _held_out_elpd(refit: embias.BiasFit, rows: pd.DataFrame) -> float:
    """log mean over the refit's draws of the joint density of the held-out rows (scipy,
    independent of embias's own log-likelihood code)."""
    post = refit.posterior["posterior"]
    coef = post["coef"].stack(s=("chain", "draw"))
    sigma = post["sigma"].stack(s=("chain", "draw"))
    total = 0.0
    for pw, con, y in zip(rows["protected_word"], rows["connection"], rows["cosine_distance"],
                          strict=True):
        total = total + norm.logpdf(y, coef.sel(protected_word=pw, connection=con).values,
                                    sigma.sel(connection=con).values)
    return float(logsumexp(total) - np.log(total.size))


def _exact_word_elpd(fit: embias.BiasFit, word: str) -> float:
    """The exact leave-one-compared-word-out elpd of ``word``: refit the table without its
    rows with the fit's settings, then :func:`_held_out_elpd` of those rows."""
    table = fit.table
    held = table["word_to_compare"] == word
    run = fit.fit_settings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refit = embias.fit_bias_model(table.loc[~held], settings=run, progress=False)
    return _held_out_elpd(refit, table.loc[held])


# --------------------------------------------------------------------------- the table
def test_levels_rank_as_the_authors_waic_with_looic_on_the_deviance_scale(fits, by_word):
    """The authors' WAIC (deviance scale, lower is better): baseline −2283, per-word
    coefficients −2328, per-connection coefficients −2400. Leaving one compared word out,
    the corresponding levels rank the same way, each step by more than 2 dse."""
    table = by_word.set_index("model")
    assert list(by_word["model"]) == ["hierarchical", "word", "dataset"]
    assert np.allclose(table["looic"], -2.0 * table["elpd"])
    assert (table["elpd_diff"] <= 0).all() and table.loc["hierarchical", "elpd_diff"] == 0
    gap_word = table.loc["hierarchical", "elpd"] - table.loc["word", "elpd"]
    assert gap_word > 2 * table.loc["word", "dse"]
    # dse of dataset is against the best (hierarchical); word − dataset by itself:
    pair = compare_models_refit({k: fits[k] for k in ("word", "dataset")}, by="word",
                                refit="none").set_index("model")
    assert pair.loc["dataset", "elpd_diff"] < -2 * pair.loc["dataset", "dse"]
    assert set(by_word["method"]) == {"psis"} and (by_word["refits"] == 0).all()
    assert (by_word["by"] == "word").all()


def test_compare_models_gives_the_same_comparison(fits, by_word):
    """loo.compare_models of the fits (PSIS) and of refit_loo(refit="none") agree to
    the last digit."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_models(fits, by="word")
    assert list(table["model"]) == list(by_word["model"])
    for column in ("elpd", "se", "elpd_diff", "dse", "p", "weight", "looic", "pareto_k_max"):
        assert np.allclose(table[column], by_word[column], rtol=0, atol=1e-9), column
    assert list(table["pareto_k_bad"]) == list(by_word["pareto_k_bad"])


# --------------------------------------------------------------------------- PSIS vs refits
def test_psis_of_a_low_k_word_matches_an_exact_refit_without_it(fits):
    """The compared word with the largest p_loo among those with Pareto k < 0.5: its PSIS
    elpd agrees with the exact one (a fit of the table without its 15 rows, the rows'
    density computed with scipy) within 0.25 nats (the Monte Carlo error of 1000 draws is
    ≈ 0.05)."""
    import arviz as az

    from embias.bayes.loo import loo_tree

    fit = fits["hierarchical"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = az.loo(loo_tree(fit, "word"), pointwise=True, var_name="compared_word")
    k = loo.pareto_k.to_series()
    p_loo = loo.p_loo_i.to_series() if getattr(loo, "p_loo_i", None) is not None else None
    candidates = k[k < 0.5].index
    word = (p_loo[candidates].idxmax() if p_loo is not None else candidates[0])
    exact = _exact_word_elpd(fit, word)
    psis = float(loo.elpd_i.sel(word_to_compare=word))
    assert abs(psis - exact) < 0.25, (word, psis, exact)


def test_reloo_refits_the_high_k_word_exactly(fits):
    """ArviZ's reloo through embias's refits: the word with the largest Pareto k (> 0.7) is
    refitted without its rows; its elpd is then the exact one — the same draws as an
    independent fit of the same table and settings, and the same density computed with
    scipy — its k is set to 0 and the total elpd moves by the difference."""
    import arviz as az

    from embias.bayes.loo import loo_tree

    fit = fits["hierarchical"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loo = az.loo(loo_tree(fit, "word"), pointwise=True, var_name="compared_word")
    k = loo.pareto_k.to_series().sort_values(ascending=False)
    word, k_top = k.index[0], float(k.iloc[0])
    assert k_top > 0.7  # a word PSIS cannot be trusted with
    threshold = (k_top + float(k.iloc[1])) / 2.0   # only the top word is refitted
    result = refit_loo(fit, by="word", refit="reloo", k_threshold=threshold)
    assert result.refits == 1 and result.method == "reloo" and result.seconds > 0
    exact = _exact_word_elpd(fit, word)
    elpd_i = result.elpd.elpd_i.to_series()
    assert elpd_i[word] == pytest.approx(exact, abs=1e-9)
    assert float(result.elpd.pareto_k.sel(word_to_compare=word)) == 0.0
    others = elpd_i.index != word
    assert np.allclose(elpd_i[others], loo.elpd_i.to_series()[others])
    assert result.elpd.elpd == pytest.approx(loo.elpd - float(loo.elpd_i.sel(
        word_to_compare=word)) + exact, abs=1e-6)


def test_kfold_folds_never_hold_every_word_of_a_pattern(fits):
    """Grouped K-fold holds out whole compared words; words with the same rows (e.g. the
    3 Christian stereotypes, associated with the same 5 protected words) land in
    different folds, so no fold empties an associated cell."""
    table = fits["hierarchical"].table
    words = list(dict.fromkeys(table["word_to_compare"].astype(str)))
    folds = _word_folds(table, words, 10, 0)
    assert set(folds) == set(range(1, 11))
    sizes = np.bincount(folds)[1:]
    assert sizes.max() - sizes.min() <= 3   # 322 words in 10 folds of 30–35
    fold_of = dict(zip(words, folds, strict=True))
    attributes = table[table["connection"] == "associated"]
    for _, group in attributes.groupby("protected_word"):
        held = [fold_of[w] for w in group["word_to_compare"]]
        assert len(set(held)) == len(held)          # every associated word in its own fold
    assert np.array_equal(folds, _word_folds(table, words, 10, 0))      # seeded


def test_protected_word_terms_at_the_dataset_and_word_levels(fits):
    """Leaving a protected word out (word_influence's PSIS weights): at the dataset level
    its term is the sum of its rows' terms (loo.pointwise_log_likelihood); at the word
    level its m ~ N(1, 0.5) is integrated out — Bayes' rule with scipy at a posterior
    draw of m."""
    import xarray as xr

    from embias.bayes.influence import protected_word_log_likelihood
    from embias.bayes.loo import pointwise_log_likelihood

    fit = fits["dataset"]
    rows = pointwise_log_likelihood(fit)["cosine_distance"]
    group = xr.DataArray(fit.table["protected_word"].astype(str).to_numpy(), dims="row",
                         name="protected_word")
    summed = rows.groupby(group).sum()
    ll = protected_word_log_likelihood(fit)
    assert np.allclose(ll, summed.sel(protected_word=ll["protected_word"].values), rtol=0,
                       atol=1e-8)
    fit = fits["word"]
    post = fit.posterior["posterior"]
    ll = protected_word_log_likelihood(fit)
    table = fit.table
    for word in ("quran", "church"):
        rows = table[table["protected_word"] == word]
        for chain, draw in ((0, 3), (1, 250)):
            sel = {"chain": chain, "draw": draw}
            sigma = float(post["sigma"].isel(sel))
            m = float(post["m"].isel(sel).sel(protected_word=word))
            co = post["co"].isel(sel).sel(connection=rows["connection"].to_numpy()).values
            r = rows["cosine_distance"].to_numpy() - co
            precision = 1 / 0.25 + len(r) / sigma**2
            mean = (1.0 / 0.25 + r.sum() / sigma**2) / precision
            expected = (norm.logpdf(r, m, sigma).sum() + norm.logpdf(m, 1.0, 0.5)
                        - norm.logpdf(m, mean, precision**-0.5))
            assert float(ll.sel(protected_word=word).isel(sel)) == pytest.approx(expected,
                                                                                 abs=1e-7)


# --------------------------------------------------------------------------- bad input
def _without_cache(fit: embias.BiasFit, **changes) -> embias.BiasFit:
    tree = fit.posterior.copy(deep=True)
    if "log_likelihood" in tree.children:
        del tree["log_likelihood"]
    return dataclasses.replace(fit, posterior=tree, **changes)


def test_bad_input_is_a_value_error_naming_the_problem(fits):
    fit = fits["hierarchical"]
    table = fit.table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a table without word_to_compare: refused by the models, and by compare_models
        with pytest.raises(ValueError, match="word_to_compare"):
            embias.fit_bias_model(table.drop(columns="word_to_compare"), level="crossed",
                                  draws=10, tune=10, random_seed=0, progress=False)
        bare = {level: _without_cache(f, table=f.table.drop(columns="word_to_compare"))
                for level, f in fits.items() if level != "word"}
        for by in ("word", "row"):
            with pytest.raises(ValueError, match="word_to_compare"):
                compare_models(bare, by=by)
        # a compared word with a single row: the crossed level cannot tell its effect
        # from the row's noise
        lonely = table[(table["word_to_compare"] != "terrorist")
                       | (table["protected_word"] == table["protected_word"].iloc[0])]
        with pytest.raises(ValueError, match=r"single row.*'terrorist'"):
            embias.fit_bias_model(lonely, level="crossed", draws=10, tune=10, random_seed=0,
                                  progress=False)
        # ... and word_influence/refit_loo check a table without a word before refitting:
        # 'violent' left with the rows of 3 protected words, one of them left out
        crossed = types.SimpleNamespace(level="crossed")
        p1, p2, p3 = table["protected_word"].unique()[:3]
        three = table[table["protected_word"].isin([p1, p2, p3])]
        three = three[(three["protected_word"] != p3) | (three["word_to_compare"] != "violent")]
        check_left_out(crossed, three, "nothing")   # 'violent' has 2 rows: fine
        with pytest.raises(ValueError, match=r"leaving out protected word 'x' leaves a table "
                           r"the crossed model cannot fit.*single row.*'violent'"):
            check_left_out(crossed, three[three["protected_word"] != p1], "protected word 'x'")
        # fits of different tables
        other = _without_cache(fits["dataset"], table=table.iloc[:-15])
        with pytest.raises(ValueError, match="another table"):
            compare_models({"hierarchical": fit, "dataset": other})
        with pytest.raises(ValueError, match="another table"):
            compare_models_refit({"hierarchical": fit, "dataset": other}, refit="none")
        shifted = table.assign(cosine_distance=table["cosine_distance"] + 0.01)
        with pytest.raises(ValueError, match="another table"):
            compare_models({"hierarchical": fit, "dataset": _without_cache(
                fits["dataset"], table=shifted)})
        # one fit, several of one level, unknown unit or refit
        with pytest.raises(ValueError, match="at least two"):
            compare_models({"hierarchical": fit})
        with pytest.raises(ValueError, match="same level"):
            compare_models([fit, fit])
        with pytest.raises(ValueError, match="'column'"):
            compare_models(fits, by="column")
        with pytest.raises(ValueError, match="'exact'"):
            refit_loo(fit, refit="exact")
        with pytest.raises(ValueError, match="folds=400 is more than the 322"):
            refit_loo(fit, refit="kfold", folds=400)
        import arviz as az
        import xarray as xr

        rng = np.random.default_rng(0)
        three_points = az.loo(xr.DataTree.from_dict({
            "posterior": xr.Dataset({"x": (("chain", "draw"), rng.normal(size=(2, 50)))}),
            "log_likelihood": xr.Dataset({"y": (("chain", "draw", "obs"),
                                                rng.normal(size=(2, 50, 3)))})}),
            pointwise=True)
        word = refit_loo(fit, by="word", refit="none")
        with pytest.raises(ValueError, match="same data points"):
            compare_models({"a": three_points, "b": word})
        with pytest.raises(ValueError, match="at least two"):
            compare_models({"b": word})


# --------------------------------------------------------------------------- command line
def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EMBIAS), *argv], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"},
                          timeout=600)


def test_command_prints_the_comparison_from_the_saved_fits(fits, by_word, models_dir,
                                                          tmp_path):
    before = sorted(p.name for p in models_dir.iterdir())
    csv = tmp_path / "out" / "comparison.csv"
    done = _run("compare-models", "religion", "--embedding", "published:reddit",
                "--levels", ",".join(LEVELS), "--by", "word", "--draws", "500", "--tune",
                "500", "--seed", "2", "--out", str(models_dir), "--no-progress",
                "--csv", str(csv))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in models_dir.iterdir()) == before  # nothing refitted
    out = done.stdout
    assert "leave-one-word-out (how well are the rows of a new compared word predicted)" in out
    assert "looic = −2·elpd" in out
    lines = [line for line in out.splitlines() if line.startswith("| hierarchical")]
    assert len(lines) == 1
    written = pd.read_csv(csv)
    assert list(written["model"]) == list(by_word["model"])
    assert np.allclose(written["elpd"], by_word["elpd"], rtol=0, atol=1e-9)
    assert np.allclose(written["looic"], by_word["looic"], rtol=0, atol=1e-9)


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["--levels", "hierarchical"], 2, "at least two distinct levels"),
    (["--levels", "dataset,hierarchial"], 2, "unknown level(s) ['hierarchial']"),
    (["--by", "sentence"], 2, "invalid choice: 'sentence'"),
    (["--k-threshold", "3"], 2, "k_threshold must be in (0, 2)"),
    (["--folds", "1"], 2, "folds"),
])
def test_command_refuses_bad_options(argv, code, message):
    done = _run("compare-models", "religion", *argv)
    assert done.returncode == code and message in done.stderr, done.stderr


def test_command_unknown_study_is_one_line(tmp_path):
    done = _run("compare-models", "religon", "--out", str(tmp_path))
    err = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(err) == 1 and err[0].startswith("embias: error:")
    assert "religon" in err[0]
