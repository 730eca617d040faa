"""Fit a study: one call builds the study's table, fits it, saves and reloads the fit.

The fit is saved in ``models/`` and reloaded the next time.

A saved fit is a folder ``<models_dir>/<study>_<embedding>_<level>_<data>_<key>/``
(:mod:`embias.pipeline.store`); ``<key>`` is a hash of everything that determines the
result (study word lists, embedding source and the :class:`~embias.FitSettings` fields that
change the draws), so an identical second call finds and reloads the saved fit instead of
sampling again; ``refit=True`` forces a new fit, which replaces the saved one. A saved fit
that cannot be read back is fitted again over it, with a warning that names the folder and
the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from .._deprecation import renamed_keywords
from .._user_line import user_stacklevel
from .._validation import check_output
from ..bayes.fit import BiasFit, fit_bias_model
from ..settings import DEFAULT_MODELS_DIR, FitSettings, sampler_available
from ..wordlists import Study
from .store import (
    json_default,
    load_saved,
    locked,
    read_manifest,
    save_checked,
    saved_by,
    slug,
)
from .study_tables import cached_study_table, check_source, embedding_identity, study_identity

__all__ = [
    "FitInterrupted",
    "fit_gender_model",
    "fit_race_model",
    "fit_religion_model",
    "fit_study_model",
]


def saved_fit_target(models_dir: Path, study_name: str, source: str, run: FitSettings,
                      identity: dict[str, Any]) -> tuple[Path, str]:
    """Return a fit's saved-fit folder in ``models_dir``, and its key.

    The folder is ``<study>_<source>_<level>_<data>_<key>``; the key the first 12 hex
    digits of the SHA-256 of ``identity`` (what the table is made of) and the settings
    that change the draws (:meth:`FitSettings.key_fields`).
    """
    key_source = {**identity, **run.key_fields()}
    key = hashlib.sha256(json.dumps(key_source, sort_keys=True, default=json_default)
                         .encode()).hexdigest()[:12]
    folder = f"{slug(study_name, 'study')}_{slug(source)}_{run.level}_{run.data}_{key}"
    return models_dir / folder, key

@renamed_keywords(progressbar="progress")
def fit_study_model(
    study: str | Study,
    embedding: str = "glove-6b-50d",
    *,
    settings: FitSettings | None = None,
    models_dir: str | os.PathLike[str] = DEFAULT_MODELS_DIR,
    refit: bool = False,
    progress: bool = True,
    on_sampled: Callable[[BiasFit], None] | None = None,
    **options: Any,
) -> BiasFit:
    """Load embeddings, build a study's cosine table, fit, save and return the fit.

    Parameters
    ----------
    study
        A shipped study (``"religion"``, ``"race"``, ``"gender"``, ``"weat1"`` …), a
        folder of word lists or a :class:`~embias.Study`. The saved fit is named after the
        study's name (:attr:`Study.name`, a folder's name), never its path, and is always
        inside ``models_dir``; its key hashes the word lists, so one study read from two
        paths is one saved fit.
    embedding
        ``"glove-6b-50d"`` (default), any source :func:`embias.load_embeddings` reads (a
        file path, ``"gensim:NAME"``), or ``"published:reddit"``,
        ``"published:google"``, ``"published:glove"``, ``"published:reddit-debiased"``
        for the authors' own tables (exact duplicate rows dropped, with a warning).
    settings, **options
        Model and sampler settings (:class:`~embias.FitSettings`; any of its fields as a
        keyword replaces the one in ``settings``), as for :func:`embias.fit_bias_model`.
        With ``random_seed=None`` the first fit draws a seed (recorded in its settings)
        and identical later calls reuse it.
    models_dir
        Folder of saved fits (default ``models/`` in the working directory); nothing is
        written anywhere else.
    refit
        Fit again even when an identical saved fit exists (and replace it).
    progress
        Show the sampler's progress bars (only on a terminal or in a notebook; never in
        a log or a pipe). ``progressbar`` is the deprecated spelling.
    on_sampled
        Called with the fit as soon as it is sampled, before its diagnostics are computed
        and it is saved (``embias fit`` hands the figures' inputs to a drawing process
        there, so they are drawn while this one computes r̂/ESS and saves).

    Returns
    -------
    BiasFit
        With ``path`` set to the saved fit's folder.

    Raises
    ------
    ValueError
        Unknown study or published table, bad options, or a table the models refuse;
        nothing is written in that case.

    FitInterrupted
        Ctrl-C while fitting or saving (a ``KeyboardInterrupt``); the message says what
        the fit folder holds (the fit saved before, unchanged, or none).

    Warns
    -----
    UserWarning
        An identical saved fit exists but cannot be read (a damaged file, a file changed
        since it was saved, another :data:`FIT_FORMAT`): the warning names the folder and
        the file, and the fit is made again over it.
    SavedFitReplacedWarning
        Another process saved a fit of the same key while this one was fitted; this one
        replaced it (the message says when it was saved and by which process).

    Examples
    --------
    The authors' religion table (Reddit), at the dataset level with settings far too small
    for results (use the defaults); the identical second call loads the saved fit:

    >>> import shutil
    >>> import tempfile
    >>> import embias
    >>> models = tempfile.mkdtemp()
    >>> options = dict(level="dataset", draws=200, tune=200, chains=2, random_seed=1,
    ...                progress=False, models_dir=models)
    >>> fit = embias.fit_study_model("religion", "published:reddit", **options)
    >>> fit.settings["study"], fit.settings["embedding"], fit.level
    ('religion', 'published:reddit', 'dataset')
    >>> again = embias.fit_study_model("religion", "published:reddit", **options)
    >>> again.path == fit.path, again.settings["fit_key"] == fit.settings["fit_key"]
    (True, True)
    >>> shutil.rmtree(models)
    """
    run = FitSettings.build(settings, **options)
    sampler_available(run.sampler)
    st = check_source(study, embedding)
    models_dir = check_output("models_dir", models_dir, folder=True)
    identity = {"study": st.name, "study_lists": study_identity(st),
                "embedding": embedding_identity(embedding)}
    target, key = saved_fit_target(models_dir, st.name, embedding, run, identity)
    seen = saved_id(target)
    saved = load_saved(target, refit=refit)
    if saved is not None:
        return saved
    with interruptible(target, seen):
        table = cached_study_table(st, embedding, identity)
        return fit_and_save(table, run, target, {"study": st.name, "embedding": embedding,
                                                 "fit_key": key}, seen=seen,
                            progress=progress, on_sampled=on_sampled)


class FitInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``fit_*_model``: a ``KeyboardInterrupt`` that says what was saved.

    The message says what was kept: the fit saved before is unchanged, or there is none,
    or the new fit was saved just before the interruption.
    """


def saved_id(target: Path) -> str | None:
    """Return the manifest id of the fit saved at ``target`` now (``None`` if none)."""
    if not target.is_dir():
        return None
    with locked(target):
        return (read_manifest(target) or {}).get("id")


@contextmanager
def interruptible(target: Path, seen: str | None) -> Iterator[None]:
    """Turn Ctrl-C while fitting to ``target`` into :class:`FitInterrupted`.

    Its message says what the folder holds now (read from the disk, not assumed).
    """
    try:
        yield
    except FitInterrupted:
        raise
    except KeyboardInterrupt as exc:
        now = read_manifest(target) if target.is_dir() else None
        if now is None:
            said = f"interrupted: nothing saved (no fit of this key is saved in {target.parent})"
        elif now.get("id") == seen:
            said = (f"interrupted: nothing saved; the fit saved {saved_by(now)} in "
                    f"{target} is unchanged")
        elif now.get("pid") == os.getpid() and now.get("host") == socket.gethostname():
            said = f"interrupted just after the fit was saved to {target}"
        else:
            said = (f"interrupted: nothing saved; {target} holds the fit saved "
                    f"{saved_by(now)}")
        raise FitInterrupted(said) from exc


def fit_and_save(
    table: pd.DataFrame,
    run: FitSettings,
    target: Path,
    labels: dict[str, Any],
    *,
    seen: str | None,
    progress: bool,
    on_sampled: Callable[[BiasFit], None] | None,
) -> BiasFit:
    """Fit ``table``, then label, hand over, check and save the fit.

    Add ``labels`` to the fit's settings, hand it to ``on_sampled``, warn if it did not
    converge and save it to ``target`` (saying so if it replaces a fit that another
    process saved there after ``seen``, the manifest id found when this call started).
    """
    fit = fit_bias_model(table, settings=run, progress=progress, warn=False)
    fit = fit.replace(settings={**fit.settings, **labels})
    if on_sampled is not None:
        on_sampled(fit)
    fit.warn_if_unconverged(stacklevel=user_stacklevel() + 1)  # at the user's line
    return save_checked(fit, target, seen=seen, check=True)

@renamed_keywords(progressbar="progress")
def fit_religion_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the religion study (:func:`fit_study_model` with ``study="religion"``).

    Parameters
    ----------
    embedding
        The embedding source (default GloVe 6B 50d; ``"published:reddit"`` … for the
        authors' tables).
    **options
        Those of :func:`fit_study_model`.

    Returns
    -------
    BiasFit
        The saved fit.

    Raises
    ------
    ValueError
        What :func:`fit_study_model` refuses.

    Examples
    --------
    ``fit_religion_model("published:reddit")`` fits the authors' Reddit table (see
    :func:`fit_study_model`); the source is checked before any work:

    >>> import embias
    >>> try:
    ...     embias.fit_religion_model("")
    ... except ValueError as error:
    ...     print(error)
    embedding must be a non-empty source string, got ''; for a KeyedVectors use
    cosine_table() + fit_bias_model() + save_fit()
    """
    return fit_study_model("religion", embedding, **options)

@renamed_keywords(progressbar="progress")
def fit_race_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the race study (:func:`fit_study_model` with ``study="race"``).

    Parameters
    ----------
    embedding
        The embedding source (default GloVe 6B 50d).
    **options
        Those of :func:`fit_study_model`.

    Returns
    -------
    BiasFit
        The saved fit.

    Raises
    ------
    ValueError
        What :func:`fit_study_model` refuses.

    Examples
    --------
    >>> import embias
    >>> try:
    ...     embias.fit_race_model("published:nope")
    ... except ValueError as error:
    ...     print(error)
    unknown published table 'published:nope'; available: ['published:reddit',
    'published:google', 'published:glove', 'published:reddit-debiased']
    """
    return fit_study_model("race", embedding, **options)

@renamed_keywords(progressbar="progress")
def fit_gender_model(embedding: str = "glove-6b-50d", **options: Any) -> BiasFit:
    """Fit the gender study (:func:`fit_study_model` with ``study="gender"``).

    Parameters
    ----------
    embedding
        The embedding source (default GloVe 6B 50d).
    **options
        Those of :func:`fit_study_model`.

    Returns
    -------
    BiasFit
        The saved fit.

    Raises
    ------
    ValueError
        What :func:`fit_study_model` refuses.

    Examples
    --------
    >>> import embias
    >>> try:
    ...     embias.fit_gender_model("published:reddit", level="sentence")
    ... except ValueError as error:
    ...     print(error)
    level='sentence' is not one of ['dataset', 'word', 'hierarchical', 'crossed']
    """
    return fit_study_model("gender", embedding, **options)

