"""The sentences of the downstream study (:mod:`embias.studies.sentiment`) and their scores.

Neutral templates filled with every protected word of a study
(:func:`~embias.studies.identity_sentences`), each scored by a word-vector classifier
from the mean vector of its content tokens (:func:`~embias.studies.score_sentences`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from sklearn.linear_model import LogisticRegression

from embias._validation import check_columns
from embias.embeddings import MissingWords, is_uncased
from embias.studies.word_classifier import SentimentClassifier, positive_proba
from embias.wordlists import Study, load_study

__all__ = ["DEFAULT_STOP_WORDS", "DEFAULT_TEMPLATES", "identity_sentences", "score_sentences"]

#: Sentence templates, one ``{}`` each. Their content words are chosen to carry no
#: religion, race or gender (no pronouns such as "he"/"she", no "church"/"sunday").
DEFAULT_TEMPLATES: tuple[str, ...] = (
    "{} people are here",
    "I met a {} yesterday",
    "my neighbour is {}",
    "we talked about {}",
    "the article was about {}",
    "they read about {} in the news",
    "there is a {} school nearby",
    "{} was mentioned in the report",
    "I know a lot about {}",
    "the class discussed {}",
    "our teacher explained {}",
    "this film is about {}",
)

#: Function words left out of a sentence's mean vector: articles, pronouns, auxiliaries,
#: prepositions and conjunctions. They carry no sentiment but, averaged in, would dilute
#: the identity word and shift every score alike. Pass ``stop_words=()`` to keep them.
DEFAULT_STOP_WORDS: frozenset[str] = frozenset(
    "a an the i me my we our you your they them their it its this that these those there "
    "is are was were be been am do does did has have had will would can could "
    "of in on at to for with about from by into over and or but so as".split()
)

_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # words, keeping inner apostrophes ("don't")


def _check_templates(templates: Any) -> tuple[str, ...]:
    if isinstance(templates, str):
        raise ValueError(f"templates must be a sequence of strings, got the string {templates!r}")
    out = tuple(templates)
    if not out:
        raise ValueError("templates is empty: need at least one template with one '{}'")
    for t in out:
        if not isinstance(t, str) or t.count("{}") != 1 or t.replace("{}", "").count("{") \
                or t.replace("{}", "").count("}"):
            raise ValueError(f"every template must be a string with exactly one '{{}}' slot "
                             f"(and no other braces), got {t!r}")
    if len(set(out)) != len(out):
        dup = sorted({t for t in out if out.count(t) > 1})
        raise ValueError(f"templates must be distinct; repeated: {dup}")
    return out


def identity_sentences(
    study: Study | str,
    *,
    templates: Sequence[str] = DEFAULT_TEMPLATES,
) -> pd.DataFrame:
    """Fill every template with every protected word of every class of a study.

    Parameters
    ----------
    study
        A :class:`~embias.wordlists.Study` or the name of a shipped one
        (``"religion"``, ``"race"``, ``"gender"`` …).
    templates
        Sentences with one ``{}`` slot each (default :data:`DEFAULT_TEMPLATES`).

    Returns
    -------
    pandas.DataFrame
        ``len(templates) × Σ_class |words|`` rows, class by class, word by word: ``study``,
        ``class``, ``word``, ``template_id`` (position in ``templates``), ``template``,
        ``sentence``.

    Raises
    ------
    ValueError
        Unknown study, or templates that are empty, repeated or without exactly one slot.

    Examples
    --------
    The religion study's 15 protected words in the 12 default templates:

    >>> from embias.studies import identity_sentences
    >>> sentences = identity_sentences("religion")
    >>> sentences.shape
    (180, 6)
    >>> sentences.loc[0, ["class", "word", "sentence"]].tolist()
    ['christian', 'christianity', 'christianity people are here']
    >>> identity_sentences("religion", templates=["{} is here", "no slot"])
    Traceback (most recent call last):
    ...
    ValueError: every template must be a string with exactly one '{}' slot (and no other ...
    """
    st = load_study(study)
    temps = _check_templates(templates)
    rows = [
        {"study": st.name, "class": cls, "word": word, "template_id": k, "template": t,
         "sentence": t.format(word)}
        for cls, words in st.protected.items() for word in words for k, t in enumerate(temps)
    ]
    return pd.DataFrame(rows)


def _tokens(text: str, lowercase: bool) -> list[str]:
    return _TOKEN.findall(text.lower() if lowercase else text)


def score_sentences(
    model: SentimentClassifier | LogisticRegression,
    embeddings: KeyedVectors,
    sentences: pd.DataFrame,
    *,
    stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    lowercase: bool | None = None,
) -> pd.DataFrame:
    """Score identity sentences with a word-vector classifier.

    A sentence's vector is the mean of the vectors of its tokens: the identity word's
    tokens (always kept) and the template's tokens that are in the embeddings and not
    in ``stop_words``. Its ``score`` is the classifier's P(positive) of that vector and
    ``y_pred`` = 1 when the score exceeds 0.5.

    Sentences whose identity word (any of its tokens) is not in the embeddings are
    dropped with a ``UserWarning`` naming the words; the report is kept in
    ``result.attrs["missing_identity_words"]`` (a :class:`~embias.embeddings.MissingWords`
    by class) and the out-of-vocabulary template tokens in
    ``result.attrs["missing_template_tokens"]``.

    Parameters
    ----------
    model
        A :class:`SentimentClassifier`, or a fitted binary scikit-learn
        :class:`~sklearn.linear_model.LogisticRegression` with labels 0/1 (1 positive),
        trained on the same embeddings.
    embeddings
        The word vectors.
    sentences
        A table from :func:`identity_sentences` (needs ``class``, ``word``, ``template``,
        ``sentence``).
    stop_words
        Template tokens to leave out (default :data:`DEFAULT_STOP_WORDS`; ``()`` keeps
        all).
    lowercase
        Look tokens up in lower case (default: the classifier's setting, else whether the
        vocabulary is uncased).

    Returns
    -------
    pandas.DataFrame
        The scored sentences (a copy) with ``tokens`` (the tokens averaged, space-joined),
        ``n_tokens``, ``score`` and ``y_pred``.

    Raises
    ------
    ValueError
        Missing columns, a classifier of another dimension or not fitted on labels 0/1,
        or no identity word in the embeddings at all.

    Examples
    --------
    A classifier trained on four positive and four negative words; the flowers lie on the
    positive side, the insects on the negative one. "is" and "I" are stop words, "here"
    and "saw" are not in the embeddings, so each sentence's vector is its identity
    word's:

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> from embias.studies import identity_sentences, score_sentences, sentiment_classifier
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["good", "great", "nice", "happy", "bad", "awful", "sad", "nasty",
    ...                 "rose", "tulip", "ant", "wasp"],
    ...                [[1, 0.2], [1, -0.1], [0.8, 0.3], [0.9, 0], [-1, 0.1], [-0.9, -0.2],
    ...                 [-0.8, 0.2], [-1, 0], [0.6, 0.5], [0.5, -0.4], [-0.6, 0.4],
    ...                 [-0.4, -0.5]])
    >>> lexicon = {"good": 3.1, "great": 3.1, "nice": 1.8, "happy": 2.7, "bad": -2.5,
    ...            "awful": -2.0, "sad": -2.1, "nasty": -2.6}
    >>> clf = sentiment_classifier(kv, lexicon=lexicon, test_size=0.5, random_seed=0)
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> sentences = identity_sentences(toy, templates=["{} is here", "I saw {}"])
    >>> scored = score_sentences(clf, kv, sentences)
    >>> scored.groupby("word", sort=False)["y_pred"].first().to_dict()
    {'rose': 1, 'tulip': 1, 'ant': 0, 'wasp': 0}
    >>> scored["tokens"].tolist()[:2], scored.attrs["missing_template_tokens"]
    (['rose', 'rose'], ('here', 'saw'))
    """
    fit = _scorer(model, embeddings)
    check_columns(sentences, ("class", "word", "template", "sentence"), name="sentences",
                  hint="build it with identity_sentences()")
    if sentences.empty:
        raise ValueError("sentences is empty: nothing to score")
    if lowercase is None:
        lowercase = (model.lowercase if isinstance(model, SentimentClassifier)
                     else is_uncased(embeddings))
    stops = {w.lower() if lowercase else w for w in stop_words}
    index = embeddings.key_to_index
    word_ok, report = _identity_words(sentences, index, lowercase)
    if not any(word_ok.values()):
        raise ValueError(f"none of the {len(word_ok)} identity words is in the embeddings "
                         f"(missing: {report}); nothing can be scored")
    if report:
        warnings.warn(f"{report.n_missing} identity words are not in the embeddings; their "
                      f"sentences were dropped:\n{report}", UserWarning, stacklevel=2)
    out = sentences[sentences["word"].map(word_ok)].copy()
    means, used_tokens, missing_template = _sentence_vectors(out, embeddings, stops, lowercase)
    out["tokens"] = used_tokens
    out["n_tokens"] = [len(t.split()) for t in used_tokens]
    out["score"] = positive_proba(fit, means)
    out["y_pred"] = (out["score"] > 0.5).astype(np.int8)
    out = out.reset_index(drop=True)
    out.attrs["missing_identity_words"] = report
    out.attrs["missing_template_tokens"] = tuple(sorted(missing_template))
    return out


def _scorer(model: SentimentClassifier | LogisticRegression,
            embeddings: KeyedVectors) -> LogisticRegression:
    """Return the fitted binary logistic regression of ``model``, checked against the embeddings.

    ValueError naming what does not fit.
    """
    if not isinstance(embeddings, KeyedVectors):
        raise ValueError(f"embeddings must be gensim KeyedVectors, got "
                         f"{type(embeddings).__name__}")
    fit = model.model if isinstance(model, SentimentClassifier) else model
    if not isinstance(fit, LogisticRegression):
        raise ValueError(f"model must be a SentimentClassifier or a fitted LogisticRegression, "
                         f"got {type(model).__name__}")
    if not hasattr(fit, "classes_") or sorted(fit.classes_.tolist()) != [0, 1]:
        raise ValueError("model must be a LogisticRegression fitted on labels 0/1 (1 positive)")
    if fit.n_features_in_ != embeddings.vector_size:
        raise ValueError(f"the classifier has {fit.n_features_in_} weights but the embeddings "
                         f"have {embeddings.vector_size} dimensions; train it on these "
                         "embeddings")
    return fit


def _identity_words(sentences: pd.DataFrame, index: Mapping[str, int],
                    lowercase: bool) -> tuple[dict[str, bool], MissingWords]:
    """Return whether each identity word's tokens are all in the embeddings, and the report.

    The report lists the missing identity words by class.
    """
    classes = list(dict.fromkeys(sentences["class"]))
    words_by_class = {c: list(dict.fromkeys(sentences.loc[sentences["class"] == c, "word"]))
                      for c in classes}
    word_ok = {w: bool(_tokens(w, lowercase)) and all(t in index for t in _tokens(w, lowercase))
               for ws in words_by_class.values() for w in ws}
    report = MissingWords(
        missing={c: tuple(w for w in ws if not word_ok[w]) for c, ws in words_by_class.items()},
        kept={c: sum(word_ok[w] for w in ws) for c, ws in words_by_class.items()},
        total={c: len(ws) for c, ws in words_by_class.items()},
    )
    return word_ok, report


def _sentence_vectors(sentences: pd.DataFrame, embeddings: KeyedVectors, stops: set[str],
                      lowercase: bool) -> tuple[np.ndarray, list[str], set[str]]:
    """Return every sentence's mean token vector, the tokens used and the template's missing.

    A sentence's tokens are its identity word's, and its template's that are in the
    embeddings and not in ``stops``; the template tokens not in the embeddings are
    returned too.
    """
    index = embeddings.key_to_index
    means = np.empty((len(sentences), embeddings.vector_size))
    used_tokens: list[str] = []
    missing_template: set[str] = set()
    for i, (word, template) in enumerate(zip(sentences["word"], sentences["template"],
                                             strict=True)):
        ident = _tokens(word, lowercase)
        rest = [t for t in _tokens(template.replace("{}", " "), lowercase) if t not in stops]
        missing_template.update(t for t in rest if t not in index)
        toks = [*(t for t in rest if t in index), *ident]
        rows = [index[t] for t in toks]
        means[i] = np.asarray(embeddings.vectors[rows], dtype=np.float64).mean(axis=0)
        used_tokens.append(" ".join(toks))
    return means, used_tokens, missing_template
