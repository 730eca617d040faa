"""The audit page's section builders keep their import path ``embias.audit.content``.

The module was split into one module per section (``embias.audit.wording``, ``glance``,
``measured``, ``classic_scores``, ``optional``, ``word_effects``, ``across``,
``reproduce``); every public name it had is still importable from it, the same object as
in its new home, and its ``__all__`` is unchanged.
"""

from __future__ import annotations

import importlib

import pytest

import embias.audit.content as content

#: Every public module-level name of embias.audit.content before the split → its home.
HOMES = {
    "embias.audit.wording": ("CONNECTION_MEANING", "change_sentence", "contrast_sentence",
                             "interval_label"),
    "embias.audit.glance": ("CONTRAST_QUESTION", "GLANCE_ORDER", "GlanceGroup", "GlanceLine",
                            "caveats", "change_glance", "contrast_glance", "glance"),
    "embias.audit.measured": ("connections_present", "measured_section"),
    "embias.audit.classic_scores": ("classic_section", "seat_pairs", "table_weat_tests"),
    "embias.audit.optional": ("OptionalSection", "optional_section"),
    "embias.audit.word_effects": ("word_effect_tables",),
    "embias.audit.across": ("across_section",),
    "embias.audit.reproduce": ("VERSIONED_PACKAGES", "package_versions", "reproduce_section"),
    "embias.audit.content": ("BAYES_COLUMNS", "LEVEL_MEANING", "FigureSpec", "bayes_block",
                             "check_spec", "draw_check", "draw_forest", "draw_forest_and_png",
                             "forest_spec", "is_kept", "keep_picture", "kept_or_drawn",
                             "kept_picture", "level_comparisons", "trust_block"),
}


@pytest.mark.parametrize(("home", "name"),
                         [(home, name) for home, names in HOMES.items() for name in names])
def test_every_content_name_is_its_home_modules_object(home: str, name: str) -> None:
    assert getattr(content, name) is getattr(importlib.import_module(home), name)


def test_content_all_is_unchanged() -> None:
    assert content.__all__ == ["OptionalSection", "optional_section", "table_weat_tests"]
