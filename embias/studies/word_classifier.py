"""The classifier of the downstream study (:mod:`embias.studies.sentiment`).

An L2 logistic regression (scikit-learn) that learns positive vs negative sentiment from
the word vectors of a lexicon (:func:`~embias.studies.sentiment_classifier`,
:class:`~embias.studies.SentimentClassifier`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from embias._validation import check_number, check_probability, check_seed
from embias.embeddings import is_uncased, lookup_words
from embias.studies.lexicon import lexicon_entries

__all__ = ["SentimentClassifier", "positive_proba", "sentiment_classifier"]

#: Stopping tolerance and iteration limit of the L-BFGS solver. Tighter than
#: scikit-learn's default (1e-4) so that the fit is the optimum of the penalised loss to
#: far below the differences anything downstream reports; GloVe 6B 50d + VADER
#: converges in well under the limit.
_TOL = 1e-8
_MAX_ITER = 2000


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
        """Return P(positive) for each row of ``vectors`` (shape ``(n, dim)``)."""
        return positive_proba(self.model, vectors)

    def summary(self) -> dict[str, Any]:
        """Return the figures of the fit as a flat dict (one row of a summary table)."""
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


def positive_proba(model: LogisticRegression, vectors: Any) -> np.ndarray:
    """Return P(class 1) of a fitted binary classifier for each row of ``vectors``.

    Parameters
    ----------
    model
        A fitted scikit-learn classifier with classes 0 and 1.
    vectors
        Shape ``(n, n_features)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``.

    Raises
    ------
    ValueError
        ``vectors`` whose width is not the classifier's.

    Examples
    --------
    A classifier fitted on data symmetric about 0 gives P = 1/2 at 0:

    >>> from sklearn.linear_model import LogisticRegression
    >>> from embias.studies.word_classifier import positive_proba
    >>> model = LogisticRegression().fit([[-2.0], [-1.0], [1.0], [2.0]], [0, 0, 1, 1])
    >>> positive_proba(model, [[0.0]]).round(3)
    array([0.5])
    >>> positive_proba(model, [[0.0, 1.0]])
    Traceback (most recent call last):
    ...
    ValueError: vectors must have shape (n, 1), got (1, 2)
    """
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

    Examples
    --------
    Four positive and four negative words that a line separates ("ok" is dropped as
    neutral): the held-out accuracy on the four test words is 1:

    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["good", "great", "nice", "happy", "bad", "awful", "sad", "nasty"],
    ...                [[1, 0.2], [1, -0.1], [0.8, 0.3], [0.9, 0], [-1, 0.1], [-0.9, -0.2],
    ...                 [-0.8, 0.2], [-1, 0]])
    >>> lexicon = {"good": 3.1, "great": 3.1, "nice": 1.8, "happy": 2.7, "bad": -2.5,
    ...            "awful": -2.0, "sad": -2.1, "nasty": -2.6, "ok": 0.9}
    >>> from embias.studies import sentiment_classifier
    >>> clf = sentiment_classifier(kv, lexicon=lexicon, test_size=0.5, random_seed=0)
    >>> clf.accuracy, clf.n_train, clf.n_test, clf.n_neutral
    (1.0, 4, 4, 1)
    >>> clf.predict_proba([[1, 0], [-1, 0]]).round(2)
    array([0.97, 0.03])
    """
    if not isinstance(embeddings, KeyedVectors):
        raise ValueError(f"embeddings must be gensim KeyedVectors, got "
                         f"{type(embeddings).__name__}")
    m = check_number("margin", margin, low=0.0)
    ts = check_probability("test_size", test_size)
    lam = check_number("l2", l2, low=0.0)
    seed = check_seed(random_seed)
    entries = lexicon_entries(lexicon)
    if lowercase is None:
        lowercase = is_uncased(embeddings)
    ratings, n_dup, excluded = _merged_ratings(entries, exclude, lowercase)
    n_neutral = sum(abs(r) <= m for r in ratings.values())
    x, y, words, missing = _labelled_vectors(embeddings, ratings, m)
    test = _test_words(y, ts, seed)
    model, converged = _fit(x[~test], y[~test], lam)
    score = positive_proba(model, x)
    pred = (score > 0.5).astype(np.int8)
    acc = float(np.mean(pred[test] == y[test]))
    n_test = int(test.sum())
    table = pd.DataFrame({
        "word": words, "rating": [ratings[w] for w in words], "label": y,
        "split": np.where(test, "test", "train"), "score": score,
    })
    return SentimentClassifier(
        model=model, accuracy=acc, accuracy_se=math.sqrt(acc * (1 - acc) / n_test),
        baseline_accuracy=float(max(y[test].mean(), 1 - y[test].mean())),
        train_accuracy=float(np.mean(pred[~test] == y[~test])),
        n_train=int((~test).sum()), n_test=n_test,
        n_positive=int(np.sum(y == 1)), n_negative=int(np.sum(y == 0)),
        n_lexicon=len(entries), n_duplicates=n_dup, n_neutral=int(n_neutral),
        excluded=excluded, missing=missing, margin=m, l2=lam, test_size=ts,
        random_seed=seed, converged=converged, lowercase=bool(lowercase), words=table,
    )


def _labelled_vectors(embeddings: KeyedVectors, ratings: Mapping[str, float], margin: float
                      ) -> tuple[np.ndarray, np.ndarray, list[str], tuple[str, ...]]:
    """Return the vectors, labels and words of the labelled lexicon words, and the missing.

    Words rated above ``margin`` are positive (label 1, first), below −``margin``
    negative (0); words not in the embeddings are dropped and returned. ValueError when a
    label has no words, or fewer than two in the embeddings.
    """
    lists = {
        "positive": [w for w, r in ratings.items() if r > margin],
        "negative": [w for w, r in ratings.items() if r < -margin],
    }
    for label, words in lists.items():
        if not words:
            raise ValueError(f"the lexicon has no {label} words with |rating| > "
                             f"margin={margin} ({len(ratings)} usable entries); a classifier "
                             "needs both classes")
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
    missing = tuple(w for label in ("positive", "negative") for w in report.missing[label])
    return x, y, [*kept["positive"], *kept["negative"]], missing


def _merged_ratings(entries: Sequence[tuple[str, float]], exclude: Iterable[str],
                    lowercase: bool) -> tuple[dict[str, float], int, tuple[str, ...]]:
    """Return the mean rating of every key not excluded, the merged count and the excluded.

    Keys are case-folded when ``lowercase``; the count is that of entries merged into an
    earlier one.
    """
    merged: dict[str, list[float]] = {}
    for word, rating in entries:
        merged.setdefault(word.lower() if lowercase else word, []).append(rating)
    drop = {w.lower() if lowercase else w for w in exclude}
    excluded = tuple(sorted(w for w in merged if w in drop))
    ratings = {w: float(np.mean(r)) for w, r in merged.items() if w not in drop}
    return ratings, len(entries) - len(merged), excluded


def _test_words(y: np.ndarray, test_size: float, seed: int) -> np.ndarray:
    """Return the seeded split stratified by label, as a mask of the test words.

    ValueError when a label would be missing from the training or the test set.
    """
    try:
        _, test_idx = train_test_split(np.arange(y.size), test_size=test_size, stratify=y,
                                       random_state=seed)
    except ValueError as exc:
        raise ValueError(f"cannot split {y.size} words ({int(y.sum())} positive, "
                         f"{int(y.size - y.sum())} negative) with test_size={test_size}: "
                         f"{exc}") from None
    test = np.zeros(y.size, dtype=bool)
    test[test_idx] = True
    if len(set(y[~test].tolist())) < 2 or len(set(y[test].tolist())) < 2:
        raise ValueError(f"test_size={test_size} leaves a label out of the training or the test "
                         f"set ({y.size} words); choose a test_size that keeps both in each")
    return test
