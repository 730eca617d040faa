"""Convergence checks of a fit: thresholds, divergences, problems in words, one record.

The thresholds (:data:`RHAT_MAX`, ``ESS_MIN``) and :class:`ConvergenceWarning`,
``count_divergences``, ``convergence_problems`` (one sentence per failed check)
and ``diagnostics_overview`` (the worst r̂, smallest ESS and divergences).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = [
    "ESS_MIN",
    "RHAT_MAX",
    "ConvergenceWarning",
    "convergence_problems",
    "count_divergences",
    "diagnostics_overview",
]

#: Convergence thresholds: warn when r̂ exceeds RHAT_MAX, when bulk or tail ESS is below
#: ESS_MIN, or on any divergent transition.
RHAT_MAX = 1.01

ESS_MIN = 400


class ConvergenceWarning(UserWarning):
    """The sampler's output fails a convergence check (r̂, ESS or divergences)."""


def count_divergences(posterior: DataTree) -> int:
    """Return the number of divergent transitions after tuning.

    Parameters
    ----------
    posterior
        A fit's ``DataTree`` (group ``sample_stats``, variable ``diverging``).

    Returns
    -------
    int
        Divergences; 0 when the sampler records none.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from embias.bayes.diagnostics import count_divergences
    >>> diverging = np.array([[False, True, False], [True, True, False]])
    >>> count_divergences(xr.DataTree.from_dict({"sample_stats": xr.Dataset(
    ...     {"diverging": (("chain", "draw"), diverging)})}))
    3
    """
    stats = posterior["sample_stats"].to_dataset()
    if "diverging" not in stats:
        return 0
    return int(stats["diverging"].sum())


def convergence_problems(
    diagnostics: pd.DataFrame,
    divergences: int,
    *,
    r_hat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
    chains: int | None = None,
) -> list[str]:
    """Return the convergence problems in words (an empty list when all checks pass).

    Checks r̂ > ``r_hat_max``, bulk or tail ESS < ``ess_min`` and divergences > 0.

    Parameters
    ----------
    diagnostics
        :func:`convergence_diagnostics`'s table.
    divergences
        Divergent transitions after tuning.
    r_hat_max, ess_min
        The thresholds.
    chains
        Chains of the fit. r̂ compares chains: with one chain it is not computed, and the
        problem says so (instead of a NaN r̂ for every parameter).

    Returns
    -------
    list of str
        One sentence per failed check, naming the worst parameter.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> rng = np.random.default_rng(0)
    >>> mixed = rng.normal(size=(2, 500))          # two chains of one distribution
    >>> stuck = mixed + np.array([[0.0], [3.0]])   # the second chain 3 sds away
    >>> tree = xr.DataTree.from_dict({"posterior": xr.Dataset(
    ...     {"mixed": (("chain", "draw"), mixed), "stuck": (("chain", "draw"), stuck)})})
    >>> from embias.bayes.diagnostics import convergence_diagnostics, convergence_problems
    >>> for problem in convergence_problems(convergence_diagnostics(tree), 2):
    ...     print(problem)
    r_hat > 1.01 for 1 parameter(s) (worst stuck: 1.747)
    ess_bulk < 400 for 1 parameter(s) (worst stuck: 3); draw more samples
    ess_tail < 400 for 1 parameter(s) (worst stuck: 21); draw more samples
    2 divergent transition(s); raise target_accept or treat the intervals with caution
    """
    problems = []
    r_hat = diagnostics["r_hat"]
    if chains is not None and chains < 2:
        problems.append(f"r_hat not computed: it compares chains and the fit has {chains}; "
                        "convergence is unchecked — fit with chains ≥ 2")
    else:
        bad_rhat = diagnostics[r_hat > r_hat_max]
        if not bad_rhat.empty:
            worst = bad_rhat.sort_values("r_hat", ascending=False).iloc[0]
            problems.append(f"r_hat > {r_hat_max} for {len(bad_rhat)} parameter(s) (worst "
                            f"{worst['parameter']}: {worst['r_hat']:.3f})")
        undefined = diagnostics[r_hat.isna()]
        if not undefined.empty:
            problems.append(f"r_hat is undefined (NaN) for {len(undefined)} parameter(s) "
                            f"(e.g. {undefined['parameter'].iloc[0]}): their draws hold NaN, "
                            "or there are fewer than 2 chains or 4 draws")
    for col in ("ess_bulk", "ess_tail"):
        low = diagnostics[~(diagnostics[col] >= ess_min)]
        if not low.empty:
            worst = low.sort_values(col).iloc[0]
            problems.append(f"{col} < {ess_min:g} for {len(low)} parameter(s) (worst "
                            f"{worst['parameter']}: {worst[col]:.0f}); draw more samples")
    if divergences > 0:
        problems.append(f"{divergences} divergent transition(s); raise target_accept or "
                        "treat the intervals with caution")
    return problems


def diagnostics_overview(diagnostics: pd.DataFrame, divergences: int) -> dict[str, float]:
    """Return the worst r̂, the smallest bulk/tail ESS and the divergences, as one record.

    Parameters
    ----------
    diagnostics
        :func:`convergence_diagnostics`'s table.
    divergences
        Divergent transitions after tuning.

    Returns
    -------
    dict
        ``max_r_hat``, ``min_ess_bulk``, ``min_ess_tail`` and ``divergences``.

    Examples
    --------
    >>> import pandas as pd
    >>> from embias.bayes.diagnostics import diagnostics_overview
    >>> table = pd.DataFrame({"r_hat": [1.002, 1.03], "ess_bulk": [900.0, 350.0],
    ...                       "ess_tail": [800.0, 420.0]})
    >>> diagnostics_overview(table, 0)
    {'max_r_hat': 1.03, 'min_ess_bulk': 350.0, 'min_ess_tail': 420.0, 'divergences': 0}
    """
    return {"max_r_hat": float(diagnostics["r_hat"].max()),
            "min_ess_bulk": float(diagnostics["ess_bulk"].min()),
            "min_ess_tail": float(diagnostics["ess_tail"].min()),
            "divergences": int(divergences)}
