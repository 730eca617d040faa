"""Stan's warm-up for the lanes: the mass-matrix windows and the dense metric of a window.

``adaptation_schedule`` (which iterations a diagonal mass matrix is estimated from,
and after which it is re-estimated), ``last_window`` (the last of those windows, the
one a dense metric is estimated from) and ``dense_metric`` (that estimate, regularised
as Stan's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["adaptation_schedule", "dense_metric", "last_window"]


def adaptation_schedule(tune: int) -> tuple[np.ndarray, np.ndarray]:
    """Return Stan's warm-up windows for ``tune`` iterations.

    Windows: a first buffer of 75, slow windows of 25, 50, 100 … (the last stretched to
    the final buffer) and a final buffer of 50; for fewer than 150 iterations 15% / 75% /
    10%; for fewer than 20 no mass-matrix adaptation at all.

    Parameters
    ----------
    tune
        Warm-up iterations.

    Returns
    -------
    collect : numpy.ndarray
        Boolean, one per iteration (at least one): the draw enters the mass-matrix
        estimate.
    window_end : numpy.ndarray
        Boolean, one per iteration: the mass matrix is re-estimated after this iteration.

    Examples
    --------
    Stan's default 1000 iterations: windows end after iterations 100, 150, 250, 450 and
    950 (0-based 99 … 949), and iterations 75 to 949 are collected:

    >>> import numpy as np
    >>> collect, window_end = adaptation_schedule(1000)
    >>> np.flatnonzero(window_end).tolist()
    [99, 149, 249, 449, 949]
    >>> int(collect.sum()), int(np.flatnonzero(collect)[0])
    (875, 75)

    100 iterations: one window from iteration 15 (15%) of 75 iterations, then 10:

    >>> collect, window_end = adaptation_schedule(100)
    >>> np.flatnonzero(window_end).tolist(), int(np.flatnonzero(collect)[0])
    ([89], 15)
    >>> bool(adaptation_schedule(19)[1].any())
    False
    """
    collect = np.zeros(max(tune, 1), bool)
    end = np.zeros(max(tune, 1), bool)
    if tune < 20:
        return collect, end
    start, final, window = 75, 50, 25
    if start + final + window > tune:
        start, final = int(0.15 * tune), int(0.1 * tune)
        window = tune - start - final
    last = tune - final
    begin, size = start, window
    while begin < last:
        if 3 * size <= last - begin:
            stop, next_size = begin + size, 2 * size
        else:
            stop, next_size = last, size
        collect[begin:stop] = True
        end[stop - 1] = True
        begin, size = stop, next_size
    return collect, end


def last_window(tune: int) -> tuple[int, int] | None:
    """Return the first iteration and length of the warm-up's last mass-matrix window.

    Parameters
    ----------
    tune
        Warm-up iterations.

    Returns
    -------
    tuple of int or None
        ``(first, length)``; ``None`` when the warm-up adapts no mass matrix.

    Examples
    --------
    Of Stan's 1000 iterations the last window is 450–949; of 100, 15–89:

    >>> last_window(1000), last_window(100), last_window(19)
    ((450, 500), (15, 75), None)
    """
    collect, end = adaptation_schedule(tune)
    if not end.any():
        return None
    stop = int(np.flatnonzero(end)[-1]) + 1
    before = np.flatnonzero(end[:stop - 1])
    start = int(before[-1]) + 1 if before.size else int(np.flatnonzero(collect)[0])
    return start, stop - start


def dense_metric(window: Any) -> tuple[Any, Any]:
    """Return the mean and regularised covariance's Cholesky factor of a window of draws.

    The covariance is regularised as Stan's: ``n/(n + 5)·Σ + 10⁻³·5/(n + 5)·I``.

    Parameters
    ----------
    window
        (n, dim) draws of one lane.

    Returns
    -------
    mean : jax.Array
        (dim,) mean of the draws.
    chol : jax.Array
        (dim, dim) lower Cholesky factor of the regularised covariance.

    Examples
    --------
    The corners of a square of side 2: mean (1, 1), sample variances 4/3 and covariance
    0, so the regularised variances are 4/9 · 4/3 + 10⁻³ · 5/9 = 0.593148…:

    >>> import numpy as np
    >>> mean, chol = dense_metric(np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]]))
    >>> np.asarray(mean).tolist()
    [1.0, 1.0]
    >>> np.round(np.asarray(chol @ chol.T), 6).tolist()
    [[0.593148, 0.0], [0.0, 0.593148]]
    """
    import jax.numpy as jnp

    n = window.shape[0]
    mean = window.mean(axis=0)
    centred = window - mean
    cov = centred.T @ centred / (n - 1)
    cov = (n / (n + 5.0)) * cov + 1e-3 * (5.0 / (n + 5.0)) * jnp.eye(window.shape[1])
    return mean, jnp.linalg.cholesky(cov)
