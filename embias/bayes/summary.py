"""Interval tables of fitted models: connection means, contrasts, word coefficients.

Every row goes through the shared reporting layer (:func:`embias.report.interval_table`,
which stamps ``ci_kind``/``ci_prob``), and every contrast carries P(contrast > 0), the
share of its posterior inside the ROPE and the one decision rule of embias
(:func:`embias.report.rope_decision`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from .._validation import check_choice, check_probability, check_rope
from ..report import interval_table, rope_decision
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr
    from xarray import DataTree

__all__ = ["CI_KINDS_BAYES", "CONTRASTS", "compared_word_kinds", "contrast_draws",
           "interval_bounds", "summarize_posterior"]

CiKind = Literal["hdi", "eti"]

#: Interval kinds accepted by :meth:`BiasFit.summary` (``ci_kind=``).
CI_KINDS_BAYES: tuple[str, ...] = ("hdi", "eti")

#: Contrasts reported by :meth:`BiasFit.summary` (first minus second), when both
#: connections are present.
CONTRASTS: tuple[tuple[str, str], ...] = (
    ("associated", "none"),
    ("associated", "different"),
    ("different", "none"),
    ("human", "none"),
)



def interval_bounds(samples: np.ndarray, ci_prob: float,
                    ci_kind: CiKind) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of each interval over the last axis of ``samples``.

    ArviZ's intervals, computed for every scalar at once: ``"hdi"`` is
    ``arviz_stats.hdi``'s default method (the narrowest interval between two draws holding
    ⌊ci_prob·n⌋ + 1 of the n draws, the first one on ties), ``"eti"`` ``arviz_stats.eti``'s
    linear quantiles. Equal to them to 1e-12 (tests/test_bayes.py); they are not called
    because importing ``arviz_stats`` loads ``scipy.stats`` (≈ 1.2 s of a 15 s fit from the
    command line).

    Parameters
    ----------
    samples
        Draws, ``(..., n)`` (chains and draws flattened into the last axis).
    ci_prob
        Interval probability, in (0, 1).
    ci_kind
        ``"hdi"`` or ``"eti"``.
    """
    n = samples.shape[-1]
    if ci_kind == "eti":
        edge = (1 - ci_prob) / 2
        lower, upper = np.quantile(samples, [edge, 1 - edge], axis=-1)
        return lower, upper
    ordered = np.sort(samples, axis=-1)
    k = min(int(np.floor(ci_prob * n)), n - 1)
    start = np.argmin(ordered[..., k:] - ordered[..., : n - k], axis=-1)[..., None]
    return (np.take_along_axis(ordered, start, axis=-1)[..., 0],
            np.take_along_axis(ordered, start + k, axis=-1)[..., 0])


class _Values:
    """Per-scalar values of each variable of a dataset of draws, looked up by coordinate
    labels (one NumPy array per variable: a summary row costs a dictionary lookup, not
    an xarray selection)."""

    def __init__(self, ds: xr.Dataset, arrays: Mapping[str, Any]) -> None:
        self._dims = {var: [d for d in ds[var].dims if d not in ("chain", "draw")]
                      for var in ds.data_vars}
        self._positions = {var: [{str(v): i for i, v in enumerate(ds[d].values)}
                                 for d in dims] for var, dims in self._dims.items()}
        self._arrays = {name: {var: np.asarray(values(ds[var], self._dims[var]))
                               for var in ds.data_vars}
                        for name, values in arrays.items()}

    def __call__(self, name: str, var: str, sel: Mapping[str, Any]) -> float:
        index = tuple(pos[str(sel[d])] for pos, d in zip(self._positions[var],
                                                         self._dims[var], strict=True))
        return float(self._arrays[name][var][index])



def contrast_draws(connection_mean: xr.DataArray, *, dim: str = "connection"
                    ) -> xr.DataArray | None:
    import xarray as xr

    present = [str(c) for c in connection_mean[dim].values]
    pairs = [(a, b) for a, b in CONTRASTS if a in present and b in present]
    if not pairs:
        return None
    parts = [connection_mean.sel({dim: a}, drop=True) - connection_mean.sel({dim: b},
                                                                            drop=True)
             for a, b in pairs]
    return xr.concat(parts, dim="contrast").assign_coords(
        contrast=[f"{a} - {b}" for a, b in pairs])



#: Posterior variables of the template effects (crossed level of a sentence table).
TEMPLATE_VARIABLES: tuple[str, ...] = ("tau_template", "tau_template_kind", "template_effect",
                                       "template_kind_effect")
#: ``group`` of the two ``template_sd`` rows.
TEMPLATE_SD_GROUPS: dict[str, str] = {"tau_template": "template",
                                      "tau_template_kind": "template × word kind"}


def _template_rows(post: xr.Dataset, base: Any) -> list[dict[str, Any]]:
    """``template_sd`` (τ_template, and τ_template×kind when the model has it),
    ``template_effect`` per template (v[t]: the shift of all its rows) and
    ``template_kind_effect`` per template and kind of compared word (V[t, k] = v[t] +
    v×[t, k]: the shift of the rows of that kind); :mod:`embias.bayes.crossed`."""
    empty = {"connection": "", "protected_word": "", "protected_class": "", "contrast": ""}
    rows = [{**base("template_sd", group, name, {}), **empty, "word_kind": ""}
            for name, group in TEMPLATE_SD_GROUPS.items() if name in post]
    templates = [str(t) for t in post["template"].values]
    for template in templates:
        rows.append({**base("template_effect", template, "template_effect",
                            {"template": template}), **empty, "word_kind": ""})
    for template in templates:
        for kind in post["template_kind_effect"]["word_kind"].values:
            rows.append({**base("template_kind_effect", template, "template_kind_effect",
                                {"template": template, "word_kind": str(kind)}),
                         **empty, "word_kind": str(kind)})
    return rows


def compared_word_kinds(posterior: DataTree) -> xr.DataArray:
    """Each compared word's kind (attribute, neutral, human) of a crossed fit (dims
    ``word_to_compare``).

    It is data, kept in the ``constant_data`` group (variable ``compared_word_kind``);
    fits saved by embias 0.3 carry it as a coordinate of the posterior instead, which is
    read too."""
    if "constant_data" in posterior.children:
        constant = posterior["constant_data"].to_dataset()
        if "compared_word_kind" in constant:
            return constant["compared_word_kind"]
    return posterior["posterior"].to_dataset()["compared_word_kind"]


def summarize_posterior(
    posterior: DataTree,
    cells: pd.DataFrame,
    *,
    ci_prob: float = DEFAULT_CI_PROB,
    ci_kind: CiKind = "hdi",
    rope: float = DEFAULT_ROPE,
    word_contrasts: bool | None = None,
) -> pd.DataFrame:
    """Interval table of a fitted model (see :meth:`embias.BiasFit.to_interval_table`).

    Parameters
    ----------
    posterior
        A ``DataTree`` whose ``posterior`` group holds ``connection_mean`` (dims
        ``connection``) and, at the word and hierarchical levels, ``coef`` (dims
        ``protected_word, connection``).
    cells
        The fitted table's cell statistics (protected classes of the words).
    ci_prob, ci_kind, rope
        Interval probability, ``"hdi"`` or ``"eti"``, ROPE half-width of the contrasts.
    word_contrasts
        Report the contrasts of every word's coefficients (the hierarchical level does by
        default: ``None`` means "when the posterior has ``bar``").
    """
    check_choice("ci_kind", ci_kind, CI_KINDS_BAYES)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    post = posterior["posterior"].to_dataset()
    class_of = dict(zip(cells["protected_word"], cells["protected_class"], strict=True))
    derived = {"connection_mean": post["connection_mean"]}
    contrast = contrast_draws(post["connection_mean"])
    if contrast is not None:
        derived["connection_contrast"] = contrast
    has_words = "coef" in post
    if word_contrasts is None:
        word_contrasts = "bar" in post
    if has_words:
        derived["coef"] = post["coef"]
        if word_contrasts:
            word_contrast = contrast_draws(post["coef"])
            if word_contrast is not None:
                derived["word_contrast"] = word_contrast
    if "tau_word" in post:
        derived["tau_word"] = post["tau_word"]
        derived["word_effect"] = post["word_effect"]
    for name in TEMPLATE_VARIABLES:  # crossed level of a sentence table
        if name in post:
            derived[name] = post[name]
    import xarray as xr

    ds = xr.Dataset(derived)
    sample = ("chain", "draw")

    ci: dict[Any, tuple[np.ndarray, np.ndarray]] = {}

    def bound(side: int) -> Any:
        """Lower (0) or upper (1) bounds of a variable's scalars, both computed at once."""
        def value(da: xr.DataArray, dims: list[str]) -> np.ndarray:
            if da.name not in ci:
                draws = da.transpose(*dims, *sample).values
                ci[da.name] = interval_bounds(draws.reshape(*draws.shape[:len(dims)], -1),
                                              float(ci_prob), ci_kind)
            return ci[da.name][side]
        return value

    values = _Values(ds, {
        "estimate": lambda da, dims: da.mean(sample).transpose(*dims).values,
        "lower": bound(0),
        "upper": bound(1),
        "prob_gt_0": lambda da, dims: (da > 0).mean(sample).transpose(*dims).values,
        "prob_in_rope": lambda da, dims: (abs(da) <= rope).mean(sample).transpose(*dims).values,
    })
    rows: list[dict[str, Any]] = []

    def base(estimand: str, group: str, var: str, sel: dict[str, str]) -> dict[str, Any]:
        return {
            "estimand": estimand,
            "group": group,
            "estimate": values("estimate", var, sel),
            "lower": values("lower", var, sel),
            "upper": values("upper", var, sel),
        }

    def contrast_extra(var: str, sel: dict[str, str]) -> dict[str, Any]:
        return {"prob_gt_0": values("prob_gt_0", var, sel),
                "prob_in_rope": values("prob_in_rope", var, sel),
                "rope": float(rope)}

    for con in post["connection"].values:
        con = str(con)
        rows.append({**base("connection_mean", con, "connection_mean", {"connection": con}),
                     "connection": con, "protected_word": "", "protected_class": "",
                     "contrast": ""})
    if contrast is not None:
        for name in contrast["contrast"].values:
            name = str(name)
            sel = {"contrast": name}
            rows.append({**base("contrast", name, "connection_contrast", sel),
                         "connection": "", "protected_word": "", "protected_class": "",
                         "contrast": name, **contrast_extra("connection_contrast", sel)})
    if has_words:
        for word in post["protected_word"].values:
            word = str(word)
            for con in post["connection"].values:
                con = str(con)
                sel = {"protected_word": word, "connection": con}
                rows.append({**base("word_coefficient", word, "coef", sel),
                             "connection": con, "protected_word": word,
                             "protected_class": class_of.get(word, ""), "contrast": ""})
        if "word_contrast" in ds:
            for word in post["protected_word"].values:
                word = str(word)
                for name in ds["word_contrast"]["contrast"].values:
                    name = str(name)
                    sel = {"protected_word": word, "contrast": name}
                    rows.append({**base("word_contrast", word, "word_contrast", sel),
                                 "connection": "", "protected_word": word,
                                 "protected_class": class_of.get(word, ""), "contrast": name,
                                 **contrast_extra("word_contrast", sel)})
    if "tau_word" in post:  # crossed level: the compared words as a sample
        kinds = [str(k) for k in post["word_kind"].values]
        kind_of = dict(zip(post["word_to_compare"].values,
                           compared_word_kinds(posterior).values, strict=True))
        for kind in kinds:
            rows.append({**base("compared_word_sd", kind, "tau_word", {"word_kind": kind}),
                         "connection": "", "protected_word": "", "protected_class": "",
                         "contrast": "", "word_kind": kind})
        for word in post["word_to_compare"].values:
            rows.append({**base("compared_word_effect", str(word), "word_effect",
                                {"word_to_compare": word}),
                         "connection": "", "protected_word": "", "protected_class": "",
                         "contrast": "", "word_kind": str(kind_of[word])})
    if "tau_template" in post:
        rows += _template_rows(post, base)
    table = interval_table(rows, ci_prob=float(ci_prob), ci_kind=ci_kind)
    if "word_kind" in table.columns:
        table["word_kind"] = table["word_kind"].fillna("")
    is_contrast = table["estimand"].isin(["contrast", "word_contrast"]).to_numpy()
    decision = np.where(is_contrast,
                        rope_decision(table["lower"], table["upper"], float(rope)), "")
    table["rope_decision"] = decision
    return table

