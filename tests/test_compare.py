"""Comparing embeddings: the paired change model, fits on any executor, the CLI.

Every fit here is real PyMC sampling (seeded, small draws). Known answers: the authors'
Reddit tables (MAC 0.861 → 0.933 and Manzini's paired t-test, recomputed here from the
raw rows with pandas/scipy), a synthetic table with a known shift of one connection,
and identical draws from a local process pool and a Dask cluster for the same seeds.
Tolerances are stated next to each assertion.
"""

from __future__ import annotations

import warnings

import arviz as az
import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from embias import (
    EmbeddingComparison,
    FitJob,
    FitSettings,
    align_tables,
    compare_embeddings,
    difference_table,
    fit_change_model,
    fit_many,
    load_published_table,
    load_study,
    study_jobs,
)
from embias.bayes import CHANGE_ESTIMANDS
from embias.settings import DEFAULT_CI_PROB

matplotlib.use("Agg")

# one xdist worker runs this module: the comparison fixture is fitted once
pytestmark = pytest.mark.xdist_group("compare")

REDDIT = {"biased": "published:reddit", "hard": "published:reddit-debiased"}
#: small but stable settings: 2 chains × 300 draws after 300 tuning steps
SMALL = {"draws": 300, "tune": 300, "chains": 2, "random_seed": 20240601,
         "level": "hierarchical"}  # the published model, whose figures these tests check
CONNECTIONS = ("associated", "different", "human", "none")


@pytest.fixture(scope="module")
def reddit_tables() -> dict[str, pd.DataFrame]:
    return {"biased": load_published_table("religion", "reddit"),
            "hard": load_published_table("religion", "reddit-debiased")}


@pytest.fixture(scope="module")
def reddit() -> EmbeddingComparison:
    """The authors' Reddit religion tables, biased vs hard-debiased, fitted in a local
    process pool of two fresh worker processes."""
    return compare_embeddings(REDDIT, "religion", **SMALL, max_workers=2, progress=False,
                              warn=False)


def _posterior_arrays(result: EmbeddingComparison) -> dict[str, np.ndarray]:
    arrays = {}
    for label, fit in result.fits.items():
        post = fit.posterior["posterior"].to_dataset()
        arrays |= {f"fit {label}: {v}": post[v].to_numpy() for v in post.data_vars}
    for label, change in result.change_fits.items():
        post = change.posterior["posterior"].to_dataset()
        arrays |= {f"change {label}: {v}": post[v].to_numpy() for v in post.data_vars}
    return arrays


# --------------------------------------------------------------------------- reddit
def test_reddit_mac_change_matches_the_raw_rows(reddit, reddit_tables):
    # independent recomputation: S(t, A_j) = mean distance of protected word t to the words
    # of attribute class j; MAC = mean S; Manzini's paired t-test over the matched S values
    s = {}
    for label, table in reddit_tables.items():
        attr = table[table["connection"].isin(["associated", "different"])]
        s[label] = attr.groupby(["protected_word", "word_class"])["cosine_distance"].mean()
    assert s["biased"].mean() == pytest.approx(0.8614, abs=5e-4)
    assert s["hard"].mean() == pytest.approx(0.9334, abs=5e-4)
    test = stats.ttest_rel(s["hard"], s["biased"].loc[s["hard"].index])
    row = reddit.classic.query("estimand == 'mac_change' and group == 'all'").iloc[0]
    assert row["estimate"] == pytest.approx(s["hard"].mean() - s["biased"].mean(), abs=1e-12)
    assert row["p_value"] == pytest.approx(test.pvalue, rel=1e-9)
    assert row["p_value"] == pytest.approx(2.26e-6, rel=0.01)
    assert (row["mac_reference"], row["mac_embedding"]) == pytest.approx((0.8614, 0.9334),
                                                                         abs=5e-4)
    assert row["ci_kind"] == "t" and row["ci_prob"] == DEFAULT_CI_PROB
    interval = test.confidence_interval(confidence_level=DEFAULT_CI_PROB)
    assert (row["lower"], row["upper"]) == pytest.approx((interval.low, interval.high),
                                                         rel=1e-9)


def test_reddit_change_hpdis(reddit, reddit_tables):
    changes = reddit.change_summary()
    assert set(changes["estimand"]) == {"change_connection_mean", "change_contrast",
                                        "mac_change", "weat_change"}
    bayes = changes[changes["estimand"].str.startswith("change")].set_index("group")
    assert (bayes["embedding"] == "hard").all() and (bayes["reference"] == "biased").all()
    assert (bayes["ci_kind"] == "hdi").all() and (bayes["ci_prob"] == 0.89).all()
    # the change of a connection mean is close to the mean of the cells' mean paired
    # differences (the partial pooling and 600 draws move it by < 0.01)
    d = reddit_tables["hard"]["cosine_distance"] - reddit_tables["biased"]["cosine_distance"]
    cell_means = d.groupby([reddit_tables["biased"]["connection"],
                            reddit_tables["biased"]["protected_word"]]).mean()
    conn = bayes[bayes["estimand"] == "change_connection_mean"]
    for con in CONNECTIONS:
        assert conn.loc[con, "estimate"] == pytest.approx(cell_means[con].mean(), abs=0.01)
    # what changed: associated moved away (≈ +0.10, credibly > 0 and outside the ROPE),
    # the neutral words did not (≈ 0.004, practically equivalent to no change)
    assert conn.loc["associated", "lower"] > 0.04
    assert conn.loc["associated", "rope_decision"] == "credible difference"
    assert conn.loc["none", "lower"] < 0 < conn.loc["none", "upper"]
    assert conn.loc["none", "rope_decision"] == "practically equivalent"
    contrast = bayes[bayes["estimand"] == "change_contrast"]
    assert contrast.loc["associated - none", "estimate"] == pytest.approx(
        conn.loc["associated", "estimate"] - conn.loc["none", "estimate"], abs=1e-9)
    assert contrast.loc["associated - none", "prob_gt_0"] > 0.99
    assert contrast.loc["associated - none", "rope_decision"] == "credible difference"


def test_reddit_separate_fits_replicate_the_published_model(reddit):
    # DESIGN §5: the authors' hierarchical fit of the biased table (connection means)
    published = {"associated": 0.832, "different": 0.885, "human": 0.907, "none": 0.954}
    table = reddit.summary()
    means = table.query("estimand == 'connection_mean' and embedding == 'biased'")
    for con, value in published.items():
        assert means.set_index("group").loc[con, "estimate"] == pytest.approx(value, abs=0.01)


def test_paired_intervals_are_narrower_than_the_difference_of_separate_fits(reddit):
    # the docs' claim: the separate posteriors ignore the pairing; the difference of their
    # (independent) draws has a wider HPDI than the paired change for every connection
    biased = reddit.fits["biased"].posterior["posterior"]["connection_mean"]
    hard = reddit.fits["hard"].posterior["posterior"]["connection_mean"]
    naive = az.hdi((hard - biased).to_dataset(name="d"), prob=0.89)["d"]
    conn = reddit.change_summary().query("estimand == 'change_connection_mean'")
    for _, row in conn.iterrows():
        naive_width = float(naive.sel(connection=row["group"], ci_bound="upper")
                            - naive.sel(connection=row["group"], ci_bound="lower"))
        assert row["upper"] - row["lower"] < 0.8 * naive_width, row["group"]
    # … and the 89% HPDIs of associated − none overlap between the separate fits even
    # though the paired change of that contrast is credibly positive
    table = reddit.summary().query("estimand == 'contrast' and group == 'associated - none'")
    lo, hi = table.set_index("embedding").loc[["biased", "hard"], ["lower", "upper"]].T.values
    assert max(lo) < min(hi)


def test_one_interval_table_with_every_embedding(reddit):
    table = reddit.summary()
    assert {"estimand", "group", "embedding", "reference", "estimate", "lower", "upper",
            "ci_prob", "ci_kind", "prob_gt_0", "rope_decision", "p_value"} <= set(table.columns)
    counts = table.groupby(["embedding", "estimand"]).size()
    for label in ("biased", "hard"):
        assert counts[(label, "connection_mean")] == 4
        assert counts[(label, "word_coefficient")] == 15 * 4
        assert counts[(label, "mac")] == 3
        assert counts[(label, "weat_effect_size")] == 3
    for estimand, n in zip(CHANGE_ESTIMANDS, (4, 4, 60, 60), strict=True):
        assert counts[("hard", estimand)] == n
    change = table[table["estimand"].str.startswith("change")]
    assert change["prob_gt_0"].between(0, 1).all()
    assert set(change["rope_decision"]) <= {"credible difference", "practically equivalent",
                                            "undecided"}
    assert reddit.unmatched.empty
    assert reddit.settings["rows"] == 4830
    figure = reddit.plot()
    assert len(figure.axes) == 3 + 3  # means, contrasts, change | one panel per class
    assert "change vs biased" in figure.axes[2].get_title()


# --------------------------------------------------------------------------- executors
def test_dask_local_cluster_gives_the_same_draws(reddit):
    import dask.distributed as distributed
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        on_dask = compare_embeddings(REDDIT, "religion", **SMALL,
                                     executor=client.get_executor(), progress=False,
                                     warn=False)
    local, remote = _posterior_arrays(reddit), _posterior_arrays(on_dask)
    assert local.keys() == remote.keys() and len(local) >= 10
    for name, array in local.items():
        assert np.array_equal(array, remote[name]), name
    assert on_dask.settings["seeds"] == reddit.settings["seeds"]
    pd.testing.assert_frame_equal(on_dask.summary(), reddit.summary())


def test_fit_jobs_validate_and_errors_name_the_job(reddit_tables):
    table = reddit_tables["biased"]
    with pytest.raises(ValueError, match=r"FitJob 'x': random_seed must be a non-negative "
                                         r"integer \(fits must be reproducible"):
        FitJob(table, {"draws": 10}, label="x")
    with pytest.raises(ValueError, match=r"FitJob 'x': unknown fit option\(s\) \['draw'\]"):
        FitJob(table, {"draw": 10, "random_seed": 1}, label="x")
    with pytest.raises(ValueError, match="fit_many\\(\\) needs at least one FitJob, got none"):
        fit_many([])
    with pytest.raises(ValueError, match="FitJob 'zero draws': draws must be an integer ≥ 1, "
                                         "got 0"):
        FitJob(table, {"draws": 0, "random_seed": 1}, label="zero draws")
    one_word = table[table["protected_word"] == table["protected_word"].iloc[0]]
    with pytest.raises(ValueError, match="has a single protected word") as info:
        fit_many([FitJob(one_word, FitSettings(draws=10, random_seed=1), label="one word")],
                 progress=False)
    assert "while fitting job 0 ('one word')" in info.value.__notes__


def test_study_jobs_cross_studies_embeddings_and_seeds():
    jobs = study_jobs(["religion"], REDDIT, seeds=[1, 2], draws=50, tune=50)
    assert [j.label for j in jobs] == ["religion/biased/seed=1", "religion/biased/seed=2",
                                       "religion/hard/seed=1", "religion/hard/seed=2"]
    assert jobs[0].settings == FitSettings(cores=1, draws=50, tune=50, random_seed=1)
    assert len(jobs[3].table) == 4830
    with pytest.raises(ValueError, match=r"unknown fit option\(s\) \['draw'\]"):
        study_jobs(["religion"], REDDIT, seeds=[1], draw=50)


# --------------------------------------------------------------------------- known answers
@pytest.mark.slow
def test_change_model_recovers_a_known_shift(reddit_tables):
    # y' = y + 0.05 on the associated rows + N(0, 0.03) noise everywhere: the change is
    # 0.05 for associated and 0 elsewhere (up to the noise's sample mean, known exactly)
    table = reddit_tables["biased"]
    rng = np.random.default_rng(0)
    shifted = table.assign(cosine_distance=table["cosine_distance"]
                           + np.where(table["connection"] == "associated", 0.05, 0.0)
                           + rng.normal(0.0, 0.03, len(table)))
    change = fit_change_model(shifted, table, label="shifted", reference_label="original",
                              draws=300, tune=300, random_seed=1, warn=False)
    summary = change.summary().set_index("group")
    d = change.differences
    cell_means = d.groupby(["connection", "protected_word"])["cosine_distance"].mean()
    conn = summary[summary["estimand"] == "change_connection_mean"]
    for con in CONNECTIONS:
        row = conn.loc[con]
        assert row["estimate"] == pytest.approx(cell_means[con].mean(), abs=0.003), con
        assert row["upper"] - row["lower"] < 0.025, con
    assert conn.loc["associated", "estimate"] == pytest.approx(0.05, abs=0.01)
    assert conn.loc["associated", "lower"] < 0.05 < conn.loc["associated", "upper"]
    for con in ("human", "none"):  # unchanged connections: 0 inside a narrow interval
        assert conn.loc[con, "lower"] < 0 < conn.loc[con, "upper"]
        assert conn.loc[con, "rope_decision"] == "practically equivalent"
    contrast = summary[summary["estimand"] == "change_contrast"].loc["associated - none"]
    assert contrast["estimate"] == pytest.approx(0.05, abs=0.01)
    assert contrast["rope_decision"] == "credible difference" and contrast["prob_gt_0"] == 1.0
    sigma = change.posterior["posterior"]["sigma"].mean(("chain", "draw"))
    np.testing.assert_allclose(sigma, 0.03, rtol=0.1)  # the residual sd is the noise sd
    assert change.embedding == "shifted" and change.reference == "original"


@pytest.mark.parametrize("level", ["hierarchical", "word", "dataset"])
def test_prior_location_centres_the_change_prior_at_zero(reddit_tables, level):
    # the change model is the level's model with prior_location=0: bar ~ N(0, 0.3)
    # (hierarchical) and m ~ N(0, 0.5) (word, dataset), against N(1, ·) for distances
    # (prior draws: 20,000 draws, se of the mean 0.002–0.004, tolerance 0.015)
    import pymc as pm

    from embias.bayes import build_model, cell_statistics

    cells = cell_statistics(reddit_tables["biased"])
    name, sd = ("bar", 0.3) if level == "hierarchical" else ("m", 0.5)
    for location in (1.0, 0.0):
        model = build_model(cells, level=level, prior_location=location)
        draws = pm.draw(model[name], draws=20_000, random_seed=0)
        np.testing.assert_allclose(draws.mean(axis=0), location, atol=0.015)
        np.testing.assert_allclose(draws.std(axis=0), sd, rtol=0.03)


def test_the_change_fit_uses_prior_location_zero(reddit):
    for change in reddit.change_fits.values():
        assert change.settings["prior_location"] == 0.0
    for fit in reddit.fits.values():
        assert fit.settings["prior_location"] == 1.0


def test_an_embedding_compared_with_itself_is_refused(reddit_tables):
    table = reddit_tables["biased"]
    with pytest.raises(ValueError, match="embedding 'copy' gives exactly the same cosine "
                                         "distances as the reference 'biased' in all 4830 "
                                         "rows: the change is exactly 0"):
        fit_change_model(table.copy(), table, label="copy", reference_label="biased")


def test_difference_table_is_the_paired_difference(reddit_tables):
    a, b = reddit_tables["biased"], reddit_tables["hard"]
    d = difference_table(b, a, label="hard", reference_label="biased")
    np.testing.assert_array_equal(d["cosine_distance"],
                                  b["cosine_distance"].to_numpy() - a["cosine_distance"])
    assert d["embedding"].iloc[0] == "hard − biased"
    with pytest.raises(ValueError, match="are not aligned"):
        difference_table(b.iloc[::-1], a)


# --------------------------------------------------------------------------- bad input
def test_fewer_than_two_embeddings():
    with pytest.raises(ValueError, match="compare_embeddings\\(\\) needs at least 2 embeddings "
                                         "to compare, got 1"):
        compare_embeddings({"biased": "published:reddit"}, "religion")


@pytest.mark.parametrize(("source", "message"), [
    ("no-such-embedding", "embedding 'other': unknown embedding 'no-such-embedding'"),
    ("published:reddit-soft", "embedding 'other': unknown published table "
                              "'published:reddit-soft'; available: ['published:reddit'"),
    ("/no/such/vectors.kv", "embedding 'other': embedding file not found: "
                            "'/no/such/vectors.kv'"),
])
def test_unknown_embedding_source(source, message):
    with pytest.raises(ValueError) as info:
        compare_embeddings({"biased": "published:reddit", "other": source}, "religion")
    assert str(info.value).startswith(message)


def test_embeddings_of_different_dimensions(glove, make_kv):
    study = load_study("religion")
    words = {w.lower() for group in (*study.protected.values(), *study.attributes.values(),
                                     study.neutral, study.human) for w in group}
    words = sorted(w for w in words if w in glove.key_to_index)
    kv50 = make_kv({w: glove[w] for w in words})
    kv25 = make_kv({w: glove[w][:25] for w in words})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # words missing from GloVe
        with pytest.raises(ValueError, match=r"embeddings have different dimensions "
                                             r"\(full=50, cut=25\)"):
            compare_embeddings({"full": kv50, "cut": kv25}, "religion")


def test_tables_sharing_too_few_rows(reddit_tables):
    a, b = reddit_tables["biased"], reddit_tables["hard"]
    jewish = b[b["protected_class"] == "jewish"]
    with pytest.raises(ValueError, match=r"the embeddings' tables share too few rows \(a: 1610 "
                                         r"of 4830 rows; at least min_shared=0.8 of every "
                                         r"table must be common\)"):
        compare_embeddings({"a": a, "b": jewish})


def test_missing_words_are_reported_not_dropped_silently(reddit_tables):
    a, b = reddit_tables["biased"], reddit_tables["hard"]
    fewer = b[b["word_to_compare"] != "dallas"]
    with pytest.warns(UserWarning, match=r"15 word pairs are not in every embedding's table "
                                         r"and are left out of the comparison: b lacks 15 "
                                         r"\(words involved: \["):
        aligned, unmatched = align_tables({"a": a, "b": fewer})
    assert len(unmatched) == 15
    assert set(unmatched["word_to_compare"]) == {"dallas"}
    assert set(unmatched["missing_from"]) == {"b"}
    assert len(aligned["a"]) == len(aligned["b"]) == 4830 - 15
    assert (aligned["a"]["word_to_compare"].to_numpy()
            == aligned["b"]["word_to_compare"].to_numpy()).all()


def test_other_bad_options():
    with pytest.raises(ValueError, match=r"reference='soft' is not one of the embeddings "
                                         r"\['biased', 'hard'\]"):
        compare_embeddings(REDDIT, "religion", reference="soft")
    with pytest.raises(ValueError, match=r"level='cell' is not one of \['dataset', 'word', "
                                         r"'hierarchical', 'crossed'\]"):
        compare_embeddings(REDDIT, "religion", level="cell")
    with pytest.raises(ValueError, match="draws must be an integer ≥ 1, got 0"):
        compare_embeddings(REDDIT, "religion", draws=0)
    with pytest.raises(ValueError, match=r"min_shared must be a share in \(0, 1\], got 0"):
        compare_embeddings(REDDIT, "religion", min_shared=0)
    with pytest.raises(ValueError, match="a study is needed to build its cosine table"):
        compare_embeddings(REDDIT)
    table = load_published_table("religion", "reddit")
    doubled = pd.concat([table, table.head(3)], ignore_index=True)
    with pytest.raises(ValueError, match="embedding 'b': 6 rows share their word pair"):
        align_tables({"a": table, "b": doubled})
