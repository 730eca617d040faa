"""Saving a fit: written to a temporary folder, its manifest last, and swapped into place.

:func:`save_fit` saves a :class:`~embias.BiasFit`; ``save_checked`` (the study fits' save)
also says when the fit replaces one that another process saved meanwhile
(:class:`SavedFitReplacedWarning`).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from pathlib import Path

from ..._user_line import warn_at_user_line
from ...bayes.fit import BiasFit
from .layout import (
    CHECK_FILES,
    CLASSIC_FILE,
    DIAGNOSTICS_FILE,
    FIT_FORMAT,
    INTERVALS_FILE,
    POSTERIOR_FILE,
    SETTINGS_FILE,
    TABLE_FILE,
    SavedFitReplacedWarning,
    json_default,
)
from .locks import locked
from .manifest import read_manifest, saved_by, write_manifest

__all__ = ["save_checked", "save_fit"]


def _versions() -> dict[str, str]:
    """Return the versions a saved fit records.

    Read from the installed distributions: nothing is imported for them.
    """
    from importlib.metadata import PackageNotFoundError, version

    from ... import __version__

    out = {"embias": __version__}
    for name in ("pymc", "pytensor", "arviz"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - all three are dependencies
            out[name] = "not installed"
    return out


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
        write_manifest(tmp)
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

