"""The crossed level's likelihood in PyTensor: rows, cell statistics, templates, word pairs.

The pieces :func:`embias.bayes.model.build_model` puts together at the crossed levels
(:mod:`embias.bayes.crossed` has the equations): the rows' likelihood with every compared
word's effect sampled (``data="raw"``), the closed-form likelihood of the cell statistics
with the effects integrated out (``data="summary"``) — also with the protected words'
coefficients integrated out, or with an attribute word's two correlated effects — and the
template effects of a sentence table. Each function adds its variables to the PyMC model
of the current context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from .correlation import cholesky_elements, lkj_cpc_log_density
from .crossed import CrossedDesign

if TYPE_CHECKING:  # pragma: no cover
    from .model import LevelStructure

__all__ = ["PAIR_COMPONENT", "TEMPLATE_SD_RATE"]


#: Rate of the Exponential priors of the template sds (τ_template, τ_template×kind): mean
#: 0.1, 95% below 0.3 — weakly informative for shifts of a sentence's cosine distances,
#: measured at 0.015–0.05 on three studies (:mod:`embias.bayes.crossed`, "Templates").
TEMPLATE_SD_RATE = 10.0


#: The effect (0 or 1) of an attribute word a row of each connection gets with
#: ``attribute_pair``: its own class's rows and the others'; a neutral or human word has
#: one effect (0).
PAIR_COMPONENT = {"associated": 0, "different": 1, "none": 0, "human": 0}


def crossed_row_likelihood(table: pd.DataFrame, row_cell: np.ndarray, design: CrossedDesign,
                           *, cell_mu: Any, cell_sigma: Any, tau_word: Any,
                           template_kind: Any) -> None:
    """Add the crossed level's likelihood of the rows (inside the model context).

    Every compared word's effect u is sampled — non-centred, or centred when templates
    pin it (a word has rows in every template) — and each row is one Normal term with its
    cell's μ (``cell_mu``, plus the template effect ``template_kind`` of a sentence table)
    and σ (``cell_sigma``).
    """
    import pymc as pm

    row_index = pm.Data("row_cell", row_cell, dims="row")
    row_word = pm.Data("row_word", design.row_word, dims="row")
    word_kind = pm.Data("word_kind_index", design.word_kind, dims="word_to_compare")
    y = pm.Data("cosine_distance_data", table["cosine_distance"].to_numpy(float), dims="row")
    row_mu = cell_mu[row_index]
    template = design.template
    if template_kind is not None and template is not None:
        row_template = pm.Data("row_template", template.row_template, dims="row")
        row_kind = pm.Data("row_word_kind",
                           template.connection_kind[row_cell % len(template.connection_kind)],
                           dims="row")
        row_mu = row_mu + template_kind[row_template, row_kind]
    row_sigma = cell_sigma[row_index]
    if template_kind is None:
        offset = pm.Normal("word_offset", 0.0, 1.0, dims="word_to_compare")
        u = pm.Deterministic("word_effect", tau_word[word_kind] * offset,
                             dims="word_to_compare")
    else:
        u = pm.Normal("word_effect", 0.0, tau_word[word_kind], dims="word_to_compare")
    pm.Normal("cosine_distance", mu=row_mu + u[row_word], sigma=row_sigma, observed=y,
              dims="row")


class _WordGroupData(NamedTuple):
    """The data containers of the crossed level's likelihood on the cell statistics."""

    n: Any
    mean: Any
    ss: Any
    patterns: Any
    kind: Any
    pattern: Any
    size: Any
    mean_sum: Any
    scatter: Any
    groups: int


def _word_group_data(cells: pd.DataFrame, design: CrossedDesign) -> _WordGroupData:
    """Add the crossed level's data on the cell statistics (inside the model context).

    The cells' statistics (protected word × connection) and the compared words' count
    patterns and group sums (module notes of :mod:`embias.bayes.crossed`, "Groups").
    """
    import pymc as pm

    shape = (cells["protected_word"].nunique(), cells["connection"].nunique())
    dims = ("protected_word", "connection")
    n = pm.Data("cell_n", cells["n"].to_numpy(float).reshape(shape), dims=dims)
    mean = pm.Data("cell_mean_data", cells["mean"].to_numpy(float).reshape(shape), dims=dims)
    ss = pm.Data("cell_ss_data", cells["ss"].to_numpy(float).reshape(shape), dims=dims)
    pm.modelcontext(None).add_coord("count_pattern", np.arange(len(design.patterns)))
    patterns = pm.Data("pattern_cell_count", design.patterns, dims=("count_pattern", *dims))
    groups = design.word_groups()
    return _WordGroupData(
        n=n, mean=mean, ss=ss, patterns=patterns,
        kind=pm.Data("word_group_kind", groups.kind),
        pattern=pm.Data("word_group_pattern", groups.pattern),
        size=pm.Data("word_group_size", groups.size),
        mean_sum=pm.Data("word_group_mean_sum", groups.mean_sum),          # (group, con)
        scatter=pm.Data("word_group_sum_scatter", groups.sum_scatter),    # (g, con, con)
        groups=len(groups.size))


def crossed_cell_likelihood(cells: pd.DataFrame, design: CrossedDesign,
                            structure: LevelStructure, *, coef: Any, centre: Any, tau: Any,
                            tau_protected: Any, sigma: Any, tau_word: Any, template_kind: Any,
                            rows: int, correlation_chol: Any = None) -> None:
    """Add the crossed level's likelihood from the cell statistics (inside the context).

    The potential ``cosine_distance_marginal``, log p(rows | coef, σ, τ_u, V) with the
    compared words' effects u integrated out (module notes of :mod:`embias.bayes.crossed`)
    — and the coefficients too (around ``centre``, sds ``tau`` and ``tau_protected``,
    correlations ``correlation_chol``·``correlation_chol``ᵀ when given) when ``coef`` is
    ``None``. ``rows`` is the table's number of rows.
    """
    import pymc as pm
    import pytensor.tensor as pt

    d = _word_group_data(cells, design)
    inv_var = sigma**-2                                                  # (connection,)
    rows_per_con = pt.sum(d.n, axis=0)
    if coef is None:  # the coefficients integrated out as well
        if structure.attribute_pair:
            raise ValueError("integrate_coefficients with attribute_pair is not implemented")
        pm.Potential("cosine_distance_marginal", integrated_coefficients_log_likelihood(
            centre + pt.zeros_like(d.mean), tau, tau_protected, d.n,
            d.mean, d.ss, d.patterns, d.kind, d.pattern, d.size, d.mean_sum, d.scatter,
            tau_word, sigma, rows=rows, n_groups=d.groups, correlation_chol=correlation_chol))
        return
    if template_kind is None:
        within = pt.sum((d.ss + d.n * (d.mean - coef) ** 2) * inv_var[None, :])
        fitted = pt.sum(d.patterns * coef[None, :, :], axis=1)          # (pattern, con)
    else:  # sentence table: per template cell, and Σ_t m·V per pattern
        within, fitted_template = template_statistics(design, coef, template_kind, inv_var)
        fitted = pt.sum(d.patterns * coef[None, :, :], axis=1) + fitted_template
    if structure.attribute_pair:
        pair_terms = attribute_pair_terms(
            design, list(dict.fromkeys(cells["connection"])), tau_word, inv_var, fitted,
            d.mean_sum, d.scatter, d.kind, d.pattern, d.size, d.patterns, structure)
        pm.Potential("cosine_distance_marginal", -0.5 * (
            rows * np.log(2.0 * np.pi) + pt.sum(rows_per_con * pt.log(sigma**2)) + within
            + pair_terms))
        return
    # Σ_{w∈g} b_w² = ιᵀ M_g ι + n_g (S̄_g·ι − F_g)², ι = 1/σ²
    offset = d.mean_sum @ inv_var - (fitted @ inv_var)[d.pattern]
    b2 = (d.scatter @ inv_var) @ inv_var + d.size * offset**2
    c = (pt.sum(d.patterns, axis=1) @ inv_var)[d.pattern]
    t2 = tau_word[d.kind] ** 2
    denom = 1.0 + t2 * c
    pm.Potential("cosine_distance_marginal", -0.5 * (
        rows * np.log(2.0 * np.pi) + pt.sum(rows_per_con * pt.log(sigma**2))
        + pt.sum(d.size * pt.log(denom)) + within - pt.sum(t2 * b2 / denom)))


def integrated_coefficients_log_likelihood(
    centre: Any, tau: Any, tau_protected: Any, n_pc: Any, ybar: Any, ss: Any, patterns: Any,
    group_kind: Any, group_pattern: Any, group_size: Any, mean_sum: Any, scatter: Any,
    tau_word: Any, sigma: Any, *, rows: int, n_groups: int, correlation_chol: Any = None,
) -> Any:
    """Return log p(rows | means, τ, τ_protected, σ, τ_u), coefficients integrated out.

    The compared words' effects u and the protected words' coefficients x = coef are
    both integrated out (PyTensor).

    Given x, the u-integrated log-likelihood (:mod:`embias.bayes.crossed`) is quadratic in
    x: ℓ(x) = κ − ½ xᵀAx + aᵀx with A = diag(n ι) − Σ_g w_g v_g v_gᵀ and
    a = n ι ȳ − Σ_g w_g β_g v_g, where ι = 1/σ², v_g[p, c] = pattern_g[p, c]·ι_c,
    w_g = n_g τ_g²/(1 + τ_g² c_g), β_g = S̄_g·ι and
    κ = −½[N log 2π + Σ_c N_c log σ_c² + Σ_g n_g log(1 + τ_g² c_g) + Σ (SS + n ȳ²) ι
    − Σ_g (τ_g²/(1 + τ_g² c_g)) (ιᵀM_g ι + n_g β_g²)]. With x_p ~ N(m_p, S), Λ = S⁻¹,
    Q = A + I ⊗ Λ and h = a + (Λ m_p)_p, the marginal is
    κ − (P/2) log det S − ½ Σ_p m_pᵀΛm_p − ½ log det Q + ½ hᵀQ⁻¹h.

    S = diag(τ²) + τ_p²·11ᵀ, so Λ = diag(q) − α q qᵀ with q = 1/τ² and
    α = τ_p²/(1 + τ_p² Σ q) (Sherman–Morrison), log det S = Σ log τ² + log(1 + τ_p² Σ q),
    and each protected word's block of Q, G_p = Λ + diag(n_p ι) = E_p − α q qᵀ, is a
    diagonal minus a rank-one term: G_p⁻¹x = x/E_p + (α/s_p) r_p (r_p·x) with r_p = q/E_p,
    s_p = 1 − α q·r_p, and log det G_p = Σ log E_p + log s_p. Q is block diagonal minus a
    rank-(groups) term, so Q⁻¹ and det Q follow from the blocks and one groups × groups
    matrix J = I − W^½ Vᵀ G⁻¹ V W^½ (Woodbury and the determinant lemma). Everything is
    element-wise over (protected word, connection) arrays but J's Cholesky factor: the cost
    is linear in the protected words, and the rows never enter.

    With ``correlation_chol`` (L_R, the Cholesky factor of the coefficients' correlation
    matrix R), S = diag(τ) R diag(τ) + τ_p²·11ᵀ is a full C × C matrix: Λ and log det S
    come from S's Cholesky factor, and each G_p = Λ + diag(n_p ι) is solved through its
    own Cholesky factor, element by element over the protected words (C is the few
    connections).
    """
    import pytensor.tensor as pt

    inv_var = sigma**-2
    n_words = ybar.shape[0]
    c_g = (pt.sum(patterns, axis=1) @ inv_var)[group_pattern]
    t2 = tau_word[group_kind] ** 2
    k = t2 / (1.0 + t2 * c_g)
    w = k * group_size
    beta = mean_sum @ inv_var
    kappa = -0.5 * (rows * np.log(2.0 * np.pi) + pt.sum(pt.sum(n_pc, axis=0) * pt.log(sigma**2))
                    + pt.sum(group_size * pt.log1p(t2 * c_g))
                    + pt.sum((ss + n_pc * ybar**2) * inv_var[None, :])
                    - pt.sum(k * ((scatter @ inv_var) @ inv_var + group_size * beta**2)))
    v = patterns[group_pattern] * inv_var[None, None, :]               # (group, P, C)
    weight = n_pc * inv_var[None, :]                                  # (P, C)
    if correlation_chol is None:
        centre_prec, log_det_s, block_solve, log_det_g = _diagonal_plus_offset_blocks(
            centre, tau, tau_protected, weight)
    else:
        centre_prec, log_det_s, block_solve, log_det_g = _full_covariance_blocks(
            centre, tau, tau_protected, correlation_chol, weight)
    h = weight * ybar - pt.sum((w * beta)[:, None, None] * v, axis=0) + centre_prec
    g_h = block_solve(h)
    g_v = block_solve(v)                                               # (group, P, C)
    root = pt.sqrt(w)
    h_mat = pt.sum(v[:, None, :, :] * g_v[None, :, :, :], axis=(2, 3))  # (group, group)
    y = root * pt.sum(v * g_h[None], axis=(1, 2))
    j_mat = np.eye(n_groups) - root[:, None] * h_mat * root[None, :]
    # J is a few groups across: its Cholesky factor element by element (a batched LAPACK
    # call per lane costs more than these few dozen operations)
    chol_j = cholesky_elements([[j_mat[a, b] for b in range(n_groups)] for a in range(n_groups)],
                       n_groups)
    z: list[Any] = []
    for a in range(n_groups):
        z.append((y[a] - sum((chol_j[a][b] * z[b] for b in range(a)), 0.0)) / chol_j[a][a])
    quad = pt.sum(h * g_h) + sum(t**2 for t in z)
    log_det_q = log_det_g + 2.0 * sum(pt.log(chol_j[a][a]) for a in range(n_groups))
    prior_quad = pt.sum(centre_prec * centre)
    return (kappa - 0.5 * n_words * log_det_s - 0.5 * prior_quad - 0.5 * log_det_q
            + 0.5 * quad)


def _diagonal_plus_offset_blocks(centre: Any, tau: Any, tau_protected: Any,
                                 weight: Any) -> tuple[Any, Any, Any, Any]:
    """Return Λm, log det S, x ↦ G_p⁻¹x and Σ_p log det G_p for S = diag(τ²) + τ_p²·11ᵀ."""
    import pytensor.tensor as pt

    q = tau**-2                                                        # (C,)
    p2 = tau_protected**2
    alpha = p2 / (1.0 + p2 * pt.sum(q))
    log_det_s = pt.sum(pt.log(tau**2)) + pt.log1p(p2 * pt.sum(q))
    centre_prec = q * centre - alpha * q * pt.sum(q * centre, axis=-1, keepdims=True)
    e = q[None, :] + weight                                            # (P, C)
    r = q[None, :] / e
    # s_p = 1 − α q·r without the cancellation of its two terms: q − q²/e = q w/e, so
    # s_p = (1 + τ_p² Σ q w/e)/(1 + τ_p² Σ q)
    log_s_p = pt.log1p(p2 * pt.sum(q[None, :] * weight / e, axis=1)) - pt.log1p(p2 * pt.sum(q))
    s_p = pt.exp(log_s_p)                                             # (P,)

    def block_solve(x: Any) -> Any:  # G_p⁻¹ x_p over the last two axes (P, C)
        return x / e + (alpha / s_p)[:, None] * r * pt.sum(r * x, axis=-1, keepdims=True)

    return centre_prec, log_det_s, block_solve, pt.sum(pt.log(e)) + pt.sum(log_s_p)


def _full_covariance_blocks(centre: Any, tau: Any, tau_protected: Any, correlation_chol: Any,
                            weight: Any) -> tuple[Any, Any, Any, Any]:
    """Return Λm, log det S, x ↦ G_p⁻¹x and Σ_p log det G_p for a full S.

    S = diag(τ) L_R L_Rᵀ diag(τ) + τ_p²·11ᵀ; its Cholesky factor and the protected words'
    G_p's are taken element by element.
    """
    import pytensor.tensor as pt

    size = int(correlation_chol.type.shape[0])
    p2 = tau_protected**2
    chol_tau = tau[:, None] * correlation_chol
    s_mat = chol_tau @ chol_tau.T + p2
    chol_s = cholesky_elements([[s_mat[i, j] for j in range(size)] for i in range(size)], size)
    log_det_s = 2.0 * sum(pt.log(chol_s[i][i]) for i in range(size))
    inv_l = _lower_inverse(chol_s, size)                               # L_S⁻¹
    lam = [[sum(inv_l[k][i] * inv_l[k][j] for k in range(max(i, j), size))
            for j in range(size)] for i in range(size)]                # Λ = L_S⁻ᵀ L_S⁻¹
    centre_b = pt.broadcast_to(centre, weight.shape)
    centre_prec = pt.stack([sum(lam[i][j] * centre_b[:, j] for j in range(size))
                            for i in range(size)], axis=-1)
    chol_g = cholesky_elements(
        [[lam[i][j] + (weight[:, i] if i == j else 0.0) for j in range(size)]
         for i in range(size)], size)                                  # per protected word

    def block_solve(x: Any) -> Any:  # G_p⁻¹ x_p over the last two axes (P, C)
        fwd: list[Any] = []
        for i in range(size):
            fwd.append((x[..., i] - sum((chol_g[i][k] * fwd[k] for k in range(i)), 0.0))
                       / chol_g[i][i])
        back: list[Any] = [0.0] * size
        for i in reversed(range(size)):
            back[i] = (fwd[i] - sum((chol_g[k][i] * back[k] for k in range(i + 1, size)),
                                    0.0)) / chol_g[i][i]
        return pt.stack(back, axis=-1)

    log_det_g = 2.0 * sum(pt.sum(pt.log(chol_g[i][i])) for i in range(size))
    return centre_prec, log_det_s, block_solve, log_det_g


def _lower_inverse(chol: list[list[Any]], size: int) -> list[list[Any]]:
    """Return the inverse of a lower triangular matrix given element by element."""
    inv: list[list[Any]] = [[0.0] * size for _ in range(size)]
    for i in range(size):
        inv[i][i] = 1.0 / chol[i][i]
        for j in range(i):
            inv[i][j] = -sum((chol[i][k] * inv[k][j] for k in range(j, i)), 0.0) / chol[i][i]
    return inv


def attribute_pair_terms(design: CrossedDesign, cons: list[str], tau_word: Any,
                          inv_var: Any, fitted: Any, mean_sum: Any, scatter: Any,
                          group_kind: Any, group_pattern: Any, group_size: Any,
                          patterns: Any, structure: LevelStructure) -> Any:
    """Return the compared words' part of −2 × the log-likelihood with two effects a word.

    Σ over the word groups of n_g·log det(I + Σ_k C_g) − tr(K_g Σ_w b_w b_wᵀ), when an
    attribute word has two correlated effects (inside the model context; adds
    τ_u,different and ρ_u).

    A word's rows have covariance D + B Σ Bᵀ, B its rows' effect indicators (two columns:
    :data:`PAIR_COMPONENT`). With C = BᵀD⁻¹B = diag(c₁, c₂), b = BᵀD⁻¹r and δ = det Σ:
    det(I + ΣC) = Δ = 1 + s₁c₁ + s₂c₂ + c₁c₂δ (determinant lemma) and
    (Σ⁻¹ + C)⁻¹ = K = [[s₁ + c₂δ, s₁₂], [s₁₂, s₂ + c₁δ]]/Δ (Woodbury), so
    log N(r; 0, D + BΣBᵀ) = −½[n log 2π + Σ log dᵢ + log Δ + Σ rᵢ²/dᵢ − bᵀKb]. C and K
    depend on the word's group only; Σ_w b_w b_wᵀ = Bᵀ diag(ι) (M_g + n_g e_g e_gᵀ)
    diag(ι) B with e_g = S̄_g − F_g (module notes of :mod:`embias.bayes.crossed`). A
    kind with one effect (neutral, human words; an attribute table without ``different``
    rows) has c₂ = 0 and b₂ = 0, which leaves the one-effect form τ²b²/(1 + τ²c).
    """
    import pymc as pm
    import pytensor.tensor as pt

    component = np.zeros((len(cons), 2))
    component[np.arange(len(cons)), [PAIR_COMPONENT[c] for c in cons]] = 1.0
    pair = np.array([float(k == "attribute") for k in design.kinds])
    component_ = pm.Data("connection_component", component, dims=("connection", "effect"))
    pair_ = pm.Data("word_kind_pair", pair, dims="word_kind")
    tau_other = structure.sd_variable("tau_word_different")
    rho_raw = pm.Flat("word_correlation_raw")
    # LKJ(η) for two variables: ρ ~ Beta(η, η) on (−1, 1); ρ = tanh x, dρ/dx = 1 − ρ²
    pm.Potential("word_correlation_prior", lkj_cpc_log_density(
        pt.stack([rho_raw]), 2, structure.correlation_eta))
    rho = pm.Deterministic("word_correlation", pt.tanh(rho_raw))
    t = tau_word[group_kind]
    is_pair = pair_[group_kind]
    s1 = t**2
    s2 = is_pair * tau_other**2 + (1.0 - is_pair) * s1
    s12 = is_pair * rho * t * tau_other
    delta = s1 * s2 - s12**2
    rows = (pt.sum(patterns, axis=1) * inv_var[None, :])[group_pattern]     # (group, con)
    c = rows @ component_                                                # (group, 2)
    big_delta = 1.0 + s1 * c[:, 0] + s2 * c[:, 1] + c[:, 0] * c[:, 1] * delta
    e = (mean_sum - fitted[group_pattern]) * inv_var[None, :]             # (group, con)
    eb = e @ component_                                                  # (group, 2)
    weighted = scatter * inv_var[None, :, None] * inv_var[None, None, :]  # (g, con, con)

    def scatter_b(i: int, j: int) -> Any:  # Bᵀ (ι M_g ι) B, entry (i, j), per group
        return pt.sum(weighted * (component_[:, i][:, None] * component_[:, j][None, :]),
                      axis=(1, 2))

    t11 = scatter_b(0, 0) + group_size * eb[:, 0] ** 2
    t12 = scatter_b(0, 1) + group_size * eb[:, 0] * eb[:, 1]
    t22 = scatter_b(1, 1) + group_size * eb[:, 1] ** 2
    quad = ((s1 + c[:, 1] * delta) * t11 + 2.0 * s12 * t12
            + (s2 + c[:, 0] * delta) * t22) / big_delta
    return pt.sum(group_size * pt.log(big_delta)) - pt.sum(quad)


def template_effects(design: CrossedDesign) -> Any:
    """Add the template effects of a sentence table (inside the model context).

    v[t] and, with two kinds of compared words or more, v×[t, kind]; returns
    V[t, kind] = v + v× (deterministic ``template_kind_effect``, dims
    ``template, word_kind``).

    Each of v and v× is one raw variable sampled centred or non-centred as the design
    chose (the choice is data, as for ``coef``); the starting values are the design's
    moment estimates.
    """
    import pymc as pm
    import pytensor.tensor as pt

    template = design.template
    if template is None:  # pragma: no cover - callers check
        raise ValueError("the table has no template column")
    tau = pm.Exponential("tau_template", lam=TEMPLATE_SD_RATE, initval=template.start_sd)
    centred = pm.Data("template_centred", template.centred.astype(float), dims="template")
    start = np.where(template.centred, template.start, template.start / template.start_sd)
    raw = pm.Normal("template_raw", mu=0.0, sigma=centred * tau + (1.0 - centred),
                    dims="template", initval=start)
    effect = pm.Deterministic("template_effect", (centred + (1.0 - centred) * tau) * raw,
                              dims="template")
    by_kind = pt.repeat(effect[:, None], len(design.kinds), axis=1)
    if template.interaction:
        tau_k = pm.Exponential("tau_template_kind", lam=TEMPLATE_SD_RATE,
                               initval=template.start_sd_interaction)
        centred_k = pm.Data("template_kind_centred",
                            template.centred_interaction.astype(float),
                            dims=("template", "word_kind"))
        start_k = np.where(template.centred_interaction, template.start_interaction,
                           template.start_interaction / template.start_sd_interaction)
        raw_k = pm.Normal("template_kind_raw", mu=0.0,
                          sigma=centred_k * tau_k + (1.0 - centred_k),
                          dims=("template", "word_kind"), initval=start_k)
        by_kind = by_kind + (centred_k + (1.0 - centred_k) * tau_k) * raw_k
    return pm.Deterministic("template_kind_effect", by_kind, dims=("template", "word_kind"))


def template_statistics(design: CrossedDesign, coef: Any, template_kind: Any,
                         inv_var: Any) -> tuple[Any, Any]:
    """Return Σ rᵢ²/dᵢ over all rows from the template cells, and Σ_t m·V per pattern.

    The module notes of :mod:`embias.bayes.crossed`, "Templates".
    """
    import pymc as pm
    import pytensor.tensor as pt

    template = design.template
    if template is None:  # pragma: no cover - callers check
        raise ValueError("the table has no template column")
    cell_word = pm.Data("template_cell_word", template.cell_word)
    cell_connection = pm.Data("template_cell_connection", template.cell_connection)
    cell_template = pm.Data("template_cell_template", template.cell_template)
    cell_n = pm.Data("template_cell_n", template.n)
    cell_mean = pm.Data("template_cell_mean", template.mean)
    ss = pm.Data("template_ss", template.ss_by_connection, dims="connection")
    connection_kind = pm.Data("connection_word_kind", template.connection_kind,
                              dims="connection")
    by_connection = template_kind[:, connection_kind]                    # (template, con)
    resid = (cell_mean - coef[cell_word, cell_connection]
             - by_connection[cell_template, cell_connection])
    within = pt.sum(ss * inv_var) + pt.sum(cell_n * resid**2 * inv_var[cell_connection])
    counts = pm.Data("pattern_template_count", design.pattern_template_count,
                     dims=("count_pattern", "template", "connection"))
    fitted = pt.sum(counts * by_connection[None, :, :], axis=1)         # (pattern, con)
    return within, fitted
