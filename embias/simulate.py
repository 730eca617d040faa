"""Pre-averaging simulations: how much WEAT can pure noise produce?

Dobrzeniecka & Urbaniak ("Taking uncertainty seriously", slides "The problem with
pre-averaging") draw every raw cosine similarity of a WEAT design from a normal
distribution and show that the WEAT effect size of such pure-noise data is often
"large". This module redoes those simulations, vectorised, in two versions:

``numerator="mean"`` (default, the WEAT of Caliskan et al. 2017)
    (mean_X s − mean_Y s) / sd_{X∪Y}(s), computed with
    :func:`embias.classic.weat_effect_size`.
``numerator="first-word"`` (the published figures)
    (s(x₁) − s(y₁)) / sd_{X∪Y}(s). The authors' R code wrote the numerator as
    ``mean(s1, s2, …, s8) - mean(s9, …, s16)``; R's ``mean()`` averages only its first
    argument (the rest go to ``...`` and are ignored), so the published numerator was
    s(t₁) − s(t₉): one word per group. The denominator (the sd of all 16 s values) was
    right. This variant reproduces the slides' figures exactly — null 95% range
    (−2.76, 2.70) and 21.4% of |WEAT| ≥ 1.81 — whereas the correct WEAT's null range
    is about (−0.96, 0.96) and it never reaches 1.81 with 8 words per group.

What survives the correction, and is shown here:

* Under the null (all similarities i.i.d. normal) the s values are i.i.d. normal and
  WEAT is scale-free, so its chance distribution depends only on the number of
  protected words per group — not on the raw sd, not on the attribute-list length.
  It is an exact monotone transform of Student's t with 2n − 2 degrees of freedom
  (:func:`exact_weat_distribution`): with two words per group |WEAT| ≥ 1.5 happens
  13% of the time by chance.
* WEAT is bounded: |WEAT| ≤ √(2(2n − 1)/n) with the sample sd (√2 for one word per
  group, √3 ≈ 1.73 for two, 1.94 for eight), so "1.81, the largest effect Caliskan et
  al. report" is close to the ceiling, and a tiny cosine difference that is consistent
  across words already gives a WEAT near that ceiling (association 0.1 → WEAT ≈ 1.8).
  WEAT measures separation relative to the spread of the pre-averaged s values, not
  the size of the difference in cosine similarity.
* Pre-averaging hides the raw variation: the sd of the per-(word, attribute set) mean
  similarities is the raw sd divided by √(attribute-list length).

:func:`simulate_weat_bootstrap_coverage` checks the other side: how often WEAT's
item-bootstrap interval (:func:`embias.classic.weat_item_bootstrap`) contains the
population effect size when target and attribute words are drawn from populations of
word vectors (:func:`vector_model_effect_size` gives that population value), against the
naive interval that holds the attribute lists fixed.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ._validation import (
    check_choice,
    check_int,
    check_number,
    check_probability,
    check_seed,
    resolve_rng,
)
from .classic import association_scores, weat_effect_size
from .report import interval_table
from .settings import DEFAULT_CI_PROB
from .tables import TABLE_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = [
    "BOOTSTRAP_COVERAGE_DESIGNS",
    "CALISKAN_LARGEST_EFFECT",
    "NUMERATORS",
    "PUBLISHED_FIGURES",
    "SeededEstimate",
    "WeatDistribution",
    "WeatSimulation",
    "WeatSimulationGrid",
    "exact_weat_distribution",
    "largest_weat_index",
    "max_abs_weat",
    "simulate_weat",
    "simulate_weat_bootstrap_coverage",
    "simulate_weat_grid",
    "simulated_cosine_table",
    "summarize_simulations",
    "vector_model_effect_size",
]

Numerator = Literal["mean", "first-word"]
#: The two WEAT numerators: the correct one and the one behind the published figures.
NUMERATORS: tuple[str, ...] = ("mean", "first-word")
#: The largest WEAT effect size Caliskan et al. (2017) report (test 6, GloVe 840B).
CALISKAN_LARGEST_EFFECT = 1.81
#: The figures on the slides (10,000 simulations, 8 + 8 protected words, 8 + 8 attributes,
#: sd .08), computed with the first-word numerator: association → (95% range lower,
#: upper, share of |WEAT| ≥ 1.81).
PUBLISHED_FIGURES: dict[float, tuple[float, float, float]] = {
    0.0: (-2.763, 2.698, 0.2138),
    0.1: (0.851, 2.764, 0.513),
    0.4: (1.679, 2.185, 0.829),
}
#: Interval kind of the simulated ranges: central (equal-tailed) quantile interval of the
#: simulated distribution of the effect size.
SIMULATION_CI_KIND = "simulation"
#: Raw similarities drawn per block; the blocks are seeded by (seed, block number), so any
#: simulated data set can be regenerated from the seed alone.
_BLOCK_VALUES = 1 << 22
#: Gauss–Legendre nodes of the exact distribution's one-dimensional integral (λ > 0).
_QUADRATURE_NODES = 1024


# --------------------------------------------------------------------------- validation
def _check_design(n_protected_per_group: Any, n_attributes: Any, sd: Any, association: Any,
                  numerator: Any, ddof: Any) -> tuple[int, int, float, float]:
    n = check_int("n_protected_per_group", n_protected_per_group, minimum=1)
    m = check_int("n_attributes", n_attributes, minimum=1)
    sd = check_number("sd", sd, low=0.0, low_open=True)
    association = check_number("association", association)
    check_choice("numerator", numerator, NUMERATORS)
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    return n, m, sd, association


def _check_summary_options(threshold: Any, ci_prob: Any) -> tuple[float, float]:
    return (check_number("threshold", threshold, low=0.0, low_open=True),
            check_probability("ci_prob", ci_prob))


def max_abs_weat(n_protected_per_group: int, *, numerator: Numerator = "mean",
                 ddof: int = 1) -> float:
    """The largest |WEAT| any data can give: ‖v‖·√(2n − ddof), with v the numerator's
    contrast over the 2n s values (‖v‖ = √(2/n) for ``"mean"``, √2 for ``"first-word"``).

    With the sample sd (``ddof=1``) and the correct numerator: √2 for one word per group,
    √3 ≈ 1.732 for two, ≈ 1.936 for eight, → 2 as n grows.
    """
    n = check_int("n_protected_per_group", n_protected_per_group, minimum=1)
    if numerator not in NUMERATORS:
        raise ValueError(f"numerator={numerator!r} is not one of {list(NUMERATORS)}")
    if ddof not in (0, 1) or isinstance(ddof, bool):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    norm = math.sqrt(2 / n) if numerator == "mean" else math.sqrt(2)
    return norm * math.sqrt(2 * n - ddof)


# --------------------------------------------------------------------------- simulation
def _block_size(n: int, m: int) -> int:
    return max(1, _BLOCK_VALUES // (4 * n * m))


def _draw_block(seed: int, block: int, k: int, n: int, m: int, sd: float,
                association: float) -> np.ndarray:
    """Raw similarities of ``k`` simulated data sets, shape (k, group, word, set, attr):
    group 0 = X, 1 = Y; set 0 = A (X's own), 1 = B (Y's own)."""
    rng = np.random.default_rng([seed, block])
    sim = rng.standard_normal((k, 2, n, 2, m))
    sim *= sd
    if association:
        sim[:, 0, :, 0, :] += association
        sim[:, 1, :, 1, :] += association
    return sim


def _scores(sim: np.ndarray, numerator: str, ddof: int) -> np.ndarray:
    """WEAT effect sizes of raw similarity blocks (k, 2, n, 2, m) → (k,)."""
    s = association_scores(sim[..., 0, :], sim[..., 1, :])  # (k, 2, n)
    if numerator == "mean":
        return np.asarray(weat_effect_size(s[:, 0], s[:, 1], ddof=ddof), dtype=float)
    # The published variant: R's mean(s1, s2, …) is s1, so the numerator is one word per
    # group; the denominator is the sd of all s values, as in WEAT.
    sd = s.reshape(s.shape[0], -1).std(axis=-1, ddof=ddof)
    return (s[:, 0, 0] - s[:, 1, 0]) / sd


def _quantile_se(sorted_values: np.ndarray, q: float) -> float:
    """Monte Carlo standard error of the q-quantile from order statistics: half the
    distance between the order statistics at n·q ± √(n·q·(1 − q)) (±1 binomial sd of
    the count below the quantile); distribution-free."""
    n = sorted_values.size
    if n < 2:
        return math.nan
    half = math.sqrt(n * q * (1 - q))
    lo = int(np.clip(math.floor(n * q - half), 0, n - 1))
    hi = int(np.clip(math.ceil(n * q + half), 0, n - 1))
    return float(sorted_values[hi] - sorted_values[lo]) / 2


@dataclass(frozen=True)
class WeatSimulation:
    """Result of :func:`simulate_weat`: WEAT effect sizes of simulated raw data sets.

    Attributes
    ----------
    scores
        One WEAT effect size per simulated data set.
    raw_sd
        Per data set: the sd (ddof=1) of all 4·n·m raw similarities.
    means_sd
        Per data set: the sd (ddof=1) of the 4·n pre-averaged means, one per
        (protected word, attribute set) — what the raw variation looks like after
        pre-averaging (≈ raw sd / √n_attributes under the null).
    n_protected_per_group, n_attributes, sd, association, numerator, ddof
        The design (see :func:`simulate_weat`).
    threshold
        |WEAT| threshold of :attr:`share_above`.
    ci_prob
        Probability of the central range :attr:`interval`.
    seed
        Seed of the raw draws: :meth:`raw_similarities` regenerates any data set.
    label
        Name of the simulation in tables and plots.
    """

    scores: np.ndarray = field(repr=False)
    raw_sd: np.ndarray = field(repr=False)
    means_sd: np.ndarray = field(repr=False)
    n_protected_per_group: int
    n_attributes: int
    sd: float
    association: float
    numerator: str
    ddof: int
    threshold: float
    ci_prob: float
    seed: int
    label: str

    @property
    def n_sims(self) -> int:
        """Number of simulated data sets."""
        return int(self.scores.size)

    @property
    def max_abs_weat(self) -> float:
        """The largest |WEAT| possible in this design (see :func:`max_abs_weat`)."""
        return max_abs_weat(self.n_protected_per_group, numerator=self.numerator,  # type: ignore[arg-type]
                            ddof=self.ddof)

    @property
    def interval(self) -> tuple[float, float]:
        """Central ``ci_prob`` range of the simulated effect sizes (numpy's default
        linear quantiles, R's type 7)."""
        a = (1 - self.ci_prob) / 2
        lo, hi = np.quantile(self.scores, [a, 1 - a])
        return float(lo), float(hi)

    @property
    def interval_se(self) -> tuple[float, float]:
        """Monte Carlo standard errors of the two ends of :attr:`interval`
        (order-statistic estimate, see ``_quantile_se``)."""
        a = (1 - self.ci_prob) / 2
        ordered = np.sort(self.scores)
        return _quantile_se(ordered, a), _quantile_se(ordered, 1 - a)

    @property
    def share_above(self) -> float:
        """Share of simulated data sets with |WEAT| ≥ :attr:`threshold`."""
        return float(np.mean(np.abs(self.scores) >= self.threshold))

    @property
    def share_above_se(self) -> float:
        """Binomial Monte Carlo standard error √(p(1 − p)/n_sims) of :attr:`share_above`."""
        p = self.share_above
        return math.sqrt(p * (1 - p) / self.n_sims)

    def raw_similarities(self, sim_index: int) -> np.ndarray:
        """Regenerate the raw similarities of one simulated data set.

        Parameters
        ----------
        sim_index
            Which data set, ``0 ≤ sim_index < n_sims``.

        Returns
        -------
        numpy.ndarray
            Shape (2, n, 2, m): [group (X, Y), protected word, attribute set (A, B),
            attribute word]. ``scores[sim_index]`` is the WEAT of exactly these numbers.
        """
        k = check_int("sim_index", sim_index, minimum=0)
        if k >= self.n_sims:
            raise ValueError(f"sim_index must be < n_sims={self.n_sims}, got {sim_index!r}")
        n, m = self.n_protected_per_group, self.n_attributes
        size = _block_size(n, m)
        block, offset = divmod(k, size)
        count = min(size, self.n_sims - block * size)
        sim = _draw_block(self.seed, block, count, n, m, self.sd, self.association)
        return sim[offset]

    def exact(self) -> WeatDistribution:
        """The exact distribution of the effect size for this design (needs at least
        two words per group; see :func:`exact_weat_distribution`)."""
        return exact_weat_distribution(
            n_protected_per_group=self.n_protected_per_group, n_attributes=self.n_attributes,
            sd=self.sd, association=self.association,
            numerator=self.numerator, ddof=self.ddof,  # type: ignore[arg-type]
        )

    def to_interval_table(self, *, exact: bool = False) -> pd.DataFrame:
        """One-row interval table; see :func:`summarize_simulations`."""
        return summarize_simulations([self], exact=exact)

    #: :meth:`to_interval_table` under its usual name.
    summary = to_interval_table


def simulate_weat(
    *,
    n_protected_per_group: int = 8,
    n_attributes: int = 8,
    sd: float = 0.08,
    association: float = 0.0,
    n_sims: int = 10_000,
    numerator: Numerator = "mean",
    ddof: int = 1,
    threshold: float = CALISKAN_LARGEST_EFFECT,
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
    label: str | None = None,
) -> WeatSimulation:
    """Simulate raw cosine similarities of a WEAT design and their WEAT effect sizes.

    Each simulated data set has two groups of protected words, X and Y
    (``n_protected_per_group`` each), and two attribute sets, A (X's own) and B (Y's
    own), of ``n_attributes`` words each. Every (protected word, attribute) similarity is
    drawn independently from Normal(μ, ``sd``) with μ = ``association`` for X×A and Y×B
    and μ = 0 otherwise (no clipping to [−1, 1], as in the authors' ``rnorm``). The
    WEAT effect size is computed from the raw numbers with
    :func:`embias.classic.association_scores` and, for ``numerator="mean"``,
    :func:`embias.classic.weat_effect_size`.

    Parameters
    ----------
    n_protected_per_group
        Protected words per group (n ≥ 1; with n = 1 WEAT is always ±√2).
    n_attributes
        Words per attribute set (m ≥ 1).
    sd
        Sd of the raw similarities (> 0).
    association
        Mean similarity of each group's words with its own attribute set.
    n_sims
        Number of simulated data sets (≥ 1). 10,000 of the 16-word design take well
        under a second.
    numerator
        ``"mean"`` (default): the WEAT of Caliskan et al., mean_X s − mean_Y s.
        ``"first-word"``: s(x₁) − s(y₁), the numerator the authors' R code actually
        computed — ``mean(s1, s2, …, s8) - mean(s9, …, s16)`` is s1 − s9 in R, because
        ``mean()`` averages only its first argument. Use it to reproduce the published
        figures: with ``ci_prob=0.95`` the null 95% range is ≈ (−2.76, 2.70) with 21.4% of
        |WEAT| ≥ 1.81; association .1 → (0.85, 2.76), 51%; .4 → (1.68, 2.19), 83%. The
        correct WEAT's null range is ≈ (−0.96, 0.96) and |WEAT| ≥ 1.81 never happens.
        Both numerators see the same raw data for the same ``random_seed``.
    ddof
        Delta degrees of freedom of the sd in the denominator (1: Caliskan's sample sd;
        the authors' R ``sd()`` is also ddof=1).
    threshold
        |WEAT| threshold for :attr:`WeatSimulation.share_above` (default 1.81, the
        largest effect Caliskan et al. report).
    ci_prob
        Probability of the central range :attr:`WeatSimulation.interval` (default
        :data:`embias.settings.DEFAULT_CI_PROB`, 0.89; the published figures are 95%
        ranges: pass ``ci_prob=0.95`` to reproduce them).
    random_seed
        Seed or Generator; ``None`` draws a fresh seed. The seed used is stored in the
        result, and the first k data sets do not depend on ``n_sims``.
    label
        Name in tables and plots (default: built from the design).

    Returns
    -------
    WeatSimulation

    Raises
    ------
    ValueError
        ``sd`` ≤ 0, ``n_protected_per_group`` < 1, ``n_attributes`` < 1, ``n_sims`` < 1,
        an unknown ``numerator``, ``ddof`` not 0/1, ``threshold`` ≤ 0 or ``ci_prob``
        outside (0, 1); the message names the value.
    """
    n, m, sd, association = _check_design(n_protected_per_group, n_attributes, sd,
                                          association, numerator, ddof)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    threshold, ci_prob = _check_summary_options(threshold, ci_prob)
    rng, seed = resolve_rng(random_seed)
    if seed is None:  # a Generator was passed: draw the seed from it, and record it
        seed = int(rng.integers(2**63))
    size = _block_size(n, m)
    scores = np.empty(n_sims)
    raw_sd = np.empty(n_sims)
    means_sd = np.empty(n_sims)
    for block, start in enumerate(range(0, n_sims, size)):
        k = min(size, n_sims - start)
        sim = _draw_block(seed, block, k, n, m, sd, association)
        scores[start:start + k] = _scores(sim, numerator, ddof)
        raw_sd[start:start + k] = sim.reshape(k, -1).std(axis=-1, ddof=1)
        means_sd[start:start + k] = sim.mean(axis=-1).reshape(k, -1).std(axis=-1, ddof=1)
    if label is None:
        label = f"n={n} m={m} sd={sd:g} assoc={association:g} {numerator}"
    for array in (scores, raw_sd, means_sd):
        array.flags.writeable = False  # the result is immutable, arrays included
    return WeatSimulation(
        scores=scores, raw_sd=raw_sd, means_sd=means_sd, n_protected_per_group=n,
        n_attributes=m, sd=sd, association=association, numerator=numerator, ddof=ddof,
        threshold=threshold, ci_prob=ci_prob, seed=seed, label=str(label),
    )


def _as_tuple(value: Any) -> tuple:
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray):
        return (value,)
    return tuple(value)


class WeatSimulationGrid(tuple):
    """Result of :func:`simulate_weat_grid`: a tuple of :class:`WeatSimulation`, one per
    cell, with the seed of the whole grid.

    Attributes
    ----------
    random_seed
        The seed the grid was drawn from (None when a Generator was given): passing it
        back to :func:`simulate_weat_grid` with the same design repeats every cell. Each
        cell's own seed is its :attr:`WeatSimulation.seed`.
    """

    random_seed: int | None

    def __new__(cls, simulations: Sequence[WeatSimulation] = (),
                random_seed: int | None = None) -> WeatSimulationGrid:
        grid = super().__new__(cls, simulations)
        grid.random_seed = random_seed
        return grid

    def __repr__(self) -> str:
        cells = ", ".join(s.label for s in self)
        return (f"WeatSimulationGrid(random_seed={self.random_seed!r}, "
                f"{len(self)} simulations: {cells})")


def simulate_weat_grid(
    *,
    n_protected_per_group: int | Sequence[int] = (1, 2, 4, 8, 16, 25),
    n_attributes: int | Sequence[int] = 8,
    sd: float = 0.08,
    association: float | Sequence[float] = 0.0,
    numerator: Numerator | Sequence[Numerator] = "mean",
    n_sims: int = 10_000,
    ddof: int = 1,
    threshold: float = CALISKAN_LARGEST_EFFECT,
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
) -> WeatSimulationGrid:
    """:func:`simulate_weat` over every combination of the given design values.

    Parameters
    ----------
    n_protected_per_group, n_attributes, association, numerator
        A value or a sequence of values each; the grid is their product (in that order,
        the last varying fastest).
    sd, n_sims, ddof, threshold, ci_prob
        As for :func:`simulate_weat`, shared by all cells.
    random_seed
        Seeds every cell (each gets its own seed drawn from it, recorded as its
        :attr:`WeatSimulation.seed`). Cells that differ only in ``numerator`` share their
        raw data. ``None`` (the default) draws a seed from the OS entropy; the seed used is
        the result's ``random_seed``, and passing it back repeats the grid exactly.

    Returns
    -------
    WeatSimulationGrid
        A tuple of :class:`WeatSimulation` (one per cell) with the grid's ``random_seed``.
        Summarise with :func:`summarize_simulations`, plot with
        :func:`embias.plot_weat_simulations`.
    """
    rng, grid_seed = resolve_rng(random_seed)
    designs = list(itertools.product(_as_tuple(n_protected_per_group),
                                     _as_tuple(n_attributes), _as_tuple(association)))
    seeds = rng.integers(2**63, size=len(designs))
    out = []
    for (n, m, a), seed in zip(designs, seeds, strict=True):
        for num in _as_tuple(numerator):
            out.append(simulate_weat(
                n_protected_per_group=n, n_attributes=m, sd=sd, association=a,
                n_sims=n_sims, numerator=num, ddof=ddof, threshold=threshold,
                ci_prob=ci_prob, random_seed=int(seed),
            ))
    return WeatSimulationGrid(out, random_seed=grid_seed)


def summarize_simulations(
    simulations: Sequence[WeatSimulation],
    *,
    exact: bool = True,
) -> pd.DataFrame:
    """Interval table of simulated WEAT distributions, one row per simulation.

    Parameters
    ----------
    simulations
        Results of :func:`simulate_weat` (they may differ in ``ci_prob`` only if the
        table holds one row; an interval table has one probability).
    exact
        Add the exact values for designs with at least two words per group
        (``exact_lower``, ``exact_upper``, ``exact_share_above``; NaN otherwise).

    Returns
    -------
    pandas.DataFrame
        Interval table (``estimand="weat_effect_size"``, ``group`` = label,
        ``estimate`` = median, ``lower``/``upper`` = the central ``ci_prob`` range,
        ``ci_kind="eti"``: a percentile interval of the simulated distribution), plus
        ``lower_se``/``upper_se`` (Monte Carlo se of the range ends), ``threshold``,
        ``share_above`` (share of |WEAT| ≥ threshold) and its binomial ``share_above_se``,
        ``max_abs_weat`` (the ceiling of |WEAT| in the design), ``raw_sd`` and
        ``means_sd`` (medians over data sets), the design columns, ``n_sims`` and
        ``random_seed`` (the simulation's :attr:`WeatSimulation.seed`: passing it to
        :func:`simulate_weat` with the same design repeats the row). For a
        :class:`WeatSimulationGrid`, ``attrs["random_seed"]`` is the grid's seed.
    """
    sims = list(simulations)
    if not sims:
        raise ValueError("summarize_simulations() needs at least one simulation, got none")
    probs = sorted({s.ci_prob for s in sims})
    if len(probs) > 1:
        raise ValueError(f"the simulations have different ci_prob values {probs}; "
                         "summarise them separately")
    rows = []
    for s in sims:
        lo, hi = s.interval
        lo_se, hi_se = s.interval_se
        row = {
            "estimand": "weat_effect_size",
            "group": s.label,
            "estimate": float(np.median(s.scores)),
            "lower": lo,
            "upper": hi,
            "lower_se": lo_se,
            "upper_se": hi_se,
            "threshold": s.threshold,
            "share_above": s.share_above,
            "share_above_se": s.share_above_se,
            "max_abs_weat": s.max_abs_weat,
            "raw_sd": float(np.median(s.raw_sd)),
            "means_sd": float(np.median(s.means_sd)),
            "n_protected_per_group": s.n_protected_per_group,
            "n_attributes": s.n_attributes,
            "sd": s.sd,
            "association": s.association,
            "numerator": s.numerator,
            "n_sims": s.n_sims,
            "random_seed": s.seed,
        }
        if exact:
            if s.n_protected_per_group >= 2:
                dist = s.exact()
                e_lo, e_hi = dist.interval(s.ci_prob)
                row |= {"exact_lower": e_lo, "exact_upper": e_hi,
                        "exact_share_above": dist.share_above(s.threshold)}
            else:
                row |= {"exact_lower": math.nan, "exact_upper": math.nan,
                        "exact_share_above": math.nan}
        rows.append(row)
    table = interval_table(rows, ci_prob=probs[0], ci_kind=SIMULATION_CI_KIND)
    if isinstance(simulations, WeatSimulationGrid):
        table.attrs["random_seed"] = simulations.random_seed
    return table


# --------------------------------------------------------------------------- exact law
@dataclass(frozen=True)
class WeatDistribution:
    """Exact sampling distribution of the WEAT effect size under :func:`simulate_weat`'s
    model; build it with :func:`exact_weat_distribution`.

    The 2n s values are i.i.d. normal around ±``association`` with sd τ = sd·√(2/m).
    Write the numerator as v·s (v: the contrast of ``numerator``), e = v/‖v‖, Z = e·s/τ
    and Q = ‖s_⊥‖²/τ², s_⊥ the part of the centred s orthogonal to e. Then Z ~ N(μ_Z, 1)
    and Q ~ χ'²(2n − 2, λ) are independent and

        WEAT = c·Z / √(Z² + Q),   c = ‖v‖·√(2n − ddof) (the bound),

    so P(WEAT ≤ w) = E_Q[Φ(w·√(Q/(c² − w²)) − μ_Z)]. For the ``"mean"`` numerator
    (any association) and for both numerators under the null, λ = 0 and WEAT is a
    monotone transform of a (non-central) Student t with 2n − 2 degrees of freedom:
    T = Z/√(Q/(2n − 2)), WEAT = c·T/√(2n − 2 + T²). Otherwise (``"first-word"`` with an
    association) the expectation is a one-dimensional integral over R = √Q, done by
    Gauss–Legendre quadrature over R's central 1 − 2·10⁻¹⁵ range.
    """

    n_protected_per_group: int
    n_attributes: int
    sd: float
    association: float
    numerator: str
    ddof: int

    @property
    def df(self) -> int:
        """Degrees of freedom 2n − 2 of Q."""
        return 2 * self.n_protected_per_group - 2

    @property
    def bound(self) -> float:
        """The ceiling c of |WEAT|."""
        return max_abs_weat(self.n_protected_per_group, numerator=self.numerator,  # type: ignore[arg-type]
                            ddof=self.ddof)

    @property
    def _tau(self) -> float:
        return self.sd * math.sqrt(2 / self.n_attributes)

    @property
    def noncentrality(self) -> float:
        """Mean μ_Z of Z (in units of τ)."""
        n, a = self.n_protected_per_group, self.association
        norm = math.sqrt(2 / n) if self.numerator == "mean" else math.sqrt(2)
        return 2 * a / (norm * self._tau)

    @property
    def residual_noncentrality(self) -> float:
        """Non-centrality λ of Q: 0 for ``"mean"``; (2n − 2)·a²/τ² for ``"first-word"``
        (the group difference carried by the words the numerator ignores)."""
        if self.numerator == "mean":
            return 0.0
        return self.df * (self.association / self._tau) ** 2

    @cached_property
    def _quadrature(self) -> tuple[np.ndarray, np.ndarray]:
        """Gauss–Legendre nodes r and weights × density of R = √Q (used when λ > 0),
        over R's central 1 − 2·10⁻¹⁵ range."""
        k, lam = self.df, self.residual_noncentrality
        r_lo = math.sqrt(float(stats.ncx2.ppf(1e-15, k, lam)))
        r_hi = math.sqrt(float(stats.ncx2.isf(1e-15, k, lam)))
        x, wts = np.polynomial.legendre.leggauss(_QUADRATURE_NODES)
        r = r_lo + (x + 1) * (r_hi - r_lo) / 2
        weights = wts * (r_hi - r_lo) / 2 * 2 * r * stats.ncx2.pdf(r * r, k, lam)
        return r, weights

    def _cdf_one(self, w: float) -> float:
        c = self.bound
        if w <= -c:
            return 0.0
        if w >= c:
            return 1.0
        k, mu = self.df, self.noncentrality
        slope = w / math.sqrt(c * c - w * w)
        if self.residual_noncentrality == 0.0:
            # WEAT ≤ w  ⟺  T ≤ slope·√k, T ~ t'(k, μ); the lower tail through the upper
            # tail of t'(k, −μ), where scipy's nct stays finite.
            x = slope * math.sqrt(k)
            return float(stats.nct.cdf(x, k, mu) if x >= 0 else stats.nct.sf(-x, k, -mu))
        r, weights = self._quadrature
        value = float(np.sum(weights * stats.norm.cdf(slope * r - mu)))
        return min(1.0, max(0.0, value))

    def cdf(self, w: float | np.ndarray) -> float | np.ndarray:
        """P(WEAT ≤ w)."""
        out = np.vectorize(self._cdf_one, otypes=[float])(np.asarray(w, dtype=float))
        return float(out) if out.ndim == 0 else out

    def _ppf_one(self, q: float) -> float:
        if not 0 < q < 1:
            raise ValueError(f"quantile probabilities must be in (0, 1), got {q!r}")
        c, k, mu = self.bound, self.df, self.noncentrality
        if self.residual_noncentrality == 0.0:
            t = float(stats.nct.ppf(q, k, mu))
            return c * t / math.sqrt(k + t * t)
        edge = c * (1 - 1e-12)
        return float(optimize.brentq(lambda w: self._cdf_one(w) - q, -edge, edge,
                                     xtol=1e-10, rtol=1e-12))

    def ppf(self, q: float | np.ndarray) -> float | np.ndarray:
        """Quantile function (inverse of :meth:`cdf`)."""
        out = np.vectorize(self._ppf_one, otypes=[float])(np.asarray(q, dtype=float))
        return float(out) if out.ndim == 0 else out

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Central ``ci_prob`` range."""
        a = (1 - ci_prob) / 2
        return float(self.ppf(a)), float(self.ppf(1 - a))

    def share_above(self, threshold: float = CALISKAN_LARGEST_EFFECT) -> float:
        """P(|WEAT| ≥ threshold)."""
        if threshold <= 0:
            raise ValueError(f"threshold must be positive, got {threshold!r}")
        if threshold >= self.bound:
            return 0.0
        return float(self._cdf_one(-threshold) + 1 - self._cdf_one(threshold))


def exact_weat_distribution(
    *,
    n_protected_per_group: int = 8,
    n_attributes: int = 8,
    sd: float = 0.08,
    association: float = 0.0,
    numerator: Numerator = "mean",
    ddof: int = 1,
) -> WeatDistribution:
    """The exact distribution of the WEAT effect size in :func:`simulate_weat`'s model.

    Under the null (``association=0``) it depends only on ``n_protected_per_group`` and
    the numerator — not on ``sd`` or ``n_attributes`` — because the s values are i.i.d.
    normal and WEAT is scale-free. Parameters as for :func:`simulate_weat`.

    Returns
    -------
    WeatDistribution
        With ``cdf``, ``ppf``, ``interval`` and ``share_above``.

    Raises
    ------
    ValueError
        Invalid design values, or fewer than 2 words per group: the distribution is
        built on the within-group sd of the s values (2n − 2 degrees of freedom). With one
        word per group WEAT is ±√2 whatever the data (Ethayarajh et al. 2019).
    """
    n, m, sd, association = _check_design(n_protected_per_group, n_attributes, sd,
                                          association, numerator, ddof)
    if n < 2:
        raise ValueError(
            f"the exact WEAT distribution needs at least 2 protected words per group (its "
            f"within-group sd has 2n − 2 degrees of freedom), got n_protected_per_group={n}; "
            "with one word per group WEAT is ±√2 whatever the data")
    return WeatDistribution(n_protected_per_group=n, n_attributes=m, sd=sd,
                            association=association, numerator=numerator, ddof=ddof)


# --------------------------------------------------------------------------- data sets
def largest_weat_index(simulation: WeatSimulation) -> int:
    """Index of the simulated data set with the largest |WEAT| (for a null simulation:
    the most convincing-looking pure-noise data set); pass it to
    :func:`simulated_cosine_table`."""
    return int(np.argmax(np.abs(simulation.scores)))


def simulated_cosine_table(simulation: WeatSimulation, *, sim_index: int) -> pd.DataFrame:
    """One simulated data set as a long-form cosine table (DESIGN §4).

    Protected words ``x1 … xn`` (``protected_class="X"``) and ``y1 … yn`` (``"Y"``) are
    compared with attributes ``a1 … am`` (set A, ``word_class="X"``: the class it is
    stereotypically associated with, as in the published tables) and ``b1 … bm`` (set B,
    ``word_class="Y"``). ``connection`` is ``"associated"`` when the attribute set is the
    group's own (X×A, Y×B) and ``"different"`` otherwise; ``cosine_distance`` = 1 −
    ``cosine_similarity``; ``embedding="simulated"``. Ready for
    ``embias.fit_bias_model``.

    Parameters
    ----------
    simulation
        Result of :func:`simulate_weat`.
    sim_index
        Which data set (e.g. ``largest_weat_index(simulation)``).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`embias.tables.TABLE_COLUMNS`, 4·n·m rows; ``attrs`` holds
        ``study``, ``sim_index``, ``weat`` (= ``simulation.scores[sim_index]``),
        ``numerator`` and the design.
    """
    raw = simulation.raw_similarities(sim_index)  # (2, n, 2, m)
    n, m = simulation.n_protected_per_group, simulation.n_attributes
    classes = np.array(["X", "Y"])
    g, i, a, j = (x.ravel() for x in np.indices(raw.shape))
    similarity = raw.ravel()
    table = pd.DataFrame({
        "protected_word": np.char.add(np.array(["x", "y"])[g], (i + 1).astype(str)),
        "protected_class": classes[g],
        "word_to_compare": np.char.add(np.array(["a", "b"])[a], (j + 1).astype(str)),
        "word_class": classes[a],
        "connection": np.where(g == a, "associated", "different"),
        "cosine_similarity": similarity,
        "cosine_distance": 1.0 - similarity,
        "embedding": "simulated",
    }, columns=list(TABLE_COLUMNS))
    for col in ("protected_word", "protected_class", "word_to_compare", "word_class",
                "connection", "embedding"):
        table[col] = table[col].astype(str)
    table.attrs = {
        "study": "simulated WEAT",
        "sim_index": int(sim_index),
        "weat": float(simulation.scores[sim_index]),
        "numerator": simulation.numerator,
        "design": {"n_protected_per_group": n, "n_attributes": m, "sd": simulation.sd,
                   "association": simulation.association, "seed": simulation.seed},
    }
    return table


# =========================================================================== item bootstrap
#: The designs (target words per group, attribute words per set) of
#: :func:`simulate_weat_bootstrap_coverage` by default: the religion pairs' size, Caliskan
#: et al.'s 8 + 8 tests, long target lists with short attribute lists, and 25 + 25.
BOOTSTRAP_COVERAGE_DESIGNS: tuple[tuple[int, int], ...] = ((5, 4), (8, 8), (25, 8), (25, 25))


def _check_vector_model(dim: Any, common: Any, association: Any, attribute_separation: Any,
                        target_separation: Any) -> tuple[int, float, float, float, float]:
    return (check_int("dim", dim, minimum=3),
            check_number("common", common),
            check_number("association", association),
            check_number("attribute_separation", attribute_separation, low=0.0,
                         low_open=True),
            check_number("target_separation", target_separation))


class SeededEstimate(tuple):
    """A Monte Carlo estimate and its standard error, ``(estimate, se)``, with the seed of
    the draws (:func:`vector_model_effect_size`); unpacks and compares as a pair.

    Attributes
    ----------
    random_seed
        The seed of the draws (None when a Generator was given): passing it back repeats
        the estimate exactly.
    """

    random_seed: int | None

    def __new__(cls, values: Sequence[float] = (), random_seed: int | None = None
                ) -> SeededEstimate:
        pair = super().__new__(cls, values)
        pair.random_seed = random_seed
        return pair

    def __repr__(self) -> str:
        return f"SeededEstimate({tuple(self)!r}, random_seed={self.random_seed!r})"


def vector_model_effect_size(
    *,
    dim: int = 50,
    common: float = 3.0,
    association: float = 0.75,
    target_separation: float = 3.0,
    n_draws: int = 4_000_000,
    random_seed: int | np.random.Generator | None = None,
) -> SeededEstimate:
    """The population WEAT effect size of the word-vector model of
    :func:`simulate_weat_bootstrap_coverage`: the value the WEAT effect size tends to when
    all four word lists grow (equal X and Y sizes).

    In the model every word is its class mean plus Normal(0, I) noise in ``dim``
    dimensions, then normalised; with e₀, e₁, e₂ the first three axes the class means are
    X: c·e₀ + a·e₁ + t·e₂, Y: c·e₀ − a·e₁ − t·e₂, A: c·e₀ + α·e₁, B: c·e₀ − α·e₁
    (c = ``common``, a = ``association``, t = ``target_separation``, α > 0 =
    ``attribute_separation``). Over infinitely many attribute words mean_A cos(w, a) −
    mean_B cos(w, b) = ŵ · (E â_A − E â_B), and E â_A − E â_B points along e₁ (A and B
    mirror each other), so the population s value is proportional to ŵ₁ whatever α is.
    X and Y mirror each other too, so the population effect size (mean_X − mean_Y over
    the sd of the 50/50 mixture) is 2·E_X[ŵ₁] / √E_X[ŵ₁²], with
    ŵ₁ = (a + z₁)/√((c + z₀)² + (a + z₁)² + (t + z₂)² + χ²_{dim−3}). The two moments are
    computed from ``n_draws`` draws of those four scalars, each used twice, with z₁ and
    with −z₁ (antithetic draws: with ``association=0`` the effect size is exactly 0).

    ``random_seed`` is a seed or Generator; ``None`` (the default) draws a seed from the OS
    entropy. The seed used is the result's ``random_seed``: passing it back repeats the
    estimate exactly.

    Returns
    -------
    SeededEstimate
        The pair (effect size, its Monte Carlo standard error from 20 batches), with the
        seed as ``random_seed``.
    """
    dim, common, association, _, target_separation = _check_vector_model(
        dim, common, association, 1.0, target_separation)
    n_draws = check_int("n_draws", n_draws, minimum=20_000)
    rng, seed = resolve_rng(random_seed)
    n_batches = 20
    per = n_draws // n_batches
    moments = np.empty((n_batches, 2))
    for b in range(n_batches):
        z = rng.standard_normal((3, per))
        rest = (common + z[0]) ** 2 + (target_separation + z[2]) ** 2 + rng.chisquare(
            dim - 3, size=per)
        w1 = np.concatenate([(association + sign * z[1])
                             / np.sqrt((association + sign * z[1]) ** 2 + rest)
                             for sign in (1.0, -1.0)])
        moments[b] = w1.mean(), (w1 ** 2).mean()
    m1, m2 = moments.mean(axis=0)
    # batch estimates of the effect size → its se (delta method through the batch spread)
    batch_effects = 2 * moments[:, 0] / np.sqrt(moments[:, 1])
    return SeededEstimate((float(2 * m1 / math.sqrt(m2)),
                           float(batch_effects.std(ddof=1) / math.sqrt(n_batches))),
                          random_seed=seed)


def _vector_model_study(rng: np.random.Generator, n_targets: int, n_attributes: int,
                        dim: int, common: float, association: float,
                        attribute_separation: float, target_separation: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Cosine similarities (X then Y rows) with A and with B of one simulated study."""
    def words(n: int, mean: dict[int, float]) -> np.ndarray:
        v = rng.standard_normal((n, dim))
        for axis, value in mean.items():
            v[:, axis] += value
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    x = words(n_targets, {0: common, 1: association, 2: target_separation})
    y = words(n_targets, {0: common, 1: -association, 2: -target_separation})
    a = words(n_attributes, {0: common, 1: attribute_separation})
    b = words(n_attributes, {0: common, 1: -attribute_separation})
    targets = np.vstack([x, y])
    return targets @ a.T, targets @ b.T


def simulate_weat_bootstrap_coverage(
    designs: Sequence[tuple[int, int]] = BOOTSTRAP_COVERAGE_DESIGNS,
    *,
    n_sims: int = 1000,
    n_boot: int = 2000,
    ci_prob: float = DEFAULT_CI_PROB,
    dim: int = 50,
    common: float = 3.0,
    association: float = 0.75,
    attribute_separation: float = 3.0,
    target_separation: float = 3.0,
    resample: Sequence[str] = ("targets and attributes", "targets"),
    random_seed: int | None = None,
) -> pd.DataFrame:
    """Coverage of WEAT's item-bootstrap interval over simulated studies.

    Each simulated study draws its four word lists from populations of word vectors —
    every word is its class mean plus Normal(0, I) noise in ``dim`` dimensions (see
    :func:`vector_model_effect_size` for the class means) — computes the cosine
    similarities, and the ``ci_prob`` percentile interval of
    :func:`embias.classic.weat_item_bootstrap` for every ``resample`` option. Coverage is
    the share of studies whose interval contains the population effect size. X and Y
    differ along the attribute direction (``association``) and along a direction the
    attribute classes do not (``target_separation``), as real target lists differ in
    topic as well as in bias; each attribute word's noise then gives it its own X-vs-Y
    preference, which is what the target-only interval leaves out.

    Parameters
    ----------
    designs
        (target words per group, attribute words per set) pairs; X and Y have the same
        size, A and B too. Target lists need ≥ 2 words, attribute lists ≥ 1.
    n_sims
        Simulated studies per design (≥ 1); studies are seeded by
        (``random_seed``, design, study number), so the first k do not depend on
        ``n_sims``, and every ``resample`` option sees the same studies.
    n_boot
        Bootstrap replicates per study and option.
    ci_prob
        Interval probability (default :data:`embias.settings.DEFAULT_CI_PROB`).
    dim, common, association, attribute_separation, target_separation
        The word-vector model (:func:`vector_model_effect_size`).
    resample
        Options of :func:`embias.classic.weat_item_bootstrap` to compare.
    random_seed
        Non-negative integer seed; ``None`` (the default) draws one from the OS entropy.
        The seed used is in the table's ``random_seed`` column and
        ``attrs["random_seed"]``: passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per design and option: ``n_targets_per_group``,
        ``n_attributes_per_set``, ``resample``, ``effect_size`` (the population value) and
        its ``effect_size_se``, ``mean_estimate`` (mean observed effect size),
        ``coverage`` with its binomial ``coverage_se``, ``below``/``above`` (shares of
        intervals wholly below/above the population value), ``mean_width``,
        ``boot_redrawn`` (replicates redrawn for zero spread, all studies), ``n_sims``,
        ``n_boot``, ``ci_prob``, ``random_seed``, ``seconds``.
    """
    from .classic import RESAMPLE_OPTIONS, weat_item_bootstrap

    dim, common, association, attribute_separation, target_separation = _check_vector_model(
        dim, common, association, attribute_separation, target_separation)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    ci_prob = check_probability("ci_prob", ci_prob)
    options = [check_choice("resample", r, RESAMPLE_OPTIONS) for r in _as_tuple(resample)]
    seed = check_seed(random_seed)
    checked = [(check_int("target words per group", d[0], minimum=2),
                check_int("attribute words per set", d[1], minimum=1))
               for d in (_as_design(d) for d in designs)]
    if not checked:
        raise ValueError("designs must hold at least one (targets per group, attributes per "
                         "set) pair, got none")
    effect, effect_se = vector_model_effect_size(
        dim=dim, common=common, association=association,
        target_separation=target_separation, random_seed=seed)
    rows = []
    for n_t, n_a in checked:
        start = time.perf_counter()
        estimates = np.empty(n_sims)
        bounds = {r: np.empty((n_sims, 2)) for r in options}
        redrawn = dict.fromkeys(options, 0)
        for i in range(n_sims):
            rng = np.random.default_rng([seed, n_t, n_a, i])
            sim_a, sim_b = _vector_model_study(rng, n_t, n_a, dim, common, association,
                                               attribute_separation, target_separation)
            s = association_scores(sim_a, sim_b)
            estimates[i] = weat_effect_size(s[:n_t], s[n_t:])
            for r in options:
                boot = weat_item_bootstrap(sim_a, sim_b, n_t, n_boot=n_boot, resample=r,
                                           random_seed=rng)
                bounds[r][i] = boot.interval(ci_prob)
                redrawn[r] += boot.n_redrawn
        seconds = time.perf_counter() - start
        for r in options:
            lo, hi = bounds[r][:, 0], bounds[r][:, 1]
            cov = float(np.mean((lo <= effect) & (effect <= hi)))
            rows.append({
                "n_targets_per_group": n_t, "n_attributes_per_set": n_a, "resample": r,
                "effect_size": effect, "effect_size_se": effect_se,
                "mean_estimate": float(estimates.mean()), "coverage": cov,
                "coverage_se": math.sqrt(cov * (1 - cov) / n_sims),
                "below": float(np.mean(hi < effect)), "above": float(np.mean(lo > effect)),
                "mean_width": float(np.mean(hi - lo)), "boot_redrawn": redrawn[r],
                "n_sims": n_sims, "n_boot": n_boot, "ci_prob": ci_prob,
                "random_seed": seed, "seconds": seconds,
            })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


def _as_design(design: Any) -> tuple[Any, Any]:
    if isinstance(design, str) or not isinstance(design, Sequence) or len(design) != 2:
        raise ValueError(f"each design must be a (target words per group, attribute words "
                         f"per set) pair, got {design!r}")
    return design[0], design[1]
