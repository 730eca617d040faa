"""Split modules keep their import paths: saved fits, noise simulations, debiasing.

``embias.pipeline.store``, ``embias.simulate.noise`` and ``embias.debias`` became packages
of one module per idea; every public name they had is still importable from them, the same
object as in its new home, and their ``__all__`` is unchanged.
"""

from __future__ import annotations

import importlib

import pytest

#: old module → (its ``__all__``, {new home: the names it defines})
HOMES: dict[str, tuple[list[str], dict[str, tuple[str, ...]]]] = {
    "embias.pipeline.store": (
        ["FIT_FORMAT", "MANIFEST_FILE", "SavedFitReplacedWarning", "UnreadableFitError",
         "load_fit", "read_manifest", "save_fit"],
        {
            "embias.pipeline.store.layout": (
                "CHECK_FILES", "CLASSIC_FILE", "DIAGNOSTICS_FILE", "FIT_FORMAT",
                "INTERVALS_FILE", "MANIFEST_FILE", "POSTERIOR_FILE", "SETTINGS_FILE",
                "TABLE_FILE", "SavedFitReplacedWarning", "UnreadableFitError", "json_default",
                "slug"),
            "embias.pipeline.store.locks": ("LOCK_TIMEOUT", "locked"),
            "embias.pipeline.store.manifest": ("read_manifest", "saved_by"),
            "embias.pipeline.store.saving": ("save_checked", "save_fit"),
            "embias.pipeline.store.loading": ("load_fit", "load_saved"),
        },
    ),
    "embias.simulate.noise": (
        ["PUBLISHED_FIGURES", "SIMULATION_CI_KIND", "WeatSimulation", "WeatSimulationGrid",
         "simulate_weat", "simulate_weat_grid", "summarize_simulations"],
        {
            "embias.simulate.noise.results": ("SIMULATION_CI_KIND", "WeatSimulation",
                                              "WeatSimulationGrid", "summarize_simulations"),
            "embias.simulate.noise.runs": ("PUBLISHED_FIGURES", "simulate_weat",
                                           "simulate_weat_grid"),
        },
    ),
    "embias.debias": (
        ["DebiasResult", "bias_subspace", "hard_debias", "soft_debias"],
        {
            "embias.debias.subspace": ("DEFAULT_K", "DEFINITIONAL_WHY", "bias_subspace"),
            "embias.debias.result": ("DebiasResult",),
            "embias.debias.hard": ("hard_debias",),
            "embias.debias.soft": ("soft_debias",),
        },
    ),
}


@pytest.mark.parametrize(("module", "home", "name"), [
    (module, home, name) for module, (_, homes) in HOMES.items()
    for home, names in homes.items() for name in names])
def test_every_name_of_the_old_module_is_its_home_modules_object(module: str, home: str,
                                                                 name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(
        importlib.import_module(home), name)


@pytest.mark.parametrize("module", sorted(HOMES))
def test_the_old_modules_all_is_unchanged(module: str) -> None:
    assert importlib.import_module(module).__all__ == HOMES[module][0]
