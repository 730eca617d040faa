"""SEAT (May et al. 2019): WEAT on the sentences of a study's words.

:func:`seat_test` runs embias's WEAT (:func:`embias.classic.weat`: effect size with the
sample sd, exact or seeded Monte Carlo permutation p-value, item bootstrap) on the
sentences of a two-class study — every sentence is one item, as in May et al. Sentences
of one word share the word, so they are not independent: the permutation p-value and
the bootstrap interval treat them as if they were and are optimistic; the crossed model
on :func:`sentence_table` is the honest way to let words and templates vary. The
population interval (``population_lower``/``population_upper``) samples words, not
sentences: a word's attribute sentences are averaged and a word's target sentences drawn
together (``item_words`` of :func:`embias.classic.weat`); its coverage on real word
populations is measured by ``benchmarks/bench_seat_population.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from ..settings import DEFAULT_CI_PROB
from ..wordlists import BUILTIN_STUDIES, Study, load_study
from ._common import SHIPPED
from .templates import template_spec, word_sentences

if TYPE_CHECKING:  # pragma: no cover
    from ..classic import WeatResult


def seat_test(
    test: str | Study,
    encoder: Any = None,
    *,
    templates: Any = SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    **options: Any,
) -> WeatResult:
    """Run SEAT (May et al. 2019): WEAT on the sentences of a two-class study.

    X, Y, A and B are the sentences of the study's target and attribute words (each word
    in each of its templates, :func:`word_sentences`); the effect size, the permutation
    p-value and the bootstrap come from :func:`embias.classic.weat`, run on the sentence
    vectors. Every sentence is one item, as in May et al. (see the module docstring for
    why that makes the p-value optimistic).

    Parameters
    ----------
    test
        ``"weat1"`` … ``"weat10"`` or any two-class :class:`~embias.Study`.
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts (default all-MiniLM-L6-v2).
    templates, word_kinds
        As for :func:`word_sentences`.
    options
        Passed to :func:`embias.classic.weat`: ``permutations``, ``alternative``,
        ``random_seed``, ``ddof`` … (May et al. report the one-sided
        ``alternative="greater"``; embias's default is two-sided).

    Returns
    -------
    WeatResult
        Named ``"<test> (SEAT)"``; its ``s_values`` have one row per sentence: ``word``,
        ``template``, ``sentence``, ``target`` (X/Y), ``s``; ``random_seed`` is the seed
        used (drawn when ``random_seed=None``; passing it back repeats the test).

    Raises
    ------
    ValueError
        A word in two of the lists X, Y, A, B (case folded: a template capitalises the
        sentence's first letter), naming the word and both lists
        (:func:`embias.classic.check_weat_roles`); the errors of :func:`word_sentences`
        and :func:`embias.classic.weat`.

    Examples
    --------
    Two words per list, one template: the 6 ways to split the four target sentences in
    two give the exact two-sided p-value 2/6.

    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> result = seat_test(study, encode, templates=["This is {term}."], random_seed=0)
    >>> result.name, round(result.effect_size, 3), result.p_value, result.exact
    ('toy (SEAT)', 1.729, 0.333, True)
    """
    from ..encoders import as_encoder

    result, _ = _seat(load_study(test), as_encoder(encoder), template_spec(templates),
                      word_kinds, options)
    return result


def _seat(study: Study, enc: Any, spec: Any, word_kinds: Mapping[str, Any] | None,
          options: dict[str, Any]) -> tuple[WeatResult, list[list[str]]]:
    """Run SEAT on one study; return the WEAT result and the sentences of X, Y, A, B."""
    import dataclasses

    from ..classic import check_weat_roles, weat
    from ..embeddings import keyed_vectors

    sets = study.weat_sets()
    cx, cy = study.protected
    ca, cb = (study.associations[cl] for cl in study.protected)
    set_names = (cx, cy, ca, cb) if len({cx, cy, ca, cb}) == 4 else ("X", "Y", "A", "B")
    options = dict(options)
    options.setdefault("name", f"{study.name} (SEAT)")
    options.setdefault("set_names", set_names)
    # a word in two roles would put the same sentences in two lists: named here, by word;
    # case is folded, since templates capitalise a sentence's first letter ('alpha' and
    # 'Alpha' give 'Alpha is here.' both)
    check_weat_roles(sets, set_names=options["set_names"], lowercase=True,
                     name=str(options["name"]))
    words = [w for s in sets for w in s]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sentences = word_sentences(words, templates=spec, word_kinds=word_kinds)
    for w in caught:
        warnings.warn(str(w.message), w.category, stacklevel=3)
    by_word = {w: list(g["sentence"]) for w, g in sentences.groupby("word", sort=False)}
    sentence_sets = [[s for w in dict.fromkeys(words_) for s in by_word[w]] for words_ in sets]
    distinct = list(dict.fromkeys(sentences["sentence"]))
    kv = keyed_vectors(distinct, np.ascontiguousarray(enc(distinct)))
    origin = sentences.drop_duplicates("sentence").set_index("sentence")
    # the population interval samples words: a sentence is one of its word's templates
    result = weat(kv, *sentence_sets, lowercase=False,
                  item_words=dict(zip(origin.index, origin["word"], strict=True)), **options)
    s_values = result.s_values.rename(columns={"word": "sentence"})
    s_values.insert(0, "word", s_values["sentence"].map(origin["word"]))
    s_values.insert(1, "template", s_values["sentence"].map(origin["template"]))
    return dataclasses.replace(result, s_values=s_values), sentence_sets


#: Caliskan et al.'s tests, the default of :func:`seat_overview`.
CALISKAN_TESTS: tuple[str, ...] = tuple(s for s in BUILTIN_STUDIES if s.startswith("weat"))


def seat_overview(
    encoder: Any = None,
    *,
    tests: Sequence[str | Study] = CALISKAN_TESTS,
    templates: Any = SHIPPED,
    word_kinds: Mapping[str, Any] | None = None,
    permutations: int | Literal["auto", "exact"] = "auto",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    ci_prob: float = DEFAULT_CI_PROB,
    random_seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Run SEAT on several tests with one encoder: effect sizes and permutation p-values.

    Parameters
    ----------
    encoder
        Anything :func:`embias.encoders.as_encoder` accepts (default all-MiniLM-L6-v2).
    tests
        Shipped test names or two-class studies (default Caliskan et al.'s ten).
    templates, word_kinds
        As for :func:`word_sentences`.
    permutations, alternative
        As for :func:`embias.classic.weat`.
    ci_prob
        Probability of the interval for the population effect size (default 0.89).
    random_seed
        Seed of every test's permutations and bootstrap (each test starts from the same
        seed), or a Generator the tests draw from in turn. ``None`` (the default) draws
        one seed from the OS entropy (the seed policy of :mod:`embias._validation`); the
        seed used is in the table's ``random_seed`` column and ``attrs["random_seed"]``,
        and passing it back repeats the table exactly.

    Returns
    -------
    pandas.DataFrame
        One row per test: ``test``, ``encoder``, ``sentences`` (X/Y/A/B counts),
        ``effect_size``, ``p_value``, ``p_method`` (``exact`` or ``MC <permutations>``),
        ``population_estimate`` and ``population_lower``/``population_upper`` (the effect
        size of the word and sentence populations, corrected for the noise of short
        attribute lists, and its ``ci_prob`` interval:
        :meth:`embias.classic.WeatResult.population_columns`; NaN where it cannot be
        computed), ``ci_prob``, ``random_seed`` (the seed of the test's permutations and
        bootstrap; None when a Generator was given). ``attrs["random_seed"]`` holds the
        seed too.

    Raises
    ------
    ValueError
        A bad ``ci_prob``, and the errors of :func:`seat_test`.

    Examples
    --------
    >>> import numpy as np
    >>> from embias.wordlists import Study
    >>> VECTORS = {"he": [1, 0], "him": [0.9, 0.1], "she": [0, 1], "her": [0.1, 0.9],
    ...            "strong": [1, 0.2], "tough": [0.8, 0.1], "gentle": [0.1, 1],
    ...            "kind": [0.2, 0.8]}
    >>> def encode(sentences):  # a sentence's vector is its last word's
    ...     return np.array([VECTORS[s.split()[-1].rstrip(".").lower()] for s in sentences])
    >>> study = Study.from_dicts("toy", protected={"m": ["he", "him"], "f": ["she", "her"]},
    ...                          attributes={"m": ["strong", "tough"],
    ...                                      "f": ["gentle", "kind"]})
    >>> overview = seat_overview(encode, tests=[study], templates=["This is {term}."],
    ...                          random_seed=0)
    >>> overview[["test", "sentences", "effect_size", "p_value", "p_method"]]
      test sentences  effect_size   p_value p_method
    0  toy   2/2/2/2     1.728744  0.333333    exact
    """
    from .._validation import check_probability, resolve_rng
    from ..encoders import as_encoder

    ci_prob = check_probability("ci_prob", ci_prob)
    # one seed for the whole table (drawn here when None), so passing it back repeats it
    _, seed = resolve_rng(random_seed)
    seeds = random_seed if seed is None else seed

    if isinstance(tests, str | Study):
        tests = [tests]
    enc = as_encoder(encoder)
    spec = template_spec(templates)
    rows = []
    for test in tests:
        study = load_study(test)
        r, sentence_sets = _seat(study, enc, spec, word_kinds, {
            "permutations": permutations, "alternative": alternative,
            "random_seed": seeds})
        rows.append({
            "test": study.name,
            "encoder": enc.name,
            "sentences": "/".join(str(len(s)) for s in sentence_sets),
            "effect_size": r.effect_size,
            "p_value": r.p_value,
            "p_method": "exact" if r.exact else f"MC {r.n_permutations:,}",
            **r.population_columns(ci_prob),
            "ci_prob": ci_prob,
            "random_seed": r.random_seed,
        })
    table = pd.DataFrame(rows)
    table.attrs["random_seed"] = seed
    return table
