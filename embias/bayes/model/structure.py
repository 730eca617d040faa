"""The levels of the hierarchical family and the choices that tell them apart.

``LevelStructure`` holds the choices (compared words as a sample, protected classes as
strata, a protected word's shared offset, correlated coefficients…), ``level_structure``
gives a level's, and :data:`CROSSED_LEVELS` names the levels with the compared words as a
random sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..._validation import check_choice

__all__ = ["CROSSED_LEVELS", "LEVEL_STRUCTURES", "DataMode", "Level", "LevelStructure",
           "level_structure"]

Level = Literal["dataset", "word", "hierarchical", "crossed", "crossed_strata"]
DataMode = Literal["summary", "raw"]

#: The levels with the compared words as a random sample (their effects integrated out in
#: closed form, :mod:`embias.bayes.crossed`).
CROSSED_LEVELS: tuple[str, ...] = ("crossed", "crossed_strata")


@dataclass(frozen=True)
class LevelStructure:
    """The choices that tell the hierarchical-family levels apart.

    Attributes
    ----------
    word_effects
        Compared words as a random sample: u[w] ~ N(0, τ_u[kind]) (the crossed levels).
    strata
        Protected classes as fixed strata: the coefficients of a protected word scatter
        around its own class's means, ``bar[class, connection]``, and the connection mean
        is the average of the class means weighted by the classes' shares of the protected
        words (the weights of the population answer, :mod:`embias.calibration`).
        Otherwise one ``bar[connection]`` for all protected words.
    protected_offset
        One offset per protected word shared by its connections,
        a[p] ~ N(0, τ_protected): a word that sits far from every compared word moves
        all its coefficients together, which cancels in the contrasts.
    correlated
        A protected word's coefficients across the connections are jointly Normal with
        an unstructured correlation matrix, coef[p, ·] ~ MvN(centre, diag(τ) R diag(τ)),
        R ~ LKJ(``correlation_eta``); otherwise independent per connection (R = I).
    correlation_eta
        Shape of the LKJ prior of R (1: uniform over correlation matrices).
    attribute_pair
        An attribute word has two effects, one in the rows where it meets its own class
        (``associated``) and one where it meets the others (``different``), jointly
        Normal: sds τ_u[attribute] and τ_u,different, correlation ρ_u ~ LKJ(η) (for two
        variables, density ∝ (1 − ρ²)^(η − 1)); otherwise one effect for all its rows.
    mean_prior_sd
        Prior sd of the (class) connection means around ``prior_location``.
    integrate_coefficients
        The protected words' coefficients are integrated out as well (crossed levels on
        the cell statistics, :func:`integrated_coefficients_log_likelihood`): the sampler
        sees only the means, sds and correlations, and the coefficients are drawn
        afterwards from their exact conditional (:func:`embias.bayes.crossed.
        draw_protected_coefficients`).
    sd_prior, sd_prior_scale
        Prior family of τ, τ_u and τ_protected — ``"exponential"`` (scale = its mean,
        1/rate) or ``"halfnormal"`` (scale = the sd of the Normal it folds).
    """

    word_effects: bool = False
    strata: bool = False
    protected_offset: bool = False
    correlated: bool = False
    correlation_eta: float = 2.0
    attribute_pair: bool = False
    integrate_coefficients: bool = False
    mean_prior_sd: float = 0.3
    sd_prior: str = "exponential"
    sd_prior_scale: float = 0.5

    def sd_variable(self, name: str, **kwargs: Any) -> Any:
        """Add a standard deviation with this structure's prior (inside a model context)."""
        import pymc as pm

        if self.sd_prior == "halfnormal":
            return pm.HalfNormal(name, sigma=self.sd_prior_scale, **kwargs)
        return pm.Exponential(name, lam=1.0 / self.sd_prior_scale, **kwargs)


#: The structure of each level of the hierarchical family (``level_structure``).
LEVEL_STRUCTURES: dict[str, LevelStructure] = {
    "hierarchical": LevelStructure(),
    "crossed": LevelStructure(word_effects=True),
    "crossed_strata": LevelStructure(word_effects=True, strata=True),
}


def level_structure(level: str) -> LevelStructure:
    """Return the :class:`LevelStructure` of a level of the hierarchical family.

    Parameters
    ----------
    level
        ``"hierarchical"``, ``"crossed"`` or ``"crossed_strata"``.

    Returns
    -------
    LevelStructure
        The choices that tell the level apart from the others.

    Raises
    ------
    ValueError
        ``level`` is not one of the hierarchical family's levels.

    Examples
    --------
    >>> from embias.bayes.model import level_structure
    >>> level_structure("crossed").word_effects, level_structure("crossed").strata
    (True, False)
    >>> level_structure("crossed_strata").strata
    True
    >>> try:
    ...     level_structure("word")
    ... except ValueError as error:
    ...     print(error)
    level='word' is not one of ['hierarchical', 'crossed', 'crossed_strata']
    """
    check_choice("level", level, tuple(LEVEL_STRUCTURES))
    return LEVEL_STRUCTURES[level]
