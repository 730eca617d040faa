"""Many tables of one shape through one compiled program: the batch path of every fit.

Every batch of fits with ``sampler="auto"`` runs here, and every fit alone on cell
statistics (:data:`embias.settings.SINGLE_FIT_SAMPLER`). Tables that differ only in their
values — the studies of a calibration or a design analysis, the word-sampling
simulation's tables, leave-one-word-out refits, the embeddings of a comparison, the fits
of a user's loop — give models of one *shape* (level, data mode and the shape of every
data container, :func:`embias.bayes.model.build_model`; for a model that is built to read
its data, also its graph's constants). For each shape the
model's log density is turned into one JAX function whose data are inputs, and all the
tables' chains run as lanes of one program (:func:`embias.bayes.batch_nuts.run_lanes`),
compiled once per shape and process. The lanes are split over the machine's cores by
threads (XLA runs the two halves of a batch at the same time; no process is forked and
no JAX flag is set).

A lane's draws depend on its table, its seed, the settings and the program's width (its
number of lanes): programs of the same width give the same bits; XLA can vectorise the log
density differently at other widths, so a table fitted alone (a program of its chains)
and in a batch of several (a multiple of :data:`LANE_MULTIPLE` lanes) agree within Monte
Carlo error. No program is compiled per fit, so a process can run any number of fits:
JAX keeps every program it compiled, and a sampler that compiles each fit anew with its
data as constants (``pm.sample``'s numpyro) fills the process's memory maps after about
80 fits.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..settings import FitSettings, dense_mass
from .data import approximate_posterior_sd, initial_values
from .memory import check_draws_memory, draws_memory
from .model import build_model, summary_model_data
from .sampling import shape_key

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["BatchRun", "lane_seed", "sample_tables"]


@dataclass(frozen=True)
class BatchRun:
    """What every table of one batch program shares: the settings it is compiled for.

    Parameters
    ----------
    chains
        Chains per table.
    tune, draws
        Warm-up iterations and kept draws per chain.
    target_accept
        Dual-averaging target of the mean acceptance statistic.
    dense
        Sample with a dense mass matrix (:func:`embias.settings.dense_mass`).
    max_tree_depth
        Largest NUTS tree depth.

    Examples
    --------
    >>> BatchRun.of(FitSettings(level="hierarchical", draws=100, tune=200,
    ...                         target_accept=0.85))
    BatchRun(chains=2, tune=200, draws=100, target_accept=0.85, dense=False, max_tree_depth=10)

    The crossed level samples with a dense mass matrix:

    >>> BatchRun.of(FitSettings(level="crossed")).dense
    True
    """

    chains: int
    tune: int
    draws: int
    target_accept: float
    dense: bool = False
    max_tree_depth: int = 10

    @classmethod
    def of(cls, run: FitSettings) -> BatchRun:
        """Return the batch settings of a fit's settings ``run``."""
        return cls(chains=run.chains, tune=run.tune, draws=run.draws,
                   target_accept=float(run.target_accept), dense=dense_mass(run.level))


@dataclass
class _Shape:
    """One model shape compiled to JAX.

    The potential of a flat unconstrained position given the data, and the function from
    a position to the posterior's variables.
    """

    potential: Any
    constrain: Any
    data_names: list[str]
    data_dtypes: list[Any]
    value_names: list[str]
    value_shapes: list[tuple[int, ...]]
    transforms: list[str]
    output_names: list[str]
    output_dims: list[tuple[str, ...]]
    forward: Any = None
    default_start: dict[str, Any] | None = None
    observed: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    constant: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    constrain_lanes: Any = None


_SHAPES: dict[tuple[Any, ...], _Shape] = {}
_SHAPES_LOCK = threading.Lock()


def _compile_shape(model: Any, *, built: bool = False) -> _Shape:
    """Return the JAX potential and constraining functions of ``model``.

    Its data containers are inputs of both. ``built``: the fits of this shape built their
    models (:func:`_prepare`); their starting points go through the model's transforms and
    take a variable without a moment estimate from its support point.
    """
    from .sampling import python_ops_only

    # PyTensor's Python implementations: the model's initial point is the one PyTensor
    # function here, and with a C compiler PyTensor would first build its C extension
    with python_ops_only():
        return _compile_model(model, built=built)


def _compile_model(model: Any, *, built: bool) -> _Shape:
    from pymc.sampling.jax import get_jaxified_graph
    from pytensor.graph.replace import graph_replace

    data_vars = list(model.data_vars)
    inputs = {v: v.type() for v in data_vars}
    [logp] = graph_replace([model.logp()], inputs, strict=False)
    outputs = [v for v in model.unobserved_value_vars if not v.name.endswith("__")]
    outputs = graph_replace(outputs, inputs, strict=False)
    value_vars = list(model.value_vars)
    logp_fn = get_jaxified_graph(inputs=value_vars + list(inputs.values()), outputs=[logp])
    out_fn = get_jaxified_graph(inputs=value_vars + list(inputs.values()), outputs=outputs)
    point = model.initial_point()
    shapes = [tuple(np.shape(point[v.name])) for v in value_vars]
    sizes = [int(np.prod(s)) for s in shapes]
    transforms = []
    for v in value_vars:
        transform = model.rvs_to_transforms.get(model.values_to_rvs[v])
        transforms.append(type(transform).__name__ if transform is not None else "identity")
    forward, default_start = None, None
    if built or any(t not in ("identity", "LogTransform") for t in transforms):
        forward, default_start = _starting_point_functions(model)

    def unflatten(z: Any) -> list[Any]:
        parts, start = [], 0
        for shape, size in zip(shapes, sizes, strict=True):
            parts.append(z[start:start + size].reshape(shape))
            start += size
        return parts

    def potential(z: Any, data: Any) -> Any:
        return -logp_fn(*unflatten(z), *data)[0]

    def constrain(z: Any, data: Any) -> list[Any]:
        return list(out_fn(*unflatten(z), *data))

    names = [v.name for v in model.unobserved_value_vars if not v.name.endswith("__")]
    dims = [tuple(model.named_vars_to_dims.get(n) or ()) for n in names]
    observed, constant = _data_groups(model)
    return _Shape(potential=potential, constrain=constrain,
                  data_names=[v.name for v in data_vars],
                  data_dtypes=[np.asarray(v.get_value()).dtype for v in data_vars],
                  value_names=[model.values_to_rvs[v].name for v in value_vars],
                  value_shapes=shapes, transforms=transforms, output_names=names,
                  output_dims=dims, forward=forward, default_start=default_start,
                  observed=observed, constant=constant)


def _data_groups(model: Any) -> tuple[list[tuple[str, str, tuple[str, ...]]],
                                      list[tuple[str, tuple[str, ...]]]]:
    """Return where a fit's ``observed_data`` and ``constant_data`` groups come from.

    As ``pm.sample`` writes them: each observed variable with the data container that holds
    its values and its dimensions; every other data container with its dimensions.
    """
    def dims_of(name: str, ndim: int) -> tuple[str, ...]:
        dims = model.named_vars_to_dims.get(name)
        return tuple(dims) if dims else tuple(f"{name}_dim_{i}" for i in range(ndim))

    containers = {v.name for v in model.data_vars}
    observed = []
    for rv in model.observed_RVs:
        value = model.rvs_to_values[rv]
        if getattr(value, "name", None) in containers:
            observed.append((rv.name, value.name, dims_of(rv.name, rv.ndim)))
    used = {container for _, container, _ in observed}
    constant = [(v.name, dims_of(v.name, np.ndim(v.get_value()))) for v in model.data_vars
                if v.name not in used]
    return observed, constant


def _starting_point_functions(model: Any) -> tuple[Any, dict[str, Any]]:
    """Return the model's transforms as one function, and its default starting point.

    For a model with a transform other than the identity and the log (the zero-sum effect
    of the dataset and word levels): ``forward(values)`` takes the free variables'
    constrained values, in the model's order, to the sampler's scale; the default starting
    point (each variable's support point, on the constrained scale) fills what the moment
    estimates leave out (a sentence table's template effects). Called by
    :func:`_compile_shape`, with PyTensor's Python implementations.
    """
    import pytensor
    import pytensor.tensor as pt
    from pymc.initial_point import make_initial_point_fn

    inputs, outputs = [], []
    for value in model.value_vars:
        rv = model.values_to_rvs[value]
        x = pt.tensor(dtype=rv.dtype, shape=(None,) * rv.ndim)
        transform = model.rvs_to_transforms.get(rv)
        inputs.append(x)
        outputs.append(x if transform is None else transform.forward(x))
    forward = pytensor.function(inputs, outputs, on_unused_input="ignore")
    default = make_initial_point_fn(model=model, return_transformed=False, jitter_rvs=set())(0)
    return forward, {name: np.asarray(value) for name, value in default.items()}


def lane_seed(seed: int, chain: int) -> int:
    """Return the seed of one chain (lane) of a fit seeded ``seed``.

    Parameters
    ----------
    seed
        The fit's ``random_seed``.
    chain
        The chain's index.

    Returns
    -------
    int
        An unsigned 64-bit seed: NumPy's ``SeedSequence([seed, chain])``.

    Examples
    --------
    >>> lane_seed(1, 0)
    7434755675892716031
    >>> import numpy as np
    >>> int(np.random.SeedSequence([1, 0]).generate_state(1, dtype=np.uint64)[0])
    7434755675892716031
    >>> lane_seed(1, 1)
    77803131892610477
    """
    return int(np.random.SeedSequence([int(seed), int(chain)]).generate_state(
        1, dtype=np.uint64)[0])


@dataclass
class _Prepared:
    coords: dict[str, Any]
    data: dict[str, np.ndarray]
    starts: list[dict[str, Any]]   # per chain, on the constrained scale
    sds: dict[str, Any]            # approximate posterior sds
    seeds: np.ndarray              # (chains,)
    model: Any = None              # the fit's PyMC model, when it was built to read its data


def summary_data_supported(run: FitSettings, table: pd.DataFrame | None) -> bool:
    """Tell whether a fit's data come without building its model (``summary_model_data``).

    The hierarchical and crossed levels on the cell statistics of a table without
    templates; other fits build their PyMC model once each to read its data containers.
    """
    return (run.level in ("hierarchical", "crossed") and run.data == "summary"
            and table is not None and "template" not in table.columns)


def graph_constants_digest(model: Any) -> str:
    """Return a digest of the constants in ``model``'s graph (its priors, its structure).

    Part of a built model's shape key: tables whose models differ in anything that is not
    a data container compile apart, so no table is run with another's constants.
    """
    import hashlib

    from pytensor.graph.basic import Constant
    from pytensor.graph.traversal import ancestors

    digest = hashlib.sha256()
    outputs = [*model.basic_RVs, *model.deterministics, *model.potentials]
    for node in ancestors(outputs):
        if isinstance(node, Constant):
            value = np.asarray(node.data)
            digest.update(f"{value.dtype}{value.shape}".encode())
            digest.update(value.tobytes())
    return digest.hexdigest()


def _prepare(cells: pd.DataFrame, table: pd.DataFrame | None, run: FitSettings,
             centred: Sequence[str]) -> tuple[tuple[Any, ...], _Prepared]:
    """Return a fit's shape key and its coordinates, data, starting points and seeds.

    At the hierarchical and crossed levels on the cell statistics without building its
    PyMC model (one model per shape is built, :func:`_compile_shape`); other fits build
    theirs and read its data containers, and their shape key adds the digest of its
    graph's constants (:func:`graph_constants_digest`).
    """
    model = None
    if summary_data_supported(run, table):
        coords, data = summary_model_data(cells, level=run.level,  # type: ignore[arg-type]
                                          table=table, centred=centred,
                                          prior_location=run.prior_location)
        key = shape_key(run, data)
    else:
        model = build_model(cells, level=run.level, data=run.data,  # type: ignore[arg-type]
                            table=table, centred=centred, prior_location=run.prior_location)
        coords = {name: list(values) for name, values in model.coords.items()}
        data = {v.name: np.asarray(v.get_value()) for v in model.data_vars}
        key = (*shape_key(run, data), graph_constants_digest(model))
    kinds = list(coords.get("word_kind") or ())
    starts = initial_values(cells, level=run.level, centred=centred,  # type: ignore[arg-type]
                            chains=run.chains, random_seed=int(run.random_seed or 0),
                            word_kinds=kinds)
    sds = approximate_posterior_sd(cells, level=run.level,  # type: ignore[arg-type]
                                   centred=centred)
    seeds = np.array([lane_seed(int(run.random_seed or 0), c) for c in range(run.chains)],
                     dtype=np.uint64)
    return key, _Prepared(coords=coords, data=data, starts=starts, sds=sds, seeds=seeds,
                          model=model)


def _flat_start(shape: _Shape, prep: _Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Return each chain's starting point and the first inverse mass matrix.

    The starting points on the sampler's (unconstrained) scale, the inverse mass matrix
    the squared approximate posterior sds, both in the compiled order.
    """
    if shape.forward is not None:
        return _flat_start_transformed(shape, prep)
    starts, sds = [], []
    for name, var_shape, transform in zip(shape.value_names, shape.value_shapes,
                                          shape.transforms, strict=True):
        log = transform == "LogTransform"
        chains = []
        for start in prep.starts:
            if name not in start:
                raise ValueError(f"batch sampling needs a starting value of {name!r}")
            x = np.broadcast_to(np.asarray(start[name], float), var_shape)
            chains.append((np.log(x) if log else x).ravel())
        starts.append(np.stack(chains))
        sds.append(np.broadcast_to(np.asarray(prep.sds.get(name, 1.0), float),
                                   var_shape).ravel())
    return np.concatenate(starts, axis=1), np.concatenate(sds) ** 2


def _flat_start_transformed(shape: _Shape, prep: _Prepared) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_flat_start` through the model's own transforms (:func:`_starting_point_functions`).

    A variable without a moment estimate starts at its support point. The first inverse
    mass matrix takes a variable's approximate sd where its value has the variable's shape
    and 1 elsewhere (a zero-sum effect's value has one entry less).
    """
    assert shape.forward is not None and shape.default_start is not None
    chains = []
    for start in prep.starts:
        values = [np.asarray(start.get(name, shape.default_start[name]), float)
                  for name in shape.value_names]
        values = [np.broadcast_to(v, np.shape(shape.default_start[name]))
                  for v, name in zip(values, shape.value_names, strict=True)]
        chains.append(np.concatenate([np.asarray(x, float).ravel()
                                      for x in shape.forward(*values)]))
    sds = []
    for name, var_shape in zip(shape.value_names, shape.value_shapes, strict=True):
        sd = np.asarray(prep.sds.get(name, 1.0), float)
        if sd.ndim and sd.shape != tuple(var_shape):
            sd = np.ones(var_shape)
        sds.append(np.broadcast_to(sd, var_shape).ravel())
    return np.stack(chains), np.concatenate(sds) ** 2


def sample_tables(
    items: Sequence[tuple[pd.DataFrame, pd.DataFrame | None, FitSettings, Sequence[str]]],
    *,
    threads: int | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[DataTree]:
    """Draw the posterior of many tables, tables of one shape and settings in one program.

    Long for a reason: the fits are grouped by model shape and settings; per group the model
    is compiled once, the group's data and starting points are stacked and its program runs
    over the threads, with one progress report across all groups — steps that share the
    group's arrays and the progress state.

    Parameters
    ----------
    items
        ``(cells, table, run, centred)`` per fit: the cell statistics, the table (needed
        at the crossed level and with raw data), the resolved settings (a seed set) and
        the centred connections.
    threads
        Threads the lanes are split over (default the machine's CPUs).
    progress
        Called now and then with the share of all the fits' iterations done.

    Returns
    -------
    list of xarray.DataTree
        Per fit, in order: groups ``posterior`` (free variables and deterministics, with
        the model's coordinates) and ``sample_stats`` — the raw draws, before the word
        effects of the crossed level are added.

    Raises
    ------
    ValueError
        A fit's starting values lack a variable of its model, or a fit's estimated memory
        (:func:`embias.bayes.memory.draws_memory`) is more than this machine has.

    Examples
    --------
    :func:`embias.fit_many` shows a batch of fits sampled here; an empty batch draws
    nothing:

    >>> sample_tables([])
    []
    """
    import jax.numpy as jnp

    from .batch_nuts import STAT_NAMES, run_lanes

    groups: dict[tuple[Any, ...], list[int]] = {}
    prepared: list[_Prepared] = []
    for i, (cells, table, run, centred) in enumerate(items):
        key, prep = _prepare(cells, table, run, centred)
        if (key, BatchRun.of(run)) in groups or key in _SHAPES:
            prep.model = None  # its data are read; one model per shape is compiled
        prepared.append(prep)
        groups.setdefault((key, BatchRun.of(run)), []).append(i)
    trees: list[DataTree | None] = [None] * len(items)
    # progress: each program reports the share of its lanes' iterations done
    shares: dict[tuple[int, int], float] = {}
    weights: dict[tuple[int, int], float] = {}
    lock = threading.Lock()

    def reporter(part_key: tuple[int, int]) -> Callable[[float], None] | None:
        if progress is None:
            return None

        def report(done: float) -> None:
            with lock:
                shares[part_key] = done
                total = sum(weights.values()) or 1.0
                progress(sum(shares.get(k, 0.0) * w for k, w in weights.items()) / total)
        return report

    for group_index, ((key, batch), members) in enumerate(groups.items()):
        with _SHAPES_LOCK:
            shape = _SHAPES.get(key)
            if shape is None:
                cells, table, run, centred = items[members[0]]
                built = prepared[members[0]].model
                model = built or build_model(
                    cells, level=run.level, data=run.data,  # type: ignore[arg-type]
                    table=table, centred=centred, prior_location=run.prior_location)
                shape = _compile_shape(model, built=built is not None)
                _SHAPES[key] = shape
        for i in members:
            prepared[i].model = None  # read: its data are in prepared[i].data
            kept = sum(int(np.prod([len(prepared[i].coords[d]) for d in dims]))
                       for dims in shape.output_dims)
            check_draws_memory(draws_memory(kept, items[i][2], items[i][1]), items[i][2])
        lanes_data = [np.stack([np.asarray(prepared[i].data[name], dtype=dtype)
                                for i in members for _ in range(batch.chains)])
                      for name, dtype in zip(shape.data_names, shape.data_dtypes, strict=True)]
        flat = [_flat_start(shape, prepared[i]) for i in members]
        start = np.concatenate([f[0] for f in flat])
        inverse_mass = np.stack([f[1] for f in flat for _ in range(batch.chains)])
        seeds = np.concatenate([prepared[i].seeds for i in members])
        parts = _split(len(seeds), threads)
        for k, part in enumerate(parts):
            weights[group_index, k] = float((part.stop - part.start)
                                            * (batch.tune + batch.draws))

        def run_part(part: slice, shape: _Shape = shape, batch: BatchRun = batch,
                     group_index: int = group_index,
                     lanes_data: list = lanes_data, start: np.ndarray = start,
                     inverse_mass: np.ndarray = inverse_mass,
                     seeds: np.ndarray = seeds, parts: list = parts,
                     fits: int = len(members)) -> Any:
            index = (_padded(part, len(seeds), parts) if fits > 1
                     else np.arange(part.start, part.stop))
            return run_lanes(shape.potential, [jnp.asarray(d[index]) for d in lanes_data],
                             start[index], inverse_mass[index], seeds[index],
                             tune=batch.tune, draws=batch.draws,
                             target_accept=batch.target_accept,
                             max_tree_depth=batch.max_tree_depth, dense=batch.dense,
                             lanes=lanes_at_once(len(index)),
                             chains=part.stop - part.start,
                             progress=reporter((group_index, parts.index(part))))

        # as PyMC names its sampler when sampling starts (the command line prints it)
        logging.getLogger(__name__).log(
            logging.INFO if len(members) == 1 else logging.DEBUG,
            "NUTS[embias]: %d fit(s) × %d chains × (%d + %d), level %s", len(members),
            batch.chains, batch.tune, batch.draws, items[members[0]][2].level)
        started = time.perf_counter()
        if len(parts) == 1:
            results = [run_part(parts[0])]
        else:
            with ThreadPoolExecutor(len(parts)) as pool:
                results = list(pool.map(run_part, parts))
        program = {"batch_lanes": len(seeds), "batch_threads": len(parts),
                   "batch_program_steps": max(r.program_steps for r in results),
                   "batch_seconds": time.perf_counter() - started}
        leapfrogs = np.concatenate([r.leapfrog_steps[:p.stop - p.start]
                                    for r, p in zip(results, parts, strict=True)])
        positions = np.concatenate([r.positions[:p.stop - p.start]
                                    for r, p in zip(results, parts, strict=True)])
        stats = {n: np.concatenate([r.stats[n][:p.stop - p.start]
                                    for r, p in zip(results, parts, strict=True)])
                 for n in STAT_NAMES}
        constrained = _constrain(shape, positions, lanes_data)
        for j, i in enumerate(members):
            lanes = slice(j * batch.chains, (j + 1) * batch.chains)
            trees[i] = _tree(prepared[i].coords, shape,
                             [c[lanes] for c in constrained],
                             {n: s[lanes] for n, s in stats.items()},
                             {**program, "leapfrog_steps": [int(x) for x in leapfrogs[lanes]]},
                             prepared[i].data)
    return [t for t in trees if t is not None]


def _split(lanes: int, threads: int | None) -> list[slice]:
    """Return equal parts of the lanes, one per thread.

    One part when fewer lanes than a bucket's minimum: padding each thread's part would
    only add idle lanes.
    """
    threads = max(1, min(threads or os.cpu_count() or 1, lanes // LANE_MULTIPLE or 1))
    size = -(-lanes // threads)
    return [slice(k * size, min(lanes, (k + 1) * size)) for k in range(threads)
            if k * size < lanes]


#: A program of several fits runs a multiple of this many lanes (a vector of doubles is 4
#: or 8 wide), so that batches of nearby sizes share a program and its rounding; a program
#: of one fit runs exactly its chains (a fit alone, as fast as unpadded). Programs of different
#: widths can still round a model's log density differently (measured on the religion
#: shape: 16, 24, 32 and 48 lanes give the same bits, 8 and 64 others).
LANE_MULTIPLE = 8


#: Chains per lane a program aims at when it has many chains: each lane runs about this
#: many chains one after another (:func:`embias.bayes.batch_nuts.run_lanes`), so the
#: program's length is the chains' total steps over its lanes plus a tail shorter than
#: one chain, instead of the slowest chain's steps.
CHAINS_PER_LANE = 4


def lanes_at_once(chains: int) -> int:
    """Return how many of a program's ``chains`` run at a time (its lanes).

    All of them up to ``2 * LANE_MULTIPLE``, else about ``chains / CHAINS_PER_LANE``
    rounded to a multiple of :data:`LANE_MULTIPLE`, at least ``2 * LANE_MULTIPLE``.

    Parameters
    ----------
    chains
        The program's chains.

    Returns
    -------
    int
        Lanes: a lane whose chain is done takes up the next chain
        (:func:`embias.bayes.batch_nuts.run_lanes`).

    Examples
    --------
    >>> [lanes_at_once(chains) for chains in (4, 16, 17, 64, 128, 256)]
    [4, 16, 16, 16, 32, 64]
    """
    floor = 2 * LANE_MULTIPLE
    if chains <= floor:
        return chains
    return max(floor, LANE_MULTIPLE * round(chains / CHAINS_PER_LANE / LANE_MULTIPLE))


def lane_bucket(lanes: int) -> int:
    """Return the number of chains a program is compiled for: a multiple of LANE_MULTIPLE.

    A part of a batch runs padded to its bucket, so batches of nearby sizes share one
    compile and a chain's draws do not depend on its batch.

    Parameters
    ----------
    lanes
        The part's chains.

    Returns
    -------
    int
        ``lanes`` rounded up to a multiple of :data:`LANE_MULTIPLE` (at least one).

    Examples
    --------
    >>> [lane_bucket(lanes) for lanes in (1, 8, 9, 20)]
    [8, 8, 16, 24]
    """
    return LANE_MULTIPLE * max(1, -(-lanes // LANE_MULTIPLE))


def _padded(part: slice, lanes: int, parts: list[slice]) -> np.ndarray:
    size = lane_bucket(parts[0].stop - parts[0].start)
    index = np.arange(part.start, part.stop)
    if len(index) < size:  # repeat the last lane; its copies are dropped afterwards
        index = np.concatenate([index, np.full(size - len(index), lanes - 1)])
    return index


def _constrain(shape: _Shape, positions: np.ndarray, lanes_data: list[np.ndarray]
               ) -> list[np.ndarray]:
    """Return the posterior's variables of every draw of every lane (one vmapped call)."""
    import jax
    import jax.numpy as jnp

    if shape.constrain_lanes is None:  # compiled once per shape (JAX: once per size)
        per_draw = jax.vmap(shape.constrain, in_axes=(0, None))
        shape.constrain_lanes = jax.jit(jax.vmap(per_draw, in_axes=(0, 0)))
    out = shape.constrain_lanes(jnp.asarray(positions), [jnp.asarray(d) for d in lanes_data])
    return [np.asarray(o, dtype=np.float64) for o in out]


def _tree(model_coords: dict[str, Any], shape: _Shape, values: list[np.ndarray],
          stats: dict[str, np.ndarray], program: dict[str, Any],
          data: dict[str, np.ndarray]) -> DataTree:
    """Return a fit's draws and data as a DataTree.

    Groups ``posterior``, ``sample_stats``, ``observed_data`` and ``constant_data`` (the
    fit's ``data``: its data containers' values), as ``pm.sample`` writes them.

    ``program`` (the batch's lanes, threads, program steps and seconds, and each chain's
    leapfrog steps with its warm-up) goes into the ``sample_stats`` attributes.
    """
    import xarray as xr

    chains, draws = values[0].shape[:2]
    base = {"chain": np.arange(chains), "draw": np.arange(draws)}
    # one Dataset per group from (dims, values) pairs and the coordinates once: a
    # DataArray per variable, each checking its own coordinates, costs several times more
    coords: dict[str, Any] = dict(base)
    for dims in shape.output_dims:
        coords.update({d: list(model_coords[d]) for d in dims})
    posterior = xr.Dataset(
        {name: (("chain", "draw", *dims), value) for name, dims, value in
         zip(shape.output_names, shape.output_dims, values, strict=True)}, coords=coords)
    stat_vars = xr.Dataset({name: (("chain", "draw"),
                                   value.astype(bool) if name == "diverging" else
                                   value.astype(np.int64) if name in ("n_steps", "tree_depth")
                                   else value) for name, value in stats.items()},
                           coords=base, attrs=program)
    def data_coords(dims: tuple[str, ...]) -> dict[str, Any]:
        return {d: list(model_coords[d]) for d in dims if d in model_coords}

    observed = xr.Dataset({name: (dims, np.asarray(data[container]))
                           for name, container, dims in shape.observed})
    observed = observed.assign_coords({d: v for _, _, dims in shape.observed
                                       for d, v in data_coords(dims).items()})
    constant = xr.Dataset({name: (dims, np.asarray(data[name]))
                           for name, dims in shape.constant})
    constant = constant.assign_coords({d: v for _, dims in shape.constant
                                       for d, v in data_coords(dims).items()})
    return xr.DataTree.from_dict({"posterior": posterior, "sample_stats": stat_vars,
                                  "observed_data": observed, "constant_data": constant})
