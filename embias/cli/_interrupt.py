"""Ctrl-C that always lands: the ``embias`` process's own SIGINT handler.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when the signal
is handled. When that is a garbage-collector callback (JAX registers one) or a
``__del__`` method, Python prints "Exception ignored" and drops the exception: the command
would go on sampling and save a fit the user asked to stop; code that catches every
exception can swallow it too. This handler sees such a frame, does not raise there, and has
the signal delivered again a moment later; once raised, it is raised again every
:data:`CONFIRM_SECONDS` while no code is handling it, until the command reports it
(:func:`stop_redelivery`).

Only the console script installs it (:func:`embias.cli.run`): a library does not change
the signal handlers of its user's process.
"""

from __future__ import annotations

import gc
import signal
import sys
from types import CodeType, FrameType

__all__ = ["install_interrupt_handler", "stop_redelivery"]

#: Seconds until a Ctrl-C that arrived inside a callback whose exceptions Python drops is
#: delivered again.
REDELIVER_SECONDS = 0.02

#: Seconds after which an interrupt raised where it should propagate is raised again if no
#: code is handling it by then (it was swallowed by an ``except BaseException``).
CONFIRM_SECONDS = 0.25

#: Names of functions whose exceptions Python reports as "Exception ignored" and drops.
_DROPPING_NAMES = frozenset({"__del__"})


def _dropping_codes() -> set[CodeType]:
    """Code objects of the registered garbage-collector callbacks."""
    return {code for callback in gc.callbacks
            if (code := getattr(callback, "__code__", None)) is not None}


def raised_here_is_dropped(frame: FrameType | None) -> bool:
    """Return whether an exception raised in ``frame`` would be dropped by Python.

    It would when the frame or one of its callers is a garbage-collector callback or a
    ``__del__`` method.
    """
    codes = _dropping_codes()
    while frame is not None:
        if frame.f_code in codes or frame.f_code.co_name in _DROPPING_NAMES:
            return True
        frame = frame.f_back
    return False


def _on_interrupt(signum: int, frame: FrameType | None) -> None:
    """Raise ``KeyboardInterrupt`` where it propagates, else have it delivered again."""
    if isinstance(sys.exception(), KeyboardInterrupt):
        return  # an interrupt is being handled up the stack (an except, finally or __exit__)
    if raised_here_is_dropped(frame):
        signal.setitimer(signal.ITIMER_REAL, REDELIVER_SECONDS)  # again, once out of it
        return
    # raised here; delivered once more later unless by then it is being handled (code that
    # catches every exception may have swallowed it), until the command reports it
    signal.setitimer(signal.ITIMER_REAL, CONFIRM_SECONDS, CONFIRM_SECONDS)
    raise KeyboardInterrupt


def stop_redelivery() -> None:
    """Stop delivering the interrupt again: the command has seen it (or ended)."""
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def install_interrupt_handler() -> None:
    """Make Ctrl-C raise ``KeyboardInterrupt`` only where it propagates.

    Its re-delivery comes on ``SIGALRM``. A no-op off the main thread, where there is no
    ``SIGALRM``, and where Ctrl-C is ignored or handled by whoever started the process.
    """
    if not hasattr(signal, "SIGALRM") or sys.platform == "win32":
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return  # Ctrl-C is ignored or handled by whoever started this process
    try:
        signal.signal(signal.SIGINT, _on_interrupt)
        signal.signal(signal.SIGALRM, _on_interrupt)
    except ValueError:  # not the main thread of the main interpreter
        return
