"""embias — bias in word embeddings and classifiers, with honest uncertainty."""

from .classic import (
    MacResult,
    WeatResult,
    mac,
    mac_ttest,
    weat,
    weat_effect_size,
    weat_pairs,
    weat_test,
)
from .embeddings import MissingWords, MissingWordsError, load_embeddings
from .report import interval_table, plot_forest, to_markdown
from .tables import cosine_table, load_published_table, summarize_table
from .wordlists import Study, load_study

__version__ = "0.1.0"

__all__ = [
    "MacResult",
    "MissingWords",
    "MissingWordsError",
    "Study",
    "WeatResult",
    "cosine_table",
    "interval_table",
    "load_embeddings",
    "load_published_table",
    "load_study",
    "mac",
    "mac_ttest",
    "plot_forest",
    "summarize_table",
    "to_markdown",
    "weat",
    "weat_effect_size",
    "weat_pairs",
    "weat_test",
]
