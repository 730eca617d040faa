"""The design analysis: :func:`design_analysis`, its arguments checked, its run.

It resolves the source (:mod:`embias.design.sources`), draws the studies
(:mod:`embias.design.draws`), fits them in blocks (:mod:`embias.design.fitting`) and
returns a :class:`~embias.design.result.DesignAnalysis`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._validation import check_choice, check_int, check_number, check_probability, check_seed
from ..populations import WordPopulations
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, LEVELS, FitSettings
from .draws import study_jobs
from .fitting import fit_in_blocks
from .result import RESULT_COLUMNS, DesignAnalysis
from .sources import Source, fitted_source, population_source

if TYPE_CHECKING:  # pragma: no cover
    from gensim.models import KeyedVectors

    from ..bayes.fit import BiasFit

#: Attribute words per class analysed by default.
DEFAULT_ATTRIBUTE_WORDS: tuple[int, ...] = (4, 8, 16, 32)
#: Fits per :func:`embias.fit_many` call: the studies of a block are fitted together, their
#: rows kept and the fits dropped, which bounds the memory of a long analysis.
DEFAULT_BLOCK = 64


def _check_rope(rope: Any) -> float:
    try:
        return check_number("rope", rope, low=0.0, low_open=True)
    except ValueError:
        raise ValueError(f"rope must be a positive half-width of the region of practical "
                         f"equivalence [−rope, rope] (a 'credible difference' is an HDI "
                         f"outside it), got {rope!r}") from None


def _base_settings(settings: FitSettings | Mapping[str, Any] | None, level: str
                   ) -> FitSettings:
    if settings is None:
        return FitSettings.for_batch(level=level)
    if isinstance(settings, Mapping):
        settings = FitSettings.for_batch(**settings)
    elif not isinstance(settings, FitSettings):
        raise ValueError(f"settings must be a FitSettings or a mapping of its fields, got "
                         f"{type(settings).__name__}")
    if settings.random_seed is not None:
        raise ValueError(f"settings.random_seed={settings.random_seed!r}: every fit's seed is "
                         "derived from the analysis's seed (design, study); pass random_seed= "
                         "to design_analysis() instead")
    return FitSettings.build(settings, level=level)


def design_analysis(
    source: BiasFit | WordPopulations | str,
    embeddings: KeyedVectors | str | None = None,
    *,
    attribute_words: int | str | Sequence[int | str] = DEFAULT_ATTRIBUTE_WORDS,
    protected_words: int | str | Sequence[int | str] | None = None,
    neutral_words: int | None = None,
    human_words: int | None = None,
    n_studies: int = 100,
    level: str = "crossed",
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = DEFAULT_ROPE,
    settings: FitSettings | Mapping[str, Any] | None = None,
    random_seed: int | None = None,
    progress: bool = True,
    block: int = DEFAULT_BLOCK,
) -> DesignAnalysis:
    """Estimate, per study size, the chance of a credible difference and the HDI width.

    For every design — each combination of ``protected_words`` and ``attribute_words``,
    with ``neutral_words`` and ``human_words`` — draws ``n_studies`` new studies from
    ``source`` (see the module notes: the posterior predictive of a fitted pilot study, or
    real words from populations), fits each at ``level`` through :func:`embias.fit_many`
    (in blocks of ``block`` fits) and records every contrast's ``ci_prob`` HDI and ROPE
    decision.

    Estimands, per design and contrast: P(the HDI lies entirely outside [−rope, rope]),
    i.e. P(``rope_decision == "credible difference"``), over new studies of that size,
    estimated by the share of simulated studies, with Monte Carlo se √(p(1 − p)/n); and
    the expected HDI width, estimated by the mean width, with Monte Carlo se sd/√n
    (:meth:`DesignAnalysis.summary`).

    Parameters
    ----------
    source
        A :class:`~embias.BiasFit` of a pilot study at the crossed level (new studies from
        its posterior predictive), or :class:`~embias.populations.WordPopulations`, a
        shipped set's name (``"sentiment"``, ``"names"``) or a folder of population files
        (new studies of real words).
    embeddings
        Populations only: ``KeyedVectors`` or a source for :func:`embias.load_embeddings`
        (default GloVe 6B 50d). A fitted source needs none.
    attribute_words
        Attribute words per attribute class: an integer ≥ 1, ``"pilot"`` (the pilot
        study's own numbers per class; fitted source only), or a list of them (default
        4, 8, 16, 32).
    protected_words
        Protected words per protected class, as ``attribute_words``; default the pilot's
        own numbers (fitted source) or 5 (populations).
    neutral_words, human_words
        Neutral and human words per study (≥ 0; 0 leaves the connection and its
        contrasts out); default the pilot's (fitted source) or 100 and 0 (populations).
    n_studies
        Studies per design (≥ 2). The Monte Carlo se of a probability is at most
        0.5/√n_studies (0.05 at 100).
    level
        Model level every simulated study is fitted at (default ``"crossed"``).
    ci_prob
        HDI probability (default 0.89).
    rope
        Half-width of the region of practical equivalence, > 0 (default 0.02).
    settings
        Sampler settings of the fits (:class:`~embias.FitSettings` or a mapping of its
        fields; default :meth:`FitSettings.for_batch`); its ``level`` is replaced by
        ``level`` and its ``random_seed`` must be unset.
    random_seed
        Non-negative integer seed of everything; ``None`` (default) draws one from the OS
        entropy. The seed used is ``settings["random_seed"]`` of the result (shown in its
        repr): passing it back repeats the analysis. Study i uses the same posterior draw
        at every size, and a study's words, rows and fit seed depend only on (seed,
        design, i), so a design's rows do not change when other sizes are added.
    progress
        Show a progress bar over the studies.
    block
        Fits per :func:`embias.fit_many` call (≥ 1).

    Returns
    -------
    DesignAnalysis
        Per-study rows (:attr:`~DesignAnalysis.results`), with
        :meth:`~DesignAnalysis.summary` and :meth:`~DesignAnalysis.plot`.

    Raises
    ------
    ValueError
        A size that is not an integer ≥ 1 (or ``"pilot"`` with a fitted source), a size
        listed twice, a size larger than a population (naming the class), neutral or
        human words the pilot has none of, a ROPE ≤ 0, a bad ``n_studies``, ``ci_prob``,
        level or seed, ``settings`` with a seed, embeddings given with a fitted source, a
        pilot fit that is not at the crossed level.
    MissingWordsError
        A population word missing from the embeddings.

    Examples
    --------
    A run fits ``n_studies`` models per design; the sizes are checked before any of
    them, against the populations the studies are drawn from:

    >>> design_analysis("sentiment", attribute_words=[4, 300])
    Traceback (most recent call last):
    ...
    ValueError: populations 'sentiment': attributes['negative'] has 200 words, fewer than the
    design's attributes=300; ...
    >>> design_analysis("sentiment", attribute_words=[4, 4])
    Traceback (most recent call last):
    ...
    ValueError: attribute_words lists ['4'] more than once; give each size once
    """
    from ..bayes.fit import BiasFit

    n_studies = check_int("n_studies", n_studies, minimum=2,
                          why="a Monte Carlo se needs at least 2 studies per design")
    block = check_int("block", block, minimum=1)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = _check_rope(rope)
    level = check_choice("level", level, LEVELS)
    base = _base_settings(settings, level)
    sizes: dict[str, Any] = {"protected_words": protected_words,
                             "attribute_words": attribute_words,
                             "neutral_words": neutral_words, "human_words": human_words}
    if isinstance(source, BiasFit):
        if embeddings is not None:
            raise ValueError("embeddings= is for populations of real words; a fitted pilot "
                             "study's new studies are drawn from its posterior, which needs "
                             "no embeddings")
        drawn: Source = fitted_source(source, **sizes)
    else:
        drawn = population_source(source, **sizes)
    seed = check_seed(random_seed)
    if drawn.populations is not None:
        drawn = drawn.with_embeddings("glove-6b-50d" if embeddings is None else embeddings)
    start = time.perf_counter()
    jobs = study_jobs(drawn, n_studies=n_studies, seed=seed, base=base, level=level)
    results = fit_in_blocks(jobs, total=len(drawn.designs) * n_studies, block=block,
                             ci_prob=ci_prob, rope=rope, progress=progress)
    fit_record = base.to_dict()
    fit_record.pop("random_seed")
    return DesignAnalysis(
        results=pd.DataFrame(results, columns=list(RESULT_COLUMNS)),
        designs=tuple(drawn.designs),
        settings={**drawn.record, "embedding": drawn.embedding, "level": level,
                  "n_studies": n_studies, "ci_prob": ci_prob, "ci_kind": "hdi", "rope": rope,
                  "random_seed": seed, "fit": fit_record},
        seconds=time.perf_counter() - start)

