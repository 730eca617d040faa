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
"""

from __future__ import annotations

import datetime as _datetime
import os
import shlex
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._deprecation import REMOVED_IN, renamed_keywords
from .._validation import writable
from ..settings import DEFAULT_MODELS_DIR
from .options import ENCODER_NAMES as ENCODER_NAMES
from .options import (
    FROM_OPTIONS,
    AuditOptions,
    CiKind,
    options_from_keywords,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..pipeline.compare import EmbeddingComparison
    from ..settings import FitSettings
    from ..wordlists import Study
    from .sources import ComparisonInput, FitEntry

__all__ = ["OPTIONAL_INPUTS", "AuditOptions", "audit_html", "audit_report",
           "check_report_path", "keep_figures"]

#: The optional inputs of the page: name → (what it is, why it may be absent, what
#: computes it). The hook points for results built elsewhere: when a function that
#: computes one exists, call it in :func:`audit_html` where ``OPTIONAL_INPUTS`` is read.
OPTIONAL_INPUTS: Mapping[str, tuple[str, str, str]] = {
    "seat": ("SEAT (WEAT on sentence embeddings)",
             "no sentence encoder was given",
             "embias report … --encoder minilm (audit_report(..., encoder='minilm')), or pass "
             "SEAT results: audit_report(..., seat=TABLE) / --seat FILE.csv"),
    "model_comparison": ("model comparison across levels (PSIS-LOO)",
                         "no model comparison table was given",
                         "report several levels of one embedding (embias report … --level "
                         "word hierarchical crossed): they are compared with "
                         "embias.compare_models; or pass a table: "
                         "audit_report(..., model_comparison=TABLE) / --model-comparison "
                         "FILE.csv"),
    "word_influence": ("word influence (which words drive the result)",
                       "no word-influence ranking was given",
                       "pass the ranking: audit_report(..., word_influence=TABLE) / "
                       "--word-influence FILE.csv"),
}

#: Suffixes accepted for the page.
PAGE_SUFFIXES: tuple[str, ...] = (".html", ".htm")

#: The results computed elsewhere that may be given as a file (CSV or parquet).
FILE_INPUTS: tuple[str, ...] = ("weat", "seat", "model_comparison", "word_influence")


def check_report_path(path: str | os.PathLike[str], *, name: str = "out") -> Path:
    """Check the page's path before any work and return it.

    The page is an ``.html`` file whose folder exists or can be created (the output rule
    of every embias output, :func:`embias._validation.check_output`: missing folders are
    created when the page is written).

    Parameters
    ----------
    path
        The page's file name.
    name
        The option's name in messages.

    Returns
    -------
    pathlib.Path
        The path.

    Raises
    ------
    ValueError
        Not an ``.html``/``.htm`` file name, a folder, or a folder that cannot be made.

    Examples
    --------
    >>> check_report_path("religion.html").name
    'religion.html'
    >>> check_report_path("religion.pdf")
    Traceback (most recent call last):
    ...
    ValueError: out 'religion.pdf': the report is an HTML page; give a .html file name
    """
    path = Path(path)
    if path.suffix.lower() not in PAGE_SUFFIXES:
        raise ValueError(f"{name} {str(path)!r}: the report is an HTML page; give a .html "
                         "file name")
    if path.is_dir():
        raise ValueError(f"{name} {str(path)!r} is a folder; give a .html file name")
    from .._validation import check_output

    return check_output(name, path)


def _rebuild_command(
    study: str,
    entries: Sequence[Any],
    *,
    out: Path | None,
    comparison_path: str | None,
    files: Mapping[str, str],
    ci_prob: float,
    ci_kind: str,
    rope: float,
    figures: str,
    random_seed: int,
    encoder: str | None = None,
) -> str | None:
    """Return the ``embias report`` command that rebuilds the page from the saved fits.

    None when a fit is not saved.
    """
    from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE

    if any(not e.fit.path for e in entries):
        return None
    parts = ["embias", "report", study]
    for path in dict.fromkeys(e.fit.path for e in entries):
        parts += ["--fits", str(path)]
    for e in {e.label: e for e in entries}.values():
        if e.label != e.source:
            parts += ["--embedding", f"{e.label}={e.source}"]
    if comparison_path:
        parts += ["--comparison", comparison_path]
    for name, path in files.items():
        parts += [f"--{name.replace('_', '-')}", path]
    if encoder:
        parts += ["--encoder", encoder]
    if ci_prob != DEFAULT_CI_PROB:
        parts += ["--ci-prob", f"{ci_prob:g}"]
    if ci_kind != "hdi":
        parts += ["--ci-kind", ci_kind]
    if rope != DEFAULT_ROPE:
        parts += ["--rope", f"{rope:g}"]
    if figures != "svg":
        parts += ["--figures", figures]
    if random_seed != 0:
        parts += ["--report-seed", str(random_seed)]
    parts += ["--out", str(out) if out is not None else "report.html"]
    return shlex.join(parts)


def _python_call(study: str, entries: Sequence[Any], out: Path | None) -> str:
    """Return the Python call that rebuilds the page from the saved fits."""
    fits = {e.label: e.fit.path for e in entries if e.fit.path}
    if len(fits) < len(entries) or len(set(fits)) < len(entries):
        listed = ", ".join(repr(e.fit.path) for e in entries if e.fit.path)
        fits_text = f"[{listed}]"
    else:
        fits_text = "{" + ", ".join(f"{k!r}: {v!r}" for k, v in fits.items()) + "}"
    return (f"embias.audit_report({study!r}, fits={fits_text}, "
            f"out={str(out) if out else 'report.html'!r})")


@renamed_keywords(progressbar="progress")
def audit_report(
    study: str | Study | None = None,
    *,
    out: str | os.PathLike[str] | None = None,
    fits: Any = None,
    embeddings: str | Mapping[str, str] | None = None,
    levels: str | Sequence[str] | None = None,
    settings: FitSettings | None = None,
    models_dir: str | os.PathLike[str] = DEFAULT_MODELS_DIR,
    comparison: EmbeddingComparison | pd.DataFrame | str | os.PathLike[str] | None = None,
    compare: bool = True,
    options: AuditOptions | None = None,
    ci_prob: float | None = FROM_OPTIONS,
    ci_kind: str = FROM_OPTIONS,
    rope: float | None = FROM_OPTIONS,
    weat: pd.DataFrame | str | os.PathLike[str] | None = FROM_OPTIONS,
    seat: Any = FROM_OPTIONS,
    model_comparison: Any = FROM_OPTIONS,
    word_influence: Any = FROM_OPTIONS,
    encoder: Any = FROM_OPTIONS,
    figures: str = FROM_OPTIONS,
    random_seed: int | None = FROM_OPTIONS,
    title: str | None = FROM_OPTIONS,
    command: str | None = FROM_OPTIONS,
    progress: bool = False,
    return_html: bool = False,
) -> Path:
    """Write the audit report of a study: one self-contained HTML page.

    :func:`audit_html` gives the same page as a string, writing nothing.

    Parameters
    ----------
    study
        The study (``"religion"`` …, a folder of word lists or a :class:`~embias.Study`);
        default: the study of the ``fits`` given.
    out
        The ``.html`` file to write (missing folders are created).
    fits
        Build the page from these fits, refitting nothing: a :class:`~embias.BiasFit`, a
        saved-fit folder (``models/religion_glove-6b-50d_hierarchical_summary_<key>``), a
        folder of saved fits (``models/``: those of ``study``), a list of those, or a
        mapping label → fit or saved-fit folder.
    embeddings
        Label → embedding source (``{"glove": "glove-6b-50d", "reddit":
        "published:reddit"}``) or one source. Without ``fits``: the embeddings to fit the
        study on (:func:`embias.fit_study_model`, which reuses identical saved fits in
        ``models_dir``; default GloVe 6B 50d). With ``fits``: keep the fits of these
        sources and label them so.
    levels
        Model levels. Without ``fits``: the levels to fit (default: the level of
        ``settings``, ``"crossed"`` unless set).
        With ``fits``: keep only these levels (default all).
    settings
        Model and sampler settings of the fits made here (:class:`~embias.FitSettings`).
    models_dir
        Where fits made here are saved (and the comparison's interval table).
    comparison
        The comparison of embeddings: an :class:`~embias.EmbeddingComparison`, its
        interval table, or the path of the CSV ``embias compare`` writes. Without it,
        fitting several embeddings here runs :func:`embias.compare_embeddings` (unless
        ``compare=False``) and saves its table in ``models_dir``.
    compare
        Run the comparison when several embeddings are fitted here.
    options
        The page's content choices (:class:`AuditOptions`): intervals, ROPE, figures,
        seed, title, command and the results computed elsewhere. Each may also be given
        as the keyword of the same name below; a keyword that disagrees with ``options``
        is an error.
    ci_prob, ci_kind, rope
        Intervals and ROPE of the Bayesian tables (defaults 0.89, ``"hdi"``, 0.02).
    weat
        WEAT rows (an interval table like :func:`embias.weat_pairs`'s, e.g. with
        item-resampling intervals) replacing those computed here from the fitted tables
        (permutation p-values, no interval).
    seat, model_comparison, word_influence
        Results computed elsewhere (DataFrame, matplotlib figure, a list of them, or a
        CSV/parquet path); absent: the section says "not computed" and how to compute it
        (SEAT: unless ``encoder`` is given; the model comparison: unless several levels of
        one embedding are reported, which :func:`embias.compare_models` compares).
    encoder
        Compute SEAT (:func:`embias.sentences.seat_test`, every pair of protected classes)
        with this sentence encoder: ``"minilm"`` (the offline all-MiniLM-L6-v2; needs the
        ``sentence`` extra) or an encoder object (:func:`embias.encoders.as_encoder`).
    figures
        ``"svg"`` (default) or ``"png"``: how figures are inlined.
    random_seed
        Seed of the posterior predictive draws and of Monte Carlo permutations (default
        0; ``None`` draws a fresh one, recorded on the page).
    title
        Page title (default ``"Audit report: <study>"``).
    command
        The command that made the page, shown in the reproducibility block (the command
        line passes its own).
    progress
        Show the progress of the fits made here and of the model comparison's PSIS-LOO
        (only on a terminal or in a notebook). ``progressbar`` is the deprecated spelling.
    return_html
        Deprecated (removed in embias 0.5): return ``(path, html)`` instead of the path
        (``out`` may then be None). Call :func:`audit_html` for the page as a string.

    Returns
    -------
    pathlib.Path
        The page's path.

    Raises
    ------
    ValueError
        A bad option, a keyword that disagrees with ``options``, no ``out``, an output
        path that cannot be written, a study with no fitted level among the fits given,
        two fits of one embedding and level, fits of several studies, an unknown study;
        each message names it.
    FileNotFoundError
        A saved-fit folder or an input file that is not there (:func:`embias.load_fit`'s
        own error for a fit).

    Examples
    --------
    A page of a small fit (the dataset level: one mean per connection; 20 of the neutral
    words), written to a temporary folder:

    >>> import tempfile, warnings
    >>> from pathlib import Path
    >>> import embias
    >>> table = embias.load_published_table("religion", "reddit")
    >>> neutral = table.loc[table["connection"] == "none", "word_to_compare"].unique()[:20]
    >>> table = table[(table["connection"] != "none") | table["word_to_compare"].isin(neutral)]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # 100 draws: too few for the convergence checks
    ...     fit = embias.fit_bias_model(table, level="dataset", draws=100, tune=100,
    ...                                 chains=1, sampler="pymc", random_seed=1,
    ...                                 progress=False)
    >>> folder = Path(tempfile.mkdtemp())
    >>> options = AuditOptions(title="Religion on Reddit", rope=0.05)
    >>> path = audit_report(fits={"reddit": fit}, out=folder / "religion.html",
    ...                     options=options)
    >>> path.name
    'religion.html'
    >>> "<title>Religion on Reddit</title>" in path.read_text(encoding="utf-8")
    True

    A keyword that disagrees with the options object:

    >>> audit_report(fits=fit, out=folder / "r.html", options=options, rope=0.02)
    Traceback (most recent call last):
    ...
    ValueError: audit_report() got options= and rope=0.02, which disagrees with options.rope=0.05...
    """
    options = options_from_keywords(options, {
        "ci_prob": ci_prob, "ci_kind": ci_kind, "rope": rope, "weat": weat, "seat": seat,
        "model_comparison": model_comparison, "word_influence": word_influence,
        "encoder": encoder, "figures": figures, "random_seed": random_seed, "title": title,
        "command": command})
    if return_html:
        warnings.warn("audit_report(return_html=True) is deprecated: audit_report() returns "
                      "the page's path; call embias.audit.audit_html() (the same arguments "
                      "but out=, content choices in options=) for the page as a string. "
                      f"return_html will be removed in embias {REMOVED_IN}", FutureWarning,
                      stacklevel=3)
    elif out is None:
        raise ValueError("audit_report() needs out= (the .html file to write); for the page "
                         "as a string call embias.audit.audit_html()")
    out_path = check_report_path(out) if out is not None else None
    html = _page(study, out_path=out_path, fits=fits, embeddings=embeddings, levels=levels,
                 settings=settings, models_dir=models_dir, comparison=comparison,
                 compare=compare, options=options, progress=progress)
    if out_path is not None:
        _write_page(out_path, html)
    if return_html:  # the deprecated (path, html) pair, until embias 0.5
        return (out_path, html)  # type: ignore[return-value]  # deprecated return_html=True
    assert out_path is not None  # out is required without return_html
    return out_path


@renamed_keywords(progressbar="progress")
def audit_html(
    study: str | Study | None = None,
    *,
    fits: Any = None,
    embeddings: str | Mapping[str, str] | None = None,
    levels: str | Sequence[str] | None = None,
    settings: FitSettings | None = None,
    models_dir: str | os.PathLike[str] = DEFAULT_MODELS_DIR,
    comparison: EmbeddingComparison | pd.DataFrame | str | os.PathLike[str] | None = None,
    compare: bool = True,
    options: AuditOptions | None = None,
    progress: bool = False,
) -> str:
    """Return the audit report of a study as one self-contained HTML page, writing nothing.

    The page of :func:`audit_report` (which writes it to a file), built from the same
    inputs; its rebuild command names ``report.html`` as the page to write.

    Parameters
    ----------
    study, fits, embeddings, levels, settings, models_dir, comparison, compare, progress
        As in :func:`audit_report`.
    options
        The page's content choices (:class:`AuditOptions`; default: its defaults).

    Returns
    -------
    str
        The page's HTML.

    Raises
    ------
    ValueError
        As :func:`audit_report` (a bad input, a study with no fitted level among the fits
        given …); the message names it.
    FileNotFoundError
        A saved-fit folder or an input file that is not there.

    Examples
    --------
    The page of a small fit (the dataset level: one mean per connection; 20 of the neutral
    words), with the Bayesian intervals as 95% equal-tailed intervals:

    >>> import re, warnings
    >>> import embias
    >>> table = embias.load_published_table("religion", "reddit")
    >>> neutral = table.loc[table["connection"] == "none", "word_to_compare"].unique()[:20]
    >>> table = table[(table["connection"] != "none") | table["word_to_compare"].isin(neutral)]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # 100 draws: too few for the convergence checks
    ...     fit = embias.fit_bias_model(table, level="dataset", draws=100, tune=100,
    ...                                 chains=1, sampler="pymc", random_seed=1,
    ...                                 progress=False)
    >>> html = audit_html(fits={"reddit": fit}, options=AuditOptions(ci_prob=0.95,
    ...                                                              ci_kind="eti"))
    >>> re.findall(r'<section id="([a-z]+)"', html)
    ['glance', 'measured', 'classic', 'bayes', 'trust', 'words', 'across', 'reproduce']
    >>> "95% ETI" in html, html.count("<img ")
    (True, 2)
    """
    return _page(study, out_path=None, fits=fits, embeddings=embeddings, levels=levels,
                 settings=settings, models_dir=models_dir, comparison=comparison,
                 compare=compare, options=options or AuditOptions(), progress=progress)


def _write_page(out_path: Path, html: str) -> None:
    """Write the page whole or not at all (one temporary file per process)."""
    writable(out_path)
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        os.replace(tmp, out_path)
    finally:
        tmp.unlink(missing_ok=True)


def _checked_levels(levels: str | Sequence[str] | None) -> list[str] | None:
    """Check the levels asked for: each one of :data:`embias.settings.LEVELS`."""
    from .._validation import check_choice
    from ..settings import LEVELS

    if levels is None:
        return None
    checked = [check_choice("levels", level, LEVELS)
               for level in ([levels] if isinstance(levels, str) else levels)]
    if not checked:
        raise ValueError(f"levels is empty; give at least one of {list(LEVELS)}")
    return checked


def _checked_embeddings(embeddings: str | Mapping[str, str] | None) -> dict[str, str] | None:
    """Label → source of the embeddings asked for (one source is labelled by itself)."""
    if embeddings is None:
        return None
    if isinstance(embeddings, str):
        embeddings = {embeddings: embeddings}
    bad = ([k for k, v in embeddings.items() if not k or not isinstance(v, str) or not v]
           if isinstance(embeddings, Mapping) else [embeddings])
    if bad or not embeddings:
        raise ValueError(f"embeddings must map non-empty labels to source strings, got "
                         f"{dict(embeddings)!r}")
    return dict(embeddings)


def _read_inputs(options: AuditOptions) -> tuple[AuditOptions, dict[str, str]]:
    """Read every result given as a file (CSV/parquet) into the options.

    Returns the options with the tables read and the files they were read from; the WEAT
    rows must be an interval table.
    """
    import pandas as pd

    files = {name: str(getattr(options, name)) for name in FILE_INPUTS
             if isinstance(getattr(options, name), str | os.PathLike)}
    if files:
        from .sources import read_table

        options = replace(options, **{name: read_table(path, what=name.replace("_", "-"))
                                      for name, path in files.items()})
    if options.weat is not None:
        from ..report import validate_interval_table

        if not isinstance(options.weat, pd.DataFrame):
            raise ValueError(f"weat must be an interval table (DataFrame) or its file, got "
                             f"{type(options.weat).__name__}")
        validate_interval_table(options.weat)
    return options, files


def _study_of(study: str | Study | None) -> tuple[Study | None, str | None]:
    """Return the study's word lists (when it can be loaded) and its name."""
    from ..wordlists import Study, load_study

    if isinstance(study, Study):
        return study, study.name
    if study is None:
        return None, None
    st = load_study(study)  # an unknown study fails here, before anything is loaded
    return st, st.name


def _fit_here(
    study: Study | str,
    *,
    embeddings: Mapping[str, str] | None,
    levels: Sequence[str] | None,
    settings: FitSettings | None,
    models_dir: str | os.PathLike[str],
    progress: bool,
) -> tuple[list[FitEntry], FitSettings, dict[str, str]]:
    """Fit (or reuse the saved fits of) the study on every embedding at every level.

    Returns the entries, the settings they were fitted with and the embeddings.
    """
    from ..pipeline.study_fits import fit_study_model
    from ..settings import FitSettings, sampler_available
    from .sources import FitEntry

    run = FitSettings.build(settings)
    sampler_available(run.sampler)
    sources = embeddings or {"glove-6b-50d": "glove-6b-50d"}
    entries = []
    for label, source in sources.items():
        for level in levels or [run.level]:
            fit = fit_study_model(study, source, settings=run, level=level,
                                  models_dir=models_dir, progress=progress)
            entries.append(FitEntry(label=label, fit=fit))
    return entries, run, dict(sources)


def _compare_here(
    study: Study | str,
    study_name: str,
    sources: Mapping[str, str],
    *,
    run: FitSettings,
    level: str,
    models_dir: str | os.PathLike[str],
    options: AuditOptions,
    progress: bool,
) -> tuple[EmbeddingComparison, str]:
    """Compare the embeddings fitted here and save the comparison's interval table.

    Returns the comparison and the CSV it was saved to (in the fits' folder).
    """
    from ..pipeline.compare import compare_embeddings

    comparison = compare_embeddings(dict(sources), study, settings=run, level=level,
                                    progress=progress)
    stem = "_".join(["compare", *(_slug(x) for x in (study_name, *sources))])
    saved = writable(Path(models_dir) / f"{stem}.csv")
    comparison.to_interval_table(ci_prob=options.ci_prob, ci_kind=options.ci_kind,
                                 rope=options.rope).to_csv(saved, index=False)
    return comparison, str(saved)


def _page(
    study: str | Study | None,
    *,
    out_path: Path | None,
    fits: Any,
    embeddings: str | Mapping[str, str] | None,
    levels: str | Sequence[str] | None,
    settings: FitSettings | None,
    models_dir: str | os.PathLike[str],
    comparison: Any,
    compare: bool,
    options: AuditOptions,
    progress: bool,
) -> str:
    """Build the page: check the inputs, collect (or make) the fits, render the sections."""
    from .._validation import check_output
    from ..wordlists import load_study
    from .sources import collect_fits, read_comparison

    # ------------------------------------------------------------ checks, before any work
    if fits is None:  # fits (and a comparison's table) are saved there
        check_output("models_dir", models_dir, folder=True)
    wanted_levels = _checked_levels(levels)
    sources = _checked_embeddings(embeddings)
    options, files = _read_inputs(options)
    st, study_name = _study_of(study)

    # ------------------------------------------------------------ the fits
    comparison_path = str(comparison) if isinstance(comparison, str | os.PathLike) else None
    if fits is not None:
        entries = collect_fits(fits, study=study_name, embeddings=sources,
                               levels=wanted_levels)
        study_name = study_name or entries[0].study
    else:
        if study_name is None:
            raise ValueError("audit_report() needs a study to fit (e.g. 'religion') or the "
                             "fits to report (fits=)")
        entries, run, fitted = _fit_here(st or study_name, embeddings=sources,
                                         levels=wanted_levels, settings=settings,
                                         models_dir=models_dir, progress=progress)
        if comparison is None and compare and len(fitted) > 1:
            comparison, comparison_path = _compare_here(
                st or study_name, study_name, fitted, run=run,
                level=(wanted_levels or [run.level])[0], models_dir=models_dir,
                options=options, progress=progress)
    if st is None:
        try:
            st = load_study(study_name)
        except (ValueError, FileNotFoundError):
            st = None  # a study read from a folder elsewhere: its lists come from the tables
    compared = (read_comparison(comparison, ci_prob=options.ci_prob,
                                ci_kind=options.ci_kind, rope=options.rope)
                if comparison is not None else None)

    # ------------------------------------------------------------ the sections
    several_levels = len({e.level for e in entries}) > 1
    if options.model_comparison is None and several_levels:  # PSIS-LOO of every level: slow
        from . import content

        options = replace(options, model_comparison=content.level_comparisons(
            entries, progress=progress))
    # the figures the saved fits do not keep are drawn (and kept) by the blocks that show them
    context = _sections(entries, options, st=st, study_name=study_name,
                        several_levels=several_levels, compared=compared,
                        comparison_path=comparison_path, files=files, out_path=out_path)
    return _render(context)


def _render(context: dict[str, Any]) -> str:
    """Render the page's template with the sections, the version and the style sheet."""
    from markupsafe import Markup

    from .. import __version__
    from .render import environment, style_sheet

    context = {**context, "version": __version__,
               "css": Markup(style_sheet())}  # trusted package data: not escaped
    return environment().get_template("report.html.j2").render(**context)


def keep_figures(
    fit: Any,
    *,
    ci_prob: float | None = None,
    ci_kind: CiKind = "hdi",
    rope: float | None = None,
    figures: str = "svg",
    random_seed: int = 0,
    png_dpi: int | None = None,
) -> bytes | None:
    """Draw the figures of a saved fit's audit page and keep them with the fit.

    ``embias fit`` does this with every fit it makes, so that ``embias report STUDY --fits
    FIT`` afterwards only reads them back (the page's first build then takes what a
    rebuild takes). The options are those of :func:`audit_report`; a page made with other
    options draws its own. Figures the fit keeps already are not drawn again (but for the
    forest plot when ``png_dpi`` asks for its PNG).

    Parameters
    ----------
    fit
        A saved :class:`~embias.BiasFit` (one not saved has nowhere to keep them: nothing
        is done).
    ci_prob, ci_kind, rope, figures, random_seed
        As in :func:`audit_report`.
    png_dpi
        Also draw the forest plot as a PNG at this resolution, titled with the fit's title
        (what ``embias fit`` writes next to the fit).

    Returns
    -------
    bytes or None
        The forest plot's PNG with ``png_dpi`` (and a saved fit), else None.

    Raises
    ------
    ValueError
        A bad option (as :class:`AuditOptions` checks it).

    Examples
    --------
    ``embias fit`` calls it with every fit it saves (its forest plot's PNG is the one
    written next to the fit); :func:`audit_report`'s Example builds a page. The options
    are checked first, whatever the fit:

    >>> keep_figures(None, ci_kind="hpd")
    Traceback (most recent call last):
    ...
    embias._validation.UnknownNameError: ci_kind='hpd' is not one of ['hdi', 'eti']...
    """
    options = options_from_keywords(None, {"ci_prob": ci_prob, "ci_kind": ci_kind,
                                           "rope": rope, "figures": figures,
                                           "random_seed": random_seed},
                                    function="keep_figures")
    if not fit.path:
        return None
    from . import content
    from .sources import FitEntry

    entry = FitEntry.of(fit)  # labelled as `embias report --fits FIT` labels it
    forest = content.forest_spec(entry, ci_prob=options.ci_prob, ci_kind=options.ci_kind,
                                 rope=options.rope, fmt=options.figures)
    check = content.check_spec(entry, fmt=options.figures,
                               random_seed=options.seed)
    png = None
    if png_dpi is not None or not content.is_kept(forest):
        table = fit.to_interval_table(ci_prob=options.ci_prob, ci_kind=options.ci_kind,
                                      rope=options.rope)
        if png_dpi is None:
            page = content.draw_forest(table, fit.classic, forest)
        else:
            page, png = content.draw_forest_and_png(table, fit.classic, forest,
                                                    png_title=fit.title, png_dpi=png_dpi)
        content.keep_picture(forest, page)
    if not content.is_kept(check):
        predictive = fit.predictive_check(random_seed=options.seed)
        content.keep_picture(check, content.draw_check(predictive, check),
                             coverage=predictive.coverage.to_dict(orient="list"))
    return png


def _slug(text: str) -> str:
    """Return ``text`` as a file-name part (letters, digits, dots and hyphens)."""
    import re

    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()


def _optional_sections(options: AuditOptions, *, several_levels: bool) -> dict[str, Any]:
    """Return the parts that take results computed elsewhere: given, or "not computed"."""
    from . import content

    optional = {}
    for name in ("seat", "model_comparison", "word_influence"):
        what, why, how = OPTIONAL_INPUTS[name]
        value = getattr(options, name)
        if name == "model_comparison" and value is None and not several_levels:
            why = "one level was fitted: there is nothing to compare"
        optional[name] = content.optional_section(value, what=what, missing=why, command=how,
                                                  fmt=options.figures,
                                                  id=name.replace("_", "-"))
    return optional


def _seat_rows(options: AuditOptions, *, st: Study | None, study_name: str,
               ci_prob: float) -> pd.DataFrame | None:
    """SEAT of every pair of classes, computed here with ``options.encoder`` (or None)."""
    if options.encoder is None:
        return None
    shown = options.encoder_name or options.encoder
    if st is None:
        raise ValueError(f"encoder={shown!r}: SEAT needs the study's word lists, and "
                         f"{study_name!r} cannot be loaded here")
    from ..encoders import as_encoder, default_encoder
    from . import content

    try:
        encoder = default_encoder() if options.encoder_name else as_encoder(options.encoder)
    except (ImportError, FileNotFoundError) as exc:
        raise ValueError(f"encoder={shown!r}: {exc}") from None
    return content.seat_pairs(st, encoder, random_seed=options.seed,
                              ci_prob=ci_prob)


def _commands(command: str | None, rebuild: str | None) -> list[tuple[str, str]]:
    """Return the commands the page shows: the one that made it, the one that rebuilds it."""
    if command and rebuild and shlex.split(command) == shlex.split(rebuild):
        return [("This page was made from the saved fits (nothing was refitted), and is "
                 "rebuilt, by", rebuild)]
    commands = []
    if command:
        commands.append(("This page was made by", command))
    if rebuild:
        commands.append(("Rebuild it from the saved fits (nothing is refitted)", rebuild))
    return commands


def _sections(entries: list[FitEntry], options: AuditOptions, *, st: Study | None,
              study_name: str, several_levels: bool, compared: ComparisonInput | None,
              comparison_path: str | None, files: Mapping[str, str],
              out_path: Path | None) -> dict[str, Any]:
    """Return the page's sections: the template's context but style sheet and version.

    ``options`` holds the results computed elsewhere as read (tables, not files; the
    model comparison computed here when several levels are reported); ``files`` the files
    they were read from (for the rebuild command).
    """
    from . import content

    ci_prob, ci_kind, rope = options.ci_prob, options.ci_kind, options.rope
    fmt, seed = options.figures, options.seed
    optional = _optional_sections(options, several_levels=several_levels)
    seat_rows = _seat_rows(options, st=st, study_name=study_name, ci_prob=ci_prob)
    classic = content.classic_section(entries, weat=options.weat, seat=optional["seat"],
                                      random_seed=seed, ci_prob=ci_prob, seat_rows=seat_rows)
    rebuild = _rebuild_command(study_name, entries, out=out_path,
                               comparison_path=comparison_path, files=files,
                               ci_prob=ci_prob, ci_kind=ci_kind, rope=rope, figures=fmt,
                               random_seed=seed, encoder=options.encoder_name)
    labels = list(dict.fromkeys(e.label for e in entries))
    absent_ok = {k: v for k, v in optional.items()
                 if (k != "model_comparison" or several_levels)
                 and (k != "seat" or seat_rows is None)}
    return {
        "title": options.title or f"Audit report: {study_name}",
        "study": study_name,
        "labels": labels,
        "levels": list(dict.fromkeys(e.level for e in entries)),
        "generated": _datetime.datetime.now(_datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "interval": content.interval_label(ci_prob, ci_kind),
        "rope": f"{rope:g}",
        "glance": content.glance(entries, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope,
                                 comparison=compared),
        "caveats": content.caveats(entries, sections={
            OPTIONAL_INPUTS[k][0]: v for k, v in absent_ok.items()},
            comparison=compared, ci_prob=ci_prob),
        "measured": content.measured_section(entries, st),
        "classic": classic,
        "trust": [content.trust_block(e, fmt=fmt, random_seed=seed) for e in entries],
        "bayes": [content.bayes_block(e, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope,
                                      fmt=fmt) for e in entries],
        "model_comparison": optional["model_comparison"],
        "word_influence": optional["word_influence"],
        "word_effects": content.word_effect_tables(entries, ci_prob=ci_prob, ci_kind=ci_kind,
                                                   rope=rope),
        "across": content.across_section(compared, labels=labels, fmt=fmt),
        "reproduce": content.reproduce_section(
            entries, comparison=compared, commands=_commands(options.command, rebuild),
            python=_python_call(study_name, entries, out_path), random_seed=seed,
            classic_seeds=classic["seeds"]),
    }
