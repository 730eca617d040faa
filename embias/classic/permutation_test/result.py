"""The result of WEAT on embeddings: :class:`WeatResult` and its interval-table row."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..._validation import check_probability
from ...report import interval_table
from ...settings import DEFAULT_CI_PROB
from ..item_bootstrap import ITEM_BOOTSTRAP_CI_KIND, WeatBootstrap

if TYPE_CHECKING:  # pragma: no cover
    from ...weat_population import WeatPopulationBootstrap


@dataclass(frozen=True)
class WeatResult:
    """Result of :func:`weat`.

    Attributes
    ----------
    name
        Label of the test in reports.
    effect_size
        (mean_X s − mean_Y s) / sd_{X∪Y}(s) with ``ddof``.
    statistic
        Caliskan's test statistic Σ_X s − Σ_Y s.
    p_value
        Permutation p-value for ``alternative``.
    p_value_se
        Monte Carlo standard error of the p-value (0 when exact).
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    exact
        Whether all equal-size partitions were enumerated.
    n_permutations
        Partitions used (all of them when exact).
    ddof
        Delta degrees of freedom of the effect size's sd.
    s_values
        One row per target word: ``word``, ``target`` (``X``/``Y``), ``s``.
    null_effect_sizes
        Effect size of every partition used (the permutation null distribution).
    missing
        The missing-word report: per list, the words ``missing`` from the embeddings and
        the counts ``kept`` and ``total``.
    bootstrap
        The two-way item bootstrap of the effect size (:func:`weat_item_bootstrap`):
        its replicates give the interval for the effect size.
    random_seed
        The seed of the Monte Carlo permutations and of the bootstrap (None when a
        Generator was given).
    population
        The disattenuated effect size and its noise-adjusted two-way bootstrap
        (:func:`embias.weat_population.weat_population_bootstrap`): an estimate of, and
        an interval for, the effect size of the *populations* of words (the limit of d as
        all four lists grow), which d of short attribute lists underestimates. None when
        it could not be computed; :attr:`population_note` says why.
    population_note
        Why :attr:`population` is None (empty otherwise).
    """

    name: str
    effect_size: float
    statistic: float
    p_value: float
    p_value_se: float
    alternative: str
    exact: bool
    n_permutations: int
    ddof: int
    s_values: pd.DataFrame = field(repr=False)
    null_effect_sizes: np.ndarray = field(repr=False)
    missing: dict = field(default_factory=dict, repr=False)
    random_seed: int | None = None
    bootstrap: WeatBootstrap | None = field(default=None, repr=False)
    population: WeatPopulationBootstrap | None = field(default=None, repr=False)
    population_note: str = field(default="", repr=False)

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the item-bootstrap percentile interval for the effect size.

        See :meth:`WeatBootstrap.interval`; ValueError when the result has no bootstrap.
        """
        if self.bootstrap is None:
            raise ValueError(f"WEAT {self.name!r} was computed without an item bootstrap")
        return self.bootstrap.interval(ci_prob)

    def population_interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the interval for the population effect size.

        It is the central ``ci_prob`` range of the noise-adjusted bootstrap of the
        disattenuated effect size
        (:meth:`embias.weat_population.WeatPopulationBootstrap.interval`); ValueError,
        saying why, when the result has none.
        """
        if self.population is None:
            raise ValueError(f"WEAT {self.name!r} has no population interval: "
                             f"{self.population_note or 'it was computed without one'}")
        return self.population.interval(ci_prob)

    def population_columns(self, ci_prob: float = DEFAULT_CI_PROB) -> dict[str, float]:
        """Return the population columns of the interval table.

        ``population_estimate`` (the disattenuated effect size) and
        ``population_lower``/``population_upper`` (its ``ci_prob`` interval for the effect
        size of the word populations); NaN when there is no population interval
        (:attr:`population_note` says why).
        """
        if self.population is None:
            return dict.fromkeys(POPULATION_COLUMNS, np.nan)
        lower, upper = self.population.interval(ci_prob)
        return {"population_estimate": self.population.estimate,
                "population_lower": lower, "population_upper": upper}

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB,
                          null_ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """Return the result as one interval-table row.

        The row holds the effect size with its item-bootstrap interval, its permutation
        p-value, and the permutation null's critical values in their own columns.

        The two answer different questions. ``lower``/``upper`` (with ``ci_prob``, default
        0.89, and ``ci_kind`` :data:`ITEM_BOOTSTRAP_CI_KIND`) are the percentile interval
        of the two-way item bootstrap (:func:`weat_item_bootstrap`): where the effect size
        of *other words from the same populations* would fall — an interval for the
        effect size that treats target and attribute words as samples. The p-value asks
        whether the X/Y labels could be arbitrary: the central ``null_ci_prob`` range of
        the permutation null — where the effect size falls by chance when the targets are
        exchangeable; |d| beyond it is what a two-sided p < 1 − ``null_ci_prob`` means —
        goes in ``null_lower``/``null_upper`` (not an interval for the estimate). A
        result without a bootstrap has ``ci_kind="none"`` and NaN ``lower``/``upper``.

        Extra columns: ``p_value``, ``alternative``, ``n_permutations``, ``exact``,
        ``null_lower``, ``null_upper``, ``null_ci_prob`` (default 0.89 too), ``random_seed``
        (the seed of the permutations and the bootstrap: passing it back repeats them),
        and with a bootstrap ``resampled`` (which word lists), ``n_boot``,
        ``boot_redrawn`` (replicates with zero spread of s, redrawn). With a population
        interval (:attr:`population`): ``population_estimate`` (the disattenuated
        effect size) and ``population_lower``/``population_upper`` (its ``ci_prob``
        interval for the effect size of the word populations, which d of short attribute
        lists underestimates).
        """
        null_ci_prob = check_probability("null_ci_prob", null_ci_prob)
        ci_prob = check_probability("ci_prob", ci_prob)
        lo, hi = np.quantile(self.null_effect_sizes,
                             [(1 - null_ci_prob) / 2, (1 + null_ci_prob) / 2])
        row: dict[str, Any] = {
            "estimand": "weat_effect_size",
            "group": self.name,
            "estimate": self.effect_size,
            "lower": np.nan,
            "upper": np.nan,
            "p_value": self.p_value,
            "alternative": self.alternative,
            "n_permutations": self.n_permutations,
            "exact": self.exact,
            "null_lower": float(lo),
            "null_upper": float(hi),
            "null_ci_prob": null_ci_prob,
            "random_seed": self.random_seed,
        }
        if self.bootstrap is None:
            return interval_table([row], ci_prob=None, ci_kind="none")
        row["lower"], row["upper"] = self.bootstrap.interval(ci_prob)
        row.update(resampled=self.bootstrap.resample, n_boot=self.bootstrap.n_boot,
                   boot_redrawn=self.bootstrap.n_redrawn)
        if self.population is not None:
            row.update(self.population_columns(ci_prob))
        return interval_table([row], ci_prob=ci_prob, ci_kind=ITEM_BOOTSTRAP_CI_KIND)


#: Columns of :meth:`WeatResult.population_columns` (and of the WEAT and SEAT overviews).
POPULATION_COLUMNS = ("population_estimate", "population_lower", "population_upper")
