"""The classic pre-averaged scores, done right: WEAT (Caliskan et al. 2017) and MAC
(Manzini et al. 2019).

Both are reported next to the Bayesian intervals so users can see where the
pre-averaged numbers claim more than the data support.

WEAT answers two questions, with two tools:

* **Could the X/Y labels be arbitrary?** The permutation test re-partitions the same
  target words (exact enumeration when feasible, else seeded Monte Carlo without
  replacement within a partition) and gives the p-value. It conditions on the words used:
  it says nothing about other words.
* **Would other words from the same populations give a similar effect?** The two-way
  (crossed) item bootstrap (:func:`weat_item_bootstrap`) resamples X, Y, A and B, each
  with replacement, recomputes s(w, A*, B*) and the effect size, and reports the central
  ``ci_prob`` (default 0.89) percentile interval. Target *and* attribute words are
  samples; an interval that holds the attribute lists fixed is too narrow (on GloVe's
  weat7 the bootstrap sd of d is 0.62 with attributes resampled, 0.13 without). The
  percentile interval was kept over the basic and bias-corrected ones because it
  covered best in the simulations of :func:`embias.simulate.simulate_weat_bootstrap_coverage`
  and stays inside WEAT's bounded range; BCa's acceleration needs a jackknife, which has no
  single form for a crossed design. Its known weakness is measured there too: with short
  attribute lists the effect size itself is attenuated and the interval undercovers on the
  low side.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ._validation import (
    check_distinct_lists,
    check_int,
    check_probability,
    check_word_list,
    resolve_rng,
)
from .embeddings import is_uncased, load_embeddings, lookup_words
from .report import interval_table, stack_interval_tables
from .settings import DEFAULT_CI_PROB
from .tables import cosine_table, validate_table
from .wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from .weat_population import WeatPopulationBootstrap

__all__ = [
    "CLASSIC_CI_PROB",
    "DEFAULT_N_BOOT",
    "ITEM_BOOTSTRAP_CI_KIND",
    "RESAMPLE_OPTIONS",
    "MacResult",
    "WeatBootstrap",
    "WeatResult",
    "association_scores",
    "bootstrap_counts",
    "check_mac_roles",
    "check_weat_roles",
    "classic_changes",
    "classic_scores",
    "mac",
    "mac_ttest",
    "partition_sums",
    "permutation_p_value",
    "weat",
    "weat_effect_size",
    "weat_item_bootstrap",
    "weat_pairs",
    "weat_test",
]

Alternative = Literal["two-sided", "greater", "less"]
#: Largest number of equal-size partitions enumerated exactly by ``permutations="auto"``.
MAX_EXACT_PARTITIONS = 1_000_000
#: Monte Carlo permutations used by ``permutations="auto"`` when exact is infeasible.
DEFAULT_MC_PERMUTATIONS = 100_000
#: Why WEAT refuses a target set of one word.
ONE_WORD_WHY = ("WEAT compares two samples of target words, and one word is no sample: with "
                "one word in each set the effect size is always ±√2 — the sample sd of two "
                "values is |difference|/√2 — whatever the embeddings")
#: Why WEAT needs at least one word in each attribute list.
ATTRIBUTE_WHY = "s(w, A, B) is the mean cosine of w with the words of A minus that with B's"


# --------------------------------------------------------------------------- numerics
def association_scores(sim_a: np.ndarray, sim_b: np.ndarray) -> np.ndarray:
    """WEAT's s(w, A, B) = mean_a cos(w, a) − mean_b cos(w, b).

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of each target word with the words of A and of B; the last
        axis runs over the attribute words, leading axes broadcast (e.g. simulations).

    Returns
    -------
    numpy.ndarray
        ``sim_a.mean(-1) - sim_b.mean(-1)``.
    """
    sim_a = np.asarray(sim_a, dtype=float)
    sim_b = np.asarray(sim_b, dtype=float)
    if sim_a.shape[-1] == 0 or sim_b.shape[-1] == 0:
        raise ValueError("attribute sets A and B must each have at least one word")
    return sim_a.mean(axis=-1) - sim_b.mean(axis=-1)


def weat_effect_size(s_x: np.ndarray, s_y: np.ndarray, *, ddof: int = 1) -> np.ndarray | float:
    """WEAT effect size (mean_X s − mean_Y s) / sd_{X∪Y}(s), vectorised over leading axes.

    Parameters
    ----------
    s_x, s_y
        Association scores of the X and Y target words (last axis = words).
    ddof
        Delta degrees of freedom of the sd: 1 (sample sd) is Caliskan et al.'s definition
        as their published values imply; 0 matches some other toolkits.

    Returns
    -------
    float or numpy.ndarray
        The effect size(s).

    Raises
    ------
    ValueError
        Empty X or Y, fewer than ``ddof + 1`` words in total, or zero spread of s
        (effect size undefined).
    """
    s_x = np.asarray(s_x, dtype=float)
    s_y = np.asarray(s_y, dtype=float)
    if s_x.shape[-1] == 0 or s_y.shape[-1] == 0:
        raise ValueError(f"X and Y need at least one word each, got {s_x.shape[-1]} and "
                         f"{s_y.shape[-1]}")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    both = np.concatenate([s_x, s_y], axis=-1)
    if both.shape[-1] <= ddof:
        raise ValueError(f"the sd with ddof={ddof} needs more than {ddof} words in X ∪ Y, "
                         f"got {both.shape[-1]}")
    sd = both.std(axis=-1, ddof=ddof)
    if np.any(sd == 0):
        raise ValueError("the association scores s(w, A, B) have zero spread over X ∪ Y: "
                         "the WEAT effect size is undefined")
    out = (s_x.mean(axis=-1) - s_y.mean(axis=-1)) / sd
    return float(out) if np.ndim(out) == 0 else out


def partition_sums(
    s: np.ndarray, n_x: int, permutations: int | str, rng: np.random.Generator
) -> tuple[np.ndarray, bool]:
    """Sums over the X-part of re-partitions of X ∪ Y: all of them, or a random sample
    (each partition drawn without replacement within itself)."""
    n = s.size
    total = math.comb(n, n_x)
    exact = permutations == "exact" or (permutations == "auto" and total <= MAX_EXACT_PARTITIONS)
    if exact:
        if total > 50 * MAX_EXACT_PARTITIONS:
            raise ValueError(f"exact enumeration of C({n}, {n_x}) = {total:,} partitions is "
                             "infeasible; use permutations='auto' or an integer")
        idx = np.fromiter(
            itertools.chain.from_iterable(itertools.combinations(range(n), n_x)),
            dtype=np.int32,
            count=total * n_x,
        ).reshape(total, n_x)
        return s[idx].sum(axis=1), True
    m = DEFAULT_MC_PERMUTATIONS if permutations == "auto" else int(permutations)
    sums = np.empty(m)
    chunk = max(1, 2_000_000 // n)
    for start in range(0, m, chunk):
        k = min(chunk, m - start)
        keys = rng.random((k, n))
        idx = np.argpartition(keys, n_x - 1, axis=1)[:, :n_x]
        sums[start:start + k] = s[idx].sum(axis=1)
    return sums, False


# --------------------------------------------------------------------------- item bootstrap
#: Item-bootstrap replicates :func:`weat` draws by default.
DEFAULT_N_BOOT = 10_000
#: What :func:`weat_item_bootstrap` can resample: all four word lists (the crossed, two-way
#: bootstrap :func:`weat` reports) or the target words only, the attribute lists held fixed
#: (the naive interval, kept for comparison: it undercovers, see
#: :func:`embias.simulate.simulate_weat_bootstrap_coverage`).
RESAMPLE_OPTIONS: tuple[str, ...] = ("targets and attributes", "targets")
#: ``ci_kind`` of the item-bootstrap interval: the central ``ci_prob`` interval of the
#: effect size's bootstrap distribution (a percentile interval), which is what
#: :data:`embias.report.CI_KINDS` calls ``"simulation"``; the interval table's
#: ``resampled`` column says which word lists were resampled.
ITEM_BOOTSTRAP_CI_KIND = "bootstrap"
#: A replicate whose resampled s values have an sd at most this (times max(1, max |sim|))
#: has no effect size (0/0); it is redrawn and counted (``WeatBootstrap.n_redrawn``).
DEGENERATE_SD = 1e-12
#: The bootstrap gives up when it needs more than this many draws per replicate kept.
MAX_DRAWS_PER_REPLICATE = 20
#: Replicates computed at once (memory: a few arrays of this × the number of targets).
_BOOT_CHUNK = 20_000


def bootstrap_counts(rng: np.random.Generator, n_replicates: int, n: int) -> np.ndarray:
    """How often each of ``n`` items is drawn in each of ``n_replicates`` samples of size
    ``n`` with replacement (rows: replicates)."""
    idx = rng.integers(0, n, size=(n_replicates, n))
    flat = idx + n * np.arange(n_replicates)[:, None]
    counts = np.bincount(flat.ravel(), minlength=n_replicates * n).reshape(n_replicates, n)
    return counts.astype(float)  # float: the matrix products then run in BLAS


def _bootstrap_chunk(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, k: int, ddof: int,
                     resample_attributes: bool, rng: np.random.Generator
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Effect sizes of ``k`` crossed resamples and their s-value sds."""
    n_t, n_a = sim_a.shape
    n_b = sim_b.shape[1]
    if resample_attributes:  # s of every target word under each resample of A and of B
        s = (bootstrap_counts(rng, k, n_a) @ sim_a.T / n_a
             - bootstrap_counts(rng, k, n_b) @ sim_b.T / n_b)
    else:
        s = np.broadcast_to(sim_a.mean(axis=1) - sim_b.mean(axis=1), (k, n_t))
    counts = np.concatenate([bootstrap_counts(rng, k, n_x),
                             bootstrap_counts(rng, k, n_t - n_x)], axis=1)
    weighted = counts * s
    mean_x = weighted[:, :n_x].sum(axis=1) / n_x
    mean_y = weighted[:, n_x:].sum(axis=1) / (n_t - n_x)
    mean = weighted.sum(axis=1) / n_t
    sd = np.sqrt((counts * (s - mean[:, None]) ** 2).sum(axis=1) / (n_t - ddof))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mean_x - mean_y) / sd, sd


@dataclass(frozen=True)
class WeatBootstrap:
    """Item-bootstrap distribution of a WEAT effect size (:func:`weat_item_bootstrap`).

    Attributes
    ----------
    effect_sizes
        The effect size of every replicate kept (``n_boot`` of them).
    n_redrawn
        Replicates drawn with zero spread of s (no effect size) and redrawn.
    resample
        What was resampled (one of :data:`RESAMPLE_OPTIONS`).
    ddof
        Delta degrees of freedom of the sd, as for the observed effect size.
    random_seed
        The seed the draws came from (None when a Generator was given); for the bootstrap
        of :func:`weat`, its seed (the bootstrap draws from a stream spawned from it).
    """

    effect_sizes: np.ndarray = field(repr=False)
    n_redrawn: int
    resample: str
    ddof: int = 1
    random_seed: int | None = None

    @property
    def n_boot(self) -> int:
        """Number of replicates kept."""
        return int(self.effect_sizes.size)

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """The percentile interval: the central ``ci_prob`` range of :attr:`effect_sizes`
        (numpy's default, linearly interpolated quantiles)."""
        ci_prob = check_probability("ci_prob", ci_prob)
        lo, hi = np.quantile(self.effect_sizes, [(1 - ci_prob) / 2, (1 + ci_prob) / 2])
        return float(lo), float(hi)


def weat_item_bootstrap(
    sim_a: np.ndarray,
    sim_b: np.ndarray,
    n_x: int,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    resample: str = "targets and attributes",
    ddof: int = 1,
    random_seed: int | np.random.Generator | None = None,
) -> WeatBootstrap:
    """Two-way (crossed) item bootstrap of the WEAT effect size.

    Every replicate draws, with replacement and each list on its own, |X| words from X,
    |Y| from Y, |A| from A and |B| from B, and recomputes s(w, A*, B*) for the drawn
    target words and the effect size from them — the same words and lists as the
    observed test, only other draws from them. Its spread answers "would other words
    from the same four populations give a similar effect?": target words *and* attribute
    words are samples (the language-as-fixed-effect fallacy, Clark 1973, concerns both).
    With ``resample="targets"`` the attribute lists stay fixed (the naive interval).

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of the target words (rows: the X words, then the Y words) with
        the words of A and of B (columns).
    n_x
        Number of X words (the first ``n_x`` rows); X and Y need ≥ 2 words each.
    n_boot
        Replicates to keep, ≥ 1.
    resample
        ``"targets and attributes"`` (default) or ``"targets"``.
    ddof
        1 (Caliskan's sample sd) or 0, as for the observed effect size.
    random_seed
        Seed or Generator (:func:`embias._validation.resolve_rng`).

    Returns
    -------
    WeatBootstrap

    Raises
    ------
    ValueError
        Bad options or shapes, or when the resampled s values have zero spread so often
        that more than :data:`MAX_DRAWS_PER_REPLICATE` draws per replicate kept would be
        needed.

    Notes
    -----
    A replicate in which every drawn target word has the same s value (possible when
    words share s values, e.g. each list drawn as one repeated word) has no effect size
    (0/0). Such replicates are redrawn — the bootstrap distribution is conditioned on a
    defined effect size — and counted in :attr:`WeatBootstrap.n_redrawn`; the result
    never holds NaN. The computation works on resampling counts (how often each word is
    drawn), so a replicate costs two small matrix products.
    """
    n_boot = check_int("n_boot", n_boot, minimum=1)
    if resample not in RESAMPLE_OPTIONS:
        raise ValueError(f"resample={resample!r} is not one of {list(RESAMPLE_OPTIONS)}")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    sim_a = np.asarray(sim_a, dtype=float)
    sim_b = np.asarray(sim_b, dtype=float)
    if sim_a.ndim != 2 or sim_b.ndim != 2 or sim_a.shape[0] != sim_b.shape[0]:
        raise ValueError(f"sim_a and sim_b must be 2-D with one row per target word, got "
                         f"shapes {sim_a.shape} and {sim_b.shape}")
    if sim_a.shape[1] == 0 or sim_b.shape[1] == 0:
        raise ValueError("attribute sets A and B must each have at least one word")
    n_x = check_int("n_x", n_x, minimum=2)
    check_int("the number of Y words (rows after the first n_x)", sim_a.shape[0] - n_x,
              minimum=2, why=ONE_WORD_WHY)
    if not (np.isfinite(sim_a).all() and np.isfinite(sim_b).all()):
        raise ValueError("sim_a and sim_b must be finite (a NaN similarity has no s value)")
    rng, seed = resolve_rng(random_seed)
    tolerance = DEGENERATE_SD * max(1.0, float(np.abs(sim_a).max()),
                                    float(np.abs(sim_b).max()))
    kept: list[np.ndarray] = []
    n_kept = n_redrawn = n_drawn = 0
    while n_kept < n_boot:
        if n_drawn >= MAX_DRAWS_PER_REPLICATE * n_boot:
            raise ValueError(
                f"{n_redrawn:,} of {n_drawn:,} bootstrap resamples gave s values with zero "
                "spread (no effect size): the words' s values are too often tied for an "
                "item bootstrap")
        k = min(_BOOT_CHUNK, n_boot - n_kept)
        effects, sd = _bootstrap_chunk(sim_a, sim_b, n_x, k, ddof,
                                       resample == "targets and attributes", rng)
        good = sd > tolerance
        kept.append(effects[good])
        n_kept += int(good.sum())
        n_redrawn += int(k - good.sum())
        n_drawn += k
    return WeatBootstrap(effect_sizes=np.concatenate(kept), n_redrawn=n_redrawn,
                         resample=resample, ddof=ddof, random_seed=seed)


# --------------------------------------------------------------------------- WEAT
@dataclass(frozen=True)
class WeatResult:
    """Result of :func:`weat`.

    Attributes
    ----------
    effect_size
        (mean_X s − mean_Y s) / sd_{X∪Y}(s) with ``ddof``.
    statistic
        Caliskan's test statistic Σ_X s − Σ_Y s.
    p_value
        Permutation p-value for ``alternative``.
    p_value_se
        Monte Carlo standard error of the p-value (0 when exact).
    exact
        Whether all equal-size partitions were enumerated.
    n_permutations
        Partitions used (all of them when exact).
    s_values
        One row per target word: ``word``, ``target`` (``X``/``Y``), ``s``.
    null_effect_sizes
        Effect size of every partition used (the permutation null distribution).
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
        """The item-bootstrap percentile interval for the effect size
        (:meth:`WeatBootstrap.interval`)."""
        if self.bootstrap is None:
            raise ValueError(f"WEAT {self.name!r} was computed without an item bootstrap")
        return self.bootstrap.interval(ci_prob)

    def population_interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """The interval for the population effect size: the central ``ci_prob`` range of
        the noise-adjusted bootstrap of the disattenuated effect size
        (:meth:`embias.weat_population.WeatPopulationBootstrap.interval`)."""
        if self.population is None:
            raise ValueError(f"WEAT {self.name!r} has no population interval: "
                             f"{self.population_note or 'it was computed without one'}")
        return self.population.interval(ci_prob)

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB,
                          null_ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """One interval-table row: the effect size with its item-bootstrap interval, its
        permutation p-value, and the permutation null's critical values in their own
        columns.

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
            lower, upper = self.population.interval(ci_prob)
            row.update(population_estimate=self.population.estimate,
                       population_lower=lower, population_upper=upper)
        return interval_table([row], ci_prob=ci_prob, ci_kind=ITEM_BOOTSTRAP_CI_KIND)


def permutation_p_value(null: np.ndarray, observed: float, center: float, alternative: str,
                        exact: bool) -> tuple[float, float]:
    """The permutation p-value of ``observed`` against the ``null`` statistics (one- or
    two-sided about ``center``, ties within 1e-9 counted), and its Monte Carlo standard
    error (0 when ``exact``: the null is every partition)."""
    tol = 1e-9 * max(1.0, abs(observed))
    if alternative == "greater":
        hits = np.count_nonzero(null >= observed - tol)
    elif alternative == "less":
        hits = np.count_nonzero(null <= observed + tol)
    else:
        hits = np.count_nonzero(np.abs(null - center) >= abs(observed - center) - tol)
    m = null.size
    if exact:
        return float(hits / m), 0.0
    p = float((hits + 1) / (m + 1))
    return p, math.sqrt(p * (1 - p) / m)


def weat(
    embeddings: KeyedVectors | str,
    X: Sequence[str],
    Y: Sequence[str],
    A: Sequence[str],
    B: Sequence[str],
    *,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Alternative = "two-sided",
    ddof: int = 1,
    n_boot: int = DEFAULT_N_BOOT,
    random_seed: int | np.random.Generator | None = None,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
    name: str = "weat",
    set_names: tuple[str, str, str, str] = ("X", "Y", "A", "B"),
) -> WeatResult:
    """Word Embedding Association Test (Caliskan et al. 2017) with an honest p-value and
    an interval for the effect size.

    Parameters
    ----------
    embeddings
        ``KeyedVectors`` or a source for :func:`embias.load_embeddings`.
    X, Y
        Target word lists (e.g. flowers, insects).
    A, B
        Attribute word lists (e.g. pleasant, unpleasant).
    permutations
        ``"auto"``: exact enumeration of all C(|X|+|Y|, |X|) re-partitions of X ∪ Y when
        there are at most 1,000,000 (C(16, 8) = 12,870 is exact), otherwise 100,000
        seeded Monte Carlo partitions, each drawn without replacement; ``"exact"``
        forces enumeration; an integer forces that many Monte Carlo partitions.
    alternative
        ``"two-sided"`` (distance of the statistic from its null mean), ``"greater"``
        (Caliskan's one-sided test: X closer to A than Y is) or ``"less"``.
    ddof
        1 (default, Caliskan's sample sd) or 0.
    n_boot
        Replicates of the two-way item bootstrap (:func:`weat_item_bootstrap`; X, Y, A
        and B each resampled with replacement) behind the interval for the effect size
        (:meth:`WeatResult.interval`, :meth:`WeatResult.to_interval_table`); ≥ 1.
    random_seed
        Seed or Generator for the Monte Carlo permutations and the bootstrap (the seed
        policy of :mod:`embias._validation`); ``None`` draws a seed and records it in the
        result (``random_seed``) so the run can be repeated. The bootstrap draws from its
        own stream spawned from the seed, so the permutation draws — and the p-value —
        are the same as without it, and the bootstrap does not depend on
        ``permutations``.
    missing, lowercase
        Out-of-vocabulary handling, as in :func:`embias.cosine_table`.
    name
        Label of the test in reports.
    set_names
        Names of X, Y, A, B in the missing-word report (e.g. the class names).

    Returns
    -------
    WeatResult

    Raises
    ------
    ValueError
        A bad option; a word list that is a bare string, holds something other than
        non-empty strings, or is empty (:func:`embias._validation.check_word_list`); a
        word in two of the lists, after the case handling (:func:`check_weat_roles`);
        fewer than two words of X or of Y given or found in the embeddings (with one word
        per set the effect size is always ±√2, whatever the embeddings); or zero spread of
        s. Entries of one list that are one word after the case handling count once (a
        ``UserWarning`` names them).

    Notes
    -----
    The exact p-value counts the observed partition itself (p = #{T_i ≥ T}/N); the Monte
    Carlo p-value is (#{T_i ≥ T} + 1)/(m + 1), with standard error √(p(1−p)/m).

    The permutation test answers "could the X/Y labels be arbitrary?" for *these* words;
    the item-bootstrap interval answers "would other words from the same populations give
    a similar effect?". With few words per list the percentile interval of this
    standardised, bounded effect size undercovers (coverage measured by
    :func:`embias.simulate.simulate_weat_bootstrap_coverage`).

    With short attribute lists d itself is attenuated: each target's s carries the noise
    of the attribute words drawn, which inflates the sd. The result's
    :attr:`WeatResult.population` holds the disattenuated effect size and, from the same
    ``n_boot`` and its own spawned stream, its interval for the effect size of the word
    populations (:func:`embias.weat_population.weat_population_bootstrap`;
    :meth:`WeatResult.population_interval`; ``population_*`` columns of
    :meth:`WeatResult.to_interval_table`); it needs ≥ 2 words in A and in B.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative={alternative!r} is not one of "
                         "['two-sided', 'greater', 'less']")
    if not (permutations in ("auto", "exact") or (
            isinstance(permutations, int | np.integer) and not isinstance(permutations, bool)
            and permutations >= 1)):
        raise ValueError(f"permutations must be 'auto', 'exact' or a positive integer, got "
                         f"{permutations!r}")
    n_boot = check_int("n_boot", n_boot, minimum=1)
    lists = _weat_lists(X, Y, A, B, set_names=set_names)
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    if lowercase is None:
        lowercase = is_uncased(kv)
    check_weat_roles(lists, set_names=set_names, lowercase=lowercase, name=name)
    words, vectors, report = lookup_words(
        kv, dict(zip(set_names, lists, strict=True)), missing=missing,
        lowercase=lowercase, context=f"for WEAT {name!r}",
    )
    words = dict(zip("XYAB", words.values(), strict=True))
    for k, set_name in zip("XY", set_names[:2], strict=True):
        named = f" ({set_name!r})" if set_name != k else ""
        check_int(f"the number of {k} words{named} found in the embeddings", len(words[k]),
                  minimum=2, why=ONE_WORD_WHY)
    unit = {k: v / np.linalg.norm(v, axis=1, keepdims=True)
            for k, v in zip("XYAB", vectors.values(), strict=True)}
    targets = np.vstack([unit["X"], unit["Y"]])
    sim_a, sim_b = targets @ unit["A"].T, targets @ unit["B"].T
    s = association_scores(sim_a, sim_b)
    n_x = len(words["X"])
    s_x, s_y = s[:n_x], s[n_x:]
    effect = weat_effect_size(s_x, s_y, ddof=ddof)
    statistic = float(s_x.sum() - s_y.sum())
    rng, seed = resolve_rng(random_seed)
    sums, exact = partition_sums(s, n_x, permutations, rng)
    total = float(s.sum())
    null_stats = 2 * sums - total
    center = (n_x - (s.size - n_x)) * total / s.size
    p, se = permutation_p_value(null_stats, statistic, center, alternative, exact)
    sd = float(np.std(s, ddof=ddof))
    null_effects = (sums / n_x - (total - sums) / (s.size - n_x)) / sd
    bootstrap = weat_item_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot, ddof=ddof,
                                    random_seed=_bootstrap_stream(rng))
    bootstrap = dataclasses.replace(bootstrap, random_seed=seed)
    population, population_note = _population_bootstrap(sim_a, sim_b, n_x, n_boot, rng, seed)
    s_table = pd.DataFrame({
        "word": [*words["X"], *words["Y"]],
        "target": ["X"] * n_x + ["Y"] * (s.size - n_x),
        "s": s,
    })
    return WeatResult(
        name=name, effect_size=float(effect), statistic=statistic, p_value=p, p_value_se=se,
        alternative=alternative, exact=exact, n_permutations=int(null_stats.size), ddof=ddof,
        s_values=s_table, null_effect_sizes=null_effects, missing=report.as_dict(),
        random_seed=seed, bootstrap=bootstrap, population=population,
        population_note=population_note,
    )


def _population_bootstrap(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, n_boot: int,
                          rng: np.random.Generator, seed: int | None
                          ) -> tuple[WeatPopulationBootstrap | None, str]:
    """The population interval of :func:`weat` from its own spawned stream (so today's
    bootstrap and permutations are unchanged), or None and why not."""
    from .weat_population import weat_population_bootstrap

    if min(sim_a.shape[1], sim_b.shape[1]) < 2:
        return None, ("the disattenuation needs at least 2 words in A and in B (the noise "
                      "of s from the attribute list is estimated from the (target, "
                      "attribute) interaction)")
    try:
        population = weat_population_bootstrap(sim_a, sim_b, n_x, n_boot=n_boot,
                                               random_seed=_bootstrap_stream(rng))
    except ValueError as exc:  # tied s values: no disattenuated effect size (0/0)
        return None, str(exc)
    return dataclasses.replace(population, random_seed=seed), ""


def _list_labels(set_names: Sequence[str]) -> list[str]:
    """``X``, ``Y``, ``A``, ``B``, each with its set name when it has another one."""
    if isinstance(set_names, str) or len(set_names) != 4 or len(set(set_names)) != 4:
        raise ValueError(f"set_names must be 4 distinct names, got {set_names!r}")
    return [k if n == k else f"{k} ({n!r})" for k, n in zip("XYAB", set_names, strict=True)]


def _weat_lists(X: Any, Y: Any, A: Any, B: Any, *,
                set_names: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """WEAT's four word lists, checked (:func:`embias._validation.check_word_list`): X and
    Y need two words each, A and B one."""
    return tuple(
        check_word_list(label, words, minimum=minimum, why=why)
        for label, words, minimum, why in zip(
            _list_labels(set_names), (X, Y, A, B), (2, 2, 1, 1),
            (ONE_WORD_WHY, ONE_WORD_WHY, ATTRIBUTE_WHY, ATTRIBUTE_WHY), strict=True))


def check_weat_roles(lists: Sequence[Sequence[str]], *,
                     set_names: Sequence[str] = ("X", "Y", "A", "B"),
                     lowercase: bool = False, name: str = "weat") -> None:
    """Refuse a word in two of WEAT's lists X, Y, A, B (X = Y, X and Y sharing a word, a
    target word in A or B, a word in both A and B), after the case handling of the
    lookup (:func:`embias._validation.check_distinct_lists`)."""
    check_distinct_lists(dict(zip(_list_labels(set_names), lists, strict=True)),
                         key=str.lower if lowercase else None, context=f"WEAT {name!r}: ")


def _bootstrap_stream(rng: np.random.Generator) -> np.random.Generator:
    """A generator independent of ``rng``'s own draws: spawned from its seed sequence
    (``rng`` itself when it has none), so the bootstrap does not shift the permutations."""
    try:
        return rng.spawn(1)[0]
    except TypeError:  # pragma: no cover - a Generator built without a SeedSequence
        return rng


def weat_test(
    test: str | Study,
    embeddings: KeyedVectors | str = "glove-6b-50d",
    **options: object,
) -> WeatResult:
    """Run one of Caliskan et al.'s ten tests (``"weat1"`` … ``"weat10"``) or any
    two-class :class:`~embias.Study` with :func:`weat`; ``options`` as for :func:`weat`."""
    study = load_study(test)
    X, Y, A, B = study.weat_sets()
    options.setdefault("name", study.name)
    (cx, cy), (ca, cb) = study.protected, (study.associations[c] for c in study.protected)
    options.setdefault("set_names", (cx, cy, ca, cb) if len({cx, cy, ca, cb}) == 4
                       else ("X", "Y", "A", "B"))
    return weat(embeddings, X, Y, A, B, **options)  # type: ignore[arg-type]


def weat_pairs(
    embeddings: KeyedVectors | str,
    study: Study | str,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    null_ci_prob: float = DEFAULT_CI_PROB,
    **options: object,
) -> pd.DataFrame:
    """WEAT for every pair of protected classes of a multi-class study (e.g. religion):
    X, Y = the two classes' protected words, A, B = their associated attribute lists.

    ``options`` go to :func:`weat` (``permutations``, ``alternative``, ``n_boot``,
    ``random_seed`` …).

    Returns
    -------
    pandas.DataFrame
        Interval table, one row per pair (``group`` = ``"jewish vs muslim"``): the effect
        size with its ``ci_prob`` item-bootstrap interval, its permutation ``p_value`` and
        the null's central ``null_ci_prob`` range in ``null_lower``/``null_upper`` (see
        :meth:`WeatResult.to_interval_table`).
    """
    check_probability("ci_prob", ci_prob)
    check_probability("null_ci_prob", null_ci_prob)
    study = load_study(study)
    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    parts = []
    for cx, cy in itertools.combinations(study.protected, 2):
        pair = study.replace(
            name=f"{cx} vs {cy}",
            protected={cx: study.protected[cx], cy: study.protected[cy]},
            associations={cx: study.associations[cx], cy: study.associations[cy]},
        )
        result = weat_test(pair, kv, **options)
        parts.append(result.to_interval_table(ci_prob=ci_prob, null_ci_prob=null_ci_prob))
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- MAC
@dataclass(frozen=True)
class MacResult:
    """Result of :func:`mac`.

    Attributes
    ----------
    value
        MAC: mean over protected words t and attribute classes j of S(t, A_j), the mean
        cosine *distance* of t to the words of A_j (Manzini's convention).
    s_values
        One row per (protected word, attribute class): ``protected_word``,
        ``protected_class``, ``word_class``, ``connection``, ``S``, ``n``.
    by_class
        Mean S per (protected class, attribute class, connection).
    """

    value: float
    s_values: pd.DataFrame = field(repr=False)
    by_class: pd.DataFrame = field(repr=False)
    study: str = ""
    embedding: str = ""

    def to_interval_table(self, *, ci_prob: float = DEFAULT_CI_PROB) -> pd.DataFrame:
        """MAC overall and per connection (associated/different) with Student-t intervals
        over the S values (``ci_kind="t"``; the S values share words, so these intervals
        are the classic, optimistic ones). ``ci_prob`` defaults to embias's one interval
        probability, 0.89 (:data:`embias.settings.DEFAULT_CI_PROB`); pass a paper's level
        (e.g. 0.95) to reproduce its figures."""
        ci_prob = check_probability("ci_prob", ci_prob)
        rows = []
        groups = [("all", self.s_values["S"].to_numpy())]
        groups += [(c, g["S"].to_numpy()) for c, g in self.s_values.groupby("connection")]
        for label, values in groups:
            n = values.size
            mean = float(values.mean())
            if n > 1:
                # Student t quantile (scipy.stats.t.ppf is this function; scipy.stats itself
                # takes ≈ 1 s to import)
                from scipy.special import stdtrit

                half = stdtrit(n - 1, (1 + ci_prob) / 2) * values.std(ddof=1) / math.sqrt(n)
            else:
                half = np.nan
            rows.append({"estimand": "mac", "group": label, "estimate": mean,
                         "lower": mean - half, "upper": mean + half, "n_S": n})
        return interval_table(rows, ci_prob=ci_prob, ci_kind="t")


def mac(
    embeddings_or_table: KeyedVectors | str | pd.DataFrame,
    study: Study | str | None = None,
    *,
    missing: Literal["warn", "raise"] = "warn",
    lowercase: bool | None = None,
) -> MacResult:
    """Mean Average Cosine distance (Manzini et al. 2019).

    S(t, A_j) = mean_{a ∈ A_j} (1 − cos(t, a)); MAC = mean over protected words t and
    attribute classes j of S(t, A_j). Computed from the ``associated`` and ``different``
    rows of a cosine table (controls are ignored).

    Parameters
    ----------
    embeddings_or_table
        A long-form cosine table (e.g. from :func:`embias.load_published_table`), or
        embeddings from which the study's table is built.
    study
        Needed with embeddings; optional with a table.
    missing, lowercase
        As for :func:`embias.cosine_table` (embeddings only).

    Returns
    -------
    MacResult

    Raises
    ------
    ValueError
        A protected word that is also an attribute word — in the study (refused by the
        study and, for case variants that are one word in the embeddings, by
        :func:`embias.cosine_table`) or among a given table's attribute rows
        (:func:`check_mac_roles`): S(t, A_j) would compare t with itself or hold t's rows
        under two roles.

    Notes
    -----
    MAC draws nothing at random, so its result has no seed.
    """
    if isinstance(embeddings_or_table, pd.DataFrame):
        table = embeddings_or_table
    else:
        if study is None:
            raise ValueError("mac() on embeddings needs a study (e.g. 'religion')")
        st = load_study(study)
        # MAC averages every attribute class alike: associations are not needed
        table = cosine_table(embeddings_or_table, st.replace(neutral=(), human=()),
                             missing=missing, lowercase=lowercase, unassociated="different")
    validate_table(table, what="table given to mac()")
    attr = table[table["connection"].isin(["associated", "different"])]
    if attr.empty:
        raise ValueError("mac() needs 'associated'/'different' rows (attribute comparisons); "
                         "the table has none")
    if "protected_class" not in attr.columns:
        attr = attr.assign(protected_class="")
    check_mac_roles(
        {str(c): g.unique() for c, g in attr.groupby("protected_class", sort=False)[
            "protected_word"]},
        {str(c): g.unique() for c, g in attr.groupby("word_class", sort=False)[
            "word_to_compare"]},
        context="MAC of the table's attribute rows: ")
    s_values = (
        attr.groupby(["protected_word", "protected_class", "word_class", "connection"],
                     sort=False)["cosine_distance"]
        .agg(S="mean", n="size")
        .reset_index()
    )
    by_class = (
        s_values.groupby(["protected_class", "word_class", "connection"], sort=False)["S"]
        .mean()
        .reset_index()
    )
    study_name = study.name if isinstance(study, Study) else (study or table.attrs.get("study", ""))
    embedding = str(table["embedding"].iloc[0]) if "embedding" in table.columns else ""
    return MacResult(value=float(s_values["S"].mean()), s_values=s_values, by_class=by_class,
                     study=str(study_name), embedding=embedding)


def check_mac_roles(protected: Mapping[str, Sequence[str]],
                    attributes: Mapping[str, Sequence[str]], *, lowercase: bool = False,
                    context: str = "") -> None:
    """Refuse a protected word that is also an attribute word (after the case handling):
    MAC's S(t, A_j) compares protected words with attribute words, each in one role
    (:func:`embias._validation.check_distinct_lists`)."""
    lists = {f"protected[{c!r}]": tuple(w) for c, w in protected.items()}
    lists |= {f"attributes[{c!r}]": tuple(w) for c, w in attributes.items()}
    pairs = [(f"protected[{p!r}]", f"attributes[{a!r}]") for p in protected for a in attributes]
    check_distinct_lists(lists, pairs=pairs, key=str.lower if lowercase else None,
                         context=context)


def mac_ttest(before: MacResult, after: MacResult) -> Any:
    """Manzini et al.'s paired t-test of the S values of two embeddings (e.g. biased vs
    debiased), matched on (protected word, attribute class).

    Returns
    -------
    scipy.stats._result_classes.TtestResult
        scipy's result (``statistic``, ``pvalue``, ``df``, ``confidence_interval()``).

    Raises
    ------
    ValueError
        When the two results share fewer than two (word, class) pairs.
    """
    key = ["protected_word", "word_class"]
    merged = before.s_values.merge(after.s_values, on=key, suffixes=("_before", "_after"))
    if len(merged) < 2:
        raise ValueError(f"the two MAC results share {len(merged)} (protected word, attribute "
                         "class) pairs; the paired t-test needs at least 2")
    from scipy import stats

    return stats.ttest_rel(merged["S_before"], merged["S_after"])


# --------------------------------------------------------------------------- overview
#: Effect sizes Caliskan et al. (2017) report for GloVe 840B, tests 1–10.
CALISKAN_840B: tuple[float, ...] = (1.50, 1.53, 1.41, 1.50, 1.28, 1.81, 1.06, 1.24, 1.38,
                                    1.21)


def weat_overview(
    embeddings: KeyedVectors | str = "glove-6b-50d",
    *,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Alternative = "two-sided",
    n_boot: int = DEFAULT_N_BOOT,
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """WEAT effect size with its item-bootstrap interval, p-value, missing words and MAC
    for Caliskan et al.'s ten tests, next to the effect sizes they report for GloVe 840B
    (:data:`CALISKAN_840B`).

    ``permutations``, ``alternative`` and ``n_boot`` go to :func:`weat`.

    Parameters
    ----------
    random_seed
        Seed of every test's permutations and bootstrap (each test starts from the same
        seed), or a Generator the tests draw from in turn. ``None`` (the default) draws
        one seed from the OS entropy (the seed policy of :mod:`embias._validation`); the
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``,
        and passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per test: ``test``, ``effect_size``, ``lower``/``upper`` (the ``ci_prob``
        percentile interval of the two-way item bootstrap, :func:`weat_item_bootstrap`:
        other words from the same populations), ``ci_prob``, ``p_value`` (permutation
        test: could the X/Y labels be arbitrary?), ``p_method`` (``exact`` or
        ``MC <permutations>``), ``random_seed`` (the seed of the test's permutations and
        bootstrap; None when a Generator was given), ``mac``, ``caliskan_840B``,
        ``missing`` (missing words per list, or ``none``). ``attrs["random_seed"]`` holds
        the seed too.
    """
    import warnings

    ci_prob = check_probability("ci_prob", ci_prob)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    # one seed for the whole table (drawn here when None), so passing it back repeats it
    _, seed = resolve_rng(random_seed)
    seeds = random_seed if seed is None else seed

    kv = load_embeddings(embeddings) if isinstance(embeddings, str) else embeddings
    rows = []
    for i, published in enumerate(CALISKAN_840B, start=1):
        test = f"weat{i}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # missing words: the column below
            r = weat_test(test, kv, permutations=permutations, alternative=alternative,
                          n_boot=n_boot, random_seed=seeds)
            m = mac(kv, test)
        missing = {k: len(v["missing"]) for k, v in r.missing.items() if v["missing"]}
        lower, upper = r.interval(ci_prob)
        rows.append({
            "test": test,
            "effect_size": r.effect_size,
            "lower": lower,
            "upper": upper,
            "ci_prob": ci_prob,
            "p_value": r.p_value,
            "p_method": "exact" if r.exact else f"MC {r.n_permutations:,}",
            "random_seed": r.random_seed,
            "mac": m.value,
            "caliskan_840B": published,
            "missing": ", ".join(f"{k}:{v}" for k, v in missing.items()) or "none",
        })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


# =========================================================================== the same table
#: Confidence level of the classic (MAC t) intervals of :func:`classic_scores` and
#: :func:`classic_changes`: embias's one default interval probability
#: (:data:`embias.settings.DEFAULT_CI_PROB`, 0.89); pass ``ci_prob=0.95`` for a paper's.
CLASSIC_CI_PROB = DEFAULT_CI_PROB



def _table_weat(table: pd.DataFrame) -> list[dict[str, Any]]:
    """WEAT effect size of every pair of protected classes, from the table's attribute
    rows (``associated``/``different``)."""
    if "protected_class" not in table.columns:
        return []
    assoc = table[table["connection"] == "associated"]
    attr_of = assoc.groupby("protected_class")["word_class"].first().to_dict()
    classes = [c for c in table["protected_class"].unique() if c in attr_of]
    if "cosine_similarity" in table.columns:
        sim = table["cosine_similarity"].astype(float)
    else:
        sim = 1.0 - table["cosine_distance"].astype(float)
    attrs = table[table["word_class"].isin(set(attr_of.values()))].assign(sim=sim)
    mean_sim = attrs.groupby(["protected_word", "word_class"])["sim"].mean()
    word_class = table.groupby("protected_word")["protected_class"].first()
    rows = []
    for i, cx in enumerate(classes):
        for cy in classes[i + 1:]:
            a, b = attr_of[cx], attr_of[cy]
            x = [w for w in word_class.index if word_class[w] == cx]
            y = [w for w in word_class.index if word_class[w] == cy]
            try:
                s_x = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in x])
                s_y = np.array([mean_sim[(w, a)] - mean_sim[(w, b)] for w in y])
                effect = weat_effect_size(s_x, s_y)
            except (KeyError, ValueError):
                continue
            rows.append({"estimand": "weat_effect_size", "group": f"{cx} vs {cy}",
                         "estimate": float(effect), "lower": np.nan, "upper": np.nan})
    return rows



def classic_scores(table: pd.DataFrame, *, ci_prob: float = CLASSIC_CI_PROB) -> pd.DataFrame:
    """The classic pre-averaged scores of the same table, as interval-table rows.

    MAC overall and per connection (:func:`embias.mac`, Student-t intervals) and, when
    the table has ``protected_class``, the WEAT effect size of every pair of protected
    classes computed from the table's rows (X, Y = the two classes' protected words,
    A, B = their associated attribute classes; no interval: the permutation test needs
    the embeddings, see :func:`weat_pairs`). Empty when the table has no
    ``word_class`` column. ``ci_prob`` defaults to 0.89 (:data:`CLASSIC_CI_PROB`).
    """
    ci_prob = check_probability("ci_prob", ci_prob)
    parts = []
    if "word_class" not in table.columns:  # MAC and WEAT need the attribute classes
        return interval_table([], ci_prob=None, ci_kind="none")
    attr = table[table["connection"].isin(["associated", "different"])]
    if not attr.empty:  # MAC reads only the attribute rows
        parts.append(mac(attr).to_interval_table(ci_prob=ci_prob))
    weat_rows = _table_weat(attr)
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    if not parts:
        return interval_table([], ci_prob=None, ci_kind="none")
    return pd.concat(parts, ignore_index=True)



def _sub_mac(result: MacResult, connection: str) -> MacResult:
    if connection == "all":
        return result
    s = result.s_values[result.s_values["connection"] == connection]
    return dataclasses.replace(result, value=float(s["S"].mean()), s_values=s)



def classic_changes(
    tables: Mapping[str, pd.DataFrame],
    *,
    reference: str,
    ci_prob: float = CLASSIC_CI_PROB,
) -> pd.DataFrame:
    """Classic scores of every embedding and their changes against the reference.

    Per embedding: :func:`classic_scores` (MAC overall and per connection
    with Student-t intervals, WEAT effect size per pair of protected classes). Per
    non-reference embedding: ``mac_change`` (MAC(e) − MAC(reference), overall and per
    connection) with the Student-t interval and p-value of Manzini et al.'s paired
    t-test over the S values (:func:`mac_ttest`), and ``weat_change`` (difference
    of WEAT effect sizes; no interval).

    Returns
    -------
    pandas.DataFrame
        Interval table with ``embedding`` (and ``reference`` for change rows).
    """
    ci_prob = check_probability("ci_prob", ci_prob)
    per = stack_interval_tables({label: classic_scores(t, ci_prob=ci_prob)
                                 for label, t in tables.items()}, key="embedding")
    per["reference"] = ""
    macs = {label: mac(t) for label, t in tables.items()
            if t["connection"].isin(["associated", "different"]).any()}
    mac_rows, weat_rows = [], []
    for label in tables:
        if label == reference:
            continue
        if label in macs and reference in macs:
            groups = ["all", *[c for c in ("associated", "different")
                               if (macs[reference].s_values["connection"] == c).any()]]
            for group in groups:
                before, after = _sub_mac(macs[reference], group), _sub_mac(macs[label], group)
                test = mac_ttest(before, after)  # tests before − after
                ci = test.confidence_interval(ci_prob)
                mac_rows.append({
                    "estimand": "mac_change", "group": group, "embedding": label,
                    "reference": reference, "estimate": -(ci.low + ci.high) / 2,
                    "lower": -ci.high, "upper": -ci.low, "p_value": float(test.pvalue),
                    "n_S": int(test.df) + 1, "mac_reference": before.value,
                    "mac_embedding": after.value,
                })
        weat_ref = per[(per["embedding"] == reference) & (per["estimand"] == "weat_effect_size")]
        weat_e = per[(per["embedding"] == label) & (per["estimand"] == "weat_effect_size")]
        both = weat_ref.merge(weat_e, on="group", suffixes=("_ref", "_e"))
        for _, row in both.iterrows():
            weat_rows.append({"estimand": "weat_change", "group": row["group"],
                              "embedding": label, "reference": reference,
                              "estimate": row["estimate_e"] - row["estimate_ref"],
                              "lower": np.nan, "upper": np.nan})
    parts = [per]
    if mac_rows:
        parts.append(interval_table(mac_rows, ci_prob=ci_prob, ci_kind="t"))
    if weat_rows:
        parts.append(interval_table(weat_rows, ci_prob=None, ci_kind="none"))
    return stack_interval_tables(parts)

