"""Does embedding bias reach decisions? A downstream sentiment study.

The pipeline ties the embedding half of embias to the classifier half:

1. **Classifier.** An L2-regularised logistic regression (:func:`fit_logistic`, L-BFGS on
   the exact log-loss and its gradient) learns positive vs negative sentiment from the
   word vectors of the VADER lexicon (:func:`vader_lexicon`): words with a mean human
   rating above ``+margin`` are positive, below ``−margin`` negative, the rest are
   dropped. Words missing from the embeddings are counted and listed, never dropped
   silently. A seeded, stratified train/test split gives the held-out accuracy.
2. **Sentences.** Neutral templates (``"I met a {} yesterday"``) are filled with every
   protected word of every class of a study (:func:`identity_sentences`); a sentence's
   score is the classifier's P(positive) of the mean vector of its in-vocabulary
   content tokens (stop words are left out, see :data:`DEFAULT_STOP_WORDS`), and its
   prediction is ŷ = 1 when that probability exceeds 0.5 (:func:`score_sentences`).
3. **Fairness.** The positive-prediction rates of the classes are compared with the
   Bernstein-bounded demographic-parity interval (:func:`~embias.classifier.bbu.demographic_parity`)
   and the Bayesian posterior of the rate difference
   (:func:`~embias.classifier.parity.parity_comparisons`), for every embedding given, in
   one interval table with an ``embedding`` column (:func:`downstream_fairness`).

Caveat on the intervals: both methods treat the sentences as independent draws, but the
sentences of a class share a handful of identity words and the classes share the
templates, so the intervals describe this template × word design, not a population of
identity terms.
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
from scipy import optimize, special

from embias.classifier.bbu import _check_open_unit, demographic_parity
from embias.classifier.parity import _check_threshold, parity_comparisons
from embias.embeddings import MissingWords, is_uncased, lookup_words
from embias.report import combine_interval_tables, plot_forest, validate_interval_table
from embias.wordlists import Study, load_study

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "DEFAULT_STOP_WORDS",
    "DEFAULT_TEMPLATES",
    "DownstreamResult",
    "LogisticFit",
    "SentimentClassifier",
    "downstream_fairness",
    "fit_logistic",
    "identity_sentences",
    "logistic_objective",
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


# --------------------------------------------------------------------------------------
# logistic regression
# --------------------------------------------------------------------------------------


def logistic_objective(
    params: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    *,
    l2: float,
    fit_intercept: bool = True,
) -> tuple[float, np.ndarray]:
    """Penalised mean log-loss of a logistic regression and its exact gradient.

    With ``params = (w, b)`` (``b`` only when ``fit_intercept``) and ``z = X w + b``,

        L(w, b) = (1/n) Σᵢ [log(1 + e^{zᵢ}) − yᵢ zᵢ] + (l2/2) ‖w‖²,
        ∇_w L = Xᵀ(σ(z) − y)/n + l2 w,     ∂L/∂b = mean(σ(z) − y).

    The intercept is not penalised. ``log(1 + e^z)`` is evaluated as ``logaddexp(0, z)``,
    so large |z| neither overflows nor loses the loss.

    Parameters
    ----------
    params
        Weights, followed by the intercept when ``fit_intercept``.
    X
        Features, shape ``(n, d)``.
    y
        Labels in {0, 1}, shape ``(n,)``.
    l2
        Penalty weight λ ≥ 0.
    fit_intercept
        Whether the last entry of ``params`` is an intercept.

    Returns
    -------
    (float, numpy.ndarray)
        The objective value and its gradient (same shape as ``params``).
    """
    d = X.shape[1]
    w = params[:d]
    b = params[d] if fit_intercept else 0.0
    z = X @ w + b
    n = X.shape[0]
    value = float(np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * (w @ w))
    resid = special.expit(z) - y
    grad_w = X.T @ resid / n + l2 * w
    grad = np.concatenate([grad_w, [resid.mean()]]) if fit_intercept else grad_w
    return value, grad


@dataclass(frozen=True)
class LogisticFit:
    """A fitted L2-regularised logistic regression (see :func:`fit_logistic`).

    Attributes
    ----------
    coef
        Weights ``w``, shape ``(d,)`` (read-only).
    intercept
        ``b`` (0 when fitted without an intercept).
    l2
        The penalty weight λ.
    objective
        Value of the penalised mean log-loss at the solution.
    grad_norm
        Largest absolute gradient entry at the solution.
    converged
        Whether L-BFGS reported convergence.
    n_iter
        L-BFGS iterations.
    message
        The optimiser's message.
    """

    coef: np.ndarray = field(repr=False)
    intercept: float
    l2: float
    objective: float
    grad_norm: float
    converged: bool
    n_iter: int
    message: str

    def decision_function(self, X: Any) -> np.ndarray:
        """Logits ``X w + b``."""
        x = np.asarray(X, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.coef.size:
            raise ValueError(f"X must have shape (n, {self.coef.size}), got {x.shape}")
        return x @ self.coef + self.intercept

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(y = 1 | x) = σ(x·w + b) for each row of ``X``."""
        return special.expit(self.decision_function(X))

    def predict(self, X: Any) -> np.ndarray:
        """ŷ = 1 where P(y = 1 | x) > 0.5 (i.e. the logit is positive), else 0."""
        return (self.decision_function(X) > 0.0).astype(np.int8)


def fit_logistic(
    X: Any,
    y: Any,
    *,
    l2: float = 1e-3,
    fit_intercept: bool = True,
    tol: float = 1e-10,
    max_iter: int = 2000,
) -> LogisticFit:
    """Fit an L2-regularised logistic regression by L-BFGS on the exact objective.

    Minimises :func:`logistic_objective`: the mean log-loss plus ``(l2/2)‖w‖²`` (intercept
    unpenalised), starting from zero. With ``l2 = 0`` and separable data the minimum does
    not exist (the weights grow without bound); use ``l2 > 0`` then.

    Parameters
    ----------
    X
        Features, shape ``(n, d)``, finite.
    y
        Labels, 0/1 or booleans, shape ``(n,)``; both classes must occur.
    l2
        Penalty weight λ ≥ 0 (on the *mean* loss, so it does not scale with ``n``).
    fit_intercept
        Fit an (unpenalised) intercept.
    tol
        L-BFGS tolerance: stop when the largest gradient entry is below ``tol`` or the
        objective's relative decrease below ``1e-3 · tol``.
    max_iter
        Iteration limit; hitting it warns (``RuntimeWarning``) and sets ``converged``
        to False.

    Returns
    -------
    LogisticFit

    Raises
    ------
    ValueError
        ``X`` not 2-D or not finite, ``y`` not 0/1, lengths differ, only one class, or
        ``l2`` negative / not finite.
    """
    x = np.asarray(X, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"X must be two-dimensional (n, d), got shape {x.shape}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"X is empty (shape {x.shape}); need at least one row and column")
    if not np.all(np.isfinite(x)):
        row = int(np.flatnonzero(~np.isfinite(x).all(axis=1))[0])
        raise ValueError(f"X must be finite; row {row} has NaN or infinite values")
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.size != x.shape[0]:
        raise ValueError(f"y must be one-dimensional with {x.shape[0]} labels (one per row of "
                         f"X), got shape {yy.shape}")
    values = set(np.unique(yy).tolist())
    if not values <= {0, 1}:
        raise ValueError(f"y must hold 0/1 labels (or booleans), got values "
                         f"{sorted(map(str, values))[:10]}")
    if len(values) < 2:
        raise ValueError(f"y holds only the label {values.pop()!r}; logistic regression needs "
                         "both classes 0 and 1")
    try:
        lam = float(l2)
    except (TypeError, ValueError):
        raise ValueError(f"l2 must be a number ≥ 0, got {l2!r}") from None
    if not (lam >= 0.0 and math.isfinite(lam)):
        raise ValueError(f"l2 must be a finite number ≥ 0, got {l2!r}")
    if not (isinstance(max_iter, int | np.integer) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    yf = yy.astype(np.float64)
    start = np.zeros(x.shape[1] + int(bool(fit_intercept)))
    res = optimize.minimize(
        lambda p: logistic_objective(p, x, yf, l2=lam, fit_intercept=fit_intercept),
        start, jac=True, method="L-BFGS-B",
        options={"gtol": tol, "ftol": 1e-3 * tol, "maxiter": max_iter, "maxcor": 20},
    )
    value, grad = logistic_objective(res.x, x, yf, l2=lam, fit_intercept=fit_intercept)
    converged = bool(res.success)
    if not converged:
        warnings.warn(f"fit_logistic did not converge in {res.nit} iterations "
                      f"({res.message}); max |gradient| = {np.abs(grad).max():.3g}",
                      RuntimeWarning, stacklevel=2)
    coef = np.array(res.x[: x.shape[1]], dtype=np.float64)
    coef.setflags(write=False)
    return LogisticFit(
        coef=coef, intercept=float(res.x[-1]) if fit_intercept else 0.0, l2=lam,
        objective=value, grad_norm=float(np.abs(grad).max()), converged=converged,
        n_iter=int(res.nit), message=str(res.message),
    )


# --------------------------------------------------------------------------------------
# the sentiment lexicon and the classifier
# --------------------------------------------------------------------------------------


def _vader_path() -> Path:
    try:
        root = resources.files("vaderSentiment")
    except ModuleNotFoundError:
        raise ValueError(
            "the VADER lexicon needs the vaderSentiment package (pip install vadersentiment), "
            "which ships vader_lexicon.txt; or pass lexicon= a mapping word → rating"
        ) from None
    path = Path(str(root / "vader_lexicon.txt"))
    if not path.is_file():
        raise ValueError(f"vaderSentiment is installed but {str(path)!r} is missing; reinstall "
                         "vadersentiment or pass lexicon= a mapping word → rating")
    return path


def vader_lexicon(path: str | Path | None = None) -> pd.DataFrame:
    """The VADER sentiment lexicon (Hutto & Gilbert 2014) as a table.

    Each line of ``vader_lexicon.txt`` holds a token, its mean rating on −4 … +4 by ten
    human raters, their standard deviation and the raw ratings, tab-separated.

    Parameters
    ----------
    path
        A lexicon file in that format; default the ``vader_lexicon.txt`` shipped by the
        installed ``vaderSentiment`` package (MIT licence).

    Returns
    -------
    pandas.DataFrame
        One row per line, in file order: ``word`` (as written, case kept), ``rating``
        (mean), ``sd``. Tokens listed twice stay twice (VADER itself keeps the last).

    Raises
    ------
    ValueError
        vaderSentiment is not installed or lacks the file, or a line is malformed (the
        message names the line).
    """
    p = _vader_path() if path is None else Path(path)
    if not p.is_file():
        raise ValueError(f"lexicon file not found: {str(p)!r}")
    words, ratings, sds = [], [], []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split("\t")
        try:
            rating, sd = float(parts[1]), float(parts[2])
        except (IndexError, ValueError):
            raise ValueError(f"{p.name} line {i}: expected 'token<TAB>mean<TAB>sd<TAB>ratings', "
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
        absent = sorted({"word", "rating"} - set(lexicon.columns))
        if absent:
            raise ValueError(f"a lexicon DataFrame needs columns 'word' and 'rating'; missing "
                             f"{absent} (it has {list(lexicon.columns)})")
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


@dataclass(frozen=True)
class SentimentClassifier:
    """A word-level sentiment classifier on word vectors (see :func:`sentiment_classifier`).

    Attributes
    ----------
    model
        The fitted :class:`LogisticFit` (ŷ = 1: positive sentiment).
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
    l2, test_size, random_state
        The settings used.
    lowercase
        Whether words were looked up in lower case.
    words
        One row per labelled word in the embeddings: ``word``, ``rating``, ``label``
        (1 positive, 0 negative), ``split`` (``"train"``/``"test"``), ``score``
        (the model's P(positive)).
    """

    model: LogisticFit
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
    random_state: int
    lowercase: bool
    words: pd.DataFrame = field(repr=False)

    @property
    def n_missing(self) -> int:
        """Number of labelled lexicon words not in the embeddings."""
        return len(self.missing)

    def predict_proba(self, vectors: Any) -> np.ndarray:
        """P(positive) for each row of ``vectors`` (shape ``(n, dim)``)."""
        return self.model.predict_proba(vectors)

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
            "margin": self.margin, "l2": self.l2, "converged": self.model.converged,
        }


def _stratified_split(y: np.ndarray, test_size: float, rng: np.random.Generator) -> np.ndarray:
    """Boolean test mask holding round(test_size · n_c) words of each class c (≥ 1, < n_c)."""
    test = np.zeros(y.size, dtype=bool)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        k = min(max(round(test_size * idx.size), 1), idx.size - 1)
        test[rng.permutation(idx)[:k]] = True
    return test


def sentiment_classifier(
    embeddings: KeyedVectors,
    *,
    lexicon: Mapping[str, float] | pd.DataFrame | None = None,
    margin: float = 1.0,
    exclude: Iterable[str] = (),
    test_size: float = 0.2,
    l2: float = 1e-2,
    random_state: int = 0,
    lowercase: bool | None = None,
) -> SentimentClassifier:
    """Train a logistic-regression sentiment classifier on the word vectors of a lexicon.

    Words with rating > ``margin`` are positive (label 1), < −``margin`` negative (0); the
    others are dropped as neutral. Entries whose keys coincide (after lower-casing for an
    uncased vocabulary) are merged by averaging their ratings. Words not in the
    embeddings are dropped and listed in ``missing``. The words are split, stratified by
    label and seeded, into train and test sets; features are the raw word vectors.

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
        Share of each class held out, in (0, 1).
    l2
        Penalty λ of :func:`fit_logistic` (on the mean log-loss). Held-out accuracy on
        GloVe 6B 50d + VADER is flat (0.852–0.862) for λ from 0 to 0.1; the default 0.01
        lies in that range and converges in about 30 L-BFGS iterations.
    random_state
        Seed of the split.
    lowercase
        Look words up in lower case (default: when the vocabulary is uncased, e.g. GloVe).

    Returns
    -------
    SentimentClassifier

    Raises
    ------
    ValueError
        Empty or malformed lexicon, a class with fewer than two words in the embeddings,
        bad ``margin``/``test_size``.
    """
    if not isinstance(embeddings, KeyedVectors):
        raise ValueError(f"embeddings must be gensim KeyedVectors, got "
                         f"{type(embeddings).__name__}")
    try:
        m = float(margin)
    except (TypeError, ValueError):
        raise ValueError(f"margin must be a number ≥ 0, got {margin!r}") from None
    if not (m >= 0.0 and math.isfinite(m)):
        raise ValueError(f"margin must be a finite number ≥ 0, got {margin!r}")
    ts = _check_open_unit("test_size", test_size)
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
    x = np.vstack([vectors["positive"], vectors["negative"]])
    y = np.concatenate([np.ones(len(kept["positive"]), np.int8),
                        np.zeros(len(kept["negative"]), np.int8)])
    words = [*kept["positive"], *kept["negative"]]
    test = _stratified_split(y, ts, np.random.default_rng(random_state))
    fit = fit_logistic(x[~test], y[~test], l2=l2)
    pred = fit.predict(x)
    acc = float(np.mean(pred[test] == y[test]))
    n_test = int(test.sum())
    table = pd.DataFrame({
        "word": words, "rating": [ratings[w] for w in words], "label": y,
        "split": np.where(test, "test", "train"), "score": fit.predict_proba(x),
    })
    missing = tuple(w for label in ("positive", "negative") for w in report.missing[label])
    return SentimentClassifier(
        model=fit, accuracy=acc, accuracy_se=math.sqrt(acc * (1 - acc) / n_test),
        baseline_accuracy=float(max(y[test].mean(), 1 - y[test].mean())),
        train_accuracy=float(np.mean(pred[~test] == y[~test])),
        n_train=int((~test).sum()), n_test=n_test,
        n_positive=len(kept["positive"]), n_negative=len(kept["negative"]),
        n_lexicon=len(entries), n_duplicates=n_dup, n_neutral=int(n_neutral),
        excluded=excluded, missing=missing, margin=m, l2=fit.l2, test_size=ts,
        random_state=int(random_state), lowercase=bool(lowercase), words=table,
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
    model: SentimentClassifier | LogisticFit,
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
        A :class:`SentimentClassifier` (or a bare :class:`LogisticFit`) trained on the
        same embeddings.
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
        Missing columns, a classifier of another dimension, or no identity word in the
        embeddings at all.
    """
    if not isinstance(embeddings, KeyedVectors):
        raise ValueError(f"embeddings must be gensim KeyedVectors, got "
                         f"{type(embeddings).__name__}")
    fit = model.model if isinstance(model, SentimentClassifier) else model
    if not isinstance(fit, LogisticFit):
        raise ValueError(f"model must be a SentimentClassifier or LogisticFit, got "
                         f"{type(model).__name__}")
    if fit.coef.size != embeddings.vector_size:
        raise ValueError(f"the classifier has {fit.coef.size} weights but the embeddings have "
                         f"{embeddings.vector_size} dimensions; train it on these embeddings")
    need = {"class", "word", "template", "sentence"}
    absent = sorted(need - set(sentences.columns))
    if absent:
        raise ValueError(f"sentences lacks columns {absent}; build it with identity_sentences()")
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
    out["score"] = fit.predict_proba(means)
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
    confidence: float,
    threshold: float,
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
        row = demographic_parity(yhat[keep], groups, protected=y, confidence=confidence)
        row["group"] = f"{x} − {y}"
        bbu_rows.append(row)
    successes = [int(yhat[label == c].sum()) for c in classes]
    totals = [int((label == c).sum()) for c in classes]
    bayes = parity_comparisons(successes, totals, labels=classes, ci_prob=confidence,
                               threshold=threshold, comparisons=mode)
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
        ``half_width``, ``verdict`` …) and a ``difference_vs_rest`` or
        ``pairwise_difference`` row (Bayesian posterior of the rate difference,
        ``ci_kind="hdi"``; ``prob_outside`` = P(|d| > ``threshold``), ``hdi_rope``,
        ``x1``/``n1`` (Y) and ``x2``/``n2`` (X) …). Both estimate PR_X − PR_Y (in the
        BBU rows Y is the "protected" group of :func:`~embias.classifier.bbu.demographic_parity`,
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
        The arguments that shaped the result (confidence, threshold, comparisons, …).
    """

    study: str
    table: pd.DataFrame = field(repr=False)
    rates: pd.DataFrame = field(repr=False)
    scores: pd.DataFrame = field(repr=False)
    classifiers: Mapping[str, SentimentClassifier] = field(repr=False)
    missing_identity: Mapping[str, MissingWords] = field(repr=False)
    settings: Mapping[str, Any] = field(default_factory=dict)

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
    random_state: int = 0,
    stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    exclude_identity: bool = True,
    comparisons: Literal["rest", "pairwise"] = "rest",
    confidence: float = 0.95,
    threshold: float = 0.1,
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
    lexicon, margin, l2, test_size, random_state
        Classifier settings (:func:`sentiment_classifier`).
    stop_words
        Template tokens left out of the sentence vectors (:func:`score_sentences`).
    exclude_identity
        Keep the study's protected words out of the classifier's training data (they
        are its test inputs, not sentiment examples).
    comparisons
        With three or more classes: ``"rest"`` (default; each class against the others
        pooled) or ``"pairwise"`` (every pair). Two classes give one contrast, the
        second class minus the first.
    confidence
        Confidence of the BBU intervals and probability of the HDIs.
    threshold
        Fairness threshold T of the Bayesian rows: ``prob_outside`` = P(|d| > T) and the
        HDI+ROPE decision against [−T, T].

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
    if comparisons not in ("rest", "pairwise"):
        raise ValueError(f"comparisons must be 'rest' or 'pairwise', got {comparisons!r}")
    classes = list(st.protected)
    if comparisons == "rest" and len(classes) > 2 and "rest" in classes:
        raise ValueError(f"study {st.name!r} has a class named 'rest'; use "
                         "comparisons='pairwise'")
    p = _check_open_unit("confidence", confidence)
    t = _check_threshold(threshold)
    sentences = identity_sentences(st, templates=templates)
    stops = tuple(sorted(stop_words))
    identity = [w for ws in st.protected.values() for w in ws] if exclude_identity else []
    tables, rates, scored_all, models, missing = {}, [], [], {}, {}
    for name, kv in kvs.items():
        clf = sentiment_classifier(kv, lexicon=lexicon, margin=margin, exclude=identity,
                                   test_size=test_size, l2=l2, random_state=random_state)
        try:
            scored = score_sentences(clf, kv, sentences, stop_words=stops)
        except ValueError as exc:
            raise ValueError(f"embedding {name!r}: {exc}") from exc
        absent = [c for c in classes if not (scored["class"] == c).any()]
        if absent:
            raise ValueError(f"embedding {name!r}: classes {absent} of study {st.name!r} have "
                             f"no identity word in the embeddings "
                             f"({scored.attrs['missing_identity_words']})")
        tables[name] = _fairness_rows(scored, classes, comparisons=comparisons,
                                      confidence=p, threshold=t)
        tables[name].insert(len(tables[name].columns), "study", st.name)
        for c in classes:
            part = scored[scored["class"] == c]
            rates.append({
                "embedding": name, "class": c, "n": len(part),
                "n_positive": int(part["y_pred"].sum()),
                "positive_rate": float(part["y_pred"].mean()),
                "mean_score": float(part["score"].mean()),
                "sd_score": float(part["score"].std(ddof=1)) if len(part) > 1 else np.nan,
                "n_words": int(part["word"].nunique()),
            })
        missing[name] = scored.attrs["missing_identity_words"]
        scored = scored.copy()
        scored.insert(0, "embedding", name)
        scored_all.append(scored)
        models[name] = clf
    scores = pd.concat(scored_all, ignore_index=True)
    scores.attrs = {}
    return DownstreamResult(
        study=st.name, table=combine_interval_tables(tables), rates=pd.DataFrame(rates),
        scores=scores, classifiers=models, missing_identity=missing,
        settings={"templates": tuple(templates), "margin": margin, "l2": l2,
                  "test_size": test_size, "random_state": random_state,
                  "stop_words": stops, "exclude_identity": exclude_identity,
                  "comparisons": comparisons, "confidence": p, "threshold": t},
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
    """
    if not isinstance(result, DownstreamResult):
        raise ValueError(f"result must be a DownstreamResult, got {type(result).__name__}")
    head = title if title is not None else (
        f"{result.study}: positive-rate gap of the sentiment classifier")
    return plot_forest(result.table, by="embedding", reference=0.0, title=head, ax=ax)


def plot_sentence_scores(
    result: DownstreamResult,
    *,
    seed: int = 0,
) -> Figure:
    """Strip plot of the sentence scores by class, one panel per embedding.

    Each dot is a sentence's P(positive) (horizontally jittered with ``seed``); the
    dashed line is the 0.5 decision threshold and the bar the class mean.
    """
    import matplotlib.pyplot as plt

    if not isinstance(result, DownstreamResult):
        raise ValueError(f"result must be a DownstreamResult, got {type(result).__name__}")
    labels = list(dict.fromkeys(result.scores["embedding"]))
    fig, axes = plt.subplots(1, len(labels), figsize=(3.2 * len(labels) + 1, 3.4),
                             sharey=True, squeeze=False)
    rng = np.random.default_rng(seed)
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
