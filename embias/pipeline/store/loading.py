"""Loading a saved fit: every file checked against its manifest, the draws read when used.

:func:`load_fit` reads a fit saved by :func:`save_fit` (or ``fit_*_model``) under the
folder's lock; ``load_saved`` (the study fits' reload) returns ``None``, with a warning,
for a folder that cannot be read, so that the fit is made again over it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..._user_line import warn_at_user_line
from ...bayes.data import cell_statistics
from ...bayes.diagnostics import PredictiveCheck
from ...bayes.fit import BiasFit, DeferredDraws
from ...classic import classic_scores
from .layout import (
    CHECK_FILES,
    CLASSIC_FILE,
    DIAGNOSTICS_FILE,
    FIT_FORMAT,
    INTERVALS_FILE,
    MANIFEST_FILE,
    POSTERIOR_FILE,
    SETTINGS_FILE,
    TABLE_FILE,
    UnreadableFitError,
)
from .locks import locked
from .manifest import file_sha256, saved_by

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["load_fit", "load_saved"]


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
        if file_sha256(path / name) != digest:
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
        check = PredictiveCheck(**{part: optional[name] for part, name in CHECK_FILES.items()})
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
        if _stamp(file) != stamp and file_sha256(file) != digest:
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

