"""The figures of a design analysis and of a calibration draw their results, not types.

Both figures live in the plotting layer, below the studies that make their results
(:class:`embias.DesignAnalysis`, :class:`embias.PopulationCalibration`), so they recognise
a result by what it holds instead of importing its class. These tests build a real
:class:`~embias.DesignAnalysis` from hand-made rows, check that the figure draws the
shares of credible differences counted by hand, and that a result of the other kind is
refused with the message that names what each figure takes.
"""

from __future__ import annotations

import math

import matplotlib
import pandas as pd
import pytest

import embias
from embias.populations import PopulationDesign

matplotlib.use("Agg")


def design_result() -> embias.DesignAnalysis:
    """Two designs (4 and 8 attribute words per class), four studies each.

    Credible differences: 1 of 4 at 4 words, 3 of 4 at 8 words.
    """
    rows = []
    for attribute, credible in ((4.0, [True, False, False, False]),
                                (8.0, [True, True, False, True])):
        for study, is_credible in enumerate(credible):
            rows.append({
                "design": f"protected=5,attributes={attribute:g},neutral=100,human=0",
                "protected_words": 5.0, "attribute_words": attribute, "neutral_words": 100,
                "human_words": 0, "study": study, "contrast": "associated - none",
                "truth": 0.05, "estimate": 0.05, "lower": 0.0, "upper": 0.1,
                "width": 0.1 + 0.01 * study, "rope_decision": "", "credible": is_credible,
                "random_seed": study, "problems": ""})
    return embias.DesignAnalysis(
        results=pd.DataFrame(rows), designs=(PopulationDesign(), PopulationDesign()),
        settings={"source": "populations"}, seconds=0.0)


def test_the_design_figure_draws_the_shares_of_credible_differences_of_a_design_analysis():
    import matplotlib.pyplot as plt

    fig = embias.plot_design_analysis(design_result())
    try:
        line = fig.axes[0].get_lines()[0]
        assert list(line.get_xdata()) == [4.0, 8.0]
        assert list(line.get_ydata()) == [0.25, 0.75]  # 1 of 4, 3 of 4
        # the method draws the same figure
        again = design_result().plot()
        assert list(again.axes[0].get_lines()[0].get_ydata()) == [0.25, 0.75]
        plt.close(again)
    finally:
        plt.close(fig)


def test_the_design_figure_draws_the_hdi_widths_of_a_design_analysis():
    import matplotlib.pyplot as plt

    fig = embias.plot_design_analysis(design_result())
    try:
        # widths 0.10, 0.11, 0.12, 0.13 in both designs: mean 0.115
        widths = fig.axes[1].get_lines()[0].get_ydata()
        assert all(math.isclose(w, 0.115) for w in widths)
    finally:
        plt.close(fig)


def test_the_calibration_figure_refuses_a_design_analysis():
    with pytest.raises(ValueError, match=r"plot_calibration\(\) takes a PopulationCalibration "
                                         r"or its summary\(\), got DesignAnalysis"):
        embias.plot_calibration(design_result())


def test_the_design_figure_refuses_what_is_not_a_design_analysis():
    with pytest.raises(ValueError, match=r"plot_design_analysis\(\) takes a DesignAnalysis or "
                                         r"its summary\(\), got PopulationDesign"):
        embias.plot_design_analysis(PopulationDesign())
