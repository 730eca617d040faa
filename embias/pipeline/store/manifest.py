"""The manifest of a saved fit: the SHA-256 of every file, and when and by whom it was saved.

Written last when a fit is saved, so a folder without one holds no complete fit; a load
checks every file against it (:func:`read_manifest`, ``saved_by``).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from .layout import FIT_FORMAT, MANIFEST_FILE

__all__ = ["file_sha256", "read_manifest", "saved_by", "write_manifest"]


def file_sha256(file: Path) -> str:
    """Return the SHA-256 of a file, read in blocks of 1 MiB.

    Parameters
    ----------
    file
        The file.

    Returns
    -------
    str
        The hexadecimal digest.
    """
    digest = hashlib.sha256()
    with open(file, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """Return the manifest of the saved fit at ``path``.

    Parameters
    ----------
    path
        The fit's folder.

    Returns
    -------
    dict or None
        ``id``, ``saved_at`` (ISO 8601, local time with its UTC offset), ``pid``,
        ``host``, ``format`` and ``files`` (file name → SHA-256); ``None`` if the folder
        has none or it cannot be read.

    Examples
    --------
    A fit's manifest is written last when it is saved (:func:`save_fit`); a folder
    without one holds no complete fit:

    >>> import tempfile
    >>> import embias
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(embias.read_manifest(folder))
    None
    """
    try:
        record = json.loads((Path(path) / MANIFEST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def saved_by(record: dict[str, Any]) -> str:
    """Return ``'at 2025-01-02 10:11:12 by process 123 on host'`` from a manifest."""
    when = str(record.get("saved_at", "an unknown time")).replace("T", " ")
    return f"at {when} by process {record.get('pid', '?')} on {record.get('host', '?')}"


def write_manifest(folder: Path) -> dict[str, Any]:
    """Write the manifest of the complete fit folder ``folder``; return what it holds.

    Parameters
    ----------
    folder
        The folder, with every other file of the fit written.

    Returns
    -------
    dict
        ``format``, ``id``, ``saved_at``, ``pid``, ``host`` and ``files`` (file name →
        SHA-256), as :func:`read_manifest` reads them back.
    """
    record = {"format": FIT_FORMAT, "id": uuid.uuid4().hex,
              "saved_at": datetime.now().astimezone().isoformat(timespec="seconds"),
              "pid": os.getpid(), "host": socket.gethostname(),
              "files": {p.name: file_sha256(p)
                        for p in sorted(folder.iterdir()) if p.is_file()}}
    (folder / MANIFEST_FILE).write_text(json.dumps(record, indent=2), encoding="utf-8")
    return record

