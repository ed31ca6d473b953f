"""Each axis's ticks found once per layout pass (hyst.plotting.placement.ticks_once): the
same images byte for byte, fewer tick computations, matplotlib's own method back after."""

import contextlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.axis  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from test_plotting import _bound, _large_n_dataset, make_datasets, make_networks  # noqa: E402

from hyst import plotting  # noqa: E402
from hyst.plotting import placement  # noqa: E402
from hyst.plotting.style import new_figure, style  # noqa: E402

MATPLOTLIBS_OWN = matplotlib.axis.Axis._update_ticks


@pytest.fixture(scope="module")
def datasets():
    """The synthetic datasets of tests/test_plotting.py that the figures below draw."""
    return {
        **make_datasets(),
        **make_networks(),
        "large_n": _large_n_dataset(),
        "largest_n_avalanches": _large_n_dataset(Ns=(1024,)),
        "large_n_rule0": _large_n_dataset(rules=("0",)),
        "large_n_rule1p": _large_n_dataset(rules=("1p",)),
    }


# log-log panels with insets (Fig. 2), linear and log axes with plain-number labels, the
# large-N panels with their inset (Fig. 4), the networks' region charts
@pytest.mark.parametrize(
    "name",
    ["gaps_and_self_loops", "avalanche_distributions", "self_loop_free_versus_n", "networks_fig3"],
)
def test_a_figure_saved_with_ticks_found_once_is_the_same_image_byte_for_byte(
    name, datasets, tmp_path, monkeypatch
):
    def saved(stem):  # a PNG: a PDF holds the time it was made
        fig = plotting.render(name, _bound(name, datasets))
        return plotting.save(fig, tmp_path / stem, dpi=100, formats=("png",))

    once = saved("once")
    monkeypatch.setattr(placement, "ticks_once", contextlib.nullcontext)
    every = saved("every")
    assert matplotlib.axis.Axis._update_ticks is MATPLOTLIBS_OWN
    for a, b in zip(once, every, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    plt.close("all")


def _log_figure():
    with style():
        fig, axes = new_figure(1, 2, (4.0, 2.0))
        for ax in axes.flat:
            ax.loglog(np.geomspace(1e-3, 1e2, 6), np.geomspace(1e-2, 1.0, 6), "o-")
            ax.set_xlabel("x")
            ax.set_ylabel("y")
    return fig, axes


def test_inside_ticks_once_each_axis_finds_its_ticks_once_per_state(monkeypatch):
    calls = []

    def counted(axis):
        calls.append(axis)
        return MATPLOTLIBS_OWN(axis)

    monkeypatch.setattr(matplotlib.axis.Axis, "_update_ticks", counted)
    fig, axes = _log_figure()
    renderer = fig.canvas.get_renderer()
    axes[0, 0].get_tightbbox(renderer)
    without = len(calls)  # matplotlib's own: the axis, its label, its two spines
    assert without >= 2 * 4
    calls.clear()
    with placement.ticks_once():
        axes[0, 0].get_tightbbox(renderer)
        axes[0, 0].get_tightbbox(renderer)
        assert len(calls) == 2  # x and y, once each
        axes[0, 0].set_xlim(1e-2, 1e1)  # a new state of the x axis: found again
        axes[0, 0].get_tightbbox(renderer)
        assert len(calls) == 3
        with placement.ticks_once():  # nested: the outer one's
            axes[0, 0].get_tightbbox(renderer)
        assert len(calls) == 3
        fig.set_dpi(2 * fig.dpi)  # the axes' box in pixels changes: both found again
        axes[0, 0].get_tightbbox(renderer)
        assert len(calls) == 5
    assert matplotlib.axis.Axis._update_ticks is counted  # what was there before, back
    calls.clear()
    axes[0, 0].get_tightbbox(renderer)
    assert len(calls) == without
    plt.close(fig)


def test_ticks_once_finds_the_ticks_of_a_changed_locator():
    fig, axes = _log_figure()
    ax = axes[0, 0]
    renderer = fig.canvas.get_renderer()
    with placement.ticks_once():
        ax.get_tightbbox(renderer)
        ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator([1e-2, 1.0]))
        ax.get_tightbbox(renderer)
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_visible()]
    assert labels == ["$\\mathdefault{10^{-2}}$", "$\\mathdefault{10^{0}}$"]
    plt.close(fig)
