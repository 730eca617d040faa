"""The audit report: one self-contained HTML page per study.

What people hand to a colleague or attach to a paper's supplement is one page that shows
the data, the numbers, the pictures and the caveats together and that can be rebuilt.
:func:`audit_report` writes it (``embias report`` on the command line), in the order a
reader needs:

1. what was measured — the study, its word lists with counts and the words missing from
   each embedding, where every embedding comes from;
2. the classic scores — MAC with its Student-t intervals, WEAT of every pair of classes
   with its permutation p-value (and item-resampling intervals and SEAT when given);
3. the Bayesian fit — the interval table, the forest plot, every contrast's ROPE
   decision in plain words, the word-level tables;
4. how far to trust it — r̂, ESS, divergences, the posterior predictive check, and the
   PSIS-LOO comparison of the levels when several were fitted (:func:`embias.compare_models`);
5. which words drive the result — the word-influence ranking when given;
6. across embeddings — the paired change table and figure;
7. how to reproduce it — versions (installed, and when each fit was made), settings, seeds,
   the saved-fit keys and the command that rebuilds the page from the saved fits.

:func:`audit_html` gives the same page as a string. What the page shows (intervals,
ROPE, figures, seed, title, and the results computed elsewhere) is one
:class:`AuditOptions`; :func:`audit_report` also takes each of its fields as a keyword.

The page is one file: figures are inlined as SVG (or PNG) ``data:`` URIs, the style sheet
is inlined, nothing is fetched from any host, there is no script, and a print style sheet
keeps figures and table rows whole across pages. Tables are HTML tables (copyable), the
page is built from Jinja2 templates (``embias/audit/templates``). A report built from saved
fits refits nothing: the interval tables, diagnostics, classic scores and figures kept
with each fit are read back.

Parts that need results computed elsewhere take them as optional inputs (a DataFrame, a
matplotlib figure, a list of them, or the path of a CSV or parquet file) and say "not
computed" with what would compute them when absent: ``seat=`` (SEAT results; ``encoder=``
computes SEAT here), ``weat=`` (WEAT rows replacing those computed here from the fitted
tables), ``model_comparison=`` (computed here with :func:`embias.compare_models` when
several levels of one embedding are reported), ``word_influence=`` (which words drive the
result; for the crossed level the page also ranks the compared words' own offsets).

The package, one module per idea (its public names are also importable from
``embias.audit``):

- :mod:`~embias.audit.page` — :func:`audit_report` and :func:`audit_html`: the page built
  and written, its path checked (``check_report_path``);
- :mod:`~embias.audit.options` — :class:`AuditOptions`, the page's content choices;
- :mod:`~embias.audit.inputs` — the levels, embeddings, study and input files checked and
  read before any work;
- :mod:`~embias.audit.sources` — the fits, the comparison and the tables given, collected;
- :mod:`~embias.audit.fitting` — the fits and the comparison made here when none are given;
- :mod:`~embias.audit.sections` — the page's sections and the parts that take results
  computed elsewhere (:data:`~embias.audit.sections.OPTIONAL_INPUTS`);
- :mod:`~embias.audit.rebuild` — the commands that made the page and that rebuild it;
- :mod:`~embias.audit.figures` — ``keep_figures``, the figures a saved fit keeps;
- :mod:`~embias.audit.content` — the section builders and the figures (with the modules
  it names: wording, glance, measured, classic_scores, optional, word_effects, across,
  reproduce);
- :mod:`~embias.audit.render` — the templates, tables, pictures and the figure cache.
"""

from .figures import keep_figures as keep_figures
from .inputs import FILE_INPUTS as FILE_INPUTS
from .options import ENCODER_NAMES as ENCODER_NAMES
from .options import FROM_OPTIONS as FROM_OPTIONS
from .options import AuditOptions as AuditOptions
from .options import CiKind as CiKind
from .options import options_from_keywords as options_from_keywords
from .page import PAGE_SUFFIXES as PAGE_SUFFIXES
from .page import audit_html as audit_html
from .page import audit_report as audit_report
from .page import check_report_path as check_report_path
from .sections import OPTIONAL_INPUTS as OPTIONAL_INPUTS

__all__ = ["OPTIONAL_INPUTS", "AuditOptions", "audit_html", "audit_report",
           "check_report_path", "keep_figures"]
