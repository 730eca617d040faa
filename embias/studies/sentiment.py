"""Does embedding bias reach decisions? A downstream sentiment study.

The study ties the embedding half of embias to the classifier half:

1. **Classifier.** scikit-learn's L2-regularised logistic regression
   (:class:`sklearn.linear_model.LogisticRegression`) learns positive vs negative
   sentiment from the word vectors of the VADER lexicon (:func:`vader_lexicon`, read
   from the installed ``vaderSentiment`` package): words with a mean human rating above
   ``+margin`` are positive, below ``−margin`` negative, the rest are dropped. Words
   missing from the embeddings are counted and listed, never dropped silently. A seeded
   split stratified by label (:func:`sklearn.model_selection.train_test_split`) gives
   the held-out accuracy (:func:`sentiment_classifier`).
2. **Sentences.** Neutral templates (``"I met a {} yesterday"``) are filled with every
   protected word of every class of a study (:func:`identity_sentences`); a sentence's
   score is the classifier's P(positive) of the mean vector of its in-vocabulary
   content tokens (stop words are left out, see :data:`DEFAULT_STOP_WORDS`), and its
   prediction is ŷ = 1 when that probability exceeds 0.5 (:func:`score_sentences`).
3. **Fairness.** The positive-prediction rates of the classes are compared with the
   Bernstein-bounded demographic-parity interval (:func:`~embias.classifier.demographic_parity`)
   and the Bayesian posterior of the rate difference
   (:func:`~embias.classifier.parity_comparisons`), for every embedding given, in one
   interval table with an ``embedding`` column (:func:`downstream_fairness`).

Caveat on the intervals: both methods treat the sentences as independent draws, but the
sentences of a class share a handful of identity words and the classes share the
templates, so the intervals describe this template × word design, not a population of
identity terms.

This is a study, not library code: it needs the ``studies`` extra
(``pip install "embias[studies]"``: scikit-learn and vaderSentiment).
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from embias._validation import (
    check_choice,
    check_columns,
    check_number,
    check_probability,
    check_seed,
)
from embias.classifier import demographic_parity, parity_comparisons
from embias.embeddings import MissingWords, is_uncased, lookup_words
from embias.report import validate_interval_table
from embias.settings import DEFAULT_CI_PROB
from embias.wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_STOP_WORDS",
    "DEFAULT_TEMPLATES",
    "DownstreamResult",
    "SentimentClassifier",
    "downstream_fairness",
    "identity_sentences",
    "plot_downstream",
    "plot_sentence_scores",
    "score_sentences",
    "sentiment_classifier",
    "vader_lexicon",
]

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

#: Stopping tolerance and iteration limit of the L-BFGS solver. Tighter than
#: scikit-learn's default (1e-4) so that the fit is the optimum of the penalised loss to
#: far below the differences anything downstream reports; GloVe 6B 50d + VADER
#: converges in well under the limit.
_TOL = 1e-8
_MAX_ITER = 2000

_INSTALL_HINT = 'pip install "embias[studies]"'


# --------------------------------------------------------------------------------------
# the sentiment lexicon
# --------------------------------------------------------------------------------------


def _vader_text() -> tuple[str, str]:
    """(text, where) of ``vader_lexicon.txt`` as shipped by the installed vaderSentiment."""
    try:
        root = resources.files("vaderSentiment")
    except ModuleNotFoundError:
        raise ImportError(
            "the VADER lexicon is read from the vaderSentiment package, which is not "
            f"installed: {_INSTALL_HINT} (or pass lexicon= a mapping word → rating)"
        ) from None
    entry = root / "vader_lexicon.txt"
    if not entry.is_file():
        raise ImportError(f"vaderSentiment is installed but has no vader_lexicon.txt "
                          f"({entry}); reinstall it: {_INSTALL_HINT}")
    return entry.read_text(encoding="utf-8"), "vader_lexicon.txt"


def vader_lexicon(path: str | Path | None = None) -> pd.DataFrame:
    """The VADER sentiment lexicon (Hutto & Gilbert 2014) as a table.

    Each line of ``vader_lexicon.txt`` holds a token, its mean rating on −4 … +4 by ten
    human raters, their standard deviation and the raw ratings, tab-separated.

    Parameters
    ----------
    path
        A lexicon file in that format; default the ``vader_lexicon.txt`` shipped by the
        installed ``vaderSentiment`` package (MIT licence), read in place through
        :mod:`importlib.resources`.

    Returns
    -------
    pandas.DataFrame
        One row per line, in file order: ``word`` (as written, case kept), ``rating``
        (mean), ``sd``. Tokens listed twice stay twice (VADER itself keeps the last).

    Raises
    ------
    ImportError
        ``path`` is None and vaderSentiment is not installed (or lacks the file).
    ValueError
        ``path`` does not exist, or a line is malformed (the message names the line).
    """
    if path is None:
        text, name = _vader_text()
    else:
        p = Path(path)
        if not p.is_file():
            raise ValueError(f"lexicon file not found: {str(p)!r}")
        text, name = p.read_text(encoding="utf-8"), p.name
    words, ratings, sds = [], [], []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        try:
            rating, sd = float(parts[1]), float(parts[2])
        except (IndexError, ValueError):
            raise ValueError(f"{name} line {i}: expected 'token<TAB>mean<TAB>sd<TAB>ratings', "
                             f"got {line[:80]!r}") from None
        words.append(parts[0])
        ratings.append(rating)
        sds.append(sd)
    return pd.DataFrame({"word": words, "rating": ratings, "sd": sds})


def _lexicon_entries(lexicon: Any) -> list[tuple[str, float]]:
    """(word, rating) pairs from None (VADER), a mapping or a DataFrame word/rating."""
    if lexicon is None:
        lexicon = vader_lexicon()
    if isinstance(lexicon, pd.DataFrame):
        check_columns(lexicon, ("word", "rating"), name="a lexicon DataFrame")
        pairs = list(zip(lexicon["word"], lexicon["rating"], strict=True))
    elif isinstance(lexicon, Mapping):
        pairs = list(lexicon.items())
    else:
        raise ValueError(f"lexicon must be None (VADER), a mapping word → rating or a DataFrame "
                         f"with 'word' and 'rating', got {type(lexicon).__name__}")
    if not pairs:
        raise ValueError("the lexicon is empty: need words with positive and negative ratings")
    out = []
    for word, rating in pairs:
        if not isinstance(word, str) or not word.strip():
            raise ValueError(f"lexicon words must be non-empty strings, got {word!r}")
        try:
            r = float(rating)
        except (TypeError, ValueError):
            raise ValueError(f"lexicon rating of {word!r} must be a number, got {rating!r}") \
                from None
        if not math.isfinite(r):
            raise ValueError(f"lexicon rating of {word!r} must be finite, got {rating!r}")
        out.append((word.strip(), r))
    return out


# --------------------------------------------------------------------------------------
# the classifier
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SentimentClassifier:
    """A word-level sentiment classifier on word vectors (see :func:`sentiment_classifier`).

    Attributes
    ----------
    model
        The fitted :class:`sklearn.linear_model.LogisticRegression` (class 1: positive
        sentiment).
    accuracy
        Held-out accuracy on the test words.
    accuracy_se
        Its binomial standard error √(a(1 − a)/n_test).
    baseline_accuracy
        Accuracy of always predicting the test set's majority class.
    train_accuracy
        Accuracy on the training words.
    n_train, n_test
        Number of training / test words.
    n_positive, n_negative
        Labelled words found in the embeddings, by class.
    n_lexicon
        Entries read from the lexicon.
    n_duplicates
        Entries merged into an earlier one with the same (case-folded) key: their ratings
        are averaged.
    n_neutral
        Words dropped because |rating| ≤ ``margin``.
    excluded
        Words kept out of training on request (e.g. the identity words).
    missing
        Labelled words not in the embeddings (dropped, and listed here).
    margin
        Ratings in [−margin, margin] are dropped as neutral.
    l2, test_size, random_seed
        The settings used (``random_seed`` as drawn when ``None`` was given).
    converged
        Whether L-BFGS stopped before its iteration limit.
    lowercase
        Whether words were looked up in lower case.
    words
        One row per labelled word in the embeddings: ``word``, ``rating``, ``label``
        (1 positive, 0 negative), ``split`` (``"train"``/``"test"``), ``score``
        (the model's P(positive)).
    """

    model: LogisticRegression = field(repr=False)
    accuracy: float
    accuracy_se: float
    baseline_accuracy: float
    train_accuracy: float
    n_train: int
    n_test: int
    n_positive: int
    n_negative: int
    n_lexicon: int
    n_duplicates: int
    n_neutral: int
    excluded: tuple[str, ...]
    missing: tuple[str, ...]
    margin: float
    l2: float
    test_size: float
    random_seed: int
    converged: bool
    lowercase: bool
    words: pd.DataFrame = field(repr=False)

    @property
    def n_missing(self) -> int:
        """Number of labelled lexicon words not in the embeddings."""
        return len(self.missing)

    def predict_proba(self, vectors: Any) -> np.ndarray:
        """P(positive) for each row of ``vectors`` (shape ``(n, dim)``)."""
        return _positive_proba(self.model, vectors)

    def summary(self) -> dict[str, Any]:
        """The figures of the fit as a flat dict (one row of a summary table)."""
        return {
            "accuracy": self.accuracy, "accuracy_se": self.accuracy_se,
            "baseline_accuracy": self.baseline_accuracy,
            "train_accuracy": self.train_accuracy, "n_train": self.n_train,
            "n_test": self.n_test, "n_positive": self.n_positive,
            "n_negative": self.n_negative, "n_lexicon": self.n_lexicon,
            "n_duplicates": self.n_duplicates, "n_neutral": self.n_neutral,
            "n_excluded": len(self.excluded), "n_missing": self.n_missing,
            "margin": self.margin, "l2": self.l2, "converged": self.converged,
        }


def _positive_proba(model: LogisticRegression, vectors: Any) -> np.ndarray:
    """P(class 1) of a fitted binary classifier for each row of ``vectors``."""
    x = np.asarray(vectors, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != model.n_features_in_:
        raise ValueError(f"vectors must have shape (n, {model.n_features_in_}), got {x.shape}")
    return model.predict_proba(x)[:, list(model.classes_).index(1)]


def _fit(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[LogisticRegression, bool]:
    """L2 logistic regression minimising mean log-loss + (l2/2)‖w‖² (intercept free).

    scikit-learn minimises C · Σ log-loss + ½‖w‖²; dividing by C·n shows that
    C = 1/(l2 · n) is the same optimum, and l2 = 0 is C = ∞ (no penalty).
    """
    c = math.inf if l2 == 0.0 else 1.0 / (l2 * x.shape[0])
    model = LogisticRegression(C=c, tol=_TOL, max_iter=_MAX_ITER)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(x, y)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    if not converged:
        warnings.warn(f"the sentiment classifier did not converge in {_MAX_ITER} L-BFGS "
                      "iterations", RuntimeWarning, stacklevel=3)
    return model, converged


def sentiment_classifier(
    embeddings: KeyedVectors,
    *,
    lexicon: Mapping[str, float] | pd.DataFrame | None = None,
    margin: float = 1.0,
    exclude: Iterable[str] = (),
    test_size: float = 0.2,
    l2: float = 1e-2,
    random_seed: int | None = None,
    lowercase: bool | None = None,
) -> SentimentClassifier:
    """Train a logistic-regression sentiment classifier on the word vectors of a lexicon.

    Words with rating > ``margin`` are positive (label 1), < −``margin`` negative (0); the
    others are dropped as neutral. Entries whose keys coincide (after lower-casing for an
    uncased vocabulary) are merged by averaging their ratings. Words not in the
    embeddings are dropped and listed in ``missing``. The words are split, stratified by
    label and seeded (:func:`sklearn.model_selection.train_test_split`), into train and
    test sets; features are the raw word vectors, the model scikit-learn's
    :class:`~sklearn.linear_model.LogisticRegression` (L-BFGS).

    Parameters
    ----------
    embeddings
        The word vectors.
    lexicon
        ``None`` for VADER (:func:`vader_lexicon`), a mapping word → rating, or a
        DataFrame with ``word`` and ``rating`` columns. Ratings are signed (> 0 positive).
    margin
        Ratings with |rating| ≤ ``margin`` are dropped (VADER's scale is −4 … 4; the
        default 1.0 keeps words rated at least "slightly" positive or negative on
        average and drops about a quarter of VADER's entries).
    exclude
        Words never used for training or testing (e.g. the identity words under study,
        so that the classifier cannot learn their sentiment from a label).
    test_size
        Share of the words held out, in (0, 1); scikit-learn rounds the test set up
        (``ceil(test_size · n)`` words) and shares it between the labels in proportion.
    l2
        Penalty λ ≥ 0 on the *mean* log-loss, ``mean log-loss + (λ/2)‖w‖²`` (intercept
        unpenalised), so it does not scale with the number of words; it is passed to
        scikit-learn as ``C = 1/(λ · n_train)`` (λ = 0: no penalty). Held-out accuracy on
        GloVe 6B 50d + VADER is flat (0.844–0.853 at seed 0) for λ from 0 to 0.1.
    random_seed
        Seed of the split, a non-negative integer; ``None`` (the default) draws one from
        the OS entropy. The seed used is the result's ``random_seed`` (shown in its repr):
        passing it back repeats the classifier exactly.
    lowercase
        Look words up in lower case (default: when the vocabulary is uncased, e.g. GloVe).

    Returns
    -------
    SentimentClassifier

    Raises
    ------
    ValueError
        Empty or malformed lexicon, a class with fewer than two words in the embeddings,
        bad ``margin``/``test_size``/``l2``/``random_seed``, or a split that leaves a
        label out of the training or the test set.
    ImportError
        ``lexicon=None`` and vaderSentiment is not installed.
    """
    if not isinstance(embeddings, KeyedVectors):
        raise ValueError(f"embeddings must be gensim KeyedVectors, got "
                         f"{type(embeddings).__name__}")
    m = check_number("margin", margin, low=0.0)
    ts = check_probability("test_size", test_size)
    lam = check_number("l2", l2, low=0.0)
    seed = check_seed(random_seed)
    entries = _lexicon_entries(lexicon)
    if lowercase is None:
        lowercase = is_uncased(embeddings)
    merged: dict[str, list[float]] = {}
    for word, rating in entries:
        merged.setdefault(word.lower() if lowercase else word, []).append(rating)
    n_dup = len(entries) - len(merged)
    drop = {w.lower() if lowercase else w for w in exclude}
    excluded = tuple(sorted(w for w in merged if w in drop))
    ratings = {w: float(np.mean(r)) for w, r in merged.items() if w not in drop}
    n_neutral = sum(abs(r) <= m for r in ratings.values())
    lists = {
        "positive": [w for w, r in ratings.items() if r > m],
        "negative": [w for w, r in ratings.items() if r < -m],
    }
    for label, words in lists.items():
        if not words:
            raise ValueError(f"the lexicon has no {label} words with |rating| > margin={m} "
                             f"({len(ratings)} usable entries); a classifier needs both classes")
    with warnings.catch_warnings():  # the missing words are returned, not printed
        warnings.simplefilter("ignore", UserWarning)
        kept, vectors, report = lookup_words(embeddings, lists, lowercase=False,
                                             context="(sentiment lexicon)")
    for label in ("positive", "negative"):
        if len(kept[label]) < 2:
            raise ValueError(f"only {len(kept[label])} {label} lexicon word(s) are in the "
                             "embeddings; need at least two per class to split and train")
    x = np.vstack([vectors["positive"], vectors["negative"]]).astype(np.float64)
    y = np.concatenate([np.ones(len(kept["positive"]), np.int8),
                        np.zeros(len(kept["negative"]), np.int8)])
    words = [*kept["positive"], *kept["negative"]]
    try:
        _, test_idx = train_test_split(np.arange(y.size), test_size=ts, stratify=y,
                                       random_state=seed)
    except ValueError as exc:
        raise ValueError(f"cannot split {y.size} words ({int(y.sum())} positive, "
                         f"{int(y.size - y.sum())} negative) with test_size={ts}: {exc}") \
            from None
    test = np.zeros(y.size, dtype=bool)
    test[test_idx] = True
    if len(set(y[~test].tolist())) < 2 or len(set(y[test].tolist())) < 2:
        raise ValueError(f"test_size={ts} leaves a label out of the training or the test set "
                         f"({y.size} words); choose a test_size that keeps both in each")
    model, converged = _fit(x[~test], y[~test], lam)
    score = _positive_proba(model, x)
    pred = (score > 0.5).astype(np.int8)
    acc = float(np.mean(pred[test] == y[test]))
    n_test = int(test.sum())
    table = pd.DataFrame({
        "word": words, "rating": [ratings[w] for w in words], "label": y,
        "split": np.where(test, "test", "train"), "score": score,
    })
    missing = tuple(w for label in ("positive", "negative") for w in report.missing[label])
    return SentimentClassifier(
        model=model, accuracy=acc, accuracy_se=math.sqrt(acc * (1 - acc) / n_test),
        baseline_accuracy=float(max(y[test].mean(), 1 - y[test].mean())),
        train_accuracy=float(np.mean(pred[~test] == y[~test])),
        n_train=int((~test).sum()), n_test=n_test,
        n_positive=len(kept["positive"]), n_negative=len(kept["negative"]),
        n_lexicon=len(entries), n_duplicates=n_dup, n_neutral=int(n_neutral),
        excluded=excluded, missing=missing, margin=m, l2=lam, test_size=ts,
        random_seed=seed, converged=converged, lowercase=bool(lowercase), words=table,
    )


# --------------------------------------------------------------------------------------
# identity sentences and their scores
# --------------------------------------------------------------------------------------


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
    """Every template filled with every protected word of every class of a study.

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
    check_columns(sentences, ("class", "word", "template", "sentence"), name="sentences",
                  hint="build it with identity_sentences()")
    if sentences.empty:
        raise ValueError("sentences is empty: nothing to score")
    if lowercase is None:
        lowercase = (model.lowercase if isinstance(model, SentimentClassifier)
                     else is_uncased(embeddings))
    stops = {w.lower() if lowercase else w for w in stop_words}
    index = embeddings.key_to_index
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
    if not any(word_ok.values()):
        raise ValueError(f"none of the {len(word_ok)} identity words is in the embeddings "
                         f"(missing: {report}); nothing can be scored")
    if report:
        warnings.warn(f"{report.n_missing} identity words are not in the embeddings; their "
                      f"sentences were dropped:\n{report}", UserWarning, stacklevel=2)
    out = sentences[sentences["word"].map(word_ok)].copy()
    means = np.empty((len(out), embeddings.vector_size))
    used_tokens, missing_template = [], set()
    for i, (word, template) in enumerate(zip(out["word"], out["template"], strict=True)):
        ident = _tokens(word, lowercase)
        rest = [t for t in _tokens(template.replace("{}", " "), lowercase) if t not in stops]
        missing_template.update(t for t in rest if t not in index)
        toks = [*(t for t in rest if t in index), *ident]
        rows = [index[t] for t in toks]
        means[i] = np.asarray(embeddings.vectors[rows], dtype=np.float64).mean(axis=0)
        used_tokens.append(" ".join(toks))
    out["tokens"] = used_tokens
    out["n_tokens"] = [len(t.split()) for t in used_tokens]
    out["score"] = _positive_proba(fit, means)
    out["y_pred"] = (out["score"] > 0.5).astype(np.int8)
    out = out.reset_index(drop=True)
    out.attrs["missing_identity_words"] = report
    out.attrs["missing_template_tokens"] = tuple(sorted(missing_template))
    return out


# --------------------------------------------------------------------------------------
# group fairness of the scored sentences
# --------------------------------------------------------------------------------------


def _contrasts(
    classes: Sequence[str], comparisons: str
) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """(x, y) pairs whose positive-rate gap PR_x − PR_y is reported, and the matching
    ``parity_comparisons`` mode. Two classes: the second minus the first."""
    if len(classes) == 2:
        return [(classes[1], classes[0])], ("pairwise",)
    if comparisons == "rest":
        return [(c, "rest") for c in classes], ("rest",)
    return [(classes[j], classes[i]) for i in range(len(classes))
            for j in range(i + 1, len(classes))], ("pairwise",)


def _fairness_rows(
    scored: pd.DataFrame,
    classes: Sequence[str],
    *,
    comparisons: str,
    ci_prob: float,
    rope: float,
) -> pd.DataFrame:
    """BBU demographic-parity rows and Bayesian rate-difference rows for one embedding."""
    label = scored["class"].to_numpy(dtype=object)
    yhat = scored["y_pred"].to_numpy()
    pairs, mode = _contrasts(classes, comparisons)
    bbu_rows = []
    for x, y in pairs:
        keep = np.ones(len(label), bool) if y == "rest" else np.isin(label, [x, y])
        groups = np.where(label[keep] == x, x, y)
        # protected = the subtracted group: the estimate PR_B − PR_A is PR_x − PR_y
        row = demographic_parity(yhat[keep], groups, protected=y, ci_prob=ci_prob)
        row["group"] = f"{x} − {y}"
        bbu_rows.append(row)
    successes = [int(yhat[label == c].sum()) for c in classes]
    totals = [int((label == c).sum()) for c in classes]
    bayes = parity_comparisons(successes, totals, labels=classes, ci_prob=ci_prob,
                               rope=rope, comparisons=mode)
    table = pd.concat([*bbu_rows, bayes], ignore_index=True)
    return validate_interval_table(table)


@dataclass(frozen=True)
class DownstreamResult:
    """Result of :func:`downstream_fairness`.

    Attributes
    ----------
    study
        Name of the study.
    table
        Interval table with an ``embedding`` column. Per embedding and contrast
        ``"X − Y"`` (positive-prediction rate of X minus that of Y; Y is ``"rest"`` for
        each class against the other classes pooled): a ``demographic_parity`` row
        (BBU, ``ci_kind="bernstein"``; extra columns ``n``, ``gamma``, ``sigma2``,
        ``half_width``, ``decision`` …) and a ``difference_vs_rest`` or
        ``pairwise_difference`` row (Bayesian posterior of the rate difference,
        ``ci_kind="hdi"``; ``prob_outside`` = P(|d| > ``rope``), ``hdi_rope``,
        ``x1``/``n1`` (Y) and ``x2``/``n2`` (X) …). Both estimate PR_X − PR_Y (in the
        BBU rows Y is the "protected" group of :func:`~embias.classifier.demographic_parity`,
        so ``n_protected`` counts Y's sentences). Every row also names its ``study``.
    rates
        Per embedding and class: ``n`` sentences, ``n_positive``, ``positive_rate``,
        ``mean_score``, ``sd_score``, ``n_words`` (identity words scored).
    scores
        Every scored sentence (:func:`score_sentences` output) with an ``embedding``
        column.
    classifiers
        Embedding label → the :class:`SentimentClassifier` trained on it.
    missing_identity
        Embedding label → :class:`~embias.embeddings.MissingWords` of the identity words.
    settings
        The arguments that shaped the result (``ci_prob``, ``rope``, ``random_seed``,
        ``comparisons`` …).
    """

    study: str
    table: pd.DataFrame = field(repr=False)
    rates: pd.DataFrame = field(repr=False)
    scores: pd.DataFrame = field(repr=False)
    classifiers: Mapping[str, SentimentClassifier] = field(repr=False)
    missing_identity: Mapping[str, MissingWords] = field(repr=False)
    settings: Mapping[str, Any] = field(default_factory=dict)

    def to_interval_table(self) -> pd.DataFrame:
        """The study's interval table (BBU and Bayesian parity rows): :attr:`table`."""
        return self.table

    def classifier_summary(self) -> pd.DataFrame:
        """One row per embedding: held-out accuracy, baseline, word counts (see
        :meth:`SentimentClassifier.summary`)."""
        return pd.DataFrame([{"embedding": k, **c.summary()}
                             for k, c in self.classifiers.items()])

    def plot(self, **kwargs: Any) -> Figure:
        """Forest plot of :attr:`table` (see :func:`plot_downstream`)."""
        return plot_downstream(self, **kwargs)


def _embedding_map(embeddings: Any) -> dict[str, KeyedVectors]:
    if isinstance(embeddings, KeyedVectors):
        return {"original": embeddings}
    if not isinstance(embeddings, Mapping) or not embeddings:
        raise ValueError("embeddings must be KeyedVectors or a non-empty mapping label → "
                         f"KeyedVectors, got {type(embeddings).__name__} {embeddings!r:.60}")
    for key, kv in embeddings.items():
        if not isinstance(kv, KeyedVectors):
            raise ValueError(f"embeddings[{key!r}] must be gensim KeyedVectors, got "
                             f"{type(kv).__name__}")
    return {str(k): v for k, v in embeddings.items()}


def downstream_fairness(
    embeddings: Mapping[str, KeyedVectors] | KeyedVectors,
    study: Study | str = "religion",
    *,
    templates: Sequence[str] = DEFAULT_TEMPLATES,
    lexicon: Mapping[str, float] | pd.DataFrame | None = None,
    margin: float = 1.0,
    l2: float = 1e-2,
    test_size: float = 0.2,
    random_seed: int | None = None,
    stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    exclude_identity: bool = True,
    comparisons: Literal["rest", "pairwise"] = "rest",
    ci_prob: float = DEFAULT_CI_PROB,
    rope: float = 0.1,
) -> DownstreamResult:
    """Does embedding bias reach a classifier's decisions? Group fairness of a sentiment
    classifier on identity sentences, for one or several embeddings.

    For every embedding (e.g. ``{"original": kv, "hard": hard_debias(kv, study).embeddings}``)
    a fresh classifier is trained on it (:func:`sentiment_classifier`, same lexicon, split
    and seed), the study's identity sentences are scored (:func:`score_sentences`), and
    the classes' positive-prediction rates are compared by BBU demographic parity and by
    the Bayesian posterior of the rate difference.

    Parameters
    ----------
    embeddings
        One ``KeyedVectors`` (labelled ``"original"``) or a mapping label → vectors.
    study
        Study or shipped study name; its protected classes are the groups.
    templates
        Sentence templates (:func:`identity_sentences`).
    lexicon, margin, l2, test_size, random_seed
        Classifier settings (:func:`sentiment_classifier`); ``random_seed=None`` (the
        default) draws one seed from the OS entropy, shared by every embedding. The seed
        used is in ``settings["random_seed"]`` (shown in the result's repr) and in
        ``table.attrs["random_seed"]``: passing it back repeats the result exactly.
    stop_words
        Template tokens left out of the sentence vectors (:func:`score_sentences`).
    exclude_identity
        Keep the study's protected words out of the classifier's training data (they
        are its test inputs, not sentiment examples).
    comparisons
        With three or more classes: ``"rest"`` (default; each class against the others
        pooled) or ``"pairwise"`` (every pair). Two classes give one contrast, the
        second class minus the first.
    ci_prob
        Probability of the BBU intervals (their confidence level) and of the HDIs.
    rope
        Half-width T of the region of practical equivalence [−T, T] of the Bayesian rows
        (the fairness threshold): ``prob_outside`` = P(|d| > T) and the HDI+ROPE decision
        ``hdi_rope``. In [0, 1).

    Returns
    -------
    DownstreamResult

    Raises
    ------
    ValueError
        Unknown study, bad embeddings, lexicon or templates, a class named ``"rest"``
        with ``comparisons="rest"``, an unknown ``comparisons``, or embeddings missing
        every identity word (the message names them).
    """
    st = load_study(study)
    kvs = _embedding_map(embeddings)
    check_choice("comparisons", comparisons, ("rest", "pairwise"))
    classes = list(st.protected)
    if comparisons == "rest" and len(classes) > 2 and "rest" in classes:
        raise ValueError(f"study {st.name!r} has a class named 'rest'; use "
                         "comparisons='pairwise'")
    p = check_probability("ci_prob", ci_prob)
    t = check_number("rope", rope, low=0.0, high=1.0, high_open=True)
    seed = check_seed(random_seed)
    sentences = identity_sentences(st, templates=templates)
    stops = tuple(sorted(stop_words))
    identity = [w for ws in st.protected.values() for w in ws] if exclude_identity else []
    tables, rates, scored_all, models, missing = [], [], [], {}, {}
    for name, kv in kvs.items():
        clf = sentiment_classifier(kv, lexicon=lexicon, margin=margin, exclude=identity,
                                   test_size=test_size, l2=l2, random_seed=seed)
        try:
            scored = score_sentences(clf, kv, sentences, stop_words=stops)
        except ValueError as exc:
            raise ValueError(f"embedding {name!r}: {exc}") from exc
        absent = [c for c in classes if not (scored["class"] == c).any()]
        if absent:
            raise ValueError(f"embedding {name!r}: classes {absent} of study {st.name!r} have "
                             f"no identity word in the embeddings "
                             f"({scored.attrs['missing_identity_words']})")
        part = _fairness_rows(scored, classes, comparisons=comparisons, ci_prob=p, rope=t)
        part.insert(2, "embedding", name)  # right after estimand and group
        part["study"] = st.name
        tables.append(part)
        for c in classes:
            rows = scored[scored["class"] == c]
            rates.append({
                "embedding": name, "class": c, "n": len(rows),
                "n_positive": int(rows["y_pred"].sum()),
                "positive_rate": float(rows["y_pred"].mean()),
                "mean_score": float(rows["score"].mean()),
                "sd_score": float(rows["score"].std(ddof=1)) if len(rows) > 1 else np.nan,
                "n_words": int(rows["word"].nunique()),
            })
        missing[name] = scored.attrs["missing_identity_words"]
        scored = scored.copy()
        scored.insert(0, "embedding", name)
        scored_all.append(scored)
        models[name] = clf
    scores = pd.concat(scored_all, ignore_index=True)
    scores.attrs = {}
    table = validate_interval_table(pd.concat(tables, ignore_index=True))
    table.attrs["random_seed"] = seed
    return DownstreamResult(
        study=st.name, table=table,
        rates=pd.DataFrame(rates), scores=scores, classifiers=models,
        missing_identity=missing,
        settings={"templates": tuple(templates), "margin": margin, "l2": l2,
                  "test_size": test_size, "random_seed": seed,
                  "stop_words": stops, "exclude_identity": exclude_identity,
                  "comparisons": comparisons, "ci_prob": p, "rope": t},
    )


# --------------------------------------------------------------------------------------
# plots (they take results; nothing is recomputed)
# --------------------------------------------------------------------------------------


def plot_downstream(
    result: DownstreamResult,
    *,
    title: str | None = None,
    ax: Any = None,
) -> Figure:
    """Forest plot of a :func:`downstream_fairness` table, embeddings side by side.

    One row per (estimand, contrast): the BBU demographic-parity interval and the
    Bayesian HDI of the same positive-rate gap, one colour per embedding, with a
    reference line at 0. Kind and probability of the intervals come from the table.

    Parameters
    ----------
    result
        A :class:`DownstreamResult`.
    title
        Figure title (default: the study and what is compared).
    ax
        Matplotlib axes to draw on (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    if not isinstance(result, DownstreamResult):
        raise ValueError(f"result must be a DownstreamResult, got {type(result).__name__}")
    try:  # the forest plot is moving from embias.report to embias.plots (issue 10)
        from embias.plots import plot_forest
    except ModuleNotFoundError:  # pragma: no cover - until embias.plots exists
        from embias.report import plot_forest
    head = title if title is not None else (
        f"{result.study}: positive-rate gap of the sentiment classifier")
    return plot_forest(result.table, by="embedding", reference=0.0, title=head, ax=ax)


def plot_sentence_scores(
    result: DownstreamResult,
    *,
    random_seed: int = 0,
) -> Figure:
    """Strip plot of the sentence scores by class, one panel per embedding.

    Each dot is a sentence's P(positive); the dashed line is the 0.5 decision threshold
    and the bar the class mean.

    Parameters
    ----------
    result
        A :class:`DownstreamResult`.
    random_seed
        Seed of the horizontal jitter of the dots. Fixed (0) by default, unlike the
        functions that compute results: the jitter only draws a result that is already
        computed, so the same result always gives the same figure.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    if not isinstance(result, DownstreamResult):
        raise ValueError(f"result must be a DownstreamResult, got {type(result).__name__}")
    labels = list(dict.fromkeys(result.scores["embedding"]))
    fig, axes = plt.subplots(1, len(labels), figsize=(3.2 * len(labels) + 1, 3.4),
                             sharey=True, squeeze=False)
    rng = np.random.default_rng(check_seed(random_seed))
    for ax, label in zip(axes[0], labels, strict=True):
        part = result.scores[result.scores["embedding"] == label]
        classes = list(dict.fromkeys(part["class"]))
        for k, c in enumerate(classes):
            s = part.loc[part["class"] == c, "score"].to_numpy()
            ax.plot(k + rng.uniform(-0.2, 0.2, s.size), s, "o", ms=3, alpha=0.5)
            ax.hlines(s.mean(), k - 0.3, k + 0.3, color="black", lw=2)
        ax.axhline(0.5, color="grey", ls="--", lw=0.8)
        ax.set_xticks(range(len(classes)))
        ax.set_xticklabels(classes, rotation=20)
        ax.set_title(label, fontsize=10)
    axes[0][0].set_ylabel("P(positive)")
    fig.suptitle(f"{result.study}: sentence scores by class", fontsize=10)
    fig.tight_layout()
    return fig
