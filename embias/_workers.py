"""A local pool of fresh Python processes, forking nothing, re-running no script.

A ``concurrent.futures.Executor`` that forks nothing and does not re-run the caller's
script.

A ``ProcessPoolExecutor`` either forks this process (unsafe once it runs threads: JAX's,
OpenBLAS's, a notebook kernel's) or starts workers that import the caller's ``__main__``
(a plain script without an ``if __name__ == "__main__":`` guard runs again in every
worker and dies in multiprocessing's bootstrap). :class:`WorkerProcesses` starts each
worker as ``python -m embias._workers`` — a new interpreter with the same environment that
imports only what the calls it receives need — and sends it pickled calls over a pipe.
The callables must be importable by name (module-level functions of installed modules).

Running this module is the worker's side of the pipe.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

__all__ = ["WorkerProcesses"]

_HEADER = 8  # bytes of the length that precedes every message


def _send(stream: IO[bytes], payload: Any) -> None:
    """Write ``payload`` pickled, after its length."""
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEADER, "big"))
    stream.write(data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """Read the next message; raise ``EOFError`` when the other side closed the pipe."""
    header = stream.read(_HEADER)
    if len(header) < _HEADER:
        raise EOFError
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


def _worker_environment() -> dict[str, str]:
    """Return the workers' environment: this process's, embias's folder first on the path.

    The folder embias is imported from goes first on the workers' ``PYTHONPATH``, so a
    worker finds the same embias, installed or not.
    """
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


class WorkerProcesses(cf.Executor):
    """Run calls in up to ``max_workers`` fresh Python processes.

    The processes are started on first use, reused for later calls and ended by
    :meth:`shutdown`.

    Parameters
    ----------
    max_workers
        How many worker processes run calls at the same time (at least 1).

    Raises
    ------
    ValueError
        ``max_workers`` below 1.

    Examples
    --------
    >>> import math
    >>> with WorkerProcesses(1) as pool:
    ...     pool.submit(math.factorial, 10).result()
    3628800
    >>> WorkerProcesses(0)
    Traceback (most recent call last):
    ...
    ValueError: max_workers must be at least 1, got 0
    """

    def __init__(self, max_workers: int) -> None:
        """Make the pool; no process starts until the first call."""
        if int(max_workers) < 1:
            raise ValueError(f"max_workers must be at least 1, got {max_workers!r}")
        self._threads = cf.ThreadPoolExecutor(int(max_workers),
                                              thread_name_prefix="embias-worker")
        self._idle: queue.SimpleQueue[subprocess.Popen[bytes]] = queue.SimpleQueue()
        self._started: list[subprocess.Popen[bytes]] = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        """Schedule ``fn(*args, **kwargs)`` in a worker process.

        ``fn`` and its arguments are pickled (``fn`` by its module and name).
        """
        return self._threads.submit(self._call, fn, args, kwargs)

    def _worker(self) -> subprocess.Popen[bytes]:
        """Return an idle worker process, or start one."""
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        process = subprocess.Popen([sys.executable, "-m", "embias._workers"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   env=_worker_environment())
        with self._lock:
            self._started.append(process)
        return process

    def _call(self, fn: Callable[..., Any], args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> Any:
        """Run one call in a worker process; return its result or raise its exception."""
        process = self._worker()
        assert process.stdin is not None and process.stdout is not None
        try:
            _send(process.stdin, (fn, args, kwargs))
            ok, value = _receive(process.stdout)
        except (EOFError, BrokenPipeError) as exc:
            process.kill()
            code = process.wait()
            raise RuntimeError(f"an embias worker process ended (exit status {code}) while "
                               f"running {getattr(fn, '__qualname__', fn)!r}; its error "
                               "output is above") from exc
        self._idle.put(process)
        if not ok:
            raise value
        return value

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Finish (or cancel) the pending calls, then end the worker processes."""
        self._threads.shutdown(wait=wait, cancel_futures=cancel_futures)
        with self._lock:
            started, self._started = self._started, []
        for process in started:
            if process.stdin is not None:
                try:
                    process.stdin.close()  # the worker's loop ends at end of input
                except OSError:
                    pass
        for process in started:
            if wait:
                process.wait()


def _serve() -> None:
    """Serve calls: the worker's loop.

    Read a call, run it, send back ``(True, result)`` or ``(False, exception)``, until the
    pool closes the pipe.
    """
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # what the calls print goes to stderr, not into the pipe
    source = sys.stdin.buffer
    while True:
        try:
            fn, args, kwargs = _receive(source)
        except EOFError:
            return
        try:
            reply: tuple[bool, Any] = (True, fn(*args, **kwargs))
        except Exception as exc:  # sent back and raised in the caller
            reply = (False, exc)
        try:
            _send(channel, reply)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            _send(channel, (False, RuntimeError(f"the result of {fn!r} could not be sent "
                                                f"back from its worker process: {exc}")))


if __name__ == "__main__":
    try:
        _serve()
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the caller reports
        sys.exit(130)
