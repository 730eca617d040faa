"""The audit page built and written: :func:`~embias.audit_report`, :func:`~embias.audit_html`.

:func:`~embias.audit_report` writes the page to an ``.html`` file (checked first by
``check_report_path``, written whole or not at all); :func:`~embias.audit_html` returns it
as a string. Both check the inputs (:mod:`~embias.audit.inputs`), collect the fits given
or make them (:mod:`~embias.audit.sources`, :mod:`~embias.audit.fitting`), build the
sections (:mod:`~embias.audit.sections`) and render the page's template
(:mod:`~embias.audit.render`).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._deprecation import REMOVED_IN, renamed_keywords
from .._validation import writable
from ..settings import DEFAULT_MODELS_DIR
from .fitting import compare_here, fit_here
from .inputs import checked_embeddings, checked_levels, read_inputs, study_of
from .options import FROM_OPTIONS, AuditOptions, options_from_keywords
from .sections import page_sections

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..pipeline.compare import EmbeddingComparison
    from ..settings import FitSettings
    from ..wordlists import Study

__all__ = ["PAGE_SUFFIXES", "audit_html", "audit_report", "check_report_path"]


#: Suffixes accepted for the page.
PAGE_SUFFIXES: tuple[str, ...] = (".html", ".htm")


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
    wanted_levels = checked_levels(levels)
    sources = checked_embeddings(embeddings)
    options, files = read_inputs(options)
    st, study_name = study_of(study)

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
        entries, run, fitted = fit_here(st or study_name, embeddings=sources,
                                        levels=wanted_levels, settings=settings,
                                        models_dir=models_dir, progress=progress)
        if comparison is None and compare and len(fitted) > 1:
            comparison, comparison_path = compare_here(
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
    context = page_sections(entries, options, st=st, study_name=study_name,
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
