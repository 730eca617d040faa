"""Design analysis: how many words a claim needs.

Before collecting words for a study — or before adding words to one — a researcher wants
to know what a study of a given size is likely to conclude. :func:`design_analysis`
answers by simulation: for every design size (attribute words per class, protected words
per class, neutral and human words) it draws ``n_studies`` new studies, fits each
(:func:`embias.fit_many`, all the fits of an analysis in a few batches) and reports, per
contrast (associated − none, associated − different, different − none, human − none):

- ``p_credible``: the share of studies whose ``ci_prob`` HDI of the contrast lies
  entirely outside the ROPE [−rope, rope] (the decision ``"credible difference"`` of
  :func:`embias.rope_decision`), with its binomial Monte Carlo se √(p(1 − p)/n);
- ``width_mean``: the mean HDI width (upper − lower), with its Monte Carlo se sd/√n.

Both are estimates of expectations over new studies of that size. Where the new studies
come from is the ``source``:

**A fitted pilot study** (a :class:`~embias.BiasFit` at the crossed level): new studies
are drawn from the posterior predictive distribution. Study i takes one posterior draw
(the same draw index at every size, so the sizes are compared on the same draws) of the
population means ``bar[con]`` and sds ``tau[con]`` of the protected words' coefficients,
the residual sds ``sigma[con]`` and the compared words' sds ``tau_word[kind]``, then draws
new protected words, coef[p, con] ~ N(bar[con], tau[con]), new compared words,
u[w] ~ N(0, tau_word[kind(w)]), and rows y = coef + u + N(0, sigma[con])
(:func:`embias.simulate_word_table`, on the rows of the design: every protected word
against every compared word, the connections following the pilot's classes and
associations). ``p_credible`` is then the *assurance* of the design: the probability of
a credible difference averaged over what the pilot leaves uncertain, not the power at
one assumed effect.

**Populations of real words** (:class:`~embias.populations.WordPopulations`, a shipped
set's name or a folder) with embeddings: new studies are drawn from the real words
(:meth:`WordPopulations.draw_study`) and their cosine tables computed
(:func:`embias.cosine_table`); the contrast's truth reported next to the rates is the
population answer (:func:`embias.population_answers`).

:meth:`DesignAnalysis.plot` (:func:`plot_design_analysis`) draws the probability against
list size per contrast with ±2 Monte Carlo se bars, and the expected width on a second
panel.

What more attribute words cannot buy: in the crossed model a protected word's
coefficients of two connections are independent draws around their means, so the
interval of a contrast of connections (associated − different) keeps a part
√(τ[a]² + τ[b]²)/√(protected words) that no number of attribute words shrinks; a longer
protected list does. The posterior predictive inherits this (it simulates the model that
is fitted); where a real protected word's coefficients move together, the model's
intervals — and so these widths — are wider than the words require.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._validation import (
    check_choice,
    check_columns,
    check_int,
    check_number,
    check_probability,
    check_seed,
)
from .populations import DEFAULT_DESIGN, PopulationDesign, WordPopulations, load_populations
from .report import share_with_mc_se
from .settings import DEFAULT_CI_PROB, DEFAULT_ROPE, LEVELS, FitSettings

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .bayes.fit import BiasFit

__all__ = [
    "DEFAULT_ATTRIBUTE_WORDS",
    "DEFAULT_BLOCK",
    "PILOT",
    "RESULT_COLUMNS",
    "SUMMARY_COLUMNS",
    "DesignAnalysis",
    "design_analysis",
    "design_table",
    "plot_design_analysis",
    "summarize_design_analysis",
]

#: Attribute words per class analysed by default.
DEFAULT_ATTRIBUTE_WORDS: tuple[int, ...] = (4, 8, 16, 32)
#: Fits per :func:`embias.fit_many` call: the studies of a block are fitted together, their
#: rows kept and the fits dropped, which bounds the memory of a long analysis.
DEFAULT_BLOCK = 64
#: A size meaning "as many as the pilot study has, class by class" (fitted source only).
PILOT = "pilot"
#: Columns of :attr:`DesignAnalysis.results` (one row per design × study × contrast).
RESULT_COLUMNS: tuple[str, ...] = (
    "design", "protected_words", "attribute_words", "neutral_words", "human_words",
    "study", "contrast", "truth", "estimate", "lower", "upper", "width", "rope_decision",
    "credible", "random_seed", "problems")
#: Columns of :meth:`DesignAnalysis.summary`.
SUMMARY_COLUMNS: tuple[str, ...] = (
    "design", "protected_words", "attribute_words", "neutral_words", "human_words",
    "contrast", "truth", "p_credible", "p_se", "width_mean", "width_se", "n_studies",
    "n_failed_fits")
_CREDIBLE = "credible difference"


# =========================================================================== designs
def _per_class(value: int | Mapping[str, int]) -> float:
    """Return the words per class of a design role: the number, or the mean over classes."""
    if isinstance(value, Mapping):
        counts = list(value.values())
        return float(counts[0]) if len(set(counts)) == 1 else float(np.mean(counts))
    return float(value)


def _sizes(name: str, value: Any, *, pilot: Mapping[str, int] | None) -> list[Any]:
    """Check the sizes of one role: integers ≥ 1 or :data:`PILOT`, none twice.

    :data:`PILOT` is returned as the pilot study's counts (a mapping class → number).
    """
    values = [value] if isinstance(value, int | str | np.integer) else value
    try:
        values = list(values)
    except TypeError:
        raise ValueError(f"{name} must be an integer ≥ 1, {PILOT!r} or a list of them, got "
                         f"{value!r}") from None
    if not values:
        raise ValueError(f"{name} must name at least one size, got {value!r}")
    out: list[Any] = []
    for v in values:
        if isinstance(v, str):
            if v != PILOT:
                raise ValueError(f"{name}: {v!r} is not a size; give integers ≥ 1 or "
                                 f"{PILOT!r} (the pilot study's own numbers per class)")
            if pilot is None:
                raise ValueError(f"{name}: {PILOT!r} (the pilot study's numbers per class) "
                                 "needs a fitted pilot study as the source; populations "
                                 "have no pilot — give integers ≥ 1")
            out.append(dict(pilot))
        else:
            out.append(check_int(name, v, minimum=1,
                                 why="a design needs at least one word per class"))
    shown = [str(v) if not isinstance(v, dict) else PILOT for v in out]
    twice = sorted({s for s in shown if shown.count(s) > 1})
    if twice:
        raise ValueError(f"{name} lists {twice} more than once; give each size once")
    return out


def _controls(name: str, value: Any, default: int) -> int:
    if value is None:
        return default
    return check_int(name, value, minimum=0, why="0 leaves the connection out")


def _check_protected_total(design: PopulationDesign, total: int) -> None:
    if total < 2:
        raise ValueError(f"protected_words={_per_class(design.protected):g} gives a study of "
                         f"{total} protected word; the model needs at least 2 (the spread of "
                         "the protected words is one of its parameters)")


def _check_rope(rope: Any) -> float:
    try:
        return check_number("rope", rope, low=0.0, low_open=True)
    except ValueError:
        raise ValueError(f"rope must be a positive half-width of the region of practical "
                         f"equivalence [−rope, rope] (a 'credible difference' is an HDI "
                         f"outside it), got {rope!r}") from None


def design_table(
    protected: Mapping[str, int],
    attributes: Mapping[str, int],
    associations: Mapping[str, str | None],
    *,
    neutral: int = 0,
    human: int = 0,
) -> pd.DataFrame:
    """Build the rows of a study of a given size, with placeholder words and distances.

    The design :func:`embias.simulate_word_table` draws a table on.
    Every protected word is paired with every attribute, neutral and human word, as in
    :func:`embias.cosine_table`: ``associated`` when the attribute class is the one
    associated with the protected word's class, ``different`` for another class's
    attributes, ``none`` for neutral and ``human`` for human words. Words are named
    ``"<class> <i>"`` (protected), ``"<class> attribute <i>"``, ``"neutral <i>"`` and
    ``"human <i>"``.

    Parameters
    ----------
    protected, attributes
        Class → number of words (each ≥ 1).
    associations
        Protected class → its associated attribute class (``None``: every attribute row
        of the class is ``different``).
    neutral, human
        Numbers of neutral and human words (≥ 0).

    Returns
    -------
    pandas.DataFrame
        Columns of :data:`embias.tables.TABLE_COLUMNS`; ``cosine_distance`` is a
        placeholder 1 (similarity 0) until a table is drawn on the design.

    Raises
    ------
    ValueError
        A number of words that is not an integer (≥ 1 for a class, ≥ 0 for the
        controls), or a protected class without an entry in ``associations``.

    Examples
    --------
    Two protected words of class ``a`` and one of ``b``, one attribute word per class
    and one neutral word: 3 × 3 rows.

    >>> rows = design_table({"a": 2, "b": 1}, {"a": 1, "b": 1}, {"a": "a", "b": "b"},
    ...                     neutral=1)
    >>> rows[["protected_word", "word_to_compare", "connection"]].head(3)
      protected_word word_to_compare  connection
    0            a 1     a attribute 1  associated
    1            a 1     b attribute 1   different
    2            a 1       neutral 1        none
    >>> rows["connection"].value_counts().to_dict()
    {'associated': 3, 'different': 3, 'none': 3}
    >>> design_table({"a": 0}, {"a": 1}, {"a": "a"})
    Traceback (most recent call last):
    ...
    ValueError: protected['a'] must be an integer ≥ 1, got 0
    """
    from .tables import TABLE_COLUMNS

    p_words, p_class = [], []
    for c, n in protected.items():
        n = check_int(f"protected[{c!r}]", n, minimum=1)
        p_words += [f"{c} {i + 1}" for i in range(n)]
        p_class += [c] * n
    c_words, c_class, c_kind = [], [], []
    for c, n in attributes.items():
        n = check_int(f"attributes[{c!r}]", n, minimum=1)
        c_words += [f"{c} attribute {i + 1}" for i in range(n)]
        c_class += [c] * n
        c_kind += ["attribute"] * n
    for kind, n in (("neutral", neutral), ("human", human)):
        n = check_int(kind, n, minimum=0)
        c_words += [f"{kind} {i + 1}" for i in range(n)]
        c_class += [kind] * n
        c_kind += [kind] * n
    unknown = sorted(set(protected) - set(associations))
    if unknown:
        raise ValueError(f"protected class(es) {unknown} have no entry in associations")
    n_p, n_c = len(p_words), len(c_words)
    pw_class = np.repeat(np.asarray(p_class, dtype=object), n_c)
    cw_class = np.tile(np.asarray(c_class, dtype=object), n_p)
    cw_kind = np.tile(np.asarray(c_kind, dtype=object), n_p)
    assoc = np.array([associations[c] for c in pw_class], dtype=object)
    connection = np.where(cw_kind == "neutral", "none", np.where(
        cw_kind == "human", "human", np.where(cw_class == assoc, "associated", "different")))
    table = pd.DataFrame({
        "protected_word": np.repeat(np.asarray(p_words, dtype=object), n_c),
        "protected_class": pw_class,
        "word_to_compare": np.tile(np.asarray(c_words, dtype=object), n_p),
        "word_class": cw_class,
        "connection": connection,
        "cosine_similarity": 0.0,
        "cosine_distance": 1.0,
        "embedding": "design",
    }, columns=list(TABLE_COLUMNS))
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding"):
        table[col] = table[col].astype(str)
    return table


# =========================================================================== sources
@dataclass(frozen=True)
class _Pilot:
    """What a fitted pilot study gives the posterior predictive.

    Its classes, associations and word counts, and the posterior draws of the crossed
    model's population parameters (flattened over chains).
    """

    protected: dict[str, int]
    attributes: dict[str, int]
    associations: dict[str, str | None]
    neutral: int
    human: int
    draws: dict[str, dict[str, np.ndarray]]  # parameter → label → (n_draws,)
    n_draws: int
    description: dict[str, Any]

    def parameters(self, k: int) -> Any:
        from .simulate_words import WordSamplingParameters

        return WordSamplingParameters(**{name: {label: float(v[k]) for label, v in by.items()}
                                         for name, by in self.draws.items()})


def _pilot(fit: BiasFit) -> _Pilot:
    """Read the pilot structure and posterior draws of a crossed-level fit (else refuse it)."""
    if fit.level != "crossed":
        raise ValueError(f"design_analysis() draws new studies from a crossed-level fit's "
                         f"posterior (new protected words coef ~ N(bar, tau), new compared "
                         f"words u ~ N(0, tau_word)); this fit is at level {fit.level!r} — "
                         "fit the pilot study with level='crossed'")
    table = fit.table
    if "template" in table.columns:
        raise ValueError("design_analysis() simulates word studies; this fit is of a sentence "
                         "table (it has templates), whose template effects a new study would "
                         "also need — not supported")
    post = fit.sampled["posterior"].to_dataset()
    missing = [v for v in ("bar", "tau", "sigma", "tau_word") if v not in post]
    if missing:
        raise ValueError(f"the fit's posterior lacks {missing}; design_analysis() needs a "
                         "crossed-level fit of embias")
    flat = post[["bar", "tau", "sigma", "tau_word"]].stack(sample=("chain", "draw"))
    draws = {name: {str(label): np.asarray(flat[name].sel({dim: label}).values, dtype=float)
                    for label in flat[name][dim].values}
             for name, dim in (("bar", "connection"), ("tau", "connection"),
                               ("sigma", "connection"), ("tau_word", "word_kind"))}
    protected_of = table.drop_duplicates("protected_word")
    protected = {str(c): int(n) for c, n in protected_of.groupby(
        "protected_class", sort=False).size().items()}
    attribute_rows = table[table["connection"].isin(["associated", "different"])]
    attributes = {str(c): int(n) for c, n in attribute_rows.drop_duplicates(
        "word_to_compare").groupby("word_class", sort=False).size().items()}
    associated = table[table["connection"] == "associated"]
    associations: dict[str, str | None] = dict.fromkeys(protected)
    for c, rows in associated.groupby("protected_class", sort=False):
        associations[str(c)] = str(rows["word_class"].iloc[0])
    words = {con: int(table.loc[table["connection"] == con, "word_to_compare"].nunique())
             for con in ("none", "human")}
    return _Pilot(protected=protected, attributes=attributes, associations=associations,
                  neutral=words["none"], human=words["human"], draws=draws,
                  n_draws=int(flat.sizes["sample"]),
                  description={"study": str(table.attrs.get("study", fit.settings.get(
                      "study", ""))), "embedding": str(fit.settings.get("embedding", "")),
                      "level": fit.level, "random_seed": fit.settings.get("random_seed"),
                      "posterior_draws": int(flat.sizes["sample"])})


# =========================================================================== result
@dataclass(frozen=True)
class DesignAnalysis:
    """Result of :func:`design_analysis`.

    Attributes
    ----------
    results
        One row per design × study × contrast (columns :data:`RESULT_COLUMNS`):
        ``design`` (its text, :meth:`PopulationDesign.as_text`), words per class of the
        protected and attribute roles (a mean when the classes differ), neutral and
        human words, ``study`` (index), ``contrast``, ``truth`` (the drawn posterior
        draw's bar[a] − bar[b], or the population answer), the fit's ``estimate``
        (posterior mean), ``lower``/``upper`` (``ci_prob`` HDI), ``width``,
        ``rope_decision``, ``credible`` (the decision is ``"credible difference"``), the
        fit's ``random_seed`` and ``problems`` (:meth:`embias.BiasFit.problems`,
        ``"; "``-joined; empty when the fit passed every convergence check).
    designs
        The designs analysed, in order.
    settings
        ``source`` (``"posterior predictive"`` or ``"populations"``), ``pilot`` or
        ``populations`` (what the studies were drawn from), ``embedding``, ``level``,
        ``n_studies``, ``ci_prob``, ``rope``, ``random_seed`` (passing it back repeats
        the analysis) and ``fit`` (the :class:`~embias.FitSettings` fields every fit
        shares).
    seconds
        Wall-clock seconds of the run.
    """

    results: pd.DataFrame = field(repr=False)
    designs: tuple[PopulationDesign, ...]
    settings: Mapping[str, Any]
    seconds: float

    def summary(self, *, converged_only: bool = False) -> pd.DataFrame:
        """Return the probability of a credible difference and the expected HDI width.

        Per design and contrast: :func:`summarize_design_analysis` of :attr:`results`.
        """
        return summarize_design_analysis(self.results, converged_only=converged_only)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``design``, ``study``, ``problems``."""
        fits = self.results.drop_duplicates(["design", "study"])
        return fits.loc[fits["problems"] != "", ["design", "study", "problems"]].reset_index(
            drop=True)

    def plot(self, **kwargs: Any) -> Figure:
        """Draw :func:`plot_design_analysis` of this result."""
        return plot_design_analysis(self, **kwargs)

    def __repr__(self) -> str:
        """Show the source, the sizes of the run and its seed."""
        s = self.settings
        return (f"DesignAnalysis({s['source']}, designs={len(self.designs)}, "
                f"n_studies={s['n_studies']}, level={s['level']!r}, ci_prob={s['ci_prob']}, "
                f"rope={s['rope']}, random_seed={s['random_seed']}, "
                f"seconds={self.seconds:.0f})")


def summarize_design_analysis(results: pd.DataFrame, *, converged_only: bool = False
                              ) -> pd.DataFrame:
    """Summarize the rates and widths over the simulated studies, per design and contrast.

    Parameters
    ----------
    results
        :attr:`DesignAnalysis.results` (or the same rows read back from a CSV).
    converged_only
        Count only fits that passed every convergence check (empty ``problems``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SUMMARY_COLUMNS`: the design (text and words per role), the
        ``contrast``, ``truth`` (mean over the studies of the drawn truth), ``p_credible``
        (share of studies whose HDI lies outside the ROPE) and ``p_se`` (√(p(1 − p)/n)),
        ``width_mean`` (mean HDI width) and ``width_se`` (sd/√n), ``n_studies`` (studies
        counted) and ``n_failed_fits`` (those with a convergence problem).

    Raises
    ------
    ValueError
        ``results`` lacks a column the summary reads.

    Examples
    --------
    Four studies of one design, three of which find a credible difference: p = 0.75 with
    se √(0.75 · 0.25 / 4) = 0.217; widths 0.1, 0.2, 0.3, 0.2 have mean 0.2 and se
    sd/√4 = 0.0816/2 = 0.041.

    >>> import pandas as pd
    >>> results = pd.DataFrame({
    ...     "design": "protected=5,attributes=4,neutral=100,human=0",
    ...     "protected_words": 5.0, "attribute_words": 4.0, "neutral_words": 100,
    ...     "human_words": 0, "study": [0, 1, 2, 3], "contrast": "associated - none",
    ...     "truth": 0.05, "width": [0.1, 0.2, 0.3, 0.2],
    ...     "credible": [True, True, False, True], "problems": ""})
    >>> summary = summarize_design_analysis(results)
    >>> summary[["contrast", "p_credible", "p_se", "width_mean", "width_se"]]
                contrast  p_credible      p_se  width_mean  width_se
    0  associated - none        0.75  0.216506         0.2  0.040825
    """
    from .bayes.summary import CONTRASTS

    check_columns(results, ("design", "protected_words", "attribute_words", "neutral_words",
                            "human_words", "study", "contrast", "truth", "width", "credible",
                            "problems"),
                  name="results", hint="pass DesignAnalysis.results")
    frame = results.copy()
    frame["problems"] = frame["problems"].fillna("").astype(str)
    if converged_only:
        frame = frame[frame["problems"] == ""]
    order = {f"{a} - {b}": i for i, (a, b) in enumerate(CONTRASTS)}
    out = []
    for (design, contrast), rows in frame.groupby(["design", "contrast"], sort=False):
        p, p_se = share_with_mc_se(rows["credible"].astype(bool))
        width = rows["width"].to_numpy(float)
        n = len(rows)
        first = rows.iloc[0]
        out.append({
            "design": design, "protected_words": float(first["protected_words"]),
            "attribute_words": float(first["attribute_words"]),
            "neutral_words": int(first["neutral_words"]),
            "human_words": int(first["human_words"]), "contrast": contrast,
            "truth": float(rows["truth"].mean()), "p_credible": p, "p_se": p_se,
            "width_mean": float(width.mean()),
            "width_se": float(width.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan,
            "n_studies": int(rows["study"].nunique()),
            "n_failed_fits": int((rows["problems"] != "").sum())})
    summary = pd.DataFrame(out, columns=list(SUMMARY_COLUMNS))
    designs = {d: i for i, d in enumerate(dict.fromkeys(frame["design"]))}
    summary = summary.sort_values(
        ["design", "contrast"],
        key=lambda s: s.map(designs if s.name == "design" else order).fillna(len(order)),
        kind="stable")
    return summary.reset_index(drop=True)


# =========================================================================== run
def _fit_rows(fit: Any, *, ci_prob: float, rope: float) -> tuple[list[dict[str, Any]], str]:
    """Return the contrasts of one fit (estimate, HDI, ROPE decision) and its problems."""
    import xarray as xr

    from .bayes.summary import summarize_posterior

    post = fit.sampled["posterior"].to_dataset()
    summary = summarize_posterior(
        xr.DataTree.from_dict({"posterior": post[["connection_mean"]]}), fit.cells,
        ci_prob=ci_prob, ci_kind="hdi", rope=rope, word_contrasts=False)
    summary = summary[summary["estimand"] == "contrast"]
    rows = [{"contrast": str(r.group), "estimate": float(r.estimate), "lower": float(r.lower),
             "upper": float(r.upper), "width": float(r.upper - r.lower),
             "rope_decision": str(r.rope_decision),
             "credible": str(r.rope_decision) == _CREDIBLE,
             "random_seed": int(fit.settings["random_seed"])}
            for r in summary.itertuples(index=False)]
    return rows, "; ".join(fit.problems())


def _base_settings(settings: FitSettings | Mapping[str, Any] | None, level: str
                   ) -> FitSettings:
    if settings is None:
        return FitSettings.for_batch(level=level)
    if isinstance(settings, Mapping):
        settings = FitSettings.for_batch(**settings)
    elif not isinstance(settings, FitSettings):
        raise ValueError(f"settings must be a FitSettings or a mapping of its fields, got "
                         f"{type(settings).__name__}")
    if settings.random_seed is not None:
        raise ValueError(f"settings.random_seed={settings.random_seed!r}: every fit's seed is "
                         "derived from the analysis's seed (design, study); pass random_seed= "
                         "to design_analysis() instead")
    return FitSettings.build(settings, level=level)


def design_analysis(
    source: BiasFit | WordPopulations | str,
    embeddings: KeyedVectors | str | None = None,
    *,
    attribute_words: int | str | Sequence[int | str] = DEFAULT_ATTRIBUTE_WORDS,
    protected_words: int | str | Sequence[int | str] | None = None,
    neutral_words: int | None = None,
    human_words: int | None = None,
    n_studies: int = 100,
    level: str = "crossed",
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    settings: FitSettings | Mapping[str, Any] | None = None,
    random_seed: int | None = None,
    progress: bool = True,
    block: int = DEFAULT_BLOCK,
) -> DesignAnalysis:
    """Estimate, per study size, the chance of a credible difference and the HDI width.

    For every design — each combination of ``protected_words`` and ``attribute_words``,
    with ``neutral_words`` and ``human_words`` — draws ``n_studies`` new studies from
    ``source`` (see the module notes: the posterior predictive of a fitted pilot study, or
    real words from populations), fits each at ``level`` through :func:`embias.fit_many`
    (in blocks of ``block`` fits) and records every contrast's ``ci_prob`` HDI and ROPE
    decision.

    Estimands, per design and contrast: P(the HDI lies entirely outside [−rope, rope]),
    i.e. P(``rope_decision == "credible difference"``), over new studies of that size,
    estimated by the share of simulated studies, with Monte Carlo se √(p(1 − p)/n); and
    the expected HDI width, estimated by the mean width, with Monte Carlo se sd/√n
    (:meth:`DesignAnalysis.summary`).

    Parameters
    ----------
    source
        A :class:`~embias.BiasFit` of a pilot study at the crossed level (new studies from
        its posterior predictive), or :class:`~embias.populations.WordPopulations`, a
        shipped set's name (``"sentiment"``, ``"names"``) or a folder of population files
        (new studies of real words).
    embeddings
        Populations only: ``KeyedVectors`` or a source for :func:`embias.load_embeddings`
        (default GloVe 6B 50d). A fitted source needs none.
    attribute_words
        Attribute words per attribute class: an integer ≥ 1, ``"pilot"`` (the pilot
        study's own numbers per class; fitted source only), or a list of them (default
        4, 8, 16, 32).
    protected_words
        Protected words per protected class, as ``attribute_words``; default the pilot's
        own numbers (fitted source) or 5 (populations).
    neutral_words, human_words
        Neutral and human words per study (≥ 0; 0 leaves the connection and its
        contrasts out); default the pilot's (fitted source) or 100 and 0 (populations).
    n_studies
        Studies per design (≥ 2). The Monte Carlo se of a probability is at most
        0.5/√n_studies (0.05 at 100).
    level
        Model level every simulated study is fitted at (default ``"crossed"``).
    ci_prob
        HDI probability (default 0.89).
    rope
        Half-width of the region of practical equivalence, > 0 (default 0.02).
    settings
        Sampler settings of the fits (:class:`~embias.FitSettings` or a mapping of its
        fields; default :meth:`FitSettings.for_batch`); its ``level`` is replaced by
        ``level`` and its ``random_seed`` must be unset.
    random_seed
        Non-negative integer seed of everything; ``None`` (default) draws one from the OS
        entropy. The seed used is ``settings["random_seed"]`` of the result (shown in its
        repr): passing it back repeats the analysis. Study i uses the same posterior draw
        at every size, and a study's words, rows and fit seed depend only on (seed,
        design, i), so a design's rows do not change when other sizes are added.
    progress
        Show a progress bar over the studies.
    block
        Fits per :func:`embias.fit_many` call (≥ 1).

    Returns
    -------
    DesignAnalysis
        Per-study rows (:attr:`~DesignAnalysis.results`), with
        :meth:`~DesignAnalysis.summary` and :meth:`~DesignAnalysis.plot`.

    Raises
    ------
    ValueError
        A size that is not an integer ≥ 1 (or ``"pilot"`` with a fitted source), a size
        listed twice, a size larger than a population (naming the class), neutral or
        human words the pilot has none of, a ROPE ≤ 0, a bad ``n_studies``, ``ci_prob``,
        level or seed, ``settings`` with a seed, embeddings given with a fitted source, a
        pilot fit that is not at the crossed level.
    MissingWordsError
        A population word missing from the embeddings.

    Examples
    --------
    A run fits ``n_studies`` models per design; the sizes are checked before any of
    them, against the populations the studies are drawn from:

    >>> design_analysis("sentiment", attribute_words=[4, 300])
    Traceback (most recent call last):
    ...
    ValueError: populations 'sentiment': attributes['negative'] has 200 words, fewer than the
    design's attributes=300; ...
    >>> design_analysis("sentiment", attribute_words=[4, 4])
    Traceback (most recent call last):
    ...
    ValueError: attribute_words lists ['4'] more than once; give each size once
    """
    from .bayes.fit import BiasFit

    n_studies = check_int("n_studies", n_studies, minimum=2,
                          why="a Monte Carlo se needs at least 2 studies per design")
    block = check_int("block", block, minimum=1)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = _check_rope(rope)
    level = check_choice("level", level, LEVELS)
    base = _base_settings(settings, level)
    sizes: dict[str, Any] = {"protected_words": protected_words,
                             "attribute_words": attribute_words,
                             "neutral_words": neutral_words, "human_words": human_words}
    if isinstance(source, BiasFit):
        if embeddings is not None:
            raise ValueError("embeddings= is for populations of real words; a fitted pilot "
                             "study's new studies are drawn from its posterior, which needs "
                             "no embeddings")
        drawn: _Source = _fitted_source(source, **sizes)
    else:
        drawn = _population_source(source, **sizes)
    seed = check_seed(random_seed)
    if drawn.populations is not None:
        drawn = drawn.with_embeddings("glove-6b-50d" if embeddings is None else embeddings)
    start = time.perf_counter()
    jobs = _study_jobs(drawn, n_studies=n_studies, seed=seed, base=base, level=level)
    results = _fit_in_blocks(jobs, total=len(drawn.designs) * n_studies, block=block,
                             ci_prob=ci_prob, rope=rope, progress=progress)
    fit_record = base.to_dict()
    fit_record.pop("random_seed")
    return DesignAnalysis(
        results=pd.DataFrame(results, columns=list(RESULT_COLUMNS)),
        designs=tuple(drawn.designs),
        settings={**drawn.record, "embedding": drawn.embedding, "level": level,
                  "n_studies": n_studies, "ci_prob": ci_prob, "ci_kind": "hdi", "rope": rope,
                  "random_seed": seed, "fit": fit_record},
        seconds=time.perf_counter() - start)


@dataclass(frozen=True)
class _Source:
    """Where the studies of a design analysis come from, resolved and checked.

    A fitted pilot study (``pilot``) or populations of real words (``populations``, with
    the embeddings ``kv`` their tables are computed on and the population answers
    ``truths``: design text → contrast → answer).
    """

    designs: list[PopulationDesign]
    record: dict[str, Any]
    embedding: str
    pilot: _Pilot | None = None
    populations: WordPopulations | None = None
    kv: Any = None
    truths: dict[str, dict[str, float]] = field(default_factory=dict)

    def with_embeddings(self, embeddings: KeyedVectors | str) -> _Source:
        """Return the populations source with its embeddings and population answers."""
        from .calibration import population_answers
        from .embeddings import load_named_embeddings

        assert self.populations is not None
        kv, embedding = load_named_embeddings(embeddings)
        truths = {}
        for design in self.designs:
            answers = population_answers(self.populations, kv, design=design)
            truths[design.as_text()] = {
                r.group: float(r.truth) for r in answers.itertuples() if r.estimand == "contrast"}
        return dataclasses.replace(self, kv=kv, embedding=embedding, truths=truths)


def _designs(protected: list[Any], attributes: list[Any], neutral: int, human: int
             ) -> list[PopulationDesign]:
    """Return every combination of the protected and attribute sizes, as designs."""
    return [PopulationDesign(protected=p, attributes=a, neutral=neutral, human=human)
            for p, a in itertools.product(protected, attributes)]


def _fitted_source(fit: BiasFit, *, protected_words: Any, attribute_words: Any,
                   neutral_words: int | None, human_words: int | None) -> _Source:
    """Check the sizes against a fitted pilot study; return its designs."""
    pilot = _pilot(fit)
    protected_sizes = _sizes("protected_words", PILOT if protected_words is None
                             else protected_words, pilot=pilot.protected)
    attribute_sizes = _sizes("attribute_words", attribute_words, pilot=pilot.attributes)
    neutral = _controls("neutral_words", neutral_words, pilot.neutral)
    human = _controls("human_words", human_words, pilot.human)
    for name, n, connection in (("neutral_words", neutral, "none"),
                                ("human_words", human, "human")):
        if n and connection not in pilot.draws["bar"]:
            raise ValueError(f"{name}={n}: the pilot study has no {connection!r} rows, so "
                             f"its posterior says nothing about such words; pass "
                             f"{name}=0")
    designs = _designs(protected_sizes, attribute_sizes, neutral, human)
    for design in designs:
        _check_protected_total(design, (sum(design.protected.values())
                                        if isinstance(design.protected, Mapping)
                                        else design.protected * len(pilot.protected)))
    return _Source(designs=designs, pilot=pilot, embedding=pilot.description["embedding"],
                   record={"source": "posterior predictive", "pilot": pilot.description})


def _population_source(source: Any, *, protected_words: Any, attribute_words: Any,
                       neutral_words: int | None, human_words: int | None) -> _Source:
    """Check the sizes against populations of words; return their designs."""
    if not isinstance(source, WordPopulations | str) and not hasattr(source, "__fspath__"):
        raise ValueError(f"source must be a fitted pilot study (BiasFit) or populations "
                         f"of words (WordPopulations, a shipped set's name or a folder), "
                         f"got {type(source).__name__}")
    populations = load_populations(source)
    protected_sizes = _sizes("protected_words", DEFAULT_DESIGN.protected
                             if protected_words is None else protected_words, pilot=None)
    attribute_sizes = _sizes("attribute_words", attribute_words, pilot=None)
    neutral = _controls("neutral_words", neutral_words, DEFAULT_DESIGN.neutral)
    human = _controls("human_words", human_words, DEFAULT_DESIGN.human)
    designs = _designs(protected_sizes, attribute_sizes, neutral, human)
    for design in designs:  # a size larger than a population, before any work
        _check_protected_total(design, sum(design.counts(populations)[0].values()))
    return _Source(designs=designs, populations=populations, embedding="",
                   record={"source": "populations", "populations": populations.name})


def _study_jobs(drawn: _Source, *, n_studies: int, seed: int, base: FitSettings, level: str
                ) -> Iterator[tuple[dict[str, Any], Any]]:
    """Yield (row fields, fit job) of every study, design by design, drawn when needed."""
    from .bayes import FitJob, derived_seed

    for design in drawn.designs:
        text = design.as_text()
        info = {"design": text, "protected_words": _per_class(design.protected),
                "attribute_words": _per_class(design.attributes),
                "neutral_words": design.neutral, "human_words": design.human}
        rows = None if drawn.pilot is None else _pilot_design_table(drawn.pilot, design)
        for i in range(n_studies):
            if drawn.pilot is not None:
                table, truth = _posterior_predictive_table(drawn.pilot, rows, seed=seed,
                                                           design=text, study=i)
            else:
                table, truth = _population_table(drawn, design, seed=seed, study=i)
            job = FitJob(table, FitSettings.build(base, random_seed=derived_seed(
                seed, text, str(i), level)), label=f"{text} study {i}")
            yield {**info, "study": i, "truth": truth}, job


def _pilot_design_table(pilot: _Pilot, design: PopulationDesign) -> pd.DataFrame:
    """Return the rows of a design with the pilot study's classes and associations."""
    return design_table(
        design.protected if isinstance(design.protected, Mapping)
        else dict.fromkeys(pilot.protected, design.protected),
        design.attributes if isinstance(design.attributes, Mapping)
        else dict.fromkeys(pilot.attributes, design.attributes),
        pilot.associations, neutral=design.neutral, human=design.human)


def _posterior_predictive_table(pilot: _Pilot, rows: Any, *, seed: int, design: str,
                                study: int) -> tuple[pd.DataFrame, dict[str, float]]:
    """Draw study ``study``'s table from the pilot's posterior predictive; with its truth.

    The posterior draw depends on (seed, study) only, so every design uses the same draws.
    """
    from .bayes import derived_seed
    from .simulate_words import simulate_word_table

    k = int(np.random.default_rng([seed, study]).integers(pilot.n_draws))
    parameters = pilot.parameters(k)
    table = simulate_word_table(
        rows, parameters, random_seed=derived_seed(seed, "table", design, str(study)))
    truth = {f"{a} - {b}": parameters.bar[a] - parameters.bar[b]
             for a in parameters.bar for b in parameters.bar}
    return table, truth


def _population_table(drawn: _Source, design: PopulationDesign, *, seed: int, study: int
                      ) -> tuple[pd.DataFrame, dict[str, float]]:
    """Draw study ``study`` of ``design`` from the populations; its cosine table, truth."""
    from .bayes import derived_seed
    from .tables import cosine_table

    assert drawn.populations is not None
    text = design.as_text()
    words = drawn.populations.draw_study(
        design, rng=np.random.default_rng(derived_seed(seed, "study", text, str(study))),
        name=f"{drawn.populations.name} {text} study {study}")
    table = cosine_table(drawn.kv, words, missing="raise", embedding_name=drawn.embedding)
    return table, drawn.truths[text]


def _fit_in_blocks(jobs: Iterator[tuple[dict[str, Any], Any]], *, total: int, block: int,
                   ci_prob: float, rope: float, progress: bool) -> list[dict[str, Any]]:
    """Fit the studies ``block`` at a time; return one result row per study × contrast.

    Only the rows of a block are kept, not its fits, which bounds the memory of a long
    analysis.
    """
    from tqdm import tqdm

    from ._progress import progress_wanted
    from .bayes import fit_many

    results: list[dict[str, Any]] = []
    bar = tqdm(total=total, desc="studies", unit="study",
               disable=not progress_wanted(progress))
    try:
        while chunk := list(itertools.islice(jobs, block)):
            fits = fit_many([job for _, job in chunk], progress=False, warn=False)
            for (info, _), fit in zip(chunk, fits, strict=True):
                rows, problems = _fit_rows(fit, ci_prob=ci_prob, rope=rope)
                truth = info["truth"]
                for row in rows:
                    results.append({**info, **row, "truth": truth.get(row["contrast"],
                                                                      math.nan),
                                    "problems": problems})
            bar.update(len(chunk))
            del fits, chunk
    finally:
        bar.close()
    return results


# =========================================================================== plot
def plot_design_analysis(
    result: DesignAnalysis | pd.DataFrame,
    *,
    contrasts: Sequence[str] | None = None,
    target: float | None = 0.8,
    ax: Sequence[Axes] | None = None,
    title: str | None = None,
) -> Figure:
    """Plot the probability of a credible difference and the HDI width against list size.

    Two panels: the probability of a credible difference per contrast, with ±2 Monte
    Carlo se bars (the ``target`` dashed), and the expected HDI width with ±2 se.

    The x axis is attribute words per class when the designs vary it, else protected
    words per class; when both vary, each protected size is a line style.

    Parameters
    ----------
    result
        A :class:`DesignAnalysis` or its :meth:`~DesignAnalysis.summary` (e.g. read back
        from a CSV).
    contrasts
        The contrasts drawn (default every one in the result).
    target
        A probability to draw as a dashed line (default 0.8; ``None`` for none).
    ax
        Two matplotlib Axes to draw on (default a new figure).
    title
        Figure title.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the two panels.

    Raises
    ------
    ValueError
        A result that is neither a :class:`DesignAnalysis` nor its summary (or a summary
        without the columns drawn), a contrast not in the result, a ``target`` outside
        (0, 1), or ``ax`` that is not two Axes.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import pandas as pd
    >>> summary = pd.DataFrame({
    ...     "protected_words": 5.0, "attribute_words": [4.0, 8.0],
    ...     "contrast": "associated - none", "p_credible": [0.4, 0.7],
    ...     "p_se": [0.05, 0.05], "width_mean": [0.06, 0.04], "width_se": [0.002, 0.001]})
    >>> fig = plot_design_analysis(summary)
    >>> fig.axes[0].get_xlabel(), fig.axes[1].get_ylabel()
    ('attribute words per class', 'expected HDI width')
    >>> plt.close(fig)
    >>> plot_design_analysis(summary, contrasts=["associated - different"])
    Traceback (most recent call last):
    ...
    ValueError: contrast(s) ['associated - different'] are not in the result; it has
    ['associated - none']
    """
    import matplotlib.pyplot as plt

    summary = _summary_to_plot(result)
    present = list(dict.fromkeys(summary["contrast"]))
    if contrasts is None:
        contrasts = present
    elif isinstance(contrasts, str):
        contrasts = [contrasts]
    unknown = [c for c in contrasts if c not in present]
    if unknown:
        raise ValueError(f"contrast(s) {unknown} are not in the result; it has {present}")
    if target is not None:
        target = check_probability("target", target)
    if ax is None:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    else:
        axes = list(ax)
        if len(axes) != 2:
            raise ValueError(f"ax must be two matplotlib Axes, got {len(axes)}")
        fig = axes[0].figure
    x_name = ("attribute_words" if summary["attribute_words"].nunique() > 1
              or summary["protected_words"].nunique() == 1 else "protected_words")
    _draw_design_lines(axes, summary, contrasts, x_name)
    words = ("attribute words per class" if x_name == "attribute_words"
             else "protected words per class")
    for axis in axes:
        axis.set_xscale("log", base=2)
        ticks = sorted(set(summary[x_name]))
        axis.set_xticks(ticks, [f"{t:g}" for t in ticks])
        axis.minorticks_off()
        axis.set_xlabel(words)
    if target is not None:
        axes[0].axhline(target, color="0.3", linestyle="--", linewidth=1)
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("P(credible difference)\n(HDI outside the ROPE)")
    axes[1].set_ylabel("expected HDI width")
    axes[1].set_ylim(bottom=0)
    axes[0].legend(frameon=False, fontsize="small")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _summary_to_plot(result: DesignAnalysis | pd.DataFrame) -> pd.DataFrame:
    """Return the summary :func:`plot_design_analysis` draws (checked)."""
    if isinstance(result, DesignAnalysis):
        return result.summary()
    if isinstance(result, pd.DataFrame):
        check_columns(result, ("protected_words", "attribute_words", "contrast", "p_credible",
                               "p_se", "width_mean", "width_se"),
                      name="summary", hint="pass a DesignAnalysis or its summary()")
        return result
    raise ValueError(f"plot_design_analysis() takes a DesignAnalysis or its summary(), "
                     f"got {type(result).__name__}")


def _draw_design_lines(axes: Sequence[Axes], summary: pd.DataFrame, contrasts: Sequence[str],
                       x_name: str) -> None:
    """Draw one line per contrast (colour) and size of the other role (line style).

    On the first panel the probability with ±2 se bars kept inside [0, 1], on the second
    the expected width with ±2 se.
    """
    import matplotlib.pyplot as plt

    other = "protected_words" if x_name == "attribute_words" else "attribute_words"
    styles = ["-", "--", ":", "-."]
    others = sorted(set(summary[other]))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ci, contrast in enumerate(contrasts):
        for si, value in enumerate(others):
            sub = summary[(summary["contrast"] == contrast) & (summary[other] == value)]
            sub = sub.sort_values(x_name)
            label = (contrast if len(others) == 1
                     else f"{contrast}, {other.split('_')[0]} {value:g}")
            p = sub["p_credible"].to_numpy(float)
            p_bar = 2 * sub["p_se"].fillna(0).to_numpy(float)
            panels = ((axes[0], p, [np.minimum(p_bar, p), np.minimum(p_bar, 1 - p)]),
                      (axes[1], sub["width_mean"].to_numpy(float),
                       2 * sub["width_se"].fillna(0).to_numpy(float)))
            for axis, y, yerr in panels:
                axis.errorbar(sub[x_name], y, yerr=yerr, fmt="o",
                              linestyle=styles[si % len(styles)], capsize=3,
                              color=colours[ci % len(colours)], label=label)
