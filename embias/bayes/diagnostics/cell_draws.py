"""The posterior draws of every cell's mean and residual sd (``cell_location_scale``).

What a new distance of a cell is drawn from: the posterior predictive check's and the
leave-one-out estimates' common input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["cell_location_scale"]


def cell_location_scale(posterior: DataTree, cells: pd.DataFrame, *,
                         new_words: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Return the posterior draws (sample × cell) of each cell's mean and residual sd.

    Parameters
    ----------
    posterior
        A fit's ``DataTree``: ``connection_mean`` or ``coef``, and ``sigma``.
    cells
        The fitted table's cell statistics.
    new_words
        At the crossed level, the sd of a new row that comes with a new compared word of
        the cell's kind, √(σ² + τ_u²), instead of σ.

    Returns
    -------
    (mu, sigma)
        Arrays ``(chain × draw, cell)``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.diagnostics import cell_location_scale
    >>> post = xr.Dataset({"connection_mean": (("chain", "draw", "connection"),
    ...                                        [[[0.8, 1.0], [0.7, 0.9]]]),
    ...                    "sigma": (("chain", "draw"), [[0.1, 0.2]])},
    ...                   coords={"connection": ["associated", "none"]})
    >>> cells = pd.DataFrame({"protected_word": ["he", "he", "she"],
    ...                       "connection": ["associated", "none", "none"]})
    >>> mu, sigma = cell_location_scale(xr.DataTree.from_dict({"posterior": post}), cells)
    >>> mu
    array([[0.8, 1. , 1. ],
           [0.7, 0.9, 0.9]])
    >>> sigma
    array([[0.1, 0.1, 0.1],
           [0.2, 0.2, 0.2]])
    """
    import xarray as xr

    post = posterior["posterior"].to_dataset()
    words = xr.DataArray(cells["protected_word"].to_numpy(), dims="cell")
    cons = xr.DataArray(cells["connection"].to_numpy(), dims="cell")
    if "coef" in post:
        mu = post["coef"].sel(protected_word=words, connection=cons)
    else:
        mu = post["connection_mean"].sel(connection=cons)
    sigma: Any = post["sigma"]  # a DataArray (numpy ufuncs keep it one)
    sigma = sigma.sel(connection=cons) if "connection" in sigma.dims else \
        sigma.expand_dims(cell=len(cells))
    if new_words and "tau_word" in post:
        # crossed level: a new row comes with a new compared word of the cell's kind
        from ..crossed import WORD_KIND_OF_CONNECTION

        kinds = xr.DataArray([WORD_KIND_OF_CONNECTION[str(c)] for c in cells["connection"]],
                             dims="cell")
        sigma = np.sqrt(sigma**2 + post["tau_word"].sel(word_kind=kinds) ** 2)
    return (mu.stack(sample=("chain", "draw")).transpose("sample", "cell").values,
            sigma.stack(sample=("chain", "draw")).transpose("sample", "cell").values)
