"""One settings object for every Bayesian fit: the model's choices and the sampler's.

:class:`FitSettings` is validated once, when it is made, through
:mod:`embias._validation`. It is what :func:`embias.fit_bias_model`,
:func:`embias.fit_study_model`, :func:`embias.fit_change_model`,
:func:`embias.compare_embeddings` and :class:`embias.FitJob` take, what a saved fit's
``settings.json`` stores, what the saved-fit key hashes (:meth:`FitSettings.key_fields`)
and what the command line's options map to (``embias fit --draws …``).

This module imports only the standard library, so the command line can validate options
before anything heavy is imported.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

from ._validation import (
    check_choice,
    check_int,
    check_number,
    check_probability,
    check_seed,
)

__all__ = [
    "BATCH_DENSE_TARGET_ACCEPT",
    "BATCH_DRAWS",
    "BATCH_SAMPLER",
    "BATCH_TARGET_ACCEPT",
    "BATCH_TUNE",
    "DATA_MODES",
    "DEFAULT_CHAINS",
    "DEFAULT_CI_PROB",
    "DEFAULT_DRAWS",
    "DEFAULT_LEVEL",
    "DEFAULT_MODELS_DIR",
    "DEFAULT_ROPE",
    "DEFAULT_SAMPLER",
    "DEFAULT_TARGET_ACCEPT",
    "DEFAULT_TUNE",
    "K_THRESHOLD",
    "LEVELS",
    "ROW_MODEL_SAMPLER",
    "SAMPLERS",
    "SINGLE_FIT_SAMPLER",
    "WORD_SAMPLING_LEVELS",
    "FitSettings",
    "cache_home",
    "check_memory",
    "dense_mass",
    "physical_memory",
    "sampler_available",
]

#: Pareto k above which importance sampling is not trusted (Vehtari et al. 2024): a
#: leave-one-out estimate with a larger k is refitted or flagged.
K_THRESHOLD = 0.7
#: Model levels (see :mod:`embias.bayes.model`).
LEVELS: tuple[str, ...] = ("dataset", "word", "hierarchical", "crossed")
#: The models the word-sampling simulation compares by default: the published one and the
#: one with compared words as a random sample (:func:`embias.simulate_word_sampling`; its
#: figure draws them in this order).
WORD_SAMPLING_LEVELS: tuple[str, ...] = ("hierarchical", "crossed")
#: Default model level: ``"crossed"``, the authors' hierarchical model with the compared
#: words as a random sample. On null tables with the religion design its 89% intervals of
#: the contrasts against neutral words exclude 0 at the nominal rate (0.105 ± 0.022), the
#: published model's three times as often (0.315 ± 0.033; ``benchmarks/bench_word_sampling.py``,
#: README "Word lists are samples too"). ``level="hierarchical"`` replicates the papers.
DEFAULT_LEVEL = "crossed"
#: ``data=`` modes: cell sufficient statistics (fast, default) or one term per row.
DATA_MODES: tuple[str, ...] = ("summary", "raw")
#: NUTS implementations accepted by ``sampler=``: ``"auto"`` (default), ``"embias"``
#: (embias's batch NUTS, :mod:`embias.bayes.batch_nuts`: the chains of many tables of one
#: shape as lanes of one compiled program) and those of ``pm.sample(nuts_sampler=...)``.
SAMPLERS: tuple[str, ...] = ("auto", "embias", "pymc", "nutpie", "numpyro", "blackjax")
#: The package each sampler needs beyond PyMC (named in the error when it is missing).
SAMPLER_PACKAGES: Mapping[str, str] = {"auto": "numpyro", "embias": "jax",
                                       "nutpie": "nutpie", "numpyro": "numpyro",
                                       "blackjax": "blackjax"}
#: Default NUTS implementation, ``"auto"``: embias's batch NUTS for fits run together and
#: for a fit alone on cell statistics; numpyro for a fit alone of raw rows or of a sentence
#: table with templates. The batch program is compiled once per model shape in a process
#: with the data as inputs, so a process can run any number of fits: ``pm.sample``'s JAX
#: samplers (``"numpyro"``, ``"blackjax"``) compile every fit anew with its data as
#: constants, and JAX keeps every such program (about 80 fits exhaust Linux's memory maps
#: and the process dies; :func:`embias.fit_many` runs many such fits on the batch sampler).
#: Measured (religion/GloVe 6B 50d, 2 × (1000 + 3000); ``benchmarks/bench_fit_speed.py
#: --only embias-numpyro,embias-numpyro-crossed,embias-default,embias-crossed``): a script
#: that fits one table takes 9.7 s against numpyro's 8.9 s at the crossed level and 11.7 s
#: against 8.4 s at the hierarchical level (fresh process, empty caches), with the same ESS;
#: every further fit of a table of that shape in the process takes about 2 s against 4 s.
#: On raw rows (hierarchical) and a sentence table's templates (MiniLM, crossed) numpyro's
#: fit is 1.5–1.9× faster, hence ``ROW_MODEL_SAMPLER``. The sampler a fit ran with is
#: recorded in its settings.
DEFAULT_SAMPLER = "auto"
#: What ``sampler="auto"`` means for fits run together (:func:`embias.fit_many` and
#: everything built on it): their tables of one shape share one compiled program.
BATCH_SAMPLER = "embias"
#: What ``sampler="auto"`` means for a fit run alone on cell statistics: the same sampler,
#: run at exactly its chains' width.
SINGLE_FIT_SAMPLER = BATCH_SAMPLER
#: What ``sampler="auto"`` means for a fit run alone of raw rows or of a sentence table's
#: templates.
ROW_MODEL_SAMPLER = "numpyro"
#: Default posterior interval probability (McElreath's 89%).
DEFAULT_CI_PROB = 0.89
#: Where fits are saved unless ``models_dir=`` (``--out``) says otherwise (relative to the
#: working directory).
DEFAULT_MODELS_DIR = "models"


def cache_home() -> Path:
    """Return embias's per-user cache folder: ``$XDG_CACHE_HOME/embias``.

    ``~/.cache/embias`` by default: the study tables, the saved fits' lock files and the
    audit page's templates are kept there (and JAX's compiled programs, when
    :func:`embias.configure_jax` is asked to).

    Returns
    -------
    pathlib.Path
        The folder (not created here).

    Examples
    --------
    >>> cache_home().name
    'embias'
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "embias"


#: Default half-width of the region of practical equivalence for contrasts, in cosine
#: distance units: differences within ±0.02 count as practically zero.
DEFAULT_ROPE = 0.02
#: Sampler defaults: every reported quantity of every level on every shipped table keeps
#: bulk and tail ESS ≥ 1000 (``benchmarks/bench_published_fits.py``).
DEFAULT_DRAWS = 3000
DEFAULT_TUNE = 1000
DEFAULT_CHAINS = 2
#: Sampler settings of the many fits behind one answer — the real-word calibration, the
#: design analysis, the word-sampling simulation: 2 chains × (500 + 1000) draws, target
#: acceptance 0.9 as a fit alone — 0.8 at the crossed level, whose dense mass matrix
#: leaves no divergence at 0.8 (100 religion-shaped fits: none at either, 14% fewer
#: leapfrog steps and no more fits missing a check; the hierarchical level diverged in 2
#: of 100 fits at 0.8) — enough for bulk and tail ESS ≥ 400 of every parameter of nearly
#: every crossed fit (the fits that miss are reported by index), where a fit reported
#: alone keeps the defaults above (ESS ≥ 1000).
BATCH_DRAWS = 1000
BATCH_TUNE = 500
BATCH_TARGET_ACCEPT = 0.9
BATCH_DENSE_TARGET_ACCEPT = 0.8
DEFAULT_TARGET_ACCEPT = 0.9
#: Default location of the priors of the connection means (bar ~ N(1, 0.3), m ~ N(1, .5)):
#: cosine distances centre on 1. The paired change model uses 0.
DEFAULT_PRIOR_LOCATION = 1.0


#: Fewest float64 values a fit stores per draw and chain: three parameters (the smallest
#: model, ``level="dataset"``, has a connection effect, an sd and a mean) and seven sampler
#: statistics (numpyro's; PyMC's and nutpie's are more). ``draws × chains`` times this is a
#: floor of any fit's memory, checked when the settings are made.
MIN_VALUES_PER_DRAW = 3 + 7
BYTES_PER_VALUE = 8


def physical_memory() -> int | None:
    """Return the machine's physical memory in bytes (``None`` where it cannot be read).

    Returns
    -------
    int or None
        Bytes of physical memory.

    Examples
    --------
    >>> memory = physical_memory()
    >>> memory is None or memory > 2**20
    True
    """
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows)
        pass
    try:
        import psutil
    except ImportError:
        return None
    return int(psutil.virtual_memory().total)


def _size(n: float) -> str:
    """Show ``n`` bytes in the largest unit that keeps a number ≥ 1 (``'24.0 GB'``)."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def check_memory(needed: float, what: str, *, advice: str = "") -> None:
    """Refuse a task that needs more bytes than the machine's physical memory.

    Parameters
    ----------
    needed
        Bytes the task needs.
    what
        The task, named in the message.
    advice
        What to do instead, appended to the message.

    Raises
    ------
    ValueError
        ``needed`` is more than :func:`physical_memory`; the message gives both figures.

    Examples
    --------
    >>> check_memory(1e6, "a small fit")
    >>> check_memory(1e20, "a fit", advice="use fewer draws")
    Traceback (most recent call last):
    ...
    ValueError: a fit needs about 100000.0 PB of memory; this machine has ... — use fewer draws
    """
    total = physical_memory()
    if total is not None and needed > total:
        raise ValueError(f"{what} needs about {_size(needed)} of memory; this machine has "
                         f"{_size(total)}" + (f" — {advice}" if advice else ""))


def dense_mass(level: str) -> bool:
    """Tell whether fits at ``level`` adapt a dense mass matrix (the JAX samplers).

    The crossed level's protected-word coefficients of one connection share the
    integrated-out compared-word effects, so they are strongly correlated a posteriori (a
    diagonal mass matrix gives 2–3 times fewer effective draws per gradient on
    religion-shaped tables).

    Examples
    --------
    >>> dense_mass("crossed"), dense_mass("hierarchical")
    (True, False)
    """
    return level == "crossed"


def sampler_available(sampler: str) -> None:
    """Refuse a sampler whose package is not installed, naming the package to install.

    Checked before any work starts, without importing the package.

    Parameters
    ----------
    sampler
        One of :data:`SAMPLERS`.

    Raises
    ------
    ValueError
        The sampler's package (:data:`SAMPLER_PACKAGES`) is not installed.

    Examples
    --------
    numpyro, the default sampler's package, is a dependency of embias:

    >>> sampler_available("numpyro")
    >>> SAMPLER_PACKAGES["nutpie"]
    'nutpie'
    """
    package = SAMPLER_PACKAGES.get(sampler)
    if package is None:
        return
    import importlib.util

    if importlib.util.find_spec(package) is None:
        raise ValueError(f"sampler={sampler!r} needs the {package!r} package, which is not "
                         f"installed: pip install {package}")


@dataclass(frozen=True)
class FitSettings:
    """Everything that chooses a Bayesian fit's model and sampler, checked once.

    Parameters
    ----------
    level
        ``"crossed"`` (default, :data:`DEFAULT_LEVEL`: the hierarchical model with the
        compared words as a random sample, :mod:`embias.bayes.crossed`),
        ``"hierarchical"`` (the authors' published model, for replication), ``"word"`` or
        ``"dataset"`` (see :mod:`embias.bayes.model`).
    data
        ``"summary"`` (default; fit on the cell sufficient statistics, same posterior in
        time independent of the rows) or ``"raw"`` (one likelihood term per row).
    draws, tune, chains
        Posterior draws per chain, tuning steps per chain, chains (each ≥ 1; tune ≥ 0).
        The defaults (3000, 1000, 2) keep bulk and tail ESS ≥ 1000 for every reported
        quantity of every level on the shipped tables. Their only upper limit is memory:
        ``draws × chains`` whose draws alone (at least :data:`MIN_VALUES_PER_DRAW` float64
        values each) exceed this machine's memory are refused here, and a fit checks its
        model's own estimate before it samples.
    cores
        Chains run in parallel; ``None`` means ``min(chains, CPUs)`` (PyMC's own default
        runs chains one after another on 2-core machines). It does not change the draws.
    random_seed
        Sampler seed; ``None`` draws one when the fit runs (recorded in its settings).
    sampler
        NUTS implementation, one of :data:`SAMPLERS` (default :data:`DEFAULT_SAMPLER`).
    target_accept
        NUTS target acceptance rate, in (0, 1).
    centred
        Hierarchical level: connections sampled centred, or ``"auto"``
        (:func:`embias.bayes.data.choose_centring`).
    prior_location
        Location of the priors of the connection means (1.0: cosine distances centre on 1;
        the paired change model uses 0.0).

    Raises
    ------
    ValueError
        A value outside what the field allows (naming it), or ``draws × chains`` whose
        draws alone exceed this machine's memory.

    Examples
    --------
    >>> FitSettings(level="hierarchical", draws=500, random_seed=1)
    FitSettings(level='hierarchical', data='summary', draws=500, tune=1000, chains=2,
                cores=None, random_seed=1, sampler='auto', target_accept=0.9, centred='auto',
                prior_location=1.0)
    >>> FitSettings(draws=0)
    Traceback (most recent call last):
    ...
    ValueError: draws must be an integer ≥ 1, got 0
    """

    level: str = DEFAULT_LEVEL
    data: str = "summary"
    draws: int = DEFAULT_DRAWS
    tune: int = DEFAULT_TUNE
    chains: int = DEFAULT_CHAINS
    cores: int | None = None
    random_seed: int | None = None
    sampler: str = DEFAULT_SAMPLER
    target_accept: float = DEFAULT_TARGET_ACCEPT
    centred: str | tuple[str, ...] = "auto"
    prior_location: float = DEFAULT_PRIOR_LOCATION

    def __post_init__(self) -> None:
        """Check every field (the checks of :mod:`embias._validation`)."""
        set_ = object.__setattr__
        check_choice("level", self.level, LEVELS)
        check_choice("data", self.data, DATA_MODES)
        check_choice("sampler", self.sampler, SAMPLERS)
        set_(self, "draws", check_int("draws", self.draws, minimum=1))
        set_(self, "tune", check_int("tune", self.tune, minimum=0))
        set_(self, "chains", check_int("chains", self.chains, minimum=1))
        floor = self.draws * self.chains * MIN_VALUES_PER_DRAW * BYTES_PER_VALUE
        check_memory(floor, f"draws={self.draws} × chains={self.chains} (at least "
                     f"{MIN_VALUES_PER_DRAW} stored values per draw)",
                     advice="use fewer draws or chains")
        if self.cores is not None:
            set_(self, "cores", check_int("cores", self.cores, minimum=1))
        if self.random_seed is not None:
            set_(self, "random_seed", check_seed(self.random_seed))
        set_(self, "target_accept", check_probability("target_accept", self.target_accept))
        if isinstance(self.centred, str):
            if self.centred != "auto":
                raise ValueError(f"centred must be 'auto' or a list of connections, got "
                                 f"{self.centred!r}")
        else:
            try:
                names = tuple(sorted(str(c) for c in self.centred))
            except TypeError:
                raise ValueError(f"centred must be 'auto' or a list of connections, got "
                                 f"{self.centred!r}") from None
            set_(self, "centred", names)
        set_(self, "prior_location", check_number("prior_location", self.prior_location))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Return the names of the settings' fields."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def build(cls, settings: FitSettings | None = None, /, **options: Any) -> FitSettings:
        """Return ``settings`` (default: the defaults) with ``options`` replaced.

        An unknown option name is a ValueError listing the allowed ones.

        Examples
        --------
        >>> FitSettings.build(FitSettings(draws=500), chains=4).chains
        4
        >>> FitSettings.build(draw=10)
        Traceback (most recent call last):
        ...
        ValueError: unknown fit option(s) ['draw']; allowed: ['level', 'data', 'draws', ...]
        """
        unknown = sorted(set(options) - set(cls.field_names()))
        if unknown:
            raise ValueError(f"unknown fit option(s) {unknown}; allowed: "
                             f"{list(cls.field_names())}")
        if settings is None:
            return cls(**options)
        if not isinstance(settings, FitSettings):
            raise ValueError(f"settings must be a FitSettings, got {type(settings).__name__}")
        return dataclasses.replace(settings, **options) if options else settings

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> FitSettings:
        """Read the settings stored in a saved fit (keys that are not fields are ignored)."""
        fields = {k: v for k, v in record.items() if k in cls.field_names()}
        if isinstance(fields.get("centred"), list):
            fields["centred"] = tuple(fields["centred"])
        return cls(**fields)

    # ------------------------------------------------------------------ views
    @classmethod
    def for_batch(cls, **fields: Any) -> FitSettings:
        """Return the settings of the many fits behind one answer, any field replaced.

        :data:`BATCH_DRAWS`, :data:`BATCH_TUNE` and :data:`BATCH_TARGET_ACCEPT` (at the
        crossed level :data:`BATCH_DENSE_TARGET_ACCEPT`), any field replaced by
        ``fields``.
        """
        dense = dense_mass(fields.get("level", DEFAULT_LEVEL))
        target = BATCH_DENSE_TARGET_ACCEPT if dense else BATCH_TARGET_ACCEPT
        return cls.build(**{"draws": BATCH_DRAWS, "tune": BATCH_TUNE,
                            "target_accept": target, **fields})

    def resolved(self, table: pd.DataFrame | None = None) -> FitSettings:
        """Return the settings a fit actually runs with.

        A seed drawn if none was given, ``cores`` = min(chains, CPUs) if unset, and
        ``sampler="auto"`` as for a fit of ``table`` run alone (:data:`SINGLE_FIT_SAMPLER`,
        or :data:`ROW_MODEL_SAMPLER` for raw rows or a sentence table's templates;
        :func:`embias.fit_many` resolves it for a batch).

        Examples
        --------
        >>> import pandas as pd
        >>> FitSettings(random_seed=1).resolved().sampler
        'embias'
        >>> FitSettings(random_seed=1, data="raw").resolved().sampler
        'numpyro'
        >>> FitSettings(random_seed=1).resolved(pd.DataFrame(columns=["template"])).sampler
        'numpyro'
        """
        seed = check_seed(self.random_seed)
        cores = self.cores if self.cores is not None else min(self.chains,
                                                              os.cpu_count() or 1)
        sampler = self.sampler
        if sampler == "auto":
            rows = self.data == "raw" or (table is not None and "template" in table.columns)
            sampler = ROW_MODEL_SAMPLER if rows else SINGLE_FIT_SAMPLER
        return dataclasses.replace(self, random_seed=seed, cores=cores, sampler=sampler)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready record (what ``settings.json`` stores)."""
        out = dataclasses.asdict(self)
        if not isinstance(self.centred, str):
            out["centred"] = list(self.centred)
        return out

    def key_fields(self) -> dict[str, Any]:
        """Return what the saved-fit key hashes: everything that changes the draws.

        ``cores`` does not.
        """
        out = self.to_dict()
        out.pop("cores")
        return out

    def sampling_kwargs(self) -> dict[str, Any]:
        """Return the keyword arguments of ``pm.sample`` for these (resolved) settings."""
        if self.random_seed is None or self.cores is None:
            raise ValueError("sampling_kwargs() needs resolved settings (call .resolved())")
        return {"draws": self.draws, "tune": self.tune, "chains": self.chains,
                "cores": self.cores, "random_seed": self.random_seed,
                "nuts_sampler": self.sampler,
                "nuts": {"target_accept": self.target_accept}}

