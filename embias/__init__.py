"""embias — bias in word embeddings and classifiers, with honest uncertainty.

The embedding side: load embeddings (:func:`load_embeddings`), studies
(:func:`load_study`), long-form cosine tables (:func:`cosine_table`,
:func:`load_published_table`), the classic scores (:func:`weat`, :func:`mac`), Bayesian
models (:func:`fit_bias_model`, :func:`fit_religion_model` …), pre-averaging simulations
(:func:`simulate_weat`) and debiasing (:func:`hard_debias`, :func:`soft_debias`). The
classifier side lives in :mod:`embias.classifier`. Every interval goes through the shared
reporting layer (:mod:`embias.report`).
"""

from . import classifier, report
from .bayes import BiasFit, ConvergenceWarning, PredictiveCheck, cell_statistics, fit_bias_model
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
from .compare import (
    ChangeFit,
    EmbeddingComparison,
    FitJob,
    align_tables,
    compare_embeddings,
    fit_change_model,
    fit_many,
    plot_comparison,
    study_jobs,
)
from .debias import DebiasResult, bias_subspace, hard_debias, soft_debias
from .embeddings import MissingWords, MissingWordsError, load_embeddings
from .fits import (
    fit_gender_model,
    fit_race_model,
    fit_religion_model,
    fit_study_model,
    load_fit,
    save_fit,
)
from .report import combine_interval_tables, interval_table, plot_forest, to_markdown
from .simulate import (
    WeatDistribution,
    WeatSimulation,
    exact_weat_distribution,
    largest_weat_index,
    plot_weat_simulations,
    simulate_weat,
    simulate_weat_grid,
    simulated_cosine_table,
    summarize_simulations,
)
from .tables import cosine_table, load_published_table, study_table, summarize_table
from .wordlists import Study, load_study

__version__ = "0.1.0"

__all__ = [
    "BiasFit",
    "ChangeFit",
    "ConvergenceWarning",
    "DebiasResult",
    "EmbeddingComparison",
    "FitJob",
    "MacResult",
    "MissingWords",
    "MissingWordsError",
    "PredictiveCheck",
    "Study",
    "WeatDistribution",
    "WeatResult",
    "WeatSimulation",
    "align_tables",
    "bias_subspace",
    "cell_statistics",
    "classifier",
    "combine_interval_tables",
    "compare_embeddings",
    "cosine_table",
    "exact_weat_distribution",
    "fit_bias_model",
    "fit_change_model",
    "fit_gender_model",
    "fit_many",
    "fit_race_model",
    "fit_religion_model",
    "fit_study_model",
    "hard_debias",
    "interval_table",
    "largest_weat_index",
    "load_embeddings",
    "load_fit",
    "load_published_table",
    "load_study",
    "mac",
    "mac_ttest",
    "plot_comparison",
    "plot_forest",
    "plot_weat_simulations",
    "report",
    "save_fit",
    "simulate_weat",
    "simulate_weat_grid",
    "simulated_cosine_table",
    "soft_debias",
    "study_jobs",
    "study_table",
    "summarize_simulations",
    "summarize_table",
    "to_markdown",
    "weat",
    "weat_effect_size",
    "weat_pairs",
    "weat_test",
]
