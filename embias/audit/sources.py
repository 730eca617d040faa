"""Where a report's results come from: fits, a comparison, tables computed elsewhere.

Fits in memory, saved-fit folders or a folder of saved fits; a comparison of embeddings
(in memory, its interval table, or the CSV that ``embias compare`` writes); and the
optional tables computed elsewhere.

Everything here is checked before anything is drawn, and a bad input is one error that
names it: a saved-fit folder that is missing, of an older format or unreadable (the error
of :func:`embias.load_fit`, passed through), a study with no fitted level among the fits
given, two fits of one embedding and level, fits of several studies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..report import validate_interval_table
from ..settings import LEVELS
from .options import CiKind

if TYPE_CHECKING:  # pragma: no cover
    from ..bayes.fit import BiasFit
    from ..pipeline.compare import EmbeddingComparison

__all__ = ["ComparisonInput", "FitEntry", "collect_fits", "read_comparison", "read_table",
           "saved_versions"]

#: The file that marks a saved-fit folder (``embias.pipeline.store.SETTINGS_FILE``).
SETTINGS_FILE = "settings.json"

FitSource = "BiasFit | str | os.PathLike[str]"


@dataclass(frozen=True)
class FitEntry:
    """One fitted level of the study on one embedding, as the page shows it."""

    label: str
    fit: BiasFit

    @property
    def level(self) -> str:
        """The fit's model level."""
        return self.fit.level

    @property
    def source(self) -> str:
        """The fit's embedding source (its label when it has none)."""
        return str(self.fit.settings.get("embedding") or self.label)

    @property
    def study(self) -> str:
        """The study the fit is of."""
        return str(self.fit.settings.get("study") or self.fit.table.attrs.get("study", ""))

    @classmethod
    def of(cls, fit: BiasFit, label: str | None = None) -> FitEntry:
        """Return ``fit`` under ``label``.

        By default under its embedding, as ``embias report --fits`` labels a fit (``"custom"``
        when it has none).
        """
        return cls(label=label or str(fit.settings.get("embedding") or "") or "custom",
                   fit=fit)

    @property
    def anchor(self) -> str:
        """A page-unique id of this fit (for links and table ids)."""
        import re

        return re.sub(r"[^a-z0-9]+", "-", f"{self.label}-{self.level}".lower()).strip("-")


def _is_fit(value: Any) -> bool:
    from ..bayes.fit import BiasFit

    return isinstance(value, BiasFit)


def _saved_fits_in(folder: Path) -> list[Path]:
    """Return the saved-fit folders directly inside ``folder``, sorted by name.

    Hidden folders (a save's temporary ``.NAME.tmp`` and swapped-aside ``.NAME.old-…``) are
    not fits.
    """
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and (p / SETTINGS_FILE).is_file())


def _stored_settings(folder: Path) -> dict[str, Any]:
    """Return the ``settings`` record of a saved fit, read without loading the draws.

    A record that cannot be read is left to :func:`embias.load_fit` to report.
    """
    from ..pipeline.store import load_fit

    try:
        record = json.loads((folder / SETTINGS_FILE).read_text(encoding="utf-8"))
        return dict(record["settings"])
    except (OSError, ValueError, KeyError, TypeError):
        load_fit(folder)  # raises the store's own error naming the folder
        raise


def _describe(settings: Mapping[str, Any]) -> str:
    """Return ``study/embedding/level`` of a fit's settings."""
    return (f"{settings.get('study') or '?'}/{settings.get('embedding') or '?'}/"
            f"{settings.get('level') or '?'}")


def collect_fits(
    fits: Any,
    *,
    study: str | None,
    embeddings: Mapping[str, str] | None,
    levels: Sequence[str] | None,
) -> list[FitEntry]:
    """Return the fits a report shows, labelled, in page order (embedding, then level).

    Parameters
    ----------
    fits
        A :class:`~embias.BiasFit`, a saved-fit folder, a folder of saved fits (e.g.
        ``models/``: the fits of ``study`` in it), a sequence of those, or a mapping
        label → fit or saved-fit folder.
    study
        The study the page is about (default: the fits' own, which must then be one).
    embeddings
        Label → embedding source: keep only fits of these sources, labelled so.
    levels
        Keep only fits of these levels.

    Returns
    -------
    list of FitEntry
        The fits under their labels (a fit's embedding unless labelled otherwise).

    Raises
    ------
    ValueError
        No fits, a fit of another study, no fit left for the study (naming what there
        was), two fits of one embedding and level, fits of several studies.
    FileNotFoundError, ValueError, OSError
        A saved-fit folder that cannot be loaded (:func:`embias.load_fit`'s own error).

    Examples
    --------
    >>> collect_fits([], study="religion", embeddings=None, levels=None)
    Traceback (most recent call last):
    ...
    ValueError: no fits given for study 'religion': pass saved-fit folders (embias report ...
    """
    from ..pipeline.store import load_fit

    items = _fit_items(fits, study)
    pending, scanned = _expand_folders(items, study)
    in_folders = {str(r.get("study")) for _, records in scanned for r in records}
    if study is None and len(in_folders) > 1:
        raise ValueError(f"{', '.join(repr(str(f)) for f, _ in scanned)} holds fits of several "
                         f"studies ({', '.join(sorted(in_folders))}); name the study "
                         "(embias report STUDY --fits …)")
    loaded = [(label, item if _is_fit(item) else load_fit(item), where)
              for label, item, where in pending]
    studies = {_study_of(fit) for _, fit, _ in loaded}
    if study is None and len(studies) > 1:
        raise ValueError(f"the fits given are of several studies ({', '.join(sorted(studies))});"
                         " a report covers one study: name it (embias report STUDY …)")
    entries: list[FitEntry] = []
    for label, fit, where in loaded:
        if study is not None and _study_of(fit) != study:
            raise ValueError(f"{where} is a fit of study {_study_of(fit)!r}, not {study!r}")
        source = str(fit.settings.get("embedding") or "")
        if embeddings is not None:
            names = [name for name, src in embeddings.items() if src == source or name == label]
            if not names:
                continue
            label = names[0]
        if levels is not None and fit.level not in levels:
            continue
        entries.append(FitEntry.of(fit, label))
    if not entries:
        raise _nothing_left(study, embeddings, levels, scanned)
    _check_distinct(entries)
    labels = list(dict.fromkeys(e.label for e in entries))
    order = {level: i for i, level in enumerate(LEVELS)}
    return sorted(entries, key=lambda e: (labels.index(e.label), order.get(e.level, 99)))


def _study_of(fit: BiasFit) -> str:
    """Return the study a fit is of (its settings', else its table's)."""
    return str(fit.settings.get("study") or fit.table.attrs.get("study", ""))


def _fit_items(fits: Any, study: str | None) -> list[tuple[str | None, Any]]:
    """Return (label or None, fit or folder) of every item of ``fits``."""
    if isinstance(fits, Mapping):
        items: list[tuple[str | None, Any]] = list(fits.items())
    elif _is_fit(fits) or isinstance(fits, str | os.PathLike):
        items = [(None, fits)]
    else:
        items = [(None, f) for f in fits]
    if not items:
        raise ValueError(f"no fits given for study {study or '?'!r}: pass saved-fit folders "
                         "(embias report STUDY --fits models/…) or fit now (--embedding)")
    return items


def _expand_folders(items: Sequence[tuple[str | None, Any]], study: str | None
                    ) -> tuple[list[tuple[str | None, Any, str]],
                               list[tuple[Path, list[dict[str, Any]]]]]:
    """Expand the folders of saved fits into their members (reading their settings only).

    Returns (label, fit or saved-fit folder, where it came from) of every fit to load, and
    the folders of saved fits scanned with their members' settings.
    """
    pending: list[tuple[str | None, Any, str]] = []
    scanned: list[tuple[Path, list[dict[str, Any]]]] = []
    for label, item in items:
        if _is_fit(item):
            pending.append((label, item, "the fit given"))
            continue
        folder = Path(item)
        if folder.is_dir() and not (folder / SETTINGS_FILE).is_file():
            members = _saved_fits_in(folder)
            if members:
                if label is not None:
                    raise ValueError(f"fits[{label!r}] = {str(folder)!r} is a folder of "
                                     f"{len(members)} saved fits; a label names one fit")
                records = [_stored_settings(m) for m in members]
                scanned.append((folder, records))
                for member, record in zip(members, records, strict=True):
                    if study is None or record.get("study") == study:
                        pending.append((None, member, str(member)))
                continue
        pending.append((label, folder, str(folder)))
    return pending, scanned


def _nothing_left(study: str | None, embeddings: Mapping[str, str] | None,
                  levels: Sequence[str] | None,
                  scanned: Sequence[tuple[Path, list[dict[str, Any]]]]) -> ValueError:
    """Return the error for a study with no fitted level left among the fits given."""
    wanted = study or "the study"
    detail = []
    if embeddings is not None:
        detail.append(f"embedding {'/'.join(embeddings.values())}")
    if levels is not None:
        detail.append(f"level {'/'.join(levels)}")
    what = f" ({', '.join(detail)})" if detail else ""
    found = sorted({_describe(r) for _, records in scanned for r in records})
    seen = f"; the saved fits there are {', '.join(found)}" if found else ""
    where = ", ".join(repr(str(f)) for f, _ in scanned) or "the fits given"
    return ValueError(f"study {wanted!r} has no fitted level{what} in {where}{seen}; fit "
                      f"it first: embias fit {wanted}")


def _check_distinct(entries: Sequence[FitEntry]) -> None:
    """Refuse two fits of one embedding at one level."""
    seen: dict[tuple[str, str], FitEntry] = {}
    for entry in entries:
        key = (entry.label, entry.level)
        if key in seen:
            other = seen[key]
            first, second = (x.fit.path or "a fit in memory" for x in (other, entry))
            raise ValueError(f"two fits of {entry.label} at level {entry.level!r}: {first!r} "
                             f"and {second!r}; give the one to report (embias report --fits "
                             "FOLDER)")
        seen[key] = entry


def saved_versions(fit: BiasFit) -> dict[str, str]:
    """Return the package versions recorded when a saved fit was made.

    Parameters
    ----------
    fit
        A :class:`~embias.BiasFit`.

    Returns
    -------
    dict of str to str
        Package → version; empty for a fit that is not saved or whose record has none.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> saved_versions(SimpleNamespace(path=None))  # not saved
    {}
    """
    if not fit.path:
        return {}
    try:
        record = json.loads((Path(fit.path) / SETTINGS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    versions = record.get("versions", {})
    return {str(k): str(v) for k, v in versions.items()} if isinstance(versions, dict) else {}


def read_table(path: str | os.PathLike[str], *, what: str) -> pd.DataFrame:
    r"""Return a table saved as CSV or parquet (in text columns, empty cells are ``""``).

    Parameters
    ----------
    path
        A ``.csv`` (or ``.csv.gz``) or ``.parquet`` file.
    what
        What the table is, for the messages (``"seat"``, ``"comparison table"`` …).

    Returns
    -------
    pandas.DataFrame
        The table.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Another kind of file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> path = Path(tempfile.mkdtemp()) / "influence.csv"
    >>> _ = path.write_text("word,influence,note\ngreedy,0.031,\nterrorist,-0.012,big\n")
    >>> read_table(path, what="word-influence").to_dict(orient="list")
    {'word': ['greedy', 'terrorist'], 'influence': [0.031, -0.012], 'note': ['', 'big']}
    >>> read_table(path.with_suffix(".xlsx"), what="word-influence")
    Traceback (most recent call last):
    ...
    FileNotFoundError: word-influence '...influence.xlsx': no such file
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{what} {str(path)!r}: no such file")
    if path.suffix == ".parquet":
        frame = pd.read_parquet(path)
    elif path.suffix in (".csv", ".gz"):
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    else:
        raise ValueError(f"{what} {str(path)!r}: use a .csv or .parquet file")
    for col in frame.columns:
        if not pd.api.types.is_numeric_dtype(frame[col]):
            frame[col] = frame[col].astype(object).where(frame[col].notna(), "").astype(str)
    return frame


@dataclass(frozen=True)
class ComparisonInput:
    """A comparison of embeddings as the page needs it."""

    table: pd.DataFrame
    diagnostics: pd.DataFrame | None
    settings: Mapping[str, Any]
    unmatched: int | None
    where: str


def read_comparison(
    comparison: EmbeddingComparison | pd.DataFrame | str | os.PathLike[str],
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
) -> ComparisonInput:
    """Return a comparison of embeddings as the page needs it.

    Its interval table and, from a live comparison, diagnostics and seeds. A table must
    hold ``change_*`` rows with an ``embedding`` column
    (:meth:`EmbeddingComparison.to_interval_table`, ``embias compare``'s CSV).

    Parameters
    ----------
    comparison
        An :class:`~embias.EmbeddingComparison`, its interval table, or the path of such a
        table (CSV or parquet).
    ci_prob, ci_kind, rope
        Intervals and ROPE of a live comparison's table.

    Returns
    -------
    ComparisonInput
        The table, the diagnostics (None from a table), the settings, the count of word
        pairs left out (None from a table) and where it came from.

    Raises
    ------
    ValueError
        Not an interval table, a table without changes or without an ``embedding`` column,
        or something else than a comparison.

    Examples
    --------
    >>> import embias
    >>> rows = [{"estimand": "change_contrast", "group": "associated - none",
    ...          "estimate": -0.03, "lower": -0.05, "upper": -0.01,
    ...          "embedding": "debiased", "reference": "biased"}]
    >>> table = embias.interval_table(rows, ci_prob=0.89, ci_kind="hdi")
    >>> read_comparison(table, ci_prob=0.89, ci_kind="hdi", rope=0.02).where
    'the comparison table given'
    >>> read_comparison(table.drop(columns="embedding"), ci_prob=0.89, ci_kind="hdi", rope=0.02)
    Traceback (most recent call last):
    ...
    ValueError: the comparison table given is not a comparison of embeddings: it needs change_* ...
    """
    if isinstance(comparison, pd.DataFrame | str | os.PathLike):
        if isinstance(comparison, pd.DataFrame):
            table, where = comparison.copy(), "the comparison table given"
        else:
            table = read_table(comparison, what="comparison table")
            where = str(comparison)
        validate_interval_table(table)
        if "embedding" not in table.columns or not table["estimand"].astype(str).str.startswith(
                "change_").any():
            raise ValueError(f"{where} is not a comparison of embeddings: it needs change_* "
                             "rows and an 'embedding' column (EmbeddingComparison."
                             "to_interval_table(), the CSV of embias compare)")
        return ComparisonInput(table=table, diagnostics=None, settings={}, unmatched=None,
                               where=where)
    if not hasattr(comparison, "change_fits"):
        raise ValueError(f"comparison must be an EmbeddingComparison, its interval table or "
                         f"the path of one, got {type(comparison).__name__}")
    return ComparisonInput(
        table=comparison.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope),
        diagnostics=comparison.diagnostics_overview(), settings=dict(comparison.settings),
        unmatched=len(comparison.unmatched), where="the comparison computed for this page")
