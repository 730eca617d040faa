"""The paired change model: how one embedding's cosine table differs from a reference.

The reference is a table of the same word pairs (:func:`fit_change_model`,
:class:`ChangeFit`).

:func:`embias.compare_embeddings` fits it for every embedding of a comparison; here it
takes two tables and knows nothing of where they came from.

The change model
----------------
Rows are the same word pairs in every embedding, so for each non-reference embedding e
the paired difference of row r = (protected word, compared word) is

    d_r = y_r(e) − y_r(reference)

and d is modelled with the same multilevel structure as the distances themselves
(at ``level="hierarchical"``)::

    d_r ~ Normal(δ[pw, con], σ[con])
    δ[pw, con] ~ Normal(Δ[con], τ[con])          (cell changes, partially pooled)
    Δ[con] ~ Normal(0, 0.3);  τ[con], σ[con] ~ Exponential(2)

``change_connection_mean`` is Δ[con], the change of the connection mean;
``change_contrast`` is the change of a contrast, e.g.
(associated − none)_e − (associated − none)_reference = Δ[associated] − Δ[none];
``change_word_coefficient`` is δ[pw, con] and ``change_word_contrast`` its contrasts.
Each row carries ``prob_gt_0`` = P(change > 0) and the ROPE decision
(:func:`embias.report.rope_decision`). The ``dataset`` and ``word`` levels model d with
their own structures in the same way (m ~ N(0, 0.5), ZeroSumNormal connection effects).

The model is the level's own model (:func:`embias.fit_bias_model`) fitted to d with the
priors of the connection means centred at 0 (``FitSettings(prior_location=0.0)``).

Why the paired model, and not overlapping intervals
---------------------------------------------------
Comparing two separately fitted intervals — "the 89% HPDIs of associated overlap in
biased and debiased, so nothing changed" — answers the wrong question, for two reasons:

- **Overlap is not a test of the difference.** Two intervals can overlap while their
  difference is credibly non-zero, and the non-overlap of two 89% intervals of
  independent estimates corresponds to a far stricter level than 89% for the
  difference. The HPDI of the difference itself is the quantity asked about.
- **The two estimates are not independent.** A row's distance is mostly the geometry of
  its two words, which debiasing changes only in part: y_r(biased) and y_r(debiased)
  are strongly correlated (r = 0.69–0.86 per connection on the authors' Reddit
  religion tables; the sd of d is 0.13 against 0.18–0.25 for y). Separate fits
  treat the two posteriors as independent, so the uncertainty of their difference
  keeps all the row-to-row variation that the pairing cancels — exactly the mistake of
  an unpaired t-test on paired data. The model of d removes it, so its intervals are
  honest *and* much narrower.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_seed
from ..report import rope_decision, validate_interval_table
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, FitSettings
from ..tables import DEFAULT_MIN_SHARED, align_tables, difference_table
from .batch import FitJob, fit_many
from .fit import BiasFit

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["CHANGE_ESTIMANDS", "ChangeFit", "change_settings", "fit_change_model"]

#: Estimands of the change model (rows of :meth:`ChangeFit.summary`).
CHANGE_ESTIMANDS: tuple[str, ...] = ("change_connection_mean", "change_contrast",
                                     "change_word_coefficient", "change_word_contrast")

#: The estimands of summarize_posterior and their change counterparts.
_CHANGE_NAMES = {"connection_mean": "change_connection_mean", "contrast": "change_contrast",
                 "word_coefficient": "change_word_coefficient",
                 "word_contrast": "change_word_contrast"}


# =========================================================================== change fit
@dataclass(frozen=True, eq=False)
class ChangeFit:
    """Posterior of the paired change model of one embedding against a reference.

    Attributes
    ----------
    fit
        The fitted model of the paired differences (a :class:`~embias.BiasFit` of
        :attr:`differences` with ``prior_location=0``): its ``connection_mean`` is Δ, the
        change of each connection mean, and its ``coef`` δ, the change of each word's
        coefficient (word and hierarchical levels).
    differences
        The paired differences (:func:`embias.difference_table`).
    embedding, reference
        Names of the two embeddings (change = embedding − reference).
    """

    fit: BiasFit = field(repr=False)
    differences: pd.DataFrame = field(repr=False)
    embedding: str
    reference: str

    @property
    def settings(self) -> Mapping[str, Any]:
        """The change fit's settings (level, draws, chains, seed, prior_location = 0 …)."""
        return self.fit.settings

    @property
    def cells(self) -> pd.DataFrame:
        """Sufficient statistics of the differences per (protected word, connection)."""
        return self.fit.cells

    @property
    def posterior(self) -> DataTree:
        """The fit's ``DataTree``; ``connection_mean`` is the change Δ, ``coef`` δ."""
        return self.fit.posterior

    @property
    def divergences(self) -> int:
        """Number of divergent transitions after tuning."""
        return self.fit.divergences

    def to_interval_table(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
    ) -> pd.DataFrame:
        """Return the interval table of the changes (embedding − reference).

        Rows (``estimand``): ``change_connection_mean`` per connection,
        ``change_contrast`` per contrast of :data:`embias.bayes.CONTRASTS` (the change
        of e.g. associated − none), and at the word/hierarchical levels
        ``change_word_coefficient`` per protected word × connection and (hierarchical)
        ``change_word_contrast``. Every row has ``prob_gt_0`` = P(change > 0),
        ``prob_in_rope``, ``rope`` and ``rope_decision``
        (:func:`embias.report.rope_decision`), plus ``embedding`` and ``reference``.

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.BiasFit.to_interval_table`.

        Returns
        -------
        pandas.DataFrame
            The interval table (:func:`embias.report.interval_table`).
        """
        table = self.fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        post = self.posterior["posterior"]
        # P(change > 0) and the ROPE also for the rows that are levels in a plain fit
        for estimand, var in (("connection_mean", "connection_mean"),
                              ("word_coefficient", "coef")):
            for i in np.flatnonzero((table["estimand"] == estimand).to_numpy()):
                sel = {"connection": table["connection"].iat[i]}
                if var == "coef":
                    sel["protected_word"] = table["protected_word"].iat[i]
                draws = post[var].sel(sel).to_numpy()
                table.loc[i, "prob_gt_0"] = float((draws > 0).mean())
                table.loc[i, "prob_in_rope"] = float((np.abs(draws) <= rope).mean())
                table.loc[i, "rope"] = float(rope)
        table["rope_decision"] = rope_decision(table["lower"], table["upper"], float(rope))
        table["estimand"] = table["estimand"].map(_CHANGE_NAMES)
        table.insert(2, "embedding", self.embedding)
        table.insert(3, "reference", self.reference)
        return validate_interval_table(table)

    #: :meth:`to_interval_table` under its usual name.
    summary = to_interval_table

    def diagnostics(self) -> pd.DataFrame:
        """Return r̂ and bulk/tail ESS of every sampled scalar of the change model."""
        return self.fit.diagnostics()

    def problems(self) -> list[str]:
        """Return the convergence problems (r̂ > 1.01, ESS < 400, divergences)."""
        return self.fit.problems()


def change_settings(settings: FitSettings) -> FitSettings:
    """Return the change model's settings: the comparison's, with priors centred at 0.

    The priors of the connection means are centred at 0: the data are differences.

    Parameters
    ----------
    settings
        The comparison's settings.

    Returns
    -------
    FitSettings
        ``settings`` with ``prior_location=0.0``.

    Examples
    --------
    >>> import embias
    >>> from embias.bayes.change import change_settings
    >>> run = change_settings(embias.FitSettings(draws=500))
    >>> run.prior_location, run.draws
    (0.0, 500)
    """
    return dataclasses.replace(settings, prior_location=0.0)


def fit_change_model(
    table: pd.DataFrame,
    reference: pd.DataFrame,
    *,
    settings: FitSettings | None = None,
    label: str = "embedding",
    reference_label: str = "reference",
    min_shared: float = DEFAULT_MIN_SHARED,
    warn: bool = True,
    **options: Any,
) -> ChangeFit:
    """Fit the paired change model of one cosine table against a reference table.

    The two tables are aligned on their word pairs (rows not in both are reported in a
    warning and left out), d = y(table) − y(reference) is formed per pair and modelled
    as described in the module notes. :func:`compare_embeddings` does this for every
    embedding of a comparison.

    Parameters
    ----------
    table, reference
        Long-form cosine tables of the same study on two embeddings.
    settings, **options
        Model and sampler settings (:class:`~embias.FitSettings`, as for
        :func:`embias.fit_bias_model`); ``prior_location`` is always 0 here.
    label, reference_label
        Names of the two embeddings.
    min_shared
        Smallest share of each table's rows that must be common to both.
    warn
        Emit a :class:`~embias.bayes.ConvergenceWarning` on convergence problems.

    Returns
    -------
    ChangeFit
        The fit of the differences, the differences, and the two labels.

    Raises
    ------
    ValueError
        A bad option, the same label for both tables, tables that share too few word
        pairs, or what :func:`embias.fit_bias_model` refuses of the differences.

    Examples
    --------
    >>> import embias
    >>> from embias.bayes import fit_change_model
    >>> table = embias.load_published_table("religion", "reddit")
    >>> try:
    ...     fit_change_model(table, table, label="reddit", reference_label="reddit")
    ... except ValueError as error:
    ...     print(error)
    label and reference_label are both 'reddit'; give the two embeddings different names
    """
    run = FitSettings.build(settings, **options)  # checked before any work
    if label == reference_label:
        raise ValueError(f"label and reference_label are both {label!r}; give the two "
                         "embeddings different names")
    aligned, _ = align_tables({reference_label: reference, label: table},
                              reference=reference_label, min_shared=min_shared)
    diff = difference_table(aligned[label], aligned[reference_label], label=label,
                            reference_label=reference_label)
    run = change_settings(run)
    job = FitJob(diff, dataclasses.replace(run, random_seed=check_seed(run.random_seed)),
                 label=f"change {label} − {reference_label}")
    fit = fit_many([job], progress=False, warn=warn)[0]
    return ChangeFit(fit=fit, differences=diff, embedding=label, reference=reference_label)


