"""The ``embias`` command line.

Commands are registered explicitly, one module per group (:data:`COMMAND_MODULES`); the
options they share are defined once in :mod:`embias.cli._options`. Parsing and ``--help``
import only the standard library and embias's stdlib-only modules; each handler imports
what it needs when it runs.

One error policy, in :func:`main`:

- a malformed command line (unknown option, missing argument, a value argparse cannot
  convert) exits 2 with argparse's usage message;
- a bad value the user gave (unknown study, test or embedding name, a missing file,
  counts such as ``150/100``) exits 1 with one line ``embias: error: …`` on stderr;
- anything else is a bug and shows its traceback.

Warnings print as one line ``embias: warning: …``.

Messages written for Python callers advise keywords (``pass format= …``); on the command
line such advice names the command's option instead (a command maps the keywords it has an
option for in ``set_defaults(python_options={...})``), or says that there is none
(:func:`cli_wording`).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from . import (
    calibrate,
    classifier,
    compare,
    debias,
    design,
    fit,
    models,
    report,
    sentence,
    simulate,
    tables,
)

__all__ = ["COMMAND_MODULES", "build_parser", "cli_wording", "configure_process", "main",
           "run"]

#: The command modules, in the order ``embias --help`` lists their commands; each has
#: ``register(subparsers)``.
COMMAND_MODULES = (tables, sentence, debias, fit, compare, models, report, simulate,
                   calibrate, design, classifier)


def build_parser() -> argparse.ArgumentParser:
    """Return the ``embias`` parser with every command.

    Each leaf command sets ``func(args) -> int``.
    """
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="embias",
        description="Bias in word embeddings and classifiers, with honest uncertainty.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    """Return the exceptions that mean a bad value the user gave (exit 1, one line).

    ``MissingWordsError`` (a ``KeyError``) can only have been raised if
    :mod:`embias.embeddings` was imported, so it is looked up without importing gensim.
    """
    errors: tuple[type[BaseException], ...] = (ValueError, FileNotFoundError, ConnectionError)
    embeddings = sys.modules.get("embias.embeddings")
    if embeddings is not None:
        errors += (embeddings.MissingWordsError,)
    return errors


#: Advice to a Python caller inside a message: ``pass NAME=VALUE`` (VALUE may be empty).
_PYTHON_ADVICE = re.compile(r"\bpass (\w+)=(\w*)")


def cli_wording(message: str, options: dict[str, str] | None = None) -> str:
    """Return ``message`` with its Python advice put in command-line terms.

    ``pass NAME=VALUE`` becomes ``give OPTION`` when ``options`` maps ``"NAME=VALUE"`` (or
    ``"NAME="``) to the command's option; otherwise the advice is marked as Python's and the
    message says that the command line has no option for it.
    """
    options = options or {}
    missing: list[str] = []

    def reword(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        option = options.get(f"{name}={value}") or options.get(f"{name}=")
        if option is not None:
            return f"give {option}"
        missing.append(name)
        return match.group(0).replace("pass ", "in Python, pass ", 1)

    text = _PYTHON_ADVICE.sub(reword, message)
    if missing:
        names = ", ".join(f"{name}=" for name in dict.fromkeys(missing))
        text += f" (the command line has no option for {names})"
    return text


def _one_line(text: str, *, sep: str = " ") -> str:
    """Return ``text`` on one line (its lines stripped and joined by ``sep``)."""
    return sep.join(part.strip() for part in str(text).strip().splitlines() if part.strip())


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    """Print a warning on the command line: one line, the message only."""
    print(f"embias: warning: {cli_wording(_one_line(str(message)))}",
          file=sys.stderr if file is None else file)


@contextmanager
def _warnings_as_lines() -> Iterator[None]:
    """Show the warnings of the block as one line each (:func:`_show_warning`)."""
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        yield


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code.

    A bad value the user gave (an unknown study, a missing file …) is one line
    ``embias: error: …`` on stderr and exit code 1; a malformed command line is argparse's
    usage message and ``SystemExit(2)``.

    Parameters
    ----------
    argv
        The arguments after ``embias`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, or 1 for a bad value.

    Examples
    --------
    >>> main(["mac", "religion", "--embedding", "published:reddit"])
    MAC (mean cosine distance, Manzini et al. 2019): 0.8614
    ...
    0
    >>> main(["mac", "religon", "--embedding", "published:reddit"])  # the error is on stderr
    1
    """
    args = build_parser().parse_args(argv)
    with _warnings_as_lines():
        try:
            return int(args.func(args) or 0)
        except _user_errors() as exc:
            sep = "; " if isinstance(exc, KeyError) else " "  # MissingWordsError's report
            text = cli_wording(_one_line(str(exc), sep=sep), getattr(args, "python_options",
                                                                     None))
            print(f"embias: error: {text}", file=sys.stderr)
            return 1


def configure_process() -> None:
    """Set up the ``embias`` process itself, as a library may not.

    JAX's persistent compilation cache, keeping every program a fit compiles
    (:func:`embias.configure_jax`), so a later command does not compile them again, and a
    writable PyTensor compile folder
    (:func:`embias._process_setup.use_writable_compile_folder`). JAX's device count is left
    to PyMC, which asks for enough devices to run the chains in parallel. Settings the user
    made in the environment are kept. Nothing is imported: JAX and PyTensor read the
    environment when a command imports them. embias's own log lines (``NUTS[embias]: …``
    as a fit starts sampling, as PyMC writes its samplers') go to standard error.
    """
    import logging

    from .._process_setup import configure_jax, use_writable_compile_folder

    with _warnings_as_lines():
        use_writable_compile_folder()
        configure_jax(host_devices=None)
    logger = logging.getLogger("embias")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def run() -> int:
    """Run the ``embias`` console script (and ``python -m embias``).

    :func:`main` on ``sys.argv`` in a process set up for fitting
    (:func:`configure_process`), where Ctrl-C raises ``KeyboardInterrupt`` only where it
    propagates (:func:`embias.cli._interrupt.install_interrupt_handler`). It changes the
    process's signal handlers and environment: call it only as the process's entry point.

    Returns
    -------
    int
        The exit code of :func:`main`.

    Examples
    --------
    The console script, in a process of its own:

    >>> import subprocess, sys
    >>> import embias
    >>> done = subprocess.run([sys.executable, "-m", "embias", "--version"],
    ...                       capture_output=True, text=True)
    >>> done.returncode, done.stdout.strip() == f"embias {embias.__version__}"
    (0, True)
    >>> subprocess.run([sys.executable, "-m", "embias", "mac", "religon"],
    ...                capture_output=True, text=True).stderr.splitlines()[-1]
    "embias: error: unknown study 'religon'..."
    """
    from ._interrupt import install_interrupt_handler, stop_redelivery

    install_interrupt_handler()
    configure_process()
    try:
        return main()
    finally:
        stop_redelivery()
