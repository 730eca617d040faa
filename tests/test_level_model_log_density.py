"""Every level's PyMC model (embias.bayes.model.build_model) is the model its documentation
states: its free variables, their dims, and its log density at a point.

Known answers: the log density written out with scipy's distributions on the constrained
values of the point — m, co, σ of the dataset and word levels; bar, τ, σ and the
coefficients of the hierarchical level (centred and non-centred columns); at the crossed
level the words' rows as one multivariate Normal per compared word (u integrated out, on
the cell statistics) or every u sampled (on the rows) — for each data mode.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from embias.bayes.data import cell_statistics
from embias.bayes.model import build_model

#: Compared words of the table: attributes of class a (x…) and b (y…), neutral and human.
COMPARED = {"x1": "a", "x2": "a", "y1": "b", "y2": "b",
            "n1": "none", "n2": "none", "n3": "none", "h1": "human", "h2": "human"}
PROTECTED = {"p1": "a", "p2": "a", "q1": "b", "q2": "b", "q3": "b"}


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(29)
    rows = []
    for p, cls in PROTECTED.items():
        for w, kind in COMPARED.items():
            con = kind if kind in ("none", "human") else (
                "associated" if kind == cls else "different")
            rows.append({"protected_word": p, "protected_class": cls, "word_to_compare": w,
                         "connection": con,
                         "cosine_distance": 0.85 + 0.08 * rng.standard_normal()})
    return pd.DataFrame(rows)


def _values(model, point: dict) -> dict[str, np.ndarray]:
    """The constrained values (and deterministics) of an unconstrained point."""
    names = [v.name for v in model.unobserved_value_vars]
    fn = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars,
                          on_unused_input="ignore", point_fn=False, mode="FAST_COMPILE")
    return dict(zip(names, (np.asarray(v) for v in fn(*[point[v.name]
                                                          for v in model.value_vars])),
                    strict=True))


def _points(model) -> list[dict]:
    start = model.initial_point()
    rng = np.random.default_rng(3)
    return [start, {k: v + rng.normal(scale=0.3, size=np.shape(v)) for k, v in start.items()}]


def _tolerance(model, point: dict) -> float:
    """PyMC's ½·log 2π is the float32 constant (1.9e-9 above it): 2e-9 per scalar term."""
    terms = model.compile_fn(model.logp(sum=False, jacobian=False), mode="FAST_COMPILE")(point)
    return 2e-9 * sum(np.size(t) for t in terms)


def _zero_sum_normal(values: np.ndarray, sigma: float) -> float:
    """log density of N(0, σ²I) restricted to the hyperplane Σv = 0 (n − 1 dimensions)."""
    n = values.size
    return float(-0.5 * np.sum(values**2) / sigma**2 - 0.5 * (n - 1) * np.log(2 * np.pi
                                                                              * sigma**2))


def _cell_terms(cells: pd.DataFrame, mu: np.ndarray, sigma: np.ndarray) -> float:
    """ȳ ~ N(μ, σ/√n) and SS ~ Gamma((n − 1)/2, rate 1/(2σ²)) per cell."""
    n = cells["n"].to_numpy(float)
    total = stats.norm.logpdf(cells["mean"], mu, sigma / np.sqrt(n)).sum()
    return float(total + stats.gamma.logpdf(cells["ss"], (n - 1) / 2,
                                            scale=2 * sigma**2).sum())


def _row_terms(table: pd.DataFrame, cells: pd.DataFrame, mu: np.ndarray,
               sigma: np.ndarray) -> float:
    key = list(zip(cells["protected_word"], cells["connection"], strict=True))
    index = [key.index(k) for k in zip(table["protected_word"], table["connection"],
                                       strict=True)]
    return float(stats.norm.logpdf(table["cosine_distance"], mu[index], sigma[index]).sum())


@pytest.mark.parametrize("level", ["dataset", "word"])
@pytest.mark.parametrize("data", ["summary", "raw"])
def test_pooled_levels_have_the_documented_density(level: str, data: str) -> None:
    table = _table()
    cells = cell_statistics(table)
    model = build_model(cells, level=level, data=data, table=table)
    assert [v.name for v in model.free_RVs] == ["co", "sigma", "m"]
    assert model.named_vars_to_dims.get("m") == (None if level == "dataset"
                                                 else ("protected_word",))
    assert model.named_vars_to_dims["connection_mean"] == ("connection",)
    cons = list(model.coords["connection"])
    words = list(model.coords["protected_word"])
    logp = model.compile_logp(jacobian=False, mode="FAST_COMPILE")
    for point in _points(model):
        v = _values(model, point)
        m = np.broadcast_to(v["m"], len(words))
        mu = m[[words.index(w) for w in cells["protected_word"]]] + v["co"][
            [cons.index(c) for c in cells["connection"]]]
        sigma = np.full(len(cells), float(v["sigma"]))
        expected = (_zero_sum_normal(v["co"], 0.5)
                    + stats.halfcauchy.logpdf(v["sigma"], scale=1.0)
                    + stats.norm.logpdf(v["m"], 1.0, 0.5).sum()
                    + (_cell_terms(cells, mu, sigma) if data == "summary"
                       else _row_terms(table, cells, mu, sigma)))
        assert float(logp(point)) == pytest.approx(expected, rel=0,
                                                   abs=_tolerance(model, point))


def _coefficients(v: dict, cells: pd.DataFrame, model) -> tuple[np.ndarray, float]:
    """Each cell's coefficient, and the hierarchical prior's log density at the point."""
    cons = list(model.coords["connection"])
    words = list(model.coords["protected_word"])
    centred = np.array([c == "none" for c in cons])
    coef = v["coef"]
    np.testing.assert_allclose(coef, np.where(centred, v["coef_raw"],
                                              v["bar"] + v["tau"] * v["coef_raw"]))
    prior = (stats.norm.logpdf(v["bar"], 1.0, 0.3).sum()
             + stats.expon.logpdf(v["tau"], scale=0.5).sum()
             + stats.expon.logpdf(v["sigma"], scale=0.5).sum()
             + stats.norm.logpdf(coef[:, centred], v["bar"][centred],
                                 v["tau"][centred]).sum()
             + stats.norm.logpdf(v["coef_raw"][:, ~centred]).sum())
    cell_coef = coef[[words.index(w) for w in cells["protected_word"]],
                     [cons.index(c) for c in cells["connection"]]]
    return cell_coef, float(prior)


@pytest.mark.parametrize("data", ["summary", "raw"])
def test_hierarchical_level_has_the_documented_density(data: str) -> None:
    table = _table()
    cells = cell_statistics(table)
    model = build_model(cells, level="hierarchical", data=data, table=table,
                        centred=("none",))
    assert [v.name for v in model.free_RVs] == ["bar", "tau", "sigma", "coef_raw"]
    assert model.named_vars_to_dims["coef"] == ("protected_word", "connection")
    cons = list(model.coords["connection"])
    logp = model.compile_logp(jacobian=False, mode="FAST_COMPILE")
    for point in _points(model):
        v = _values(model, point)
        mu, prior = _coefficients(v, cells, model)
        sigma = v["sigma"][[cons.index(c) for c in cells["connection"]]]
        expected = prior + (_cell_terms(cells, mu, sigma) if data == "summary"
                            else _row_terms(table, cells, mu, sigma))
        assert float(logp(point)) == pytest.approx(expected, rel=0,
                                                   abs=_tolerance(model, point))


@pytest.mark.parametrize("data", ["summary", "raw"])
def test_crossed_level_has_the_documented_density(data: str) -> None:
    table = _table()
    cells = cell_statistics(table)
    model = build_model(cells, level="crossed", data=data, table=table, centred=("none",))
    sampled = ["bar", "tau", "sigma", "coef_raw", "tau_word"]
    assert [v.name for v in model.free_RVs] == sampled + (["word_offset"] if data == "raw"
                                                          else [])
    assert model.named_vars_to_dims["tau_word"] == ("word_kind",)
    assert list(model.coords["word_kind"]) == ["attribute", "neutral", "human"]
    cons = list(model.coords["connection"])
    words = list(model.coords["protected_word"])
    kinds = {"associated": 0, "different": 0, "none": 1, "human": 2}
    logp = model.compile_logp(jacobian=False, mode="FAST_COMPILE")
    for point in _points(model):
        v = _values(model, point)
        _, prior = _coefficients(v, cells, model)
        expected = prior + stats.expon.logpdf(v["tau_word"], scale=0.5).sum()
        rows_mu = v["coef"][[words.index(w) for w in table["protected_word"]],
                            [cons.index(c) for c in table["connection"]]]
        rows_sd = v["sigma"][[cons.index(c) for c in table["connection"]]]
        resid = table["cosine_distance"].to_numpy() - rows_mu
        for w, part in table.groupby("word_to_compare", sort=False):
            i = part.index.to_numpy()
            tau_u = v["tau_word"][kinds[part["connection"].iloc[0]]]
            if data == "summary":  # u integrated out: the word's rows jointly Normal
                cov = np.diag(rows_sd[i] ** 2) + tau_u**2
                expected += stats.multivariate_normal.logpdf(resid[i], cov=cov)
            else:
                offset = v["word_offset"][list(COMPARED).index(w)]
                np.testing.assert_allclose(v["word_effect"][list(COMPARED).index(w)],
                                           tau_u * offset)
                expected += (stats.norm.logpdf(offset)
                             + stats.norm.logpdf(resid[i], tau_u * offset, rows_sd[i]).sum())
        assert float(logp(point)) == pytest.approx(expected, rel=0,
                                                   abs=_tolerance(model, point))
