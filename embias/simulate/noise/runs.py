"""Running the pre-averaging simulations: one design, or a grid of designs.

:func:`simulate_weat` simulates raw cosine similarities of one WEAT design and their effect
sizes; :func:`simulate_weat_grid` runs it over every combination of design values.
:data:`PUBLISHED_FIGURES` are the figures its first-word numerator reproduces.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._validation import check_int, check_number, check_probability, resolve_rng
from ...settings import DEFAULT_CI_PROB
from ..design import CALISKAN_LARGEST_EFFECT, Numerator, as_tuple, check_design
from .draws import simulate_blocks
from .results import WeatSimulation, WeatSimulationGrid

__all__ = ["PUBLISHED_FIGURES", "simulate_weat", "simulate_weat_grid"]

#: The figures on the slides (10,000 simulations, 8 + 8 protected words, 8 + 8 attributes,
#: sd .08), computed with the first-word numerator: association → (95% range lower,
#: upper, share of |WEAT| ≥ 1.81).
PUBLISHED_FIGURES: dict[float, tuple[float, float, float]] = {
    0.0: (-2.763, 2.698, 0.2138),
    0.1: (0.851, 2.764, 0.513),
    0.4: (1.679, 2.185, 0.829),
}


def _check_summary_options(threshold: Any, ci_prob: Any) -> tuple[float, float]:
    return (check_number("threshold", threshold, low=0.0, low_open=True),
            check_probability("ci_prob", ci_prob))



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
    scores, raw_sd, means_sd = simulate_blocks(seed, n_sims, n, m, sd, association,
                                               numerator, ddof)
    if label is None:
        label = f"n={n} m={m} sd={sd:g} assoc={association:g} {numerator}"
    return WeatSimulation(
        scores=scores, raw_sd=raw_sd, means_sd=means_sd, n_protected_per_group=n,
        n_attributes=m, sd=sd, association=association, numerator=numerator, ddof=ddof,
        threshold=threshold, ci_prob=ci_prob, seed=seed, label=str(label),
    )



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

