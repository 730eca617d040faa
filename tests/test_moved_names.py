"""Names keep their import paths when their code moves to another module.

``embias.classic``, ``embias.simulate``, ``embias.plots`` and the modules listed in
:data:`KEPT` became packages of one module per idea, and other modules were split: every
name the modules had is still importable from them, the same object as the public
``embias.X``. Names that left a module for another home (exact leave-one-out, the study's
figures, the word-influence figure, the classifier metrics' presets and tests) are still
served from the old module for one release, with a ``DeprecationWarning`` that names the
new home.
"""

from __future__ import annotations

import importlib
import warnings

import pytest

import embias

#: Every module-level name of the modules before they became packages.
KEPT = {
    "embias.classic": (
        "ATTRIBUTE_WHY", "CALISKAN_840B", "CLASSIC_CI_PROB", "DEFAULT_MC_PERMUTATIONS",
        "DEFAULT_N_BOOT", "DEGENERATE_SD", "ITEM_BOOTSTRAP_CI_KIND", "MAX_DRAWS_PER_REPLICATE",
        "MAX_EXACT_PARTITIONS", "ONE_WORD_WHY", "RESAMPLE_OPTIONS", "Alternative", "MacResult",
        "WeatBootstrap", "WeatResult", "association_scores", "bootstrap_counts",
        "check_mac_roles", "check_weat_roles", "classic_changes", "classic_scores", "mac",
        "mac_ttest", "partition_sums", "permutation_p_value", "weat", "weat_effect_size",
        "weat_item_bootstrap", "weat_overview", "weat_pairs", "weat_test"),
    "embias.simulate": (
        "BOOTSTRAP_COVERAGE_DESIGNS", "CALISKAN_LARGEST_EFFECT", "NUMERATORS",
        "PUBLISHED_FIGURES", "SIMULATION_CI_KIND", "Numerator", "SeededEstimate",
        "WeatDistribution", "WeatSimulation", "WeatSimulationGrid", "exact_weat_distribution",
        "largest_weat_index", "max_abs_weat", "simulate_weat", "simulate_weat_bootstrap_coverage",
        "simulate_weat_grid", "simulated_cosine_table", "summarize_simulations",
        "vector_model_effect_size"),
    "embias.plots": (
        "AXIS_LABELS", "panel_grid", "plot_bias_fit", "plot_comparison", "plot_forest",
        "plot_predictive_check", "plot_simulated_table", "plot_template_sensitivity",
        "plot_weat_simulations"),
    "embias.studies.sentiment": (
        "DEFAULT_STOP_WORDS", "DEFAULT_TEMPLATES", "DownstreamResult", "SentimentClassifier",
        "downstream_fairness", "identity_sentences", "score_sentences", "sentiment_classifier",
        "vader_lexicon"),
    "embias.classifier.generalized": (
        "COMPARISONS", "SCORES", "FairnessResult", "MetricKind", "bcm", "mcm", "pcm", "vbcm"),
    "embias.tables": (
        "CONNECTIONS", "DEFAULT_MIN_SHARED", "DISTANCE_TOLERANCE", "PAIR_KEY",
        "PUBLISHED_EMBEDDINGS", "PUBLISHED_MISSING_CODE", "PUBLISHED_STUDIES",
        "ROW_KEY_EXTRA", "TABLE_COLUMNS", "align_tables", "compared_word_lists",
        "cosine_table", "difference_table", "load_published_table", "published_name",
        "study_table", "summarize_table", "validate_table"),
    "embias.design": (
        "DEFAULT_ATTRIBUTE_WORDS", "DEFAULT_BLOCK", "DesignAnalysis", "PILOT",
        "RESULT_COLUMNS", "SUMMARY_COLUMNS", "design_analysis", "design_table",
        "summarize_design_analysis"),
    "embias.classifier.bbu": (
        "Bound", "MNLI_GENRE_COSTS", "bbu_coverage", "bbu_detectable_delta", "bbu_interval",
        "bbu_required_n", "bernstein_half_width", "demographic_parity", "equal_opportunity",
        "equalized_odds", "genre_population", "hoeffding_half_width"),
    "embias.simulate_words": (
        "NULL_CONTRASTS", "PUBLISHED_REFIT_EMBEDDINGS", "PUBLISHED_REFIT_STUDIES",
        "SUMMARY_COLUMNS", "TABLES_PER_BATCH", "WORD_SAMPLING_LEVELS",
        "WordSamplingParameters", "WordSamplingSimulation", "calibrate_word_sampling",
        "published_conclusions", "refit_published_tables", "simulate_word_sampling",
        "simulate_word_table", "summarize_word_sampling", "word_effect_shares"),
    "embias.sentences": (
        "CALISKAN_TESTS", "FALLBACK_TEMPLATES", "KINDS", "KIND_TEMPLATE_SETS", "PAIRINGS",
        "TEMPLATE_PLACEHOLDERS", "WordKind", "load_templates", "load_word_kinds",
        "resolve_word_kinds", "seat_overview", "seat_test", "sentence_table",
        "template_spec", "word_sentences"),
    "embias.embeddings": (
        "BUILTIN_EMBEDDINGS", "EmbeddingFormat", "FORMATS", "MissingWords",
        "MissingWordsError", "NAME_ATTRIBUTE", "detect_format", "embedding_name_of",
        "is_keyed_vectors", "is_uncased", "keyed_vectors", "load_embeddings",
        "load_named_embeddings", "lookup_words"),
    "embias.calibration": (
        "ESTIMANDS", "PopulationCalibration", "QUANTITIES", "RESULT_COLUMNS",
        "STUDIES_PER_BATCH", "SUMMARY_COLUMNS", "UNCHECKED_VARIABLES",
        "calibrate_on_populations", "draw_population_studies", "fit_intervals",
        "interval_rates", "population_answers", "summarize_calibration"),
    "embias.wordlists": (
        "BUILTIN_STUDIES", "FOLDER_FILES", "Study", "load_study", "read_associations",
        "read_wordlist", "with_default_associations", "wordlists_dir"),
    "embias.classifier.parity": (
        "Decision", "ParityDecision", "ParityPosterior", "Side", "parity_comparisons",
        "parity_hdi_coverage", "parity_posterior", "simulate_detection"),
    "embias.classic.permutation_test": (
        "Alternative", "POPULATION_COLUMNS", "WeatResult", "check_weat_roles", "weat",
        "weat_pairs", "weat_test"),
    "embias.encoders": (
        "DEFAULT_BATCH_SIZE", "INSTALL_HINT", "MAX_TOKENS", "MODEL_NAME", "MODEL_SHA256",
        "MiniLMEncoder", "ModelFiles", "SentenceEncoder", "as_encoder", "check_embeddings",
        "default_encoder", "find_model_files"),
    "embias.populations": (
        "BUILTIN_POPULATIONS", "DEFAULT_DESIGN", "PopulationDesign", "WordPopulations",
        "as_design", "load_populations", "populations_dir"),
    "embias.report": (
        "CI_KINDS", "CLI_CHANGE_COLUMNS", "CLI_CHANGE_WORD_COLUMNS", "CLI_LEVEL_COLUMNS",
        "CLI_SHORT_COLUMNS", "CLI_SIMULATION_COLUMNS", "CLI_WEAT_COLUMNS",
        "CLI_WORD_COLUMNS", "CREDIBLE_DIFFERENCE", "DECISIONS", "INTERVAL_COLUMNS",
        "PRACTICALLY_EQUIVALENT", "RETIRED_CI_KINDS", "SCIENTIFIC_COLUMNS", "UNDECIDED",
        "combine_interval_tables", "format_number", "interval_table",
        "is_scientific_column", "rope_decision", "share_with_mc_se",
        "stack_interval_tables", "to_markdown", "validate_interval_table"),
    "embias.pipeline.store": (
        "CHECK_FILES", "CLASSIC_FILE", "DIAGNOSTICS_FILE", "FIT_FORMAT", "INTERVALS_FILE",
        "LOCK_TIMEOUT", "MANIFEST_FILE", "POSTERIOR_FILE", "SETTINGS_FILE",
        "SavedFitReplacedWarning", "TABLE_FILE", "UnreadableFitError", "json_default",
        "load_fit", "load_saved", "locked", "read_manifest", "save_checked", "save_fit",
        "saved_by", "slug"),
    "embias.simulate.noise": (
        "PUBLISHED_FIGURES", "SIMULATION_CI_KIND", "WeatSimulation", "WeatSimulationGrid",
        "simulate_weat", "simulate_weat_grid", "summarize_simulations"),
    "embias.debias": (
        "DEFAULT_K", "DEFINITIONAL_WHY", "DebiasResult", "bias_subspace", "hard_debias",
        "soft_debias"),
    "embias.bayes.batch_nuts": (
        "LaneDraws", "MAX_DELTA_ENERGY", "REPORT_EVERY", "STAT_NAMES",
        "adaptation_schedule", "compiled_program", "dense_metric", "last_window",
        "run_lanes"),
    "embias.bayes.diagnostics": (
        "ConvergenceWarning", "DEFAULT_CHECK_PROBS", "ESS_MIN", "PredictiveCheck",
        "RHAT_MAX", "cell_location_scale", "convergence_diagnostics",
        "convergence_problems", "count_divergences", "diagnostics_overview",
        "observed_distances", "posterior_predictive_check", "rank_normalized_diagnostics"),
    "embias.bayes.crossed": (
        "CrossedDesign", "TemplateDesign", "WORD_KINDS", "WORD_KIND_OF_CONNECTION",
        "WordGroups", "crossed_design", "draw_protected_coefficients", "draw_word_effects",
        "integrated_protected_cells", "row_template_effects"),
    "embias.bayes.model": (
        "CROSSED_LEVELS", "DataMode", "Level", "LevelStructure", "build_model",
        "level_structure", "protected_strata", "structure_starting_values",
        "summary_model_data"),
    "embias.bayes.fit": (
        "BiasFit", "CONDITIONAL_DRAWS", "CiKind", "DeferredDraws", "PendingClassic",
        "PendingLogLikelihood", "arviz_ready", "finish_fit", "fit_bias_model", "prepare_fit"),
    "embias.bayes.loo": (
        "K_THRESHOLD", "LOG_LIKELIHOOD_VARS", "LOO_UNITS", "LooUnit", "RefitLoo",
        "compare_models", "loo_tree", "pointwise_log_likelihood", "row_words", "same_data",
        "word_log_likelihood"),
    "embias.bayes.batch": (
        "EXECUTOR_CHUNK", "FitJob", "LOCAL_CHUNK", "batch_settings", "derived_seed",
        "fit_many", "run_fit_chunk", "run_fit_job"),
    "embias.bayes.sampling": (
        "BASE_MEMORY", "PEAK_PER_STORED_BYTE", "PEAK_PER_STORED_BYTE_OTHER",
        "SAMPLER_STATS", "compiled_shapes", "fit_memory",
        "initial_inverse_mass", "sample_posterior", "sample_posteriors", "shape_key"),
    "embias.bayes.influence": (
        "DEFAULT_ROLES", "K_THRESHOLD", "REFIT_CHOICES", "WORD_ROLES",
        "protected_word_log_likelihood", "rank_words", "word_influence"),
}

#: old module, old name → new module, new name
MOVED = {
    ("embias.bayes.influence", "compare_loo"): ("embias.bayes.loo", "compare_models"),
    ("embias.bayes.influence", "RefitLoo"): ("embias.bayes.loo", "RefitLoo"),
    ("embias.bayes.influence", "refit_loo"): ("embias.bayes.exact_loo", "refit_loo"),
    ("embias.bayes.influence", "compare_models_refit"):
        ("embias.bayes.exact_loo", "compare_models_refit"),
    ("embias.bayes.influence", "LOO_REFITS"): ("embias.bayes.exact_loo", "LOO_REFITS"),
    ("embias.bayes.influence", "WORD_PRIOR_SD"):
        ("embias.bayes.protected_likelihood", "WORD_PRIOR_SD"),
    ("embias.classifier.generalized", "MetricSpec"): ("embias.classifier.presets", "MetricSpec"),
    ("embias.classifier.generalized", "PRESETS"): ("embias.classifier.presets", "PRESETS"),
    ("embias.classifier.generalized", "fairness_metric"):
        ("embias.classifier.presets", "fairness_metric"),
    ("embias.classifier.generalized", "SignificanceResult"):
        ("embias.classifier.significance", "SignificanceResult"),
    ("embias.classifier.generalized", "template_significance"):
        ("embias.classifier.significance", "template_significance"),
    ("embias.bayes.influence", "plot_word_influence"):
        ("embias.plots.influence", "plot_word_influence"),
    ("embias.studies.sentiment", "plot_downstream"):
        ("embias.plots.downstream", "plot_downstream"),
    ("embias.studies.sentiment", "plot_sentence_scores"):
        ("embias.plots.downstream", "plot_sentence_scores"),
    **{(old, name): (new, name) for old, new, names in (
        ("embias.design", "embias.plots.design", ("plot_design_analysis",)),
        ("embias.design.figure", "embias.plots.design", ("plot_design_analysis",)),
        ("embias.calibration", "embias.plots.calibration", ("plot_calibration",)),
        ("embias.calibration.figure", "embias.plots.calibration", ("plot_calibration",)),
        ("embias.simulate_words", "embias.plots.word_sampling",
         ("plot_published_refits", "plot_word_sampling")),
        ("embias.simulate_words.plots", "embias.plots.word_sampling",
         ("plot_published_refits", "plot_word_sampling")),
        ("embias.classifier", "embias.plots.bbu", ("plot_bbu_coverage",)),
        ("embias.classifier.bbu", "embias.plots.bbu", ("plot_bbu_coverage",)),
        ("embias.classifier.bbu.figures", "embias.plots.bbu", ("plot_bbu_coverage",)),
    ) for name in names},
}


@pytest.mark.parametrize(("module", "name"), [(m, n) for m, names in KEPT.items()
                                              for n in names])
def test_every_name_of_a_split_module_is_importable_from_it_without_a_warning(
        module: str, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace: dict[str, object] = {}
        exec(f"from {module} import {name}", namespace)
    if name in embias.__all__:
        assert namespace[name] is getattr(embias, name)


@pytest.mark.parametrize(("old", "new"), list(MOVED.items()))
def test_a_name_that_moved_is_served_from_its_old_module_with_a_deprecation_warning(
        old: tuple[str, str], new: tuple[str, str]) -> None:
    module, name = old
    home, new_name = new
    with pytest.warns(DeprecationWarning, match=rf"{module}\.{name} has moved to "
                                                rf"{home}\.{new_name}; .* embias 0\.5"):
        namespace: dict[str, object] = {}
        exec(f"from {module} import {name}", namespace)
    assert namespace[name] is getattr(importlib.import_module(home), new_name)


def test_the_study_figures_stay_public_in_embias_studies() -> None:
    import embias.plots
    import embias.studies

    for name in ("plot_downstream", "plot_sentence_scores"):
        assert name in embias.studies.__all__ and name in embias.plots.__all__
        assert getattr(embias.studies, name) is getattr(embias.plots, name)
