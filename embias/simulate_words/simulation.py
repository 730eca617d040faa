"""The simulation run: draw tables, fit every model to each, record intervals against the truth."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._progress import progress_wanted
from .._validation import check_choice, check_int, check_probability, check_rope, check_seed
from ..bayes.crossed import WORD_KIND_OF_CONNECTION, WORD_KINDS
from ..settings import (
    BATCH_DRAWS,
    BATCH_TUNE,
    DEFAULT_CHAINS,
    DEFAULT_CI_PROB,
    DEFAULT_ROPE,
    SAMPLERS,
)
from ..tables import CONNECTIONS
from .calibrate import calibrate_word_sampling
from .draw import simulate_word_table
from .parameters import WORD_SAMPLING_LEVELS, WordSamplingParameters
from .shares import word_effect_shares
from .summary import summarize_word_sampling


@dataclass(frozen=True)
class WordSamplingSimulation:
    """Result of :func:`simulate_word_sampling`.

    Attributes
    ----------
    results
        One row per simulated table × model × estimand: ``table`` (index), ``level``,
        ``estimand`` (``connection_mean`` or ``contrast``), ``group`` (connection or
        ``"a - b"``), ``truth``, ``estimate`` (posterior mean), ``lower``/``upper`` (the
        ``ci_prob`` HDI), ``covered`` (the interval contains the truth), ``excludes_zero``,
        ``rope_decision``, the fit's diagnostics ``max_r_hat``, ``min_ess_bulk``,
        ``min_ess_tail``, ``divergences`` (over all of its scalars) and ``problems``
        (:meth:`embias.BiasFit.problems`, joined by ``"; "``; empty when the fit passed),
        and the fit's own ``random_seed`` (derived from the run's seed, the table and the
        level).
    tables
        One row per simulated table: ``table``, ``seed``, the word-effect shares
        (:func:`word_effect_shares`, ``share_<connection>``), the in-sample mean word
        effect per kind (``mean_u_<kind>``: what a model that treats the words as fixed
        takes for part of the connection means) and the in-sample mean of the protected
        words' coefficients per connection (``mean_coef_<connection>``).
    parameters
        The parameters the tables were drawn from (the truth).
    design_shares
        :func:`word_effect_shares` of the design table (the calibration target).
    settings
        Sampler and reporting settings.
    seconds
        Wall-clock seconds of the fits.
    """

    results: pd.DataFrame = field(repr=False)
    tables: pd.DataFrame = field(repr=False)
    parameters: WordSamplingParameters
    design_shares: pd.Series = field(repr=False)
    settings: Mapping[str, Any]
    seconds: float

    def summary(self) -> pd.DataFrame:
        """Return :func:`summarize_word_sampling` of :attr:`results`."""
        return summarize_word_sampling(self.results)

    def failures(self) -> pd.DataFrame:
        """Return the fits that failed a convergence check: ``table``, ``level``, ``problems``."""
        fits = self.results.drop_duplicates(["table", "level"])
        return fits.loc[fits["problems"] != "", ["table", "level", "problems"]].reset_index(
            drop=True)

    def share_check(self) -> pd.DataFrame:
        """Compare the design table's word-effect shares with the simulated tables'.

        Per connection: the design's share next to the mean over the simulated tables and
        its Monte Carlo se.
        """
        rows = []
        for con, share in self.design_shares.items():
            sim = self.tables[f"share_{con}"]
            rows.append({"connection": con, "design": float(share),
                         "simulated_mean": float(sim.mean()),
                         "simulated_se": float(sim.std(ddof=1) / math.sqrt(len(sim)))
                         if len(sim) > 1 else math.nan})
        return pd.DataFrame(rows)


def _fit_rows(fit: Any, *, index: int, level: str, parameters: WordSamplingParameters,
              ci_prob: float, rope: float) -> list[dict[str, Any]]:
    """Compare one fit's connection means and contrasts with the truth they were drawn from.

    With the fit's convergence record (:func:`embias.calibration.fit_intervals`).
    """
    from ..calibration import fit_intervals

    summary, record = fit_intervals(fit, ci_prob=ci_prob, rope=rope)
    rows = []
    for r in summary.itertuples(index=False):
        group = str(r.group)
        truth = (parameters.bar[group] if r.estimand == "connection_mean"
                 else parameters.contrast_truth(group))
        rows.append({
            "table": index, "level": level, "estimand": str(r.estimand), "group": group,
            "truth": truth, "estimate": float(r.estimate), "lower": float(r.lower),
            "upper": float(r.upper), "covered": bool(r.lower <= truth <= r.upper),
            "excludes_zero": bool(r.lower > 0 or r.upper < 0),
            "rope_decision": str(r.rope_decision) if r.estimand == "contrast" else "",
            **record, "random_seed": fit.settings.get("random_seed"),
        })
    return rows


def _table_row(table: pd.DataFrame, index: int, seed: int) -> dict[str, Any]:
    """Describe one simulated table's truth.

    Each connection's share of the residual variance carried by word effects, the mean
    word effect per kind and the mean coefficient per connection.
    """
    shares = word_effect_shares(table)
    effects = table.attrs["truth"]["word_effect"]
    kind_of = (table.drop_duplicates("word_to_compare").set_index("word_to_compare")
               ["connection"].map(WORD_KIND_OF_CONNECTION))
    mean_u = effects.groupby(kind_of.reindex(effects.index)).mean()
    mean_coef = table.attrs["truth"]["coef"].mean(axis=0)
    return {"table": index, "seed": f"({seed}, {index})",
            **{f"share_{c}": float(s) for c, s in shares.items()},
            **{f"mean_u_{k}": float(mean_u[k]) for k in WORD_KINDS if k in mean_u.index},
            **{f"mean_coef_{c}": float(mean_coef[c]) for c in CONNECTIONS
               if c in mean_coef.index}}


#: Tables whose fits run together in one :func:`embias.fit_many` call.
TABLES_PER_BATCH = 128


def simulate_word_sampling(
    design: pd.DataFrame | None = None,
    *,
    n_tables: int = 200,
    parameters: WordSamplingParameters | None = None,
    levels: Sequence[str] = WORD_SAMPLING_LEVELS,
    draws: int = BATCH_DRAWS,
    tune: int = BATCH_TUNE,
    chains: int = DEFAULT_CHAINS,
    sampler: str = "auto",
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    first_table: int = 0,
    random_seed: int | None = None,
    progress: bool = True,
) -> WordSamplingSimulation:
    """Measure false claims of bias and coverage when the compared words are a sample.

    Draws ``n_tables`` tables from the crossed model with the design's rows
    (:func:`simulate_word_table`), fits every model of ``levels`` to each, and records
    every connection mean's and contrast's ``ci_prob`` HDI against the truth.

    **No true association difference** (the default, ``parameters=None``): the parameters
    are :func:`calibrate_word_sampling` of the design with
    ``bar[associated] = bar[different] = bar[none]``
    (:meth:`WordSamplingParameters.without_association`): averaged over the populations of
    protected words and of compared words, a stereotype attribute is exactly as far from a
    protected word as an attribute of another class and as a neutral word. Any single table
    still differs — its protected words' coefficients scatter around ``bar`` with sd τ, and
    its few attribute words' effects rarely average to 0 — and that is what a model which
    takes the words as fixed mistakes for bias. The human words keep their own calibrated
    mean; the true associated − none, associated − different and different − none are 0,
    so an interval of theirs that excludes 0 is a false claim; human − none is not 0.

    Parameters
    ----------
    design
        Cosine table whose rows every simulated table keeps; default the religion table on
        GloVe 6B 50d (``embias.study_table("religion", "glove-6b-50d")``).
    n_tables
        Simulated tables (≥ 1).
    parameters
        The truth to draw from; default the null above.
    levels
        Models to fit (default hierarchical and crossed).
    draws, tune, chains
        Sampler settings of every fit (default the batch settings,
        :meth:`embias.FitSettings.for_batch`: 2 × (500 + 1000)).
    sampler
        NUTS implementation (default ``"auto"``: the tables share the design's shape, so
        their fits run together as lanes of one compiled program, :func:`embias.fit_many`).
    ci_prob
        HDI probability (default 0.89).
    rope
        ROPE half-width of the contrasts' decisions.
    first_table
        Index of the first table: table i is drawn from seed ``(random_seed, i)`` and
        fitted with seeds derived from (``random_seed``, i, level), so any slice of a run
        can be recomputed alone (``first_table=k, n_tables=m`` gives tables k … k+m−1).
    random_seed
        Non-negative integer seed of everything; ``None`` (the default) draws one from the
        OS entropy. The seed used is ``settings["random_seed"]`` of the result (shown in
        its repr): passing it back draws the same tables and gives the fits the same
        seeds.
    progress
        Show a progress bar over the tables.

    Returns
    -------
    WordSamplingSimulation
        Per-table rows (:attr:`~WordSamplingSimulation.results`), with
        :meth:`~WordSamplingSimulation.summary` for the rates and their Monte Carlo
        standard errors.

    Raises
    ------
    ValueError
        A bad ``n_tables``, ``first_table``, seed, ``ci_prob`` or ``rope``, an unknown
        sampler or level, no level, parameters that are not
        :class:`WordSamplingParameters`, or a design the calibration refuses.

    Examples
    --------
    A run fits ``n_tables`` × ``levels`` models; its options are checked before any:

    >>> simulate_word_sampling(n_tables=0)
    Traceback (most recent call last):
    ...
    ValueError: n_tables must be an integer ≥ 1, got 0
    """
    from ..settings import FitSettings

    n_tables = check_int("n_tables", n_tables, minimum=1)
    first_table = check_int("first_table", first_table, minimum=0)
    seed = check_seed(random_seed)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    check_choice("sampler", sampler, SAMPLERS)
    if isinstance(levels, str):
        levels = (levels,)
    levels = tuple(check_choice("levels", lv, ("hierarchical", "crossed", "word", "dataset"))
                   for lv in levels)
    if not levels:
        raise ValueError("levels must name at least one model level, got none")
    if design is None:
        from ..tables import study_table

        design = study_table("religion", "glove-6b-50d")
    if parameters is None:
        parameters = calibrate_word_sampling(design).without_association()
    elif not isinstance(parameters, WordSamplingParameters):
        raise ValueError(f"parameters must be a WordSamplingParameters, got "
                         f"{type(parameters).__name__}")
    settings = {lv: FitSettings.for_batch(level=lv, sampler=sampler, draws=draws, tune=tune,
                                          chains=chains, random_seed=0) for lv in levels}
    start = time.perf_counter()
    rows, table_rows = _fit_tables(design, parameters, levels, settings,
                                   list(range(first_table, first_table + n_tables)),
                                   seed=seed, ci_prob=ci_prob, rope=rope, progress=progress)
    return WordSamplingSimulation(
        results=pd.DataFrame(rows), tables=pd.DataFrame(table_rows), parameters=parameters,
        design_shares=word_effect_shares(design),
        settings={"levels": list(levels), "draws": draws, "tune": tune, "chains": chains,
                  "sampler": sampler, "ci_prob": ci_prob, "ci_kind": "hdi", "rope": rope,
                  "random_seed": seed, "first_table": first_table, "n_tables": n_tables},
        seconds=time.perf_counter() - start)


def _fit_tables(design: pd.DataFrame, parameters: WordSamplingParameters,
                levels: Sequence[str], settings: Mapping[str, Any], indices: list[int], *,
                seed: int, ci_prob: float, rope: float, progress: bool
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Draw and fit the tables ``indices``; return the fits' rows and the tables' rows.

    Table i is drawn from seed (seed, i) and fitted at each of ``levels`` (with
    ``settings[level]``) with the seed derived from (seed, i, level). The tables go in blocks of
    :data:`TABLES_PER_BATCH`: a block's fits run together (one compiled program per
    level).
    """
    from tqdm import tqdm

    from ..bayes import FitJob, derived_seed, fit_many
    from ..settings import FitSettings

    rows: list[dict[str, Any]] = []
    table_rows: list[dict[str, Any]] = []
    with tqdm(total=len(indices), desc="tables", unit="table",
              disable=not progress_wanted(progress)) as bar:
        for k in range(0, len(indices), TABLES_PER_BATCH):
            block = indices[k:k + TABLES_PER_BATCH]
            tables = {i: simulate_word_table(design, parameters,
                                             random_seed=np.random.default_rng([seed, i]))
                      for i in block}
            jobs = [FitJob(tables[i], FitSettings.build(settings[lv], random_seed=derived_seed(
                        seed, str(i), lv)), label=f"table {i} {lv}")
                    for i in block for lv in levels]
            fits = iter(fit_many(jobs, progress=False, warn=False))
            for i in block:
                for lv in levels:
                    rows += _fit_rows(next(fits), index=i, level=lv, parameters=parameters,
                                      ci_prob=ci_prob, rope=rope)
                table_rows.append(_table_row(tables[i], i, seed))
            bar.update(len(block))
    return rows, table_rows
