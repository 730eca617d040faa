"""The audit page's figures kept with saved fits, and the per-fit blocks that show them.

The page's sections are computed from fits: every function takes results and returns what
the template shows (tables, pictures, sentences). Nothing is refitted: the interval
tables, diagnostics and classic scores are those kept with the fits
(:class:`embias.BiasFit`), the figures are drawn by :mod:`embias.plots`.

This module is the one the key of the figures kept with a saved fit hashes (with
:mod:`embias.plots` and :mod:`~embias.audit.render`): a change here redraws them. So it
holds what decides those figures — what each figure is and where a saved fit keeps it
(``FigureSpec``, ``forest_spec``, ``check_spec``), reading it back, drawing and keeping
it (``kept_or_drawn``, ``draw_forest``, ``draw_check`` …), the per-fit blocks that show
them (``bayes_block``: the Bayesian fit; ``trust_block``: how far to trust it) — and the
PSIS-LOO comparison of the levels kept with the fits (``level_comparisons``).

The other sections, one module each (every name is also importable from here, as from
the module this was):

- :mod:`~embias.audit.wording` — interval names, ROPE decisions and sentences;
- :mod:`~embias.audit.glance` — "At a glance" and the caveats;
- :mod:`~embias.audit.measured` — what was measured: word lists and embeddings;
- :mod:`~embias.audit.classic_scores` — MAC, WEAT and SEAT;
- :mod:`~embias.audit.optional` — the parts that take results computed elsewhere;
- :mod:`~embias.audit.word_effects` — the compared words that move their rows most;
- :mod:`~embias.audit.across` — the comparison across embeddings;
- :mod:`~embias.audit.reproduce` — versions, settings, seeds and commands.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

# Names imported ``X as X`` are importable from here, as from the module content was,
# but not in __all__.
from .across import across_section as across_section
from .classic_scores import classic_section as classic_section
from .classic_scores import seat_pairs as seat_pairs
from .classic_scores import table_weat_tests
from .glance import CONTRAST_QUESTION as CONTRAST_QUESTION
from .glance import GLANCE_ORDER as GLANCE_ORDER
from .glance import GlanceGroup as GlanceGroup
from .glance import GlanceLine as GlanceLine
from .glance import caveats as caveats
from .glance import change_glance as change_glance
from .glance import contrast_glance as contrast_glance
from .glance import glance as glance
from .measured import connections_present as connections_present
from .measured import measured_section as measured_section
from .optional import OptionalSection, optional_section
from .options import CiKind
from .render import (
    Picture,
    cache_file,
    frame_table,
    number,
    picture,
    read_cached,
    write_cached,
)
from .reproduce import VERSIONED_PACKAGES as VERSIONED_PACKAGES
from .reproduce import package_versions as package_versions
from .reproduce import reproduce_section as reproduce_section
from .sources import FitEntry
from .word_effects import word_effect_tables as word_effect_tables
from .wording import CONNECTION_MEANING as CONNECTION_MEANING
from .wording import change_sentence as change_sentence
from .wording import (
    contrast_sentence,
    decision_class,
    interval_label,
    with_interval_label,
)

__all__ = ["OptionalSection", "optional_section", "table_weat_tests"]


#: What each model level is (DESIGN §5).
LEVEL_MEANING: Mapping[str, str] = {
    "dataset": "μ = m + co[connection]: one mean per connection for the whole table "
               "(ZeroSumNormal connection effects)",
    "word": "μ = m[protected word] + co[connection]: one offset per protected word",
    "hierarchical": "μ = coef[protected word, connection], coef ~ Normal(bar[connection], "
                    "tau[connection]): word-level coefficients partially pooled towards the "
                    "connection means (the published model of Dobrzeniecka & Urbaniak)",
    "crossed": "the hierarchical model plus one offset u[w] ~ Normal(0, τ_u[word kind]) per "
               "compared word: the compared words are a sample too, so the intervals "
               "generalise beyond the exact words used (Clark 1973)",
}


#: Interval-table columns of the Bayesian tables, with their headers.
BAYES_COLUMNS: Mapping[str, str] = {
    "estimand": "estimand", "group": "group", "estimate": "estimate", "lower": "lower",
    "upper": "upper", "interval": "interval", "prob_gt_0": "P(> 0)",
    "prob_in_rope": "P(in ROPE)", "rope_decision": "decision"}


def _pivot_words(words: pd.DataFrame, column: str) -> pd.DataFrame:
    """Protected words × ``column`` values, cells ``estimate [lower, upper]``."""
    cells = words.assign(cell=[f"{number(e)} [{number(lo)}, {number(hi)}]" + (
        f" {d}" if isinstance(d, str) and d else "")
        for e, lo, hi, d in zip(words["estimate"], words["lower"], words["upper"],
                                words.get("rope_decision", pd.Series([""] * len(words))),
                                strict=True)])
    index = [c for c in ("protected_class", "protected_word") if c in cells.columns]
    wide = cells.pivot_table(index=index, columns=column, values="cell", aggfunc="first",
                             sort=False)
    wide.columns = [str(c) for c in wide.columns]
    return wide.reset_index().rename(columns={"protected_class": "class",
                                              "protected_word": "protected word"}).fillna("")


@dataclass(frozen=True)
class FigureSpec:
    """What a page figure is: where a saved fit keeps it, its alt text and caption."""

    where: Any
    alt: str
    caption: str
    fmt: str
    title: str = ""


def forest_spec(entry: FitEntry, *, ci_prob: float, ci_kind: CiKind, rope: float,
                fmt: str) -> FigureSpec:
    """Return what the forest plot of one fit is (:func:`embias.plots.plot_bias_fit`)."""
    title = f"{entry.study} / {entry.label} / {entry.level}"
    alt = (f"Forest plot of the {entry.level} model of {entry.study} on {entry.label}: "
           "connection means with the classic MAC, contrasts with the ROPE, WEAT, and "
           "word-level coefficients")
    caption = (f"{title}: {interval_label(ci_prob, ci_kind)}s; shaded: ROPE ±{rope:g}; "
               "◇ classic MAC of the same table")
    where = cache_file(entry.fit.path, "forest", {"ci_prob": ci_prob, "ci_kind": ci_kind,
                                                  "rope": rope, "fmt": fmt, "title": title})
    return FigureSpec(where=where, alt=alt, caption=caption, fmt=fmt, title=title)


def check_spec(entry: FitEntry, *, fmt: str, random_seed: int) -> FigureSpec:
    """Return what the posterior predictive check of one fit is.

    The figure is :func:`embias.plots.plot_predictive_check`'s.
    """
    alt = (f"Posterior predictive check of {entry.label}, {entry.level} model: observed "
           "cosine distances against the model's predictions per connection")
    caption = ("Observed distances (bars) and posterior predictive distances (line), per "
               "connection; titles: share of observed rows inside their cell's predictive "
               "intervals, each row judged by the fit without its compared word")
    where = cache_file(entry.fit.path, "ppc", {"random_seed": random_seed, "fmt": fmt})
    return FigureSpec(where=where, alt=alt, caption=caption, fmt=fmt)


def kept_picture(spec: FigureSpec, kept: Mapping[str, Any] | None) -> Picture | None:
    """Return the figure as the saved fit keeps it, or None when it must be drawn.

    ``kept`` is :func:`read_cached` of ``spec.where``.
    """
    if kept is None:
        return None
    return Picture(uri=kept["uri"], alt=spec.alt, caption=spec.caption, width=kept["width"],
                   height=kept["height"])


def keep_picture(spec: FigureSpec, picture: Picture, **extra: Any) -> None:
    """Keep a drawn figure with its saved fit, for :func:`kept_picture` to read back.

    ``extra`` is what the page shows next to it, e.g. the predictive check's coverage table.
    """
    write_cached(spec.where, {"uri": picture.uri, "width": picture.width,
                              "height": picture.height, **extra})


def is_kept(spec: FigureSpec) -> bool:
    """Return whether the saved fit keeps this figure.

    A kept file that cannot be read is drawn when it is collected.
    """
    return spec.where is not None and spec.where.is_file()


def kept_or_drawn(spec: FigureSpec, draw: Callable[[], tuple[Picture, dict[str, Any]]]
                  ) -> tuple[Picture, Mapping[str, Any]]:
    """Return the figure its saved fit keeps, else draw it and keep it for the next page.

    ``draw()`` returns the picture and what the page shows next to it; the result is the
    picture and that record.
    """
    kept = read_cached(spec.where)
    picture = kept_picture(spec, kept)
    if kept is not None and picture is not None:
        return picture, kept
    picture, extra = draw()
    keep_picture(spec, picture, **extra)
    return picture, extra


def draw_forest(table: pd.DataFrame, classic: pd.DataFrame, spec: FigureSpec) -> Picture:
    """Draw a fit's forest plot for the page."""
    from ..plots import plot_bias_fit

    return picture(plot_bias_fit(table, classic=classic, title=spec.title), alt=spec.alt,
                   caption=spec.caption, fmt=spec.fmt)


def draw_forest_and_png(table: pd.DataFrame, classic: pd.DataFrame, spec: FigureSpec, *,
                        png_title: str, png_dpi: int) -> tuple[Picture, bytes]:
    """Draw a fit's forest plot for the page and as the PNG ``embias fit`` writes.

    The PNG is titled ``png_title`` and drawn at ``png_dpi``. When the titles agree it is
    one figure, whose PNG keeps the constrained layout solved for the page's picture
    (solving it again is the slow part of drawing).
    """
    import matplotlib.pyplot as plt

    from ..plots import plot_bias_fit

    figure = plot_bias_fit(table, classic=classic, title=spec.title)
    same = png_title == spec.title
    page = picture(figure, alt=spec.alt, caption=spec.caption, fmt=spec.fmt, close=not same)
    if same:
        figure.set_layout_engine("none")
    else:
        figure = plot_bias_fit(table, classic=classic, title=png_title)
    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=png_dpi)
    finally:
        plt.close(figure)
    return page, buffer.getvalue()


def draw_check(check: Any, spec: FigureSpec) -> Picture:
    """Draw a fit's posterior predictive check for the page."""
    from ..plots import plot_predictive_check

    return picture(plot_predictive_check(check), alt=spec.alt, caption=spec.caption,
                   fmt=spec.fmt)


def bayes_block(
    entry: FitEntry,
    *,
    ci_prob: float,
    ci_kind: CiKind,
    rope: float,
    fmt: str,
) -> dict[str, Any]:
    """Return one fit's Bayesian block.

    Its interval table, decisions in words, forest plot (the one its saved fit keeps, else
    drawn and kept) and word-level tables.
    """
    fit = entry.fit
    table = fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
    top = with_interval_label(table[table["estimand"].isin(["connection_mean", "contrast"])])
    main = frame_table(top, columns=BAYES_COLUMNS, id=f"intervals-{entry.anchor}",
                       caption=f"{entry.label}, {entry.level} model: connection means and "
                               "contrasts", cell_class=decision_class)
    sentences = [contrast_sentence(r) for _, r in table[table["estimand"] == "contrast"].iterrows()]
    spec = forest_spec(entry, ci_prob=ci_prob, ci_kind=ci_kind, rope=rope, fmt=fmt)

    def draw() -> tuple[Picture, dict[str, Any]]:
        return draw_forest(table, fit.classic, spec), {}

    forest, _ = kept_or_drawn(spec, draw)
    words = table[table["estimand"] == "word_coefficient"]
    word_table = word_contrasts = None
    if not words.empty:
        word_table = frame_table(_pivot_words(words, "connection"),
                                 id=f"words-{entry.anchor}",
                                 caption=f"Word-level coefficients (estimate [lower, upper], "
                                         f"{interval_label(ci_prob, ci_kind)})")
    wc = table[table["estimand"] == "word_contrast"]
    if not wc.empty:
        word_contrasts = frame_table(_pivot_words(wc, "contrast"),
                                     id=f"word-contrasts-{entry.anchor}",
                                     caption="Word-level contrasts (estimate [lower, upper] "
                                             "and the ROPE decision)")
    sds = table[table["estimand"] == "compared_word_sd"]
    word_sds = (frame_table(with_interval_label(sds), id=f"word-sd-{entry.anchor}",
                            columns={"group": "word kind", "estimate": "τ_u", "lower": "lower",
                                     "upper": "upper", "interval": "interval"},
                            caption="Spread of the compared words' own offsets u[w] "
                                    "(cosine distance), per kind of word")
                if not sds.empty else None)
    return {"anchor": entry.anchor, "label": entry.label, "level": entry.level,
            "model": LEVEL_MEANING.get(entry.level, entry.level), "word_sds": word_sds,
            "data": str(fit.settings.get("data", "")), "table": main,
            "sentences": sentences, "forest": forest, "words": word_table,
            "word_contrasts": word_contrasts}


def level_comparisons(entries: Sequence[FitEntry], *, progress: bool = False
                      ) -> list[pd.DataFrame] | None:
    """Return the PSIS-LOO comparison of the levels fitted to each embedding's table.

    :func:`embias.compare_models` (leave one row out) for every embedding with two levels or
    more; None when there is none. ``progress``: a bar per fit (only on a terminal or in a
    notebook).
    """
    from ..bayes.loo import compare_models

    tables = []
    for label in dict.fromkeys(e.label for e in entries):
        fits = {e.level: e.fit for e in entries if e.label == label}
        if len(fits) < 2:
            continue
        # PSIS-LOO needs every draw's log-likelihood of every row: costly, so the table is
        # kept with the first fit (keyed on every fit's draws) when all are saved
        where = None
        if all(f.path for f in fits.values()):
            draws = [[level, f.path, *_draws_stamp(str(f.path))] for level, f in fits.items()]
            where = cache_file(next(iter(fits.values())).path, "loo",
                               {"by": "row", "fits": draws})
        kept = read_cached(where)
        if kept is not None:
            table = pd.DataFrame(kept["table"])
        else:
            table = compare_models(fits, by="row", progress=progress)
            write_cached(where, {"table": table.to_dict(orient="list")})
        table.insert(0, "embedding", label)
        tables.append(table)
    return tables or None


def _draws_stamp(path: str) -> list[int]:
    """Size and modification time of a saved fit's draws (what a kept result depends on)."""
    from pathlib import Path

    try:
        stat = (Path(path) / "posterior.nc").stat()
    except OSError:
        return [0, 0]
    return [stat.st_size, stat.st_mtime_ns]


def trust_block(entry: FitEntry, *, fmt: str, random_seed: int) -> dict[str, Any]:
    """Return how far to trust one fit.

    Its convergence overview, its problems, the worst parameters and the posterior
    predictive check (picture and coverage: those its saved fit keeps, else drawn and kept).
    """
    from ..bayes.diagnostics import ESS_MIN, RHAT_MAX

    fit = entry.fit
    overview = fit.diagnostics_overview()
    row = overview.iloc[0]
    checks = pd.DataFrame([
        {"check": "largest r̂", "value": number(float(row["max_r_hat"]), 3),
         "rule": f"≤ {RHAT_MAX}", "passes": "yes" if row["max_r_hat"] <= RHAT_MAX else "no"},
        {"check": "smallest bulk ESS", "value": number(float(row["min_ess_bulk"]), 0),
         "rule": f"≥ {ESS_MIN}", "passes": "yes" if row["min_ess_bulk"] >= ESS_MIN else "no"},
        {"check": "smallest tail ESS", "value": number(float(row["min_ess_tail"]), 0),
         "rule": f"≥ {ESS_MIN}", "passes": "yes" if row["min_ess_tail"] >= ESS_MIN else "no"},
        {"check": "divergent transitions", "value": str(int(row["divergences"])),
         "rule": "0", "passes": "yes" if int(row["divergences"]) == 0 else "no"},
    ])
    checks_table = frame_table(
        checks, id=f"diagnostics-{entry.anchor}",
        caption=f"Convergence of {entry.label}, {entry.level} model "
                f"({int(row['chains'])} chains × {int(row['draws'])} draws)",
        cell_class=lambda c, v, _r: ("fails" if c == "passes" and v == "no" else ""))
    diagnostics = fit.diagnostics()
    worst = diagnostics.assign(_order=-diagnostics["r_hat"]).sort_values(
        ["_order", "ess_bulk"]).head(5)
    worst_table = frame_table(worst, columns={"parameter": "parameter", "r_hat": "r̂",
                                              "ess_bulk": "bulk ESS", "ess_tail": "tail ESS"},
                              digits={"r_hat": 3, "ess_bulk": 0, "ess_tail": 0},
                              id=f"worst-{entry.anchor}",
                              caption="The five parameters with the largest r̂")
    spec = check_spec(entry, fmt=fmt, random_seed=random_seed)

    def draw() -> tuple[Picture, dict[str, Any]]:
        check = fit.predictive_check(random_seed=random_seed)
        return draw_check(check, spec), {"coverage": check.coverage.to_dict(orient="list")}

    ppc, record = kept_or_drawn(spec, draw)
    table = pd.DataFrame(record["coverage"])
    coverage = frame_table(table.rename(columns={"inside": "share inside"}),
                           id=f"coverage-{entry.anchor}",
                           caption="Share of observed distances inside their cell's "
                                   "equal-tailed posterior predictive interval (each "
                                   "judged by the fit without its compared word)")
    return {"anchor": entry.anchor, "label": entry.label, "level": entry.level,
            "checks": checks_table, "problems": fit.problems(), "worst": worst_table,
            "ppc": ppc, "coverage": coverage}
