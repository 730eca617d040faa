"""The memory a fit needs, estimated before it samples, and the check against this machine's.

``fit_memory`` counts the values a fit keeps per draw and chain and scales their bytes
by the measured peak per stored byte; ``check_fit_memory`` refuses a fit that needs more
than this machine has.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..settings import BYTES_PER_VALUE, FitSettings, check_memory, physical_memory

__all__ = ["BASE_MEMORY", "PEAK_PER_STORED_BYTE", "PEAK_PER_STORED_BYTE_OTHER", "SAMPLER_STATS",
           "check_draws_memory", "check_fit_memory", "draws_memory", "fit_memory"]

#: Sampler statistics kept per draw and chain: numpyro's and blackjax's 7 (acceptance
#: rate, step size, divergence, energy, steps, tree depth, log density); PyMC's NUTS keeps
#: 17, nutpie's as many.
SAMPLER_STATS = {"numpyro": 7, "auto": 7, "embias": 7, "blackjax": 7, "pymc": 17, "nutpie": 17}
#: Peak memory of a fit per byte of the draws it keeps: the sampler's own arrays, PyMC's
#: conversion to ArviZ, the float64 copy, the word effects and log-likelihoods, the
#: diagnostics' copies. Measured as the growth of the peak resident memory between two
#: fits of religion/GloVe with 10 to 20 times as many draws (2 chains): 4.5 at the
#: hierarchical level (2,000 → 20,000 draws) and 9.0–9.5 at the crossed level (1,000 or
#: 2,000 → 21,000), whose word effects are drawn after sampling.
PEAK_PER_STORED_BYTE = {"crossed": 9.5}
PEAK_PER_STORED_BYTE_OTHER = 4.5
#: Memory of a fitting process before its draws (Python, PyMC, JAX, the compiled model):
#: 0.7–0.8 GB measured (the intercept of the same fits).
BASE_MEMORY = 0.75e9


def fit_memory(model: Any, run: FitSettings, table: pd.DataFrame | None) -> tuple[float, int]:
    """Return the memory a fit of ``model`` with ``run``'s draws and chains needs.

    Estimated before it samples.

    The values kept per draw and chain are the sizes of the model's free variables and
    deterministics, the sampler statistics (:data:`SAMPLER_STATS`), each compared word's
    log-likelihood (each row's for a table without compared words) and, at the crossed
    level, each compared word's effect; the fit's peak is :data:`BASE_MEMORY` plus
    :data:`PEAK_PER_STORED_BYTE` times their bytes.

    Parameters
    ----------
    model
        The fit's PyMC model (:func:`embias.bayes.model.build_model`).
    run
        The fit's settings (draws, chains, sampler, level).
    table
        The fitted table (its compared words' or rows' log-likelihoods are kept).

    Returns
    -------
    tuple of (float, int)
        The estimated peak in bytes, and the values kept per draw and chain.

    Examples
    --------
    The dataset level keeps co (4), σ, m, ``connection_mean`` (4), 7 sampler statistics
    and one log-likelihood per compared word:

    >>> import embias
    >>> from embias.bayes import build_model, cell_statistics
    >>> from embias.bayes.sampling import BASE_MEMORY, fit_memory
    >>> table = embias.load_published_table("religion", "reddit")
    >>> run = embias.FitSettings(level="dataset", draws=1000, chains=2)
    >>> peak, values = fit_memory(build_model(cell_statistics(table), level="dataset"), run,
    ...                           table)
    >>> values, values - table["word_to_compare"].nunique()
    (339, 17)
    >>> peak == BASE_MEMORY + 4.5 * 1000 * 2 * values * 8
    True
    """
    import numpy as np

    evaluated: dict[str, Any] = {}

    def size(var: Any) -> int:
        dims = model.named_vars_to_dims.get(var.name) or ()
        if dims and all(model.coords.get(d) is not None for d in dims):
            return int(np.prod([len(model.coords[d]) for d in dims]))
        static = getattr(var.type, "shape", None)
        if static is not None and all(n is not None for n in static):
            return int(np.prod(static))  # a scalar: 1
        if not evaluated:  # compiles a PyTensor function: only when no shape is known
            evaluated.update(model.eval_rv_shapes())
        return int(np.prod(evaluated.get(var.name, ())))

    values = sum(size(v) for v in model.free_RVs)
    values += sum(size(v) for v in model.deterministics)
    return draws_memory(values, run, table)


def draws_memory(variable_values: int, run: FitSettings, table: pd.DataFrame | None
                 ) -> tuple[float, int]:
    """Return the memory of a fit that keeps ``variable_values`` posterior values a draw.

    :func:`fit_memory` once the sizes of the model's free variables and deterministics
    are summed (``variable_values``): the sampler statistics, the log-likelihoods and the
    crossed level's word effects are added here.

    Parameters
    ----------
    variable_values
        The values of the model's free variables and deterministics in one draw.
    run
        The fit's settings (draws, chains, sampler, level).
    table
        The fitted table (its compared words' or rows' log-likelihoods are kept).

    Returns
    -------
    tuple of (float, int)
        The estimated peak in bytes, and the values kept per draw and chain.

    Examples
    --------
    >>> import embias
    >>> from embias.bayes.memory import BASE_MEMORY, draws_memory
    >>> run = embias.FitSettings(level="dataset", draws=1000, chains=2, sampler="embias")
    >>> peak, values = draws_memory(10, run, None)
    >>> values, peak == BASE_MEMORY + 4.5 * 1000 * 2 * 17 * 8
    (17, True)
    """
    values = variable_values + SAMPLER_STATS.get(run.sampler, max(SAMPLER_STATS.values()))
    if table is not None:
        words = (int(table["word_to_compare"].nunique()) if "word_to_compare" in table.columns
                 else 0)
        values += words if words else len(table)  # log-likelihoods
        if run.level == "crossed":
            values += words  # the word effects
    stored = float(run.draws) * run.chains * values * BYTES_PER_VALUE
    factor = PEAK_PER_STORED_BYTE.get(run.level, PEAK_PER_STORED_BYTE_OTHER)
    return BASE_MEMORY + factor * stored, values


def check_fit_memory(model: Any, run: FitSettings, table: pd.DataFrame | None) -> None:
    """Refuse a fit whose estimated memory (``fit_memory``) is more than this machine has.

    Before it samples: the message gives both figures and the most draws that fit.

    Parameters
    ----------
    model
        The fit's PyMC model (:func:`embias.bayes.model.build_model`).
    run
        The fit's settings (draws, chains, sampler, level).
    table
        The fitted table (its compared words' or rows' log-likelihoods are kept).

    Raises
    ------
    ValueError
        The estimated peak is more than this machine's physical memory
        (``embias.settings.check_memory``).
    """
    check_draws_memory(fit_memory(model, run, table), run)


def check_draws_memory(estimate: tuple[float, int], run: FitSettings) -> None:
    """Refuse a fit whose estimated peak (:func:`draws_memory`) is more than this machine has.

    Parameters
    ----------
    estimate
        The fit's estimated peak in bytes and its values kept per draw and chain.
    run
        The fit's settings (draws, chains, level).

    Raises
    ------
    ValueError
        The estimated peak is more than this machine's physical memory; the message gives
        both figures and the most draws that fit.
    """
    needed, values = estimate
    total = physical_memory()
    if total is None or needed <= total:
        return
    factor = PEAK_PER_STORED_BYTE.get(run.level, PEAK_PER_STORED_BYTE_OTHER)
    most = int((total - BASE_MEMORY) / (factor * run.chains * values * BYTES_PER_VALUE))
    advice = (f"at most about {most:,} draws with {run.chains} chains fit here"
              if most >= 1 else "use fewer chains")
    check_memory(needed, f"a {run.level} fit of {run.draws:,} draws × {run.chains} chains "
                 f"({values:,} values kept per draw)", advice=advice)
