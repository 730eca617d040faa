"""Calibration on real words: do other words of the same categories land in the interval.

An interval of embias says what the evidence supports about the *categories* a study's
words stand for, not only about the few words listed. Simulations from a model cannot test
that (a model always agrees with itself); real words can. :func:`calibrate_on_populations`
takes populations of real words (:class:`~embias.populations.WordPopulations`: hundreds
of words per role), draws many studies of a design (:class:`PopulationDesign`: words per
role), fits each through the batch API (:func:`embias.fit_many`) at each model level, and
counts how often each connection mean's and contrast's interval covers the **population
answer**:

- a connection's population answer is the mean cosine distance over *all* population pairs
  of that connection, the protected classes weighted as in the design (by their numbers of
  protected words) — for ``different``, a protected class's other attribute classes are
  weighted by their numbers of attribute words in the design, as they are in a study's
  rows (:func:`population_answers`);
- a contrast's population answer is the difference of two connection answers.

Coverage is reported with its binomial Monte Carlo standard error √(p(1 − p)/n) and the
mean interval width (:meth:`PopulationCalibration.summary`);
:func:`plot_calibration` draws coverage per quantity against the nominal line.

Two helpers here serve :mod:`embias.simulate_words` too, which asks the same questions of
simulated tables: :func:`interval_rates` (shares of intervals with their Monte Carlo
standard errors, per level and quantity) and :func:`fit_intervals` (one fit's intervals and
convergence record). They are the package's, not part of the public API.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._progress import progress_wanted
from ._validation import (
    check_choice,
    check_columns,
    check_distinct_lists,
    check_int,
    check_probability,
    check_seed,
)
from .embeddings import load_named_embeddings
from .populations import (
    PopulationDesign,
    WordPopulations,
    as_design,
    load_populations,
)
from .report import share_with_mc_se
from .settings import DEFAULT_CI_PROB, DEFAULT_ROPE, LEVELS, FitSettings
from .tables import CONNECTIONS

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .wordlists import Study

__all__ = [
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "PopulationCalibration",
    "calibrate_on_populations",
    "draw_population_studies",
    "plot_calibration",
    "population_answers",
    "summarize_calibration",
]

#: Columns of :attr:`PopulationCalibration.results` (one row per study × level × quantity).
RESULT_COLUMNS: tuple[str, ...] = (
    "study", "level", "estimand", "group", "estimate", "lower", "upper", "truth", "covered",
    "width", "ci_prob", "random_seed", "max_r_hat", "min_ess_bulk", "min_ess_tail",
    "divergences", "problems")
#: Columns of :meth:`PopulationCalibration.summary`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "level", "estimand", "quantity", "truth", "mean_estimate", "bias", "coverage", "mc_se",
    "mean_width", "n_studies", "ci_prob", "failed_fits")


# =========================================================================== truth
def population_answers(
    populations: WordPopulations | str,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    lowercase: bool | None = None,
) -> pd.DataFrame:
    """Compute the population answer of every connection mean and contrast of a design.

    The quantities a design's studies report.
    Connection ``associated``: Σ_c w_c · D(P_c, A_assoc(c)), where D(X, Y) is the mean
    cosine distance over all pairs of X × Y, P_c the protected population of class c,
    A_k the attribute population of class k, and w_c the design's share of protected
    words in class c. ``different``: Σ_c w_c Σ_{k ≠ assoc(c)} v_ck D(P_c, A_k), v_ck the
    design's share of attribute words of class k among the classes other than c's own
    (classes without such rows left out, the weights renormalised). ``none`` and
    ``human``: Σ_c w_c D(P_c, neutral or human population), when the design draws such
    words. Contrasts (``"associated - none"``, …, those of
    :data:`embias.bayes.summary.CONTRASTS` whose connections are present): differences of
    the connection answers.

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations` or a name/folder for
        :func:`~embias.populations.load_populations`.
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    design
        The design whose weights apply (default
        :data:`~embias.populations.DEFAULT_DESIGN`).
    lowercase
        Look words up in lower case; ``None`` detects an uncased vocabulary (GloVe).

    Returns
    -------
    pandas.DataFrame
        Columns ``estimand`` (``connection_mean`` or ``contrast``), ``group`` and
        ``truth``.

    Raises
    ------
    MissingWordsError
        A population word is not in the embeddings (every word is needed for the
        answer; the report names them all).
    ValueError
        A design the populations cannot supply, or two lists that share a word after the
        case handling.

    Examples
    --------
    Two classes of two protected words and one attribute word each, in two dimensions.
    The mean unit vectors of the protected classes are (0.8, 0.4) and (0.4, 0.8), so a
    class is at distance 1 − 0.8 = 0.2 from its own attribute word, 1 − 0.4 = 0.6 from the
    other's, and 1.4 and 1.8 from the neutral word (0, −1):

    >>> import numpy as np
    >>> from embias.embeddings import keyed_vectors
    >>> from embias.populations import WordPopulations
    >>> kv = keyed_vectors(["p1", "p2", "q1", "q2", "a", "b", "n"], np.array(
    ...     [[1, 0], [0.6, 0.8], [0, 1], [0.8, 0.6], [1, 0], [0, 1], [0, -1]], np.float32))
    >>> populations = WordPopulations.from_dicts(
    ...     "toy", protected={"p": ["p1", "p2"], "q": ["q1", "q2"]},
    ...     attributes={"p": ["a"], "q": ["b"]}, neutral=["n"])
    >>> population_answers(populations, kv, design="protected=1,attributes=1,neutral=1")
              estimand                   group  truth
    0  connection_mean              associated    0.2
    1  connection_mean               different    0.6
    2  connection_mean                    none    1.6
    3         contrast       associated - none   -1.4
    4         contrast  associated - different   -0.4
    5         contrast        different - none   -1.0
    """
    from .bayes.summary import CONTRASTS
    from .embeddings import is_uncased, lookup_words

    populations = load_populations(populations)
    design = as_design(design)
    n_protected, n_attributes = design.counts(populations)
    kv, _ = load_named_embeddings(embeddings)
    if lowercase is None:
        lowercase = is_uncased(kv)
    lists = {**{f"protected[{c!r}]": w for c, w in populations.protected.items()},
             **{f"attributes[{c!r}]": w for c, w in populations.attributes.items()}}
    if design.neutral:
        lists["neutral"] = populations.neutral
    if design.human:
        lists["human"] = populations.human
    if lowercase:  # one word in two lists after the case handling
        check_distinct_lists(lists, key=str.lower,
                             context=f"populations {populations.name!r} (looked up in lower "
                                     "case): ")
    _, vectors, _ = lookup_words(kv, lists, missing="raise", lowercase=lowercase,
                                 context=f"for populations {populations.name!r}")
    # mean over all pairs of 1 − cos = 1 − (mean unit vector of X)·(mean unit vector of Y)
    centre = {name: (v / np.linalg.norm(v, axis=1, keepdims=True)).mean(axis=0)
              for name, v in vectors.items()}

    def distance(protected_class: str, compared: str) -> float:
        return float(1.0 - centre[f"protected[{protected_class!r}]"] @ centre[compared])

    weight = {c: n / sum(n_protected.values()) for c, n in n_protected.items()}
    answers: dict[str, float] = {}
    answers["associated"] = sum(
        w * distance(c, f"attributes[{populations.associations[c]!r}]")
        for c, w in weight.items())
    different: dict[str, float] = {}
    for c in weight:
        others = {k: n for k, n in n_attributes.items() if k != populations.associations[c]}
        if others:
            total = sum(others.values())
            different[c] = sum(n / total * distance(c, f"attributes[{k!r}]")
                               for k, n in others.items())
    if different:
        total_weight = sum(weight[c] for c in different)
        answers["different"] = sum(weight[c] / total_weight * d for c, d in different.items())
    for connection, name in (("human", "human"), ("none", "neutral")):
        if name in lists:
            answers[connection] = sum(w * distance(c, name) for c, w in weight.items())
    rows = [{"estimand": "connection_mean", "group": con, "truth": answers[con]}
            for con in CONNECTIONS if con in answers]
    rows += [{"estimand": "contrast", "group": f"{a} - {b}", "truth": answers[a] - answers[b]}
             for a, b in CONTRASTS if a in answers and b in answers]
    return pd.DataFrame(rows)


#: Studies whose fits run together in one :func:`embias.fit_many` call (the rest of a run
#: waits its turn, so memory holds one block's draws).
STUDIES_PER_BATCH = 128


# =========================================================================== studies
def draw_population_studies(
    populations: WordPopulations | str,
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    n_studies: int = 200,
    first_study: int = 0,
    random_seed: int,
) -> list[Study]:
    """Draw the studies :func:`calibrate_on_populations` fits.

    Study ``i`` is :meth:`WordPopulations.draw_study` with
    ``numpy.random.default_rng([random_seed, i])``, for i = ``first_study`` …
    ``first_study + n_studies − 1``, named ``"<populations> study <i>"``.

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations` or a name/folder for
        :func:`~embias.populations.load_populations`.
    design
        Words per role of every study (default
        :data:`~embias.populations.DEFAULT_DESIGN`).
    n_studies
        Studies drawn (≥ 1).
    first_study
        Index of the first study (≥ 0).
    random_seed
        Non-negative integer seed (required: the studies are a function of it).

    Returns
    -------
    list of Study
        The studies, in order.

    Raises
    ------
    ValueError
        A design the populations cannot supply (naming the class), a bad ``n_studies``
        or ``first_study``, or a missing or bad seed.

    Examples
    --------
    >>> studies = draw_population_studies(
    ...     "sentiment", design="protected=2,attributes=3,neutral=10", n_studies=3,
    ...     random_seed=1)
    >>> [study.name for study in studies]
    ['sentiment study 0', 'sentiment study 1', 'sentiment study 2']
    >>> studies[0]
    Study('sentiment study 0', protected={positive: 2, negative: 2},
          attributes={negative: 3, positive: 3}, neutral=10, human=0)
    """
    populations = load_populations(populations)
    design = as_design(design)
    design.counts(populations)  # refuse a design the populations cannot supply, once
    n_studies = check_int("n_studies", n_studies, minimum=1)
    first_study = check_int("first_study", first_study, minimum=0)
    if random_seed is None:
        raise ValueError("draw_population_studies() needs random_seed= (a non-negative "
                         "integer), got None")
    seed = check_seed(random_seed)
    return [populations.draw_study(design, rng=np.random.default_rng([seed, i]),
                                   name=f"{populations.name} study {i}")
            for i in range(first_study, first_study + n_studies)]


# =========================================================================== result
@dataclass(frozen=True)
class PopulationCalibration:
    """Result of :func:`calibrate_on_populations`.

    Attributes
    ----------
    results
        One row per study × level × quantity (columns :data:`RESULT_COLUMNS`): ``study``
        (its index), ``level``, ``estimand`` (``connection_mean`` or ``contrast``),
        ``group`` (connection or ``"a - b"``), ``estimate`` (posterior mean), ``lower``
        and ``upper`` (the ``ci_prob`` HDI), ``truth`` (the population answer),
        ``covered``, ``width`` (upper − lower), ``ci_prob``, ``random_seed`` (the fit's
        seed), the fit's diagnostics ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail``,
        ``divergences`` and ``problems`` (empty when it passed every check).
    truths
        :func:`population_answers` of the populations under the design.
    studies
        The drawn studies, in order (``first_study`` … ).
    populations
        The populations the studies were drawn from.
    design
        The design of every study.
    settings
        ``levels``, ``n_studies``, ``first_study``, ``ci_prob``, ``ci_kind``,
        ``random_seed`` (the run's seed: passing it back draws the same studies and gives
        the fits the same seeds), ``embedding`` and ``fit`` (the
        :class:`~embias.FitSettings` fields every fit shares).
    seconds
        Wall-clock seconds of the run.
    """

    results: pd.DataFrame = field(repr=False)
    truths: pd.DataFrame = field(repr=False)
    studies: tuple[Study, ...] = field(repr=False)
    populations: WordPopulations = field(repr=False)
    design: PopulationDesign
    settings: Mapping[str, Any]
    seconds: float

    def summary(self, *, converged_only: bool = False) -> pd.DataFrame:
        """Return the coverage per level and quantity.

        :func:`summarize_calibration` of :attr:`results`.
        """
        return summarize_calibration(self.results, converged_only=converged_only)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``study``, ``level``, ``problems``."""
        fits = self.results.drop_duplicates(["study", "level"])
        return fits.loc[fits["problems"] != "", ["study", "level", "problems"]].reset_index(
            drop=True)

    def plot(self, **kwargs: Any) -> Figure:
        """Draw :func:`plot_calibration` of this result."""
        return plot_calibration(self, **kwargs)

    def __repr__(self) -> str:
        """Show the populations, the design, the run's settings and its seed."""
        s = self.settings
        return (f"PopulationCalibration({self.populations.name!r}, design={self.design!r}, "
                f"levels={list(s['levels'])}, n_studies={s['n_studies']}, "
                f"ci_prob={s['ci_prob']}, embedding={s['embedding']!r}, "
                f"random_seed={s['random_seed']}, seconds={self.seconds:.0f})")


def summarize_calibration(results: pd.DataFrame, *, converged_only: bool = False
                          ) -> pd.DataFrame:
    """Summarize how often the intervals cover the population answers, per level and quantity.

    Parameters
    ----------
    results
        :attr:`PopulationCalibration.results` (or the same rows read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: ``level``, ``estimand``, ``quantity`` (connection
        or contrast), ``truth`` (population answer), ``mean_estimate`` and ``bias``
        (mean estimate − truth), ``coverage`` (share of intervals covering the truth) and
        ``mc_se`` (its binomial Monte Carlo standard error √(p(1 − p)/n)), ``mean_width``,
        ``n_studies``, ``ci_prob`` (nominal coverage) and ``failed_fits`` (fits with a
        convergence problem among those counted).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four studies, three of whose intervals cover the answer 0.05: coverage 0.75 with
    se √(0.75 · 0.25 / 4) = 0.217.

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "study": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "estimate": [0.04, 0.06, 0.05, 0.12],
    ...     "lower": [0.0, 0.02, 0.01, 0.08], "upper": [0.08, 0.1, 0.09, 0.16],
    ...     "truth": 0.05, "covered": [True, True, True, False], "ci_prob": 0.89,
    ...     "problems": ""})
    >>> summarize_calibration(results)[["quantity", "bias", "coverage", "mc_se",
    ...                                 "mean_width"]]
                quantity    bias  coverage     mc_se  mean_width
    0  associated - none  0.0175      0.75  0.216506        0.08
    """
    check_columns(results, ("study", "level", "estimand", "group", "estimate", "lower",
                            "upper", "truth", "covered", "ci_prob", "problems"),
                  name="results", hint="pass PopulationCalibration.results")
    rates = interval_rates(results, unit="study", shares={"coverage": "covered"},
                           first=("truth", "ci_prob"), converged_only=converged_only)
    summary = rates.rename(columns={"group": "quantity", "coverage_se": "mc_se",
                                    "n": "n_studies"})
    summary["bias"] = summary["mean_estimate"] - summary["truth"]
    return summary[list(SUMMARY_COLUMNS)]


#: Estimands of a repeated-study summary, in the order its rows are sorted.
ESTIMANDS: tuple[str, ...] = ("connection_mean", "contrast")
#: Quantities of a repeated-study summary, in the order its rows are sorted: the
#: connections, then the contrasts (those of :data:`embias.bayes.summary.CONTRASTS`).
QUANTITIES: tuple[str, ...] = (*CONNECTIONS, "associated - none", "associated - different",
                               "different - none", "human - none")


def interval_rates(
    results: pd.DataFrame,
    *,
    unit: str,
    shares: Mapping[str, str],
    first: Sequence[str] = ("truth",),
    sort_by: Sequence[str] = ("level", "estimand", "group"),
    levels: Sequence[str] | None = None,
    converged_only: bool = False,
) -> pd.DataFrame:
    """Summarize the intervals of repeated studies per model level, estimand and group.

    The one summary behind :func:`summarize_calibration` and
    :func:`embias.simulate_words.summarize_word_sampling`: per (``level``, ``estimand``,
    ``group``) of ``results`` (one row per study × level × quantity), the number of
    studies, the mean estimate, each share asked for with its binomial Monte Carlo
    standard error √(p(1 − p)/n) (:func:`embias.report.share_with_mc_se`), the mean
    interval width and the number of fits with a convergence problem.

    Parameters
    ----------
    results
        Columns ``level``, ``estimand``, ``group``, ``estimate``, ``lower``, ``upper``,
        ``problems`` (empty or NaN when a fit passed every check), ``unit`` and those
        named by ``shares`` and ``first``.
    unit
        Column identifying a study (``"study"``, ``"table"``): ``n`` counts its distinct
        values.
    shares
        Output name → boolean column: ``name`` is its share of ``True``, ``name_se`` the
        share's Monte Carlo standard error.
    first
        Columns whose first value in a group is kept (constant within a group, such as
        ``truth``).
    sort_by
        Columns the rows are sorted by, in turn: ``level`` in the order of ``levels``,
        ``estimand`` in the order of :data:`ESTIMANDS`, ``group`` in the order of
        :data:`QUANTITIES`; values not listed come last, in the order of the groups.
    levels
        The order of the model levels; ``None`` (default): the order in which they
        first appear in ``results``.
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns ``level``, ``estimand``, ``group``, ``n``, the ``first`` columns,
        ``mean_estimate``, per share ``name`` and ``name_se``, ``mean_width`` and
        ``failed_fits``.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "study": [0, 1, 2, 3], "level": "crossed", "estimand": "contrast",
    ...     "group": "associated - none", "estimate": [0.1, 0.2, 0.3, 0.4],
    ...     "lower": [0.0, 0.1, 0.2, 0.3], "upper": [0.2, 0.3, 0.4, 0.5], "truth": 0.25,
    ...     "covered": [False, True, True, False], "problems": ["", "", "r_hat 1.02", ""]})
    >>> rates = interval_rates(results, unit="study", shares={"coverage": "covered"})
    >>> rates[["n", "mean_estimate", "coverage", "coverage_se", "mean_width", "failed_fits"]]
       n  mean_estimate  coverage  coverage_se  mean_width  failed_fits
    0  4           0.25       0.5         0.25         0.2            1
    """
    frame = results.copy()
    frame["problems"] = frame["problems"].fillna("").astype(str)
    if converged_only:
        frame = frame[frame["problems"] == ""]
    out = []
    for (level, estimand, group), rows in frame.groupby(["level", "estimand", "group"],
                                                        sort=False):
        row = {"level": level, "estimand": estimand, "group": group,
               "n": int(rows[unit].nunique()),
               **{column: float(rows[column].iloc[0]) for column in first},
               "mean_estimate": float(rows["estimate"].mean())}
        for name, column in shares.items():
            row[name], row[f"{name}_se"] = share_with_mc_se(rows[column].astype(bool))
        row["mean_width"] = float((rows["upper"] - rows["lower"]).mean())
        row["failed_fits"] = int((rows["problems"] != "").sum())
        out.append(row)
    columns = ["level", "estimand", "group", "n", *first, "mean_estimate",
               *(c for name in shares for c in (name, f"{name}_se")), "mean_width",
               "failed_fits"]
    order = {"level": list(dict.fromkeys(frame["level"]) if levels is None else levels),
             "estimand": list(ESTIMANDS), "group": list(QUANTITIES)}
    summary = pd.DataFrame(out, columns=columns).sort_values(
        list(sort_by), key=lambda s: s.map({v: i for i, v in enumerate(order[str(s.name)])}
                                           ).fillna(len(order[str(s.name)])))
    return summary.reset_index(drop=True)


#: Posterior variables left out of a repeated-study fit's convergence check: the crossed
#: level's compared-word effects are drawn after sampling from their exact conditional
#: given each draw (:func:`embias.bayes.crossed.draw_word_effects`), so they mix as the
#: sampled parameters do; checking hundreds more scalars per fit would double its cost.
UNCHECKED_VARIABLES = ("word_effect",)


def fit_intervals(fit: Any, *, ci_prob: float, rope: float = DEFAULT_ROPE
                  ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Summarize one fit of a repeated-study run: its intervals and its convergence.

    The intervals are those of the connection means and their contrasts only (the shared
    reporting layer, :func:`embias.bayes.summary.summarize_posterior`, without per-word
    rows); the convergence record covers every sampled parameter and deterministic but
    :data:`UNCHECKED_VARIABLES`.

    Parameters
    ----------
    fit
        A :class:`~embias.BiasFit`.
    ci_prob
        HDI probability.
    rope
        ROPE half-width of the contrasts' decisions.

    Returns
    -------
    summary : pandas.DataFrame
        The interval table (``estimand``, ``group``, ``estimate``, ``lower``,
        ``upper``, ``rope_decision`` …).
    record : dict
        ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail``, ``divergences`` and
        ``problems`` (the convergence problems joined by ``"; "``; empty when none).
    """
    import xarray as xr

    from .bayes.diagnostics import (
        convergence_diagnostics,
        convergence_problems,
        diagnostics_overview,
    )
    from .bayes.summary import summarize_posterior

    post = fit.sampled["posterior"].to_dataset()
    checked = post.drop_vars([v for v in UNCHECKED_VARIABLES if v in post])
    diagnostics = convergence_diagnostics(xr.DataTree.from_dict({"posterior": checked}))
    record: dict[str, Any] = dict(diagnostics_overview(diagnostics, fit.divergences))
    record["problems"] = "; ".join(convergence_problems(diagnostics, fit.divergences))
    summary = summarize_posterior(
        xr.DataTree.from_dict({"posterior": post[["connection_mean"]]}), fit.cells,
        ci_prob=ci_prob, ci_kind="hdi", rope=rope, word_contrasts=False)
    return summary, record


# =========================================================================== run
def _fit_rows(fit: Any, *, study: int, level: str, truths: Mapping[tuple[str, str], float],
              ci_prob: float) -> list[dict[str, Any]]:
    """Compare one fit's connection means and contrasts with the population answers."""
    summary, record = fit_intervals(fit, ci_prob=ci_prob)
    rows = []
    for r in summary.itertuples(index=False):
        key = (str(r.estimand), str(r.group))
        if key not in truths:
            raise ValueError(f"study {study} ({level}): the fit reports {key[1]!r}, which "
                             "has no population answer")
        truth = truths[key]
        rows.append({
            "study": study, "level": level, "estimand": key[0], "group": key[1],
            "estimate": float(r.estimate), "lower": float(r.lower), "upper": float(r.upper),
            "truth": truth, "covered": bool(r.lower <= truth <= r.upper),
            "width": float(r.upper - r.lower), "ci_prob": ci_prob,
            "random_seed": int(fit.settings["random_seed"]), **record,
        })
    return rows


def _base_settings(settings: FitSettings | Mapping[str, Any] | None) -> FitSettings:
    if settings is None:
        return FitSettings.for_batch()
    if isinstance(settings, Mapping):
        settings = FitSettings.build(**settings)
    elif not isinstance(settings, FitSettings):
        raise ValueError(f"settings must be a FitSettings or a mapping of its fields, got "
                         f"{type(settings).__name__}")
    if settings.random_seed is not None:
        raise ValueError(f"settings.random_seed={settings.random_seed!r}: every fit's seed is "
                         "derived from the run's seed (study, level); pass random_seed= to "
                         "calibrate_on_populations() instead")
    return settings


def calibrate_on_populations(
    populations: WordPopulations | str,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    design: PopulationDesign | Mapping[str, Any] | str | None = None,
    n_studies: int = 200,
    levels: Sequence[str] | str = ("crossed",),
    settings: FitSettings | Mapping[str, Any] | None = None,
    ci_prob: float = DEFAULT_CI_PROB,
    first_study: int = 0,
    random_seed: int | None = None,
    progress: bool = True,
) -> PopulationCalibration:
    """Count how often the intervals of studies of real words cover the populations' answer.

    Draws ``n_studies`` studies from ``populations`` with ``design``
    (:func:`draw_population_studies`), builds each study's cosine table
    (:func:`embias.cosine_table`), fits it at every level of ``levels`` through
    :func:`embias.fit_many`, and compares every connection mean's and contrast's
    ``ci_prob`` HDI with the population answer (:func:`population_answers`).

    Parameters
    ----------
    populations
        :class:`~embias.populations.WordPopulations`, a shipped set's name
        (``"sentiment"``, ``"names"``) or a folder of population files.
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings` (default GloVe 6B
        50d); every population word must be in it.
    design
        Words per role of every study (:class:`~embias.populations.PopulationDesign`, a
        mapping of its fields or its text ``"protected=5,attributes=4,neutral=100"``;
        default :data:`~embias.populations.DEFAULT_DESIGN`).
    n_studies
        Studies drawn (≥ 1). The Monte Carlo se of a coverage near 0.89 is about
        0.31/√n_studies (0.022 at 200).
    levels
        Model levels to fit each study at (default the crossed level).
    settings
        Sampler settings every fit shares (:class:`~embias.FitSettings` or a mapping of
        its fields; default the library's); its ``level`` is replaced by each of
        ``levels``, and its ``random_seed`` must be unset (the fits' seeds derive from
        ``random_seed``).
    ci_prob
        Interval probability (default 0.89): the nominal coverage.
    first_study
        Index of the first study: study i is drawn from seed ``(random_seed, i)`` and
        fitted with seeds derived from (``random_seed``, i, level), so any slice of a run
        can be recomputed alone or run elsewhere and the rows concatenated.
    random_seed
        Non-negative integer seed of everything; ``None`` (default) draws one from the OS
        entropy. The seed used is ``settings["random_seed"]`` of the result, shown in its
        repr.
    progress
        Show a progress bar over the studies.

    Returns
    -------
    PopulationCalibration
        Per-study rows (:attr:`~PopulationCalibration.results`), the population answers,
        the drawn studies, and :meth:`~PopulationCalibration.summary` for the coverage
        with its Monte Carlo se.

    Raises
    ------
    ValueError
        A design the populations cannot supply (a class with fewer words than the design
        asks, a design without attribute words), an unknown level, a bad ``n_studies``,
        ``ci_prob`` or seed, ``settings`` with a seed.
    MissingWordsError
        A population word missing from the embeddings.

    Examples
    --------
    A run fits ``n_studies`` × ``levels`` models; what it is asked is checked before any
    of them:

    >>> calibrate_on_populations("sentiment", design="protected=300")
    Traceback (most recent call last):
    ...
    ValueError: populations 'sentiment': protected['positive'] has 200 words, fewer than the
    design's protected=300; ...
    >>> calibrate_on_populations("sentiment", levels="pooled")
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: levels='pooled' is not one of ['dataset', 'word',
    'hierarchical', 'crossed']
    """
    populations = load_populations(populations)
    design = as_design(design)
    n_studies = check_int("n_studies", n_studies, minimum=1)
    first_study = check_int("first_study", first_study, minimum=0)
    ci_prob = check_probability("ci_prob", ci_prob)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(dict.fromkeys(check_choice("levels", lv, LEVELS) for lv in levels))
    if not levels:
        raise ValueError(f"levels must name at least one model level of {list(LEVELS)}, "
                         "got none")
    design.counts(populations)  # a design the populations cannot supply, before any work
    base = _base_settings(settings)
    seed = check_seed(random_seed)
    kv, embedding = load_named_embeddings(embeddings)
    start = time.perf_counter()
    truths_frame = population_answers(populations, kv, design=design)
    studies = draw_population_studies(populations, design=design, n_studies=n_studies,
                                      first_study=first_study, random_seed=seed)
    rows = _fit_studies(
        list(enumerate(studies, start=first_study)), kv, embedding=embedding, levels=levels,
        base=base, seed=seed, ci_prob=ci_prob, progress=progress,
        truths={(r.estimand, r.group): float(r.truth) for r in truths_frame.itertuples()})
    fit_record = base.to_dict()
    fit_record.pop("level")
    fit_record.pop("random_seed")
    return PopulationCalibration(
        results=pd.DataFrame(rows, columns=list(RESULT_COLUMNS)), truths=truths_frame,
        studies=tuple(studies), populations=populations, design=design,
        settings={"levels": list(levels), "n_studies": n_studies, "first_study": first_study,
                  "ci_prob": ci_prob, "ci_kind": "hdi", "random_seed": seed,
                  "embedding": embedding, "fit": fit_record},
        seconds=time.perf_counter() - start)


def _fit_studies(numbered: list[tuple[int, Study]], kv: KeyedVectors, *, embedding: str,
                 levels: tuple[str, ...], base: FitSettings, seed: int, ci_prob: float,
                 truths: Mapping[tuple[str, str], float],
                 progress: bool) -> list[dict[str, Any]]:
    """Fit every study at every level; return their rows against the population answers.

    Study i at level ``lv`` is fitted with the seed derived from (seed, i, lv). The studies
    go in blocks of :data:`STUDIES_PER_BATCH`: a block's fits run together (one compiled
    program per level and shape), and only their rows are kept.
    """
    from tqdm import tqdm

    from .bayes import FitJob, derived_seed, fit_many
    from .tables import cosine_table

    rows: list[dict[str, Any]] = []
    with tqdm(total=len(numbered), desc="studies", unit="study",
              disable=not progress_wanted(progress)) as bar:
        for block in range(0, len(numbered), STUDIES_PER_BATCH):
            part = numbered[block:block + STUDIES_PER_BATCH]
            jobs = [FitJob(cosine_table(kv, study, missing="raise", embedding_name=embedding),
                           FitSettings.build(base, level=lv, random_seed=derived_seed(
                               seed, str(i), lv)), label=f"{study.name} {lv}")
                    for i, study in part for lv in levels]
            fits = iter(fit_many(jobs, progress=False, warn=False))
            for i, _ in part:
                for lv in levels:
                    rows += _fit_rows(next(fits), study=i, level=lv, truths=truths,
                                      ci_prob=ci_prob)
            del fits, jobs
            bar.update(len(part))
    return rows


# =========================================================================== plot
def plot_calibration(
    result: PopulationCalibration | pd.DataFrame,
    *,
    ax: Axes | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the coverage of the population answers per quantity, one marker per level.

    With ±2 Monte Carlo standard errors and the nominal coverage dashed.

    Parameters
    ----------
    result
        A :class:`PopulationCalibration`, or its :meth:`~PopulationCalibration.summary`
        (e.g. read back from a CSV).
    ax
        Axes to draw on (default a new figure).
    title
        Figure title (default: the populations, design and number of studies, for a
        result).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    ValueError
        A result that is neither a :class:`PopulationCalibration` nor a summary with the
        columns drawn.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> summary = pd.DataFrame({"level": ["hierarchical", "crossed"],
    ...                         "quantity": "associated - none", "coverage": [0.6, 0.88],
    ...                         "mc_se": [0.035, 0.023], "ci_prob": 0.89})
    >>> fig = plot_calibration(summary)
    >>> [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    ['hierarchical', 'crossed']
    >>> plt.close(fig)
    """
    import matplotlib.pyplot as plt

    if isinstance(result, PopulationCalibration):
        summary = result.summary()
        if title is None:
            title = (f"{result.populations.name}: {result.settings['n_studies']} studies of "
                     f"{result.design.as_text()}")
    elif isinstance(result, pd.DataFrame):
        check_columns(result, ("level", "quantity", "coverage", "mc_se", "ci_prob"),
                      name="summary", hint="pass a PopulationCalibration or its summary()")
        summary = result
    else:
        raise ValueError(f"plot_calibration() takes a PopulationCalibration or its summary(), "
                         f"got {type(result).__name__}")
    nominal = sorted(set(summary["ci_prob"].astype(float)))
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * summary["quantity"].nunique() + 2), 3.8))
    else:
        figure = ax.get_figure(root=True)
        if figure is None:
            raise ValueError("ax must be the Axes of a matplotlib figure, got Axes without one")
        fig = figure
    quantities = list(dict.fromkeys(summary["quantity"]))
    levels = list(dict.fromkeys(summary["level"]))
    step = 0.6 / max(len(levels), 1)
    for j, level in enumerate(levels):
        sub = summary[summary["level"] == level].set_index("quantity").reindex(quantities)
        x = np.arange(len(quantities)) + (j - (len(levels) - 1) / 2) * step
        ax.errorbar(x, sub["coverage"].to_numpy(float), yerr=2 * sub["mc_se"].to_numpy(float),
                    fmt="o", capsize=3, label=level)
    for p in nominal:
        ax.axhline(p, color="0.3", linestyle="--", linewidth=1)
    ax.set_xticks(np.arange(len(quantities)), quantities, rotation=20, ha="right")
    low = float(np.nanmin(summary["coverage"] - 2 * summary["mc_se"])) if len(summary) else 0
    ax.set_ylim(max(0.0, min(low, min(nominal, default=1.0)) - 0.05), 1.01)
    ax.set_ylabel("intervals covering the\npopulation answer")
    ax.legend(title="level", frameon=False, fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    return fig
