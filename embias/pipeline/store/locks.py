"""The lock of a saved-fit folder, held by a save while it swaps the folder and by a load.

One lock file per fit folder (:mod:`filelock`), in the per-user cache
(``$XDG_CACHE_HOME/embias/locks``), else in a per-user folder of the temporary directory:
it guards the processes of one user on one machine.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from ..._user_line import warn_at_user_line
from ...settings import cache_home
from .layout import slug

__all__ = ["LOCK_TIMEOUT", "locked"]

#: Seconds a save or a load waits for a fit folder's lock before giving up.
LOCK_TIMEOUT = 300.0


def _lock_folder() -> Path | None:
    """Return where the fit folders' lock files are.

    The per-user cache, else a per-user folder in the temporary directory; ``None`` when
    neither can be written.
    """
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    for folder in (cache_home() / "locks", Path(tempfile.gettempdir()) / f"embias-locks-{uid}"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return None


def locked(folder: Path) -> AbstractContextManager[Any]:
    """Return the lock of the fit folder ``folder``.

    One lock file per folder, named by a hash of its absolute path, held by a save while
    it swaps the folder and by a load while it reads. Without a writable lock folder
    nothing is locked (with a warning).
    """
    from filelock import FileLock

    where = _lock_folder()
    absolute = os.path.join(os.path.realpath(folder.parent), folder.name)
    if where is None:
        warn_at_user_line(f"saved fit {str(folder)!r}: no writable folder for its lock file "
                          "(the cache and the temporary folder); concurrent saves of it are "
                          "not guarded")
        return nullcontext()
    name = hashlib.sha256(absolute.encode()).hexdigest()[:32]
    return FileLock(where / f"{slug(folder.name, 'fit')[:60]}-{name}.lock",
                    timeout=LOCK_TIMEOUT)

