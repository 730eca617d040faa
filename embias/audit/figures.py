"""The figures a saved fit keeps for its audit page: ``keep_figures``.

``embias fit`` draws the forest plot and the posterior predictive check of every fit it
saves and keeps them with the fit, so that a page built from the fit later reads them
back. What is drawn is decided here and in :mod:`~embias.audit.content`; both are part of
the figure cache key (``embias.audit.render.drawing_code_files``).
"""

from __future__ import annotations

from typing import Any

from .options import CiKind, options_from_keywords

__all__ = ["keep_figures"]


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
