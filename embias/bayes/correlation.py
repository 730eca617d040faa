"""Correlation matrices and Cholesky factors for the models' structures (PyTensor).

The correlated coefficients of ``LevelStructure`` (:mod:`embias.bayes.model`) put an LKJ prior
on a correlation matrix through its canonical partial correlations (Lewandowski, Kurowicka
& Joe 2009), and the closed-form likelihoods factor small matrices element by element
(a batched LAPACK call per lane of the batch sampler costs more than a few dozen scalar
operations). Every function works on NumPy arrays and PyTensor tensors alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["cholesky_elements", "correlation_cholesky", "lkj_cpc_log_density"]


def correlation_cholesky(cpc: Any, size: int) -> Any:
    """Return the Cholesky factor L of a correlation matrix from its partial correlations.

    The C-vine of Lewandowski, Kurowicka & Joe (2009), Stan's construction:
    L[i, j] = z[i, j]·√(1 − Σ_{k<j} L[i, k]²) and L[i, i] = √(1 − Σ_{k<i} L[i, k]²).

    Parameters
    ----------
    cpc
        The canonical partial correlations z[i, j] (j < i), row by row of the lower
        triangle: the partial correlation of i and j given 0 … j − 1; each in (−1, 1).
    size
        Rows of the correlation matrix (``cpc`` holds size·(size − 1)/2 values).

    Returns
    -------
    pytensor.tensor.TensorVariable
        L, ``(size, size)`` and lower triangular; L·Lᵀ is the correlation matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.bayes.correlation import correlation_cholesky
    >>> chol = correlation_cholesky(np.array([0.6]), 2).eval()
    >>> chol
    array([[1. , 0. ],
           [0.6, 0.8]])
    >>> chol @ chol.T
    array([[1. , 0.6],
           [0.6, 1. ]])
    """
    import pytensor.tensor as pt

    rows = []
    position = 0
    for i in range(size):
        row, left = [], 1.0
        for _ in range(i):
            value = cpc[position] * pt.sqrt(left)
            position += 1
            row.append(value)
            left = left - value**2
        row.append(pt.sqrt(left))
        row += [pt.zeros_like(row[-1])] * (size - i - 1)
        rows.append(pt.stack(row))
    return pt.stack(rows)


def lkj_cpc_log_density(cpc_raw: Any, size: int, eta: float) -> Any:
    """Return the log density of unconstrained partial correlations under an LKJ prior.

    Under R ~ LKJ(η) the C-vine's partial correlation with k conditioning variables is
    Beta(b, b) on (−1, 1) with b = η + (size − 2 − k)/2 (Lewandowski et al. 2009); with
    z = tanh x, dz/dx = 1 − z², so log p(x) = b·log(1 − tanh²x) + constant.

    Parameters
    ----------
    cpc_raw
        The unconstrained canonical partial correlations x (cpc = tanh x), in the order
        of :func:`correlation_cholesky`.
    size
        Rows of the correlation matrix.
    eta
        Shape η of the LKJ prior (1: uniform over correlation matrices).

    Returns
    -------
    pytensor.tensor.TensorVariable
        The log density, up to a constant.

    Examples
    --------
    With two variables the one partial correlation has b = η:

    >>> import numpy as np
    >>> from embias.bayes.correlation import lkj_cpc_log_density
    >>> float(lkj_cpc_log_density(np.array([0.5]), 2, 2.0).eval())
    -0.480458
    >>> float(2.0 * np.log(1.0 - np.tanh(0.5) ** 2))
    -0.480458
    """
    import pytensor.tensor as pt

    betas = [eta + (size - 2 - j) / 2.0 for i in range(size) for j in range(i)]
    log_one_minus = 2.0 * (np.log(2.0) - pt.abs(cpc_raw) - pt.log1p(pt.exp(-2.0 * pt.abs(
        cpc_raw))))                                               # log(1 − tanh²x), stable
    return pt.sum(np.asarray(betas) * log_one_minus)


def cholesky_elements(a: Any, n: int) -> list[list[Any]]:
    """Return the lower Cholesky factor of a symmetric positive-definite n × n matrix.

    The matrix is factored element by element, so its entries may be batched tensors (one
    matrix per lane of a batch).

    Parameters
    ----------
    a
        The matrix as nested lists, ``a[i][j]`` (numbers, arrays or tensors).
    n
        Its rows.

    Returns
    -------
    list of list
        The factor's entries, ``[i][j]`` (0.0 above the diagonal).

    Examples
    --------
    >>> import numpy as np
    >>> import pytensor.tensor as pt
    >>> from embias.bayes.correlation import cholesky_elements
    >>> rows = cholesky_elements(np.array([[4.0, 2.0], [2.0, 5.0]]), 2)
    >>> np.array([[float(pt.as_tensor(v).eval()) for v in row] for row in rows])
    array([[2., 0.],
           [1., 2.]])
    """
    import pytensor.tensor as pt

    chol: list[list[Any]] = [[0.0] * n for _ in range(n)]
    for j in range(n):
        diagonal = a[j][j] - sum(chol[j][k] ** 2 for k in range(j))
        chol[j][j] = pt.sqrt(diagonal)
        for i in range(j + 1, n):
            chol[i][j] = (a[i][j] - sum(chol[i][k] * chol[j][k] for k in range(j))) / chol[j][j]
    return chol
