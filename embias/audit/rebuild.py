"""The commands a page shows: the one that made it and the one that rebuilds it.

The ``embias report`` command and the Python call that rebuild the page from the saved
fits (refitting nothing), shown in the page's reproducibility block.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["page_commands", "python_call", "rebuild_command"]


def rebuild_command(
    study: str,
    entries: Sequence[Any],
    *,
    out: Path | None,
    comparison_path: str | None,
    files: Mapping[str, str],
    ci_prob: float,
    ci_kind: str,
    rope: float,
    figures: str,
    random_seed: int,
    encoder: str | None = None,
) -> str | None:
    """Return the ``embias report`` command that rebuilds the page from the saved fits.

    None when a fit is not saved.

    Parameters
    ----------
    study
        The study's name.
    entries
        The page's fits (:class:`~embias.audit.sources.FitEntry`).
    out
        The page's file (None: ``report.html``).
    comparison_path
        The comparison's CSV, when the page was given one (or made one).
    files
        Name → file of the results computed elsewhere given as files.
    ci_prob, ci_kind, rope, figures, random_seed, encoder
        The page's options; each is named in the command when not the default.

    Returns
    -------
    str or None
        The command line (shell-quoted), or None.
    """
    from ..settings import DEFAULT_CI_PROB, DEFAULT_ROPE

    if any(not e.fit.path for e in entries):
        return None
    parts = ["embias", "report", study]
    for path in dict.fromkeys(e.fit.path for e in entries):
        parts += ["--fits", str(path)]
    for e in {e.label: e for e in entries}.values():
        if e.label != e.source:
            parts += ["--embedding", f"{e.label}={e.source}"]
    if comparison_path:
        parts += ["--comparison", comparison_path]
    for name, path in files.items():
        parts += [f"--{name.replace('_', '-')}", path]
    if encoder:
        parts += ["--encoder", encoder]
    if ci_prob != DEFAULT_CI_PROB:
        parts += ["--ci-prob", f"{ci_prob:g}"]
    if ci_kind != "hdi":
        parts += ["--ci-kind", ci_kind]
    if rope != DEFAULT_ROPE:
        parts += ["--rope", f"{rope:g}"]
    if figures != "svg":
        parts += ["--figures", figures]
    if random_seed != 0:
        parts += ["--report-seed", str(random_seed)]
    parts += ["--out", str(out) if out is not None else "report.html"]
    return shlex.join(parts)


def python_call(study: str, entries: Sequence[Any], out: Path | None) -> str:
    """Return the Python call that rebuilds the page from the saved fits.

    Parameters
    ----------
    study
        The study's name.
    entries
        The page's fits (:class:`~embias.audit.sources.FitEntry`).
    out
        The page's file (None: ``report.html``).

    Returns
    -------
    str
        The :func:`embias.audit_report` call: fits by label, or a list when labels repeat
        or a fit is not saved.
    """
    fits = {e.label: e.fit.path for e in entries if e.fit.path}
    if len(fits) < len(entries) or len(set(fits)) < len(entries):
        listed = ", ".join(repr(e.fit.path) for e in entries if e.fit.path)
        fits_text = f"[{listed}]"
    else:
        fits_text = "{" + ", ".join(f"{k!r}: {v!r}" for k, v in fits.items()) + "}"
    return (f"embias.audit_report({study!r}, fits={fits_text}, "
            f"out={str(out) if out else 'report.html'!r})")


def page_commands(command: str | None, rebuild: str | None) -> list[tuple[str, str]]:
    """Return the commands the page shows: the one that made it, the one that rebuilds it.

    Parameters
    ----------
    command
        The command that made the page (or None).
    rebuild
        The command that rebuilds it (:func:`rebuild_command`, or None).

    Returns
    -------
    list of (str, str)
        (what it is, the command) for each; one when the two are the same command.
    """
    if command and rebuild and shlex.split(command) == shlex.split(rebuild):
        return [("This page was made from the saved fits (nothing was refitted), and is "
                 "rebuilt, by", rebuild)]
    commands = []
    if command:
        commands.append(("This page was made by", command))
    if rebuild:
        commands.append(("Rebuild it from the saved fits (nothing is refitted)", rebuild))
    return commands
