# The public API of ``embias``, declared once. ``embias/__init__.py`` reads this file
# (lazy_loader.attach_stub, SPEC 1): each name is imported from its module when it is first
# used, so ``import embias`` imports none of these modules; type checkers and IDEs read the
# same imports. Add a public name here, in its group (the documentation groups the API as
# this file does), as ``from .module import name as name``.
# ruff: noqa: I001 (the imports are grouped by what the names do, not sorted)

__version__: str

# --------------------------------------------------------------------------- load
from .embeddings import MissingWords as MissingWords
from .embeddings import MissingWordsError as MissingWordsError
from .embeddings import embedding_name_of as embedding_name_of
from .embeddings import load_embeddings as load_embeddings
from .wordlists import Study as Study
from .wordlists import load_study as load_study

# --------------------------------------------------------------------------- tables
from .tables import align_tables as align_tables
from .tables import cosine_table as cosine_table
from .tables import difference_table as difference_table
from .tables import load_published_table as load_published_table
from .tables import study_table as study_table
from .tables import summarize_table as summarize_table

# --------------------------------------------------------------------------- classic scores
from .classic import MacResult as MacResult
from .classic import WeatBootstrap as WeatBootstrap
from .classic import WeatResult as WeatResult
from .classic import classic_changes as classic_changes
from .classic import classic_scores as classic_scores
from .classic import mac as mac
from .classic import mac_ttest as mac_ttest
from .classic import weat as weat
from .classic import weat_effect_size as weat_effect_size
from .classic import weat_item_bootstrap as weat_item_bootstrap
from .classic import weat_overview as weat_overview
from .classic import weat_pairs as weat_pairs
from .classic import weat_test as weat_test
from .weat_population import WeatPopulationBootstrap as WeatPopulationBootstrap
from .weat_population import disattenuated_effect_size as disattenuated_effect_size
from .weat_population import population_effect_size as population_effect_size
from .weat_population import weat_population_bootstrap as weat_population_bootstrap

# --------------------------------------------------------------------------- fit
from .settings import FitSettings as FitSettings
from ._process_setup import configure_jax as configure_jax
from .bayes import BiasFit as BiasFit
from .bayes import ConvergenceWarning as ConvergenceWarning
from .bayes import FitJob as FitJob
from .bayes import PredictiveCheck as PredictiveCheck
from .bayes import cell_statistics as cell_statistics
from .bayes import fit_bias_model as fit_bias_model
from .bayes import fit_many as fit_many
from .bayes.loo import compare_models as compare_models
from .bayes.loo import pointwise_log_likelihood as pointwise_log_likelihood
from .pipeline import FitInterrupted as FitInterrupted
from .pipeline import SavedFitReplacedWarning as SavedFitReplacedWarning
from .pipeline import fit_gender_model as fit_gender_model
from .pipeline import fit_race_model as fit_race_model
from .pipeline import fit_religion_model as fit_religion_model
from .pipeline import fit_study_model as fit_study_model
from .pipeline import load_fit as load_fit
from .pipeline import read_manifest as read_manifest
from .pipeline import save_fit as save_fit
from .pipeline import study_jobs as study_jobs

# --------------------------------------------------------------------------- word influence
from .influence_table import rank_words as rank_words
from .plots.influence import plot_word_influence as plot_word_influence
from .bayes.influence import word_influence as word_influence

# --------------------------------------------------------------------------- sentence encoders
from .encoders import MiniLMEncoder as MiniLMEncoder
from .encoders import SentenceEncoder as SentenceEncoder
from .encoders import as_encoder as as_encoder
from .encoders import default_encoder as default_encoder
from .sentences import load_templates as load_templates
from .sentences import load_word_kinds as load_word_kinds
from .sentences import seat_overview as seat_overview
from .sentences import seat_test as seat_test
from .sentences import sentence_table as sentence_table
from .sentences import word_sentences as word_sentences

# --------------------------------------------------------------------------- compare
from .bayes import ChangeFit as ChangeFit
from .bayes import fit_change_model as fit_change_model
from .pipeline import EmbeddingComparison as EmbeddingComparison
from .pipeline import compare_embeddings as compare_embeddings

# --------------------------------------------------------------------------- simulate
from .simulate import PUBLISHED_FIGURES as PUBLISHED_FIGURES
from .simulate import SeededEstimate as SeededEstimate
from .simulate import WeatDistribution as WeatDistribution
from .simulate import WeatSimulation as WeatSimulation
from .simulate import WeatSimulationGrid as WeatSimulationGrid
from .simulate import exact_weat_distribution as exact_weat_distribution
from .simulate import largest_weat_index as largest_weat_index
from .simulate import simulate_weat as simulate_weat
from .simulate import simulate_weat_bootstrap_coverage as simulate_weat_bootstrap_coverage
from .simulate import simulate_weat_grid as simulate_weat_grid
from .simulate import simulated_cosine_table as simulated_cosine_table
from .simulate import summarize_simulations as summarize_simulations

# --------------------------------------------------------------------------- word sampling
from .simulate_words import WordSamplingParameters as WordSamplingParameters
from .simulate_words import WordSamplingSimulation as WordSamplingSimulation
from .simulate_words import calibrate_word_sampling as calibrate_word_sampling
from .plots import plot_published_refits as plot_published_refits
from .plots import plot_word_sampling as plot_word_sampling
from .simulate_words import published_conclusions as published_conclusions
from .simulate_words import refit_published_tables as refit_published_tables
from .simulate_words import simulate_word_sampling as simulate_word_sampling
from .simulate_words import simulate_word_table as simulate_word_table
from .simulate_words import summarize_word_sampling as summarize_word_sampling
from .simulate_words import word_effect_shares as word_effect_shares

# --------------------------------------------------------------------------- populations
from .populations import PopulationDesign as PopulationDesign
from .populations import WordPopulations as WordPopulations
from .populations import load_populations as load_populations
from .calibration import PopulationCalibration as PopulationCalibration
from .calibration import calibrate_on_populations as calibrate_on_populations
from .calibration import draw_population_studies as draw_population_studies
from .plots import plot_calibration as plot_calibration
from .calibration import population_answers as population_answers
from .calibration import summarize_calibration as summarize_calibration

# --------------------------------------------------------------------------- design analysis
from .design import DesignAnalysis as DesignAnalysis
from .design import design_analysis as design_analysis
from .plots import plot_design_analysis as plot_design_analysis

# --------------------------------------------------------------------------- debias
from .debias import DebiasResult as DebiasResult
from .debias import bias_subspace as bias_subspace
from .debias import hard_debias as hard_debias
from .debias import soft_debias as soft_debias

# --------------------------------------------------------------------------- report
from .report import combine_interval_tables as combine_interval_tables
from .report import interval_table as interval_table
from .report import rope_decision as rope_decision
from .report import stack_interval_tables as stack_interval_tables
from .report import to_markdown as to_markdown
from .plots import plot_bbu_coverage as plot_bbu_coverage
from .plots import plot_bias_fit as plot_bias_fit
from .plots import plot_comparison as plot_comparison
from .plots import plot_forest as plot_forest
from .plots import plot_predictive_check as plot_predictive_check
from .plots import plot_simulated_table as plot_simulated_table
from .plots import plot_template_sensitivity as plot_template_sensitivity
from .plots import plot_weat_simulations as plot_weat_simulations

# --------------------------------------------------------------------------- audit page
from .audit import AuditOptions as AuditOptions
from .audit import audit_html as audit_html
from .audit import audit_report as audit_report

# --------------------------------------------------------------------------- subpackages
from . import audit as audit
from . import bayes as bayes
from . import classic as classic
from . import classifier as classifier
from . import encoders as encoders
from . import pipeline as pipeline
from . import plots as plots
from . import report as report
from . import sentences as sentences
from . import settings as settings
from . import simulate as simulate
from . import studies as studies
