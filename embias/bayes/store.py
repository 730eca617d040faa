"""Deprecated import path of saved fits and study fits.

They are in :mod:`embias.pipeline` (the layer that runs studies). Each name below imports
from here with a ``DeprecationWarning`` that names its home.
"""

from __future__ import annotations

from typing import Any

from .._deprecation import moved_names

__all__: list[str] = []

_STORE = "embias.pipeline.store"
_STUDY_FITS = "embias.pipeline.study_fits"
_STUDY_TABLES = "embias.pipeline.study_tables"
_SENTENCE_FITS = "embias.pipeline.sentence_fits"

__getattr__: Any = moved_names(__name__, {
    # public names
    "DEFAULT_MODELS_DIR": "embias.settings",
    "ENCODERS": _SENTENCE_FITS,
    "FIT_FORMAT": _STORE,
    "FitInterrupted": _STUDY_FITS,
    "SavedFitReplacedWarning": _STORE,
    "UnreadableFitError": _STORE,
    "fit_gender_model": _STUDY_FITS,
    "fit_race_model": _STUDY_FITS,
    "fit_religion_model": _STUDY_FITS,
    "fit_sentence_model": _SENTENCE_FITS,
    "fit_study_model": _STUDY_FITS,
    "load_fit": _STORE,
    "read_manifest": _STORE,
    "save_fit": _STORE,
    # the files of a saved fit
    "CHECK_FILES": _STORE,
    "CLASSIC_FILE": _STORE,
    "DIAGNOSTICS_FILE": _STORE,
    "INTERVALS_FILE": _STORE,
    "LOCK_TIMEOUT": _STORE,
    "MANIFEST_FILE": _STORE,
    "POSTERIOR_FILE": _STORE,
    "SETTINGS_FILE": _STORE,
    "TABLE_FILE": _STORE,
})
