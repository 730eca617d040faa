"""The page's inputs checked and read before any work.

The levels and embeddings asked for, the study, and the results computed elsewhere given
as files (read into the :class:`~embias.AuditOptions`); a bad one is a
``ValueError`` that names it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .options import AuditOptions

if TYPE_CHECKING:  # pragma: no cover
    from ..wordlists import Study

__all__ = ["FILE_INPUTS", "checked_embeddings", "checked_levels", "read_inputs", "study_of"]


#: The results computed elsewhere that may be given as a file (CSV or parquet).
FILE_INPUTS: tuple[str, ...] = ("weat", "seat", "model_comparison", "word_influence")


def checked_levels(levels: str | Sequence[str] | None) -> list[str] | None:
    """Check the levels asked for: each one of :data:`embias.settings.LEVELS`.

    Parameters
    ----------
    levels
        One level, a list of them, or None (every level: no choice).

    Returns
    -------
    list of str or None
        The levels, in order; None when none was asked for.

    Raises
    ------
    ValueError
        A level that is not one of :data:`embias.settings.LEVELS`, or an empty list.
    """
    from .._validation import check_choice
    from ..settings import LEVELS

    if levels is None:
        return None
    checked = [check_choice("levels", level, LEVELS)
               for level in ([levels] if isinstance(levels, str) else levels)]
    if not checked:
        raise ValueError(f"levels is empty; give at least one of {list(LEVELS)}")
    return checked


def checked_embeddings(embeddings: str | Mapping[str, str] | None) -> dict[str, str] | None:
    """Label → source of the embeddings asked for (one source is labelled by itself).

    Parameters
    ----------
    embeddings
        A mapping label → embedding source, one source, or None (no choice).

    Returns
    -------
    dict or None
        Label → source; None when none was asked for.

    Raises
    ------
    ValueError
        An empty mapping, an empty label, or a source that is not a non-empty string.
    """
    if embeddings is None:
        return None
    if isinstance(embeddings, str):
        embeddings = {embeddings: embeddings}
    bad = ([k for k, v in embeddings.items() if not k or not isinstance(v, str) or not v]
           if isinstance(embeddings, Mapping) else [embeddings])
    if bad or not embeddings:
        raise ValueError(f"embeddings must map non-empty labels to source strings, got "
                         f"{dict(embeddings)!r}")
    return dict(embeddings)


def read_inputs(options: AuditOptions) -> tuple[AuditOptions, dict[str, str]]:
    """Read every result given as a file (CSV/parquet) into the options.

    Returns the options with the tables read and the files they were read from; the WEAT
    rows must be an interval table.

    Parameters
    ----------
    options
        The page's options; those of :data:`FILE_INPUTS` may be paths.

    Returns
    -------
    tuple of AuditOptions and dict
        The options with every file read into a table, and name → the file it was read
        from (for the rebuild command).

    Raises
    ------
    ValueError
        A file that cannot be read as a table, or WEAT rows that are not an interval table.
    FileNotFoundError
        A file that is not there.
    """
    import pandas as pd

    files = {name: str(getattr(options, name)) for name in FILE_INPUTS
             if isinstance(getattr(options, name), str | os.PathLike)}
    if files:
        from .sources import read_table

        options = replace(options, **{name: read_table(path, what=name.replace("_", "-"))
                                      for name, path in files.items()})
    if options.weat is not None:
        from ..report import validate_interval_table

        if not isinstance(options.weat, pd.DataFrame):
            raise ValueError(f"weat must be an interval table (DataFrame) or its file, got "
                             f"{type(options.weat).__name__}")
        validate_interval_table(options.weat)
    return options, files


def study_of(study: str | Study | None) -> tuple[Study | None, str | None]:
    """Return the study's word lists (when it can be loaded) and its name.

    Parameters
    ----------
    study
        A study's name, a :class:`~embias.Study`, or None (the study of the fits given).

    Returns
    -------
    tuple
        The study (None for None) and its name (None for None).

    Raises
    ------
    ValueError
        An unknown study (:func:`embias.load_study`'s error).
    """
    from ..wordlists import Study, load_study

    if isinstance(study, Study):
        return study, study.name
    if study is None:
        return None, None
    st = load_study(study)  # an unknown study fails here, before anything is loaded
    return st, st.name
