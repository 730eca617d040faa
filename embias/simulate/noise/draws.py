"""The simulated raw cosine similarities, drawn block by block, and their WEAT effect sizes.

Every (protected word, attribute) similarity of a simulated data set is drawn from a normal
distribution; the data sets are drawn in blocks seeded by (seed, block number), so any one
of them can be drawn again from the seed alone (``draw_block``, ``block_size``).
"""

from __future__ import annotations

import numpy as np

from ...classic import association_scores, weat_effect_size

__all__ = ["block_size", "draw_block", "simulate_blocks"]

#: Raw similarities drawn per block; the blocks are seeded by (seed, block number), so any
#: simulated data set can be regenerated from the seed alone.
_BLOCK_VALUES = 1 << 22


def block_size(n: int, m: int) -> int:
    """Return how many simulated data sets are drawn in one block.

    Parameters
    ----------
    n, m
        Protected words per group and words per attribute set.

    Returns
    -------
    int
        At least 1; a block holds about 2²² raw similarities.
    """
    return max(1, _BLOCK_VALUES // (4 * n * m))


def draw_block(seed: int, block: int, k: int, n: int, m: int, sd: float,
               association: float) -> np.ndarray:
    """Return the raw similarities of ``k`` simulated data sets.

    Shape (k, group, word, set, attr): group 0 = X, 1 = Y; set 0 = A (X's own), 1 = B
    (Y's own).

    Parameters
    ----------
    seed, block
        The simulation's seed and the block's number: the block's generator is seeded by
        both.
    k
        Data sets in the block.
    n, m
        Protected words per group and words per attribute set.
    sd, association
        Sd of every raw similarity, and the mean similarity of X×A and Y×B (0 elsewhere).

    Returns
    -------
    numpy.ndarray
        Shape (k, 2, n, 2, m).
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


def simulate_blocks(seed: int, n_sims: int, n: int, m: int, sd: float, association: float,
                    numerator: str, ddof: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the effect sizes, raw sds and pre-averaged means' sds of ``n_sims`` data sets.

    The data sets are drawn block by block (``draw_block``, seeded by (seed, block));
    the arrays are read-only.

    Parameters
    ----------
    seed, n_sims
        The simulation's seed and its number of data sets.
    n, m, sd, association, numerator, ddof
        The design (see :func:`~embias.simulate_weat`).

    Returns
    -------
    tuple of numpy.ndarray
        The WEAT effect size, the sd of the raw similarities and the sd of the pre-averaged
        means of each data set, each of length ``n_sims``.
    """
    size = block_size(n, m)
    scores = np.empty(n_sims)
    raw_sd = np.empty(n_sims)
    means_sd = np.empty(n_sims)
    for block, start in enumerate(range(0, n_sims, size)):
        k = min(size, n_sims - start)
        sim = draw_block(seed, block, k, n, m, sd, association)
        scores[start:start + k] = _scores(sim, numerator, ddof)
        raw_sd[start:start + k] = sim.reshape(k, -1).std(axis=-1, ddof=1)
        means_sd[start:start + k] = sim.mean(axis=-1).reshape(k, -1).std(axis=-1, ddof=1)
    for array in (scores, raw_sd, means_sd):
        array.flags.writeable = False  # the result is immutable, arrays included
    return scores, raw_sd, means_sd

