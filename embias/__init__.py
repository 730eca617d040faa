"""embias — bias in word embeddings and classifiers, with honest uncertainty.

The entry points users call, grouped by what they do (internals stay importable from
their modules):

load
    :func:`load_embeddings`, :func:`embedding_name_of`, :func:`load_study`, :class:`Study`
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
    :func:`load_fit`, :func:`save_fit`, :func:`read_manifest`, :class:`FitJob`,
    :func:`fit_many`, :func:`study_jobs`, :class:`SavedFitReplacedWarning`,
    :class:`FitInterrupted`, :func:`configure_jax` (parallel chains and a persistent
    compilation cache, only when called)
sentence encoders
    :func:`default_encoder` (offline all-MiniLM-L6-v2), :func:`as_encoder`,
    :func:`sentence_table`, :func:`seat_test`, :func:`seat_overview`
compare
    :func:`compare_embeddings`, :func:`fit_change_model`
simulate
    :func:`simulate_weat`, :func:`simulate_weat_grid`, :func:`summarize_simulations`,
    :func:`exact_weat_distribution`, :func:`simulated_cosine_table`,
    :class:`WeatSimulationGrid`, :class:`SeededEstimate` …
debias
    :func:`hard_debias`, :func:`soft_debias`, :func:`bias_subspace`
report
    :func:`interval_table`, :func:`stack_interval_tables`, :func:`rope_decision`,
    :func:`to_markdown`, and the plots :func:`plot_forest`, :func:`plot_bias_fit`,
    :func:`plot_comparison`, :func:`plot_predictive_check`,
    :func:`plot_weat_simulations`, :func:`plot_simulated_table`,
    :func:`plot_template_sensitivity`
audit page
    :func:`audit_report` (writes the page), :func:`audit_html` (the page as a string),
    :class:`AuditOptions` (what the page shows)

The models live in :mod:`embias.bayes` (they take a table), the study runs that feed them
and keep their fits in :mod:`embias.pipeline`; the classic scores in :mod:`embias.classic`,
the WEAT simulations in :mod:`embias.simulate`; the classifier side lives in
:mod:`embias.classifier`; worked studies (the downstream sentiment classifier) in
:mod:`embias.studies`.

Names are imported when first used (``embias.fit_bias_model`` imports PyMC, ``import
embias`` does not), so the command line and ``import embias`` stay fast. The public names
are declared once, in ``embias/__init__.pyi``: this module reads them from there
(``lazy_loader.attach_stub``, SPEC 1), and type checkers read the same file.
"""

from __future__ import annotations

import lazy_loader

__version__ = "0.3.0"

# ``__getattr__`` imports a public name's module when the name is first used; ``__all__``
# lists the names of ``__init__.pyi`` (and ``__version__``), and ``dir(embias)`` shows them.
__getattr__, _lazy_dir, __all__ = lazy_loader.attach_stub(__name__, __file__)
__all__ = sorted([*__all__, "__version__"])


def __dir__() -> list[str]:
    """Return the public names (those of ``__init__.pyi`` and ``__version__``)."""
    return list(__all__)
