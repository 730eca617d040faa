"""The crossed model of a sentence table: templates as a random effect next to the compared
words, fitted from the command line with ``--encoder``.

Known answers: the template statistics against a plain pandas group-by; the closed-form
marginal likelihood (u integrated out, given the template effects) against scipy's
multivariate Normal density of each word's rows; the fast model against the latent-u
model (``data="raw"``, every u sampled) on one table — one posterior, within Monte Carlo
error; the generating values of a table drawn from the model.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from mcmc_bounds import max_rhat_bound
from scipy import stats

import embias
from embias.bayes.crossed import WORD_KIND_OF_CONNECTION, crossed_design, row_template_effects
from embias.bayes.data import cell_statistics
from embias.bayes.model import build_model
from embias.cli import main

pytestmark = pytest.mark.xdist_group("seat_model")

CLASSES = {"a": ["a1", "a2", "a3"], "b": ["b1", "b2", "b3"]}
ATTRIBUTES = {"a": ["x1", "x2", "x3"], "b": ["y1", "y2", "y3"]}
#: The generating values of :func:`template_table`.
TAU_TEMPLATE = 0.03
TAU_TEMPLATE_KIND = 0.015


def template_table(*, seed: int, templates: int = 6, neutral: int = 10, human: int = 4,
                   tau_u: float = 0.08, sigma: float = 0.04,
                   coef_sd: float = 0.06) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A sentence-like table drawn from the crossed model with templates: 6 protected words
    each in ``templates`` templates, 6 attribute words, neutral and human words;
    y = coef[p, con] + u[w] + v[t] + v×[t, kind(w)] + ε. Returns the table and
    V[t, kind] = v + v× (templates × kinds)."""
    rng = np.random.default_rng(seed)
    bar = {"associated": 0.80, "different": 0.85, "human": 0.82, "none": 0.90}
    coef = {(p, con): bar[con] + coef_sd * rng.standard_normal()
            for words in CLASSES.values() for p in words for con in bar}
    compared = ([(w, f"{c}_attr", c) for c, ws in ATTRIBUTES.items() for w in ws]
                + [(f"n{i}", "neutral", None) for i in range(neutral)]
                + [(f"h{i}", "human", None) for i in range(human)])
    u = {w: tau_u * rng.standard_normal() for w, _, _ in compared}
    names = [f"T{i} {{term}}." for i in range(templates)]
    v = {t: TAU_TEMPLATE * rng.standard_normal() for t in names}
    v_kind = {(t, k): TAU_TEMPLATE_KIND * rng.standard_normal()
              for t in names for k in ("attribute", "neutral", "human")}
    rows = []
    for cls, words in CLASSES.items():
        for p in words:
            for t in names:
                for w, word_class, owner in compared:
                    con = ("none" if word_class == "neutral" else "human"
                           if word_class == "human" else "associated" if owner == cls
                           else "different")
                    y = (coef[(p, con)] + u[w] + v[t]
                         + v_kind[(t, WORD_KIND_OF_CONNECTION[con])]
                         + sigma * rng.standard_normal())
                    rows.append({"protected_word": p, "protected_class": cls, "template": t,
                                 "word_to_compare": w, "word_class": word_class,
                                 "connection": con, "cosine_distance": y})
    effects = pd.DataFrame([[v[t] + v_kind[(t, k)] for k in ("attribute", "neutral", "human")]
                            for t in names], index=names,
                           columns=["attribute", "neutral", "human"])
    return pd.DataFrame(rows), effects


# --------------------------------------------------------------------------- statistics
def test_template_statistics_are_the_group_means_and_counts() -> None:
    table, _ = template_table(seed=1, templates=3, neutral=4, human=2)
    table = table.sample(frac=1.0, random_state=0).reset_index(drop=True)  # any row order
    table = table.drop(index=[0, 1, 2]).reset_index(drop=True)  # unequal cells
    cells = cell_statistics(table)
    design = crossed_design(table, cells)
    t = design.template
    assert t is not None and t.interaction
    words = list(dict.fromkeys(cells["protected_word"]))
    cons = list(dict.fromkeys(cells["connection"]))
    got = pd.DataFrame({"protected_word": np.asarray(words)[t.cell_word],
                        "connection": np.asarray(cons)[t.cell_connection],
                        "template": np.asarray(t.templates)[t.cell_template],
                        "n": t.n, "mean": t.mean}).set_index(
        ["protected_word", "connection", "template"]).sort_index()
    by = table.groupby(["protected_word", "connection", "template"])["cosine_distance"]
    expected = pd.DataFrame({"n": by.size().astype(float), "mean": by.mean()}).sort_index()
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12)
    ss = by.apply(lambda y: float(((y - y.mean()) ** 2).sum())).groupby("connection").sum()
    np.testing.assert_allclose(t.ss_by_connection, ss.reindex(cons).to_numpy(), rtol=1e-10)
    counts = table.groupby(["word_to_compare", "template", "connection"]).size()
    for (word, template, con), n in counts.items():
        assert t.word_template_count[design.words.index(word), t.templates.index(template),
                                     cons.index(con)] == n
    assert t.word_template_count.sum() == len(table)
    # every word's pattern reproduces its own counts
    pattern = design.word_pattern
    np.testing.assert_array_equal(design.patterns[pattern], design.word_cell_count)
    np.testing.assert_array_equal(design.pattern_template_count[pattern],
                                  t.word_template_count)


def test_marginal_likelihood_is_each_words_multivariate_normal_density() -> None:
    table, _ = template_table(seed=2, templates=3, neutral=6, human=3)
    cells = cell_statistics(table)
    model = build_model(cells, level="crossed", table=table, centred=())
    design = crossed_design(table, cells)
    t = design.template
    rng = np.random.default_rng(3)
    cons = list(model.coords["connection"])
    words = list(model.coords["protected_word"])
    kinds = list(model.coords["word_kind"])
    assert list(model.coords["template"]) == t.templates
    bar = rng.uniform(0.7, 0.95, len(cons))
    tau = rng.uniform(0.01, 0.05, len(cons))
    sigma = rng.uniform(0.02, 0.06, len(cons))
    tau_word = rng.uniform(0.03, 0.12, len(kinds))
    z = rng.standard_normal((len(words), len(cons)))
    tau_t, tau_tk = 0.03, 0.012
    raw_t = rng.standard_normal(len(t.templates)) * np.where(t.centred, tau_t, 1.0)
    raw_tk = rng.standard_normal((len(t.templates), len(kinds))) * np.where(
        t.centred_interaction, tau_tk, 1.0)
    point = {"bar": bar, "tau_log__": np.log(tau), "sigma_log__": np.log(sigma),
             "tau_word_log__": np.log(tau_word), "coef_raw": z,
             "tau_template_log__": np.log(tau_t), "template_raw": raw_t,
             "tau_template_kind_log__": np.log(tau_tk), "template_kind_raw": raw_tk}
    graph = model.replace_rvs_by_values([model.potentials[0]])[0]
    potential = model.compile_fn(graph, inputs=model.value_vars,
                                 on_unused_input="ignore")(point)
    # by hand: V[t, k] = v[t] + v×[t, k], and each compared word's rows
    # ~ MVN(coef + V, diag σ² + τ_u² 11ᵀ)
    v = raw_t * np.where(t.centred, 1.0, tau_t)
    v_kind = v[:, None] + raw_tk * np.where(t.centred_interaction, 1.0, tau_tk)
    coef = bar[None, :] + tau[None, :] * z
    expected = 0.0
    for w, word in enumerate(design.words):
        part = table[table["word_to_compare"] == word]
        mu = [coef[words.index(p), cons.index(c)]
              + v_kind[t.templates.index(tm), kinds.index(WORD_KIND_OF_CONNECTION[c])]
              for p, c, tm in zip(part["protected_word"], part["connection"],
                                  part["template"], strict=True)]
        var = np.array([sigma[cons.index(c)] ** 2 for c in part["connection"]])
        t2 = tau_word[design.word_kind[w]] ** 2
        expected += stats.multivariate_normal(mu, np.diag(var) + t2).logpdf(
            part["cosine_distance"])
    assert float(potential) == pytest.approx(expected, rel=1e-10, abs=1e-8)


def test_a_word_table_keeps_the_crossed_model_without_templates() -> None:
    table, _ = template_table(seed=3, templates=1, neutral=4, human=2)
    words_only = table.drop(columns="template")
    cells = cell_statistics(words_only)
    model = build_model(cells, level="crossed", table=words_only)
    assert [v.name for v in model.free_RVs] == ["bar", "tau", "sigma", "coef_raw", "tau_word"]
    assert crossed_design(words_only, cells).template is None
    with pytest.raises(ValueError, match="the template column has 1 missing value"):
        crossed_design(table.assign(template=table["template"].where(table.index != 5)),
                       cell_statistics(table))


# --------------------------------------------------------------------------- fits
@pytest.fixture(scope="module")
def template_fits() -> dict[str, object]:
    table, effects = template_table(seed=5)
    opts = {"level": "crossed", "draws": 1000, "tune": 500, "random_seed": 8,
            "progress": False, "warn": False}
    return {"fast": embias.fit_bias_model(table, **opts),
            "latent": embias.fit_bias_model(table, data="raw", **opts),
            "effects": effects}  # and the generating template effects V


@pytest.mark.parametrize("var", ["connection_mean", "coef", "tau_word", "word_effect",
                                 "tau_template", "tau_template_kind", "template_effect",
                                 "template_kind_effect"])
@pytest.mark.slow
def test_integrated_and_latent_word_effects_give_one_posterior(template_fits, var) -> None:
    import arviz as az

    def mean_and_mcse(fit: embias.BiasFit) -> tuple[np.ndarray, np.ndarray]:
        post = fit.posterior["posterior"].to_dataset()[[var]]
        return (post[var].mean(("chain", "draw")).values.ravel(),
                az.mcse(post)[var].values.ravel())

    fast_mean, fast_se = mean_and_mcse(template_fits["fast"])
    slow_mean, slow_se = mean_and_mcse(template_fits["latent"])
    z = (fast_mean - slow_mean) / np.sqrt(fast_se**2 + slow_se**2)
    # every scalar within 4.5 joint Monte Carlo standard errors (the largest |z| of 24
    # independent normals exceeds 3.5 about 1% of the time)
    assert np.abs(z).max() < 4.5, z


@pytest.mark.slow
def test_sentence_fit_reports_the_template_sd_and_effects(template_fits) -> None:
    fit = template_fits["fast"]
    # this small table (500 tuning iterations) gives a chain a divergent transition now and
    # then: 14 of 60 single chains (seeds 0-59) from either first mass matrix, 15 and 44 in
    # all; more than 0.5% of the draws would be a real problem
    # r̂: within what well-mixed chains give at the fit's own smallest ESS (tests/mcmc_bounds.py)
    diagnostics = fit.diagnostics()
    ess = float(diagnostics[["ess_bulk", "ess_tail"]].min().min())
    assert fit.divergences <= 10
    assert diagnostics["r_hat"].max() <= max_rhat_bound(ess, len(diagnostics))
    table = fit.to_interval_table()
    sds = table[table["estimand"] == "template_sd"].set_index("group")
    assert list(sds.index) == ["template", "template × word kind"]
    # the table was drawn with τ_template = 0.03 and τ_template×kind = 0.015
    assert sds.loc["template", "lower"] < TAU_TEMPLATE < sds.loc["template", "upper"]
    assert (sds.loc["template × word kind", "lower"] < TAU_TEMPLATE_KIND
            < sds.loc["template × word kind", "upper"])
    truth = template_fits["effects"]
    effects = table[table["estimand"] == "template_effect"].set_index("group")
    assert list(effects.index) == list(truth.index)
    assert (effects["word_kind"] == "").all()
    by_kind = table[table["estimand"] == "template_kind_effect"].pivot(
        index="group", columns="word_kind", values="estimate").loc[truth.index, truth.columns]
    # V is told apart from the connection means only up to a shift per kind: compare the
    # templates' effects within each kind (18 values, sd 0.034; the noise of a template ×
    # kind mean is σ/√rows ≈ 0.04/√24 ≈ 0.008 for the human words, plus partial pooling)
    np.testing.assert_allclose(by_kind - by_kind.mean(), truth - truth.mean(), atol=0.02)
    assert np.corrcoef((by_kind - by_kind.mean()).to_numpy().ravel(),
                       (truth - truth.mean()).to_numpy().ravel())[0, 1] > 0.9
    # the compared words' sds sit next to the template sd, as at the crossed level
    assert list(table.loc[table["estimand"] == "compared_word_sd", "group"]) == [
        "attribute", "neutral", "human"]
    # each row's template effect: V[its template, its compared word's kind]
    effect = row_template_effects(fit.posterior, fit.table, fit.cells)
    post = fit.posterior["posterior"]
    row = fit.table.iloc[40]
    expected = post["template_kind_effect"].sel(
        template=row["template"], word_kind=WORD_KIND_OF_CONNECTION[row["connection"]])
    np.testing.assert_array_equal(effect[:, 40], expected.values.ravel())


# --------------------------------------------------------------------------- command line
TWO_TEMPLATES = ["This is {term}.", "That is {term}."]


def test_embias_fit_with_an_encoder_fits_the_sentence_table(tmp_path: Path, capsys) -> None:
    pytest.importorskip("onnxruntime")
    argv = ["fit", "weat7", "--encoder", "minilm", "--templates", *TWO_TEMPLATES,
            "--draws", "100", "--tune", "150", "--seed", "3", "--out", str(tmp_path),
            "--no-progress"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    out, _ = capsys.readouterr()
    assert ("# weat7 / all-MiniLM-L6-v2: crossed model, data=summary, 2 chains × 100 draws, "
            "seed 3") in out
    assert "| template_sd      | template             |" in out
    assert "| compared_word_sd | attribute            |" in out
    assert "| template_effect | This is {term}. |" in out
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith("weat7_minilm_crossed_summary_")
    record = json.loads((folder / "settings.json").read_text(encoding="utf-8"))["settings"]
    assert record["encoder"] == "minilm" and record["templates"] == "custom"
    assert record["template_list"] == sorted(TWO_TEMPLATES)
    fit = embias.load_fit(folder)
    assert sorted(set(fit.table["template"])) == sorted(TWO_TEMPLATES)
    # the same command reuses the saved fit; other templates are another fit
    stamp = (folder / "posterior.nc").stat().st_mtime_ns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    assert (folder / "posterior.nc").stat().st_mtime_ns == stamp
    assert len(list(tmp_path.iterdir())) == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["--templates", "This is {term}."], "--templates needs --encoder"),
    (["--encoder", "minilm", "--embedding", "published:reddit"],
     "give either --embedding (word vectors) or --encoder (a sentence encoder), not both"),
    (["--encoder", "minilm", "--templates", "This is it."],
     "has no {term} slot"),
])
def test_embias_fit_encoder_options_are_checked_first(tmp_path, capsys, argv, message):
    assert main(["fit", "religion", *argv, "--out", str(tmp_path)]) == 1
    _, err = capsys.readouterr()
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_encoder_names_agree_with_the_library() -> None:
    from embias.cli._options import ENCODER_NAMES
    from embias.pipeline.sentence_fits import ENCODERS

    assert ENCODER_NAMES == ENCODERS
