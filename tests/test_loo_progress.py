"""Progress of the slow post-processing steps: :func:`embias.word_influence` (default
``progress=True``) and :func:`embias.compare_models` (PSIS-LOO of every fit) show tqdm bars
on a terminal, none when the standard error is a pipe or a log, none with
``progress=False``. Run in real subprocesses, one with a pseudo-terminal as its standard
error."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, warnings
    import embias
    warnings.simplefilter("ignore")
    table = embias.study_table("religion", "glove-6b-50d")
    words = list(dict.fromkeys(table["protected_word"]))[:4]
    table = table[table["protected_word"].isin(words)].reset_index(drop=True)
    fits = {level: embias.fit_bias_model(table, level=level, draws=100, tune=100, chains=2,
                                         random_seed=1, progress=False)
            for level in ("dataset", "word")}
    sys.stderr.write("<quiet>")
    embias.compare_models(fits, by="word", progress=False)
    embias.word_influence(fits["word"], words=words[:2], refit="never", progress=False)
    sys.stderr.write("</quiet><default>")
    embias.compare_models(fits, by="word")
    embias.word_influence(fits["word"], words=words[:2], refit="never")
    sys.stderr.write("</default>")
    sys.stderr.flush()
""")


def _run(*, terminal: bool) -> str:
    env = dict(os.environ)
    if not terminal:
        done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                              env=env, timeout=600, check=True)
        return done.stderr
    main, child = pty.openpty()
    # a terminal 120 columns wide (a new pseudo-terminal has 0, and tqdm draws nothing)
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.DEVNULL,
                            stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    assert proc.wait(timeout=600) == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_bars_on_a_terminal_only_and_never_with_progress_false() -> None:
    shown = _run(terminal=True)
    quiet, default = shown.split("</quiet>")
    quiet = quiet.split("<quiet>")[1]
    assert "PSIS-LOO" not in quiet and "word influence" not in quiet, quiet
    assert "PSIS-LOO (by word)" in default and "2/2" in default, default
    assert "word influence" in default and "3/3" in default, default
    logged = _run(terminal=False)
    assert "PSIS-LOO" not in logged and "word influence" not in logged, logged
    assert "\x1b[A" not in logged
