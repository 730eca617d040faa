"""Outputs: the one output policy — checked before any work, applied when writing.

:func:`check_output` checks that a file or folder can be written (creating and removing
the missing folders); :func:`writable` creates them just before the output is written.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def check_output(name: str, path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Check, before any work starts, that an output can be written at ``path``.

    The output policy is the same for every output: missing parent folders are created
    when the output is written (a folder output is created itself). This check does that
    once — creates the missing folders and a temporary file in the output's folder — and
    removes what it created, so a bad path fails before anything is computed and a good
    one leaves no trace.

    Parameters
    ----------
    name
        The argument or option, named in the error (``"--out"``, ``"models_dir"``).
    path
        A file to write (``folder=False``) or a folder to write into (``folder=True``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        ``path`` is a folder where a file is wanted (or a file where a folder is), or a
        folder it needs cannot be created or written to (names the folder and why).

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     out = check_output("--out", pathlib.Path(root) / "new" / "table.csv")
    ...     out.name, (pathlib.Path(root) / "new").exists()
    ('table.csv', False)
    >>> check_output("--out", ".")
    Traceback (most recent call last):
    ...
    ValueError: --out '.' is a folder; give a file name
    """
    path = Path(path)
    shown = f"{name} {str(path)!r}"
    if folder and path.exists() and not path.is_dir():
        raise ValueError(f"{shown} is a file, not a folder")
    if not folder and path.is_dir():
        raise ValueError(f"{shown} is a folder; give a file name")
    target = path if folder else path.parent
    missing = []
    parent = target
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    if not parent.is_dir():
        if parent == target:
            raise ValueError(f"{shown}: {str(target)!r} is a file, not a folder")
        raise ValueError(f"{shown}: cannot create the folder {str(target)!r} "
                         f"({str(parent)!r} is a file)")
    created: list[Path] = []
    try:
        for step in reversed(missing):
            try:
                step.mkdir()
            except OSError as exc:
                raise ValueError(f"{shown}: cannot create the folder {str(target)!r} "
                                 f"({exc.strerror or exc})") from None
            created.append(step)
        try:
            with tempfile.TemporaryFile(dir=target):
                pass
        except OSError as exc:
            raise ValueError(f"{shown}: cannot write in the folder {str(target)!r} "
                             f"({exc.strerror or exc})") from None
    finally:
        for step in reversed(created):
            try:
                step.rmdir()
            except OSError:  # pragma: no cover - filled meanwhile by someone else
                pass
    return path


def writable(path: str | os.PathLike[str], *, folder: bool = False) -> Path:
    """Create the missing parent folders of an output just before it is written.

    The output policy (:func:`check_output` checks it before any work): for a folder
    output, the folder itself is created.

    Parameters
    ----------
    path
        The file to write (``folder=False``) or the folder to write into.
    folder
        Whether ``path`` is a folder.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     path = writable(pathlib.Path(root) / "runs" / "1" / "table.csv")
    ...     path.parent.is_dir(), path.exists()
    (True, False)
    """
    path = Path(path)
    (path if folder else path.parent).mkdir(parents=True, exist_ok=True)
    return path
