"""Running studies: study → table → fit → saved fit, and comparisons across embeddings.

This layer knows where tables come from (word lists, embeddings, sentence encoders, the
authors' published tables, the per-user table cache) and where fits go (``models/``); it
hands tables to the models of :mod:`embias.bayes`, which know nothing of either.

One module per step:

- :mod:`~embias.pipeline.store` — a fit saved to a folder and loaded back, checked file by
  file (:func:`save_fit`, :func:`load_fit`, :func:`read_manifest`);
- :mod:`~embias.pipeline.study_tables` — a study's table on an embedding source, kept in
  the per-user cache, and what identifies it in a saved fit's key;
- :mod:`~embias.pipeline.study_fits` — one call fits a study and keeps the fit
  (:func:`fit_study_model`, :func:`fit_religion_model` …);
- :mod:`~embias.pipeline.sentence_fits` — the same for a study's sentence table on a
  sentence encoder (:func:`fit_sentence_model`);
- :mod:`~embias.pipeline.sources` — embedding sources → tables, and the jobs of many
  studies × embeddings × seeds (:func:`study_jobs`);
- :mod:`~embias.pipeline.compare` — one study on several embeddings and the paired change
  model between them (:func:`compare_embeddings`).
"""

from .compare import CLASSIC_CHANGE_ESTIMANDS, EmbeddingComparison, compare_embeddings
from .sentence_fits import ENCODERS, fit_sentence_model
from .sources import resolve_tables, source_table, study_jobs
from .store import (
    FIT_FORMAT,
    SavedFitReplacedWarning,
    UnreadableFitError,
    load_fit,
    read_manifest,
    save_fit,
)
from .study_fits import (
    FitInterrupted,
    fit_gender_model,
    fit_race_model,
    fit_religion_model,
    fit_study_model,
)

__all__ = [
    "CLASSIC_CHANGE_ESTIMANDS",
    "ENCODERS",
    "FIT_FORMAT",
    "EmbeddingComparison",
    "FitInterrupted",
    "SavedFitReplacedWarning",
    "UnreadableFitError",
    "compare_embeddings",
    "fit_gender_model",
    "fit_race_model",
    "fit_religion_model",
    "fit_sentence_model",
    "fit_study_model",
    "load_fit",
    "read_manifest",
    "resolve_tables",
    "save_fit",
    "source_table",
    "study_jobs",
]
