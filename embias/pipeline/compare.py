"""Compare one study across several embeddings (e.g. biased vs hard- vs soft-debiased).

:func:`compare_embeddings` answers "did debiasing change the bias, and by how much?":

1. It builds (or loads) the study's long-form cosine table for every embedding and
   aligns them on the word pairs (:func:`embias.align_tables`). Rows that are not common
   to all embeddings (words missing from one vocabulary) are reported — warned about and kept in
   :attr:`EmbeddingComparison.unmatched` — never silently dropped; every model below is
   fitted on the shared rows only, so all numbers describe the same word pairs.
2. It fits the same Bayesian model (:func:`embias.fit_bias_model`) to each
   embedding's aligned table: connection means, contrasts and word coefficients side by
   side, one interval table with an ``embedding`` column.
3. It fits a **joint (paired) change model** for every embedding against the reference
   one (the first, unless ``reference=`` says otherwise; :mod:`embias.bayes.change`),
   whose HPDIs are the direct answer: rows whose ``estimand`` begins with ``change``.
4. It puts the classic pre-averaged scores of every embedding in the same table — MAC
   and WEAT, and their changes (MAC change with Manzini et al.'s paired t-test p-value,
   :func:`embias.mac_ttest`; :func:`embias.classic_changes`) — so one can see where the
   classic claim of a change is or is not supported by the intervals.

Where the fits run: see :mod:`embias.bayes.batch` (this process by default; a local
process pool or a Dask cluster on request).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from .._validation import check_seed, check_share
from ..bayes.batch import FitJob, derived_seed, fit_many
from ..bayes.change import ChangeFit, change_settings
from ..bayes.diagnostics import diagnostics_overview
from ..bayes.fit import BiasFit
from ..classic import classic_changes
from ..report import stack_interval_tables
from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE, FitSettings, sampler_available
from ..tables import DEFAULT_MIN_SHARED, align_tables, difference_table
from ..wordlists import Study
from .sources import EmbeddingSource, resolve_tables

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["CLASSIC_CHANGE_ESTIMANDS", "EmbeddingComparison", "compare_embeddings"]

#: Classic change rows of :attr:`EmbeddingComparison.classic`.
CLASSIC_CHANGE_ESTIMANDS: tuple[str, ...] = ("mac_change", "weat_change")


# =========================================================================== comparison
@dataclass(frozen=True, eq=False)
class EmbeddingComparison:
    """Result of :func:`compare_embeddings`.

    Attributes
    ----------
    fits
        Label → :class:`~embias.bayes.BiasFit` of the embedding's aligned table.
    change_fits
        Label → :class:`ChangeFit` against the reference (every label but the reference).
    classic
        Classic MAC/WEAT per embedding and their changes (:func:`classic_changes`).
    tables
        Label → the aligned cosine table (the shared word pairs, in the same order).
    unmatched
        Word pairs absent from at least one embedding's table (``missing_from`` names
        the embeddings), left out of every model and score here.
    reference
        The label changes are measured against.
    settings
        Study, sources, level, draws, seeds of every fit, min_shared.
    """

    fits: Mapping[str, BiasFit] = field(repr=False)
    change_fits: Mapping[str, ChangeFit] = field(repr=False)
    classic: pd.DataFrame = field(repr=False)
    tables: Mapping[str, pd.DataFrame] = field(repr=False)
    unmatched: pd.DataFrame = field(repr=False)
    reference: str
    settings: Mapping[str, Any]

    @property
    def labels(self) -> list[str]:
        """The embeddings' labels, in order."""
        return list(self.fits)

    def to_interval_table(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
    ) -> pd.DataFrame:
        """Return one interval table of the whole comparison, with an ``embedding`` column.

        Rows: every embedding's :meth:`~embias.bayes.BiasFit.summary`
        (``connection_mean``, ``contrast``, ``word_coefficient``, ``word_contrast``);
        the change model's rows (``change_*``, :meth:`ChangeFit.summary`; ``embedding``
        = the changed embedding, ``reference`` = what it is compared with); and the
        classic scores and their changes (:attr:`classic`: ``mac``,
        ``weat_effect_size``, ``mac_change`` with ``p_value``, ``weat_change``; classic
        intervals are Student-t, their probability and kind in ``ci_prob``/``ci_kind``).

        Parameters
        ----------
        ci_prob, ci_kind, rope
            As for :meth:`embias.bayes.BiasFit.summary` (Bayesian rows only).

        Returns
        -------
        pandas.DataFrame
            The stacked interval tables (:func:`embias.report.stack_interval_tables`).
        """
        levels = stack_interval_tables(
            {label: fit.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
             for label, fit in self.fits.items()}, key="embedding")
        levels.insert(3, "reference", "")
        changes = [c.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
                   for c in self.change_fits.values()]
        return stack_interval_tables([levels, *changes, self.classic])

    #: :meth:`to_interval_table` under its usual name.
    summary = to_interval_table

    def change_summary(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
        words: bool = False,
    ) -> pd.DataFrame:
        """Return the direct answer: the changes' intervals next to the classic changes.

        Change HPDIs per connection and contrast (and per word with ``words=True``) next to
        the classic MAC/WEAT changes.
        """
        table = self.summary(ci_prob=ci_prob, ci_kind=ci_kind, rope=rope)
        keep = ["change_connection_mean", "change_contrast", *CLASSIC_CHANGE_ESTIMANDS]
        if words:
            keep += ["change_word_coefficient", "change_word_contrast"]
        return table[table["estimand"].isin(keep)].reset_index(drop=True)

    def diagnostics_overview(self) -> pd.DataFrame:
        """Return the worst r̂, smallest ESS and divergences of every fit (one row each)."""
        rows = []
        named: list[tuple[str, Any]] = [(f"fit {k}", f) for k, f in self.fits.items()]
        named += [(f"change {k} − {self.reference}", f) for k, f in self.change_fits.items()]
        for name, fit in named:
            rows.append({"fit": name, **diagnostics_overview(fit.diagnostics(), fit.divergences),
                         "seed": int(fit.settings["random_seed"])})
        return pd.DataFrame(rows)

    def plot(
        self,
        *,
        ci_prob: float = DEFAULT_CI_PROB,
        ci_kind: Literal["hdi", "eti"] = "hdi",
        rope: float = DEFAULT_ROPE,
        title: str | None = None,
    ) -> Figure:
        """Plot :meth:`to_interval_table` as a forest (:func:`embias.plots.plot_comparison`)."""
        if title is None:
            title = (f"{self.settings.get('study') or 'table'}: "
                     f"{' vs '.join(self.labels)} ({self.settings.get('level')})")
        from ..plots import plot_comparison

        return plot_comparison(self.to_interval_table(ci_prob=ci_prob, ci_kind=ci_kind,
                                                      rope=rope), title=title)

    def __repr__(self) -> str:
        """Return the study, the embeddings, the reference and the rows compared."""
        return (f"EmbeddingComparison(study={self.settings.get('study')!r}, "
                f"embeddings={self.labels}, reference={self.reference!r}, "
                f"rows={len(self.tables[self.reference])}, unmatched={len(self.unmatched)})")



def compare_embeddings(
    embeddings: Mapping[str, EmbeddingSource],
    study: Study | str | None = None,
    *,
    reference: str | None = None,
    settings: FitSettings | None = None,
    executor: cf.Executor | None = None,
    max_workers: int | None = None,
    min_shared: float = DEFAULT_MIN_SHARED,
    require_same_dimension: bool = True,
    progress: bool = True,
    warn: bool = True,
    **options: Any,
) -> EmbeddingComparison:
    """Fit one study on several embeddings and the paired change model between them.

    Parameters
    ----------
    embeddings
        Label → source, at least two: ``KeyedVectors`` (e.g.
        ``embias.hard_debias(kv, "religion").embeddings``), a source string for
        :func:`embias.load_embeddings` (file path, ``"glove-6b-50d"``, ``"gensim:NAME"``),
        ``"published:reddit"``/``"published:reddit-debiased"``/… for the authors' tables,
        or a ready long-form cosine table (DataFrame).
    study
        The study (``"religion"`` …); needed unless every source is a table.
    reference
        Label the changes are measured against (default: the first).
    settings, **options
        Model and sampler settings of every fit (:class:`~embias.FitSettings`; any field
        as a keyword replaces the one in ``settings``). Its ``random_seed`` is the seed
        of the comparison: every fit gets its own seed derived from it and its name
        (recorded in ``settings["seeds"]``), so a fit's draws do not depend on the other
        embeddings or on where it ran; ``None`` draws one.
    executor, max_workers
        Where the fits run (:func:`embias.fit_many`): default in this process, one after
        another (works from a plain script, stdin, ``python -c`` and notebooks);
        ``max_workers=N`` for a local process pool; any executor, e.g. a Dask cluster's
        ``client.get_executor()``.
    min_shared
        Smallest share of each embedding's rows that all embeddings must share (default
        0.8); fewer means different vocabularies or studies and is an error.
    require_same_dimension
        Refuse embeddings (KeyedVectors) of different dimensions (default True).
    progress
        tqdm progress bar over the fits.
    warn
        Warn about convergence problems of any fit.

    Returns
    -------
    EmbeddingComparison
        ``.summary()`` is the one interval table; ``.change_summary()`` the direct answer;
        ``.plot()`` the forest plot.

    Raises
    ------
    ValueError
        Fewer than two embeddings, an unknown reference, an unknown embedding source,
        embeddings of different dimensions, tables that share too few rows, an
        embedding identical to the reference, or bad model options; the message names
        the problem.

    Examples
    --------
    The authors' religion tables (Reddit) before and after hard debiasing, at the dataset
    level with settings far too small for results (use the defaults):

    >>> import embias
    >>> result = embias.compare_embeddings(
    ...     {"biased": "published:reddit", "hard": "published:reddit-debiased"}, "religion",
    ...     level="dataset", draws=200, tune=200, chains=2, random_seed=1, progress=False,
    ...     warn=False)
    >>> result.labels, result.reference, result.settings["rows"]
    (['biased', 'hard'], 'biased', 4830)
    >>> changes = result.change_summary()
    >>> changes.query("estimand == 'change_connection_mean'")["group"].tolist()
    ['associated', 'different', 'human', 'none']
    >>> bayes = changes[changes["estimand"].str.startswith("change")]
    >>> bool((bayes["lower"] < bayes["upper"]).all())
    True
    """
    labels, reference = _labels_and_reference(embeddings, reference)
    run = FitSettings.build(settings, **options)
    sampler_available(run.sampler)
    seed = check_seed(run.random_seed)
    min_shared = check_share("min_shared", min_shared)
    tables, st = resolve_tables(embeddings, study,
                                 require_same_dimension=require_same_dimension)
    aligned, unmatched = align_tables(tables, reference=reference, min_shared=min_shared)
    others = [label for label in labels if label != reference]
    differences = {label: difference_table(aligned[label], aligned[reference], label=label,
                                           reference_label=reference) for label in others}
    study_name = st.name if st is not None else str(aligned[reference].attrs.get("study", ""))
    seeds = {f"fit {label}": derived_seed(seed, "fit", label) for label in labels}
    seeds |= {f"change {label}": derived_seed(seed, "change", label, reference)
              for label in others}
    jobs = _comparison_jobs(labels, aligned, differences, run, seeds, study=study_name,
                            reference=reference)
    fits = fit_many(jobs, executor=executor, max_workers=max_workers, progress=progress,
                    warn=warn)
    level_fits = dict(zip(labels, fits[:len(labels)], strict=True))
    change_fits = {label: ChangeFit(fit=fit, differences=differences[label], embedding=label,
                                    reference=reference)
                   for label, fit in zip(others, fits[len(labels):], strict=True)}
    sources = {label: (s if isinstance(s, str) else type(s).__name__)
               for label, s in embeddings.items()}
    record = {"study": study_name, "sources": sources, "reference": reference,
              **run.to_dict(), "random_seed": seed, "seeds": seeds, "min_shared": min_shared,
              "rows": len(aligned[reference]), "unmatched_rows": len(unmatched)}
    return EmbeddingComparison(
        fits=level_fits, change_fits=change_fits,
        classic=classic_changes(aligned, reference=reference),
        tables=aligned, unmatched=unmatched, reference=reference, settings=record)


def _labels_and_reference(embeddings: Any, reference: str | None) -> tuple[list[str], str]:
    """Return the embeddings' labels and the reference, refused unless two or more."""
    if not isinstance(embeddings, Mapping) or len(embeddings) < 2:
        n = len(embeddings) if isinstance(embeddings, Mapping) else 0
        raise ValueError(f"compare_embeddings() needs at least 2 embeddings to compare, got "
                         f"{n}: pass e.g. {{'biased': 'published:reddit', 'hard': "
                         "'published:reddit-debiased'}")
    labels = list(embeddings)
    reference = labels[0] if reference is None else reference
    if reference not in embeddings:
        raise ValueError(f"reference={reference!r} is not one of the embeddings {labels}")
    return labels, reference


def _comparison_jobs(labels: list[str], aligned: Mapping[str, pd.DataFrame],
                     differences: Mapping[str, pd.DataFrame], run: FitSettings,
                     seeds: Mapping[str, int], *, study: str, reference: str) -> list[FitJob]:
    """Return the jobs of every embedding's table (``labels``' order), then differences'."""
    change = change_settings(run)
    jobs = [FitJob(aligned[label], dataclasses.replace(run, random_seed=seeds[f"fit {label}"]),
                   label=f"{study} {label}") for label in labels]
    jobs += [FitJob(table, dataclasses.replace(change, random_seed=seeds[f"change {label}"]),
                    label=f"{study} change {label} − {reference}")
             for label, table in differences.items()]
    return jobs
