"""The PyMC models of a cosine table: one builder per level.

:func:`build_model` builds the dataset and word levels (``_build_pooled``), the
hierarchical level and the crossed levels, whose compared words are a random sample
(:mod:`embias.bayes.crossed`, with their likelihood in :mod:`embias.bayes.crossed_terms`).
``LevelStructure`` holds the choices that tell the hierarchical family's levels apart.
See :mod:`embias.bayes` for the models' equations, priors and identification.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np
import pandas as pd

from .._validation import check_choice, check_number
from ..settings import DATA_MODES, DEFAULT_PRIOR_LOCATION, LEVELS
from .correlation import cholesky_elements, correlation_cholesky, lkj_cpc_log_density
from .crossed import CrossedDesign, crossed_design
from .crossed_terms import (
    PAIR_COMPONENT,
    crossed_cell_likelihood,
    crossed_row_likelihood,
    template_effects,
)
from .data import choose_centring, row_cells

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["CROSSED_LEVELS", "LevelStructure", "build_model", "level_structure",
           "summary_model_data"]

Level = Literal["dataset", "word", "hierarchical", "crossed", "crossed_strata"]
DataMode = Literal["summary", "raw"]

#: The levels with the compared words as a random sample (their effects integrated out in
#: closed form, :mod:`embias.bayes.crossed`).
CROSSED_LEVELS: tuple[str, ...] = ("crossed", "crossed_strata")


@dataclass(frozen=True)
class LevelStructure:
    """The choices that tell the hierarchical-family levels apart.

    Attributes
    ----------
    word_effects
        Compared words as a random sample: u[w] ~ N(0, τ_u[kind]) (the crossed levels).
    strata
        Protected classes as fixed strata: the coefficients of a protected word scatter
        around its own class's means, ``bar[class, connection]``, and the connection mean
        is the average of the class means weighted by the classes' shares of the protected
        words (the weights of the population answer, :mod:`embias.calibration`).
        Otherwise one ``bar[connection]`` for all protected words.
    protected_offset
        One offset per protected word shared by its connections,
        a[p] ~ N(0, τ_protected): a word that sits far from every compared word moves
        all its coefficients together, which cancels in the contrasts.
    correlated
        A protected word's coefficients across the connections are jointly Normal with
        an unstructured correlation matrix, coef[p, ·] ~ MvN(centre, diag(τ) R diag(τ)),
        R ~ LKJ(``correlation_eta``); otherwise independent per connection (R = I).
    correlation_eta
        Shape of the LKJ prior of R (1: uniform over correlation matrices).
    attribute_pair
        An attribute word has two effects, one in the rows where it meets its own class
        (``associated``) and one where it meets the others (``different``), jointly
        Normal: sds τ_u[attribute] and τ_u,different, correlation ρ_u ~ LKJ(η) (for two
        variables, density ∝ (1 − ρ²)^(η − 1)); otherwise one effect for all its rows.
    mean_prior_sd
        Prior sd of the (class) connection means around ``prior_location``.
    integrate_coefficients
        The protected words' coefficients are integrated out as well (crossed levels on
        the cell statistics, :func:`integrated_coefficients_log_likelihood`): the sampler
        sees only the means, sds and correlations, and the coefficients are drawn
        afterwards from their exact conditional (:func:`embias.bayes.crossed.
        draw_protected_coefficients`).
    sd_prior, sd_prior_scale
        Prior family of τ, τ_u and τ_protected — ``"exponential"`` (scale = its mean,
        1/rate) or ``"halfnormal"`` (scale = the sd of the Normal it folds).
    """

    word_effects: bool = False
    strata: bool = False
    protected_offset: bool = False
    correlated: bool = False
    correlation_eta: float = 2.0
    attribute_pair: bool = False
    integrate_coefficients: bool = False
    mean_prior_sd: float = 0.3
    sd_prior: str = "exponential"
    sd_prior_scale: float = 0.5

    def sd_variable(self, name: str, **kwargs: Any) -> Any:
        """Add a standard deviation with this structure's prior (inside a model context)."""
        import pymc as pm

        if self.sd_prior == "halfnormal":
            return pm.HalfNormal(name, sigma=self.sd_prior_scale, **kwargs)
        return pm.Exponential(name, lam=1.0 / self.sd_prior_scale, **kwargs)


_STRUCTURES: dict[str, LevelStructure] = {
    "hierarchical": LevelStructure(),
    "crossed": LevelStructure(word_effects=True),
    "crossed_strata": LevelStructure(word_effects=True, strata=True),
}


def level_structure(level: str) -> LevelStructure:
    """Return the :class:`LevelStructure` of a level of the hierarchical family.

    Parameters
    ----------
    level
        ``"hierarchical"``, ``"crossed"`` or ``"crossed_strata"``.

    Returns
    -------
    LevelStructure
        The choices that tell the level apart from the others.

    Raises
    ------
    ValueError
        ``level`` is not one of the hierarchical family's levels.

    Examples
    --------
    >>> from embias.bayes.model import level_structure
    >>> level_structure("crossed").word_effects, level_structure("crossed").strata
    (True, False)
    >>> level_structure("crossed_strata").strata
    True
    >>> try:
    ...     level_structure("word")
    ... except ValueError as error:
    ...     print(error)
    level='word' is not one of ['hierarchical', 'crossed', 'crossed_strata']
    """
    check_choice("level", level, tuple(_STRUCTURES))
    return _STRUCTURES[level]


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
    if level not in _STRUCTURES:
        return _build_pooled(cells, level=level, data=data, table=table,
                             prior_location=prior_location)
    if structure is None:
        structure = level_structure(level)
    build = _build_crossed if structure.word_effects else _build_hierarchical
    return build(cells, level=level, data=data, table=table, centred=centred,
                 prior_location=prior_location, structure=structure)


@dataclass(frozen=True)
class _CellLayout:
    """The cells' protected words and connections, and each cell's indices into them.

    They make the coordinates every level's model has (``protected_word``,
    ``connection``, ``cell``).
    """

    words: list[str]
    cons: list[str]
    cell_word: np.ndarray
    cell_connection: np.ndarray
    cell_labels: list[str]

    @classmethod
    def of(cls, cells: pd.DataFrame) -> _CellLayout:
        """Return the layout of a cell statistics table (:func:`cell_statistics`)."""
        words = list(dict.fromkeys(cells["protected_word"]))
        cons = list(dict.fromkeys(cells["connection"]))
        return cls(
            words=words, cons=cons,
            cell_word=pd.Index(words).get_indexer(cells["protected_word"]).astype(np.int64),
            cell_connection=pd.Index(cons).get_indexer(cells["connection"]).astype(np.int64),
            cell_labels=[f"{w}|{c}" for w, c in zip(cells["protected_word"],
                                                    cells["connection"], strict=True)])

    def coords(self) -> dict[str, Any]:
        """Return the coordinates every level's model has."""
        return {"protected_word": self.words, "connection": self.cons,
                "cell": self.cell_labels}

    def data(self, prior_location: float) -> tuple[Any, Any, Any]:
        """Add the containers every level's model has (inside the model context).

        Each cell's protected word and connection, and the location of the prior of the
        connection means.
        """
        import pymc as pm

        return (pm.Data("cell_word", self.cell_word, dims="cell"),
                pm.Data("cell_connection", self.cell_connection, dims="cell"),
                pm.Data("prior_location", np.asarray(prior_location, dtype=float)))


def _table_rows(table: pd.DataFrame | None, cells: pd.DataFrame, *, level: str,
                data: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Return the table a model of its rows needs (refused when missing), and row cells."""
    if table is None:
        raise ValueError(f"data={data!r} at level={level!r} needs the table (table=...)")
    return table, row_cells(table, cells)


def _cell_likelihood(cells: pd.DataFrame, layout: _CellLayout, cell_mu: Any,
                     cell_sigma: Any) -> None:
    """Add the likelihood of the cell sufficient statistics (inside the model context).

    Each cell's mean ȳ ~ N(μ, σ/√n) and, for a cell of two rows or more,
    SS ~ Gamma((n − 1)/2, 1/(2σ²)).
    """
    import pymc as pm
    import pytensor.tensor as pt

    model = pm.modelcontext(None)
    n = cells["n"].to_numpy(dtype=np.int64)
    multi = np.flatnonzero(n >= 2)
    model.add_coord("cell_multi", [layout.cell_labels[i] for i in multi])
    cell_n = pm.Data("cell_n", n, dims="cell")
    multi_idx = pm.Data("cell_multi_index", multi, dims="cell_multi")
    pm.Normal("cell_mean", mu=cell_mu, sigma=cell_sigma / pt.sqrt(cell_n),
              observed=pm.Data("cell_mean_data", cells["mean"].to_numpy(float), dims="cell"),
              dims="cell")
    multi_sigma = cell_sigma[multi_idx]
    pm.Gamma("cell_ss", alpha=(cell_n[multi_idx] - 1) / 2.0,
             beta=1.0 / (2.0 * multi_sigma**2),
             observed=pm.Data("cell_ss_data", cells["ss"].to_numpy(float)[multi],
                              dims="cell_multi"),
             dims="cell_multi")


def _row_likelihood(table: pd.DataFrame, row_cell: np.ndarray, cell_mu: Any,
                    cell_sigma: Any) -> None:
    """Add one Normal term per row, with its cell's μ and σ (inside the model context)."""
    import pymc as pm

    row_index = pm.Data("row_cell", row_cell, dims="row")
    pm.Normal("cosine_distance", mu=cell_mu[row_index], sigma=cell_sigma[row_index],
              observed=pm.Data("cosine_distance_data",
                               table["cosine_distance"].to_numpy(float), dims="row"),
              dims="row")


def _build_pooled(cells: pd.DataFrame, *, level: str, data: str, table: pd.DataFrame | None,
                  prior_location: float) -> pm.Model:
    """Build the dataset or the word level.

    μ = m + co[con] or m[pw] + co[con], one σ, and co a zero-sum effect of the connections.
    """
    import pymc as pm
    import pytensor.tensor as pt

    layout = _CellLayout.of(cells)
    coords = layout.coords()
    rows = None
    if data == "raw":
        rows = _table_rows(table, cells, level=level, data=data)
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
            _cell_likelihood(cells, layout, cell_mu, cell_sigma)
        else:
            _row_likelihood(*rows, cell_mu, cell_sigma)
    return model


@dataclass(frozen=True)
class _HierarchicalLayout:
    """What the hierarchical family's models add to :class:`_CellLayout`.

    The connections sampled centred (as a 0/1 mask) and, with protected classes as
    strata, the classes (:func:`protected_strata`).
    """

    cells: _CellLayout
    centred_mask: np.ndarray
    strata: tuple[list[str], np.ndarray, np.ndarray] | None

    @classmethod
    def of(cls, cells: pd.DataFrame, centred: Sequence[str] | Literal["auto"],
           structure: LevelStructure) -> _HierarchicalLayout:
        """Return the layout of a cell statistics table (``centred`` checked)."""
        layout = _CellLayout.of(cells)
        chosen = choose_centring(cells) if centred == "auto" else tuple(centred)
        unknown = sorted(set(chosen) - set(layout.cons))
        if unknown:
            raise ValueError(f"centred={list(chosen)} names connections {unknown} that are "
                             f"not in the table ({layout.cons})")
        return cls(cells=layout, centred_mask=np.array([float(c in chosen)
                                                        for c in layout.cons]),
                   strata=protected_strata(cells) if structure.strata else None)

    def coords(self) -> dict[str, Any]:
        """Return the coordinates of the hierarchical family's models."""
        coords = self.cells.coords()
        if self.strata is not None:
            coords["protected_class"] = self.strata[0]
        return coords


class _Prior(NamedTuple):
    """The hierarchical family's parameters of the protected words' coefficients."""

    centre: Any
    tau: Any
    sigma: Any
    coef: Any
    tau_protected: Any


def _hierarchical_prior(structure: LevelStructure, layout: _HierarchicalLayout,
                        location: Any, *, integrable: bool) -> _Prior:
    """Add the connection means, τ, σ and the coefficients (inside the model context).

    ``coef`` is ``None`` when the coefficients are integrated out (``integrable``: the
    crossed levels on the cell statistics of a table without templates), and
    ``tau_protected`` then their shared offset's sd (0 without one).
    """
    import pymc as pm

    centre = _connection_means(structure, location, layout.strata)
    tau = structure.sd_variable("tau", dims="connection")
    sigma = pm.Exponential("sigma", lam=2.0, dims="connection")
    coef, tau_protected = _protected_coefficients(
        structure, centre, tau, layout.centred_mask, len(layout.cells.cons),
        integrable=integrable)
    return _Prior(centre, tau, sigma, coef, tau_protected)


def _build_hierarchical(cells: pd.DataFrame, *, level: str, data: str,
                        table: pd.DataFrame | None, centred: Sequence[str] | Literal["auto"],
                        prior_location: float, structure: LevelStructure) -> pm.Model:
    """Build the hierarchical level (or a structure without compared-word effects).

    coef[pw, con] ~ N(bar[con], τ[con]) and σ per connection.
    """
    import pymc as pm

    layout = _HierarchicalLayout.of(cells, centred, structure)
    coords = layout.coords()
    rows = None
    if data == "raw":
        rows = _table_rows(table, cells, level=level, data=data)
        coords["row"] = np.arange(len(rows[0]))
    with pm.Model(coords=coords) as model:
        cell_word, cell_connection, location = layout.cells.data(prior_location)
        prior = _hierarchical_prior(structure, layout, location, integrable=False)
        cell_mu = prior.coef[cell_word, cell_connection]
        cell_sigma = prior.sigma[cell_connection]
        if rows is None:
            _cell_likelihood(cells, layout.cells, cell_mu, cell_sigma)
        else:
            _row_likelihood(*rows, cell_mu, cell_sigma)
    return model


def _build_crossed(cells: pd.DataFrame, *, level: str, data: str, table: pd.DataFrame | None,
                   centred: Sequence[str] | Literal["auto"], prior_location: float,
                   structure: LevelStructure) -> pm.Model:
    """Build the crossed levels: the hierarchical model plus the compared words' effects.

    Every compared word's effect u[w] ~ N(0, τ_u[kind]) (and, for a sentence table, the
    templates' effects) — integrated out on the cell statistics, sampled on the rows.
    """
    import pymc as pm

    layout = _HierarchicalLayout.of(cells, centred, structure)
    coords = layout.coords()
    table, row_cell = _table_rows(table, cells, level=level, data=data)
    coords["row"] = np.arange(len(table))
    design = crossed_design(table, cells)
    coords.update(word_to_compare=design.words, word_kind=design.kinds)
    if structure.attribute_pair:
        coords["effect"] = [0, 1]
    if design.template is not None:
        coords["template"] = design.template.templates
    with pm.Model(coords=coords) as model:
        cell_word, cell_connection, location = layout.cells.data(prior_location)
        prior = _hierarchical_prior(
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
                                    tau_protected=prior.tau_protected, sigma=prior.sigma,
                                    tau_word=tau_word, template_kind=template_kind,
                                    rows=len(table))
    return model


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
                            integrable: bool) -> tuple[Any, Any]:
    """Add the protected words' coefficients (inside the model context).

    Returns ``(coef, None)``, or ``(None, τ_protected)`` when the coefficients are
    integrated out. One raw variable serves both parametrisations: centred columns hold
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
        if structure.correlated:
            raise ValueError("integrate_coefficients takes S = diag(τ²) (+ the "
                             "protected offset τ_protected²·11ᵀ), not correlated=True")
        return None, (structure.sd_variable("tau_protected") if structure.protected_offset
                      else pt.zeros(()))
    centred = pm.Data("centred", centred_mask, dims="connection")
    if structure.correlated or structure.protected_offset:
        chol = _coefficient_cholesky(tau, size, structure)
        return _correlated_coefficients(centre, chol, centred, size), None
    coef_raw = pm.Normal("coef_raw", mu=centred * centre,
                         sigma=centred * tau + (1.0 - centred),
                         dims=("protected_word", "connection"))
    coef = pm.Deterministic(
        "coef", (1.0 - centred) * centre + ((1.0 - centred) * tau + centred) * coef_raw,
        dims=("protected_word", "connection"))
    return coef, None


def _coefficient_cholesky(tau: Any, size: int, structure: LevelStructure) -> Any:
    """Return the Cholesky factor of S, the covariance of a protected word's coefficients.

    S is across the connections (inside the model context; adds the variables S needs):
    diag(τ) R diag(τ) with R ~ LKJ(η) (``structure.correlated``; reported as
    ``coef_correlation``, dims ``connection, connection_b``) or diag(τ²), plus
    τ_protected²·11ᵀ (a protected word's offset shared by its connections, integrated out:
    ``structure.protected_offset``).
    """
    import pymc as pm
    import pytensor.tensor as pt

    model = pm.modelcontext(None)
    cons = list(model.coords["connection"])
    if structure.correlated:
        model.add_coord("connection_b", cons)
        n_cpc = size * (size - 1) // 2
        model.add_coord("connection_pair", np.arange(n_cpc))
        cpc_raw = pm.Flat("coef_correlation_raw", dims="connection_pair")
        pm.Potential("coef_correlation_prior",
                     lkj_cpc_log_density(cpc_raw, size, structure.correlation_eta))
        chol_r = correlation_cholesky(pt.tanh(cpc_raw), size)
        pm.Deterministic("coef_correlation", chol_r @ chol_r.T,
                         dims=("connection", "connection_b"))
        chol = tau[:, None] * chol_r
    else:
        chol = pt.diag(tau)
    if structure.protected_offset:
        tau_protected = structure.sd_variable("tau_protected")
        cov = chol @ chol.T + tau_protected**2 * np.ones((size, size))
        entries = cholesky_elements([[cov[i, j] for j in range(size)] for i in range(size)], size)
        chol = pt.stack([pt.stack([pt.as_tensor(entries[i][j]) for j in range(size)])
                         for i in range(size)])
    return chol


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


def structure_starting_values(
    cells: pd.DataFrame,
    structure: LevelStructure,
    points: Sequence[dict[str, np.ndarray]],
    sds: dict[str, np.ndarray],
    *,
    centred: Sequence[str],
    random_seed: int,
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Return a structure's starting points and approximate posterior sds.

    They are mapped from the crossed level's (:func:`embias.bayes.data.initial_values`
    and :func:`~embias.bayes.data.approximate_posterior_sd` at ``level="crossed"``).

    Class means start at the class-wise means of the cell means (moved by the crossed
    level's sd of ``bar``); τ_protected a little above 0 (the crossed level's
    coefficients keep their meaning); correlations near 0; an attribute word's
    second effect sd at its first's, their correlation near 0.5; the coefficients, when
    sampled, where the crossed start puts them.
    """
    cons = list(dict.fromkeys(cells["connection"]))
    words = list(dict.fromkeys(cells["protected_word"]))
    ybar = cells["mean"].to_numpy(float).reshape(len(words), len(cons))
    mask = np.array([float(c in centred) for c in cons])
    rng = np.random.default_rng([int(random_seed), 31])
    _, word_class, _ = protected_strata(cells)
    out = []
    for point in points:
        coef = mask * point["coef_raw"] + (1 - mask) * (point["bar"] + point["tau"]
                                                        * point["coef_raw"])
        new = {k: v for k, v in point.items() if k not in ("bar", "coef_raw")}
        if structure.strata:
            bar_class = np.stack([ybar[word_class == c].mean(axis=0)
                                  for c in range(int(word_class.max()) + 1)])
            new["bar_class"] = bar_class + rng.uniform(-1, 1, bar_class.shape) * sds["bar"]
            centre = new["bar_class"][word_class]
        else:
            new["bar"] = point["bar"]
            centre = point["bar"][None, :]
        if not structure.integrate_coefficients:
            new["coef_raw"] = mask * coef + (1 - mask) * (coef - centre) / point["tau"]
        if structure.protected_offset:
            new["tau_protected"] = np.asarray(0.01 * np.exp(rng.uniform(-0.5, 0.5)))
        if structure.correlated:
            new["coef_correlation_raw"] = rng.uniform(-0.1, 0.1,
                                                      len(cons) * (len(cons) - 1) // 2)
        if structure.attribute_pair:
            new["tau_word_different"] = np.asarray(point["tau_word"][0])
            new["word_correlation_raw"] = np.asarray(np.arctanh(0.5) + rng.uniform(-0.1, 0.1))
        out.append(new)
    sd = {k: v for k, v in sds.items() if k != "bar"}
    sd["bar_class" if structure.strata else "bar"] = sds["bar"]
    if structure.integrate_coefficients:
        sd.pop("coef_raw", None)
    if structure.protected_offset:
        sd["tau_protected"] = np.asarray(0.3)
    if structure.correlated:
        sd["coef_correlation_raw"] = np.asarray(0.3)
    if structure.attribute_pair:
        sd["tau_word_different"] = np.asarray(0.25)
        sd["word_correlation_raw"] = np.asarray(0.4)
    return out, sd


def protected_strata(cells: pd.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Return the protected classes of a table as strata.

    The classes (in the cells' order), each protected word's class index and each
    class's share of the protected words (a table without classes is one stratum).
    """
    first = cells.drop_duplicates("protected_word")
    labels = first["protected_class"].astype(str).to_numpy()
    classes = list(dict.fromkeys(labels))
    index = pd.Index(classes).get_indexer(labels).astype(np.int64)
    weight = np.bincount(index, minlength=len(classes)) / float(len(index))
    return classes, index, weight


def summary_model_data(
    cells: pd.DataFrame,
    *,
    level: Level,
    table: pd.DataFrame | None,
    centred: Sequence[str],
    prior_location: float = DEFAULT_PRIOR_LOCATION,
    design: CrossedDesign | None = None,
    structure: LevelStructure | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Return the coordinates and data values of a summary model, without building it.

    The coordinates and the data containers' values of :func:`build_model` with
    ``data="summary"`` at the hierarchical or crossed level (a table without templates):
    a batch builds one model per shape and feeds every other table of it through these
    values.

    Parameters
    ----------
    cells
        Output of :func:`~embias.bayes.data.cell_statistics`.
    level
        ``"hierarchical"``, ``"crossed"`` or ``"crossed_strata"``.
    table
        The cosine table of the cells (needed by the crossed levels).
    centred
        The connections sampled centred.
    prior_location
        Location of the priors of the connection means.
    design
        The table's :func:`~embias.bayes.crossed.crossed_design`, when already computed.
    structure
        The level's choices (default :func:`level_structure` of ``level``).

    Returns
    -------
    (coords, data)
        The model's coordinates and ``{container name: value}`` — equal to
        ``build_model(...)``'s (a test holds them together).

    Raises
    ------
    ValueError
        ``level`` is not of the hierarchical family, a crossed level without ``table``, or
        a sentence table (with templates).

    Examples
    --------
    >>> import embias
    >>> from embias.bayes import cell_statistics
    >>> from embias.bayes.model import summary_model_data
    >>> cells = cell_statistics(embias.load_published_table("religion", "reddit"))
    >>> coords, data = summary_model_data(cells, level="hierarchical", table=None,
    ...                                   centred=("none",))
    >>> coords["connection"], data["centred"]
    (['associated', 'different', 'human', 'none'], array([0., 0., 0., 1.]))
    >>> len(coords["protected_word"]), data["cell_n"][:4]
    (15, array([  4,   7,  85, 226]))
    """
    if level not in _STRUCTURES:
        raise ValueError(f"summary_model_data() serves the levels {list(_STRUCTURES)}, "
                         f"got level={level!r}")
    if structure is None:
        structure = level_structure(level)
    layout = _CellLayout.of(cells)
    cons = layout.cons
    coords = layout.coords()
    data: dict[str, np.ndarray] = {"cell_word": layout.cell_word,
                                   "cell_connection": layout.cell_connection,
                                   "prior_location": np.asarray(float(prior_location))}
    if not structure.integrate_coefficients:
        data["centred"] = np.array([float(c in set(centred)) for c in cons])
    if structure.correlated:
        coords.update(connection_b=cons,
                      connection_pair=np.arange(len(cons) * (len(cons) - 1) // 2))
    if structure.strata:
        classes, word_class, class_weight = protected_strata(cells)
        coords["protected_class"] = classes
        data.update({"protected_word_class": word_class,
                     "protected_class_weight": class_weight})
    if structure.word_effects:
        if table is None:
            raise ValueError(f"level={level!r} needs the table (table=...)")
        if design is None:
            design = crossed_design(table, cells)
        if design.template is not None:
            raise ValueError("summary_model_data() serves tables without templates")
        _add_crossed_data(cells, table, design, structure, layout, coords, data)
    else:
        n = cells["n"].to_numpy(dtype=np.int64)
        multi = np.flatnonzero(n >= 2)
        coords["cell_multi"] = [layout.cell_labels[i] for i in multi]
        data.update({"cell_n": n, "cell_multi_index": multi,
                     "cell_mean_data": cells["mean"].to_numpy(float),
                     "cell_ss_data": cells["ss"].to_numpy(float)[multi]})
    return coords, data


def _add_crossed_data(cells: pd.DataFrame, table: pd.DataFrame, design: CrossedDesign,
                      structure: LevelStructure, layout: _CellLayout, coords: dict[str, Any],
                      data: dict[str, np.ndarray]) -> None:
    """Add the crossed levels' coordinates and data values to ``coords`` and ``data``."""
    cons = layout.cons
    coords.update(row=np.arange(len(table)), word_to_compare=design.words,
                  word_kind=design.kinds, count_pattern=np.arange(len(design.patterns)))
    shape = (len(layout.words), len(cons))
    groups = design.word_groups()
    data.update({
        "cell_n": cells["n"].to_numpy(float).reshape(shape),
        "cell_mean_data": cells["mean"].to_numpy(float).reshape(shape),
        "cell_ss_data": cells["ss"].to_numpy(float).reshape(shape),
        "pattern_cell_count": np.asarray(design.patterns),
        "word_group_kind": groups.kind, "word_group_pattern": groups.pattern,
        "word_group_size": groups.size, "word_group_mean_sum": groups.mean_sum,
        "word_group_sum_scatter": groups.sum_scatter,
    })
    if structure.attribute_pair:
        component = np.zeros((len(cons), 2))
        component[np.arange(len(cons)), [PAIR_COMPONENT[c] for c in cons]] = 1.0
        coords["effect"] = [0, 1]
        data.update({"connection_component": component,
                     "word_kind_pair": np.array([float(k == "attribute")
                                                 for k in design.kinds])})
