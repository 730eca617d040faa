"""embias's batch NUTS (the default sampler on cell statistics and for fits run together)
fits every level and data mode: the same posterior as numpyro's within Monte Carlo error,
and no program compiled per fit, so one process runs any number of fits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import embias

pytestmark = pytest.mark.xdist_group("default_sampler_levels")

SMALL = {"tune": 400, "draws": 800}


@pytest.fixture(scope="module")
def study_table() -> pd.DataFrame:
    from embias.calibration import draw_population_studies
    from embias.embeddings import load_embeddings
    from embias.tables import cosine_table

    kv = load_embeddings("glove-6b-50d")
    [study] = draw_population_studies("sentiment", n_studies=1, random_seed=5)
    return cosine_table(kv, study, missing="raise", embedding_name="glove-6b-50d")


def _fit(table: pd.DataFrame, level: str, data: str, sampler: str, seed: int):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return embias.fit_bias_model(table, level=level, data=data, sampler=sampler,
                                     random_seed=seed, progress=False, warn=False, **SMALL)


@pytest.mark.parametrize(("level", "data"), [("dataset", "summary"), ("word", "summary"),
                                             ("hierarchical", "raw")])
def test_every_level_runs_on_the_batch_sampler_with_numpyros_posterior(
        study_table, level, data) -> None:
    """Posterior means of the connection means and σ: the difference within 4.5 of its
    Monte Carlo se (from each fit's own ESS)."""
    import arviz as az

    default = _fit(study_table, level, data, "embias", 3)
    numpyro = _fit(study_table, level, data, "numpyro", 4)
    assert default.settings["sampler"] == "embias"
    assert numpyro.settings["sampler"] == "numpyro"
    for name in ("connection_mean", "sigma"):
        a = default.posterior["posterior"][name]
        b = numpyro.posterior["posterior"][name]
        assert a.shape == b.shape
        for idx in np.ndindex(a.shape[2:]):
            xa, xb = a.values[(..., *idx)], b.values[(..., *idx)]
            se = np.sqrt(xa.var() / float(az.ess(xa)) + xb.var() / float(az.ess(xb)))
            assert abs(xa.mean() - xb.mean()) < 4.5 * se, (level, data, name, idx)


def test_starting_points_go_through_the_models_own_transforms(study_table) -> None:
    """The dataset level's zero-sum effect ``co`` has one unconstrained value fewer than
    connections and σ a log: each chain's starting point, taken to the sampler's scale and
    back through the compiled model, is the moment estimate it started from."""
    from embias.bayes import cell_statistics
    from embias.bayes.batch_sampling import _compile_shape, _flat_start, _prepare
    from embias.settings import FitSettings

    run = FitSettings(level="dataset", random_seed=2).resolved()
    cells = cell_statistics(study_table)
    _key, prep = _prepare(cells, study_table, run, ())
    shape = _compile_shape(prep.model, built=True)
    start, inverse_mass = _flat_start(shape, prep)
    connections = study_table["connection"].nunique()
    assert start.shape == (2, 1 + (connections - 1) + 1)  # m, co (zero-sum), log σ
    assert inverse_mass.shape == (start.shape[1],)
    data = [prep.data[name] for name in shape.data_names]
    for chain in range(2):
        back = dict(zip(shape.output_names, shape.constrain(start[chain], data),
                        strict=True))
        for name in ("m", "co", "sigma"):
            np.testing.assert_allclose(back[name], prep.starts[chain][name], rtol=1e-12,
                                       atol=1e-14)
    assert abs(float(np.sum(prep.starts[0]["co"]))) < 1e-12


@pytest.mark.slow
def test_one_process_runs_150_fits_without_growing(tmp_path: Path) -> None:
    """pm.sample's numpyro compiled every fit anew and JAX kept every program: about 120
    dataset-level fits (527 memory maps each) exhausted Linux's 65,530 maps and the process
    died. 150 fits alternating two levels now leave the process's maps as after the
    first two."""
    if not Path("/proc/self/maps").exists():
        pytest.skip("counts memory maps through /proc (Linux)")
    script = textwrap.dedent("""\
        import embias
        table = embias.load_published_table("religion", "reddit")
        def maps():
            with open("/proc/self/maps") as f:
                return sum(1 for _ in f)
        counts = []
        for i in range(150):
            level = ("dataset", "word")[i % 2]
            fit = embias.fit_bias_model(table, level=level, draws=60, tune=60,
                                        random_seed=i, progress=False, warn=False)
            assert fit.settings["sampler"] == "embias"
            counts.append(maps())
        print("MAPS", counts[1], max(counts))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("MAPS "))
    after_two, most = map(int, line.split()[1:])
    # a fit through pm.sample's numpyro added 500–770 maps; allow a few for Python's heap
    assert most - after_two < 100, (after_two, most)
