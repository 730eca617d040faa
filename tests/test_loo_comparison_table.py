"""One comparison table: ``compare_models`` compares leave-one-out results already computed
(exact refits' :class:`RefitLoo`, plain ArviZ ELPD results) as it compares fits.

The results here are ArviZ's PSIS-LOO of synthetic log-likelihoods (no sampling); the
table must be ArviZ's ``compare`` of them (stacking, unrounded), with the columns embias
adds computed from the same results: looic = −2·elpd, the largest Pareto k and the number
above 0.7, the unit, the method and the number of refits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from embias.bayes.loo import K_THRESHOLD, RefitLoo, compare_models


def _loo(seed: int, shift: float, points: int = 12):
    """ArviZ's PSIS-LOO of a synthetic model: ``points`` observations, 2 × 200 draws."""
    import arviz as az
    import xarray as xr

    rng = np.random.default_rng(seed)
    log_lik = rng.normal(-1.0 - shift, 0.3, size=(2, 200, points))
    tree = xr.DataTree.from_dict({
        "posterior": xr.Dataset({"x": (("chain", "draw"), rng.normal(size=(2, 200)))}),
        "log_likelihood": xr.Dataset({"y": (("chain", "draw", "obs"), log_lik)})})
    return az.loo(tree, pointwise=True)


def test_results_already_computed_give_arviz_compare_with_their_method_and_refits():
    import arviz as az

    a, b, c = _loo(1, 0.0), _loo(2, 0.4), _loo(3, 0.2)
    results = {"a": RefitLoo(a, "reloo", 3, 1.5, "word"),
               "b": RefitLoo(b, "kfold", 10, 9.0, "word"), "c": c}
    table = compare_models(results)
    expected = az.compare({"a": a, "b": b, "c": c}, method="stacking",
                          round_to="none").reset_index(names="model")
    assert list(table["model"]) == list(expected["model"]) == ["a", "c", "b"]
    for column in ("rank", "elpd", "se", "elpd_diff", "dse", "p", "weight"):
        assert np.allclose(table[column].astype(float), expected[column].astype(float),
                           rtol=0, atol=1e-12), column
    assert np.allclose(table["looic"], -2.0 * table["elpd"])
    by_model = table.set_index("model")
    for label, result in (("a", a), ("b", b), ("c", c)):
        k = np.asarray(result.pareto_k)
        assert by_model.loc[label, "pareto_k_max"] == pytest.approx(float(k.max()))
        assert by_model.loc[label, "pareto_k_bad"] == int((k > K_THRESHOLD).sum())
    assert by_model["method"].to_dict() == {"a": "reloo", "c": "psis", "b": "kfold"}
    assert by_model["refits"].to_dict() == {"a": 3, "c": 0, "b": 10}
    assert set(table["by"]) == {"word"}          # the RefitLoo results' own unit
    columns = ["model", "rank", "elpd", "se", "elpd_diff", "dse", "p", "weight", "looic",
               "pareto_k_max", "pareto_k_bad", "warning", "by", "method", "refits"]
    # ArviZ's "warning" column is kept where the ArviZ version gives one
    assert list(table.columns) == [c for c in columns if c != "warning" or c in expected]


def test_plain_arviz_results_without_a_unit_are_labelled_by_the_unit_given():
    table = compare_models({"a": _loo(1, 0.0), "b": _loo(2, 0.4)}, by="row")
    assert set(table["by"]) == {"row"}
    assert isinstance(table, pd.DataFrame) and list(table["method"]) == ["psis", "psis"]
    assert set(compare_models({"a": _loo(1, 0.0), "b": _loo(2, 0.4)})["by"]) == {""}


def test_results_of_other_units_or_data_points_are_refused():
    word = RefitLoo(_loo(1, 0.0), "reloo", 0, 0.0, "word")
    row = RefitLoo(_loo(2, 0.0), "reloo", 0, 0.0, "row")
    with pytest.raises(ValueError, match=r"different units \['row', 'word'\]"):
        compare_models({"a": word, "b": row})
    with pytest.raises(ValueError, match=r"by='row'\) got results computed by 'word'"):
        compare_models({"a": word, "b": word}, by="row")
    with pytest.raises(ValueError, match="same data points"):
        compare_models({"a": word, "b": _loo(3, 0.0, points=5)})
    with pytest.raises(ValueError, match="'column'"):
        compare_models({"a": word, "b": word}, by="column")
    with pytest.raises(ValueError, match="at least two"):
        compare_models({"a": word})
