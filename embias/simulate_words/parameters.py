"""The word-sampling simulation's truth and what it compares.

The crossed model's parameters that tables are drawn from (:class:`WordSamplingParameters`,
with the null of no association difference), the contrasts whose truth is 0 under that null
and the models compared by default (``WORD_SAMPLING_LEVELS``, defined in
:mod:`embias.settings` so that the figure, in the plotting layer, can read it too).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..bayes.crossed import WORD_KIND_OF_CONNECTION
from ..settings import WORD_SAMPLING_LEVELS as WORD_SAMPLING_LEVELS
from ..tables import CONNECTIONS

#: The contrasts whose truth is 0 under the null of :func:`simulate_word_sampling`: an
#: interval of one of them that excludes 0 is a false claim of bias.
NULL_CONTRASTS: tuple[str, ...] = ("associated - none", "associated - different",
                                   "different - none")


@dataclass(frozen=True)
class WordSamplingParameters:
    """Parameters of the crossed model that :func:`simulate_word_table` draws tables from.

    Attributes
    ----------
    bar
        Population mean cosine distance per connection (``bar[con]``).
    tau
        Sd of the protected words' coefficients around ``bar`` per connection.
    sigma
        Residual sd per connection.
    tau_word
        Sd of the compared words' effects per word kind (attribute, neutral, human). With
        ``tau_word_different`` set, ``tau_word["attribute"]`` is the sd of an attribute
        word's effect in the rows where it meets its own class (``associated``).
    tau_word_different, word_correlation
        ``None`` (the default): an attribute word has one effect for all its rows.
        Otherwise its effect where it meets the other classes (``different`` rows) is a
        second one, with this sd and this correlation with its own-class effect (the
        pair jointly Normal): real attribute words are not equally far from every class
        (:func:`calibrate_word_sampling` with ``attribute_offsets="own_and_other"``
        measures both). Both are set or neither.
    """

    bar: Mapping[str, float]
    tau: Mapping[str, float]
    sigma: Mapping[str, float]
    tau_word: Mapping[str, float]
    tau_word_different: float | None = None
    word_correlation: float | None = None

    def __post_init__(self) -> None:
        """Check every value and the names of the connections and word kinds."""
        for name in ("bar", "tau", "sigma", "tau_word"):
            values = getattr(self, name)
            if not isinstance(values, Mapping) or not values:
                raise ValueError(f"WordSamplingParameters.{name} must be a non-empty mapping, "
                                 f"got {values!r}")
            checked = {}
            for key, value in values.items():
                number = float(value)
                if not math.isfinite(number) or (name != "bar" and number < 0):
                    raise ValueError(f"WordSamplingParameters.{name}[{key!r}] must be a "
                                     f"finite{'' if name == 'bar' else ' non-negative'} "
                                     f"number, got {value!r}")
                checked[str(key)] = number
            object.__setattr__(self, name, checked)
        cons = set(self.bar)
        unknown = sorted(cons - set(CONNECTIONS))
        if unknown:
            raise ValueError(f"unknown connection(s) {unknown}; allowed: {list(CONNECTIONS)}")
        for name in ("tau", "sigma"):
            if set(getattr(self, name)) != cons:
                raise ValueError(f"WordSamplingParameters.{name} must name the connections of "
                                 f"bar {sorted(cons)}, got {sorted(getattr(self, name))}")
        kinds = {WORD_KIND_OF_CONNECTION[c] for c in cons}
        if set(self.tau_word) != kinds:
            raise ValueError(f"WordSamplingParameters.tau_word must name the word kinds "
                             f"{sorted(kinds)}, got {sorted(self.tau_word)}")
        self._check_attribute_pair(cons)

    def _check_attribute_pair(self, cons: set[str]) -> None:
        """Check ``tau_word_different`` and ``word_correlation`` (both or neither)."""
        sd, rho = self.tau_word_different, self.word_correlation
        if (sd is None) != (rho is None):
            raise ValueError("WordSamplingParameters.tau_word_different and word_correlation "
                             f"are set together or not at all, got {sd!r} and {rho!r}")
        if sd is None:
            return
        if not {"associated", "different"} <= cons:
            raise ValueError("an attribute word's own-class and other-class effects need "
                             "associated and different connections, got "
                             f"{sorted(cons)}")
        sd, rho = float(sd), float(rho)  # type: ignore[arg-type]
        if not (math.isfinite(sd) and sd >= 0):
            raise ValueError(f"WordSamplingParameters.tau_word_different must be a finite "
                             f"non-negative number, got {self.tau_word_different!r}")
        if not (math.isfinite(rho) and -1.0 <= rho <= 1.0):
            raise ValueError(f"WordSamplingParameters.word_correlation must be a number in "
                             f"[-1, 1], got {self.word_correlation!r}")
        object.__setattr__(self, "tau_word_different", sd)
        object.__setattr__(self, "word_correlation", rho)

    def without_association(self) -> WordSamplingParameters:
        """Return the null of :func:`simulate_word_sampling`: no association difference.

        ``bar[associated]`` and ``bar[different]`` set to ``bar[none]`` (an attribute word
        is, on average over the populations of attribute and protected words, as far from
        a protected word as a neutral word is, whichever class it belongs to); everything
        else unchanged.
        """
        if "none" not in self.bar:
            raise ValueError("without_association() needs a 'none' connection to equal, got "
                             f"{sorted(self.bar)}")
        bar = dict(self.bar)
        for con in ("associated", "different"):
            if con in bar:
                bar[con] = bar["none"]
        return dataclasses.replace(self, bar=bar)

    def to_frame(self) -> pd.DataFrame:
        """Return one row per connection: ``bar``, ``tau``, ``sigma``, kind, ``tau_word``.

        ``word_kind`` is the connection's kind of compared word, ``tau_word`` the sd of the
        compared words' effects in its rows (``tau_word_different`` in the different rows
        when it is set).
        """
        rows = [{"connection": c, "bar": self.bar[c], "tau": self.tau[c],
                 "sigma": self.sigma[c], "word_kind": WORD_KIND_OF_CONNECTION[c],
                 "tau_word": self.word_sd(c)}
                for c in CONNECTIONS if c in self.bar]
        return pd.DataFrame(rows)

    def word_sd(self, connection: str) -> float:
        """Return the sd of the compared words' effects in the rows of ``connection``."""
        if connection == "different" and self.tau_word_different is not None:
            return self.tau_word_different
        return self.tau_word[WORD_KIND_OF_CONNECTION[connection]]

    def contrast_truth(self, contrast: str) -> float:
        """Return the true value of a contrast named ``"a - b"``: bar[a] − bar[b]."""
        a, _, b = contrast.partition(" - ")
        return self.bar[a] - self.bar[b]
