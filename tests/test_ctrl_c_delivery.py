"""Ctrl-C in the ``embias`` process lands even when it arrives inside a garbage-collector
callback (where Python drops exceptions), and only the console script changes the
process's signal handlers."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: A process that receives SIGINT while a gc callback runs, then idles for up to 10 s.
SCRIPT = textwrap.dedent("""
    import gc, os, signal, sys, time
    # as in a terminal: a process started as a background job inherits SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.argv[1] == "installed":
        from embias.cli._interrupt import install_interrupt_handler
        install_interrupt_handler()
    fired = []
    def callback(phase, info):
        if phase == "start" and not fired:
            fired.append(1)
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(100_000))  # the handler runs here, inside the callback
    gc.callbacks.append(callback)
    try:
        gc.collect()
        for _ in range(1000):
            time.sleep(0.01)
        print("ran to the end")
    except KeyboardInterrupt:
        print("interrupted")
""")


@pytest.mark.parametrize(("handler", "expected"), [("default", "ran to the end"),
                                                    ("installed", "interrupted")])
def test_ctrl_c_inside_a_gc_callback_is_delivered_again_until_it_lands(
        handler: str, expected: str) -> None:
    run = subprocess.run([sys.executable, "-c", SCRIPT, handler], capture_output=True,
                         text=True, timeout=60)
    assert run.stdout.strip() == expected, run.stderr
    # Python's own handler: the interrupt is dropped and reported as ignored
    assert ("Exception ignored" in run.stderr) == (handler == "default"), run.stderr


def test_the_library_leaves_the_signal_handlers_alone() -> None:
    # the handlers the process started with (SIGINT is ignored in a background job)
    code = ("import signal; before = [signal.getsignal(s) for s in (signal.SIGINT, "
            "signal.SIGALRM)]; import embias.cli; embias.cli.main(['mac', 'religion', "
            "'--embedding', 'published:reddit']); "
            "print(*(signal.getsignal(s) is b for s, b in zip((signal.SIGINT, "
            "signal.SIGALRM), before)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[-2:] == ["True", "True"], run.stderr


#: A process whose code swallows the first KeyboardInterrupt (``except BaseException``).
SWALLOWING = textwrap.dedent("""
    import os, signal, sys, time
    # as in a terminal: a process started as a background job inherits SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.argv[1] == "installed":
        from embias.cli._interrupt import install_interrupt_handler
        install_interrupt_handler()
    try:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100):
                time.sleep(0.01)
        except BaseException:
            pass  # a library that catches everything
        for _ in range(300):
            time.sleep(0.01)
        print("ran to the end")
    except KeyboardInterrupt:
        print("interrupted")
""")


@pytest.mark.parametrize(("handler", "expected"), [("default", "ran to the end"),
                                                    ("installed", "interrupted")])
def test_ctrl_c_swallowed_by_a_catch_all_is_raised_again(handler: str, expected: str) -> None:
    run = subprocess.run([sys.executable, "-c", SWALLOWING, handler], capture_output=True,
                         text=True, timeout=60)
    assert run.stdout.strip() == expected, run.stderr
