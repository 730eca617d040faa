"""What a saved-fit folder holds: its files, its layout version and the errors of reading it.

The file names of a saved fit (:data:`FIT_FORMAT` is the version of the layout), the error
of a folder that cannot be read (``UnreadableFitError``) and the warning of a fit saved
over another (:class:`SavedFitReplacedWarning`), and how a fit's settings and names are
written (``json_default``, ``slug``).
"""

from __future__ import annotations

import os
import re
from typing import Any

import numpy as np

__all__ = [
    "CHECK_FILES",
    "CLASSIC_FILE",
    "DIAGNOSTICS_FILE",
    "FIT_FORMAT",
    "INTERVALS_FILE",
    "MANIFEST_FILE",
    "POSTERIOR_FILE",
    "SETTINGS_FILE",
    "TABLE_FILE",
    "SavedFitReplacedWarning",
    "UnreadableFitError",
    "json_default",
    "slug",
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
#: part.
CHECK_FILES = {"coverage": "check_coverage.parquet",
               "cell_intervals": "check_cells.parquet",
               "predictive": "check_predictive.parquet",
               "observed": "check_observed.parquet",
               "words_left_out": "check_words.parquet"}

#: Written last: the SHA-256 of every other file, and when and by whom the fit was saved.
MANIFEST_FILE = "manifest.json"

#: Version of the saved-fit layout; bump when it changes. Format 3 has ``manifest.json``;
#: a fit saved without one cannot be checked and is refused (``fit_*`` fits it again over
#: it, with a warning). Format 4 keeps the predictive check that leaves each compared word
#: out: its rows with their PIT (``check_observed.parquet``) and the words' Pareto k
#: (``check_words.parquet``).
FIT_FORMAT = 4


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


def slug(text: str, empty: str = "embedding") -> str:
    """Return ``text`` as one safe folder-name part (no separators, no ``..``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.").lower() or empty

