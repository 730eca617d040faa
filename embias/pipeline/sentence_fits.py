"""Fit a study's sentence table: its words put in templates and encoded by an encoder.

The table is fitted at the crossed level with templates as a random effect, saved and
reloaded like a study's fit (:mod:`embias.pipeline.study_fits`).

Its saved fit is named after the encoder, and its key adds the encoder (model and file
digests) and the templates.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

from .._deprecation import renamed_keywords
from .._user_line import at_user_line
from .._validation import check_choice, check_output
from ..bayes.fit import BiasFit
from ..settings import DEFAULT_MODELS_DIR, FitSettings, sampler_available
from ..wordlists import Study, load_study
from .store import load_saved
from .study_fits import fit_and_save, interruptible, saved_fit_target, saved_id
from .study_tables import study_identity

__all__ = ["ENCODERS", "fit_sentence_model"]

#: Sentence encoders :func:`fit_sentence_model` and ``embias fit --encoder`` know by name.
ENCODERS: tuple[str, ...] = ("minilm",)


def encoder_identity(encoder: str) -> dict[str, Any]:
    """Return what identifies a named sentence encoder in a fit's key.

    Its model and the digests its files are checked against.
    """
    from ..encoders import MODEL_NAME, MODEL_SHA256

    check_choice("encoder", encoder, ENCODERS)
    return {"encoder": encoder, "model": MODEL_NAME, "files": dict(MODEL_SHA256)}


def templates_identity(templates: Any) -> Any:
    """Return the checked templates as they enter a fit's key.

    The shipped sets' content for ``"may2019"`` (so an edited data file is another key),
    else the user's templates; and the word-kind table, which decides each word's
    templates.
    """
    from ..sentences import load_templates, load_word_kinds, template_spec

    spec = template_spec(templates)
    content: Any = ({k: list(v) for k, v in load_templates().items()}
                    if isinstance(spec, str) else
                    {k: list(v) for k, v in spec.items()} if isinstance(spec, dict)
                    else list(spec))
    kinds = load_word_kinds().to_csv(index=False)
    return {"templates": spec if isinstance(spec, str) else "custom", "content": content,
            "word_kinds": hashlib.sha256(kinds.encode()).hexdigest()}


@renamed_keywords(progressbar="progress")
def fit_sentence_model(
    study: str | Study,
    encoder: str = "minilm",
    *,
    templates: Any = "may2019",
    settings: FitSettings | None = None,
    models_dir: str | os.PathLike[str] = DEFAULT_MODELS_DIR,
    refit: bool = False,
    progress: bool = True,
    on_sampled: Callable[[BiasFit], None] | None = None,
    **options: Any,
) -> BiasFit:
    """Build a study's sentence table on a sentence encoder, fit, save and return the fit.

    The table is :func:`embias.sentence_table` (each word put in its templates, one row
    per protected word, template and compared word); the model is the default
    ``level="crossed"``, where compared words and templates are random samples
    (:mod:`embias.bayes.crossed`), so the intervals carry both and the interval table
    reports the template sd next to the compared words' sds.

    Parameters
    ----------
    study
        As for :func:`fit_study_model`.
    encoder
        ``"minilm"``: the offline all-MiniLM-L6-v2 (:func:`embias.encoders.default_encoder`;
        the ``sentence`` extra). For another encoder use :func:`embias.sentence_table` +
        :func:`embias.fit_bias_model` + :func:`save_fit`.
    templates
        ``"may2019"`` (default: May et al.'s set for each word's kind), a list of templates
        or a mapping kind → templates (:func:`embias.word_sentences`).
    settings, **options
        Model and sampler settings, as for :func:`fit_study_model` (the default level,
        ``"crossed"``, is the one with templates as a random effect).
    models_dir, refit, progress, on_sampled
        As for :func:`fit_study_model`. The saved fit's folder is
        ``<study>_<encoder>_<level>_<data>_<key>``; the key hashes the study's word lists,
        the encoder (model and file digests), the templates (their text) and the word-kind
        table, and the settings that change the draws.

    Returns
    -------
    BiasFit
        With ``settings["encoder"]``, ``settings["templates"]`` and ``path`` set.

    Raises
    ------
    ValueError
        Unknown study or encoder, bad templates or options; nothing is written then.

    Warns
    -----
    UserWarning
        An identical saved fit that cannot be read is fitted again (as in
        :func:`fit_study_model`).

    Examples
    --------
    ``fit_sentence_model("religion")`` encodes the religion study's sentences with
    all-MiniLM-L6-v2 (downloaded once) and fits them; the encoder is checked first:

    >>> from embias.pipeline import fit_sentence_model
    >>> try:
    ...     fit_sentence_model("religion", encoder="bert")
    ... except ValueError as error:
    ...     print(error)
    encoder='bert' is not one of ['minilm']
    """
    run = FitSettings.build(settings, **options)
    sampler_available(run.sampler)
    st = load_study(study)
    encoder_key = encoder_identity(encoder)
    templates_key = templates_identity(templates)
    models_dir = check_output("models_dir", models_dir, folder=True)
    target, key = saved_fit_target(models_dir, st.name, encoder, run, {
        "study": st.name, "study_lists": study_identity(st), "table": "sentences",
        "encoder": encoder_key, "templates": templates_key})
    seen = saved_id(target)
    saved = load_saved(target, refit=refit)
    if saved is not None:
        return saved
    from ..encoders import default_encoder
    from ..sentences import sentence_table

    try:
        sentence_encoder = default_encoder()
    except (ImportError, FileNotFoundError) as exc:
        raise ValueError(str(exc)) from None
    with interruptible(target, seen):
        table = at_user_line(lambda: sentence_table(sentence_encoder, st,
                                                    templates=templates))
        return fit_and_save(table, run, target, {
            "study": st.name, "embedding": str(table["embedding"].iloc[0]),
            "encoder": encoder, "templates": templates_key["templates"],
            "template_list": sorted(set(table["template"])), "fit_key": key}, seen=seen,
            progress=progress, on_sampled=on_sampled)

