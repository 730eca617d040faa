"""The results of the pre-averaging simulations and their summary as an interval table.

:class:`WeatSimulation` (one design), :class:`WeatSimulationGrid` (a grid of designs) and
:func:`summarize_simulations` (one row per simulation, with the exact values next to it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..._validation import check_int
from ...report import interval_table
from ..design import Numerator, max_abs_weat
from ..exact import exact_weat_distribution
from .draws import block_size, draw_block

if TYPE_CHECKING:  # pragma: no cover
    from ..exact import WeatDistribution

__all__ = [
    "SIMULATION_CI_KIND",
    "WeatSimulation",
    "WeatSimulationGrid",
    "summarize_simulations",
]

#: Interval kind of the simulated ranges: central (equal-tailed) quantile interval of the
#: simulated distribution of the effect size.
SIMULATION_CI_KIND = "simulation"


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
        size = block_size(n, m)
        block, offset = divmod(k, size)
        count = min(size, self.n_sims - block * size)
        sim = draw_block(self.seed, block, count, n, m, self.sd, self.association)
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

