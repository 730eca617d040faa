r"""When embias shows progress bars: asked for, and somewhere a person watches them.

A progress bar redraws itself with terminal escape codes; written to a log file or a pipe it
leaves lines such as ``\x1b[A`` and, with several chains, interleaved bars. So a bar is drawn
only when the standard error is a terminal or the code runs in a Jupyter kernel (which renders
bars as widgets), whatever ``progress`` says.
"""

from __future__ import annotations

import sys

__all__ = ["progress_wanted"]


def progress_wanted(progress: bool) -> bool:
    """Tell whether to draw a progress bar for a call that asked for ``progress``.

    Parameters
    ----------
    progress
        What the caller asked for.

    Returns
    -------
    bool
        ``progress`` and (the standard error is a terminal or this is a Jupyter kernel).

    Examples
    --------
    >>> progress_wanted(False)
    False
    >>> import subprocess
    >>> import sys
    >>> subprocess.run([sys.executable, "-c", "from embias._progress import progress_wanted; "
    ...                 "print(progress_wanted(True))"], capture_output=True, text=True,
    ...                check=True).stdout.strip()  # its standard error is a pipe
    'False'
    """
    if not progress:
        return False
    stream = sys.stderr
    if stream is not None and hasattr(stream, "isatty") and stream.isatty():
        return True
    shell = sys.modules.get("IPython")
    get_ipython = getattr(shell, "get_ipython", None)
    return bool(get_ipython is not None and getattr(get_ipython(), "kernel", None) is not None)
