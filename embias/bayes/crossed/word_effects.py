"""The compared words' effects and the rows' template effects, per posterior draw.

The sampler of the crossed level never sees the compared words' effects u: after sampling
each draw's u is drawn from its exact conditional (``draw_word_effects``). For a sentence
table each row's template effect V[t, kind(w)] is read from the draws
(``row_template_effects``). The equations are in the notes of :mod:`embias.bayes.crossed`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .design import CrossedDesign, TemplateDesign, crossed_design

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["draw_word_effects", "row_template_effects"]


def _template_kind_draws(post: Any, template: TemplateDesign, kinds: list[str]) -> np.ndarray:
    """Draws (sample, template, kind) of V[t, k] in the design's order."""
    values = post["template_kind_effect"].transpose(
        "chain", "draw", "template", "word_kind").sel(
        template=template.templates, word_kind=kinds).values
    return values.reshape(-1, len(template.templates), len(kinds))


def draw_word_effects(
    posterior: DataTree,
    table: pd.DataFrame,
    cells: pd.DataFrame,
    design: CrossedDesign,
    *,
    random_seed: int,
    chunk: int = 250,
) -> np.ndarray:
    """Draw every compared word's effect u from its exact conditional posterior.

    Given each posterior draw of coef, σ, τ_u and, for a sentence table, the template
    effects V: u ~ Normal(v·b, v), v = 1/(1/τ² + c) (module notes).

    Parameters
    ----------
    posterior
        The fit's draws: ``coef``, ``sigma``, ``tau_word`` (and ``template_kind_effect``
        for a sentence table).
    table
        The fitted table.
    cells
        Its cell statistics.
    design
        Its :func:`crossed_design`.
    random_seed
        Seed of the draws.
    chunk
        Posterior draws processed at a time (bounds the memory).

    Returns
    -------
    numpy.ndarray
        Shape (chain, draw, compared word).

    Examples
    --------
    In the second draw τ_u ≈ 0: the words have no effects.

    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.data import cell_statistics
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> cells = cell_statistics(table)
    >>> from embias.bayes.crossed import crossed_design, draw_word_effects
    >>> post = xr.Dataset(
    ...     {"coef": (("chain", "draw", "protected_word", "connection"),
    ...               np.full((1, 2, 2, 2), 0.9)),
    ...      "sigma": (("chain", "draw", "connection"), np.full((1, 2, 2), 0.1)),
    ...      "tau_word": (("chain", "draw", "word_kind"), [[[0.1, 0.1], [1e-6, 1e-6]]])},
    ...     coords={"protected_word": ["he", "she"], "connection": ["associated", "none"],
    ...             "word_kind": ["attribute", "neutral"]})
    >>> u = draw_word_effects(xr.DataTree.from_dict({"posterior": post}), table, cells,
    ...                       crossed_design(table, cells), random_seed=0)
    >>> u.shape, bool(np.abs(u[0, 1]).max() < 1e-4)
    ((1, 2, 4), True)
    """
    post = posterior["posterior"]
    words = list(cells["protected_word"].drop_duplicates())
    cons = list(cells["connection"].drop_duplicates())
    coef = post["coef"].transpose("chain", "draw", "protected_word", "connection")
    coef = coef.sel(protected_word=words, connection=cons).values
    sigma = post["sigma"].transpose("chain", "draw", "connection").sel(connection=cons).values
    tau = post["tau_word"].transpose("chain", "draw", "word_kind").sel(
        word_kind=design.kinds).values
    chains, draws = coef.shape[:2]
    coef = coef.reshape(chains * draws, len(words), len(cons))
    sigma = sigma.reshape(chains * draws, len(cons))
    tau2 = (tau.reshape(chains * draws, len(design.kinds)) ** 2)[:, design.word_kind]
    n_words = len(design.words)
    # every compared word with one count pattern has the same fitted sums: compute them per
    # pattern ((draw, protected) @ (protected, pattern) per connection, small products) and
    # look each word's up
    patterns = design.patterns
    word_pattern = design.word_pattern
    pattern_by_con = np.ascontiguousarray(patterns.transpose(2, 1, 0), dtype=float)  # (c,p,k)
    template_term = None
    if design.template is not None:
        # V[t, kind(con)] per draw, and the patterns' template counts m[k, t, con]
        by_kind = _template_kind_draws(post, design.template, design.kinds)[
            :, :, design.template.connection_kind]
        template_term = (np.ascontiguousarray(
            design.pattern_template_count.transpose(2, 1, 0), dtype=float), by_kind)
    rows_by_con = patterns.sum(axis=1)[word_pattern].T.astype(float)      # (con, word)
    rng = np.random.default_rng([int(random_seed), 104729])
    out = np.empty((chains * draws, n_words))
    sums = design.word_sum.T[:, None, :]                                # (con, 1, word)
    for start in range(0, chains * draws, chunk):
        s = slice(start, start + chunk)
        inv_var = sigma[s] ** -2                                        # (draw, con)
        fitted = np.matmul(np.ascontiguousarray(coef[s].transpose(2, 0, 1)),
                           pattern_by_con)                              # (c, d, pattern)
        if template_term is not None:                                   # + Σ_t m·V
            fitted = fitted + np.matmul(
                np.ascontiguousarray(template_term[1][s].transpose(2, 0, 1)),
                template_term[0])
        fitted = fitted[:, :, word_pattern]                             # (c, d, word)
        b = np.sum((sums - fitted) * inv_var.T[:, :, None], axis=0)     # (draw, word)
        c = np.sum(inv_var.T[:, :, None] * rows_by_con[:, None, :], axis=0)  # (draw, word)
        v = 1.0 / (1.0 / tau2[s] + c)
        out[s] = v * b + np.sqrt(v) * rng.standard_normal(v.shape)
    return out.reshape(chains, draws, n_words)


def row_template_effects(posterior: DataTree, table: pd.DataFrame,
                         cells: pd.DataFrame) -> np.ndarray | None:
    """Return each row's template effect V[t, kind(w)] per posterior draw.

    For a sentence table fitted at the crossed level; adding it to the row's coef (and u)
    gives the row's mean.

    Parameters
    ----------
    posterior
        The fit's draws (``template_kind_effect``).
    table
        The fitted table (``template`` column).
    cells
        Its cell statistics.

    Returns
    -------
    numpy.ndarray or None
        Shape (sample, row) (``chain × draw`` samples, in that order); ``None`` when the
        fit has no template effects (a word table, or another level).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.data import cell_statistics
    >>> table = pd.DataFrame({
    ...     "protected_word": ["he"] * 4 + ["she"] * 4,
    ...     "word_to_compare": ["doctor", "engineer", "chair", "table"] * 2,
    ...     "connection": ["associated", "associated", "none", "none"] * 2,
    ...     "cosine_distance": [0.6, 0.8, 0.9, 1.1, 0.7, 0.9, 1.0, 1.0]})
    >>> cells = cell_statistics(table)
    >>> from embias.bayes.crossed import row_template_effects
    >>> table["template"] = ["T1", "T1", "T1", "T1", "T2", "T2", "T2", "T2"]
    >>> post = xr.Dataset(
    ...     {"template_kind_effect": (("chain", "draw", "template", "word_kind"),
    ...                               [[[[0.01, 0.02], [-0.01, -0.02]]]])},
    ...     coords={"template": ["T1", "T2"], "word_kind": ["attribute", "neutral"]})
    >>> row_template_effects(xr.DataTree.from_dict({"posterior": post}), table, cells)
    array([[ 0.01,  0.01,  0.02,  0.02, -0.01, -0.01, -0.02, -0.02]])
    """
    post = posterior["posterior"]
    if "template_kind_effect" not in post or "template" not in table.columns:
        return None
    design = crossed_design(table, cells)
    template = design.template
    if template is None:  # pragma: no cover - the table has a template column
        return None
    values = _template_kind_draws(post, template, design.kinds)
    row_kind = template.connection_kind[design.row_cell % len(template.connection_kind)]
    return values[:, template.row_template, row_kind]
