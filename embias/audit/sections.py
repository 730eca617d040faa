"""The page's sections: the context its template is rendered with.

Every section of the page built from the fits and the options (the section builders are
in :mod:`~embias.audit.content` and the modules it names), and the parts that take results
computed elsewhere (:data:`OPTIONAL_INPUTS`): shown when given, else "not computed" with
what would compute them.
"""

from __future__ import annotations

import datetime as _datetime
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .options import AuditOptions
from .rebuild import page_commands, python_call, rebuild_command

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..wordlists import Study
    from .sources import ComparisonInput, FitEntry

__all__ = ["OPTIONAL_INPUTS", "page_sections"]


#: The optional inputs of the page: name → (what it is, why it may be absent, what
#: computes it). The hook points for results built elsewhere: when a function that
#: computes one exists, call it in :func:`~embias.audit_html` where ``OPTIONAL_INPUTS``
#: is read.
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


def page_sections(entries: list[FitEntry], options: AuditOptions, *, st: Study | None,
                  study_name: str, several_levels: bool, compared: ComparisonInput | None,
                  comparison_path: str | None, files: Mapping[str, str],
                  out_path: Path | None) -> dict[str, Any]:
    """Return the page's sections: the template's context but style sheet and version.

    ``options`` holds the results computed elsewhere as read (tables, not files; the
    model comparison computed here when several levels are reported); ``files`` the files
    they were read from (for the rebuild command).

    Parameters
    ----------
    entries
        The page's fits.
    options
        The page's options, the results computed elsewhere read into tables.
    st
        The study's word lists, or None when it cannot be loaded here.
    study_name
        The study's name.
    several_levels
        Several levels of one embedding are reported.
    compared
        The comparison across embeddings, or None.
    comparison_path
        The comparison's CSV, for the rebuild command.
    files
        Name → file of the results computed elsewhere given as files.
    out_path
        The page's file (None: the page is not written).

    Returns
    -------
    dict
        The template's context: title, study, labels, levels, time, interval and ROPE,
        and every section.

    Raises
    ------
    ValueError
        SEAT asked for (an encoder) of a study whose word lists cannot be loaded, or an
        encoder that cannot be loaded.
    """
    from . import content

    ci_prob, ci_kind, rope = options.ci_prob, options.ci_kind, options.rope
    fmt, seed = options.figures, options.seed
    optional = _optional_sections(options, several_levels=several_levels)
    seat_rows = _seat_rows(options, st=st, study_name=study_name, ci_prob=ci_prob)
    classic = content.classic_section(entries, weat=options.weat, seat=optional["seat"],
                                      random_seed=seed, ci_prob=ci_prob, seat_rows=seat_rows)
    rebuild = rebuild_command(study_name, entries, out=out_path,
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
            entries, comparison=compared, commands=page_commands(options.command, rebuild),
            python=python_call(study_name, entries, out_path), random_seed=seed,
            classic_seeds=classic["seeds"]),
    }
