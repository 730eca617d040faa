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
7. how to reproduce it — versions (now and when each fit was made), settings, seeds, the
   saved-fit keys and the command that rebuilds the page from the saved fits.

The page is one file: figures are inlined as SVG (or PNG) ``data:`` URIs, the style sheet
is inlined, nothing is fetched from any host, there is no script, and a print style sheet
keeps figures and table rows whole across pages. Tables are HTML tables (copyable), the
page is built from Jinja2 templates (``embias/audit/templates``). A report built from saved
fits refits nothing: the interval tables, diagnostics and classic scores kept with each
fit are read back, so rebuilding a page after a wording change takes seconds.

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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._deprecation import renamed_keywords
from .._validation import writable
from ..settings import DEFAULT_MODELS_DIR

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..pipeline.compare import EmbeddingComparison
    from ..settings import FitSettings
    from ..wordlists import Study

__all__ = ["OPTIONAL_INPUTS", "audit_report", "check_report_path", "keep_figures"]

#: The optional inputs of :func:`audit_report`: name → (what it is, why it may be absent,
#: what computes it). The hook points for results built elsewhere: when a function that
#: computes one exists, call it in :func:`audit_report` where ``OPTIONAL_INPUTS`` is read.
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

#: Names ``encoder=`` / ``--encoder`` accept for the offline all-MiniLM-L6-v2
#: (:func:`embias.encoders.default_encoder`).
ENCODER_NAMES: frozenset[str] = frozenset({"minilm", "all-minilm-l6-v2"})

#: Suffixes accepted for the page.
PAGE_SUFFIXES: tuple[str, ...] = (".html", ".htm")


def check_report_path(path: str | os.PathLike[str], *, name: str = "out") -> Path:
    """The page's path, checked before any work: an ``.html`` file name whose folder exists
    or can be created (the output rule of every embias output,
    :func:`embias._validation.check_output`: missing folders are created when the page is
    written)."""
    path = Path(path)
    if path.suffix.lower() not in PAGE_SUFFIXES:
        raise ValueError(f"{name} {str(path)!r}: the report is an HTML page; give a .html "
                         "file name")
    if path.is_dir():
        raise ValueError(f"{name} {str(path)!r} is a folder; give a .html file name")
    from .._validation import check_output

    return check_output(name, path)


def _optional_table(value: Any, name: str) -> Any:
    """A path given for an optional input is read (CSV/parquet); other values pass."""
    if isinstance(value, str | os.PathLike):
        from .sources import read_table

        return read_table(value, what=name.replace("_", "-"))
    return value


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
    """The ``embias report`` command that rebuilds this page from the saved fits (None
    when a fit is not saved)."""
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
    ci_prob: float | None = None,
    ci_kind: str = "hdi",
    rope: float | None = None,
    weat: pd.DataFrame | str | os.PathLike[str] | None = None,
    seat: Any = None,
    model_comparison: Any = None,
    word_influence: Any = None,
    encoder: str | None = None,
    figures: str = "svg",
    random_seed: int = 0,
    title: str | None = None,
    command: str | None = None,
    progress: bool = False,
    return_html: bool = False,
) -> Path | tuple[Path | None, str]:
    """Write the audit report of a study: one self-contained HTML page.

    Parameters
    ----------
    study
        The study (``"religion"`` …, a folder of word lists or a :class:`~embias.Study`);
        default: the study of the ``fits`` given.
    out
        The ``.html`` file to write; its folder must exist. Needed unless
        ``return_html=True``.
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
        Seed of the posterior predictive draws and of Monte Carlo permutations.
    title
        Page title (default ``"Audit report: <study>"``).
    command
        The command that made the page, shown in the reproducibility block (the command
        line passes its own).
    progress
        Show the progress of the fits made here and of the model comparison's PSIS-LOO
        (only on a terminal or in a notebook). ``progressbar`` is the deprecated spelling.
    return_html
        Also return the page as a string (``out`` may then be None: nothing is written).

    Returns
    -------
    pathlib.Path or (pathlib.Path or None, str)
        The page's path; with ``return_html=True`` the path and the HTML.

    Raises
    ------
    ValueError
        A bad option, an output path in a missing folder, a study with no fitted level
        among the fits given, two fits of one embedding and level, fits of several
        studies, an unknown study; each message names it.
    FileNotFoundError
        A saved-fit folder or an input file that is not there (:func:`embias.load_fit`'s
        own error for a fit).

    Examples
    --------
    >>> embias.audit_report("religion", fits="models/", out="religion.html")
    >>> path, html = embias.audit_report(fits=fit, return_html=True)
    """
    import pandas as pd

    from .._validation import (
        check_choice,
        check_output,
        check_probability,
        check_rope,
        check_seed,
    )
    from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, LEVELS
    from ..wordlists import Study, load_study

    # ------------------------------------------------------------ checks, before any work
    ci_prob = check_probability("ci_prob", DEFAULT_CI_PROB if ci_prob is None else ci_prob)
    check_choice("ci_kind", ci_kind, ("hdi", "eti"))
    rope = check_rope(DEFAULT_ROPE if rope is None else rope)
    from .render import FIGURE_FORMATS

    check_choice("figures", figures, FIGURE_FORMATS)
    random_seed = check_seed(random_seed)
    if out is None and not return_html:
        raise ValueError("audit_report() needs out= (the .html file to write) or "
                         "return_html=True")
    out_path = check_report_path(out) if out is not None else None
    if fits is None:  # fits (and a comparison's table) are saved there
        check_output("models_dir", models_dir, folder=True)
    if isinstance(levels, str):
        levels = [levels]
    if levels is not None:
        levels = [check_choice("levels", level, LEVELS) for level in levels]
        if not levels:
            raise ValueError(f"levels is empty; give at least one of {list(LEVELS)}")
    if isinstance(embeddings, str):
        embeddings = {embeddings: embeddings}
    if embeddings is not None:
        bad = ([k for k, v in embeddings.items() if not k or not isinstance(v, str) or not v]
               if isinstance(embeddings, Mapping) else [embeddings])
        if bad or not embeddings:
            raise ValueError(f"embeddings must map non-empty labels to source strings, got "
                             f"{dict(embeddings)!r}")
    if encoder is not None and seat is not None:
        raise ValueError("give either encoder= (SEAT computed here) or seat= (SEAT results), "
                         "not both")
    encoder_name = None
    if isinstance(encoder, str):
        encoder_name = encoder
        if encoder.lower() not in ENCODER_NAMES:
            raise ValueError(f"encoder={encoder!r} is not a known sentence encoder; known: "
                             f"{sorted(ENCODER_NAMES)} (or pass an encoder object from Python)")
    files = {name: str(value) for name, value in (("weat", weat), ("seat", seat),
                                                  ("model_comparison", model_comparison),
                                                  ("word_influence", word_influence))
             if isinstance(value, str | os.PathLike)}
    weat = _optional_table(weat, "weat")
    seat = _optional_table(seat, "seat")
    model_comparison = _optional_table(model_comparison, "model_comparison")
    word_influence = _optional_table(word_influence, "word_influence")
    if weat is not None:
        from ..report import validate_interval_table

        if not isinstance(weat, pd.DataFrame):
            raise ValueError(f"weat must be an interval table (DataFrame) or its file, got "
                             f"{type(weat).__name__}")
        validate_interval_table(weat)
    st: Study | None = None
    if isinstance(study, Study):
        st, study_name = study, study.name
    elif study is not None:
        st = load_study(study)  # an unknown study fails here, before anything is loaded
        study_name = st.name
    else:
        study_name = None

    # ------------------------------------------------------------ the fits
    from .sources import collect_fits, read_comparison

    comparison_path = str(comparison) if isinstance(comparison, str | os.PathLike) else None
    if fits is not None:
        entries = collect_fits(fits, study=study_name, embeddings=embeddings, levels=levels)
        study_name = study_name or entries[0].study
    else:
        if study_name is None:
            raise ValueError("audit_report() needs a study to fit (e.g. 'religion') or the "
                             "fits to report (fits=)")
        from ..pipeline.study_fits import fit_study_model
        from ..settings import FitSettings, sampler_available
        from .sources import FitEntry

        run = FitSettings.build(settings)
        sampler_available(run.sampler)
        sources = embeddings or {"glove-6b-50d": "glove-6b-50d"}
        entries = []
        for label, source in sources.items():
            for level in levels or [run.level]:
                fit = fit_study_model(st or study_name, source, settings=run, level=level,
                                      models_dir=models_dir, progress=progress)
                entries.append(FitEntry(label=label, fit=fit))
        if comparison is None and compare and len(sources) > 1:
            from ..pipeline.compare import compare_embeddings

            level = (levels or [run.level])[0]
            comparison = compare_embeddings(dict(sources), st or study_name, settings=run,
                                            level=level, progress=progress)
            stem = "_".join(["compare", *(_slug(x) for x in (study_name, *sources))])
            saved = writable(Path(models_dir) / f"{stem}.csv")  # in the fits' folder
            comparison.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind,
                                         rope=rope).to_csv(saved, index=False)
            comparison_path = str(saved)
    if st is None:
        try:
            st = load_study(study_name)
        except (ValueError, FileNotFoundError):
            st = None  # a study read from a folder elsewhere: its lists come from the tables
    compared = (read_comparison(comparison, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
                if comparison is not None else None)

    # ------------------------------------------------------------ the sections
    from markupsafe import Markup

    from .. import __version__
    from . import content
    from .render import environment, style_sheet

    several_levels = len({e.level for e in entries}) > 1
    if model_comparison is None and several_levels:  # PSIS-LOO of every level: slow
        from . import content

        model_comparison = content.level_comparisons(entries, progress=progress)
    # the figures the saved fits do not keep are drawn (and kept) by the blocks that show them
    context = _sections(
        entries, st=st, title=title, study_name=study_name, ci_prob=ci_prob,
        ci_kind=ci_kind, rope=rope, figures=figures, random_seed=random_seed,
        several_levels=several_levels, model_comparison=model_comparison, seat=seat,
        word_influence=word_influence, encoder=encoder, encoder_name=encoder_name,
        weat=weat, compared=compared, comparison_path=comparison_path, files=files,
        command=command, out_path=out_path)
    context["version"] = __version__
    context["css"] = Markup(style_sheet())  # trusted package data: not escaped
    html = environment().get_template("report.html.j2").render(**context)
    if out_path is not None:  # written whole or not at all (one temporary file per process)
        writable(out_path)
        tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(html, encoding="utf-8")
            os.replace(tmp, out_path)
        finally:
            tmp.unlink(missing_ok=True)
    return (out_path, html) if return_html else out_path  # type: ignore[return-value]


def keep_figures(
    fit: Any,
    *,
    ci_prob: float | None = None,
    ci_kind: str = "hdi",
    rope: float | None = None,
    figures: str = "svg",
    random_seed: int = 0,
    png_dpi: int | None = None,
) -> bytes | None:
    """Draw the figures of a saved fit's audit page now and keep them with the fit.

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
    """
    if not fit.path:
        return None
    from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE
    from . import content
    from .sources import FitEntry

    options = {"ci_prob": DEFAULT_CI_PROB if ci_prob is None else ci_prob,
               "ci_kind": ci_kind, "rope": DEFAULT_ROPE if rope is None else rope}
    entry = FitEntry.of(fit)  # labelled as `embias report --fits FIT` labels it
    forest = content.forest_spec(entry, **options, fmt=figures)
    check = content.check_spec(entry, fmt=figures, random_seed=random_seed)
    png = None
    if png_dpi is not None or not content.is_kept(forest):
        table = fit.to_interval_table(**options)
        if png_dpi is None:
            page = content.draw_forest(table, fit.classic, forest)
        else:
            page, png = content.draw_forest_and_png(table, fit.classic, forest,
                                                    png_title=fit.title, png_dpi=png_dpi)
        content.keep_picture(forest, page)
    if not content.is_kept(check):
        predictive = fit.predictive_check(random_seed=random_seed)
        content.keep_picture(check, content.draw_check(predictive, check),
                             coverage=predictive.coverage.to_dict(orient="list"))
    return png


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()


def _sections(entries: list[Any], *, st: Study | None, title: str | None,
              study_name: str, ci_prob: float, ci_kind: str, rope: float, figures: str,
              random_seed: int, several_levels: bool, model_comparison: Any, seat: Any,
              word_influence: Any, encoder: Any, encoder_name: str | None, weat: Any,
              compared: Any, comparison_path: str | None, files: Any, command: str | None,
              out_path: Path | None) -> dict[str, Any]:
    """The page's sections: the template's context without the style sheet and version."""
    from . import content

    optional = {}
    for name, value in (("seat", seat), ("model_comparison", model_comparison),
                        ("word_influence", word_influence)):
        what, why, how = OPTIONAL_INPUTS[name]
        if name == "model_comparison" and value is None and not several_levels:
            why = "one level was fitted: there is nothing to compare"
        optional[name] = content.optional_section(value, what=what, missing=why, command=how,
                                                  fmt=figures, id=name.replace("_", "-"))
    seat_rows = None
    if encoder is not None:
        if st is None:
            raise ValueError(f"encoder={encoder_name or encoder!r}: SEAT needs the study's "
                             f"word lists, and {study_name!r} cannot be loaded here")
        from ..encoders import as_encoder, default_encoder

        try:
            sentence_encoder = default_encoder() if encoder_name else as_encoder(encoder)
        except (ImportError, FileNotFoundError) as exc:
            raise ValueError(f"encoder={encoder_name or encoder!r}: {exc}") from None
        seat_rows = content.seat_pairs(st, sentence_encoder, random_seed=random_seed,
                                       ci_prob=ci_prob)
    classic = content.classic_section(entries, weat=weat, seat=optional["seat"],
                                      random_seed=random_seed, ci_prob=ci_prob,
                                      seat_rows=seat_rows)
    rebuild = _rebuild_command(study_name, entries, out=out_path,
                               comparison_path=comparison_path, files=files,
                               ci_prob=ci_prob, ci_kind=ci_kind, rope=rope, figures=figures,
                               random_seed=random_seed, encoder=encoder_name)
    commands = []
    if command and rebuild and shlex.split(command) == shlex.split(rebuild):
        commands.append(("This page was made from the saved fits (nothing was refitted), and "
                         "is rebuilt, by", rebuild))
    else:
        if command:
            commands.append(("This page was made by", command))
        if rebuild:
            commands.append(("Rebuild it from the saved fits (nothing is refitted)", rebuild))
    labels = list(dict.fromkeys(e.label for e in entries))
    context = {
        "title": title or f"Audit report: {study_name}",
        "study": study_name,
        "labels": labels,
        "levels": list(dict.fromkeys(e.level for e in entries)),
        "generated": _datetime.datetime.now(_datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "interval": content.interval_label(ci_prob, ci_kind),
        "rope": f"{rope:g}",
        "glance": content.glance(entries, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope,
                                 comparison=compared),
        "caveats": content.caveats(entries, sections={
            OPTIONAL_INPUTS[k][0]: v for k, v in optional.items()
            if (k != "model_comparison" or several_levels)
            and (k != "seat" or seat_rows is None)},
            comparison=compared, ci_prob=ci_prob),
        "measured": content.measured_section(entries, st),
        "classic": classic,
        "trust": [content.trust_block(e, fmt=figures, random_seed=random_seed)
                  for e in entries],
        "bayes": [content.bayes_block(e, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope,
                                      fmt=figures) for e in entries],
        "model_comparison": optional["model_comparison"],
        "word_influence": optional["word_influence"],
        "word_effects": content.word_effect_tables(entries, ci_prob=ci_prob, ci_kind=ci_kind,
                                                   rope=rope),
        "across": content.across_section(compared, labels=labels, fmt=figures),
        "reproduce": content.reproduce_section(
            entries, comparison=compared, commands=commands,
            python=_python_call(study_name, entries, out_path), random_seed=random_seed,
            classic_seeds=classic["seeds"]),
    }
    return context
