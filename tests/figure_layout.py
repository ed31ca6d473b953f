"""Layout checks of a rendered matplotlib figure, as a reader sees it: no two texts overlap
(titles, axis labels, tick labels, legends, annotations: matplotlib gives each drawn text its
window extent), and no text sits on a data point's marker."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.legend import Legend

#: Pixels each text's box is shrunk by before two are compared (glyph boxes include some
#: blank margin; a touch is not an overlap).
SHRINK = 1.5
#: Markers that are parts of error bars (caps), not data points.
CAPS = {"_", "|", "None", "none", "", " ", None}


def _drawn_ticklabels(axis):
    """The tick labels the axis draws (those of ticks inside the view interval)."""
    ticks = axis._update_ticks()  # the ticks matplotlib draws (private, but what it uses)
    for tick in ticks:
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                yield label


def _texts(fig):
    """(name, Text) of every drawn text of the figure."""
    for t in fig.texts:
        yield "figure text", t
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        where = f"axes {i}"
        for t in (ax.title, ax._left_title, ax._right_title):
            yield f"{where} title", t
        yield f"{where} x label", ax.xaxis.label
        yield f"{where} y label", ax.yaxis.label
        for t in _drawn_ticklabels(ax.xaxis):
            yield f"{where} x tick", t
        for t in _drawn_ticklabels(ax.yaxis):
            yield f"{where} y tick", t
        for t in ax.texts:
            yield f"{where} text", t
        legends = [ax.get_legend(), *[a for a in ax.artists if isinstance(a, Legend)]]
        for legend in legends:  # the axes' legend and those kept as artists beside it
            if legend is not None and legend.get_visible():
                yield f"{where} legend title", legend.get_title()
                for t in legend.get_texts():
                    yield f"{where} legend", t
    for legend in fig.legends:
        for t in legend.get_texts():
            yield "figure legend", t


def _boxes(fig, renderer):
    out = []
    for name, t in _texts(fig):
        if not t.get_visible() or not t.get_text().strip():
            continue
        box = t.get_window_extent(renderer)
        if box.width <= 2 * SHRINK or box.height <= 2 * SHRINK:
            continue
        out.append((f"{name} {t.get_text()!r}", box.padded(-SHRINK)))
    return out


def _markers(ax):
    """Display coordinates of the data markers drawn in ``ax`` (inside its box)."""
    points = []
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in CAPS:
            xy = np.asarray(line.get_xydata(), dtype=float)
            if xy.size:
                points.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible():
            offsets = np.asarray(coll.get_offsets(), dtype=float)
            if offsets.size:
                points.append(coll.get_offset_transform().transform(offsets))
    if not points:
        return np.empty((0, 2))
    xy = np.concatenate(points)
    xy = xy[np.isfinite(xy).all(axis=1)]
    box = ax.get_window_extent()
    inside = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0)
    return xy[inside & (xy[:, 1] <= box.y1)]


def _inside(xy, box) -> int:
    """How many of the display points ``xy`` lie strictly inside ``box``."""
    x, y = xy[:, 0], xy[:, 1]
    return int(((x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)).sum())


def layout_problems(fig) -> list[str]:
    """Every overlap of two texts and every text on a data marker of ``fig`` (empty: clean)."""
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = _boxes(fig, renderer)
    problems = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if box_a.overlaps(box_b):
                problems.append(f"{a} overlaps {b}")
    for i, ax in enumerate(fig.axes):
        xy = _markers(ax)
        if not len(xy):
            continue
        for name, box in boxes:
            covered = _inside(xy, box)
            if covered:
                problems.append(f"{name} covers {covered} data marker(s) of axes {i}")
        for j, inset in enumerate(fig.axes):
            if inset is ax or inset.get_subplotspec() is not None or not inset.get_visible():
                continue
            covered = _inside(xy, inset.get_tightbbox(renderer).padded(-SHRINK))  # with labels
            if covered:
                problems.append(f"inset axes {j} covers {covered} data marker(s) of axes {i}")
    return problems
