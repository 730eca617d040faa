"""Names that moved out of embias.bayes (to the layer that runs studies, embias.pipeline)
still import from their old module paths for one release, with a DeprecationWarning that
names their new home; the object is the one at the new home."""

from __future__ import annotations

import importlib

import pytest

import embias
from embias._deprecation import REMOVED_IN

#: old module → {name: new module} (every public name that moved).
MOVED = {
    "embias.bayes.store": {
        "fit_study_model": "embias.pipeline.study_fits",
        "fit_religion_model": "embias.pipeline.study_fits",
        "fit_race_model": "embias.pipeline.study_fits",
        "fit_gender_model": "embias.pipeline.study_fits",
        "FitInterrupted": "embias.pipeline.study_fits",
        "fit_sentence_model": "embias.pipeline.sentence_fits",
        "ENCODERS": "embias.pipeline.sentence_fits",
        "load_fit": "embias.pipeline.store",
        "save_fit": "embias.pipeline.store",
        "read_manifest": "embias.pipeline.store",
        "SavedFitReplacedWarning": "embias.pipeline.store",
        "UnreadableFitError": "embias.pipeline.store",
        "FIT_FORMAT": "embias.pipeline.store",
        "MANIFEST_FILE": "embias.pipeline.store",
        "DEFAULT_MODELS_DIR": "embias.settings",
    },
    "embias.bayes.compare": {
        "compare_embeddings": "embias.pipeline.compare",
        "EmbeddingComparison": "embias.pipeline.compare",
        "CLASSIC_CHANGE_ESTIMANDS": "embias.pipeline.compare",
        "study_jobs": "embias.pipeline.sources",
        "resolve_tables": "embias.pipeline.sources",
        "source_table": "embias.pipeline.sources",
        "ChangeFit": "embias.bayes.change",
        "fit_change_model": "embias.bayes.change",
        "CHANGE_ESTIMANDS": "embias.bayes.change",
    },
    "embias.bayes": {
        "fit_study_model": "embias.pipeline.study_fits",
        "fit_religion_model": "embias.pipeline.study_fits",
        "fit_race_model": "embias.pipeline.study_fits",
        "fit_gender_model": "embias.pipeline.study_fits",
        "load_fit": "embias.pipeline.store",
        "save_fit": "embias.pipeline.store",
        "compare_embeddings": "embias.pipeline.compare",
        "EmbeddingComparison": "embias.pipeline.compare",
        "study_jobs": "embias.pipeline.sources",
        "DEFAULT_MODELS_DIR": "embias.settings",
    },
    "embias.bayes.cache": {
        "cache_home": "embias.settings",
        "CompileCacheWarning": "embias._process_setup",
        "JAX_HOST_DEVICES": "embias._process_setup",
    },
}

CASES = [(old, name, new) for old, names in MOVED.items() for name, new in names.items()]


@pytest.mark.parametrize(("old", "name", "new"), CASES)
def test_a_moved_name_imports_from_its_old_module_with_a_warning(old: str, name: str,
                                                                 new: str) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning) as caught:
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
    assert [str(w.message) for w in caught] == [
        f"{old}.{name} has moved to {new}.{name}; import it from there (the old path will "
        f"be removed in embias {REMOVED_IN})"]
    assert caught[0].filename == __file__  # the warning points at the caller's line


def test_from_import_of_a_moved_name_warns_at_the_import() -> None:
    with pytest.warns(DeprecationWarning, match=r"^embias\.bayes\.store\.load_fit has moved "
                                                r"to embias\.pipeline\.store\.load_fit;"):
        from embias.bayes.store import load_fit
    assert load_fit is embias.load_fit


def test_the_compile_folder_check_moved_under_its_new_name() -> None:
    from embias import _process_setup
    from embias.bayes import cache

    with pytest.warns(DeprecationWarning, match=r"^embias\.bayes\.cache\.ensure_compile_cache "
                                                r"has moved to embias\._process_setup\."
                                                r"use_writable_compile_folder;"):
        value = cache.ensure_compile_cache
    assert value is _process_setup.use_writable_compile_folder


def test_a_name_that_never_was_there_is_an_attribute_error() -> None:
    from embias.bayes import store

    with pytest.raises(AttributeError, match=r"^module 'embias\.bayes\.store' has no "
                                             r"attribute 'fit_everything'$"):
        store.fit_everything  # noqa: B018 - the lookup under test


def test_the_public_names_are_the_objects_of_their_new_homes() -> None:
    from embias import pipeline
    from embias.bayes import change

    for name in ("fit_study_model", "fit_religion_model", "load_fit", "save_fit",
                 "read_manifest", "compare_embeddings", "EmbeddingComparison", "study_jobs",
                 "FitInterrupted", "SavedFitReplacedWarning"):
        assert getattr(embias, name) is getattr(pipeline, name), name
    for name in ("ChangeFit", "fit_change_model"):
        assert getattr(embias, name) is getattr(change, name), name
