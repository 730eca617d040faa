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
    """Return the lower and upper bounds of each interval over the last axis of ``samples``.

    ArviZ's intervals for every scalar at once (``arviz_stats.base.array_stats``):
    ``"hdi"`` its ``hdi`` with the default method (the narrowest interval between two
    draws holding ⌊ci_prob·n⌋ + 1 of the n draws, the first one on ties), ``"eti"`` its
    ``eti`` (linear quantiles).

    Parameters
    ----------
    samples
        Draws, ``(..., n)`` (chains and draws flattened into the last axis).
    ci_prob
        Interval probability, in (0, 1).
    ci_kind
        ``"hdi"`` or ``"eti"``.

    Returns
    -------
    (lower, upper)
        Arrays of the shape of ``samples`` without its last axis.

    Examples
    --------
    Of 0, 1, …, 9 the 50% HDI holds ⌊0.5·10⌋ + 1 = 6 draws, the first narrowest run;
    the 50% ETI runs between the linear 25% and 75% quantiles:

    >>> import numpy as np
    >>> from embias.bayes.summary import interval_bounds
    >>> draws = np.arange(10.0)
    >>> [float(bound) for bound in interval_bounds(draws, 0.5, "hdi")]
    [0.0, 5.0]
    >>> [float(bound) for bound in interval_bounds(draws, 0.5, "eti")]
    [2.25, 6.75]
    """
    from arviz_stats.base import array_stats

    interval = array_stats.eti if ci_kind == "eti" else array_stats.hdi
    bounds = np.asarray(interval(np.asarray(samples, dtype=float), ci_prob, axis=-1))
    return bounds[..., 0], bounds[..., 1]


class _Values:
    """Per-scalar values of each variable of a dataset of draws, by coordinate labels.

    One NumPy array per variable: a summary row costs a dictionary lookup, not an xarray
    selection.
    """

    def __init__(self, ds: xr.Dataset, arrays: Mapping[str, Any]) -> None:
        self._dims = {str(var): [str(d) for d in ds[var].dims if d not in ("chain", "draw")]
                      for var in ds.data_vars}
        self._positions = {var: [{str(v): i for i, v in enumerate(ds[d].values)}
                                 for d in dims] for var, dims in self._dims.items()}
        self._arrays = {name: {var: np.asarray(values(ds[var], self._dims[var]))
                               for var in self._dims}
                        for name, values in arrays.items()}

    def __call__(self, name: str, var: str, sel: Mapping[str, Any]) -> float:
        """Return value ``name`` (estimate, lower …) of the scalar ``sel`` of ``var``."""
        index = tuple(pos[str(sel[d])] for pos, d in zip(self._positions[var],
                                                         self._dims[var], strict=True))
        return float(self._arrays[name][var][index])


def contrast_draws(connection_mean: xr.DataArray, *, dim: str = "connection"
                   ) -> xr.DataArray | None:
    """Return the draws of the contrasts of :data:`CONTRASTS` whose connections are present.

    Parameters
    ----------
    connection_mean
        Draws with a dimension ``dim`` labelled by connection (e.g. ``connection_mean``,
        or ``coef`` for the contrasts of each protected word).
    dim
        The dimension of the connections.

    Returns
    -------
    xarray.DataArray or None
        First minus second connection of each contrast, along a new dimension
        ``contrast`` (labels such as ``"associated - none"``) in place of ``dim``;
        ``None`` when no contrast has both its connections.

    Examples
    --------
    >>> import xarray as xr
    >>> from embias.bayes.summary import contrast_draws
    >>> means = xr.DataArray([[0.8, 0.9, 0.95]], dims=("draw", "connection"),
    ...                      coords={"connection": ["associated", "different", "none"]})
    >>> contrasts = contrast_draws(means)
    >>> [str(c) for c in contrasts["contrast"].values]
    ['associated - none', 'associated - different', 'different - none']
    >>> contrasts.sel(draw=0).values.round(2)
    array([-0.15, -0.1 , -0.05])
    """
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

#: The columns of a summary row that name what it is about, empty when they do not apply.
_EMPTY = {"connection": "", "protected_word": "", "protected_class": "", "contrast": ""}


def compared_word_kinds(posterior: DataTree) -> xr.DataArray:
    """Return each compared word's kind (attribute, neutral, human) of a crossed fit.

    It is data, kept in the ``constant_data`` group (variable ``compared_word_kind``);
    a posterior that carries it as a coordinate of its ``posterior`` group instead is
    read too.

    Parameters
    ----------
    posterior
        The fit's ``DataTree``.

    Returns
    -------
    xarray.DataArray
        Dims ``word_to_compare``.

    Examples
    --------
    >>> import xarray as xr
    >>> from embias.bayes.summary import compared_word_kinds
    >>> tree = xr.DataTree.from_dict({"constant_data": xr.Dataset(
    ...     {"compared_word_kind": ("word_to_compare", ["attribute", "neutral"])},
    ...     coords={"word_to_compare": ["hate", "chair"]})})
    >>> compared_word_kinds(tree).sel(word_to_compare="chair").item()
    'neutral'
    """
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
    """Return the interval table of a fitted model.

    The rows of :meth:`embias.BiasFit.to_interval_table`, from the draws of a posterior.

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

    Returns
    -------
    pandas.DataFrame
        The interval table (:func:`embias.report.interval_table`) with the columns of
        :meth:`embias.BiasFit.to_interval_table`.

    Raises
    ------
    ValueError
        An unknown ``ci_kind``, a ``ci_prob`` outside (0, 1) or a negative ``rope``.

    Examples
    --------
    Two chains of two draws of two connection means; the 50% ETI of four draws runs
    between the linear 25% and 75% quantiles:

    >>> import numpy as np
    >>> import pandas as pd
    >>> import xarray as xr
    >>> from embias.bayes.summary import summarize_posterior
    >>> draws = np.array([[[0.80, 0.90], [0.82, 0.96]], [[0.78, 0.94], [0.84, 0.92]]])
    >>> posterior = xr.DataTree.from_dict({"posterior": xr.Dataset(
    ...     {"connection_mean": (("chain", "draw", "connection"), draws)},
    ...     coords={"connection": ["associated", "none"]})})
    >>> cells = pd.DataFrame({"protected_word": [], "protected_class": []})
    >>> table = summarize_posterior(posterior, cells, ci_prob=0.5, ci_kind="eti")
    >>> columns = ["estimand", "group", "estimate", "lower", "upper", "rope_decision"]
    >>> print(table[columns].to_string(index=False))
           estimand             group  estimate  lower  upper       rope_decision
    connection_mean        associated      0.81  0.795  0.825
    connection_mean              none      0.93  0.915  0.945
           contrast associated - none     -0.12 -0.145 -0.095 credible difference
    """
    check_choice("ci_kind", ci_kind, CI_KINDS_BAYES)
    ci_prob = check_probability("ci_prob", ci_prob)
    rope = check_rope(rope)
    post = posterior["posterior"].to_dataset()
    if word_contrasts is None:
        word_contrasts = "bar" in post
    ds = _summary_draws(post, word_contrasts=bool(word_contrasts))
    rows = _Rows(ds, ci_prob=float(ci_prob), ci_kind=ci_kind, rope=float(rope))
    class_of = dict(zip(cells["protected_word"], cells["protected_class"], strict=True))
    records = rows.connections(post) + rows.words(post, class_of)
    if "tau_word" in post:  # crossed level: the compared words as a sample
        records += rows.compared_words(post, compared_word_kinds(posterior))
    if "tau_template" in post:
        records += _template_rows(post, rows.base)
    table = interval_table(records, ci_prob=float(ci_prob), ci_kind=ci_kind)
    if "word_kind" in table.columns:
        table["word_kind"] = table["word_kind"].fillna("")
    is_contrast = table["estimand"].isin(["contrast", "word_contrast"]).to_numpy()
    decision = np.where(is_contrast,
                        rope_decision(table["lower"], table["upper"], float(rope)), "")
    table["rope_decision"] = decision
    return table


def _summary_draws(post: xr.Dataset, *, word_contrasts: bool) -> xr.Dataset:
    """Return the draws a summary reports: connection means, contrasts, coefficients."""
    import xarray as xr

    derived = {"connection_mean": post["connection_mean"]}
    contrast = contrast_draws(post["connection_mean"])
    if contrast is not None:
        derived["connection_contrast"] = contrast
    if "coef" in post:
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
    return xr.Dataset(derived)


class _Rows:
    """The rows of an interval table: estimate, bounds and contrast columns per scalar."""

    def __init__(self, ds: xr.Dataset, *, ci_prob: float, ci_kind: CiKind,
                 rope: float) -> None:
        self.ds, self.rope = ds, rope
        sample = ("chain", "draw")
        ci: dict[Any, tuple[np.ndarray, np.ndarray]] = {}

        def bound(side: int) -> Any:
            """Lower (0) or upper (1) bounds of a variable's scalars, both computed at once."""
            def value(da: xr.DataArray, dims: list[str]) -> np.ndarray:
                if da.name not in ci:
                    draws = da.transpose(*dims, *sample).values
                    ci[da.name] = interval_bounds(
                        draws.reshape(*draws.shape[:len(dims)], -1), ci_prob, ci_kind)
                return ci[da.name][side]
            return value

        self.values = _Values(ds, {
            "estimate": lambda da, dims: da.mean(sample).transpose(*dims).values,
            "lower": bound(0),
            "upper": bound(1),
            "prob_gt_0": lambda da, dims: (da > 0).mean(sample).transpose(*dims).values,
            "prob_in_rope": lambda da, dims: (abs(da) <= rope).mean(sample).transpose(
                *dims).values,
        })

    def base(self, estimand: str, group: str, var: str, sel: dict[str, str]) -> dict[str, Any]:
        """Return a row's estimand, group, estimate and bounds."""
        return {"estimand": estimand, "group": group,
                "estimate": self.values("estimate", var, sel),
                "lower": self.values("lower", var, sel),
                "upper": self.values("upper", var, sel)}

    def contrast(self, var: str, sel: dict[str, str]) -> dict[str, Any]:
        """Return a contrast row's P(contrast > 0), share in the ROPE and the ROPE."""
        return {"prob_gt_0": self.values("prob_gt_0", var, sel),
                "prob_in_rope": self.values("prob_in_rope", var, sel), "rope": self.rope}

    def connections(self, post: xr.Dataset) -> list[dict[str, Any]]:
        """Return the connection means' rows and the contrasts' rows."""
        rows = []
        for con in (str(c) for c in post["connection"].values):
            rows.append({**self.base("connection_mean", con, "connection_mean",
                                     {"connection": con}), **_EMPTY, "connection": con})
        if "connection_contrast" in self.ds:
            for name in (str(c) for c in self.ds["connection_contrast"]["contrast"].values):
                sel = {"contrast": name}
                rows.append({**self.base("contrast", name, "connection_contrast", sel),
                             **_EMPTY, "contrast": name,
                             **self.contrast("connection_contrast", sel)})
        return rows

    def words(self, post: xr.Dataset, class_of: Mapping[str, str]) -> list[dict[str, Any]]:
        """Return the rows of every protected word's coefficients and contrasts."""
        if "coef" not in post:
            return []
        words = [str(w) for w in post["protected_word"].values]
        rows = []
        for word in words:
            for con in (str(c) for c in post["connection"].values):
                sel = {"protected_word": word, "connection": con}
                rows.append({**self.base("word_coefficient", word, "coef", sel), **_EMPTY,
                             "connection": con, "protected_word": word,
                             "protected_class": class_of.get(word, "")})
        if "word_contrast" in self.ds:
            for word in words:
                for name in (str(c) for c in self.ds["word_contrast"]["contrast"].values):
                    sel = {"protected_word": word, "contrast": name}
                    rows.append({**self.base("word_contrast", word, "word_contrast", sel),
                                 **_EMPTY, "protected_word": word,
                                 "protected_class": class_of.get(word, ""), "contrast": name,
                                 **self.contrast("word_contrast", sel)})
        return rows

    def compared_words(self, post: xr.Dataset, kinds: xr.DataArray) -> list[dict[str, Any]]:
        """Return the rows of the compared words' sds per kind and of their effects."""
        kind_of = dict(zip(post["word_to_compare"].values, kinds.values, strict=True))
        rows = []
        for kind in (str(k) for k in post["word_kind"].values):
            rows.append({**self.base("compared_word_sd", kind, "tau_word", {"word_kind": kind}),
                         **_EMPTY, "word_kind": kind})
        for word in post["word_to_compare"].values:
            rows.append({**self.base("compared_word_effect", str(word), "word_effect",
                                     {"word_to_compare": word}),
                         **_EMPTY, "word_kind": str(kind_of[word])})
        return rows


def _template_rows(post: xr.Dataset, base: Any) -> list[dict[str, Any]]:
    """Return the rows of the template effects (:mod:`embias.bayes.crossed`).

    ``template_sd`` (τ_template, and τ_template×kind when the model has it),
    ``template_effect`` per template (v[t]: the shift of all its rows) and
    ``template_kind_effect`` per template and kind of compared word (V[t, k] = v[t] +
    v×[t, k]: the shift of the rows of that kind).
    """
    rows = [{**base("template_sd", group, name, {}), **_EMPTY, "word_kind": ""}
            for name, group in TEMPLATE_SD_GROUPS.items() if name in post]
    templates = [str(t) for t in post["template"].values]
    for template in templates:
        rows.append({**base("template_effect", template, "template_effect",
                            {"template": template}), **_EMPTY, "word_kind": ""})
    for template in templates:
        for kind in post["template_kind_effect"]["word_kind"].values:
            rows.append({**base("template_kind_effect", template, "template_kind_effect",
                                {"template": template, "word_kind": str(kind)}),
                         **_EMPTY, "word_kind": str(kind)})
    return rows
