"""The shipped data files of the sentence tables, and the name of May et al.'s template sets.

Every module of :mod:`embias.sentences` that reads ``embias/data/templates/`` or takes
``templates="may2019"`` uses these, so they live here under names without an underscore.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

#: ``templates=`` value for May et al.'s template sets (``embias/data/templates/may2019.tsv``).
SHIPPED = "may2019"


def data_file(name: str) -> Path:
    return Path(str(resources.files("embias") / "data" / "templates" / name))


def read_tsv(name: str) -> pd.DataFrame:
    return pd.read_csv(data_file(name), sep="\t", comment="#", dtype=str,
                       keep_default_na=False)
