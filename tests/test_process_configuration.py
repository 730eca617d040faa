"""A fit leaves the process as it found it; JAX and PyTensor are set up only where asked.

The library changes no environment variable and no JAX setting (``XLA_FLAGS``,
``PYTENSOR_FLAGS``, ``jax.config``): :func:`embias.configure_jax` does, when a user calls it,
and the ``embias`` console script does it for its own process. Every check of a process's
state runs in a fresh interpreter (a subprocess), so nothing this test process imported or
set interferes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

import embias

EMBIAS = Path(sys.executable).with_name("embias")

#: The JAX settings embias used to change on its own, and JAX's defaults for them.
JAX_SETTINGS = {"jax_compilation_cache_dir": None,
                "jax_persistent_cache_min_compile_time_secs": 1.0,
                "jax_persistent_cache_min_entry_size_bytes": 0,
                "jax_num_cpu_devices": -1}
#: The environment variables that set them (and XLA's, PyTensor's).
VARIABLES = ("XLA_FLAGS", "PYTENSOR_FLAGS", "JAX_NUM_CPU_DEVICES", "JAX_COMPILATION_CACHE_DIR",
             "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
             "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES")

#: Prints, as JSON, the environment and the JAX settings of the process it ends.
REPORT = textwrap.dedent("""\
    import json, os, sys
    import jax
    print("STATE " + json.dumps({
        "environ": dict(os.environ),
        "jax": {name: getattr(jax.config, name) for name in %r},
        "devices": jax.local_device_count()}))
""") % (list(JAX_SETTINGS),)


def clean_environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This environment without the variables under test, with a cache of its own."""
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.update(extra)
    return env


def run_python(script: str, env: dict[str, str], cwd: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", script + "\n" + REPORT], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("STATE "))
    return {**json.loads(line.removeprefix("STATE ")), "stderr": done.stderr}


# ------------------------------------------------------------------ the library
@pytest.mark.slow
def test_a_fit_leaves_the_environment_and_jax_settings_as_they_were(tmp_path: Path) -> None:
    """The default fit (embias's batch NUTS, through JAX) with a user's XLA_FLAGS and
    PYTENSOR_FLAGS: afterwards the variables and JAX's settings are those of a process that
    imported the same samplers without embias (PyMC's JAX module rewrites XLA_FLAGS when it
    is imported: that is PyMC's doing, and the same in both), and embias's cache holds no
    JAX programs."""
    env = clean_environment(
        tmp_path, XLA_FLAGS="--xla_cpu_enable_fast_math=false",
        PYTENSOR_FLAGS=f"base_compiledir={tmp_path / 'pytensor'}")
    fitted = run_python(textwrap.dedent("""\
        import embias
        table = embias.load_published_table("religion", "reddit")
        fit = embias.fit_bias_model(table, level="dataset", draws=50, tune=50,
                                    random_seed=1, progress=False, warn=False)
        assert fit.settings["sampler"] == "embias", fit.settings["sampler"]
    """), env, tmp_path)
    samplers_alone = run_python("import pymc, pymc.sampling.jax, numpyro", env, tmp_path)
    assert {k: fitted["environ"].get(k) for k in VARIABLES} == \
        {k: samplers_alone["environ"].get(k) for k in VARIABLES}
    assert fitted["environ"]["PYTENSOR_FLAGS"] == env["PYTENSOR_FLAGS"]
    assert fitted["jax"] == samplers_alone["jax"] == JAX_SETTINGS
    assert fitted["devices"] == samplers_alone["devices"]
    assert not (tmp_path / "cache" / "embias" / "jax").exists()


def test_importing_the_models_leaves_an_unusable_pytensor_folder_setting_alone(
        tmp_path: Path) -> None:
    env = clean_environment(tmp_path, PYTENSOR_FLAGS="base_compiledir=/proc/embias-no")
    done = subprocess.run(
        [sys.executable, "-c", "import os, embias.bayes; "
         "print(os.environ['PYTENSOR_FLAGS'])"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "base_compiledir=/proc/embias-no"
    assert "unusable" not in done.stderr


# ------------------------------------------------------------------ configure_jax
def test_configure_jax_before_jax_is_imported_sets_what_jax_reads(tmp_path: Path) -> None:
    folder = tmp_path / "jax-cache"
    state = run_python(f"import embias; print(embias.configure_jax(cache_dir={str(folder)!r}))",
                       clean_environment(tmp_path), tmp_path)
    assert state["devices"] == 8
    assert state["jax"] == {"jax_compilation_cache_dir": str(folder),
                            "jax_persistent_cache_min_compile_time_secs": 0.0,
                            "jax_persistent_cache_min_entry_size_bytes": -1,
                            "jax_num_cpu_devices": 8}
    # set in the environment, which worker processes inherit
    assert state["environ"]["JAX_NUM_CPU_DEVICES"] == "8"
    assert state["environ"]["JAX_COMPILATION_CACHE_DIR"] == str(folder)


def test_configure_jax_after_jax_is_imported_sets_its_configuration(tmp_path: Path) -> None:
    state = run_python("import jax, embias; embias.configure_jax(host_devices=3)",
                       clean_environment(tmp_path), tmp_path)
    assert state["devices"] == 3
    assert state["jax"] == {
        "jax_compilation_cache_dir": str(tmp_path / "cache" / "embias" / "jax"),
        "jax_persistent_cache_min_compile_time_secs": 0.0,
        "jax_persistent_cache_min_entry_size_bytes": -1,
        "jax_num_cpu_devices": 3}
    assert not any(k.startswith("JAX_") for k in state["environ"])


def test_configure_jax_keeps_what_the_user_set(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    env = clean_environment(tmp_path, XLA_FLAGS="--xla_force_host_platform_device_count=2",
                            JAX_COMPILATION_CACHE_DIR=str(mine),
                            JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="5")
    state = run_python("import embias; assert embias.configure_jax() is None", env, tmp_path)
    assert state["devices"] == 2
    assert state["jax"] == {"jax_compilation_cache_dir": str(mine),
                            "jax_persistent_cache_min_compile_time_secs": 5.0,
                            "jax_persistent_cache_min_entry_size_bytes": -1,
                            "jax_num_cpu_devices": -1}
    assert state["environ"]["XLA_FLAGS"] == "--xla_force_host_platform_device_count=2"
    # set through jax.config before the call: kept too
    state = run_python(textwrap.dedent("""\
        import jax, embias
        jax.config.update("jax_num_cpu_devices", 4)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 100)
        embias.configure_jax()
    """), clean_environment(tmp_path), tmp_path)
    assert state["devices"] == 4
    assert state["jax"]["jax_persistent_cache_min_entry_size_bytes"] == 100


def test_configure_jax_after_jax_has_computed_refuses_other_devices(tmp_path: Path) -> None:
    state = run_python(textwrap.dedent("""\
        import jax, embias
        jax.numpy.zeros(1).block_until_ready()
        try:
            embias.configure_jax()
        except ValueError as exc:
            print("REFUSED", exc)
        embias.configure_jax(host_devices=None)   # the cache alone is still set
        embias.configure_jax(host_devices=1)      # what JAX has: nothing to change
    """), clean_environment(tmp_path), tmp_path)
    assert state["devices"] == 1
    assert state["jax"]["jax_persistent_cache_min_compile_time_secs"] == 0.0


def test_configure_jax_refusals_name_the_bad_value(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^host_devices must be an integer ≥ 1, got 0$"):
        embias.configure_jax(host_devices=0)
    with pytest.raises(ValueError, match=r"^host_devices must be an integer ≥ 1, got 2\.5$"):
        embias.configure_jax(host_devices=2.5)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    done = subprocess.run(
        [sys.executable, "-c", f"import embias; embias.configure_jax(cache_dir={str(blocker)!r})"],
        capture_output=True, text=True, env=clean_environment(tmp_path), cwd=tmp_path,
        timeout=300)
    assert done.returncode == 1
    assert (f"ValueError: cache_dir {str(blocker)!r} cannot be used as JAX's compilation cache "
            "(FileExistsError: File exists); give a folder that can be created and written to"
            in done.stderr)


def test_configure_jax_falls_back_from_an_unusable_cache_home_with_one_warning(
        tmp_path: Path) -> None:
    env = {**clean_environment(tmp_path), "XDG_CACHE_HOME": "/proc/embias-no"}
    fallback = str(Path(tempfile.gettempdir()) / f"embias-jax-{os.getuid()}")
    state = run_python(textwrap.dedent(f"""\
        import warnings, embias
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            chosen = embias.configure_jax()
        assert str(chosen) == {fallback!r}, chosen
        assert [w.category.__name__ for w in caught] == ["CompileCacheWarning"], caught
    """), env, tmp_path)
    assert state["jax"]["jax_compilation_cache_dir"] == fallback
    done = subprocess.run([sys.executable, "-c", "import embias; embias.configure_jax()"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0
    assert done.stderr.count("compile cache folder '/proc/embias-no/embias/jax' is "
                             f"unusable (FileNotFoundError: No such file or directory); "
                             f"compiling in {fallback!r} instead") == 1


# ------------------------------------------------------------------ the command line
@pytest.mark.slow
def test_the_command_line_sets_up_its_own_process_as_configure_jax_does(
        tmp_path: Path) -> None:
    """``embias fit`` runs its chains in parallel and keeps its compiled programs; a script
    that calls embias.configure_jax() first gets the very same draws."""
    options = ["--embedding", "published:reddit", "--level", "dataset", "--draws", "200",
               "--tune", "200", "--seed", "3"]
    env = clean_environment(tmp_path)
    done = subprocess.run([str(EMBIAS), "fit", "religion", *options, "--out",
                           str(tmp_path / "cli"), "--no-progress"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "not enough devices" not in done.stderr  # the chains ran in parallel
    assert any((tmp_path / "cache" / "embias" / "jax").iterdir())  # programs kept
    script = textwrap.dedent(f"""\
        import embias
        embias.configure_jax()
        fit = embias.fit_study_model("religion", "published:reddit", level="dataset",
                                     draws=200, tune=200, random_seed=3, progress=False,
                                     models_dir={str(tmp_path / 'script')!r})
        print("PATH", fit.path)
    """)
    state = run_python(script, env, tmp_path)
    assert "not enough devices" not in state["stderr"]
    cli = embias.load_fit(next((tmp_path / "cli").iterdir()))
    mine = embias.load_fit(next((tmp_path / "script").iterdir()))
    for name in ("m", "co", "sigma"):
        np.testing.assert_array_equal(mine.posterior["posterior"][name].values,
                                      cli.posterior["posterior"][name].values)


@pytest.mark.slow
def test_the_command_line_compiles_in_a_temporary_folder_when_pytensors_is_unusable(
        tmp_path: Path) -> None:
    """PyTensor refuses to compile in a folder it cannot write; the command line (its own
    process) compiles in a per-user temporary folder instead and says so once, so a sampler
    that compiles C code (PyMC's own) still fits."""
    env = clean_environment(tmp_path, PYTENSOR_FLAGS="base_compiledir=/proc/embias-no")
    done = subprocess.run([str(EMBIAS), "fit", "religion", "--embedding", "published:reddit",
                           "--level", "dataset", "--draws", "50", "--tune", "50", "--seed", "1",
                           "--sampler", "pymc", "--out", str(tmp_path / "m"), "--no-progress"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("embias: warning: compile cache folder '/proc/embias-no' is "
                             "unusable") == 1
    assert "saved fit:" in done.stdout
