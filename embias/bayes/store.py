"""Saved fits: one call from a script, fits kept in ``models/`` and reloaded.

A saved fit is a directory ``<models_dir>/<study>_<embedding>_<level>_<data>_<key>/``:

- ``posterior.nc`` — the ArviZ ``DataTree`` of the fit (netCDF, h5netcdf engine),
- ``table.parquet`` — the long-form cosine table that was fitted,
- ``settings.json`` — what produced it (study, embedding, model options, seed, versions,
  timings, the table's ``attrs``),
- ``diagnostics.parquet``, ``intervals.parquet``, ``classic.parquet`` — the post-processing
  (r̂/ESS of every scalar, the default interval table, MAC/WEAT), computed once when the
  fit is made and read back instead of recomputed.

``<key>`` is a hash of everything that determines the result (study word lists,
embedding source and the :class:`~embias.FitSettings` fields that change the draws:
level, data mode, draws, tune, chains, seed, sampler, target_accept, centring, prior
location), so an identical second call finds and reloads the saved fit instead of
sampling again; ``refit=True`` forces a new fit, which replaces the saved one. A fit is
written to a temporary folder inside ``models_dir`` and renamed into place only once it
is complete: a failed call leaves nothing behind, and nothing is ever written outside
``models_dir``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_output
from ..classic import classic_scores
from ..embeddings import BUILTIN_EMBEDDINGS
from ..settings import FitSettings
from ..tables import published_name, study_table
from ..wordlists import Study, load_study
from .data import cell_statistics
from .fit import BiasFit, fit_bias_model, sampler_available

__all__ = [
    "DEFAULT_MODELS_DIR",
    "fit_gender_model",
    "fit_race_model",
    "fit_religion_model",
    "fit_study_model",
    "load_fit",
    "save_fit",
]

#: Where fits are saved unless ``models_dir=`` says otherwise (relative to the working
#: directory).
DEFAULT_MODELS_DIR = "models"

POSTERIOR_FILE = "posterior.nc"

TABLE_FILE = "table.parquet"

SETTINGS_FILE = "settings.json"
#: Post-processing kept with a fit, so a reloaded fit is shown without recomputing it:
#: r̂/ESS of every posterior scalar, the default interval table, the classic scores.
DIAGNOSTICS_FILE = "diagnostics.parquet"
INTERVALS_FILE = "intervals.parquet"
CLASSIC_FILE = "classic.parquet"

#: Version of the saved-fit layout; bump when it changes.
FIT_FORMAT = 2



def _json_default(value: Any) -> Any:
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, set | tuple):
        return list(value)
    return str(value)



def _versions() -> dict[str, str]:
    import arviz
    import pymc
    import pytensor

    from .. import __version__

    return {"embias": __version__, "pymc": pymc.__version__, "pytensor": pytensor.__version__,
            "arviz": arviz.__version__}



def save_fit(fit: BiasFit, path: str | os.PathLike[str]) -> BiasFit:
    """Save a fit to the directory ``path`` (created; replaced if it exists).

    The fit is written to a temporary sibling folder first and renamed into place, so an
    interrupted save never leaves a partial fit at ``path``.

    Returns
    -------
    BiasFit
        The same fit with ``path`` set.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        fit.posterior.to_netcdf(tmp / POSTERIOR_FILE, engine="h5netcdf")
        table = fit.table.copy()
        table.attrs = {}
        table.to_parquet(tmp / TABLE_FILE, index=False)
        record = {
            "format": FIT_FORMAT,
            "settings": dict(fit.settings),
            "timings": dict(fit.timings),
            "table_attrs": dict(fit.table.attrs),
            "versions": _versions(),
        }
        (tmp / SETTINGS_FILE).write_text(json.dumps(record, indent=2, default=_json_default),
                                         encoding="utf-8")
        fit.diagnostics().to_parquet(tmp / DIAGNOSTICS_FILE, index=False)
        fit.to_interval_table().to_parquet(tmp / INTERVALS_FILE, index=False)
        fit.classic.to_parquet(tmp / CLASSIC_FILE, index=False)
        if path.exists():
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return fit.replace(path=str(path))  # the post-processing computed above travels



def load_fit(path: str | os.PathLike[str]) -> BiasFit:
    """Load a fit saved by :func:`save_fit` / ``fit_*_model``.

    Parameters
    ----------
    path
        The fit's directory (or any file inside it, e.g. its ``posterior.nc``).

    Returns
    -------
    BiasFit

    Raises
    ------
    FileNotFoundError
        ``path`` is not a saved fit (names the path given and the missing file).
    """
    import xarray as xr

    given = Path(path)
    path = given.parent if given.is_file() else given
    holds = f"(a fit folder holds {POSTERIOR_FILE}, {TABLE_FILE} and {SETTINGS_FILE})"
    if not given.exists():
        raise FileNotFoundError(f"{str(given)!r} is not a saved embias fit: no such folder")
    for name in (POSTERIOR_FILE, TABLE_FILE, SETTINGS_FILE):
        if not (path / name).is_file():
            where = (f"it is a file, and its folder {str(path)!r} has no {name}"
                     if given.is_file() else f"{name} is missing")
            raise FileNotFoundError(f"{str(given)!r} is not a saved embias fit: {where} "
                                    f"{holds}")
    record = json.loads((path / SETTINGS_FILE).read_text(encoding="utf-8"))
    if record.get("format") != FIT_FORMAT:
        raise ValueError(f"{str(path)!r} was saved in fit format {record.get('format')!r}; "
                         f"this embias reads format {FIT_FORMAT}")
    with xr.open_datatree(path / POSTERIOR_FILE, engine="h5netcdf") as stored:
        posterior = stored.load().copy()
    table = pd.read_parquet(path / TABLE_FILE)
    table.attrs = record.get("table_attrs", {})
    classic = (pd.read_parquet(path / CLASSIC_FILE) if (path / CLASSIC_FILE).is_file()
               else classic_scores(table))
    fit = BiasFit(posterior=posterior, table=table, cells=cell_statistics(table),
                  settings=record["settings"], classic=classic,
                  timings=record.get("timings", {}), path=str(path))
    # the post-processing saved with the fit is not computed again
    fit.restore_post_processing(
        diagnostics=(pd.read_parquet(path / DIAGNOSTICS_FILE)
                     if (path / DIAGNOSTICS_FILE).is_file() else None),
        interval_table=(pd.read_parquet(path / INTERVALS_FILE)
                        if (path / INTERVALS_FILE).is_file() else None))
    return fit



# --------------------------------------------------------------------------- study fits
def _embedding_identity(embedding: str) -> dict[str, Any]:
    """What identifies an embedding source in a fit's key."""
    if embedding.startswith("published:"):
        return {"source": embedding}
    if embedding in BUILTIN_EMBEDDINGS or embedding.startswith("gensim:"):
        return {"source": embedding}
    file = Path(embedding)
    if file.is_file():
        st = file.stat()
        return {"source": str(file.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    return {"source": embedding}



def _study_identity(st: Study) -> str:
    """A hash of the study's word lists (what its fits depend on, wherever it is read
    from)."""
    content = {
        "protected": {k: list(v) for k, v in st.protected.items()},
        "attributes": {k: list(v) for k, v in st.attributes.items()},
        "neutral": list(st.neutral),
        "human": list(st.human),
        "associations": dict(st.associations),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()



def _slug(text: str, empty: str = "embedding") -> str:
    """``text`` as one safe folder-name part (no separators, no ``..``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.").lower() or empty



def _check_source(study: str | Study, embedding: str) -> Study:
    """The study (an unknown one fails here, early), after checking the embedding source."""
    st = load_study(study)
    if not isinstance(embedding, str) or not embedding:
        raise ValueError(f"embedding must be a non-empty source string, got {embedding!r}; "
                         "for a KeyedVectors use cosine_table() + fit_bias_model() + "
                         "save_fit()")
    if embedding.startswith("published:"):
        published_name(st.name, embedding)
    return st



def _study_table(study: str | Study, embedding: str) -> pd.DataFrame:
    # exact duplicate rows (race tables) would be double-counted by the likelihood
    return study_table(study, embedding, duplicates="drop")



def fit_study_model(
    study: str | Study,
    embedding: str = "glove-6b-50d",
    *,
    settings: FitSettings | None = None,
    models_dir: str | os.PathLike[str] = DEFAULT_MODELS_DIR,
    refit: bool = False,
    progressbar: bool = True,
    **options: Any,
) -> BiasFit:
    """Load embeddings, build a study's cosine table, fit, save and return the fit.

    Parameters
    ----------
    study
        A shipped study (``"religion"``, ``"race"``, ``"gender"``, ``"weat1"`` …), a
        folder of word lists or a :class:`~embias.Study`. The saved fit is named after the
        study's name (:attr:`Study.name`, a folder's name), never its path, and is always
        inside ``models_dir``; its key hashes the word lists, so one study read from two
        paths is one saved fit.
    embedding
        ``"glove-6b-50d"`` (default), any source :func:`embias.load_embeddings` reads (a
        file path, ``"gensim:NAME"``), or ``"published:reddit"``,
        ``"published:google"``, ``"published:glove"``, ``"published:reddit-debiased"``
        for the authors' own tables (exact duplicate rows dropped, with a warning).
    settings, **options
        Model and sampler settings (:class:`~embias.FitSettings`; any of its fields as a
        keyword replaces the one in ``settings``), as for :func:`embias.fit_bias_model`.
        With ``random_seed=None`` the first fit draws a seed (recorded in its settings)
        and identical later calls reuse it.
    models_dir
        Folder of saved fits (default ``models/`` in the working directory); nothing is
        written anywhere else.
    refit
        Fit again even when an identical saved fit exists (and replace it).
    progressbar
        Show PyMC's progress bar.

    Returns
    -------
    BiasFit
        With ``path`` set to the saved fit's folder.

    Raises
    ------
    ValueError
        Unknown study or published table, bad options, or a table the models refuse;
        nothing is written in that case.
    """
    run = FitSettings.build(settings, **options)
    sampler_available(run.sampler)
    st = _check_source(study, embedding)
    models_dir = check_output("models_dir", models_dir, folder=True)
    key_source = {"study": st.name, "study_lists": _study_identity(st),
                  "embedding": _embedding_identity(embedding), **run.key_fields()}
    key = hashlib.sha256(json.dumps(key_source, sort_keys=True, default=_json_default)
                         .encode()).hexdigest()[:12]
    target = models_dir / (f"{_slug(st.name, 'study')}_{_slug(embedding)}_{run.level}_"
                           f"{run.data}_{key}")
    if not refit and (target / SETTINGS_FILE).is_file():
        return load_fit(target)
    table = _study_table(st, embedding)
    fit = fit_bias_model(table, settings=run, progressbar=progressbar)
    fit = fit.replace(settings={**fit.settings, "study": st.name, "embedding": embedding,
                                "fit_key": key})
    return save_fit(fit, target)


def fit_religion_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the religion study (:func:`fit_study_model` with ``study="religion"``).

    Examples
    --------
    >>> fit = fit_religion_model()                       # GloVe 6B 50d, hierarchical
    >>> fit = fit_religion_model("published:reddit")     # the authors' Reddit table
    >>> fit.summary()
    """
    return fit_study_model("religion", embedding, **options)



def fit_race_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the race study (:func:`fit_study_model` with ``study="race"``)."""
    return fit_study_model("race", embedding, **options)



def fit_gender_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the gender study (:func:`fit_study_model` with ``study="gender"``)."""
    return fit_study_model("gender", embedding, **options)

