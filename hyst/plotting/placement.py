"""Where a figure's annotations, legends and insets go: clear of the data, the frames, the
tick labels and each other (what the figure layout test checks). Shared by the figure
families through :mod:`hyst.plotting.panels`."""

from __future__ import annotations

import contextlib
import math
import weakref

import matplotlib as mpl
import matplotlib.axis
import numpy as np
from matplotlib.transforms import Bbox, TransformedBbox


def lay_out(fig) -> None:
    """Place the axes of ``fig`` (and their insets) where a draw would put them: each axes at
    its locator's place, then the figure's layout engine (constrained layout), without
    drawing the artists. Text extents, tight boxes and insets are measured on it; it is
    what ``fig.draw_without_rendering()`` does before it draws every artist with rendering
    off, which costs as much again and changes no position. Each axis's ticks are found
    once per layout pass (:func:`ticks_once`)."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for axes in (ax, *ax.child_axes):
            locator = axes.get_axes_locator()
            axes.apply_aspect(locator(axes, renderer) if locator else None)
    engine = fig.get_layout_engine()
    if fig.axes and engine is not None:
        with ticks_once():
            engine.execute(fig)


@contextlib.contextmanager
def ticks_once():
    """Inside it, each axis finds its ticks (their places and labels: matplotlib's
    ``Axis._update_ticks``) once for each state of the axis that decides them: its limits,
    scale, locators and formatters, the axes' box in pixels and the figure's resolution.
    Matplotlib finds them afresh each time the axis is measured: four times per axis and
    layout pass (the axis, its label, two spines), then once more to draw; they were a
    quarter of a figure's CPU, and a pipeline's figures take a fifth less with this. The
    images are the same byte for byte (``tests/test_ticks_once.py``).

    Only for laying out and rendering a finished figure (:func:`lay_out`,
    :func:`hyst.plotting.save`): nothing may change an axis in place inside (a locator's
    parameters, the tick parameters), and the figure is drawn from one thread. A
    matplotlib without that method draws as it would without this."""
    cls = matplotlib.axis.Axis
    find = cls.__dict__.get("_update_ticks")
    if find is None or getattr(find, "found_once", False):  # none, or already inside
        yield
        return
    found: dict[int, tuple] = {}  # id(axis) -> (axis, state, ticks)

    def update_ticks(axis):
        state = (
            tuple(axis.get_view_interval()),
            axis.get_scale(),
            tuple(axis.axes.bbox.bounds),
            axis.get_figure(root=True).dpi,
            id(axis.major.locator),
            id(axis.major.formatter),
            id(axis.minor.locator),
            id(axis.minor.formatter),
        )
        known = found.get(id(axis))
        if known is not None and known[1] == state:
            return known[2]
        ticks = find(axis)
        found[id(axis)] = (axis, state, ticks)
        return ticks

    update_ticks.found_once = True
    cls._update_ticks = update_ticks
    try:
        yield
    finally:
        cls._update_ticks = find


def place_label(ax, note, anchors=None) -> None:
    """Put the annotation ``note`` at the first of ``anchors`` ((xy in data units, offset in
    points, ha, va), kept on the note for a later call) where its text lies inside the
    frame of ``ax``, clear of its tick marks, and covers nothing drawn (curves, error bars,
    other texts, legends, insets); else where it covers least."""
    anchors = anchors if anchors is not None else getattr(note, "anchors", ())
    note.anchors = anchors
    if not anchors:
        return
    fig = ax.get_figure(root=True)
    renderer = fig.canvas.get_renderer()
    visible = note.get_visible()
    note.set_visible(False)  # what else is drawn: without the note itself
    pts = occupied(ax)
    note.set_visible(visible)
    to_axes = ax.transAxes.inverted()
    insets = [
        c.get_tightbbox(renderer).transformed(to_axes) for c in ax.child_axes if c.get_visible()
    ]
    frame = ax.get_window_extent(renderer)
    margin = (mpl.rcParams["xtick.major.size"] + 1.0) * fig.dpi / 72
    inner = frame.padded(-margin).transformed(to_axes)
    clear = 2.0 * fig.dpi / 72 / frame.height  # points of white around the text
    best = None
    for xy, offset, ha, va in anchors:
        note.xy = xy
        note.set_position(offset)
        note.set_ha(ha)
        note.set_va(va)
        box = note.get_window_extent(renderer).transformed(to_axes).padded(clear)
        covered = (
            int(
                (
                    (pts[:, 0] > box.x0)
                    & (pts[:, 0] < box.x1)
                    & (pts[:, 1] > box.y0)
                    & (pts[:, 1] < box.y1)
                ).sum()
            )
            if pts.size
            else 0
        )
        covered += sum(100 for b in insets if b.overlaps(box))
        if box.x0 < inner.x0 or box.x1 > inner.x1 or box.y0 < inner.y0 or box.y1 > inner.y1:
            covered += 1000
        if best is None or covered < best[0]:
            best = (covered, xy, offset, ha, va)
        if covered == 0:
            return
    _covered, xy, offset, ha, va = best
    note.xy = xy
    note.set_position(offset)
    note.set_ha(ha)
    note.set_va(va)


def _on_scale(ax, xy: np.ndarray) -> np.ndarray:
    """Data points with a non-positive coordinate on a log axis moved to that axis's lower
    limit, where matplotlib draws them (an error bar reaching 0 ends at the bottom edge)."""
    xy = np.array(xy, float)
    for k, (scale, lim) in enumerate(
        ((ax.get_xscale(), ax.get_xlim()), (ax.get_yscale(), ax.get_ylim()))
    ):
        if scale == "log" and xy.size:
            low = min(lim)
            xy[:, k] = np.where(xy[:, k] <= 0, low, xy[:, k])
    return xy


def occupied(ax, texts: bool = True) -> np.ndarray:
    """Axes-fraction coordinates of everything drawn: line points (densified) and, unless
    ``texts`` is False, texts and the legend."""
    pts = []
    to_axes = ax.transAxes.inverted()
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), float)
        if xy.ndim != 2 or xy.shape[0] == 0:
            continue
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if xy.shape[0] == 0:
            continue
        a = to_axes.transform(ax.transData.transform(xy))
        pts.append(a)
        if a.shape[0] > 1:  # points along the segments
            t = np.linspace(0, 1, 12)[1:-1, None]
            for p, q in zip(a[:-1], a[1:], strict=True):
                pts.append(p + t * (q - p))
    for coll in ax.collections:  # error bars: their segments, densified
        if isinstance(coll, mpl.collections.LineCollection):
            for seg in coll.get_segments():
                seg = _on_scale(ax, np.asarray(seg, float).reshape(-1, 2))
                seg = seg[np.all(np.isfinite(seg), axis=1)]
                if seg.shape[0] > 1:
                    a = to_axes.transform(ax.transData.transform(seg))
                    t = np.linspace(0, 1, 12)[:, None]
                    for p, q in zip(a[:-1], a[1:], strict=True):
                        pts.append(p + t * (q - p))
    renderer = (
        ax.figure.canvas.get_renderer() if hasattr(ax.figure.canvas, "get_renderer") else None
    )
    titles = (ax.title, ax._left_title, ax._right_title)  # (matplotlib's three titles)
    extras = [t for t in (*ax.texts, *titles) if t.get_visible() and t.get_text()]
    extras = extras if texts else []
    if texts:  # the legend and those kept as artists beside it
        legends = [ax.get_legend(), *[a for a in ax.artists if isinstance(a, mpl.legend.Legend)]]
        extras += [legend for legend in legends if legend is not None]
    if renderer is not None:
        g = np.linspace(0, 1, 5)
        for art in extras:
            try:
                bb = art.get_window_extent(renderer)
            except (RuntimeError, TypeError, ValueError):
                continue
            gx, gy = np.meshgrid(bb.x0 + g * bb.width, bb.y0 + g * bb.height)
            pts.append(to_axes.transform(np.column_stack([gx.ravel(), gy.ravel()])))
    return np.concatenate(pts) if pts else np.empty((0, 2))


_INSET_BOXES = (
    (0.57, 0.14, 0.4, 0.34),  # lower right
    (0.14, 0.52, 0.4, 0.34),  # upper left
    (0.57, 0.52, 0.4, 0.34),  # upper right
    (0.14, 0.14, 0.4, 0.34),  # lower left
    # smaller, where a panel has no corner free
    (0.65, 0.14, 0.32, 0.28),
    (0.14, 0.58, 0.32, 0.28),
    (0.65, 0.58, 0.32, 0.28),
    (0.14, 0.14, 0.32, 0.28),
    (0.14, 0.36, 0.32, 0.28),
    (0.65, 0.36, 0.32, 0.28),
)


def free_box(ax, boxes=_INSET_BOXES, margin=(0.12, 0.09), top=0.07) -> tuple:
    """The first candidate inset box (axes fraction, with room for its labels: ``margin``
    left and below, ``top`` above for its title) that covers no drawn point, else the least
    covered one. Labels that move out of an inset's way (:func:`place_label`) are not
    avoided."""
    movable = [t for t in ax.texts if getattr(t, "anchors", None) and t.get_visible()]
    for note in movable:
        note.set_visible(False)
    pts = occupied(ax)
    for note in movable:
        note.set_visible(True)
    best, best_n = boxes[0], None
    for b in boxes:
        x0, y0, w, h = b
        inside = (
            (
                (pts[:, 0] > x0 - margin[0])
                & (pts[:, 0] < x0 + w + 0.02)
                & (pts[:, 1] > y0 - margin[1])
                & (pts[:, 1] < y0 + h + top)
            )
            if pts.size
            else np.array([], bool)
        )
        n = int(inside.sum())
        if n == 0:
            return b
        if best_n is None or n < best_n:
            best, best_n = b, n
    return best


def make_room(ax, legend, margin: float = 4.0, below: bool = False) -> None:
    """Move the top (``below``: the bottom) of the y axis of ``ax`` until no data point (a
    vertex of a curve, an error bar's end) lies under ``legend`` (or an inset, with its
    labels), placed in axes fraction, or within ``margin`` points of its lower (upper)
    edge: the curves shrink away from it, the legend stays where it is."""
    fig = ax.get_figure(root=True)
    renderer = fig.canvas.get_renderer()
    if isinstance(legend, mpl.axes.Axes):
        lay_out(fig)  # the inset's labels where the layout puts them
        box = legend.get_tightbbox(renderer)
    else:
        box = legend.get_window_extent(renderer)
    box = box.transformed(ax.transAxes.inverted())
    pad = margin * fig.dpi / 72 / ax.get_window_extent(renderer).height
    edge = box.y1 + pad if below else box.y0 - pad  # where the nearest point may come
    if not 0.05 < edge < 0.95:
        return
    pts = occupied(ax, texts=False)
    if not pts.size:
        return
    level = pts[:, 1]
    beside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1)
    beside &= (level < edge) if below else (level > edge) & (level < box.y1)
    under = pts[beside]
    if not under.size:
        return
    lo, hi = ax.get_ylim()
    to_data = (ax.transAxes + ax.transData.inverted()).transform
    k = np.argmin(under[:, 1]) if below else np.argmax(under[:, 1])
    y = to_data(under[k][None, :])[0, 1]
    log = ax.get_yscale() == "log"
    if log and (y <= 0 or lo <= 0):
        return
    f = (lambda v: math.log10(v)) if log else (lambda v: v)  # noqa: E731
    g = (lambda v: 10**v) if log else (lambda v: v)  # noqa: E731
    if below:  # y comes to ``edge``: f(y) = f(new) + edge (f(hi) - f(new))
        new = g((f(y) - edge * f(hi)) / (1 - edge))
        if new < lo:
            ax.set_ylim(new, hi)
        return
    top = g(f(lo) + (f(y) - f(lo)) / edge)
    if top > hi:
        ax.set_ylim(lo, top)
        if log and hi <= 1.5 < top:  # a probability: labelled up to 1
            ax.yaxis.set_major_formatter(_LabelsUpTo(1.0))


#: Where a second legend may go: (loc, bbox_to_anchor), first choice first.
LEGEND_PLACES = (
    ("upper left", (0.0, 0.84)),  # below a legend in the upper left corner
    ("lower right", (1.0, 0.0)),
    ("center right", (1.0, 0.5)),
    ("center left", (0.0, 0.45)),
    ("upper right", (1.0, 1.0)),
)


def free_legend(ax, handles, labels, places=LEGEND_PLACES, **kw) -> None:
    """A second legend (the first kept) at the first of ``places`` where it covers nothing
    drawn (data, texts, the first legend), else where it covers least."""
    first = ax.get_legend()
    renderer = ax.figure.canvas.get_renderer()
    taken = occupied(ax)
    clear = 4.0 * ax.figure.dpi / 72  # points of white to a marker's centre
    best = None
    for loc, anchor in places:
        legend = ax.legend(handles, labels, loc=loc, bbox_to_anchor=anchor, **kw)
        box = legend.get_window_extent(renderer).padded(clear).transformed(ax.transAxes.inverted())
        inside = (
            (taken[:, 0] > box.x0)
            & (taken[:, 0] < box.x1)
            & (taken[:, 1] > box.y0)
            & (taken[:, 1] < box.y1)
        )
        n = int(inside.sum()) if taken.size else 0
        if best is None or n < best[0]:
            best = (n, loc, anchor)
        if n == 0:
            break
    ax.legend(handles, labels, loc=best[1], bbox_to_anchor=best[2], **kw)
    if first is not None:
        ax.add_artist(first)


def _bounds_locator(bounds, parent):
    """An axes locator that puts an inset at ``bounds`` (x0, y0, w, h, axes fraction of
    ``parent``), as :meth:`matplotlib.axes.Axes.inset_axes` does."""

    def locate(inset, _renderer):
        to_figure = parent.transAxes - inset.get_figure(root=False).transSubfigure
        return TransformedBbox(Bbox.from_bounds(*bounds), to_figure)

    return locate


def keep_inside(ax, inset, bounds, pad: float = 2.5) -> tuple:
    """Move ``inset`` (placed at ``bounds``, axes fraction of ``ax``) so that it, with its
    tick labels, axis labels, title and legend, lies inside the frame of ``ax`` and clear
    of its tick marks (``pad`` points more); returns the new bounds. The figure is laid out
    first (its layout engine), so the shift holds in the saved figure."""
    fig = ax.get_figure(root=True)
    lay_out(fig)
    return _moved_inside(ax, inset, bounds, pad, fig.canvas.get_renderer())


def keep_inside_later(ax, inset, bounds, then=None, pad: float = 2.5) -> None:
    """:func:`keep_inside`, when the whole figure is drawn (:func:`settle`, which
    :func:`hyst.plotting.render` calls): all the insets of a figure are measured on one
    layout instead of one each (a figure of four panels with an inset each was laid out
    five times), the layout of the finished figure, titles and legends included. ``then``
    runs after the move (placing labels clear of the inset's new place)."""
    fig = ax.get_figure(root=True)
    _PENDING.setdefault(fig, []).append((ax, inset, tuple(bounds), pad, then))


def settle(fig) -> None:
    """Keep every inset that :func:`keep_inside_later` named inside its panel, on one
    layout of ``fig``, then run their ``then``; nothing if there is none."""
    pending = _PENDING.pop(fig, [])
    if not pending:
        return
    lay_out(fig)
    renderer = fig.canvas.get_renderer()
    for ax, inset, bounds, pad, _then in pending:
        _moved_inside(ax, inset, bounds, pad, renderer)
    for *_rest, then in pending:
        if then is not None:
            then()


#: The insets of each figure still to be kept inside their panels (:func:`settle`).
_PENDING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _moved_inside(ax, inset, bounds, pad, renderer) -> tuple:
    """``inset`` moved inside the frame of ``ax`` on the current layout; its new bounds."""
    fig = ax.get_figure(root=True)
    ticks = max(mpl.rcParams["xtick.major.size"], mpl.rcParams["ytick.major.size"])
    inner = ax.get_window_extent(renderer).padded(-(ticks + pad) * fig.dpi / 72)
    box = inset.get_tightbbox(renderer)
    frame = ax.get_window_extent(renderer)
    dx = max(inner.x0 - box.x0, 0.0) - max(box.x1 - inner.x1, 0.0)
    dy = max(inner.y0 - box.y0, 0.0) - max(box.y1 - inner.y1, 0.0)
    if dx == dy == 0.0:
        return tuple(bounds)
    x0, y0, w, h = bounds
    moved = (x0 + dx / frame.width, y0 + dy / frame.height, w, h)
    inset.set_axes_locator(_bounds_locator(moved, ax))
    return moved


class _LabelsUpTo(mpl.ticker.LogFormatterSciNotation):
    """Decade labels of a log axis up to ``cap`` (a probability's 1), none above it: the
    room above is the legend's."""

    def __init__(self, cap: float):
        super().__init__()
        self.cap = cap

    def __call__(self, x, pos=None):
        return "" if x > self.cap * (1 + 1e-9) else super().__call__(x, pos)
