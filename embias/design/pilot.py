"""A fitted pilot study, read for the posterior predictive of a design analysis.

:func:`read_pilot` takes a crossed-level :class:`~embias.BiasFit` and returns its classes,
associations, word counts and the posterior draws of the population parameters
(:class:`Pilot`), from which new studies are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..bayes.fit import BiasFit

@dataclass(frozen=True)
class Pilot:
    """What a fitted pilot study gives the posterior predictive.

    Its classes, associations and word counts, and the posterior draws of the crossed
    model's population parameters (flattened over chains).
    """

    protected: dict[str, int]
    attributes: dict[str, int]
    associations: dict[str, str | None]
    neutral: int
    human: int
    draws: dict[str, dict[str, np.ndarray]]  # parameter → label → (n_draws,)
    n_draws: int
    description: dict[str, Any]

    def parameters(self, k: int) -> Any:
        """Return posterior draw ``k`` as :class:`embias.simulate_words.WordSamplingParameters`."""
        from ..simulate_words import WordSamplingParameters

        fields: dict[str, Any] = {name: {label: float(v[k]) for label, v in by.items()}
                                  for name, by in self.draws.items()}
        return WordSamplingParameters(**fields)


def read_pilot(fit: BiasFit) -> Pilot:
    """Read the pilot structure and posterior draws of a crossed-level fit (else refuse it).

    Parameters
    ----------
    fit
        A word-table fit of embias at the crossed level.

    Returns
    -------
    Pilot
        Its classes, associations, word counts and posterior draws of ``bar``, ``tau``,
        ``sigma`` and ``tau_word``.

    Raises
    ------
    ValueError
        A fit at another level, of a sentence table, or without those parameters.
    """
    if fit.level != "crossed":
        raise ValueError(f"design_analysis() draws new studies from a crossed-level fit's "
                         f"posterior (new protected words coef ~ N(bar, tau), new compared "
                         f"words u ~ N(0, tau_word)); this fit is at level {fit.level!r} — "
                         "fit the pilot study with level='crossed'")
    table = fit.table
    if "template" in table.columns:
        raise ValueError("design_analysis() simulates word studies; this fit is of a sentence "
                         "table (it has templates), whose template effects a new study would "
                         "also need — not supported")
    post = fit.sampled["posterior"].to_dataset()
    missing = [v for v in ("bar", "tau", "sigma", "tau_word") if v not in post]
    if missing:
        raise ValueError(f"the fit's posterior lacks {missing}; design_analysis() needs a "
                         "crossed-level fit of embias")
    flat = post[["bar", "tau", "sigma", "tau_word"]].stack(sample=("chain", "draw"))
    draws = {name: {str(label): np.asarray(flat[name].sel({dim: label}).values, dtype=float)
                    for label in flat[name][dim].values}
             for name, dim in (("bar", "connection"), ("tau", "connection"),
                               ("sigma", "connection"), ("tau_word", "word_kind"))}
    protected_of = table.drop_duplicates("protected_word")
    protected = {str(c): int(n) for c, n in protected_of.groupby(
        "protected_class", sort=False).size().items()}
    attribute_rows = table[table["connection"].isin(["associated", "different"])]
    attributes = {str(c): int(n) for c, n in attribute_rows.drop_duplicates(
        "word_to_compare").groupby("word_class", sort=False).size().items()}
    associated = table[table["connection"] == "associated"]
    associations: dict[str, str | None] = dict.fromkeys(protected)
    for c, rows in associated.groupby("protected_class", sort=False):
        associations[str(c)] = str(rows["word_class"].iloc[0])
    words = {con: int(table.loc[table["connection"] == con, "word_to_compare"].nunique())
             for con in ("none", "human")}
    return Pilot(protected=protected, attributes=attributes, associations=associations,
                  neutral=words["none"], human=words["human"], draws=draws,
                  n_draws=int(flat.sizes["sample"]),
                  description={"study": str(table.attrs.get("study", fit.settings.get(
                      "study", ""))), "embedding": str(fit.settings.get("embedding", "")),
                      "level": fit.level, "random_seed": fit.settings.get("random_seed"),
                      "posterior_draws": int(flat.sizes["sample"])})

