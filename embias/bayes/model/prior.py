"""The hierarchical family's prior: connection means, sds and coefficients.

``hierarchical_prior`` adds the connection means (one per connection, or per protected
class and connection), τ, σ and the protected words' coefficients — independent,
correlated (an LKJ prior, :mod:`embias.bayes.correlation`), with a shared offset per
protected word, or integrated out (the crossed levels on the cell statistics).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..correlation import cholesky_elements, correlation_cholesky, lkj_cpc_log_density
from .layout import HierarchicalLayout
from .structure import LevelStructure

__all__ = ["HierarchicalPrior", "hierarchical_prior"]


class HierarchicalPrior(NamedTuple):
    """The hierarchical family's parameters of the protected words' coefficients.

    Attributes
    ----------
    centre
        The coefficients' centre: ``bar`` or each protected word's class means.
    tau, sigma
        The coefficients' sd and the residual sd, per connection.
    coef
        The coefficients, or ``None`` when they are integrated out.
    tau_protected
        With the coefficients integrated out, the sd of a protected word's shared offset
        (0 without one); otherwise ``None``.
    correlation_chol
        With the coefficients integrated out and ``correlated``, the Cholesky factor of
        their correlation matrix R; otherwise ``None``.
    """

    centre: Any
    tau: Any
    sigma: Any
    coef: Any
    tau_protected: Any
    correlation_chol: Any = None


def hierarchical_prior(structure: LevelStructure, layout: HierarchicalLayout,
                       location: Any, *, integrable: bool) -> HierarchicalPrior:
    """Add the connection means, τ, σ and the coefficients (inside the model context).

    ``coef`` is ``None`` when the coefficients are integrated out (``integrable``: the
    crossed levels on the cell statistics of a table without templates), and
    ``tau_protected`` then their shared offset's sd (0 without one) and
    ``correlation_chol`` the Cholesky factor of their correlations (``correlated``).

    Parameters
    ----------
    structure
        The level's choices.
    layout
        The cells' layout (centring mask, protected classes as strata).
    location
        The location of the priors of the connection means (the model's data).
    integrable
        Whether the coefficients may be integrated out (``structure`` decides whether
        they are).

    Returns
    -------
    HierarchicalPrior
        The variables added.

    Raises
    ------
    ValueError
        ``structure`` integrates the coefficients out where they cannot be.
    """
    import pymc as pm

    centre = _connection_means(structure, location, layout.strata)
    tau = structure.sd_variable("tau", dims="connection")
    sigma = pm.Exponential("sigma", lam=2.0, dims="connection")
    coef, tau_protected, correlation_chol = _protected_coefficients(
        structure, centre, tau, layout.centred_mask, len(layout.cells.cons),
        integrable=integrable)
    return HierarchicalPrior(centre, tau, sigma, coef, tau_protected, correlation_chol)


def _connection_means(structure: LevelStructure, location: Any,
                      strata: tuple[list[str], np.ndarray, np.ndarray] | None) -> Any:
    """Add the connection means; return the centre of the coefficients (in the context).

    ``bar`` per connection or, with protected classes as fixed strata, ``bar_class`` per
    class and connection, whose deterministic ``connection_mean`` is the average of the
    class means weighted by the classes' shares of the protected words (the weights of the
    population answer).
    """
    import pymc as pm

    if strata is None:
        bar = pm.Normal("bar", mu=location, sigma=structure.mean_prior_sd, dims="connection")
        pm.Deterministic("connection_mean", bar, dims="connection")
        return bar
    _, word_class, class_weight = strata
    word_class_ = pm.Data("protected_word_class", word_class, dims="protected_word")
    weight = pm.Data("protected_class_weight", class_weight, dims="protected_class")
    bar_class = pm.Normal("bar_class", mu=location, sigma=structure.mean_prior_sd,
                          dims=("protected_class", "connection"))
    pm.Deterministic("connection_mean", weight @ bar_class, dims="connection")
    return bar_class[word_class_]


def _protected_coefficients(structure: LevelStructure, centre: Any, tau: Any,
                            centred_mask: np.ndarray, size: int, *,
                            integrable: bool) -> tuple[Any, Any, Any]:
    """Add the protected words' coefficients (inside the model context).

    Returns ``(coef, None, None)``, or ``(None, τ_protected, chol_R)`` when the
    coefficients are integrated out (chol_R the Cholesky factor of their correlation
    matrix with ``correlated``, else ``None``). One raw variable serves both
    parametrisations: centred columns hold
    coef itself (~ N(centre, τ)), non-centred columns the standardised offset (~ N(0, 1))
    with coef = centre + τ·offset; the mask is data, so every centring choice shares one
    compiled graph.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if structure.integrate_coefficients:
        if not integrable:
            raise ValueError("integrate_coefficients serves the crossed levels on the "
                             "cell statistics of a table without templates")
        return (None, (structure.sd_variable("tau_protected") if structure.protected_offset
                       else pt.zeros(())),
                _correlation_cholesky(size, structure) if structure.correlated else None)
    centred = pm.Data("centred", centred_mask, dims="connection")
    if structure.correlated or structure.protected_offset:
        chol = _coefficient_cholesky(tau, size, structure)
        return _correlated_coefficients(centre, chol, centred, size), None, None
    coef_raw = pm.Normal("coef_raw", mu=centred * centre,
                         sigma=centred * tau + (1.0 - centred),
                         dims=("protected_word", "connection"))
    coef = pm.Deterministic(
        "coef", (1.0 - centred) * centre + ((1.0 - centred) * tau + centred) * coef_raw,
        dims=("protected_word", "connection"))
    return coef, None, None


def _coefficient_cholesky(tau: Any, size: int, structure: LevelStructure) -> Any:
    """Return the Cholesky factor of S, the covariance of a protected word's coefficients.

    S is across the connections (inside the model context; adds the variables S needs):
    diag(τ) R diag(τ) with R ~ LKJ(η) (``structure.correlated``; reported as
    ``coef_correlation``, dims ``connection, connection_b``) or diag(τ²), plus
    τ_protected²·11ᵀ (a protected word's offset shared by its connections, integrated out:
    ``structure.protected_offset``).
    """
    import pytensor.tensor as pt

    if structure.correlated:
        chol = tau[:, None] * _correlation_cholesky(size, structure)
    else:
        chol = pt.diag(tau)
    if structure.protected_offset:
        tau_protected = structure.sd_variable("tau_protected")
        cov = chol @ chol.T + tau_protected**2 * np.ones((size, size))
        entries = cholesky_elements([[cov[i, j] for j in range(size)] for i in range(size)], size)
        chol = pt.stack([pt.stack([pt.as_tensor(entries[i][j]) for j in range(size)])
                         for i in range(size)])
    return chol


def _correlation_cholesky(size: int, structure: LevelStructure) -> Any:
    """Add R ~ LKJ(η), the correlations of a protected word's coefficients.

    Inside the model context; R is reported as ``coef_correlation`` (dims ``connection,
    connection_b``). Returns its Cholesky factor.
    """
    import pymc as pm
    import pytensor.tensor as pt

    model = pm.modelcontext(None)
    model.add_coord("connection_b", list(model.coords["connection"]))
    n_cpc = size * (size - 1) // 2
    model.add_coord("connection_pair", np.arange(n_cpc))
    cpc_raw = pm.Flat("coef_correlation_raw", dims="connection_pair")
    pm.Potential("coef_correlation_prior",
                 lkj_cpc_log_density(cpc_raw, size, structure.correlation_eta))
    chol_r = correlation_cholesky(pt.tanh(cpc_raw), size)
    pm.Deterministic("coef_correlation", chol_r @ chol_r.T,
                     dims=("connection", "connection_b"))
    return chol_r


def _correlated_coefficients(centre: Any, chol: Any, centred: Any, size: int) -> Any:
    """Add coef[p, ·] ~ MvN(centre[p], S) (inside the model context); return ``coef``.

    S = chol·cholᵀ (:func:`_coefficient_cholesky`); ``coef`` is deterministic, dims
    ``protected_word, connection``.

    One raw variable per coefficient, centred or not per connection as the mask says
    (data): with L = chol and coef = centre + L z, the connections are taken in order; a
    centred one holds coef itself and gives z_k = (coef_k − centre_k − Σ_{j<k} L_kj z_j)/L_kk
    (Jacobian 1/L_kk), a non-centred one holds z_k. The density is
    Σ log N(z; 0, 1) − Σ_centred log L_kk (a Potential), so with R = I this is the
    independent parametrisation.
    """
    import pymc as pm
    import pytensor.tensor as pt

    raw = pm.Flat("coef_raw", dims=("protected_word", "connection"))
    centre = pt.broadcast_to(centre, raw.shape)
    z: list[Any] = []
    coefs: list[Any] = []
    log_jacobian: Any = 0.0
    for k in range(size):
        acc = sum((chol[k, j] * z[j] for j in range(k)), pt.zeros_like(raw[:, k]))
        free = centre[:, k] + acc
        z_k = centred[k] * (raw[:, k] - free) / chol[k, k] + (1.0 - centred[k]) * raw[:, k]
        coefs.append(centred[k] * raw[:, k] + (1.0 - centred[k]) * (free + chol[k, k]
                                                                     * raw[:, k]))
        z.append(z_k)
        log_jacobian = log_jacobian - centred[k] * raw.shape[0] * pt.log(chol[k, k])
    z_all = pt.stack(z, axis=1)
    pm.Potential("coef_prior", -0.5 * pt.sum(z_all**2)
                 - 0.5 * np.log(2.0 * np.pi) * z_all.size + log_jacobian)
    return pm.Deterministic("coef", pt.stack(coefs, axis=1),
                            dims=("protected_word", "connection"))
