"""WEAT's effect size of the word *populations*, and an interval that covers it.

WEAT's effect size d = (mean_X s − mean_Y s) / sd_{X∪Y}(s) is computed from the
association scores s(t) = mean_{a∈A} cos(t, a) − mean_{b∈B} cos(t, b) of a few target
words t and a few attribute words. The question a user asks of it is about the categories
the words stand for: with populations X, Y of target words and A, B of attribute words,

* s_pop(t) = E_a cos(t, a) − E_b cos(t, b) = t̂ · (E â − E b̂) (means over the attribute
  populations of the unit vectors), and
* d_pop = (E_X s_pop − E_Y s_pop) / sd(s_pop), the sd over the union of the two target
  populations mixed with shares w and 1 − w (w = |X| / (|X| + |Y|) of the design:
  ½ for equal lists)

— the value WEAT's d tends to when all four lists grow (:func:`population_effect_size`).

A short attribute list makes d *attenuated*: s(t) carries the noise of the attribute words
drawn, t̂ · ε with ε = (ā − E â) − (b̄ − E b̂) shared by all targets, whose spread over the
targets, E ε'Σ_Xε = tr(Σ_X Σ_A)/|A| + tr(Σ_X Σ_B)/|B|, inflates the sd in d's
denominator. tr(Σ_X Σ_A) is the (target, attribute) interaction variance of the block
of similarities cos(x, a), x ∈ X, a ∈ A, and the residual mean square of its two-way
(double-centred) decomposition estimates it without bias. Subtracting that noise from the
within-group variances of s gives the disattenuated estimate
(:func:`disattenuated_effect_size`).

Its interval (:func:`weat_population_bootstrap`) is a two-way (crossed) item bootstrap of
the disattenuated estimate, drawn from a bootstrap world whose population effect size is
the estimate: each target group's s values are scaled about their mean (the rows of the
similarity blocks shifted) so that their spread over the words — the world's population —
is the disattenuated one, while the interaction residuals — the noise a fresh attribute
list brings — are kept. In the plain bootstrap world the population *is* the observed
words, noise included, so its replicates centre on the attenuated value; rescaling the
estimated components to their estimated variances before resampling is the remedy of
Carpenter, Goldstein & Rasbash (2003) for the same problem in multilevel bootstraps.

A resample is not a sample of distinct words: an attribute list drawn with replacement
from the world's n words repeats some of them, and the noise it adds to s depends on how
the draws fell — none for the world's own n words, more the more often a word repeats, 1/n
of the interaction variance on average. Each replicate's disattenuation therefore
subtracts the noise its own lists carry, the interaction mean square of the distinct words
drawn times (Σ k² − n)/(n (n − 1)) (k: how often each word was drawn), not the noise of n
distinct words. The replicates are then re-centred on the
estimate (their median bias in the world taken out) and the interval is their central
``ci_prob`` range. Its coverage of d_pop, next to the plain bootstrap's, is measured by
``benchmarks/bench_weat_population.py`` on the shipped real word populations and on the
word-vector model of :func:`embias.simulate.simulate_weat_bootstrap_coverage`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_int, check_number, check_probability, resolve_rng
from .classic import (
    DEFAULT_N_BOOT,
    MAX_DRAWS_PER_REPLICATE,
    ONE_WORD_WHY,
    bootstrap_counts,
)
from .settings import DEFAULT_CI_PROB

__all__ = [
    "POPULATION_CI_KIND",
    "WeatPopulationBootstrap",
    "disattenuated_effect_size",
    "population_effect_size",
    "weat_population_bootstrap",
]

#: ``ci_kind`` of the population interval (a percentile interval of bootstrap replicates).
POPULATION_CI_KIND = "bootstrap"
#: Why the disattenuation needs two words per attribute list.
TWO_ATTRIBUTES_WHY = ("the noise of s(t) from a finite attribute list is estimated from the "
                      "(target, attribute) interaction, which one attribute word cannot show")
#: Replicates computed at once.
_CHUNK = 10_000


# =========================================================================== estimand
def _unit_rows(name: str, vectors: object) -> np.ndarray:
    v = np.asarray(vectors, dtype=float)
    if v.ndim != 2 or v.shape[0] == 0 or v.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D array of word vectors (one row per word), got "
                         f"shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError(f"{name} holds a non-finite value (NaN or inf)")
    norms = np.linalg.norm(v, axis=1)
    if np.any(norms == 0):
        raise ValueError(f"{name} holds a zero vector (row {int(np.argmin(norms))}): its "
                         "cosine similarity is undefined")
    return v / norms[:, None]


def _effect(delta: np.ndarray | float, within: np.ndarray | float, w: float
            ) -> np.ndarray | float:
    """Return Δ / √(within + w(1−w)Δ²), the effect size of a w / (1 − w) mixture.

    Of two groups whose means differ by Δ and whose pooled within-group variance is
    ``within``.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return delta / np.sqrt(within + w * (1 - w) * delta * delta)


def population_effect_size(
    X: np.ndarray,
    Y: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    *,
    x_share: float = 0.5,
) -> float:
    """Compute WEAT's effect size of whole populations of words.

    The limit of WEAT's d as all four lists grow.

    s_pop(t) = t̂ · (mean_A â − mean_B b̂) is the association score of target t with the
    whole attribute populations (the mean cosine with A's words minus that with B's), and

        d_pop = (m_X − m_Y) / √(w v_X + (1 − w) v_Y + w (1 − w)(m_X − m_Y)²),

    with m, v the mean and variance (over the population, ``ddof=0``) of s_pop in X and
    in Y and w = ``x_share``: the variance of s_pop over the union of X and Y mixed
    w / (1 − w). WEAT's sample sd over X ∪ Y tends to that mixture's sd when the lists
    grow with |X| / (|X| + |Y|) → w, so d_pop is the limit of WEAT's d (with either
    ``ddof``); with the populations themselves as lists and w = |X| / (|X| + |Y|) it
    *is* WEAT's d with ``ddof=0``.

    Parameters
    ----------
    X, Y, A, B
        Word vectors of the four populations, one row per word (normalised here: only
        directions count, as in the cosine). Each word weighs the same.
    x_share
        w, the share of X in the union, in (0, 1): ½ for the equal target lists of a
        WEAT; |X| / (|X| + |Y|) for the union of the two populations as they are.

    Returns
    -------
    float
        d_pop, in [−1/√(w(1−w)), 1/√(w(1−w))] (±2 for w = ½).

    Raises
    ------
    ValueError
        An input that is not a non-empty 2-D array of finite vectors, a zero vector,
        vectors of different dimensions, ``x_share`` outside (0, 1), or s_pop with no
        spread at all (d_pop undefined: 0/0).

    Examples
    --------
    With A = {(1, 0)} and B = {(0, 1)}, s_pop(t) = t₁ − t₂: 1 and −0.2 for X, −1 and 0.2
    for Y, so m_X − m_Y = 0.8, v_X = v_Y = 0.36 and d_pop = 0.8 / √(0.36 + 0.16) = 1.109.

    >>> import numpy as np
    >>> X = np.array([[1, 0], [0.6, 0.8]])
    >>> Y = np.array([[0, 1], [0.8, 0.6]])
    >>> round(population_effect_size(X, Y, np.array([[1, 0]]), np.array([[0, 1]])), 3)
    1.109
    """
    w = check_number("x_share", x_share, low=0.0, high=1.0, low_open=True, high_open=True)
    x, y, a, b = (_unit_rows(n, v) for n, v in zip("XYAB", (X, Y, A, B), strict=True))
    dims = {n: v.shape[1] for n, v in zip("XYAB", (x, y, a, b), strict=True)}
    if len(set(dims.values())) != 1:
        raise ValueError(f"X, Y, A and B must have vectors of one dimension, got {dims}")
    direction = a.mean(axis=0) - b.mean(axis=0)
    s_x, s_y = x @ direction, y @ direction
    delta = float(s_x.mean() - s_y.mean())
    within = w * float(s_x.var()) + (1 - w) * float(s_y.var())
    if within + w * (1 - w) * delta * delta <= 0:
        raise ValueError("s_pop has no spread over X ∪ Y (every target word has the same "
                         "association with the attribute populations): d_pop is undefined")
    return float(_effect(delta, within, w))


# =========================================================================== estimate
def _check_similarities(sim_a: object, sim_b: object, n_x: object
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    sim_a = np.asarray(sim_a, dtype=float)
    sim_b = np.asarray(sim_b, dtype=float)
    if sim_a.ndim != 2 or sim_b.ndim != 2 or sim_a.shape[0] != sim_b.shape[0]:
        raise ValueError(f"sim_a and sim_b must be 2-D with one row per target word, got "
                         f"shapes {sim_a.shape} and {sim_b.shape}")
    for name, sim in (("A", sim_a), ("B", sim_b)):
        check_int(f"the number of attribute words in {name} (columns of sim_{name.lower()})",
                  sim.shape[1], minimum=2, why=TWO_ATTRIBUTES_WHY)
    n_x = check_int("n_x", n_x, minimum=2, why=ONE_WORD_WHY)
    check_int("the number of Y words (rows after the first n_x)", sim_a.shape[0] - n_x,
              minimum=2, why=ONE_WORD_WHY)
    if not (np.isfinite(sim_a).all() and np.isfinite(sim_b).all()):
        raise ValueError("sim_a and sim_b must be finite (a NaN similarity has no s value)")
    return sim_a, sim_b, n_x


@dataclass(frozen=True)
class _Parts:
    """The disattenuation's statistics per replicate (leading axis).

    Δ, and per target group the within-group variance of s (ddof 1) and the estimated
    noise variance of s from the attribute lists.
    """

    delta: np.ndarray
    var: tuple[np.ndarray, np.ndarray]
    noise: tuple[np.ndarray, np.ndarray]

    def effect(self, w: float) -> np.ndarray:
        """Return the disattenuated effect size of every replicate (X's share ``w``)."""
        within = (w * (self.var[0] - self.noise[0])
                  + (1 - w) * (self.var[1] - self.noise[1]))
        return np.asarray(_effect(self.delta, np.maximum(within, 0.0), w))


def _interaction_ms(block: np.ndarray, c_g: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Return the interaction mean square of ``block`` over the words drawn, each once.

    Rows with ``c_g > 0`` and columns with ``k > 0`` (one row of ``c_g``/``k`` per
    replicate): the residual sum of squares of the two-way (double-centred) decomposition
    of that sub-block over (m_rows − 1)(m_columns − 1). NaN where fewer than two distinct
    rows or columns were drawn (no interaction to see).
    """
    u, v = (c_g > 0).astype(float), (k > 0).astype(float)
    m_g, m_w = u.sum(axis=1), v.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        row = (v @ block.T) / m_w[:, None]
        col = (u @ block) / m_g[:, None]
        grand = (u * row).sum(axis=1) / m_g
        ss = (((u @ block ** 2) * v).sum(axis=1) - m_w * (u * row ** 2).sum(axis=1)
              - m_g * (v * col ** 2).sum(axis=1) + m_g * m_w * grand ** 2)
        df = (m_g - 1) * (m_w - 1)
        return np.where(df > 0, np.maximum(ss, 0.0) / np.where(df > 0, df, 1.0), np.nan)


def _parts(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, c: np.ndarray, k_a: np.ndarray,
           k_b: np.ndarray, *, resampled: bool) -> _Parts:
    """Compute the disattenuation's statistics with the words weighted by counts.

    Rows of ``c`` over the targets, ``k_a``/``k_b`` over the attribute words (all ones:
    the words as given); each word drawn k times counts k times, as in a resample. A
    replicate's group size is its rows' count total (targets drawn as words of several
    rows need not add up to the group's rows).

    The noise variance of s from an attribute list is its interaction mean square times
    the factor of the list drawn: 1/|A| for distinct words from a large population (the
    words as given), and (Σ k² − n)/(n (n − 1)) for a list drawn with counts k from the n
    words of the bootstrap world (``resampled``), whose interaction residuals sum to zero
    over its words — the factor is 0 for the world's own list, 1/n on average.
    """
    n_t = sim_a.shape[0]
    s = k_a @ sim_a.T / sim_a.shape[1] - k_b @ sim_b.T / sim_b.shape[1]
    factors = []
    for k in (k_a, k_b):
        n_w = k.shape[1]
        factors.append(((k ** 2).sum(axis=1) - n_w) / (n_w * (n_w - 1)) if resampled
                       else np.full(k.shape[0], 1.0 / n_w))
    means, variances, noises = [], [], []
    for part in (slice(0, n_x), slice(n_x, n_t)):
        c_g, s_g = c[:, part], s[:, part]
        n_g = c_g.sum(axis=1)  # rows drawn: the group's size, or a word-clustered draw's
        mean = (c_g * s_g).sum(axis=1) / n_g
        means.append(mean)
        variances.append((c_g * (s_g - mean[:, None]) ** 2).sum(axis=1) / (n_g - 1))
        noises.append(sum(_interaction_ms(sim[part], c_g, k) * factor
                          for sim, k, factor in ((sim_a, k_a, factors[0]),
                                                 (sim_b, k_b, factors[1]))))
    return _Parts(delta=means[0] - means[1], var=(variances[0], variances[1]),
                  noise=(noises[0], noises[1]))


def _observed_parts(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int) -> _Parts:
    n_t, n_a, n_b = sim_a.shape[0], sim_a.shape[1], sim_b.shape[1]
    return _parts(sim_a, sim_b, n_x, np.ones((1, n_t)), np.ones((1, n_a)), np.ones((1, n_b)),
                  resampled=False)


def disattenuated_effect_size(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int) -> float:
    """Compute WEAT's effect size with the attribute lists' noise taken out of its sd.

    An estimate of :func:`population_effect_size` from one study's words.

    With s(t) the association scores and, per target group G ∈ {X, Y}, v_G their
    variance (``ddof=1``) and r_{G,A} the residual mean square of the two-way
    decomposition of the block cos(G, A) (row and column means removed, divided by
    (|G| − 1)(|A| − 1)) — an unbiased estimate of the (target, attribute) interaction
    variance — the noise variance s(t) carries from a list of |A| and |B| attribute
    words is n_G = r_{G,A}/|A| + r_{G,B}/|B|, and

        d = Δ / √(max(w (v_X − n_X) + (1 − w)(v_Y − n_Y), 0) + w (1 − w) Δ²),

    with Δ = mean_X s − mean_Y s and w = |X| / (|X| + |Y|). When the estimated noise
    exceeds the spread of s, the within-group variance is taken as 0 and d sits at its
    bound ±1/√(w(1−w)).

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of the target words (rows: the X words, then the Y words)
        with the words of A and of B (columns; ≥ 2 each).
    n_x
        Number of X words (the first ``n_x`` rows); X and Y need ≥ 2 words each.

    Returns
    -------
    float
        The disattenuated effect size.

    Raises
    ------
    ValueError
        Shapes that do not fit, fewer than 2 words in a list, non-finite similarities,
        or Δ = 0 with no spread left (0/0).

    Examples
    --------
    Similarities with no (target, attribute) interaction (each block a row effect plus a
    column effect) carry no noise from the attribute lists: the estimate is then WEAT's
    d with the sample variances. Here s = 0.3, 0.1 for X and −0.3, −0.3 for Y: Δ = 0.5,
    v_X = 0.02, v_Y = 0, and d = 0.5 / √(0.01 + 0.0625) = 1.857.

    >>> import numpy as np
    >>> sim_a = np.array([[0.5, 0.3], [0.4, 0.2], [0.1, -0.1], [0.0, -0.2]])
    >>> sim_b = np.array([[0.1, 0.1], [0.2, 0.2], [0.3, 0.3], [0.2, 0.2]])
    >>> round(disattenuated_effect_size(sim_a, sim_b, n_x=2), 3)
    1.857
    >>> disattenuated_effect_size(sim_a[:, :1], sim_b, n_x=2)
    Traceback (most recent call last):
    ...
    ValueError: the number of attribute words in A (columns of sim_a) must be an integer ≥ 2,
    got 1 (...)
    """
    sim_a, sim_b, n_x = _check_similarities(sim_a, sim_b, n_x)
    w = n_x / sim_a.shape[0]
    value = float(_observed_parts(sim_a, sim_b, n_x).effect(w)[0])
    if not math.isfinite(value):
        raise ValueError("the association scores s(t) have no spread beyond the attribute "
                         "lists' noise and the same mean in X and Y: the effect size is "
                         "undefined (0/0)")
    return value


# =========================================================================== interval
@dataclass(frozen=True)
class WeatPopulationBootstrap:
    """The disattenuated WEAT effect size and its noise-adjusted two-way bootstrap.

    The result of :func:`weat_population_bootstrap`.

    Attributes
    ----------
    estimate
        :func:`disattenuated_effect_size` of the words given.
    effect_sizes
        The replicates (``n_boot`` of them): the disattenuated effect size of every
        resample of the bootstrap world, re-centred so that their median is
        :attr:`estimate` (minus :attr:`centre_shift`) and kept within the effect size's
        bounds ±1/√(w(1−w)).
    shrinkage
        (λ_X, λ_Y): the factor each target group's s deviations from their mean were
        scaled by to build the bootstrap world, √(max(v_G − n_G, 0) / ((|G| − 1) v_G / |G|))
        (1 when v_G = 0; above 1 when the noise is below v_G / |G|).
    noise_share
        Share of the pooled within-group variance of s that is attribute-list noise,
        (w n_X + (1 − w) n_Y) / (w v_X + (1 − w) v_Y): how attenuated WEAT's d is
        (0 when s has no spread within the groups).
    centre_shift
        The median of the raw replicates minus :attr:`estimate`: the median bias of the
        estimate in the bootstrap world, taken out of :attr:`effect_sizes`.
    n_redrawn
        Replicates with no effect size that were redrawn: 0/0, or fewer than two distinct
        words drawn in a list (no interaction to estimate the noise from).
    random_seed
        The seed of the draws (None when a Generator was given).
    """

    estimate: float
    effect_sizes: np.ndarray = field(repr=False)
    shrinkage: tuple[float, float]
    noise_share: float
    centre_shift: float = 0.0
    n_redrawn: int = 0
    random_seed: int | None = None

    @property
    def n_boot(self) -> int:
        """Number of replicates kept."""
        return int(self.effect_sizes.size)

    def interval(self, ci_prob: float = DEFAULT_CI_PROB) -> tuple[float, float]:
        """Return the interval for the population effect size.

        The central ``ci_prob`` range of :attr:`effect_sizes` (numpy's default, linearly
        interpolated quantiles).
        """
        ci_prob = check_probability("ci_prob", ci_prob)
        lo, hi = np.quantile(self.effect_sizes, [(1 - ci_prob) / 2, (1 + ci_prob) / 2])
        return float(lo), float(hi)


def _adjusted(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, parts: _Parts
              ) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """Scale each target group's s deviations from their mean by λ_G.

    λ_G makes the variance of the group's s over its words (``ddof=0``: the bootstrap
    world's population) the disattenuated v_G − n_G. Half the shift on the A block, half
    on the B block; the interaction residuals unchanged.
    """
    s = sim_a.mean(axis=1) - sim_b.mean(axis=1)
    shift = np.zeros_like(s)
    lams = []
    for g, part in enumerate((slice(0, n_x), slice(n_x, s.size))):
        n_g = s[part].size
        v, noise = float(parts.var[g][0]), float(parts.noise[g][0])
        lam = math.sqrt(max(v - noise, 0.0) / (v * (n_g - 1) / n_g)) if v > 0 else 1.0
        shift[part] = (1 - lam) * (s[part] - s[part].mean())
        lams.append(lam)
    return (sim_a - shift[:, None] / 2, sim_b + shift[:, None] / 2,
            (lams[0], lams[1]))


def _first_appearance(labels: Sequence[Hashable]) -> np.ndarray:
    """Return each label's word as an index 0 … m − 1, in order of first appearance."""
    order = {w: i for i, w in enumerate(dict.fromkeys(labels))}
    return np.array([order[w] for w in labels], dtype=int)


def _word_columns(name: str, sim: object, labels: Sequence[Hashable] | None) -> np.ndarray:
    """Average each attribute word's columns into one (in order of first appearance).

    ``labels`` None: every column is a word. Shapes are checked afterwards by
    :func:`_check_similarities`, so anything not 2-D is passed on as it is.
    """
    sim = np.asarray(sim, dtype=float)
    if labels is None or sim.ndim != 2:
        return sim
    labels = list(labels)
    if len(labels) != sim.shape[1]:
        raise ValueError(f"{name} must name the word of every column ({sim.shape[1]}), got "
                         f"{len(labels)} labels")
    index = _first_appearance(labels)
    return np.stack([sim[:, index == j].mean(axis=1) for j in range(int(index.max()) + 1)],
                    axis=1)


def _row_words(target_words: Sequence[Hashable] | None, n_t: int, n_x: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """Return, for X and Y, each target row's word as an index within its group.

    ``target_words`` None: every row is a word of its own.
    """
    if target_words is None:
        return np.arange(n_x), np.arange(n_t - n_x)
    labels = list(target_words)
    if len(labels) != n_t:
        raise ValueError(f"target_words must name the word of every row ({n_t}), got "
                         f"{len(labels)} labels")
    both = set(labels[:n_x]) & set(labels[n_x:])
    if both:
        raise ValueError(f"the target word {sorted(both, key=str)[0]!r} has rows in both X "
                         "and Y: a word belongs to one group")
    indices = []
    for group, part in (("X", labels[:n_x]), ("Y", labels[n_x:])):
        index = _first_appearance(part)
        check_int(f"the number of {group} words (distinct target_words)", int(index.max()) + 1,
                  minimum=2, why=ONE_WORD_WHY)
        indices.append(index)
    return indices[0], indices[1]


def weat_population_bootstrap(
    sim_a: np.ndarray,
    sim_b: np.ndarray,
    n_x: int,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    random_seed: int | np.random.Generator | None = None,
    target_words: Sequence[Hashable] | None = None,
    a_words: Sequence[Hashable] | None = None,
    b_words: Sequence[Hashable] | None = None,
) -> WeatPopulationBootstrap:
    """Bootstrap WEAT's population effect size, allowing for short attribute lists.

    The interval accounts for the attenuation a short attribute list brings.

    1. The estimate: :func:`disattenuated_effect_size`.
    2. The bootstrap world, whose population effect size is the estimate: the
       similarities with each target group's association scores scaled about the group
       mean so that their variance over the words (the world's population) is the
       disattenuated one, v_G − n_G; the (target, attribute) interaction residuals are
       kept, so a resampled attribute list brings the noise a new list would.
    3. Every replicate draws, with replacement and each list on its own, |X| and |Y|
       target rows and |A| and |B| attribute columns of the world and recomputes the
       disattenuated effect size, with the noise the drawn lists carry in that world: the
       interaction mean square of the distinct words drawn times (Σ k² − n)/(n (n − 1))
       for a list drawing word j k_j times (the noise a list drawn from the world's n
       words carries: 0 for the n words themselves, more the more a word repeats).
    4. The replicates are re-centred on the estimate (their median moved to it) and kept
       within the bounds of the effect size.

    :meth:`WeatPopulationBootstrap.interval` is the central ``ci_prob`` range of the
    replicates.

    Parameters
    ----------
    sim_a, sim_b
        Cosine similarities of the target words (rows: the X words, then the Y words)
        with the words of A and of B (columns; ≥ 2 each).
    n_x
        Number of X words (the first ``n_x`` rows); X and Y need ≥ 2 words each.
    n_boot
        Replicates to keep, ≥ 1.
    random_seed
        Seed or Generator (:func:`embias._validation.resolve_rng`); ``None`` draws a seed
        from the OS entropy and records it in the result.
    target_words, a_words, b_words
        When the items are not the words sampled — SEAT's sentences, several per word —
        the word of each row (``target_words``) and of each column of ``sim_a`` / ``sim_b``.
        A word's columns are averaged into one before anything else (the attribute list is
        a sample of words), and a word's rows are drawn together. ``None``: every row and
        column is a word of its own.

    Returns
    -------
    WeatPopulationBootstrap
        The estimate, the replicates and the adjustments applied. With ``a_words`` /
        ``b_words`` the estimate is that of the word-averaged columns.

    Raises
    ------
    ValueError
        Bad options or shapes (see :func:`disattenuated_effect_size`); word labels of the
        wrong length, a target word with rows in both X and Y, or fewer than two words in a
        list; or replicates without an effect size (tied s values, or a list drawn as one
        word repeated) so often that more than
        :data:`embias.classic.MAX_DRAWS_PER_REPLICATE` draws per replicate kept would be
        needed.

    Notes
    -----
    Coverage of the population effect size (:func:`population_effect_size`) at 89%,
    next to the plain two-way bootstrap of WEAT's d, is measured by
    ``benchmarks/bench_weat_population.py``.

    Examples
    --------
    Three words per list; the attribute lists' noise is most of the spread of s here
    (``noise_share``), so each group's s values are shrunk before resampling:

    >>> import numpy as np
    >>> sim_a = np.array([[0.5, 0.3, 0.4], [0.4, 0.2, 0.1], [0.45, 0.3, 0.2],
    ...                   [0.1, -0.1, 0.0], [0.0, -0.2, 0.1], [0.05, 0.1, -0.1]])
    >>> sim_b = np.array([[0.1, 0.2, 0.0], [0.2, 0.1, 0.3], [0.1, 0.0, 0.2],
    ...                   [0.3, 0.2, 0.4], [0.2, 0.3, 0.1], [0.3, 0.4, 0.2]])
    >>> result = weat_population_bootstrap(sim_a, sim_b, n_x=3, n_boot=2000, random_seed=0)
    >>> round(result.estimate, 3), round(result.noise_share, 2), result.n_boot
    (1.964, 0.8, 2000)
    >>> lower, upper = result.interval(0.89)
    >>> bool(lower < upper <= 2)
    True
    """
    sim_a, sim_b, n_x = _check_similarities(_word_columns("a_words", sim_a, a_words),
                                            _word_columns("b_words", sim_b, b_words), n_x)
    row_words = _row_words(target_words, sim_a.shape[0], n_x)
    n_boot = check_int("n_boot", n_boot, minimum=1)
    rng, seed = resolve_rng(random_seed)
    n_t, n_a, n_b = sim_a.shape[0], sim_a.shape[1], sim_b.shape[1]
    w = n_x / n_t
    parts = _observed_parts(sim_a, sim_b, n_x)
    estimate = float(parts.effect(w)[0])
    if not math.isfinite(estimate):
        raise ValueError("the association scores s(t) have no spread beyond the attribute "
                         "lists' noise and the same mean in X and Y: the effect size is "
                         "undefined (0/0)")
    pooled_var = w * float(parts.var[0][0]) + (1 - w) * float(parts.var[1][0])
    pooled_noise = w * float(parts.noise[0][0]) + (1 - w) * float(parts.noise[1][0])
    adj_a, adj_b, lams = _adjusted(sim_a, sim_b, n_x, parts)
    kept: list[np.ndarray] = []
    n_kept = n_redrawn = n_drawn = 0
    while n_kept < n_boot:
        if n_drawn >= MAX_DRAWS_PER_REPLICATE * n_boot:
            raise ValueError(
                f"{n_redrawn:,} of {n_drawn:,} bootstrap resamples had no effect size "
                "(tied association scores, 0/0, or a list drawn as one word repeated): the "
                "words' s values are too often tied, or the lists too short, for an item "
                "bootstrap")
        k = min(_CHUNK, n_boot - n_kept)
        word_counts = [bootstrap_counts(rng, k, int(words.max()) + 1) for words in row_words]
        c = np.concatenate([wc[:, words] for wc, words in zip(word_counts, row_words,
                                                               strict=True)], axis=1)
        effects = _parts(adj_a, adj_b, n_x, c, bootstrap_counts(rng, k, n_a),
                         bootstrap_counts(rng, k, n_b), resampled=True).effect(w)
        # a group drawn as one word repeated is no sample of its words
        effects[np.any([(wc > 0).sum(axis=1) < 2 for wc in word_counts], axis=0)] = np.nan
        good = np.isfinite(effects)
        kept.append(effects[good])
        n_kept += int(good.sum())
        n_redrawn += int(k - good.sum())
        n_drawn += k
    raw = np.concatenate(kept)[:n_boot]
    centre_shift = float(np.median(raw)) - estimate
    bound = 1 / math.sqrt(w * (1 - w))
    return WeatPopulationBootstrap(
        estimate=estimate, effect_sizes=np.clip(raw - centre_shift, -bound, bound),
        shrinkage=lams, noise_share=pooled_noise / pooled_var if pooled_var > 0 else 0.0,
        centre_shift=centre_shift, n_redrawn=n_redrawn, random_seed=seed)
