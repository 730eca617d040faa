"""The options several commands share, each defined once.

``--embedding`` (its help names only the sources the command accepts), ``--ci-prob`` (one
argparse type built on :func:`embias._validation.check_probability`), ``--seed`` (stored as
``random_seed``), ``--rope``, the interval options and the sampler options, which map to one
:class:`embias.settings.FitSettings` through :func:`fit_settings`; and the one policy for
output paths (:func:`output_path` before any work, :func:`writable` when writing: missing
parent folders are created).

Standard library plus ``embias.settings``/``embias._validation`` only: parsing and
``--help`` must not import numpy, pandas, gensim or PyMC.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._validation import (
    check_int,
    check_output,
    check_probability,
    check_rope,
    check_share,
    writable,
)
from ..settings import (
    DATA_MODES,
    DEFAULT_CHAINS,
    DEFAULT_CI_PROB,
    DEFAULT_DRAWS,
    DEFAULT_LEVEL,
    DEFAULT_ROPE,
    DEFAULT_SAMPLER,
    DEFAULT_TARGET_ACCEPT,
    DEFAULT_TUNE,
    LEVELS,
    SAMPLERS,
    FitSettings,
    sampler_available,
)
from ..wordlists import BUILTIN_STUDIES

__all__ = [
    "DEFAULT_EMBEDDING",
    "PUBLISHED_EMBEDDINGS",
    "DeprecatedAlias",
    "add_ci_prob",
    "add_draw_options",
    "add_embedding",
    "add_encoder_options",
    "add_interval_options",
    "add_rope",
    "add_sampler_options",
    "add_seed",
    "check_sampler",
    "checked",
    "count_type",
    "deprecation_note",
    "draw_to_files",
    "fit_settings",
    "folders_for",
    "output_path",
    "probability",
    "refuse_published",
    "writable",
    "write_simulation_outputs",
]

#: The builtin embedding (``embias.embeddings.BUILTIN_EMBEDDINGS``; kept here as a literal
#: so ``--help`` need not import gensim — a test checks they agree).
DEFAULT_EMBEDDING = "glove-6b-50d"
#: The authors' published tables (``embias.tables.PUBLISHED_EMBEDDINGS``; same reason).
PUBLISHED_EMBEDDINGS: tuple[str, ...] = ("reddit", "google", "glove", "reddit-debiased")
#: Sources every command that needs word vectors accepts.
VECTOR_SOURCES = (f"{DEFAULT_EMBEDDING} (default), a file path (word2vec .bin/.txt, GloVe "
                  ".txt, gensim .kv) or gensim:NAME")
PUBLISHED_SOURCES = f"published:{'|'.join(PUBLISHED_EMBEDDINGS)} for the authors' tables"
STUDIES = ", ".join(BUILTIN_STUDIES)


# --------------------------------------------------------------------------- types
def checked(convert: Callable[[str], Any], check: Callable[[str, Any], Any],
            name: str) -> Callable[[str], Any]:
    """Return an argparse ``type``: ``convert`` the text, then ``check(name, value)``.

    Either failing is argparse's usage error (exit 2) naming the option and the value.
    """

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be {'a number' if convert is float else 'an integer'}, got "
                f"{text!r}") from None
        try:
            return check(name, value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name  # argparse names the type in "invalid <name> value"
    return parse


def count_type(option: str, minimum: int) -> Callable[[str], int]:
    """Return an argparse ``type`` for a count: an integer ≥ ``minimum``.

    Built on :func:`embias._validation.check_int`; a bad value is argparse's usage error
    (exit 2) naming the option and the value.
    """
    return checked(int, lambda name, value: check_int(name, value, minimum=minimum), option)


def probability(name: str) -> Callable[[str], float]:
    """Return an argparse ``type`` for a probability in (0, 1).

    The value is checked by :func:`embias._validation.check_probability`.
    """
    return checked(float, check_probability, name)


def _non_negative_int(name: str, value: int) -> int:
    """Return ``value`` if it is an integer ≥ 0."""
    return check_int(name, value, minimum=0)


ci_prob_type = probability("ci_prob")
rope_type = checked(float, lambda name, value: check_rope(value, name=name), "rope")
share_type = checked(float, check_share, "min_shared")
seed_type = checked(int, _non_negative_int, "random_seed")


# --------------------------------------------------------------------------- options
def add_embedding(parser: argparse._ActionsContainer, *, published: bool = True) -> None:
    """Add ``--embedding SRC``.

    ``published=False`` for commands that need word vectors: their help does not offer the
    authors' tables, and :func:`refuse_published` refuses them.
    """
    accepted = f"{VECTOR_SOURCES}, or {PUBLISHED_SOURCES}" if published else VECTOR_SOURCES
    parser.add_argument("--embedding", metavar="SRC", default=DEFAULT_EMBEDDING,
                        help=f"embeddings: {accepted}")


#: Sentence encoders known by name (``embias.pipeline.sentence_fits.ENCODERS``; a literal here so
#: ``--help`` imports nothing heavy — a test checks they agree).
ENCODER_NAMES: tuple[str, ...] = ("minilm",)


def add_encoder_options(parser: argparse._ActionsContainer) -> None:
    """Add ``--encoder NAME`` and ``--templates T …``.

    ``--encoder`` fits a study's sentence table instead of its word table, ``--templates``
    are the templates the words are put in.
    """
    parser.add_argument("--encoder", choices=ENCODER_NAMES, default=None,
                        help="fit the study's sentence table on this sentence encoder "
                             "instead of word vectors: minilm (the offline all-MiniLM-L6-v2; "
                             "needs the 'sentence' extra); the model defaults to --level "
                             "crossed (compared words and templates as random effects)")
    parser.add_argument("--templates", nargs="+", metavar="T", default=None,
                        help="with --encoder: the templates every word is put in, each with "
                             "a {term} slot (e.g. 'This is {term}.' 'That is {term}.'); "
                             "default: May et al.'s templates for each word's kind")


def refuse_published(command: str, source: str) -> str:
    """Return ``source`` unless it is a published table, which ``command`` cannot use."""
    if source.startswith("published:"):
        raise ValueError(f"--embedding {source!r}: embias {command} needs word vectors, not "
                         f"a published cosine table; use {VECTOR_SOURCES}")
    return source


def add_ci_prob(parser: argparse._ActionsContainer, *, default: float | None = DEFAULT_CI_PROB,
                what: str = "interval probability", shown: str | None = None) -> None:
    """Add ``--ci-prob P``.

    Its default is :data:`embias.settings.DEFAULT_CI_PROB` everywhere (``default=None`` with
    ``shown`` for a command that resolves it itself).
    """
    parser.add_argument("--ci-prob", type=ci_prob_type, default=default, metavar="P",
                        help=f"{what}, in (0, 1) (default {shown or '%(default)s'})")


def add_rope(parser: argparse._ActionsContainer) -> None:
    """Add ``--rope WIDTH``, the ROPE half-width of the contrasts."""
    parser.add_argument("--rope", type=rope_type, default=DEFAULT_ROPE, metavar="WIDTH",
                        help="ROPE half-width for contrasts, in cosine distance "
                             "(default %(default)s)")


def add_interval_options(parser: argparse._ActionsContainer) -> None:
    """Add ``--ci-prob``, ``--ci-kind`` and ``--rope`` of the Bayesian reports."""
    add_ci_prob(parser)
    parser.add_argument("--ci-kind", choices=("hdi", "eti"), default="hdi",
                        help="highest-density or equal-tailed intervals (default %(default)s)")
    add_rope(parser)


def add_seed(parser: argparse._ActionsContainer, *, default: int | None,
             what: str = "random seed") -> None:
    """Add ``--seed N``, stored as ``args.random_seed``."""
    shown = "a fresh one, recorded" if default is None else str(default)
    parser.add_argument("--seed", dest="random_seed", type=seed_type, default=default,
                        metavar="N", help=f"{what}, an integer ≥ 0 (default {shown})")


def add_sampler_options(parser: argparse.ArgumentParser, *, seed: int | None = None,
                        what: str = "") -> None:
    """Add the model and sampler options, one per field of :class:`FitSettings`.

    :func:`fit_settings` builds the settings from the parsed arguments.
    """
    group = parser.add_argument_group("model and sampler")
    group.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL,
                       help="model level (default %(default)s; hierarchical is the "
                            "authors' published model)")
    group.add_argument("--data", choices=DATA_MODES, default="summary",
                       help="fit on cell sufficient statistics (fast, default) or raw rows")
    add_draw_options(group, seed=seed, what=what)


def add_draw_options(group: argparse._ActionsContainer, *, seed: int | None = None,
                     what: str = "", seed_what: str = "sampler seed") -> None:
    """Add the sampler's options, for a command that chooses the model level(s) itself.

    Draws, tune, chains, cores, sampler, target acceptance and seed.
    """
    per = f" {what}" if what else ""
    group.add_argument("--draws", type=int, default=DEFAULT_DRAWS, metavar="N",
                       help=f"posterior draws per chain{per} (default %(default)s)")
    group.add_argument("--tune", type=int, default=DEFAULT_TUNE, metavar="N",
                       help=f"tuning steps per chain{per} (default %(default)s)")
    group.add_argument("--chains", type=int, default=DEFAULT_CHAINS, metavar="N",
                       help=f"number of chains{per} (default %(default)s)")
    group.add_argument("--cores", type=int, default=None, metavar="N",
                       help="chains run in parallel (default: min(chains, CPUs))")
    group.add_argument("--sampler", choices=SAMPLERS, default=DEFAULT_SAMPLER,
                       help="NUTS implementation (default %(default)s)")
    group.add_argument("--target-accept", type=probability("target_accept"),
                       default=DEFAULT_TARGET_ACCEPT, metavar="P",
                       help="NUTS target acceptance rate (default %(default)s)")
    add_seed(group, default=seed, what=seed_what)


def fit_settings(args: argparse.Namespace) -> FitSettings:
    """Return the one :class:`FitSettings` of the parsed sampler options.

    A bad value is a ValueError naming it, raised before any work starts.
    """
    fields = {name: getattr(args, name) for name in FitSettings.field_names()
              if hasattr(args, name)}
    return FitSettings(**fields)


def check_sampler(settings: FitSettings) -> FitSettings:
    """Return ``settings`` if its sampler's package is installed.

    Else the one-line ValueError of :func:`embias.settings.sampler_available` naming the
    package to install, raised before anything is loaded (the check imports nothing).
    """
    sampler_available(settings.sampler)
    return settings


# --------------------------------------------------------------------------- outputs
def output_path(option: str, value: str | os.PathLike[str] | None, *,
                folder: bool = False) -> Path | None:
    """Return an output option's path, checked before any work starts.

    :func:`embias._validation.check_output`: the folders it needs can be created and
    written to. ``None`` (the option not given) stays ``None``.
    """
    return None if value is None else check_output(option, value, folder=folder)


@contextmanager
def folders_for(path: Path | None) -> Iterator[None]:
    """Create the missing folders of ``path`` for the block; remove them if it fails.

    The one output policy for a writer that needs its folder to exist beforehand
    (:func:`embias.audit_report`): the missing parent folders of ``path`` are created for
    the block, and removed again (those still empty) if it fails, so a failed command leaves
    no trace.
    """
    if path is None:
        yield
        return
    missing = []
    folder = Path(path).parent
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    writable(path)
    try:
        yield
    except BaseException:
        for folder in missing:  # deepest first
            try:
                folder.rmdir()
            except OSError:  # not empty: something else was written there
                break
        raise


# --------------------------------------------------------------------------- deprecation
#: Release in which deprecated command-line spellings are removed.
DEPRECATED_UNTIL = "0.5"


def deprecation_note(old: str, new: str) -> None:
    """Print one line on stderr: ``embias: deprecated: OLD is now NEW …``."""
    print(f"embias: deprecated: {old} is now {new}; {old} still works but will be removed "
          f"in embias {DEPRECATED_UNTIL}", file=sys.stderr)


class DeprecatedAlias(argparse._AppendAction):
    """A repeatable option with deprecated spellings (``deprecated={"--from": "--fits"}``).

    Each use of an old spelling prints :func:`deprecation_note`.
    """

    def __init__(self, *args: Any, deprecated: Mapping[str, str], **kwargs: Any) -> None:
        """Make the option; ``deprecated`` maps each old spelling to the new one."""
        super().__init__(*args, **kwargs)
        self.deprecated = dict(deprecated)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        """Append the value, with a deprecation note for an old spelling."""
        if option_string in self.deprecated:
            deprecation_note(option_string, self.deprecated[option_string])
        super().__call__(parser, namespace, values, option_string)


def write_simulation_outputs(result: Any, *, out: Path | None, plot: Path | None,
                             draw: Callable[[Any], Any]) -> None:
    """Report the failed fits of a simulation study and write its outputs.

    The one ending of the commands that fit many simulated studies (``embias design``,
    ``embias calibrate``): the count of fits that failed a convergence check, the
    per-study rows (``result.results``) to ``out`` and the figure ``draw(result)`` to
    ``plot`` (each when given; missing folders are created).
    """
    failed = result.failures()
    if len(failed):
        print(f"{len(failed)} fit(s) failed a convergence check (their rows are counted; "
              "see the 'problems' column of --out)")
    if out is not None:
        result.results.to_csv(writable(out), index=False)
        print(f"per-study rows: {out}")
    if plot is not None:
        draw_to_files()
        figure = draw(result)
        figure.savefig(writable(plot), dpi=110)
        print(f"plot: {plot}")


def draw_to_files() -> None:
    """Make matplotlib draw to files only (Agg, never a window): for a command."""
    import matplotlib

    matplotlib.use("Agg")
