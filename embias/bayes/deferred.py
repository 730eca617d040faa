"""The parts of a :class:`~embias.bayes.fit.BiasFit` read or computed when first used.

A saved fit's draws (``DeferredDraws``), a batch fit's compared-word log-likelihoods
(``PendingLogLikelihood``) and classic scores (``PendingClassic``), and
``arviz_ready``, which makes a fit's draws a ``DataTree`` ArviZ takes whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..classic import classic_scores

if TYPE_CHECKING:  # pragma: no cover
    from xarray import DataTree

__all__ = ["DeferredDraws", "PendingClassic", "PendingLogLikelihood", "arviz_ready"]


class DeferredDraws:
    """A saved fit's draws, read from its ``posterior.nc`` when first used.

    :func:`embias.load_fit` gives a :class:`~embias.bayes.fit.BiasFit` whose
    post-processing (diagnostics, interval table, divergences, the predictive check) was
    saved with it; the draws are read only when something needs them (``fit.posterior``),
    so showing or reporting a saved fit does not read them at all.
    """

    def __init__(self, read: Callable[[], DataTree], *, where: str) -> None:
        self._read = read
        self.where = where
        self._tree: DataTree | None = None

    def load(self) -> DataTree:
        """Return the draws (read once)."""
        if self._tree is None:
            self._tree = self._read()
        return self._tree

    def __reduce__(self) -> tuple[Any, ...]:  # sent to a worker as the draws themselves
        """Pickle as the draws themselves."""
        return (_loaded, (self.load(),))

    def __repr__(self) -> str:
        """Return where the draws are read from."""
        return f"DeferredDraws({self.where!r})"


def _loaded(tree: DataTree) -> DataTree:
    return tree


#: The groups of a fit's ``DataTree`` that hold draws (ArviZ's sample groups).
_SAMPLE_GROUPS: tuple[str, ...] = ("posterior", "sample_stats", "log_likelihood")


class PendingLogLikelihood:
    """Draws whose ``log_likelihood`` group is added when ``fit.posterior`` is first used.

    Fits run in a batch: their intervals and diagnostics do not need it, and most batch
    fits are never compared by LOO. ``complete`` (if given) adds what else the draws
    wait for, before the log-likelihood: the crossed level's compared-word effects,
    drawn from their exact conditional (:func:`embias.bayes.sampling.complete_crossed_draws`).
    """

    def __init__(self, tree: DataTree,
                 complete: Callable[[DataTree], DataTree] | None = None) -> None:
        self.tree = tree
        self.complete = complete

    def completed(self) -> DataTree:
        """Return the draws with what they waited for (``complete``, applied once).

        Not yet ArviZ-ready, and without the log-likelihood.
        """
        if self.complete is not None:
            self.tree, self.complete = self.complete(self.tree), None
        return self.tree

    def __repr__(self) -> str:
        """Return ``PendingLogLikelihood()``."""
        return "PendingLogLikelihood()"


class PendingClassic:
    """A fit's classic scores, computed when ``fit.classic`` is first used (batch fits)."""

    def __init__(self, table: pd.DataFrame) -> None:
        self.table = table

    def compute(self) -> pd.DataFrame:
        """Return the classic scores (:func:`embias.classic_scores`).

        None for paired differences, whose MAC/WEAT mean nothing.
        """
        if self.table.attrs.get("differences"):
            return classic_scores(self.table.iloc[:0])
        return classic_scores(self.table)

    def __repr__(self) -> str:
        """Return ``PendingClassic()``."""
        return "PendingClassic()"


def arviz_ready(tree: DataTree, table: pd.DataFrame, cells: pd.DataFrame, *,
                log_likelihood: bool = True) -> DataTree:
    """Make a fit's ``DataTree`` one that ArviZ's own functions take whole (in place).

    - A coordinate that is not a dimension of its group's draws (the compared words' kind,
      ``compared_word_kind``, at the crossed level) is data: it moves to the
      ``constant_data`` group. ArviZ stacks a group's variables into one array for
      ``az.summary`` and ``az.plot_forest``, and a coordinate held by some variables only
      makes that fail ("coordinate ... not present in all datasets").
    - The ``log_likelihood`` group holds each compared word's log-likelihood
      (:func:`embias.bayes.loo.word_log_likelihood`), so ``az.loo(fit.posterior)``
      leaves one compared word out. A per-row variable (``cosine_distance``) is dropped,
      so that ``az.loo`` needs no ``var_name``.

    Returns
    -------
    xarray.DataTree
        ``tree`` itself.
    """
    import xarray as xr

    from .log_likelihood import LOG_LIKELIHOOD_VARS, word_log_likelihood

    moved: dict[str, xr.DataArray] = {}
    for name in _SAMPLE_GROUPS:
        if name not in tree.children:
            continue
        ds = tree[name].to_dataset()
        extra = [c for c in ds.coords if c not in ds.dims]
        if extra:
            moved.update({str(c): ds[c].reset_coords(drop=True) for c in extra})
            tree[name] = xr.DataTree(ds.reset_coords(extra, drop=True))
    if moved:
        constant = (tree["constant_data"].to_dataset() if "constant_data" in tree.children
                    else xr.Dataset())
        tree["constant_data"] = xr.DataTree(constant.assign(moved))
    if not log_likelihood:
        return tree
    wanted = (LOG_LIKELIHOOD_VARS["word"] if "word_to_compare" in table.columns
              else LOG_LIKELIHOOD_VARS["row"])
    have = (tree["log_likelihood"].to_dataset() if "log_likelihood" in tree.children
            else None)
    if have is None or wanted not in have:
        tree["log_likelihood"] = xr.DataTree(word_log_likelihood(tree, table, cells))
    elif list(have.data_vars) != [wanted]:
        tree["log_likelihood"] = xr.DataTree(have[[wanted]])
    return tree
