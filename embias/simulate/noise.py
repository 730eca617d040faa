"""Pre-averaging simulations: WEAT effect sizes of simulated raw cosine similarities.

One design (:func:`simulate_weat`, :class:`WeatSimulation`), a grid of designs
(:func:`simulate_weat_grid`), and their summary as an interval table with the exact values
next to them (:func:`summarize_simulations`). The numerators, the published figures and
what survives their correction: :mod:`embias.simulate`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_int, check_number, check_probability, resolve_rng
from ..classic import association_scores, weat_effect_size
from ..report import interval_table
from ..settings import DEFAULT_CI_PROB
from .design import CALISKAN_LARGEST_EFFECT, Numerator, as_tuple, check_design, max_abs_weat
from .exact import exact_weat_distribution

if TYPE_CHECKING:  # pragma: no cover
    from .exact import WeatDistribution

__all__ = [
    "PUBLISHED_FIGURES",
    "SIMULATION_CI_KIND",
    "WeatSimulation",
    "WeatSimulationGrid",
    "simulate_weat",
    "simulate_weat_grid",
    "summarize_simulations",
]

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


def _check_summary_options(threshold: Any, ci_prob: Any) -> tuple[float, float]:
    return (check_number("threshold", threshold, low=0.0, low_open=True),
            check_probability("ci_prob", ci_prob))


# --------------------------------------------------------------------------- simulation
def _block_size(n: int, m: int) -> int:
    return max(1, _BLOCK_VALUES // (4 * n * m))


def _draw_block(seed: int, block: int, k: int, n: int, m: int, sd: float,
                association: float) -> np.ndarray:
    """Return the raw similarities of ``k`` simulated data sets.

    Shape (k, group, word, set, attr): group 0 = X, 1 = Y; set 0 = A (X's own), 1 = B
    (Y's own).
    """
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
    """Return the Monte Carlo standard error of the q-quantile from order statistics.

    It is half the distance between the order statistics at n·q ± √(n·q·(1 − q)) (±1
    binomial sd of the count below the quantile); distribution-free.
    """
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
    numerator: Numerator
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
        return max_abs_weat(self.n_protected_per_group, numerator=self.numerator,
                            ddof=self.ddof)

    @property
    def interval(self) -> tuple[float, float]:
        """Central ``ci_prob`` range of the simulated effect sizes.

        The ends are numpy's default linear quantiles (R's type 7).
        """
        a = (1 - self.ci_prob) / 2
        lo, hi = np.quantile(self.scores, [a, 1 - a])
        return float(lo), float(hi)

    @property
    def interval_se(self) -> tuple[float, float]:
        """Monte Carlo standard errors of the two ends of :attr:`interval`.

        Order-statistic estimates, see ``_quantile_se``.
        """
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
        """Return the exact distribution of the effect size for this design.

        It needs at least two words per group; see :func:`exact_weat_distribution`.
        """
        return exact_weat_distribution(
            n_protected_per_group=self.n_protected_per_group, n_attributes=self.n_attributes,
            sd=self.sd, association=self.association,
            numerator=self.numerator, ddof=self.ddof,
        )

    def to_interval_table(self, *, exact: bool = False) -> pd.DataFrame:
        """Return a one-row interval table; see :func:`summarize_simulations`."""
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
        Number of simulated data sets (≥ 1).
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

    Examples
    --------
    With one word per group WEAT is ±√2 whatever the data:

    >>> import numpy as np
    >>> import embias
    >>> sim = embias.simulate_weat(n_protected_per_group=1, n_sims=1000, random_seed=0)
    >>> bool(np.allclose(np.abs(sim.scores), np.sqrt(2)))
    True

    With 8 + 8 words pure noise never gives |WEAT| ≥ 1.81, and the simulated 95% range
    agrees with the exact one, (−0.963, 0.963), within 4 Monte Carlo standard errors:

    >>> sim = embias.simulate_weat(n_sims=2000, ci_prob=0.95, random_seed=0)
    >>> sim.share_above
    0.0
    >>> exact = sim.exact().interval(0.95)
    >>> all(abs(s - e) < 4 * se for s, e, se in zip(sim.interval, exact, sim.interval_se))
    True

    The published first-word numerator on the same data: about a fifth of pure-noise data
    sets reach |WEAT| ≥ 1.81 (the slides' 21.4%):

    >>> first = embias.simulate_weat(n_sims=2000, numerator="first-word", random_seed=0)
    >>> round(first.share_above, 2)
    0.21
    """
    n, m, sd, association = check_design(n_protected_per_group, n_attributes, sd,
                                          association, numerator, ddof)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    threshold, ci_prob = _check_summary_options(threshold, ci_prob)
    rng, seed = resolve_rng(random_seed)
    if seed is None:  # a Generator was passed: draw the seed from it, and record it
        seed = int(rng.integers(2**63))
    scores, raw_sd, means_sd = _simulate_blocks(seed, n_sims, n, m, sd, association,
                                                numerator, ddof)
    if label is None:
        label = f"n={n} m={m} sd={sd:g} assoc={association:g} {numerator}"
    return WeatSimulation(
        scores=scores, raw_sd=raw_sd, means_sd=means_sd, n_protected_per_group=n,
        n_attributes=m, sd=sd, association=association, numerator=numerator, ddof=ddof,
        threshold=threshold, ci_prob=ci_prob, seed=seed, label=str(label),
    )


def _simulate_blocks(seed: int, n_sims: int, n: int, m: int, sd: float, association: float,
                     numerator: str, ddof: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the effect sizes, raw sds and pre-averaged means' sds of ``n_sims`` data sets.

    The data sets are drawn block by block (:func:`_draw_block`, seeded by (seed, block));
    the arrays are read-only.
    """
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
    for array in (scores, raw_sd, means_sd):
        array.flags.writeable = False  # the result is immutable, arrays included
    return scores, raw_sd, means_sd


class WeatSimulationGrid(tuple):
    """Result of :func:`simulate_weat_grid`: a tuple of :class:`WeatSimulation` with its seed.

    One simulation per cell, with the seed of the whole grid.

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
        """Return a grid of ``simulations`` with the grid's ``random_seed``."""
        grid = super().__new__(cls, simulations)
        grid.random_seed = random_seed
        return grid

    def __repr__(self) -> str:
        """Show the grid's seed and the label of every cell."""
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
    """Run :func:`simulate_weat` over every combination of the given design values.

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

    Raises
    ------
    ValueError
        A bad design value or option, as for :func:`simulate_weat`.

    Examples
    --------
    Two designs times two numerators; the cells of one design share their raw data:

    >>> import numpy as np
    >>> import embias
    >>> grid = embias.simulate_weat_grid(n_protected_per_group=(2, 8),
    ...                                  numerator=("mean", "first-word"), n_sims=200,
    ...                                  random_seed=0)
    >>> [cell.label for cell in grid]  # doctest: +NORMALIZE_WHITESPACE
    ['n=2 m=8 sd=0.08 assoc=0 mean', 'n=2 m=8 sd=0.08 assoc=0 first-word',
     'n=8 m=8 sd=0.08 assoc=0 mean', 'n=8 m=8 sd=0.08 assoc=0 first-word']
    >>> grid.random_seed, grid[0].seed == grid[1].seed
    (0, True)
    >>> bool(np.array_equal(grid[0].raw_similarities(5), grid[1].raw_similarities(5)))
    True
    """
    rng, grid_seed = resolve_rng(random_seed)
    designs = list(itertools.product(as_tuple(n_protected_per_group),
                                     as_tuple(n_attributes), as_tuple(association)))
    seeds = rng.integers(2**63, size=len(designs))
    out = []
    for (n, m, a), seed in zip(designs, seeds, strict=True):
        for num in as_tuple(numerator):
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
        ``ci_kind="simulation"``: a percentile interval of the simulated distribution),
        plus
        ``lower_se``/``upper_se`` (Monte Carlo se of the range ends), ``threshold``,
        ``share_above`` (share of |WEAT| ≥ threshold) and its binomial ``share_above_se``,
        ``max_abs_weat`` (the ceiling of |WEAT| in the design), ``raw_sd`` and
        ``means_sd`` (medians over data sets), the design columns, ``n_sims`` and
        ``random_seed`` (the simulation's :attr:`WeatSimulation.seed`: passing it to
        :func:`simulate_weat` with the same design repeats the row). For a
        :class:`WeatSimulationGrid`, ``attrs["random_seed"]`` is the grid's seed.

    Raises
    ------
    ValueError
        No simulations, or simulations with different ``ci_prob``.

    Examples
    --------
    One word per group gives WEAT = ±√2 every time (a zero-width range with no exact
    distribution); with two words the exact 89% range is about ±1.54 and |WEAT| is at
    most √3:

    >>> import embias
    >>> grid = embias.simulate_weat_grid(n_protected_per_group=(1, 2), n_sims=500,
    ...                                  random_seed=0)
    >>> table = embias.summarize_simulations(grid)
    >>> table[["group", "upper", "max_abs_weat", "exact_upper"]].round(3)
                              group  upper  max_abs_weat  exact_upper
    0  n=1 m=8 sd=0.08 assoc=0 mean  1.414         1.414          NaN
    1  n=2 m=8 sd=0.08 assoc=0 mean  1.560         1.732        1.542
    >>> table.attrs["random_seed"]
    0
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

