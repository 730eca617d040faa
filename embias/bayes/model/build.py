"""``build_model`` and one builder per level.

The dataset and word levels (``_build_pooled``), the hierarchical level
(``_build_hierarchical``) and the crossed levels, with the compared words' effects
(``_build_crossed``, its likelihood from :mod:`embias.bayes.crossed_terms`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from ..._validation import check_choice, check_number
from ...settings import DATA_MODES, DEFAULT_PRIOR_LOCATION, LEVELS
from ..crossed.design import crossed_design
from ..crossed_terms import crossed_cell_likelihood, crossed_row_likelihood, template_effects
from .layout import CellLayout, HierarchicalLayout
from .likelihood import cell_likelihood, row_likelihood, table_rows
from .prior import hierarchical_prior
from .structure import LEVEL_STRUCTURES, DataMode, Level, LevelStructure, level_structure

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["build_model"]


def build_model(
    cells: pd.DataFrame,
    *,
    level: Level = "hierarchical",
    data: DataMode = "summary",
    table: pd.DataFrame | None = None,
    centred: Sequence[str] | Literal["auto"] = "auto",
    prior_location: float = DEFAULT_PRIOR_LOCATION,
    structure: LevelStructure | None = None,
) -> pm.Model:
    """Build (not sample) the PyMC model of a cosine table.

    Parameters
    ----------
    cells
        Output of :func:`cell_statistics` (defines the coordinates and, with
        ``data="summary"``, the likelihood).
    level
        ``"dataset"``, ``"word"``, ``"hierarchical"`` or ``"crossed"`` (the hierarchical
        model plus a random effect per compared word, :mod:`embias.bayes.crossed`).
    data
        ``"summary"``: likelihood of the cell sufficient statistics (ȳ and SS) — at the
        crossed level, the rows' likelihood with the compared words' effects integrated
        out in closed form; ``"raw"``: one Normal term per row of ``table`` (crossed:
        with every word's effect sampled).
    table
        The cosine table the cells come from; required with ``data="raw"`` and at the
        crossed level.
    centred
        Hierarchical family only: connections whose coefficients are sampled centred;
        ``"auto"`` uses :func:`~embias.bayes.data.choose_centring`.
    prior_location
        Location of the priors of the connection means: ``bar ~ N(prior_location, 0.3)``
        (hierarchical), ``m ~ N(prior_location, 0.5)`` (word, dataset). 1.0 for cosine
        distances (default); 0.0 for the paired change model, whose data are differences.
        It enters the model as data, so every location shares one compiled graph.
    structure
        The choices of a hierarchical-family level (default :func:`level_structure` of
        ``level``); given explicitly only to try other structures (the real-word
        calibration of ``benchmarks/bench_real_word_models.py``).

    Returns
    -------
    pymc.Model
        Coordinates ``protected_word`` and ``connection``; deterministic
        ``connection_mean`` (dims ``connection``) at every level and ``coef`` (dims
        ``protected_word, connection``) at the word, hierarchical and crossed levels;
        at the crossed level also ``tau_word`` (dims ``word_kind``: the sd of the
        compared words' effects per kind) and, with ``data="raw"``, ``word_effect``
        (dims ``word_to_compare``).

    Raises
    ------
    ValueError
        An unknown ``level`` or ``data``, a ``prior_location`` that is not a finite
        number, ``centred`` naming connections the table does not have, no ``table``
        where one is needed, a table the crossed level cannot fit
        (:func:`~embias.bayes.crossed.crossed_design`), or a ``structure`` whose choices
        do not go together.

    Notes
    -----
    Priors of the crossed level: those of the hierarchical model, and
    τ_u[kind] ~ Exponential(2) (mean 0.5, like τ and σ: weakly informative on the scale
    of cosine distances, which lie in [0, 2]; the measured word sds are 0.03–0.15).

    Examples
    --------
    >>> import embias
    >>> from embias.bayes import build_model, cell_statistics
    >>> table = embias.load_published_table("religion", "reddit")
    >>> cells = cell_statistics(table)
    >>> model = build_model(cells, level="hierarchical", centred=())
    >>> [variable.name for variable in model.free_RVs]
    ['bar', 'tau', 'sigma', 'coef_raw']
    >>> model.coords["connection"]
    ('associated', 'different', 'human', 'none')
    >>> model = build_model(cells, level="crossed", table=table)
    >>> [variable.name for variable in model.free_RVs]
    ['bar', 'tau', 'sigma', 'coef_raw', 'tau_word']
    >>> build_model(cells, level="crossed")
    Traceback (most recent call last):
    ...
    ValueError: data='summary' at level='crossed' needs the table (table=...)
    """
    check_choice("level", level, LEVELS)
    check_choice("data", data, DATA_MODES)
    prior_location = check_number("prior_location", prior_location)
    if level not in LEVEL_STRUCTURES:
        return _build_pooled(cells, level=level, data=data, table=table,
                             prior_location=prior_location)
    if structure is None:
        structure = level_structure(level)
    build = _build_crossed if structure.word_effects else _build_hierarchical
    return build(cells, level=level, data=data, table=table, centred=centred,
                 prior_location=prior_location, structure=structure)


def _build_pooled(cells: pd.DataFrame, *, level: str, data: str, table: pd.DataFrame | None,
                  prior_location: float) -> pm.Model:
    """Build the dataset or the word level.

    μ = m + co[con] or m[pw] + co[con], one σ, and co a zero-sum effect of the connections.
    """
    import pymc as pm
    import pytensor.tensor as pt

    layout = CellLayout.of(cells)
    coords = layout.coords()
    rows = None
    if data == "raw":
        rows = table_rows(table, cells, level=level, data=data)
        coords["row"] = np.arange(len(rows[0]))
    with pm.Model(coords=coords) as model:
        cell_word, cell_connection, location = layout.data(prior_location)
        co = pm.ZeroSumNormal("co", sigma=0.5, dims="connection")
        sigma = pm.HalfCauchy("sigma", beta=1.0)
        if level == "dataset":
            m = pm.Normal("m", mu=location, sigma=0.5)
            pm.Deterministic("connection_mean", m + co, dims="connection")
            cell_mu = m + co[cell_connection]
        else:
            m = pm.Normal("m", mu=location, sigma=0.5, dims="protected_word")
            coef = pm.Deterministic("coef", m[:, None] + co[None, :],
                                    dims=("protected_word", "connection"))
            pm.Deterministic("connection_mean", m.mean() + co, dims="connection")
            cell_mu = coef[cell_word, cell_connection]
        cell_sigma = sigma * pt.ones_like(cell_mu)
        if rows is None:
            cell_likelihood(cells, layout, cell_mu, cell_sigma)
        else:
            row_likelihood(*rows, cell_mu, cell_sigma)
    return model


def _build_hierarchical(cells: pd.DataFrame, *, level: str, data: str,
                        table: pd.DataFrame | None, centred: Sequence[str] | Literal["auto"],
                        prior_location: float, structure: LevelStructure) -> pm.Model:
    """Build the hierarchical level (or a structure without compared-word effects).

    coef[pw, con] ~ N(bar[con], τ[con]) and σ per connection.
    """
    import pymc as pm

    layout = HierarchicalLayout.of(cells, centred, structure)
    coords = layout.coords()
    rows = None
    if data == "raw":
        rows = table_rows(table, cells, level=level, data=data)
        coords["row"] = np.arange(len(rows[0]))
    with pm.Model(coords=coords) as model:
        cell_word, cell_connection, location = layout.cells.data(prior_location)
        prior = hierarchical_prior(structure, layout, location, integrable=False)
        cell_mu = prior.coef[cell_word, cell_connection]
        cell_sigma = prior.sigma[cell_connection]
        if rows is None:
            cell_likelihood(cells, layout.cells, cell_mu, cell_sigma)
        else:
            row_likelihood(*rows, cell_mu, cell_sigma)
    return model


def _build_crossed(cells: pd.DataFrame, *, level: str, data: str, table: pd.DataFrame | None,
                   centred: Sequence[str] | Literal["auto"], prior_location: float,
                   structure: LevelStructure) -> pm.Model:
    """Build the crossed levels: the hierarchical model plus the compared words' effects.

    Every compared word's effect u[w] ~ N(0, τ_u[kind]) (and, for a sentence table, the
    templates' effects) — integrated out on the cell statistics, sampled on the rows.
    """
    import pymc as pm

    layout = HierarchicalLayout.of(cells, centred, structure)
    coords = layout.coords()
    table, row_cell = table_rows(table, cells, level=level, data=data)
    coords["row"] = np.arange(len(table))
    design = crossed_design(table, cells)
    coords.update(word_to_compare=design.words, word_kind=design.kinds)
    if structure.attribute_pair:
        coords["effect"] = [0, 1]
    if design.template is not None:
        coords["template"] = design.template.templates
    with pm.Model(coords=coords) as model:
        cell_word, cell_connection, location = layout.cells.data(prior_location)
        prior = hierarchical_prior(
            structure, layout, location,
            integrable=data == "summary" and "template" not in table.columns)
        tau_word = structure.sd_variable("tau_word", dims="word_kind")
        template_kind = None if design.template is None else template_effects(design)
        if data == "raw":
            crossed_row_likelihood(table, row_cell, design,
                                   cell_mu=prior.coef[cell_word, cell_connection],
                                   cell_sigma=prior.sigma[cell_connection], tau_word=tau_word,
                                   template_kind=template_kind)
        else:
            crossed_cell_likelihood(cells, design, structure, coef=prior.coef,
                                    centre=prior.centre, tau=prior.tau,
                                    tau_protected=prior.tau_protected,
                                    correlation_chol=prior.correlation_chol, sigma=prior.sigma,
                                    tau_word=tau_word, template_kind=template_kind,
                                    rows=len(table))
    return model
