# Sphinx configuration of embias's documentation site.
#
# Theme and readers: pydata-sphinx-theme, numpydoc and myst-nb, the stack ArviZ and PyMC build
# their sites with (Fairlearn and WEFE use numpydoc too). myst-nb rather than sphinx-gallery
# because the gallery is the project's Jupyter notebooks (notebooks/*.ipynb, which the test
# suite re-executes and compares): myst-nb renders them from their STORED outputs
# (nb_execution_mode = "off"), so a build runs no model and takes seconds, and the pages are
# written in MyST Markdown like the notebooks' own text. sphinx-gallery would re-execute
# Python scripts at build time.
#
# Offline: no intersphinx (nothing is fetched at build time), no MathJax (the pages write
# formulas in plain text), nothing loaded from a CDN. Generated at every build, before Sphinx
# reads the sources (docs/.gitignore lists them): the API reference's page from
# embias/__init__.pyi and the subpackages' __all__ (docs/_ext/apigen.py), and the benchmark
# tables from benchmarks/results/ (docs/_ext/benchtables.py).
#
# `make docs` builds the site: sphinx-build -W --keep-going -n (warnings are errors, and
# every cross-reference to embias's own names must resolve).

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

import apigen  # noqa: E402
import benchtables  # noqa: E402

import embias  # noqa: E402

project = "embias"
author = "the embias authors"
copyright = "2026, the embias authors"
release = embias.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "embias_docs",
]

# --- sources -------------------------------------------------------------------------------
exclude_patterns = ["_build", "jupyter_execute", "_generated/*", "**/.ipynb_checkpoints",
                    "_templates"]
templates_path = ["_templates"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # the included CHANGELOG/CONTRIBUTING start at level 2

# --- notebooks: rendered from their stored outputs, never executed -------------------------
nb_execution_mode = "off"
nb_output_stderr = "remove"  # progress bars and warnings of the run that stored the outputs
nb_merge_streams = True

# --- API reference ---------------------------------------------------------------------------
apigen.write_api_pages(DOCS, ROOT / "embias" / "__init__.pyi")
benchtables.write_tables(DOCS / "_generated", ROOT / "benchmarks" / "results")

autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters/Returns carry the types
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False  # the class template lists the members (autodoc)
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Nitpicky for embias's own names: every :func:/:class:/:mod: reference to embias must
# resolve. Third-party and standard-library names cannot resolve without intersphinx (which
# would fetch at build time), so they are ignored by prefix.
nitpicky = True
_THIRD_PARTY = (
    "np", "numpy", "pd", "pandas", "xr", "xarray", "az", "arviz", "arviz_base", "arviz_stats",
    "pm", "pymc", "pytensor", "jax", "numpyro", "nutpie", "scipy", "matplotlib", "plt", "mpl",
    "gensim", "KeyedVectors", "sklearn", "dask", "distributed", "concurrent", "collections",
    "typing", "os", "pathlib", "Path", "datetime", "jinja2", "filelock", "onnxruntime",
    "tokenizers", "numpy.typing", "tqdm", "warnings", "pyarrow", "io", "abc", "enum",
    "dataclasses", "functools", "itertools", "subprocess", "threading", "multiprocessing",
    "importlib",
)
# Internal names of embias that docstrings refer to but the API reference does not document
# (they are not public). TEMPORARY: each should become public, or its docstring mention
# become plain ``code`` (issue 30, item 3, the docstring pass). Listed one by one so that a
# NEW unresolved reference to embias still fails the build.
_INTERNAL_REFERENCES = {
    "class": (
        "CompileCacheWarning", "UnreadableFitError", "embias._workers.WorkerProcesses",
    ),
    "data": (
        "BATCH_TARGET_ACCEPT", "BATCH_DENSE_TARGET_ACCEPT",
        "BATCH_TUNE", "BUILTIN_POPULATIONS", "CALISKAN_840B",
        "CLASSIC_CI_PROB", "CONDITIONAL_DRAWS", "CONTRASTS", "DEFAULT_DESIGN", "FIT_FORMAT",
        "FORMATS", "INTERVAL_COLUMNS", "ITEM_BOOTSTRAP_CI_KIND", "JAX_HOST_DEVICES",
        "MAX_DRAWS_PER_REPLICATE", "PAIR_KEY", "PRACTICALLY_EQUIVALENT", "PUBLISHED_EMBEDDINGS",
        "PUBLISHED_STUDIES", "RESAMPLE_OPTIONS", "RESULT_COLUMNS", "SUMMARY_COLUMNS",
        "TABLE_COLUMNS", "UNDECIDED", "embias.bayes.CONTRASTS", "embias.bayes.summary.CONTRASTS",
        "embias.classic.MAX_DRAWS_PER_REPLICATE", "embias.populations.DEFAULT_DESIGN",
        "embias.tables.CONNECTIONS", "embias.tables.TABLE_COLUMNS",
    ),
    "func": (
        "build_model", "cached_study_table", "check_mac_roles", "check_weat_roles",
        "choose_centring", "compare_loo", "draw_word_effects",
        "embias._validation.check_word_list", "embias._validation.resolve_rng",
        "embias.bayes.batch_nuts.run_lanes", "embias.bayes.batch_sampling.batch_supported",
        "embias.bayes.data.choose_centring", "embias.bayes.diagnostics.convergence_diagnostics",
        "embias.bayes.diagnostics.posterior_predictive_check",
        "embias.bayes.loo.word_log_likelihood", "embias.bayes.model.build_model",
        "embias.classic.association_scores", "embias.classic.check_weat_roles",
        "embias.tables.validate_table", "embias.wordlists.read_wordlist", "find_model_files",
        "fit_sentence_model", "format_number", "initial_values", "panel_grid", "refit_loo",
        "resolve_word_kinds", "run_fit_job", "run_lanes", "summarize_design_analysis",
        "validate_table", "vector_model_effect_size", "word_log_likelihood",
    ),
    "meth": (
        "CrossedDesign.word_groups",
    ),
    "mod": (
        "embias._process_setup", "embias._validation",
    ),
}
nitpick_ignore = [(f"py:{role}", name) for role, names in _INTERNAL_REFERENCES.items()
                  for name in names]
nitpick_ignore_regex = [
    (r"py:.*", rf"({'|'.join(_THIRD_PARTY)})(\..*)?"),
    # builtins and typing words that appear in docstrings' prose types
    (r"py:.*", r"(int|float|str|bool|bytes|list|dict|tuple|set|frozenset|object|callable|"
               r"None|type|Any|Sequence|Mapping|Iterable|Iterator|Callable|Literal|"
               r"Exception|ValueError|TypeError|KeyError|RuntimeError|Warning|UserWarning|"
               r"FutureWarning|DeprecationWarning|FileNotFoundError|ImportError|OSError|"
               r"KeyboardInterrupt|NotImplementedError|TimeoutError|IndexError)"),
]

# --- HTML --------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"embias {release}"
html_static_path = ["_static"]
html_css_files = ["embias.css"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_context = {"default_mode": "light"}
# pages without sub-pages: no empty section navigation, the tables get the width
html_sidebars = {page: [] for page in ("index", "getting_started", "benchmarks", "changelog",
                                       "citing", "contributing")}
