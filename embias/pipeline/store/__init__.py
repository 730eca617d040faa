"""Saved fits: a fit saved to a folder and loaded back, checked file by file.

A saved fit is a directory ``<models_dir>/<study>_<embedding>_<level>_<data>_<key>/``:

- ``posterior.nc`` — the ArviZ ``DataTree`` of the fit (netCDF, h5netcdf engine),
- ``table.parquet`` — the long-form cosine table that was fitted,
- ``settings.json`` — what produced it (study, embedding, model options, seed, versions,
  timings, the table's ``attrs``),
- ``diagnostics.parquet``, ``intervals.parquet``, ``classic.parquet`` and
  ``check_*.parquet`` — the post-processing (r̂/ESS of every scalar, the default interval
  table, MAC/WEAT, the default posterior predictive check; the divergence count is in
  ``settings.json``), computed once when the fit is made and read back instead of
  recomputed. :func:`load_fit` reads the draws (``posterior.nc``) only when something
  needs them (``fit.posterior``): showing or reporting a saved fit does not.

- ``manifest.json`` — written last: the SHA-256 of every other file, when and by which
  process the fit was saved. :func:`load_fit` checks every file against it, so a file
  edited or deleted since the fit was saved is an error naming it, never a fit that is
  trusted.

``<key>`` is a hash of everything that determines the result (study word lists,
embedding source and the :class:`~embias.FitSettings` fields that change the draws:
level, data mode, draws, tune, chains, seed, sampler, target_accept, centring, prior
location), so an identical second call finds and reloads the saved fit instead of
sampling again; ``refit=True`` forces a new fit, which replaces the saved one. A fit is
written to a temporary folder inside ``models_dir`` and swapped into place only once it
is complete: a failed or interrupted call leaves the saved fit as it was, and nothing is
ever written outside ``models_dir`` (but a lock file, below).

Several processes may fit and read one key at once. Each fit folder has a lock
(:mod:`filelock`; the lock file is in the per-user cache, ``$XDG_CACHE_HOME/embias/locks``,
so it guards the processes of one user on one machine): saving holds it while the old
folder is renamed aside and the new one renamed in (the old one is deleted only once the
new one is in place), and :func:`load_fit` holds it while it reads, so a reader always
finds one complete fit. When another process saved the same key while this one was
fitting, the later save replaces it and says so (a :class:`SavedFitReplacedWarning`
naming when the replaced fit was saved and by which process).

A saved fit that cannot be read back — a file cut short by a full disk or a killed
process, a folder written by an embias whose layout (:data:`FIT_FORMAT`) differs — makes
:func:`load_fit` raise :class:`UnreadableFitError` (a ``ValueError``) naming the folder and
the file; ``fit_*_model`` then fits again over it, with a warning that names both, instead
of leaving the user to find and delete the folder.

The package, one module per idea (every name is also importable from
``embias.pipeline.store``):

- :mod:`~embias.pipeline.store.layout` — the files of a fit folder, :data:`FIT_FORMAT`, the
  errors of reading one, and how its settings and names are written;
- :mod:`~embias.pipeline.store.locks` — the lock of a fit folder;
- :mod:`~embias.pipeline.store.manifest` — ``manifest.json``: the SHA-256 of every file,
  written last and read back (:func:`read_manifest`);
- :mod:`~embias.pipeline.store.saving` — :func:`save_fit`: written aside, swapped into place;
- :mod:`~embias.pipeline.store.loading` — :func:`load_fit`: every file checked, the draws
  read when first used.
"""

# Names imported ``X as X`` are importable from here, as from the module
# embias.pipeline.store was, but not in __all__.
from .layout import CHECK_FILES as CHECK_FILES
from .layout import CLASSIC_FILE as CLASSIC_FILE
from .layout import DIAGNOSTICS_FILE as DIAGNOSTICS_FILE
from .layout import FIT_FORMAT, MANIFEST_FILE, SavedFitReplacedWarning, UnreadableFitError
from .layout import INTERVALS_FILE as INTERVALS_FILE
from .layout import POSTERIOR_FILE as POSTERIOR_FILE
from .layout import SETTINGS_FILE as SETTINGS_FILE
from .layout import TABLE_FILE as TABLE_FILE
from .layout import json_default as json_default
from .layout import slug as slug
from .loading import load_fit
from .loading import load_saved as load_saved
from .locks import LOCK_TIMEOUT as LOCK_TIMEOUT
from .locks import locked as locked
from .manifest import read_manifest
from .manifest import saved_by as saved_by
from .saving import save_checked as save_checked
from .saving import save_fit

__all__ = [
    "FIT_FORMAT",
    "MANIFEST_FILE",
    "SavedFitReplacedWarning",
    "UnreadableFitError",
    "load_fit",
    "read_manifest",
    "save_fit",
]
