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

The study's modules: :mod:`~embias.studies.lexicon` (the lexicon),
:mod:`~embias.studies.word_classifier` (the classifier), :mod:`~embias.studies.identity`
(the sentences and their scores) and this one (the fairness of the scores across
embeddings); its figures are in :mod:`embias.plots.downstream`. Every name of the study is
importable from here and from :mod:`embias.studies`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors

from embias._deprecation import moved_names
from embias._validation import check_choice, check_number, check_probability, check_seed
from embias.classifier import demographic_parity, parity_comparisons
from embias.embeddings import MissingWords
from embias.report import validate_interval_table
from embias.settings import DEFAULT_CI_PROB
from embias.studies.identity import (
    DEFAULT_STOP_WORDS,
    DEFAULT_TEMPLATES,
    identity_sentences,
    score_sentences,
)
from embias.studies.lexicon import vader_lexicon
from embias.studies.word_classifier import SentimentClassifier, sentiment_classifier
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
    "score_sentences",
    "sentiment_classifier",
    "vader_lexicon",
]


def _contrasts(
    classes: Sequence[str], comparisons: str
) -> tuple[list[tuple[str, str]], tuple[Literal["pairwise", "rest"], ...]]:
    """Return the (x, y) pairs whose gap PR_x − PR_y is reported, and the parity mode.

    The mode is ``parity_comparisons``'s ``comparisons``. Two classes: the second minus
    the first.
    """
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
        """Return the study's interval table (BBU and Bayesian parity rows): :attr:`table`."""
        return self.table

    def classifier_summary(self) -> pd.DataFrame:
        """Return one row per embedding: held-out accuracy, baseline, word counts.

        See :meth:`SentimentClassifier.summary`.
        """
        return pd.DataFrame([{"embedding": k, **c.summary()}
                             for k, c in self.classifiers.items()])

    def plot(self, **kwargs: Any) -> Figure:
        """Draw the forest plot of :attr:`table` (see :func:`~embias.studies.plot_downstream`)."""
        from embias.plots.downstream import plot_downstream

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


def _class_rates(scored: pd.DataFrame, classes: Sequence[str],
                 name: str) -> list[dict[str, Any]]:
    """Return the rates of each class of one embedding's scored sentences.

    Per class: sentences, positive predictions and their rate, the mean and sd of the
    scores, identity words scored.
    """
    rates = []
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
    return rates


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
    """Measure whether embedding bias reaches a sentiment classifier's decisions.

    The group fairness of a sentiment classifier on identity sentences, for one or several
    embeddings.

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

    Examples
    --------
    :func:`~embias.studies.score_sentences`'s example: the classifier calls all four
    flower sentences positive and all four insect sentences negative. Both rows estimate
    PR_insects − PR_flowers: −1 for BBU (the observed rates), 1/6 − 5/6 ≈ −0.667 for the
    posterior mean of the rate difference under uniform priors (0 of 4 and 4 of 4):

    >>> from gensim.models import KeyedVectors
    >>> import embias
    >>> from embias.studies import downstream_fairness
    >>> kv = KeyedVectors(vector_size=2)
    >>> kv.add_vectors(["good", "great", "nice", "happy", "bad", "awful", "sad", "nasty",
    ...                 "rose", "tulip", "ant", "wasp"],
    ...                [[1, 0.2], [1, -0.1], [0.8, 0.3], [0.9, 0], [-1, 0.1], [-0.9, -0.2],
    ...                 [-0.8, 0.2], [-1, 0], [0.6, 0.5], [0.5, -0.4], [-0.6, 0.4],
    ...                 [-0.4, -0.5]])
    >>> lexicon = {"good": 3.1, "great": 3.1, "nice": 1.8, "happy": 2.7, "bad": -2.5,
    ...            "awful": -2.0, "sad": -2.1, "nasty": -2.6}
    >>> toy = embias.Study(name="toy", protected={"flowers": ("rose", "tulip"),
    ...                                           "insects": ("ant", "wasp")},
    ...                    attributes={"flowers": ("love",), "insects": ("hate",)})
    >>> result = downstream_fairness(kv, toy, templates=["{} is here", "I saw {}"],
    ...                              lexicon=lexicon, test_size=0.5, random_seed=0)
    >>> result.table[["estimand", "group", "embedding", "estimate"]].round(3)
                  estimand              group embedding  estimate
    0   demographic_parity  insects − flowers  original    -1.000
    1  pairwise_difference  insects − flowers  original    -0.667
    >>> result.rates[["class", "n", "positive_rate"]]
         class  n  positive_rate
    0  flowers  4            1.0
    1  insects  4            0.0
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
        scored = _scored_sentences(name, clf, kv, sentences, stops=stops, classes=classes,
                                   study=st.name)
        part = _fairness_rows(scored, classes, comparisons=comparisons, ci_prob=p, rope=t)
        part.insert(2, "embedding", name)  # right after estimand and group
        part["study"] = st.name
        tables.append(part)
        rates += _class_rates(scored, classes, name)
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


def _scored_sentences(name: str, clf: SentimentClassifier, kv: KeyedVectors,
                      sentences: pd.DataFrame, *, stops: Iterable[str], classes: Sequence[str],
                      study: str) -> pd.DataFrame:
    """Return one embedding's scored sentences (:func:`score_sentences`), every class present.

    ValueError, naming the embedding, when the sentences cannot be scored or a class has
    no identity word in the embeddings.
    """
    try:
        scored = score_sentences(clf, kv, sentences, stop_words=stops)
    except ValueError as exc:
        raise ValueError(f"embedding {name!r}: {exc}") from exc
    absent = [c for c in classes if not (scored["class"] == c).any()]
    if absent:
        raise ValueError(f"embedding {name!r}: classes {absent} of study {study!r} have "
                         f"no identity word in the embeddings "
                         f"({scored.attrs['missing_identity_words']})")
    return scored


# The study's figures moved to the plotting layer (embias.plots.downstream; embias.studies
# still exports them): served from here for one release, with a DeprecationWarning.
__getattr__: Any = moved_names(__name__, {
    "plot_downstream": "embias.plots.downstream",
    "plot_sentence_scores": "embias.plots.downstream",
})
