"""Coverage of WEAT's item-bootstrap interval over studies drawn from populations of words.

The studies are drawn from populations of word vectors
(:func:`simulate_weat_bootstrap_coverage`), whose population effect size is
:func:`vector_model_effect_size`; the two-way interval is compared with the naive one that
holds the attribute lists fixed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import (
    check_choice,
    check_int,
    check_number,
    check_probability,
    check_seed,
    resolve_rng,
)
from ..classic import (
    RESAMPLE_OPTIONS,
    association_scores,
    weat_effect_size,
    weat_item_bootstrap,
)
from ..settings import DEFAULT_CI_PROB
from .design import as_tuple

__all__ = [
    "BOOTSTRAP_COVERAGE_DESIGNS",
    "SeededEstimate",
    "simulate_weat_bootstrap_coverage",
    "vector_model_effect_size",
    "vector_model_study",
]


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
    """A Monte Carlo estimate and its standard error, ``(estimate, se)``, with its seed.

    The seed is that of the draws (:func:`vector_model_effect_size`); the estimate unpacks
    and compares as a pair.

    Attributes
    ----------
    random_seed
        The seed of the draws (None when a Generator was given): passing it back repeats
        the estimate exactly.
    """

    random_seed: int | None

    def __new__(cls, values: Sequence[float] = (), random_seed: int | None = None
                ) -> SeededEstimate:
        """Return the pair ``values`` with its ``random_seed``."""
        pair = super().__new__(cls, values)
        pair.random_seed = random_seed
        return pair

    def __repr__(self) -> str:
        """Show the pair and its seed."""
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
    """Estimate the population WEAT effect size of the coverage simulations' word-vector model.

    The model is that of :func:`simulate_weat_bootstrap_coverage`; the population effect
    size is the value the WEAT effect size tends to when all four word lists grow (equal X
    and Y sizes).

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

    Parameters
    ----------
    dim, common, association, target_separation
        The model: dimension (≥ 3), c, a and t.
    n_draws
        Draws of the four scalars (≥ 20,000), in 20 batches.
    random_seed
        A seed or Generator; ``None`` (the default) draws a seed from the OS entropy. The
        seed used is the result's ``random_seed``: passing it back repeats the estimate
        exactly.

    Returns
    -------
    SeededEstimate
        The pair (effect size, its Monte Carlo standard error from 20 batches), with the
        seed as ``random_seed``.

    Raises
    ------
    ValueError
        A bad model value, ``n_draws`` < 20,000 or a bad seed.

    Examples
    --------
    Without association the antithetic draws cancel exactly:

    >>> from embias.simulate import vector_model_effect_size
    >>> vector_model_effect_size(association=0.0, n_draws=20_000, random_seed=0)
    SeededEstimate((0.0, 0.0), random_seed=0)
    >>> effect, se = vector_model_effect_size(n_draws=200_000, random_seed=0)
    >>> round(effect, 2), se < 0.01
    (1.2, True)
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


def vector_model_study(rng: np.random.Generator, n_targets: int, n_attributes: int,
                       dim: int, common: float, association: float,
                       attribute_separation: float, target_separation: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Draw one study from the coverage simulations' word-vector model.

    Parameters
    ----------
    rng
        The Generator drawn from.
    n_targets, n_attributes
        Words per target list and per attribute list.
    dim, common, association, attribute_separation, target_separation
        The model, as for :func:`simulate_weat_bootstrap_coverage`.

    Returns
    -------
    sim_a, sim_b : numpy.ndarray
        Cosine similarities of the target words (rows: X, then Y) with the words of A and
        of B.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.simulate.coverage import vector_model_study
    >>> sim_a, sim_b = vector_model_study(np.random.default_rng(0), 3, 4, 50, 3.0, 0.75,
    ...                                   3.0, 3.0)
    >>> sim_a.shape, sim_b.shape, bool(np.abs(sim_a).max() <= 1)
    ((6, 4), (6, 4), True)
    """
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

    Raises
    ------
    ValueError
        A bad model value or option, a design that is not a pair, target lists of fewer
        than two words, attribute lists of none, or no designs.

    Examples
    --------
    Five studies of 3 + 3 target and 2 + 2 attribute words. The population effect size is
    that of :func:`vector_model_effect_size` (about 1.2); the two-way interval is wider
    than the naive one that holds the attribute words fixed:

    >>> import embias
    >>> table = embias.simulate_weat_bootstrap_coverage([(3, 2)], n_sims=5, n_boot=50,
    ...                                                 random_seed=0)
    >>> table["resample"].tolist(), round(float(table["effect_size"].iloc[0]), 2)
    (['targets and attributes', 'targets'], 1.2)
    >>> bool(table["mean_width"].iloc[0] > table["mean_width"].iloc[1])
    True
    """
    dim, common, association, attribute_separation, target_separation = _check_vector_model(
        dim, common, association, attribute_separation, target_separation)
    n_sims = check_int("n_sims", n_sims, minimum=1)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    ci_prob = check_probability("ci_prob", ci_prob)
    options = [check_choice("resample", r, RESAMPLE_OPTIONS) for r in as_tuple(resample)]
    seed = check_seed(random_seed)
    checked = [(check_int("target words per group", d[0], minimum=2),
                check_int("attribute words per set", d[1], minimum=1))
               for d in (_as_design(d) for d in designs)]
    if not checked:
        raise ValueError("designs must hold at least one (targets per group, attributes per "
                         "set) pair, got none")
    effect = vector_model_effect_size(
        dim=dim, common=common, association=association,
        target_separation=target_separation, random_seed=seed)
    model = (dim, common, association, attribute_separation, target_separation)
    rows = []
    for n_t, n_a in checked:
        start = time.perf_counter()
        estimates, bounds, redrawn = _design_intervals(
            n_t, n_a, model, n_sims=n_sims, n_boot=n_boot, ci_prob=ci_prob, options=options,
            seed=seed)
        seconds = time.perf_counter() - start
        rows += [{"n_targets_per_group": n_t, "n_attributes_per_set": n_a, "resample": r,
                  **_coverage(effect, estimates, bounds[r]), "boot_redrawn": redrawn[r],
                  "n_sims": n_sims, "n_boot": n_boot, "ci_prob": ci_prob,
                  "random_seed": seed, "seconds": seconds} for r in options]
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table


def _design_intervals(n_t: int, n_a: int, model: tuple[int, float, float, float, float], *,
                      n_sims: int, n_boot: int, ci_prob: float, options: Sequence[str],
                      seed: int) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, int]]:
    """Return the effect sizes, bootstrap intervals and redrawn counts of one design.

    The observed effect size of ``n_sims`` studies of one design, the bootstrap interval
    of each study for every ``resample`` option, and the replicates each option redrew.
    Study i is seeded by (seed, n_t, n_a, i).
    """
    estimates = np.empty(n_sims)
    bounds = {r: np.empty((n_sims, 2)) for r in options}
    redrawn = dict.fromkeys(options, 0)
    for i in range(n_sims):
        rng = np.random.default_rng([seed, n_t, n_a, i])
        sim_a, sim_b = vector_model_study(rng, n_t, n_a, *model)
        s = association_scores(sim_a, sim_b)
        estimates[i] = weat_effect_size(s[:n_t], s[n_t:])
        for r in options:
            boot = weat_item_bootstrap(sim_a, sim_b, n_t, n_boot=n_boot, resample=r,
                                       random_seed=rng)
            bounds[r][i] = boot.interval(ci_prob)
            redrawn[r] += boot.n_redrawn
    return estimates, bounds, redrawn


def _coverage(effect: SeededEstimate, estimates: np.ndarray,
              bounds: np.ndarray) -> dict[str, float]:
    """Return the coverage columns of one design and option.

    Coverage is how often the (study, 2) intervals ``bounds`` hold the population
    ``effect``.
    """
    value, value_se = effect
    lo, hi = bounds[:, 0], bounds[:, 1]
    cov = float(np.mean((lo <= value) & (value <= hi)))
    return {"effect_size": value, "effect_size_se": value_se,
            "mean_estimate": float(estimates.mean()), "coverage": cov,
            "coverage_se": math.sqrt(cov * (1 - cov) / len(bounds)),
            "below": float(np.mean(hi < value)), "above": float(np.mean(lo > value)),
            "mean_width": float(np.mean(hi - lo))}


def _as_design(design: Any) -> tuple[Any, Any]:
    if isinstance(design, str) or not isinstance(design, Sequence) or len(design) != 2:
        raise ValueError(f"each design must be a (target words per group, attribute words "
                         f"per set) pair, got {design!r}")
    return design[0], design[1]
