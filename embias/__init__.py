"""embias — bias in word embeddings and classifiers, with honest uncertainty.

The entry points users call, grouped by what they do (internals stay importable from
their modules):

load
    :func:`load_embeddings`, :func:`load_study`, :class:`Study`
tables
    :func:`cosine_table`, :func:`study_table`, :func:`load_published_table`,
    :func:`summarize_table`, :func:`align_tables`, :func:`difference_table`
classic scores
    :func:`weat`, :func:`weat_test`, :func:`weat_pairs`, :func:`weat_effect_size`,
    :func:`mac`, :func:`mac_ttest`, :func:`classic_scores`, :func:`classic_changes`,
    :func:`weat_overview`, :func:`weat_item_bootstrap`
fit
    :class:`FitSettings`, :func:`fit_bias_model` (levels dataset, word, hierarchical,
    crossed), :func:`compare_models`, :func:`pointwise_log_likelihood`, :func:`fit_study_model`,
    :func:`fit_religion_model`, :func:`fit_race_model`, :func:`fit_gender_model`,
    :func:`load_fit`, :func:`save_fit`, :class:`FitJob`, :func:`fit_many`,
    :func:`study_jobs`
sentence encoders
    :func:`default_encoder` (offline all-MiniLM-L6-v2), :func:`as_encoder`,
    :func:`sentence_table`, :func:`seat_test`, :func:`seat_overview`
compare
    :func:`compare_embeddings`, :func:`fit_change_model`
simulate
    :func:`simulate_weat`, :func:`simulate_weat_grid`, :func:`summarize_simulations`,
    :func:`exact_weat_distribution`, :func:`simulated_cosine_table` …
debias
    :func:`hard_debias`, :func:`soft_debias`, :func:`bias_subspace`
report
    :func:`interval_table`, :func:`stack_interval_tables`, :func:`rope_decision`,
    :func:`to_markdown`, and the plots :func:`plot_forest`, :func:`plot_bias_fit`,
    :func:`plot_comparison`, :func:`plot_predictive_check`,
    :func:`plot_weat_simulations`, :func:`plot_simulated_table`,
    :func:`plot_template_sensitivity`

The classifier side lives in :mod:`embias.classifier`; worked studies (the downstream
sentiment classifier) in :mod:`embias.studies`.

Names are imported when first used (``embias.fit_bias_model`` imports PyMC, ``import
embias`` does not), so the command line and ``import embias`` stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.3.0"

#: Public name → module that defines it (relative to ``embias``).
_EXPORTS: dict[str, str] = {
    # load
    "load_embeddings": "embeddings", "MissingWords": "embeddings",
    "MissingWordsError": "embeddings",
    "Study": "wordlists", "load_study": "wordlists",
    # tables
    "cosine_table": "tables", "study_table": "tables", "load_published_table": "tables",
    "summarize_table": "tables", "align_tables": "tables", "difference_table": "tables",
    # classic scores
    "weat": "classic", "weat_test": "classic", "weat_pairs": "classic",
    "weat_effect_size": "classic", "mac": "classic", "mac_ttest": "classic",
    "MacResult": "classic", "WeatResult": "classic", "classic_scores": "classic",
    "classic_changes": "classic", "weat_overview": "classic",
    # fit
    "FitSettings": "settings",
    "fit_bias_model": "bayes", "BiasFit": "bayes", "ConvergenceWarning": "bayes",
    "PredictiveCheck": "bayes", "cell_statistics": "bayes",
    "fit_study_model": "bayes", "fit_religion_model": "bayes", "fit_race_model": "bayes",
    "fit_gender_model": "bayes", "load_fit": "bayes", "save_fit": "bayes",
    "FitJob": "bayes", "fit_many": "bayes", "study_jobs": "bayes",
    # compare
    "compare_embeddings": "bayes", "fit_change_model": "bayes", "ChangeFit": "bayes",
    "EmbeddingComparison": "bayes",
    # simulate
    "simulate_weat": "simulate", "simulate_weat_grid": "simulate",
    "summarize_simulations": "simulate", "exact_weat_distribution": "simulate",
    "largest_weat_index": "simulate", "simulated_cosine_table": "simulate",
    "WeatSimulation": "simulate", "WeatDistribution": "simulate",
    "PUBLISHED_FIGURES": "simulate",
    # debias
    "hard_debias": "debias", "soft_debias": "debias", "bias_subspace": "debias",
    "DebiasResult": "debias",
    # report
    "interval_table": "report", "stack_interval_tables": "report",
    "combine_interval_tables": "report", "rope_decision": "report",
    "to_markdown": "report",
    "plot_forest": "plots", "plot_bias_fit": "plots", "plot_comparison": "plots",
    "plot_predictive_check": "plots", "plot_weat_simulations": "plots",
    "plot_simulated_table": "plots", "plot_template_sensitivity": "plots",
    "compare_models": "bayes.loo",
    "pointwise_log_likelihood": "bayes.loo",
    "as_encoder": "encoders",
    "default_encoder": "encoders",
    "SentenceEncoder": "encoders",
    "MiniLMEncoder": "encoders",
    "sentence_table": "sentences",
    "seat_test": "sentences",
    "seat_overview": "sentences",
    "word_sentences": "sentences",
    "load_templates": "sentences",
    "load_word_kinds": "sentences",
    "weat_item_bootstrap": "classic",
    "WeatBootstrap": "classic",
    "simulate_weat_bootstrap_coverage": "simulate",
    "audit_report": "audit",
    "word_effect_shares": "simulate_words",
    "calibrate_word_sampling": "simulate_words",
    "simulate_word_table": "simulate_words",
    "simulate_word_sampling": "simulate_words",
    "summarize_word_sampling": "simulate_words",
    "refit_published_tables": "simulate_words",
    "published_conclusions": "simulate_words",
    "plot_word_sampling": "simulate_words",
    "plot_published_refits": "simulate_words",
    "WordSamplingParameters": "simulate_words",
    "WordSamplingSimulation": "simulate_words",
    "word_influence": "bayes.influence",
    "rank_words": "bayes.influence",
    "plot_word_influence": "bayes.influence",
    "WordPopulations": "populations",
    "PopulationDesign": "populations",
    "load_populations": "populations",
    "calibrate_on_populations": "calibration",
    "population_answers": "calibration",
    "draw_population_studies": "calibration",
    "summarize_calibration": "calibration",
    "plot_calibration": "calibration",
    "PopulationCalibration": "calibration",
}
_SUBMODULES = ("classifier", "report", "plots", "bayes", "settings", "studies", "encoders",
               "sentences", "audit")

__all__ = [
    "PUBLISHED_FIGURES",
    "BiasFit",
    "ChangeFit",
    "ConvergenceWarning",
    "DebiasResult",
    "EmbeddingComparison",
    "FitJob",
    "FitSettings",
    "MacResult",
    "MiniLMEncoder",
    "MissingWords",
    "MissingWordsError",
    "PopulationCalibration",
    "PopulationDesign",
    "PredictiveCheck",
    "SentenceEncoder",
    "Study",
    "WeatBootstrap",
    "WeatDistribution",
    "WeatResult",
    "WeatSimulation",
    "WordPopulations",
    "WordSamplingParameters",
    "WordSamplingSimulation",
    "__version__",
    "align_tables",
    "as_encoder",
    "audit",
    "audit_report",
    "bayes",
    "bias_subspace",
    "calibrate_on_populations",
    "calibrate_word_sampling",
    "cell_statistics",
    "classic_changes",
    "classic_scores",
    "classifier",
    "combine_interval_tables",
    "compare_embeddings",
    "compare_models",
    "cosine_table",
    "default_encoder",
    "difference_table",
    "draw_population_studies",
    "encoders",
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
    "load_populations",
    "load_published_table",
    "load_study",
    "load_templates",
    "load_word_kinds",
    "mac",
    "mac_ttest",
    "plot_bias_fit",
    "plot_calibration",
    "plot_comparison",
    "plot_forest",
    "plot_predictive_check",
    "plot_published_refits",
    "plot_simulated_table",
    "plot_template_sensitivity",
    "plot_weat_simulations",
    "plot_word_influence",
    "plot_word_sampling",
    "plots",
    "pointwise_log_likelihood",
    "population_answers",
    "published_conclusions",
    "rank_words",
    "refit_published_tables",
    "report",
    "rope_decision",
    "save_fit",
    "seat_overview",
    "seat_test",
    "sentence_table",
    "sentences",
    "settings",
    "simulate_weat",
    "simulate_weat_bootstrap_coverage",
    "simulate_weat_grid",
    "simulate_word_sampling",
    "simulate_word_table",
    "simulated_cosine_table",
    "soft_debias",
    "stack_interval_tables",
    "studies",
    "study_jobs",
    "study_table",
    "summarize_calibration",
    "summarize_simulations",
    "summarize_table",
    "summarize_word_sampling",
    "to_markdown",
    "weat",
    "weat_effect_size",
    "weat_item_bootstrap",
    "weat_overview",
    "weat_pairs",
    "weat_test",
    "word_effect_shares",
    "word_influence",
    "word_sentences",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'embias' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .audit import audit_report
    from .bayes import (
        BiasFit,
        ChangeFit,
        ConvergenceWarning,
        EmbeddingComparison,
        FitJob,
        PredictiveCheck,
        cell_statistics,
        compare_embeddings,
        fit_bias_model,
        fit_change_model,
        fit_gender_model,
        fit_many,
        fit_race_model,
        fit_religion_model,
        fit_study_model,
        load_fit,
        save_fit,
        study_jobs,
    )
    from .bayes.influence import plot_word_influence, rank_words, word_influence
    from .bayes.loo import compare_models, pointwise_log_likelihood
    from .calibration import (
        PopulationCalibration,
        calibrate_on_populations,
        draw_population_studies,
        plot_calibration,
        population_answers,
        summarize_calibration,
    )
    from .classic import (
        MacResult,
        WeatBootstrap,
        WeatResult,
        classic_changes,
        classic_scores,
        mac,
        mac_ttest,
        weat,
        weat_effect_size,
        weat_item_bootstrap,
        weat_overview,
        weat_pairs,
        weat_test,
    )
    from .debias import DebiasResult, bias_subspace, hard_debias, soft_debias
    from .embeddings import MissingWords, MissingWordsError, load_embeddings
    from .encoders import MiniLMEncoder, SentenceEncoder, as_encoder, default_encoder
    from .plots import (
        plot_bias_fit,
        plot_comparison,
        plot_forest,
        plot_predictive_check,
        plot_simulated_table,
        plot_template_sensitivity,
        plot_weat_simulations,
    )
    from .populations import PopulationDesign, WordPopulations, load_populations
    from .report import (
        combine_interval_tables,
        interval_table,
        rope_decision,
        stack_interval_tables,
        to_markdown,
    )
    from .sentences import (
        load_templates,
        load_word_kinds,
        seat_overview,
        seat_test,
        sentence_table,
        word_sentences,
    )
    from .settings import FitSettings
    from .simulate import (
        PUBLISHED_FIGURES,
        WeatDistribution,
        WeatSimulation,
        exact_weat_distribution,
        largest_weat_index,
        simulate_weat,
        simulate_weat_bootstrap_coverage,
        simulate_weat_grid,
        simulated_cosine_table,
        summarize_simulations,
    )
    from .simulate_words import (
        WordSamplingParameters,
        WordSamplingSimulation,
        calibrate_word_sampling,
        plot_published_refits,
        plot_word_sampling,
        published_conclusions,
        refit_published_tables,
        simulate_word_sampling,
        simulate_word_table,
        summarize_word_sampling,
        word_effect_shares,
    )
    from .tables import (
        align_tables,
        cosine_table,
        difference_table,
        load_published_table,
        study_table,
        summarize_table,
    )
    from .wordlists import Study, load_study
