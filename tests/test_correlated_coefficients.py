"""A protected word's coefficients as one multivariate Normal draw (embias.bayes.model).

Known answers: the LKJ density of Lewandowski, Kurowicka & Joe (2009) — det(R)^(η − 1)
up to a constant — against the density the model puts on the unconstrained partial
correlations, pulled back through a finite-difference Jacobian; the coefficients' prior
under any centring mask against scipy's multivariate Normal density; a protected word's
offset shared by its connections against the same density with the offset's covariance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from embias.bayes.data import cell_statistics
from embias.bayes.model import (
    LevelStructure,
    build_model,
    correlation_cholesky,
    lkj_cpc_log_density,
)


def _cholesky(cpc_raw: np.ndarray, size: int) -> np.ndarray:
    return np.asarray(correlation_cholesky(np.tanh(cpc_raw), size).eval())


def _lower(matrix: np.ndarray) -> np.ndarray:
    return matrix[np.tril_indices(len(matrix), -1)]


@pytest.mark.parametrize(("size", "eta"), [(2, 1.0), (3, 2.0), (4, 1.0), (4, 3.5)])
def test_partial_correlation_density_is_the_lkj_density(size: int, eta: float) -> None:
    # p_x(x) / |det dr/dx| must be c·det(R)^(η − 1) for every x: the log ratio minus
    # (η − 1)·log det R is one constant
    rng = np.random.default_rng(size)
    pairs = size * (size - 1) // 2
    values = []
    for _ in range(6):
        x = rng.normal(0.0, 0.8, pairs)
        chol = _cholesky(x, size)
        np.testing.assert_allclose(np.diag(chol @ chol.T), 1.0, rtol=1e-12)
        step = 1e-6
        jacobian = np.empty((pairs, pairs))
        for k in range(pairs):
            up, down = x.copy(), x.copy()
            up[k] += step
            down[k] -= step
            r_up, r_down = _cholesky(up, size), _cholesky(down, size)
            jacobian[:, k] = (_lower(r_up @ r_up.T) - _lower(r_down @ r_down.T)) / (2 * step)
        log_p = float(lkj_cpc_log_density(x, size, eta).eval())
        log_det_r = 2.0 * np.sum(np.log(np.diag(chol)))
        values.append(log_p - np.log(abs(np.linalg.det(jacobian))) - (eta - 1.0) * log_det_r)
    assert np.ptp(values) < 1e-6, values


def _table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for cls, words in {"a": ["a1", "a2", "a3"], "b": ["b1", "b2"]}.items():
        for p in words:
            for w, con in ([("x1", "associated" if cls == "a" else "different"),
                            ("x2", "associated" if cls == "a" else "different"),
                            ("y1", "different" if cls == "a" else "associated"),
                            ("y2", "different" if cls == "a" else "associated")]
                           + [(f"n{i}", "none") for i in range(6)]):
                rows.append({"protected_word": p, "protected_class": cls,
                             "word_to_compare": w, "connection": con,
                             "cosine_distance": 0.8 + 0.1 * rng.standard_normal()})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("structure", [
    LevelStructure(word_effects=True, strata=True, correlated=True),
    LevelStructure(word_effects=True, strata=True, protected_offset=True),
    LevelStructure(word_effects=True, correlated=True, protected_offset=True),
], ids=["lkj", "offset", "lkj+offset"])
@pytest.mark.parametrize("centred", [(), ("none",), ("associated", "none"),
                                     ("associated", "different", "none")])
def test_coefficient_prior_is_the_multivariate_normal_density(structure, centred) -> None:
    table = _table(1)
    cells = cell_statistics(table)
    model = build_model(cells, level="crossed", table=table, centred=centred,
                        structure=structure)
    rng = np.random.default_rng(len(centred))
    point = model.initial_point()
    for name in point:
        point[name] = rng.normal(0.0, 0.5, np.shape(point[name]))
    outputs = [model["coef"], model["tau"]]
    if structure.protected_offset:
        outputs.append(model["tau_protected"])
    if structure.correlated:
        outputs.append(model["coef_correlation"])
    got = model.compile_fn(model.replace_rvs_by_values(outputs), inputs=model.value_vars,
                           on_unused_input="ignore", mode="FAST_COMPILE")(point)
    coef, tau = got[0], got[1]
    tau_protected = got[2] if structure.protected_offset else 0.0
    cons = list(model.coords["connection"])
    correlation = got[-1] if structure.correlated else np.eye(len(cons))
    cov = np.outer(tau, tau) * correlation + tau_protected**2
    # the centre of each word: its class's means (strata) or the connection means
    bar = (point["bar_class"][pd.Index(["a", "b"]).get_indexer(
        cells.drop_duplicates("protected_word")["protected_class"])]
        if structure.strata else np.broadcast_to(point["bar"], coef.shape))
    chol = np.linalg.cholesky(cov)
    expected = sum(stats.multivariate_normal(bar[p], cov).logpdf(coef[p])
                   for p in range(len(coef)))
    # the raw variable's density: the coefficients' times the Jacobian of the non-centred
    # columns (coef_k = … + L_kk·raw_k)
    expected += len(coef) * sum(np.log(chol[k, k]) for k, c in enumerate(cons)
                                if c not in centred)
    graph = model.replace_rvs_by_values([model["coef_prior"]])[0]
    got = model.compile_fn(graph, inputs=model.value_vars, on_unused_input="ignore",
                           mode="FAST_COMPILE")(point)
    assert float(got) == pytest.approx(expected, rel=1e-10, abs=1e-9)


@pytest.mark.parametrize("structure", [
    LevelStructure(word_effects=True, integrate_coefficients=True),
    LevelStructure(word_effects=True, strata=True, protected_offset=True,
                   integrate_coefficients=True),
    LevelStructure(word_effects=True, correlated=True, integrate_coefficients=True),
    LevelStructure(word_effects=True, strata=True, protected_offset=True, correlated=True,
                   integrate_coefficients=True),
], ids=["independent", "strata+offset", "correlated", "strata+offset+correlated"])
def test_integrated_coefficients_likelihood_is_the_tables_multivariate_normal_density(
        structure) -> None:
    # every row of the table jointly: mean the centre of its protected word and
    # connection, covariance X (I ⊗ S) Xᵀ + Z diag(τ_u²) Zᵀ + diag(σ²)
    table = _table(2)
    cells = cell_statistics(table)
    model = build_model(cells, level="crossed", table=table, centred=(), structure=structure)
    rng = np.random.default_rng(7)
    point = model.initial_point()
    for name in point:
        point[name] = rng.normal(0.0, 0.4, np.shape(point[name]))
    point[next(n for n in point if n.startswith("bar"))] = rng.uniform(
        0.7, 0.9, np.shape(point[next(n for n in point if n.startswith("bar"))]))
    outputs = [model["tau"], model["sigma"], model["tau_word"]]
    if structure.protected_offset:
        outputs.append(model["tau_protected"])
    if structure.correlated:
        outputs.append(model["coef_correlation"])
    got = model.compile_fn(model.replace_rvs_by_values(outputs), inputs=model.value_vars,
                           on_unused_input="ignore", mode="FAST_COMPILE")(point)
    tau, sigma, tau_word = got[0], got[1], got[2]
    tau_protected = got[3] if structure.protected_offset else 0.0
    cons = list(model.coords["connection"])
    correlation = got[-1] if structure.correlated else np.eye(len(cons))
    cov_s = np.outer(tau, tau) * correlation + tau_protected**2
    words = list(model.coords["protected_word"])
    classes = list(model.coords.get("protected_class", [""]))
    class_of = dict(zip(cells["protected_word"], cells["protected_class"], strict=True))
    if structure.strata:
        centre = {p: point["bar_class"][classes.index(class_of[p])] for p in words}
    else:
        centre = {p: point["bar"] for p in words}
    kinds = list(model.coords["word_kind"])
    kind_of = {"associated": "attribute", "different": "attribute", "none": "neutral"}
    compared = list(dict.fromkeys(table["word_to_compare"]))
    n = len(table)
    p_idx = [words.index(p) for p in table["protected_word"]]
    c_idx = [cons.index(c) for c in table["connection"]]
    w_idx = [compared.index(w) for w in table["word_to_compare"]]
    mean = np.array([centre[p][c] for p, c in zip(table["protected_word"], c_idx,
                                                   strict=True)])
    cov = np.diag(sigma[c_idx] ** 2)
    word_var = {w: tau_word[kinds.index(kind_of[c])] ** 2
                for w, c in zip(table["word_to_compare"], table["connection"], strict=True)}
    for i in range(n):
        for j in range(n):
            if p_idx[i] == p_idx[j]:
                cov[i, j] += cov_s[c_idx[i], c_idx[j]]
            if w_idx[i] == w_idx[j]:
                cov[i, j] += word_var[compared[w_idx[i]]]
    expected = stats.multivariate_normal(mean, cov).logpdf(table["cosine_distance"])
    graph = model.replace_rvs_by_values([model["cosine_distance_marginal"]])[0]
    value = model.compile_fn(graph, inputs=model.value_vars, on_unused_input="ignore",
                             mode="FAST_COMPILE")(point)
    assert float(value) == pytest.approx(expected, rel=1e-9, abs=1e-7)
