"""The figures of designed materials keep their legends where they cost no room and name
only what they draw: the addressability figure's columns are evenly spaced (its legend
below the panels, not beside one of them), and the periods figure lists only the periods
some panel draws."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from figure_layout import layout_problems, legend_entries, legend_problems  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402
from test_plotting import _designed_dataset  # noqa: E402

from hyst.plotting.designed import REACHABLE, UPPER_BOUND, fig_addressability, fig_periods  # noqa: E402, I001


def _column_gaps(fig, row_axes) -> np.ndarray:
    """The white space between neighbouring panels of a row, in figure widths."""
    fig.canvas.draw()
    boxes = [ax.get_position() for ax in row_axes]
    return np.array([b.x0 - a.x1 for a, b in zip(boxes, boxes[1:], strict=False)])


def test_addressability_columns_are_evenly_spaced_with_one_legend_below():
    fig = fig_addressability(_designed_dataset(), size=(8.0, 5.0))
    axes = np.array(fig.axes).reshape(2, -1)
    for row in axes:
        gaps = _column_gaps(fig, row)
        assert gaps.max() - gaps.min() < 0.01, gaps
    assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
    legend = fig.legends[0].get_window_extent()
    assert legend.y1 <= min(ax.get_tightbbox().y0 for ax in fig.axes) + 1  # below the panels
    texts = [t for t, _look in legend_entries(fig)]
    assert texts == ["$N J_0 = 0.1$", "$N J_0 = 1$", "$N J_0 = 10$", REACHABLE, UPPER_BOUND]
    assert layout_problems(fig) == [] and legend_problems(fig) == []


def test_periods_legend_lists_only_the_periods_drawn():
    ds = _designed_dataset()
    for k in (2, 5):  # never met: nowhere drawn
        ds[f"period_{k}_probability"] = ds[f"period_{k}_probability"] * 0
    fig = fig_periods(ds, periods=(2, 3, 4, 5, 6, 7))
    texts = [t for t, _look in legend_entries(fig)]
    assert texts == ["$T = 3$ (odd)", "$T = 4$", "$T = 6$", "$T = 7$ (odd)"]
    assert layout_problems(fig) == [] and legend_problems(fig) == []


def test_a_curve_of_one_nj0_takes_no_point_of_another():
    """Where the study of larger N lacks an N·J0 the small one sampled (here 0.1), that
    curve ends at the small N: it does not take the larger study's nearest N·J0 (1) for
    its own."""
    small = _designed_dataset()
    large = small.sel(NJ0=[1.0, 10.0]).assign_coords(N=[16, 32, 64])
    fig = fig_addressability(small, large, nj0=(0.1, 1.0))
    top = fig.axes[0]
    drawn_to: dict = {}  # the largest N drawn (points and upper bounds) in each colour
    for handle, text in zip(*top.get_legend_handles_labels(), strict=True):
        colour = to_rgba(
            handle.lines[0].get_color() if hasattr(handle, "lines") else handle.get_color()
        )
        xs = [
            x
            for line in top.get_lines()
            if to_rgba(line.get_color()) == colour
            for x in np.asarray(line.get_xdata(), float)
        ]
        drawn_to[text] = max(xs)
    assert drawn_to["$N J_0 = 0.1$"] < 9  # N = 2, 4, 8: the small study alone
    assert drawn_to["$N J_0 = 1$"] > 60  # to N = 64


def test_an_upper_bound_of_one_or_more_is_not_drawn():
    """0 of n is drawn as the bound 3/n only where it bounds anything: n > 3."""
    ds = _designed_dataset()
    obs = "all_addressable_probability"
    ds[f"{obs}_trials"].loc[{"N": 8}] = 2  # 0 of 2 at N = 8: the bound would be 1.5
    fig = fig_addressability(ds)
    bounds = [line for line in fig.axes[0].get_lines() if line.get_marker() == "v"]
    ys = np.concatenate([np.asarray(line.get_ydata(), float) for line in bounds])
    assert ys.size and ys.max() < 1
    xs = np.concatenate([np.asarray(line.get_xdata(), float) for line in bounds])
    assert xs.max() < 7  # none at N = 8
