"""Worked studies built on embias — not library code.

* :mod:`~embias.studies.sentiment` — does embedding bias reach decisions? A sentiment
  classifier (scikit-learn logistic regression) trained on word vectors of the VADER
  lexicon scores identity sentences; the classes' positive-prediction rates are compared
  by BBU demographic parity and the Bayesian rate difference, on original vs debiased
  embeddings. Its parts: :mod:`~embias.studies.lexicon` (the VADER lexicon),
  :mod:`~embias.studies.word_classifier` (the classifier), :mod:`~embias.studies.identity`
  (the identity sentences and their scores); its figures are in
  :mod:`embias.plots.downstream` (exported here too).

The studies need the optional extra ``studies`` (scikit-learn and vaderSentiment)::

    pip install "embias[studies]"
"""

try:
    import sklearn  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        'embias.studies needs scikit-learn, which is not installed: pip install '
        '"embias[studies]"'
    ) from exc

from embias.plots.downstream import plot_downstream, plot_sentence_scores
from embias.studies.sentiment import (
    DEFAULT_STOP_WORDS,
    DEFAULT_TEMPLATES,
    DownstreamResult,
    SentimentClassifier,
    downstream_fairness,
    identity_sentences,
    score_sentences,
    sentiment_classifier,
    vader_lexicon,
)

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
