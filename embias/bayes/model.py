"""The PyMC models of a cosine table (dataset, word and hierarchical levels).

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
from .crossed import CrossedDesign, crossed_design
from .data import choose_centring, row_cells

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = ["CROSSED_LEVELS", "LevelStructure", "build_model", "level_structure",
           "summary_model_data"]

#: Rate of the Exponential priors of the template sds (τ_template, τ_template×kind): mean
#: 0.1, 95% below 0.3 — weakly informative for shifts of a sentence's cosine distances,
#: measured at 0.015–0.05 on three studies (:mod:`embias.bayes.crossed`, "Templates").
TEMPLATE_SD_RATE = 10.0

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
        """A standard deviation with this structure's prior (inside a model context)."""
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
    """The :class:`LevelStructure` of a hierarchical-family level (``"hierarchical"``,
    ``"crossed"``, ``"crossed_strata"``).
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
    """The cells' protected words and connections, each cell's indices into them, and the
    coordinates every level's model has (``protected_word``, ``connection``, ``cell``).
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
    """Return the table a model of its rows needs (refused when missing) and each row's
    cell.
    """
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
    """Add one Normal term per row of the table, with its cell's μ and σ (inside the model
    context).
    """
    import pymc as pm

    row_index = pm.Data("row_cell", row_cell, dims="row")
    pm.Normal("cosine_distance", mu=cell_mu[row_index], sigma=cell_sigma[row_index],
              observed=pm.Data("cosine_distance_data",
                               table["cosine_distance"].to_numpy(float), dims="row"),
              dims="row")


def _build_pooled(cells: pd.DataFrame, *, level: str, data: str, table: pd.DataFrame | None,
                  prior_location: float) -> pm.Model:
    """Build the dataset or the word level: μ = m + co[con] or m[pw] + co[con], one σ, co
    a zero-sum effect of the connections.
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
    """What the hierarchical family's models add to :class:`_CellLayout`: the connections
    sampled centred (as a 0/1 mask) and, with protected classes as strata, the classes
    (:func:`protected_strata`).
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
    """Add the connection means, τ, σ and the protected words' coefficients (inside the
    model context).

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
    """Build the hierarchical level: coef[pw, con] ~ N(bar[con], τ[con]) (or a structure
    without compared-word effects), σ per connection.
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
    """Build the crossed levels: the hierarchical model plus every compared word's effect
    u[w] ~ N(0, τ_u[kind]) (and, for a sentence table, the templates' effects) —
    integrated out on the cell statistics, sampled on the rows.
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
        template_kind = None if design.template is None else _template_effects(design)
        if data == "raw":
            _crossed_row_likelihood(table, row_cell, design, len(layout.cells.cons),
                                    prior.coef[cell_word, cell_connection],
                                    prior.sigma[cell_connection], tau_word, template_kind)
        else:
            _crossed_cell_likelihood(cells, design, layout.cells, structure, prior, tau_word,
                                     template_kind, rows=len(table))
    return model


def _connection_means(structure: LevelStructure, location: Any,
                      strata: tuple[list[str], np.ndarray, np.ndarray] | None) -> Any:
    """Add the connection means and return the centre of every protected word's
    coefficients (inside the model context).

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


def _crossed_row_likelihood(table: pd.DataFrame, row_cell: np.ndarray,
                            design: CrossedDesign, n_cons: int, cell_mu: Any,
                            cell_sigma: Any, tau_word: Any, template_kind: Any) -> None:
    """Add the crossed level's likelihood of the rows (inside the model context).

    Every compared word's effect u is sampled — non-centred, or centred when templates
    pin it (a word has rows in every template) — and each row is one Normal term.
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
        row_kind = pm.Data("row_word_kind", template.connection_kind[row_cell % n_cons],
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


def _word_group_data(cells: pd.DataFrame, design: CrossedDesign,
                     layout: _CellLayout) -> _WordGroupData:
    """Add the cells' statistics (protected word × connection) and the compared words'
    count patterns and group sums as data (inside the model context; module notes of
    :mod:`embias.bayes.crossed`, "Groups").
    """
    import pymc as pm

    shape = (len(layout.words), len(layout.cons))
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


def _crossed_cell_likelihood(cells: pd.DataFrame, design: CrossedDesign,
                             layout: _CellLayout, structure: LevelStructure, prior: _Prior,
                             tau_word: Any, template_kind: Any, *, rows: int) -> None:
    """Add the crossed level's likelihood of the rows from the cell statistics (inside the
    model context): the potential ``cosine_distance_marginal``, log p(rows | coef, σ, τ_u,
    V) with the compared words' effects u integrated out (module notes of
    :mod:`embias.bayes.crossed`) — and the coefficients too when ``prior.coef`` is
    ``None``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    d = _word_group_data(cells, design, layout)
    sigma, coef = prior.sigma, prior.coef
    inv_var = sigma**-2                                                  # (connection,)
    rows_per_con = pt.sum(d.n, axis=0)
    if coef is None:  # the coefficients integrated out as well
        if structure.attribute_pair:
            raise ValueError("integrate_coefficients with attribute_pair is not implemented")
        pm.Potential("cosine_distance_marginal", integrated_coefficients_log_likelihood(
            prior.centre + pt.zeros_like(d.mean), prior.tau, prior.tau_protected, d.n,
            d.mean, d.ss, d.patterns, d.kind, d.pattern, d.size, d.mean_sum, d.scatter,
            tau_word, sigma, rows=rows, n_groups=d.groups))
        return
    if template_kind is None:
        within = pt.sum((d.ss + d.n * (d.mean - coef) ** 2) * inv_var[None, :])
        fitted = pt.sum(d.patterns * coef[None, :, :], axis=1)          # (pattern, con)
    else:  # sentence table: per template cell, and Σ_t m·V per pattern
        within, fitted_template = _template_statistics(design, coef, template_kind, inv_var)
        fitted = pt.sum(d.patterns * coef[None, :, :], axis=1) + fitted_template
    if structure.attribute_pair:
        pair_terms = _attribute_pair_terms(
            design, layout.cons, tau_word, inv_var, fitted, d.mean_sum, d.scatter, d.kind,
            d.pattern, d.size, d.patterns, structure)
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



def correlation_cholesky(cpc: Any, size: int) -> Any:
    """The Cholesky factor L of a correlation matrix from its canonical partial
    correlations (the C-vine of Lewandowski, Kurowicka & Joe 2009; Stan's construction):
    ``cpc`` holds, row by row of the lower triangle, z[i, j] (j < i), the partial
    correlation of i and j given 0 … j − 1; L[i, j] = z[i, j]·√(1 − Σ_{k<j} L[i, k]²) and
    L[i, i] = √(1 − Σ_{k<i} L[i, k]²). Works on NumPy arrays and PyTensor tensors.
    """
    import pytensor.tensor as pt

    rows = []
    position = 0
    for i in range(size):
        row, left = [], 1.0
        for _ in range(i):
            value = cpc[position] * pt.sqrt(left)
            position += 1
            row.append(value)
            left = left - value**2
        row.append(pt.sqrt(left))
        row += [pt.zeros_like(row[-1])] * (size - i - 1)
        rows.append(pt.stack(row))
    return pt.stack(rows)


def lkj_cpc_log_density(cpc_raw: Any, size: int, eta: float) -> Any:
    """Log density of the unconstrained canonical partial correlations x (cpc = tanh x)
    under R ~ LKJ(η): the C-vine's partial correlation with k conditioning variables is
    Beta(b, b) on (−1, 1) with b = η + (size − 2 − k)/2 (Lewandowski et al. 2009), and
    dz/dx = 1 − z², so log p(x) = b·log(1 − tanh²x) + constant.
    """
    import pytensor.tensor as pt

    betas = [eta + (size - 2 - j) / 2.0 for i in range(size) for j in range(i)]
    log_one_minus = 2.0 * (np.log(2.0) - pt.abs(cpc_raw) - pt.log1p(pt.exp(-2.0 * pt.abs(
        cpc_raw))))                                               # log(1 − tanh²x), stable
    return pt.sum(np.asarray(betas) * log_one_minus)


def _coefficient_cholesky(tau: Any, size: int, structure: LevelStructure) -> Any:
    """The Cholesky factor of S, the covariance of a protected word's coefficients across
    the connections (inside the model context; adds the variables S needs):
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
        entries = _cholesky([[cov[i, j] for j in range(size)] for i in range(size)], size)
        chol = pt.stack([pt.stack([pt.as_tensor(entries[i][j]) for j in range(size)])
                         for i in range(size)])
    return chol


def _correlated_coefficients(centre: Any, chol: Any, centred: Any, size: int) -> Any:
    """coef[p, ·] ~ MvN(centre[p], S), S = chol·cholᵀ (:func:`_coefficient_cholesky`),
    inside the model context; returns ``coef`` (deterministic, dims ``protected_word,
    connection``).

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


def integrated_coefficients_log_likelihood(
    centre: Any, tau: Any, tau_protected: Any, n_pc: Any, ybar: Any, ss: Any, patterns: Any,
    group_kind: Any, group_pattern: Any, group_size: Any, mean_sum: Any, scatter: Any,
    tau_word: Any, sigma: Any, *, rows: int, n_groups: int,
) -> Any:
    """Log p(rows | means, τ, τ_protected, σ, τ_u) with the compared words' effects u and
    the protected words' coefficients x = coef both integrated out (PyTensor).

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
    q = tau**-2                                                        # (C,)
    p2 = tau_protected**2
    alpha = p2 / (1.0 + p2 * pt.sum(q))
    log_det_s = pt.sum(pt.log(tau**2)) + pt.log1p(p2 * pt.sum(q))
    v = patterns[group_pattern] * inv_var[None, None, :]               # (group, P, C)
    weight = n_pc * inv_var[None, :]                                  # (P, C)
    centre_prec = q * centre - alpha * q * pt.sum(q * centre, axis=-1, keepdims=True)
    h = weight * ybar - pt.sum((w * beta)[:, None, None] * v, axis=0) + centre_prec
    e = q[None, :] + weight                                            # (P, C)
    r = q[None, :] / e
    # s_p = 1 − α q·r without the cancellation of its two terms: q − q²/e = q w/e, so
    # s_p = (1 + τ_p² Σ q w/e)/(1 + τ_p² Σ q)
    log_s_p = pt.log1p(p2 * pt.sum(q[None, :] * weight / e, axis=1)) - pt.log1p(p2 * pt.sum(q))
    s_p = pt.exp(log_s_p)                                             # (P,)

    def block_solve(x: Any) -> Any:  # G_p⁻¹ x_p over the last two axes (P, C)
        return x / e + (alpha / s_p)[:, None] * r * pt.sum(r * x, axis=-1, keepdims=True)

    g_h = block_solve(h)
    g_v = block_solve(v)                                               # (group, P, C)
    root = pt.sqrt(w)
    h_mat = pt.sum(v[:, None, :, :] * g_v[None, :, :, :], axis=(2, 3))  # (group, group)
    y = root * pt.sum(v * g_h[None], axis=(1, 2))
    j_mat = np.eye(n_groups) - root[:, None] * h_mat * root[None, :]
    # J is a few groups across: its Cholesky factor element by element (a batched LAPACK
    # call per lane costs more than these few dozen operations)
    chol_j = _cholesky([[j_mat[a, b] for b in range(n_groups)] for a in range(n_groups)],
                       n_groups)
    z: list[Any] = []
    for a in range(n_groups):
        z.append((y[a] - sum((chol_j[a][b] * z[b] for b in range(a)), 0.0)) / chol_j[a][a])
    quad = pt.sum(h * g_h) + sum(t**2 for t in z)
    log_det_q = (pt.sum(pt.log(e)) + pt.sum(log_s_p)
                 + 2.0 * sum(pt.log(chol_j[a][a]) for a in range(n_groups)))
    prior_quad = pt.sum(centre_prec * centre)
    return (kappa - 0.5 * n_words * log_det_s - 0.5 * prior_quad - 0.5 * log_det_q
            + 0.5 * quad)


def _cholesky(a: list[list[Any]], n: int) -> list[list[Any]]:
    """Cholesky factor (lower) of a symmetric positive-definite n × n matrix given as
    nested lists of (possibly batched) tensors, element by element.
    """
    import pytensor.tensor as pt

    chol: list[list[Any]] = [[0.0] * n for _ in range(n)]
    for j in range(n):
        diagonal = a[j][j] - sum(chol[j][k] ** 2 for k in range(j))
        chol[j][j] = pt.sqrt(diagonal)
        for i in range(j + 1, n):
            chol[i][j] = (a[i][j] - sum(chol[i][k] * chol[j][k] for k in range(j))) / chol[j][j]
    return chol


#: The effect (0 or 1) of an attribute word a row of each connection gets with
#: ``attribute_pair``: its own class's rows and the others'; a neutral or human word has
#: one effect (0).
PAIR_COMPONENT = {"associated": 0, "different": 1, "none": 0, "human": 0}


def _attribute_pair_terms(design: CrossedDesign, cons: list[str], tau_word: Any,
                          inv_var: Any, fitted: Any, mean_sum: Any, scatter: Any,
                          group_kind: Any, group_pattern: Any, group_size: Any,
                          patterns: Any, structure: LevelStructure) -> Any:
    """Σ over the word groups of n_g·log det(I + Σ_k C_g) − tr(K_g Σ_w b_w b_wᵀ): the
    compared words' part of −2 × the integrated log-likelihood when an attribute word has
    two correlated effects (inside the model context; adds τ_u,different and ρ_u).

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


def _template_effects(design: CrossedDesign) -> Any:
    """The template effects of a sentence table (inside the model context): v[t] and, with
    two kinds of compared words or more, v×[t, kind]; returns V[t, kind] = v + v×
    (deterministic ``template_kind_effect``, dims ``template, word_kind``).

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


def _template_statistics(design: CrossedDesign, coef: Any, template_kind: Any,
                         inv_var: Any) -> tuple[Any, Any]:
    """Σ rᵢ²/dᵢ over all rows from the template cells, and Σ_t m·V per count pattern
    (:mod:`embias.bayes.crossed`, "Templates").
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


def structure_starting_values(
    cells: pd.DataFrame,
    structure: LevelStructure,
    points: Sequence[dict[str, np.ndarray]],
    sds: dict[str, np.ndarray],
    *,
    centred: Sequence[str],
    random_seed: int,
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """A structure's starting points and approximate posterior sds, mapped from the crossed
    level's (:func:`embias.bayes.data.initial_values` and
    :func:`~embias.bayes.data.approximate_posterior_sd` at ``level="crossed"``).

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
    """The protected classes of a table as strata: the classes (in the cells' order), each
    protected word's class index and each class's share of the protected words (a table
    without classes is one stratum).
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
    """The coordinates and the data containers' values of :func:`build_model` with
    ``data="summary"`` at the hierarchical or crossed level (a table without templates),
    computed without building the PyMC model: a batch builds one model per shape and feeds
    every other table of it through these values.

    Returns
    -------
    (coords, data)
        The model's coordinates and ``{container name: value}`` — equal to
        ``build_model(...)``'s (a test holds them together).
    """
    if level not in _STRUCTURES:
        raise ValueError(f"summary_model_data() serves the levels {list(_STRUCTURES)}, "
                         f"got level={level!r}")
    if structure is None:
        structure = level_structure(level)
    words = list(dict.fromkeys(cells["protected_word"]))
    cons = list(dict.fromkeys(cells["connection"]))
    cell_labels = [f"{w}|{c}" for w, c in zip(cells["protected_word"], cells["connection"],
                                              strict=True)]
    coords: dict[str, Any] = {"protected_word": words, "connection": cons, "cell": cell_labels}
    data: dict[str, np.ndarray] = {
        "cell_word": pd.Index(words).get_indexer(cells["protected_word"]).astype(np.int64),
        "cell_connection": pd.Index(cons).get_indexer(cells["connection"]).astype(np.int64),
        "prior_location": np.asarray(float(prior_location)),
    }
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
        coords.update(row=np.arange(len(table)), word_to_compare=design.words,
                      word_kind=design.kinds, count_pattern=np.arange(len(design.patterns)))
        shape = (len(words), len(cons))
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
    else:
        n = cells["n"].to_numpy(dtype=np.int64)
        multi = np.flatnonzero(n >= 2)
        coords["cell_multi"] = [cell_labels[i] for i in multi]
        data.update({"cell_n": n, "cell_multi_index": multi,
                     "cell_mean_data": cells["mean"].to_numpy(float),
                     "cell_ss_data": cells["ss"].to_numpy(float)[multi]})
    return coords, data
