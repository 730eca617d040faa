"""The protected words' coefficients drawn after sampling from their exact conditional
(embias.bayes.crossed.draw_protected_coefficients), when the sampler integrated them out.

Known answer: the Normal conditional of the coefficients given every row of the table,
computed densely from the joint covariance of (coefficients, rows) — the model's
generative form — at fixed parameters; the draws' mean and covariance must match it within
their Monte Carlo error.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from embias.bayes.crossed import crossed_design, draw_protected_coefficients
from embias.bayes.data import cell_statistics


def _table(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    compared = ([("x1", "a"), ("x2", "a"), ("y1", "b"), ("y2", "b"), ("y3", "b")]
                + [(f"n{i}", None) for i in range(6)])
    for cls, words in {"a": ["a1", "a2", "a3"], "b": ["b1", "b2"]}.items():
        for p in words:
            for w, owner in compared:
                con = "none" if owner is None else "associated" if owner == cls else "different"
                rows.append({"protected_word": p, "protected_class": cls,
                             "word_to_compare": w, "connection": con,
                             "cosine_distance": 0.8 + 0.1 * rng.standard_normal()})
    return pd.DataFrame(rows)


def test_coefficient_draws_follow_the_exact_conditional() -> None:
    table = _table(4)
    cells = cell_statistics(table)
    design = crossed_design(table, cells)
    words = list(dict.fromkeys(cells["protected_word"]))
    cons = list(dict.fromkeys(cells["connection"]))
    classes = ["a", "b"]
    bar_class = np.array([[0.75, 0.85, 0.9], [0.8, 0.82, 0.95]])
    tau = np.array([0.05, 0.04, 0.08])
    sigma = np.array([0.09, 0.1, 0.07])
    tau_word = {"attribute": 0.06, "neutral": 0.05}
    tau_protected = 0.03
    correlation = np.array([[1.0, 0.4, 0.2], [0.4, 1.0, -0.1], [0.2, -0.1, 1.0]])
    draws = 40_000

    def rep(value: np.ndarray, *dims: str, **coords: list[str]) -> xr.DataArray:
        value = np.broadcast_to(value, (1, draws, *np.shape(value)))
        return xr.DataArray(value, dims=("chain", "draw", *dims), coords=coords)

    post = xr.Dataset({
        "bar_class": rep(bar_class, "protected_class", "connection",
                         protected_class=classes, connection=cons),
        "tau": rep(tau, "connection", connection=cons),
        "sigma": rep(sigma, "connection", connection=cons),
        "tau_word": rep(np.array([tau_word[k] for k in design.kinds]), "word_kind",
                        word_kind=design.kinds),
        "tau_protected": rep(np.asarray(tau_protected)),
        "coef_correlation": rep(correlation, "connection", "connection_b",
                                connection=cons, connection_b=cons),
    })
    x = draw_protected_coefficients(xr.DataTree.from_dict({"posterior": post}), cells, design,
                                    random_seed=3).reshape(draws, -1)
    # dense: x ~ N(m, I ⊗ S); y = X x + Z u + e
    cov_s = np.outer(tau, tau) * correlation + tau_protected**2
    class_of = dict(zip(cells["protected_word"], cells["protected_class"], strict=True))
    m = np.concatenate([bar_class[classes.index(class_of[p])] for p in words])
    sigma_xx = np.kron(np.eye(len(words)), cov_s)
    n = len(table)
    design_x = np.zeros((n, len(m)))
    design_x[np.arange(n), [words.index(p) * len(cons) + cons.index(c)
                            for p, c in zip(table["protected_word"], table["connection"],
                                            strict=True)]] = 1.0
    kind_of = {"associated": "attribute", "different": "attribute", "none": "neutral"}
    same_word = (table["word_to_compare"].to_numpy()[:, None]
                 == table["word_to_compare"].to_numpy()[None, :])
    word_var = np.array([tau_word[kind_of[c]] ** 2 for c in table["connection"]])
    row_var = np.array([sigma[cons.index(c)] ** 2 for c in table["connection"]])
    sigma_yy = (design_x @ sigma_xx @ design_x.T + same_word * word_var[:, None]
                + np.diag(row_var))
    sigma_xy = sigma_xx @ design_x.T
    gain = np.linalg.solve(sigma_yy, sigma_xy.T).T
    y = table["cosine_distance"].to_numpy(float)
    exact_mean = m + gain @ (y - design_x @ m)
    exact_cov = sigma_xx - gain @ sigma_xy.T
    # the draws' mean within 4.5 Monte Carlo se of every coefficient
    sd = np.sqrt(np.diag(exact_cov))
    z_mean = (x.mean(axis=0) - exact_mean) / (sd / np.sqrt(draws))
    assert np.abs(z_mean).max() < 4.5, z_mean
    # covariance entries within 5 Monte Carlo se: se(ĉ_ij) = √((c_ii c_jj + c_ij²)/n)
    got_cov = np.cov(x, rowvar=False)
    se = np.sqrt((np.outer(sd**2, sd**2) + exact_cov**2) / draws)
    assert np.abs((got_cov - exact_cov) / se).max() < 5.0


def test_protected_word_rows_with_coefficients_integrated_out_match_scipy() -> None:
    # one protected word's rows (4 connections, 3–7 rows each) jointly Normal: mean its
    # centre, covariance blocks of (τ² + τ_p²) within a connection's rows and τ_p² across
    from scipy import stats

    from embias.bayes.crossed import integrated_protected_cells

    rng = np.random.default_rng(9)
    counts = np.array([3, 5, 7, 4])
    con = np.repeat(np.arange(4), counts)
    y = 0.8 + 0.1 * rng.standard_normal(len(con))
    centre = np.array([0.75, 0.8, 0.85, 0.9])
    tau = np.array([0.03, 0.05, 0.04, 0.06])
    sigma = np.array([0.08, 0.1, 0.09, 0.07])
    offset = 0.04
    cov = (np.where(con[:, None] == con[None, :], tau[con][:, None] ** 2, 0.0) + offset**2
           + np.diag(sigma[con] ** 2))
    expected = stats.multivariate_normal(centre[con], cov).logpdf(y)
    mean = np.bincount(con, weights=y) / counts
    ss = np.bincount(con, weights=(y - mean[con]) ** 2)
    got = integrated_protected_cells(counts.astype(float), mean[None], ss[None], centre[None],
                                     tau[None] ** 2, np.array([offset**2]), sigma[None] ** 2)
    assert float(got[0]) == pytest.approx(expected, rel=1e-12)
