"""The shipped studies: their names and :func:`load_study`."""

from __future__ import annotations

from pathlib import Path

from .files import wordlists_dir
from .study import Study

__all__ = ["BUILTIN_STUDIES", "load_study"]

BUILTIN_STUDIES: tuple[str, ...] = (
    "religion",
    "race",
    "gender",
    *(f"weat{i}" for i in range(1, 11)),
)


def load_study(name: str | Study) -> Study:
    """Load a shipped study: ``religion``, ``race``, ``gender`` or ``weat1`` … ``weat10``.

    A :class:`Study` passes through unchanged; a path to a folder is read with
    :meth:`Study.from_folder`.

    Parameters
    ----------
    name
        A shipped study's name (case, ``-`` and ``_`` ignored), a folder of word lists or
        a :class:`Study`.

    Returns
    -------
    Study
        The study.

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones), or a folder
        :meth:`Study.from_folder` refuses.

    Examples
    --------
    >>> load_study("religion")
    Study('religion', protected={christian: 5, jewish: 5, muslim: 5},
          attributes={christian_stereotype: 3, jewish_stereotype: 4, muslim_stereotype: 4},
          neutral=226, human=85, definitional=5)
    >>> load_study("religon")
    Traceback (most recent call last):
    ...
    ValueError: unknown study 'religon' (did you mean 'religion'?); known: [...], or a
    folder of word lists
    """
    if isinstance(name, Study):
        return name
    key = str(name).lower().replace("-", "").replace("_", "")
    if key in BUILTIN_STUDIES:
        return Study.from_folder(wordlists_dir() / key)
    if Path(str(name)).is_dir():
        return Study.from_folder(name)
    import difflib

    hint = difflib.get_close_matches(key, BUILTIN_STUDIES, n=1)
    raise ValueError(
        f"unknown study {name!r}{f' (did you mean {hint[0]!r}?)' if hint else ''}; known: "
        f"{list(BUILTIN_STUDIES)}, or a folder of word lists"
    )
