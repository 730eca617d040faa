"""Running NUTS: embias's batch NUTS (the default), PyMC's samplers, or nutpie.

``sampler="embias"`` (what ``"auto"`` means for batches and for a fit alone on cell
statistics; :meth:`embias.FitSettings.resolved`) runs every fit through the program
compiled once per model shape (:mod:`embias.bayes.batch_sampling`). ``sampler="pymc"`` (and
``"numpyro"``/``"blackjax"``) go through ``pm.sample`` on a model built for the table,
each fit compiled anew. ``sampler="nutpie"`` on the cell summaries compiles the model's
log density once per *shape* (level, number of protected words, the connections, the cells
with n ≥ 2) in this process, and feeds every further table of that shape through
``CompiledModel.with_data`` — the table's statistics, indices and centring are data of
the model (:func:`embias.bayes.model.build_model`), so no table needs its own compile. A
table fitted alone and the same table inside a batch (:func:`embias.fit_many`) run the same
compiled function with the same seed: their draws are identical.

Once compiled, nutpie samples a table of religion/GloVe's size in a small fraction of the
numba compile, which it pays once per process and shape (``benchmarks/bench_fit_speed.py``).

Before a fit samples, its memory is estimated and checked (:mod:`embias.bayes.memory`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._progress import progress_wanted
from ..settings import FitSettings, dense_mass
from .crossed import crossed_design, draw_word_effects
from .data import approximate_posterior_sd, initial_values
from .memory import BASE_MEMORY as BASE_MEMORY
from .memory import PEAK_PER_STORED_BYTE as PEAK_PER_STORED_BYTE
from .memory import PEAK_PER_STORED_BYTE_OTHER as PEAK_PER_STORED_BYTE_OTHER
from .memory import SAMPLER_STATS as SAMPLER_STATS
from .memory import check_fit_memory, fit_memory
from .model import build_model

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = [
    "compiled_shapes",
    "complete_crossed_draws",
    "fit_memory",
    "sample_posterior",
    "sample_posteriors",
]


_COMPILED: dict[tuple[Any, ...], Any] = {}
_COMPILE_LOCK = threading.Lock()


def shape_key(run: FitSettings, data: Mapping[str, Any]) -> tuple[Any, ...]:
    """Return what one compiled model serves (nutpie's and the batch sampler's).

    The level, the data mode and the shape of every data container, given as
    ``{name: value}`` (tables differing only in their values share one compile).
    """
    import numpy as np

    shapes = tuple(sorted((name, tuple(np.shape(value))) for name, value in data.items()))
    return (run.level, run.data, shapes)


def _shape_key(model: Any, run: FitSettings) -> tuple[Any, ...]:
    return shape_key(run, {v.name: v.get_value() for v in model.data_vars})


def compiled_shapes() -> list[tuple[Any, ...]]:
    """Return the model shapes nutpie has compiled in this process (tests, benchmarks).

    Returns
    -------
    list of tuple
        One :func:`shape_key` per compiled model: (level, data mode, container shapes).

    Examples
    --------
    >>> import numpy as np
    >>> import embias
    >>> from embias.bayes.sampling import compiled_shapes, shape_key
    >>> shape_key(embias.FitSettings(level="hierarchical"), {"cell_n": np.ones(60)})
    ('hierarchical', 'summary', (('cell_n', (60,)),))
    >>> all(len(key) == 3 for key in compiled_shapes())
    True
    """
    return list(_COMPILED)


def _relabel(tree: DataTree, model: Any) -> DataTree:
    """Give the draws the coordinates of *this* table.

    The compiled model was built for the first table of its shape: same sizes, other
    labels.
    """
    import xarray as xr

    coords = {name: list(values) for name, values in model.coords.items()
              if values is not None}
    out = {}
    for name in tree.children:
        ds = tree[name].to_dataset()
        fix = {dim: coords[dim] for dim in ds.dims if dim in coords
               and len(coords[dim]) == ds.sizes[dim]}
        out[name] = ds.assign_coords(fix)
    return xr.DataTree.from_dict(out)


def _sample_nutpie(cells: pd.DataFrame, run: FitSettings, model: Any,
                   *, progress: bool) -> DataTree:
    import nutpie

    key = _shape_key(model, run)
    with _COMPILE_LOCK:
        compiled = _COMPILED.get(key)
        if compiled is None:
            compiled = nutpie.compile_pymc_model(model, backend="numba")
            _COMPILED[key] = compiled
    # everything that differs between tables of one shape is a data container of the model
    # (a data container the log density does not use — the cell indices at the crossed
    # level — is not one of the compiled model's inputs)
    known = {var.name for var in compiled.shared_var_keys}
    compiled = compiled.with_data(**{v.name: v.get_value() for v in model.data_vars
                                     if v.name in known})
    tree = nutpie.sample(compiled, draws=run.draws, tune=run.tune, chains=run.chains,
                         cores=run.cores, seed=run.random_seed, progress_bar=progress,
                         save_warmup=False, target_accept=run.target_accept)
    return _relabel(tree, model)


def sample_posterior(
    cells: pd.DataFrame,
    run: FitSettings,
    *,
    table: pd.DataFrame | None,
    centred: Sequence[str],
    progress: bool,
) -> DataTree:
    """Draw the posterior of the model of ``cells`` with resolved settings ``run``.

    Parameters
    ----------
    cells
        The table's :func:`~embias.bayes.data.cell_statistics`.
    run
        Resolved settings (:meth:`embias.FitSettings.resolved`).
    table
        The table (needed by the crossed level and ``data="raw"``).
    centred
        The connections sampled centred.
    progress
        Show the sampler's progress bars (only on a terminal or in a notebook).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (raw parameters and the deterministics ``connection_mean``,
        ``coef``) and ``sample_stats`` (with ``diverging``).

    Raises
    ------
    ValueError
        The fit's estimated memory (:func:`fit_memory`) is more than this machine has;
        checked before sampling, the message gives both figures.

    Examples
    --------
    :func:`embias.fit_bias_model` samples through it; with the default sampler a fit alone
    runs a program of exactly its chains:

    >>> import embias
    >>> from embias.bayes import cell_statistics
    >>> from embias.bayes.sampling import sample_posterior
    >>> table = embias.load_published_table("religion", "reddit")
    >>> run = embias.FitSettings(level="word", draws=100, tune=200, random_seed=1).resolved()
    >>> tree = sample_posterior(cell_statistics(table), run, table=table, centred=(),
    ...                         progress=False)
    >>> run.sampler, tree["sample_stats"].attrs["batch_lanes"]
    ('embias', 2)
    >>> dict(tree["posterior"].sizes)
    {'chain': 2, 'draw': 100, 'protected_word': 15, 'connection': 4}
    """
    if run.sampler == "embias":
        if not progress_wanted(progress):
            return sample_posteriors([(cells, table, run, centred)])[0]
        from tqdm import tqdm

        with tqdm(total=100, desc=f"sampling {run.chains} chains", unit="%",
                  bar_format="{l_bar}{bar}| {elapsed}<{remaining}") as bar:
            def moved(done: float) -> None:
                bar.n = round(100 * done, 1)
                bar.refresh()

            return sample_posteriors([(cells, table, run, centred)], progress=moved)[0]
    # run.level and run.data are str, checked against the levels by FitSettings
    model = build_model(cells, level=run.level, data=run.data,  # type: ignore[arg-type]
                        table=table, centred=centred, prior_location=run.prior_location)
    check_fit_memory(model, run, table)
    progress = progress_wanted(progress)  # no bars in logs and pipes
    if run.sampler == "nutpie":
        tree = _sample_nutpie(cells, run, model, progress=progress)
    else:
        tree = _sample_pymc(cells, run, model, centred=centred, progress=progress)
    return complete_crossed_draws(tree, cells, run, table)


def sample_posteriors(
    items: Sequence[tuple[pd.DataFrame, pd.DataFrame | None, FitSettings, Sequence[str]]],
    *,
    progress: Any = None,
    word_effects: bool = True,
) -> list[DataTree]:
    """Draw the posteriors of many fits with ``sampler="embias"`` at once.

    :func:`sample_posterior` of each: tables of one shape run as lanes of one compiled
    program (:func:`embias.bayes.batch_sampling.sample_tables`).

    Parameters
    ----------
    items
        ``(cells, table, run, centred)`` per fit, ``run`` resolved with a seed.
    progress
        None, or a callable given the share of the sampling done now and then.
    word_effects
        Add the crossed level's compared-word effects (:func:`complete_crossed_draws`);
        ``False`` leaves that to the caller (a batch's fits add them on first use).

    Returns
    -------
    list of xarray.DataTree
        The draws of every fit, in the order of ``items``.

    Raises
    ------
    ValueError
        A fit whose estimated memory is more than this machine has.

    Examples
    --------
    Two fits of one table at the dataset level run as the lanes of one program:

    >>> import embias
    >>> from embias.bayes import cell_statistics
    >>> from embias.bayes.sampling import sample_posteriors
    >>> table = embias.load_published_table("religion", "reddit")
    >>> runs = [embias.FitSettings(level="dataset", draws=200, tune=300, sampler="embias",
    ...                            random_seed=seed) for seed in (1, 2)]
    >>> trees = sample_posteriors([(cell_statistics(table), table, run, ()) for run in runs])
    >>> [tree["posterior"].sizes["draw"] for tree in trees]
    [200, 200]
    >>> trees[0]["sample_stats"].attrs["batch_lanes"]
    4
    """
    from .batch_sampling import sample_tables

    trees = sample_tables(items, progress=progress)
    if not word_effects:
        return trees
    return [complete_crossed_draws(tree, cells, run, table)
            for tree, (cells, table, run, _) in zip(trees, items, strict=True)]


def complete_crossed_draws(tree: DataTree, cells: pd.DataFrame, run: FitSettings,
                           table: pd.DataFrame | None) -> DataTree:
    """Add the compared words' effects, drawn from their exact conditional, and kinds.

    To the posterior of the crossed model fitted with u integrated out; every compared
    word's kind as a coordinate. Draws of the other levels are returned as they are.

    For a sentence table the template effects (``template_effect``,
    ``template_kind_effect``) are sampled with the rest, and the conditional of u takes
    them into account (:func:`~embias.bayes.crossed.draw_word_effects`).
    """
    import numpy as np
    import xarray as xr

    if run.level != "crossed":
        return tree
    if table is None:  # pragma: no cover - build_model refuses the crossed level first
        raise ValueError("level='crossed' needs the table (table=...)")
    design = crossed_design(table, cells)
    post = tree["posterior"].to_dataset()
    if "word_effect" not in post:  # u was integrated out: draw it from its conditional
        u = draw_word_effects(tree, table, cells, design,
                              random_seed=int(run.random_seed or 0))
        post["word_effect"] = xr.DataArray(
            u, dims=("chain", "draw", "word_to_compare"),
            coords={"chain": post["chain"], "draw": post["draw"],
                    "word_to_compare": design.words})
    # each compared word's kind travels with the draws (a coordinate, not a parameter)
    post = post.assign_coords(compared_word_kind=(
        "word_to_compare", np.asarray(design.kinds, dtype=object)[design.word_kind]))
    groups = {name: tree[name].to_dataset() for name in tree.children}
    groups["posterior"] = post
    return xr.DataTree.from_dict(groups)


def _sample_pymc(cells: pd.DataFrame, run: FitSettings, model: Any, *,
                 centred: Sequence[str], progress: bool) -> DataTree:
    """``pm.sample`` with PyMC's own NUTS or numpyro/blackjax through JAX."""
    import pymc as pm

    start: dict[str, Any] = {}
    kinds = list(model.coords.get("word_kind") or ())
    # run.level is a str that FitSettings checked against the levels
    initvals = initial_values(cells, level=run.level,  # type: ignore[arg-type]
                              centred=centred, chains=run.chains,
                              random_seed=int(run.random_seed or 0), word_kinds=kinds)
    if run.sampler == "pymc":
        start = {"init": "adapt_diag", "initvals": initvals}
    elif run.sampler == "numpyro":
        start = {"initvals": initvals}
    kwargs = run.sampling_kwargs()
    if run.sampler == "pymc":
        # PyMC runs parallel chains in forked processes (its default start method on
        # Linux), and this process may run threads (JAX's, BLAS's, a notebook's): the chains
        # run here one after another instead — PyMC's draws for a seed do not depend on it
        kwargs["cores"] = 1
    if run.sampler == "numpyro":
        # the chains start where initial_values puts them (moment estimates, each moved by
        # about one posterior sd): PyMC's default for the JAX samplers adds a uniform ±1 on
        # the unconstrained scale on top (thousands of posterior sds on a large table) and
        # evaluates the log density of it op by op (≈ 1 s in every process)
        kwargs["nuts"] = {**kwargs["nuts"], "chain_method": "parallel", "jitter": False}
        if dense_mass(run.level):
            kwargs["nuts"]["dense_mass"] = True
        sds = approximate_posterior_sd(cells, level=run.level,  # type: ignore[arg-type]
                                       centred=centred)           # (a checked str, as above)
        inverse_mass = initial_inverse_mass(model, sds, dense=dense_mass(run.level))
        if inverse_mass is not None:
            kwargs["nuts"]["inverse_mass_matrix"] = inverse_mass
    jax_sampler = run.sampler in ("numpyro", "blackjax")
    with python_ops_only() if jax_sampler else contextlib.nullcontext():
        tree = pm.sample(**kwargs, progressbar=progress, compute_convergence_checks=False,
                         model=model, **start)
    return _as_numpy(tree) if jax_sampler else tree


def initial_inverse_mass(model: Any, sds: dict[str, Any], *, dense: bool) -> Any:
    """Return numpyro's first inverse mass matrix: the squares of approximate posterior sds.

    numpyro starts tuning from the identity, far from the scales of embias's posteriors
    (sds from about 0.01 for a connection's population mean or a centred coefficient
    to 0.2 for a log τ and 0.8 for a weakly pinned non-centred offset), and its first
    estimates come from windows of 25 and 50 draws: until then the step size shrinks and
    the trees run to hundreds of leapfrog steps. Starting from the moment estimates' scales
    (:func:`embias.bayes.data.approximate_posterior_sd`) the tuning of religion/GloVe takes
    19,000–24,000 leapfrog steps a chain instead of 74,000–77,000 at the hierarchical level
    and 55,000–59,000 instead of 105,000–110,000 at the crossed level, with the ESS in the
    same run-to-run spread (benchmarks/bench_warmup_depth.py, seeds 0–2; likewise on the
    authors' race/GloVe table). Divergent transitions stay as rare: of 60 single chains
    (seeds 0–59) on the test suite's small simulated tables, those with any were 9 against
    6 from the identity (crossed table, 700 tuning iterations), 14 against 14 (template
    table, 500) and 9 against 15 (hierarchical level). Tuning then estimates the mass matrix
    from the draws as usual. Entries in the order numpyro flattens PyMC's value variables
    (the model's order, each C-order); a variable without an approximate sd (template
    effects) keeps 1.

    Returns
    -------
    numpy.ndarray or None
        A diagonal (``dense=False``) or the diagonal matrix (``dense=True``); None when
        ``sds`` is empty (numpyro's identity).
    """
    import numpy as np

    if not sds:
        return None
    parts = []
    for value in model.value_vars:
        name = model.values_to_rvs[value].name  # its transform (log) keeps the shape
        shape = [len(model.coords[d]) for d in model.named_vars_to_dims.get(name, ())]
        parts.append(np.broadcast_to(np.asarray(sds.get(name, 1.0), float), shape).ravel())
    variances = np.concatenate(parts) ** 2
    return np.diag(variances) if dense else variances


def python_ops_only() -> contextlib.AbstractContextManager[Any]:
    """PyTensor without its C compiler, where the log density runs in JAX.

    For ``pm.sample`` with a JAX sampler and for the batch sampler's compile of a model
    shape (:mod:`embias.bayes.batch_sampling`). The PyTensor functions on those paths take
    the starting points to the unconstrained scale or give the model's initial point. With
    a C compiler PyTensor first builds its C extension (``lazylinker_ext``) into an empty
    cache for them, which costs more than the functions; its Python implementations give
    the same starting points, hence the same draws.
    """
    import pytensor

    return pytensor.config.change_flags(cxx="")


def _as_numpy(tree: DataTree) -> DataTree:
    """Return the DataTree with every variable a NumPy array (float64 for floating point).

    The JAX samplers leave JAX arrays in the DataTree; PyMC's own sampler gives NumPy.
    """
    import numpy as np
    import xarray as xr

    def convert(ds: xr.Dataset) -> xr.Dataset:
        out = ds.copy()
        for name, var in ds.data_vars.items():
            values = np.asarray(var.values)
            if np.issubdtype(values.dtype, np.floating):
                values = values.astype(np.float64)
            out[name] = (var.dims, values, var.attrs)
        return out

    return xr.DataTree.from_dict({name: convert(tree[name].to_dataset())
                                  for name in tree.children})
