"""The two-way (crossed) item bootstrap of the WEAT effect size.

Would other words from the same populations give a similar effect? The bootstrap
resamples X, Y, A and B, each with replacement, recomputes s(w, A*, B*) and the effect
size, and reports the central ``ci_prob`` (default 0.89) percentile interval
(:func:`weat_item_bootstrap`, :class:`WeatBootstrap`). Target *and* attribute words are
samples; an interval that holds the attribute lists fixed is too narrow (on GloVe's weat7
the bootstrap sd of d is 0.62 with attributes resampled, 0.13 without).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_int, check_probability, resolve_rng
from ..settings import DEFAULT_CI_PROB
from .numerics import ONE_WORD_WHY

__all__ = [
    "DEFAULT_N_BOOT",
    "DEGENERATE_SD",
    "ITEM_BOOTSTRAP_CI_KIND",
    "MAX_DRAWS_PER_REPLICATE",
    "RESAMPLE_OPTIONS",
    "WeatBootstrap",
    "bootstrap_counts",
    "weat_item_bootstrap",
]

#: Item-bootstrap replicates :func:`weat` draws by default.
DEFAULT_N_BOOT = 10_000
#: What :func:`weat_item_bootstrap` can resample: all four word lists (the crossed, two-way
#: bootstrap :func:`weat` reports) or the target words only, the attribute lists held fixed
#: (the naive interval, kept for comparison: it undercovers, see
#: :func:`embias.simulate.simulate_weat_bootstrap_coverage`).
RESAMPLE_OPTIONS: tuple[str, ...] = ("targets and attributes", "targets")
#: ``ci_kind`` of the item-bootstrap interval: the central ``ci_prob`` interval of the
#: effect size's bootstrap distribution (a percentile interval), which is what
#: :data:`~embias.report.intervals.CI_KINDS` calls ``"simulation"``; the interval table's
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
    """Return how often each of ``n`` items is drawn in samples of size ``n`` with replacement.

    Parameters
    ----------
    rng
        The Generator drawn from.
    n_replicates
        Number of samples (rows).
    n
        Number of items, and the size of each sample.

    Returns
    -------
    numpy.ndarray
        Float counts, shape ``(n_replicates, n)``; every row sums to ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.classic import bootstrap_counts
    >>> counts = bootstrap_counts(np.random.default_rng(0), 3, 4)
    >>> counts.shape, counts.sum(axis=1)
    ((3, 4), array([4., 4., 4.]))
    """
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
        """Return the percentile interval, the central ``ci_prob`` range of the replicates.

        The ends are quantiles of :attr:`effect_sizes` (numpy's default, linearly
        interpolated quantiles).
        """
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
        needed (the message counts them).

    Notes
    -----
    A replicate in which every drawn target word has the same s value (possible when
    words share s values, e.g. each list drawn as one repeated word) has no effect size
    (0/0). Such replicates are redrawn — the bootstrap distribution is conditioned on a
    defined effect size — and counted in :attr:`WeatBootstrap.n_redrawn`; the result
    never holds NaN. The computation works on resampling counts (how often each word is
    drawn), so a replicate costs two small matrix products.

    Examples
    --------
    Two X words with s = 1 and two Y words with s = −1 (one attribute word in A and one in
    B): every replicate draws s values (1, 1, −1, −1), whose effect size is 2/√(4/3) = √3,
    so the interval is (√3, √3):

    >>> import numpy as np
    >>> from embias.classic import weat_item_bootstrap
    >>> sim_a = np.array([[1.0], [1.0], [0.0], [0.0]])
    >>> sim_b = np.array([[0.0], [0.0], [1.0], [1.0]])
    >>> boot = weat_item_bootstrap(sim_a, sim_b, 2, n_boot=100, random_seed=0)
    >>> boot.n_boot, boot.n_redrawn, boot.interval(0.89)
    (100, 0, (1.732, 1.732))
    """
    n_boot = check_int("n_boot", n_boot, minimum=1)
    sim_a, sim_b, n_x = _checked_similarities(sim_a, sim_b, n_x, resample=resample, ddof=ddof)
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


def _checked_similarities(sim_a: np.ndarray, sim_b: np.ndarray, n_x: int, *, resample: str,
                          ddof: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Return the bootstrap's similarities as float arrays, and ``n_x``, checked.

    ValueError for an unknown ``resample`` or ``ddof``, arrays that are not 2-D with one
    row per target word, an empty A or B, fewer than two X or Y words, or a similarity
    that is not finite.
    """
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
    return sim_a, sim_b, n_x
