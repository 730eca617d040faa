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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import tempfile
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._user_line import warn_at_user_line
from ..bayes.data import cell_statistics
from ..bayes.diagnostics import PredictiveCheck, observed_distances
from ..bayes.fit import BiasFit, DeferredDraws
from ..classic import classic_scores
from ..settings import cache_home

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = [
    "FIT_FORMAT",
    "MANIFEST_FILE",
    "SavedFitReplacedWarning",
    "UnreadableFitError",
    "load_fit",
    "read_manifest",
    "save_fit",
]

POSTERIOR_FILE = "posterior.nc"

TABLE_FILE = "table.parquet"

SETTINGS_FILE = "settings.json"
#: Post-processing kept with a fit, so a reloaded fit is shown without recomputing it:
#: r̂/ESS of every posterior scalar, the default interval table, the classic scores.
DIAGNOSTICS_FILE = "diagnostics.parquet"
INTERVALS_FILE = "intervals.parquet"
CLASSIC_FILE = "classic.parquet"
#: The default posterior predictive check (:meth:`BiasFit.predictive_check`), one file per
#: part (``observed`` is the table's own rows and is not saved).
CHECK_FILES = {"coverage": "check_coverage.parquet",
               "cell_intervals": "check_cells.parquet",
               "predictive": "check_predictive.parquet"}

#: Written last: the SHA-256 of every other file, and when and by whom the fit was saved.
MANIFEST_FILE = "manifest.json"

#: Version of the saved-fit layout; bump when it changes. Format 3 has ``manifest.json``;
#: a fit saved without one cannot be checked and is refused (``fit_*`` fits it again over
#: it, with a warning).
FIT_FORMAT = 3
#: Seconds a save or a load waits for a fit folder's lock before giving up.
LOCK_TIMEOUT = 300.0


class UnreadableFitError(ValueError):
    """A saved fit that exists but cannot be read: a damaged file, or another layout.

    Another layout is another :data:`FIT_FORMAT`. The message names the folder and the
    file.

    Attributes
    ----------
    folder, file, problem
        The fit's folder, the file that cannot be read, and what is wrong with it.
    """

    def __init__(self, folder: str | os.PathLike[str], file: str, problem: str) -> None:
        self.folder, self.file, self.problem = str(folder), file, problem
        super().__init__(f"saved fit {self.folder!r}: {file} {problem} — fit it again "
                         "(refit=True, embias fit --refit) or delete the folder")

    def __reduce__(self) -> tuple[Any, tuple[str, str, str]]:
        """Return how to rebuild the error in another process (its three parts)."""
        return type(self), (self.folder, self.file, self.problem)


class SavedFitReplacedWarning(UserWarning):
    """A fit was saved over one that another process saved under the same key meanwhile.

    While this one was being fitted: the earlier fit's draws are gone (the message says
    when it was saved and by which process).
    """


def json_default(value: Any) -> Any:
    """Return ``value`` as JSON can hold it (``json.dumps(default=...)``)."""
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
    """Return the versions a saved fit records.

    Read from the installed distributions: nothing is imported for them.
    """
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    out = {"embias": __version__}
    for name in ("pymc", "pytensor", "arviz"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - all three are dependencies
            out[name] = "not installed"
    return out


# --------------------------------------------------------------------------- locks
def _lock_folder() -> Path | None:
    """Return where the fit folders' lock files are.

    The per-user cache, else a per-user folder in the temporary directory; ``None`` when
    neither can be written.
    """
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    for folder in (cache_home() / "locks", Path(tempfile.gettempdir()) / f"embias-locks-{uid}"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def locked(folder: Path) -> AbstractContextManager[Any]:
    """Return the lock of the fit folder ``folder``.

    One lock file per folder, named by a hash of its absolute path, held by a save while
    it swaps the folder and by a load while it reads. Without a writable lock folder
    nothing is locked (with a warning).
    """
    from filelock import FileLock

    where = _lock_folder()
    absolute = os.path.join(os.path.realpath(folder.parent), folder.name)
    if where is None:
        warn_at_user_line(f"saved fit {str(folder)!r}: no writable folder for its lock file "
                          "(the cache and the temporary folder); concurrent saves of it are "
                          "not guarded")
        return nullcontext()
    name = hashlib.sha256(absolute.encode()).hexdigest()[:32]
    return FileLock(where / f"{slug(folder.name, 'fit')[:60]}-{name}.lock",
                    timeout=LOCK_TIMEOUT)


# --------------------------------------------------------------------------- manifest
def _sha256(file: Path) -> str:
    digest = hashlib.sha256()
    with open(file, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return the manifest of the saved fit at ``path``.

    Parameters
    ----------
    path
        The fit's folder.

    Returns
    -------
    dict or None
        ``id``, ``saved_at`` (ISO 8601, local time with its UTC offset), ``pid``,
        ``host``, ``format`` and ``files`` (file name → SHA-256); ``None`` if the folder
        has none or it cannot be read.

    Examples
    --------
    A fit's manifest is written last when it is saved (:func:`save_fit`); a folder
    without one holds no complete fit:

    >>> import tempfile
    >>> import embias
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(embias.read_manifest(folder))
    None
    """
    try:
        record = json.loads((Path(path) / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def saved_by(record: dict[str, Any]) -> str:
    """Return ``'at 2025-01-02 10:11:12 by process 123 on host'`` from a manifest."""
    when = str(record.get("saved_at", "an unknown time")).replace("T", " ")
    return f"at {when} by process {record.get('pid', '?')} on {record.get('host', '?')}"


def _write_manifest(folder: Path) -> dict[str, Any]:
    record = {"format": FIT_FORMAT, "id": uuid.uuid4().hex,
              "saved_at": datetime.now().astimezone().isoformat(timespec="seconds"),
              "pid": os.getpid(), "host": socket.gethostname(),
              "files": {p.name: _sha256(p) for p in sorted(folder.iterdir()) if p.is_file()}}
    (folder / MANIFEST_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")
    return record


# --------------------------------------------------------------------------- save
def _swap(new: Path, path: Path) -> None:
    """Put the complete folder ``new`` at ``path`` (under its lock).

    The folder there is renamed aside first and deleted only once ``new`` is in place; if
    anything stops the swap half-way (an error, Ctrl-C) the old folder is put back.
    """
    if not (path.exists() or path.is_symlink()):
        os.rename(new, path)
        return
    aside = path.with_name(f".{path.name}.old-{secrets.token_hex(4)}")
    try:
        os.rename(path, aside)
        os.rename(new, path)
    finally:
        if aside.exists():
            if path.exists():
                shutil.rmtree(aside, ignore_errors=True)
            else:
                os.rename(aside, path)


def save_fit(fit: BiasFit, path: str | os.PathLike[str]) -> BiasFit:
    """Save a fit to the directory ``path`` (created; replaced if it exists).

    The fit is written to a temporary sibling folder, with its ``manifest.json`` (the
    SHA-256 of every file) last, and swapped into place under the folder's lock: the folder
    already at ``path`` is renamed aside and deleted only once the new one is in place, so
    a reader (which takes the same lock) always finds one complete fit, and an interrupted
    save leaves the old fit as it was.

    Parameters
    ----------
    fit
        The fit (a :class:`~embias.BiasFit`).
    path
        The fit's folder.

    Returns
    -------
    BiasFit
        The same fit with ``path`` set.

    Raises
    ------
    ValueError
        ``fit`` is not a :class:`~embias.BiasFit`; nothing is written.

    Examples
    --------
    ``save_fit(fit, "models/religion")`` saves a fit of :func:`embias.fit_bias_model`
    (:func:`embias.fit_study_model` saves its fits itself); anything else is refused:

    >>> import embias
    >>> try:
    ...     embias.save_fit({"level": "crossed"}, "models/religion")
    ... except ValueError as error:
    ...     print(error)
    save_fit() saves a BiasFit (of fit_bias_model or fit_study_model), got dict
    """
    if not isinstance(fit, BiasFit):
        raise ValueError(f"save_fit() saves a BiasFit (of fit_bias_model or fit_study_model), "
                         f"got {type(fit).__name__}")
    return save_checked(fit, Path(path), seen=None, check=False)


def save_checked(fit: BiasFit, path: Path, *, seen: str | None, check: bool) -> BiasFit:
    """Save a fit as :func:`save_fit` does; with ``check``, say when it replaces another.

    With ``check``, warn (:class:`SavedFitReplacedWarning`) when the fit found at
    ``path`` when it is swapped is not the one whose manifest id was ``seen`` when this
    fit started (another process saved there meanwhile).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    replaced = None
    try:
        fit.posterior.to_netcdf(tmp / POSTERIOR_FILE, engine="h5netcdf")
        table = fit.table.copy()
        table.attrs = {}
        table.to_parquet(tmp / TABLE_FILE, index=False)
        record = {
            "format": FIT_FORMAT,
            "settings": dict(fit.settings),
            "timings": dict(fit.timings),
            "divergences": int(fit.divergences),
            "table_attrs": dict(fit.table.attrs),
            "versions": _versions(),
        }
        (tmp / SETTINGS_FILE).write_text(json.dumps(record, indent=2, default=json_default),
                                         encoding="utf-8")
        fit.diagnostics().to_parquet(tmp / DIAGNOSTICS_FILE, index=False)
        fit.to_interval_table().to_parquet(tmp / INTERVALS_FILE, index=False)
        fit.classic.to_parquet(tmp / CLASSIC_FILE, index=False)
        check_ = fit.predictive_check()
        for part, name in CHECK_FILES.items():
            getattr(check_, part).to_parquet(tmp / name, index=False)
        _write_manifest(tmp)
        with locked(path):
            before = read_manifest(path) if path.is_dir() else None
            if check and before is not None and before.get("id") != seen:
                replaced = before
            _swap(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if replaced is not None:
        warn_at_user_line(f"saved fit {str(path)!r} replaced the one saved there "
                          f"{saved_by(replaced)} while this one was being fitted (same key); "
                          "that fit's draws are gone, this one's are kept",
                          SavedFitReplacedWarning)
    return fit.replace(path=str(path))  # the post-processing computed above travels


# --------------------------------------------------------------------------- load
def load_fit(path: str | os.PathLike[str]) -> BiasFit:
    """Load a fit saved by :func:`save_fit` / ``fit_*_model``.

    Every file is checked against the fit's ``manifest.json`` (the SHA-256 of each file,
    written when it was saved), under the folder's lock (a save by another process waits,
    and is never seen half-done).

    Parameters
    ----------
    path
        The fit's directory (or any file inside it, e.g. its ``posterior.nc``).

    Returns
    -------
    BiasFit
        The fit, with its saved post-processing; its draws are read when first used.

    Raises
    ------
    FileNotFoundError
        ``path`` is not a saved fit: no such folder, or a file the folder must hold is
        missing (names the path given and the missing file).
    UnreadableFitError
        A ``ValueError`` naming the folder and the file: the folder was saved in another
        layout (:data:`FIT_FORMAT`; a fit without ``manifest.json`` cannot be checked and
        is refused), one of its files cannot be read (cut short, damaged), or a file
        changed or was deleted since the fit was saved (its SHA-256 is not the one in
        ``manifest.json``). ``fit_*_model`` fits again over such a folder.

    Examples
    --------
    ``load_fit(fit.path)`` reloads a fit of :func:`embias.fit_study_model` or
    :func:`save_fit`; a folder that holds none is named:

    >>> import embias
    >>> try:
    ...     embias.load_fit("models/no-such-fit")
    ... except FileNotFoundError as error:
    ...     print(error)
    'models/no-such-fit' is not a saved embias fit: no such folder
    """
    given = Path(path)
    # the folder's lock is taken before anything is looked at: a save swapping the folder
    # renames it aside for a moment, and a reader outside the lock would find nothing
    own_file = given.name in (POSTERIOR_FILE, TABLE_FILE, SETTINGS_FILE, DIAGNOSTICS_FILE,
                              INTERVALS_FILE, CLASSIC_FILE, MANIFEST_FILE,
                              *CHECK_FILES.values())
    folder = given.parent if given.is_file() or own_file else given
    with locked(folder):
        if not given.exists():
            raise FileNotFoundError(f"{str(given)!r} is not a saved embias fit: no such "
                                    "folder")
        return _load(given, folder)


def _load(given: Path, path: Path) -> BiasFit:
    holds = f"(a fit folder holds {POSTERIOR_FILE}, {TABLE_FILE} and {SETTINGS_FILE})"
    for name in (POSTERIOR_FILE, TABLE_FILE, SETTINGS_FILE):
        if not (path / name).is_file():
            where = (f"it is a file, and its folder {str(path)!r} has no {name}"
                     if given.is_file() else f"{name} is missing")
            raise FileNotFoundError(f"{str(given)!r} is not a saved embias fit: {where} "
                                    f"{holds}")
    record = _read(path, SETTINGS_FILE, lambda f: json.loads(f.read_text(encoding="utf-8")))
    if not isinstance(record, dict) or record.get("format") != FIT_FORMAT:
        found = record.get("format") if isinstance(record, dict) else None
        raise UnreadableFitError(path, SETTINGS_FILE, f"says fit format {found!r}; this "
                                 f"embias reads format {FIT_FORMAT}")
    if not isinstance(record.get("settings"), dict):
        raise UnreadableFitError(path, SETTINGS_FILE, "has no settings")
    manifest = _checked_manifest(path)
    listed: dict[str, str] = manifest["files"]

    def check_posterior(file: Path) -> None:  # a file cut short fails here, not later
        import h5py

        with h5py.File(file, "r"):
            pass

    _read(path, POSTERIOR_FILE, check_posterior)
    table = _read(path, TABLE_FILE, pd.read_parquet)
    table.attrs = record.get("table_attrs", {})
    optional = {name: (_read(path, name, pd.read_parquet) if name in listed else None)
                for name in (CLASSIC_FILE, DIAGNOSTICS_FILE, INTERVALS_FILE,
                             *CHECK_FILES.values())}
    # every file read parses: now each must be the file that was saved
    for name, digest in listed.items():
        if _sha256(path / name) != digest:
            raise UnreadableFitError(path, name, f"changed since the fit was saved "
                                     f"{saved_by(manifest)} (its SHA-256 is not the one "
                                     f"in {MANIFEST_FILE})")
    draws_file = path / POSTERIOR_FILE
    stamp = _stamp(draws_file)
    posterior = DeferredDraws(lambda: _read_draws(path, stamp, listed[POSTERIOR_FILE]),
                              where=str(draws_file))
    classic = optional[CLASSIC_FILE]
    # the posterior descriptor takes deferred draws and reads them on first use
    fit = BiasFit(posterior=posterior,  # type: ignore[arg-type]
                  table=table, cells=cell_statistics(table), settings=record["settings"],
                  classic=classic if classic is not None else classic_scores(table),
                  timings=record.get("timings", {}), path=str(path))
    check = None
    if all(optional[name] is not None for name in CHECK_FILES.values()):
        check = PredictiveCheck(**{part: optional[name] for part, name in CHECK_FILES.items()},
                                observed=observed_distances(table))
    # the post-processing saved with the fit is not computed again
    fit.restore_post_processing(diagnostics=optional[DIAGNOSTICS_FILE],
                                interval_table=optional[INTERVALS_FILE],
                                divergences=record.get("divergences"),
                                predictive_check=check)
    return fit


def _checked_manifest(path: Path) -> dict[str, Any]:
    """Return the fit's manifest, checked to list every file :func:`load_fit` reads.

    Each of them present (an error names the first that is not).
    """
    if not (path / MANIFEST_FILE).is_file():
        raise UnreadableFitError(path, MANIFEST_FILE, "is missing, so the files cannot be "
                                 "checked against what was saved")
    manifest = _read(path, MANIFEST_FILE, lambda f: json.loads(f.read_text(encoding="utf-8")))
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise UnreadableFitError(path, MANIFEST_FILE, "has no table of files and SHA-256s")
    needed = (POSTERIOR_FILE, TABLE_FILE, SETTINGS_FILE, CLASSIC_FILE, DIAGNOSTICS_FILE,
              INTERVALS_FILE, *CHECK_FILES.values())
    for name in needed:
        if name not in files:
            raise UnreadableFitError(path, MANIFEST_FILE, f"does not list {name}")
    for name in files:
        if not (path / name).is_file():
            raise UnreadableFitError(path, name, f"is missing (deleted since the fit was "
                                     f"saved {saved_by(manifest)}; {MANIFEST_FILE} lists it)")
    return manifest


def _stamp(file: Path) -> tuple[int, int, int]:
    st = file.stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def _read_draws(folder: Path, stamp: tuple[int, int, int], digest: str) -> DataTree:
    """Return the draws of a fit loaded earlier, if its file is the one checked then.

    Read under the folder's lock, only if ``posterior.nc`` is still the file checked when
    the fit was loaded.
    """
    import xarray as xr

    def read(file: Path) -> DataTree:
        with xr.open_datatree(file, engine="h5netcdf") as stored:
            return stored.load().copy()

    file = folder / POSTERIOR_FILE
    with locked(folder):
        draws = _read(folder, POSTERIOR_FILE, read)  # a damaged file is named as such
        if _stamp(file) != stamp and _sha256(file) != digest:
            raise UnreadableFitError(folder, POSTERIOR_FILE, "changed since this fit was "
                                     "loaded (another fit was saved in its folder?): load it "
                                     "again")
        return draws


def _read(folder: Path, name: str, reader: Callable[[Path], Any]) -> Any:
    """Return ``reader(folder / name)``; an unreadable file is an UnreadableFitError.

    The :class:`UnreadableFitError` names the folder and the file.
    """
    try:
        return reader(folder / name)
    except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
        reason = " ".join(str(exc).replace(str(folder / name), name).split())[:160]
        raise UnreadableFitError(folder, name, f"cannot be read, it is damaged or cut short "
                                 f"({type(exc).__name__}: {reason})") from exc


def load_saved(target: Path, *, refit: bool) -> BiasFit | None:
    """Return the saved fit at ``target``, or ``None``.

    ``None`` when there is none, ``refit`` is set, or it cannot be read (then a warning
    names the folder and the problem, and the caller fits again over it).
    """
    if refit or not target.exists():
        return None
    try:
        return load_fit(target)
    except UnreadableFitError as exc:
        problem = f"saved fit {exc.folder!r}: {exc.file} {exc.problem}"
    except FileNotFoundError as exc:
        problem = str(exc)
    warn_at_user_line(f"{problem}; fitting again over it")
    return None


def slug(text: str, empty: str = "embedding") -> str:
    """Return ``text`` as one safe folder-name part (no separators, no ``..``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.").lower() or empty
