"""The protected words' coefficients when the sampler integrated them out.

With ``integrate_coefficients`` (a structure of the crossed levels, ``LevelStructure`` in
:mod:`embias.bayes.model`) the sampler sees only the connection means, sds and
correlations; the coefficients are drawn afterwards from their exact conditional
(``draw_protected_coefficients``). ``integrated_protected_cells`` is the log density of one
protected word's cells with its coefficients integrated out, in NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .design import CrossedDesign

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["draw_protected_coefficients", "integrated_protected_cells"]


def draw_protected_coefficients(
    posterior: DataTree,
    cells: pd.DataFrame,
    design: CrossedDesign,
    *,
    random_seed: int,
    chunk: int = 500,
) -> np.ndarray:
    """Draw every protected word's coefficients from their exact conditional posterior.

    For a fit whose sampler integrated them out (``integrate_coefficients``, the
    ``crossed_strata`` level): given each posterior draw of the (class) connection means,
    S (τ, the correlations ``coef_correlation`` and ``tau_protected`` when the model has
    them), σ and τ_u, the coefficients x (compared words' effects integrated out) are
    Normal with precision Q = A + I ⊗ S⁻¹ and mean Q⁻¹h
    (:func:`embias.bayes.crossed_terms.integrated_coefficients_log_likelihood`).

    Q = L (I − ZZᵀ) Lᵀ with L the Cholesky factors of the protected words' blocks
    G_p = S⁻¹ + diag(n_p/σ²) and Z = L⁻¹ V W^½ (protected cells × word groups), so
    x = Q⁻¹h + L⁻ᵀ (I − ZZᵀ)^(−½) ε, ε ~ N(0, I), and with the thin SVD Z = U s Vᵀ,
    (I − ZZᵀ)^(−½) = I + U diag((1 − s²)^(−½) − 1) Uᵀ.

    Parameters
    ----------
    posterior
        The fit's draws: ``bar`` (or ``bar_class``), ``tau``, ``sigma`` and ``tau_word``
        (with ``coef_correlation`` and ``tau_protected`` when the model has them).
    cells
        The fitted table's cell statistics.
    design
        The table's :func:`crossed_design`.
    random_seed
        Seed of the draws.
    chunk
        Posterior draws processed at a time (bounds the memory).

    Returns
    -------
    numpy.ndarray
        Shape (chain, draw, protected word, connection), in the cells' order.

    Examples
    --------
    With τ ≈ 0 the coefficients sit at their connection means:

    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.crossed import crossed_design, draw_protected_coefficients
    >>> from embias.bayes.data import cell_statistics
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> cells = cell_statistics(table)
    >>> post = xr.Dataset(
    ...     {"bar": (("chain", "draw", "connection"), [[[0.75, 1.0]]]),
    ...      "tau": (("chain", "draw", "connection"), [[[1e-6, 1e-6]]]),
    ...      "sigma": (("chain", "draw", "connection"), [[[0.1, 0.1]]]),
    ...      "tau_word": (("chain", "draw", "word_kind"), [[[0.1, 0.1]]])},
    ...     coords={"connection": ["associated", "none"], "word_kind": ["attribute", "neutral"]})
    >>> coef = draw_protected_coefficients(xr.DataTree.from_dict({"posterior": post}), cells,
    ...                                    crossed_design(table, cells), random_seed=0)
    >>> coef.shape
    (1, 1, 2, 2)
    >>> coef[0, 0].round(4)
    array([[0.75, 1.  ],
           [0.75, 1.  ]])
    """
    p = _CoefficientParameters.of(posterior["posterior"], cells, design)
    n_p, n_c = p.centre.shape[1:]
    total = p.centre.shape[0]
    shape = (n_p, n_c)
    n_pc = cells["n"].to_numpy(float).reshape(shape)
    ybar = cells["mean"].to_numpy(float).reshape(shape)
    groups = design.word_groups()
    patterns = np.asarray(design.patterns, dtype=float)[groups.pattern]   # (group, P, C)
    rows_g = patterns.sum(axis=1)                                         # (group, C)
    rng = np.random.default_rng([int(random_seed), 7331])
    out = np.empty((total, n_p, n_c))
    for start in range(0, total, chunk):
        s = slice(start, start + chunk)
        m = len(range(total)[s])
        inv_var = p.sigma[s] ** -2                                        # (m, C)
        t2 = p.tau_word[s][:, groups.kind] ** 2                           # (m, G)
        c_g = rows_g @ inv_var.T                                          # (G, m)
        w = (t2 / (1.0 + t2 * c_g.T)) * groups.size                        # (m, G)
        beta = inv_var @ groups.mean_sum.T                                # (m, G)
        v = patterns[None] * inv_var[:, None, None, :]                    # (m, G, P, C)
        precision = np.linalg.inv(p.cov[s])                               # (m, C, C)
        blocks = precision[:, None] + (n_pc[None] * inv_var[:, None, :])[..., None] * np.eye(
            n_c)                                                          # (m, P, C, C)
        h = (n_pc[None] * inv_var[:, None, :] * ybar[None]
             - np.einsum("mg,mgpc->mpc", w * beta, v)
             + np.einsum("mpc,mcd->mpd", p.centre[s], precision))
        out[s] = _conditional_draw(blocks, h, v, w, rng.standard_normal((m, n_p * n_c)))
    return out.reshape(p.chains, p.draws, n_p, n_c)


@dataclass(frozen=True)
class _CoefficientParameters:
    """A fit's draws that the coefficients' conditional needs, flattened to (sample, …)."""

    chains: int
    draws: int
    sigma: np.ndarray
    centre: np.ndarray
    cov: np.ndarray
    tau_word: np.ndarray

    @classmethod
    def of(cls, post: Any, cells: pd.DataFrame, design: CrossedDesign) -> _CoefficientParameters:
        """Read the draws from a ``posterior`` group, in the cells' order."""
        from ..model import protected_strata

        words = list(cells["protected_word"].drop_duplicates())
        cons = list(cells["connection"].drop_duplicates())
        n_p, n_c = len(words), len(cons)

        def values(name: str, *dims: str, **sel: list[str]) -> np.ndarray:
            da = post[name].transpose("chain", "draw", *dims)
            return da.sel(sel).values if sel else da.values

        sigma = values("sigma", "connection", connection=cons)
        chains, draws = sigma.shape[:2]
        total = chains * draws
        tau = values("tau", "connection", connection=cons).reshape(total, n_c)
        if "bar_class" in post:
            classes, word_class, _ = protected_strata(cells)
            centre = values("bar_class", "protected_class", "connection",
                            protected_class=classes, connection=cons).reshape(
                total, len(classes), n_c)[:, word_class, :]
        else:
            centre = np.repeat(values("bar", "connection", connection=cons).reshape(
                total, 1, n_c), n_p, axis=1)
        cov = tau[:, :, None] * tau[:, None, :]
        if "coef_correlation" in post:
            cov = cov * values("coef_correlation", "connection", "connection_b",
                               connection=cons, connection_b=cons).reshape(total, n_c, n_c)
        else:
            cov = cov * np.eye(n_c)
        if "tau_protected" in post:
            cov = cov + values("tau_protected").reshape(total, 1, 1) ** 2
        return cls(chains=chains, draws=draws, sigma=sigma.reshape(total, n_c), centre=centre,
                   cov=cov, tau_word=values("tau_word", "word_kind",
                                            word_kind=design.kinds).reshape(total, -1))


def _conditional_draw(blocks: np.ndarray, h: np.ndarray, v: np.ndarray, w: np.ndarray,
                      eps: np.ndarray) -> np.ndarray:
    """Return x = Q⁻¹h + L⁻ᵀ (I − ZZᵀ)^(−½) ε for a chunk of draws (see the caller).

    ``blocks`` (m, P, C, C) are the protected words' blocks G_p, ``h`` (m, P, C), ``v``
    (m, G, P, C) the word groups' columns, ``w`` (m, G) their weights and ``eps``
    (m, P·C) standard Normal draws.
    """
    m, n_p, n_c = h.shape
    chol = np.linalg.cholesky(blocks)                                     # (m, P, C, C)
    g_h = np.linalg.solve(blocks, h[..., None])[..., 0]                   # (m, P, C)
    g_v = np.linalg.solve(blocks[:, None], v[..., None])[..., 0]          # (m, G, P, C)
    h_mat = np.einsum("mgpc,mkpc->mgk", v, g_v)
    y = np.einsum("mgpc,mpc->mg", v, g_h)
    root = np.sqrt(w)
    n_groups = w.shape[1]
    j_mat = np.eye(n_groups)[None] - root[:, :, None] * h_mat * root[:, None, :]
    mean = g_h + np.einsum("mgpc,mg->mpc", g_v,
                           root * np.linalg.solve(j_mat, (root * y)[..., None])[..., 0])
    # noise: L⁻ᵀ (I − ZZᵀ)^(−½) ε with Z = L⁻¹ V W^½ (per protected word's block)
    z = np.linalg.solve(chol[:, None], v[..., None])[..., 0] * root[:, :, None, None]
    z = z.reshape(m, n_groups, n_p * n_c).transpose(0, 2, 1)             # (m, PC, G)
    u, sv, _ = np.linalg.svd(z, full_matrices=False)
    scale = 1.0 / np.sqrt(np.clip(1.0 - sv**2, 1e-300, None)) - 1.0
    eps = eps + np.einsum("mig,mg->mi", u, scale * np.einsum("mig,mi->mg", u, eps))
    noise = np.linalg.solve(np.swapaxes(chol, -1, -2),
                            eps.reshape(m, n_p, n_c)[..., None])[..., 0]
    return mean + noise


def integrated_protected_cells(n: np.ndarray, mean: np.ndarray, ss: np.ndarray,
                               centre: np.ndarray, tau2: np.ndarray, offset2: np.ndarray,
                               sigma2: np.ndarray) -> np.ndarray:
    """Return log p(rows of one protected word | centre, τ, τ_protected, σ), coef out.

    The word's coefficients coef ~ MvN(centre, diag(τ²) + τ_protected²·11ᵀ) are
    integrated out. The cell means are jointly Normal with covariance
    diag(τ² + σ²/n) + τ_protected²·11ᵀ (determinant lemma and Sherman–Morrison); each
    cell's SS adds its within-cell term.

    Parameters
    ----------
    n, mean, ss
        The word's cells per connection: rows, mean and sum of squared deviations (the
        compared words' effects taken out of the rows).
    centre, tau2, offset2, sigma2
        The coefficients' centre and variance τ², the shared offset's variance
        τ_protected² and the residual variance σ² (``offset2`` broadcasts to (sample,),
        the others to (sample, connection)).

    Returns
    -------
    numpy.ndarray
        The log density per sample, shape (sample,).

    Examples
    --------
    One row per cell: the cell means are jointly Normal,
    N(centre, diag(τ² + σ²) + τ_protected²·11ᵀ):

    >>> import numpy as np
    >>> from scipy import stats
    >>> from embias.bayes.crossed import integrated_protected_cells
    >>> mean, centre = np.array([0.8, 1.1]), np.array([0.9, 1.0])
    >>> tau2, sigma2 = np.array([0.01, 0.02]), np.array([0.04, 0.03])
    >>> value = integrated_protected_cells(np.ones(2), mean, np.zeros(2), centre, tau2,
    ...                                    np.array(0.005), sigma2)
    >>> round(float(value), 6)
    0.866694
    >>> round(float(stats.multivariate_normal.logpdf(mean, centre,
    ...                                              np.diag(tau2 + sigma2) + 0.005)), 6)
    0.866694
    """
    log_2pi = float(np.log(2.0 * np.pi))
    within = -0.5 * np.sum((n - 1.0) * (log_2pi + np.log(sigma2)) + np.log(n) + ss / sigma2,
                           axis=-1)
    d = tau2 + sigma2 / n
    r = mean - centre
    c = np.sum(1.0 / d, axis=-1)
    b = np.sum(r / d, axis=-1)
    denom = 1.0 + offset2 * c
    between = -0.5 * (r.shape[-1] * log_2pi + np.sum(np.log(d), axis=-1) + np.log(denom)
                      + np.sum(r**2 / d, axis=-1) - offset2 * b**2 / denom)
    return within + between
