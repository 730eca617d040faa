"""The suite's `--dist loadgroup` keeps an ``xdist_group`` on one worker.

`make test` runs the suite on two workers; tests that share an expensive module fixture (a
docs build, a batch of fits) carry one ``xdist_group`` so that the fixture is built once.
If the installed pytest and pytest-xdist stop honouring the mark, nothing fails but every
such fixture is built on both workers. This runs a two-module project through the same
options and checks where its tests ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GROUPED = '''
import os
import pytest

pytestmark = pytest.mark.xdist_group("shared")


@pytest.mark.parametrize("i", range(4))
def test_records_its_worker(i):
    folder = os.environ["WORKER_LOG"]
    with open(os.path.join(folder, f"{__name__}-{i}"), "w") as f:
        f.write(os.environ["PYTEST_XDIST_WORKER"])
'''


def test_tests_of_one_group_run_on_one_worker(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("test_first", "test_second"):
        (project / f"{name}.py").write_text(GROUPED, encoding="utf-8")
    log = tmp_path / "log"
    log.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "2", "--dist", "loadgroup",
         "-p", "no:cacheprovider", str(project)],
        capture_output=True, text=True, timeout=300, cwd=project,
        env={**os.environ, "WORKER_LOG": str(log)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    workers = {path.name: path.read_text() for path in log.iterdir()}
    assert len(workers) == 8, sorted(workers)
    assert len(set(workers.values())) == 1, workers
