"""Layout checks of a rendered matplotlib figure, as a reader sees it: no two texts overlap
(titles, axis labels, tick labels, legends, annotations: matplotlib gives each drawn text its
window extent), no text sits on a data point's marker (its drawn disc, with a margin) or on a
data curve or error bar, or crosses the frame of an axes (a spine and the tick marks along
it), and every category that the figure declares (:func:`hyst.plotting.style.declare`), and
every hatched region, has an entry in one of its legends drawn as the figure draws it."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection, LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import Bbox

from hyst.plotting.placement import ticks_once
from hyst.plotting.style import drawn_categories

#: Pixels each text's box is shrunk by before two are compared (glyph boxes include some
#: blank margin; a touch is not an overlap).
SHRINK = 1.5
#: Markers that are parts of error bars (caps), not data points.
CAPS = {"_", "|", "None", "none", "", " ", None}
#: Points of white a text keeps between itself and the edge of a data marker.
MARKER_CLEARANCE = 2.5


def _drawn_ticklabels(axis):
    """The tick labels the axis draws (those of ticks inside the view interval)."""
    ticks = axis._update_ticks()  # the ticks matplotlib draws (private, but what it uses)
    for tick in ticks:
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                yield label


def axes_of(fig) -> list[tuple[str, object]]:
    """(name, Axes) of every visible axes of the figure, insets (child axes, which
    ``fig.axes`` leaves out) included, each after its parent: "axes 2", "axes 2 inset 0"."""
    found = []

    def visit(name, ax):
        if not ax.get_visible():
            return
        found.append((name, ax))
        for k, child in enumerate(ax.child_axes):
            visit(f"{name} inset {k}", child)

    for i, ax in enumerate(fig.axes):
        visit(f"axes {i}", ax)
    return found


def _texts(fig):
    """(name, Text) of every drawn text of the figure."""
    for t in fig.texts:
        yield "figure text", t
    for where, ax in axes_of(fig):
        for t in (ax.title, ax._left_title, ax._right_title):
            yield f"{where} title", t
        if ax.axison:
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
    """Display coordinates of the data markers drawn in ``ax`` (inside its box), and the
    radius of each marker's disc in display units (pixels)."""
    points, radii = [], []
    to_pixels = ax.get_figure(root=True).dpi / 72.0
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in CAPS:
            xy = np.asarray(line.get_xydata(), dtype=float)
            if xy.size:
                points.append(line.get_transform().transform(xy))
                radii.append(np.full(len(xy), line.get_markersize() / 2 * to_pixels))
    for coll in ax.collections:
        if isinstance(coll, PathCollection) and coll.get_visible():
            offsets = np.asarray(coll.get_offsets(), dtype=float)
            if offsets.size:
                points.append(coll.get_offset_transform().transform(offsets))
                sizes = np.asarray(coll.get_sizes(), float)  # areas in points^2
                size = np.resize(sizes if sizes.size else [36.0], len(offsets))
                radii.append(np.sqrt(size) / 2 * to_pixels)
    if not points:
        return np.empty((0, 2)), np.empty(0)
    xy, radius = np.concatenate(points), np.concatenate(radii)
    finite = np.isfinite(xy).all(axis=1)
    xy, radius = xy[finite], radius[finite]
    box = ax.get_window_extent()
    inside = (xy[:, 0] >= box.x0) & (xy[:, 0] <= box.x1) & (xy[:, 1] >= box.y0)
    inside &= xy[:, 1] <= box.y1
    return xy[inside], radius[inside]


def _curves(ax) -> np.ndarray:
    """Display points every pixel or so along the data curves drawn in ``ax``: the lines of
    curves drawn with markers (not reference lines) and error bars, inside its frame and
    not under one of its insets (which hides them)."""
    pieces = []
    for line in ax.lines:
        if line.get_visible() and line.get_marker() not in CAPS:
            if line.get_linestyle() not in ("None", "none", "", " ") and line.get_linewidth() > 0:
                xy = np.asarray(line.get_xydata(), dtype=float)
                if len(xy) > 1:
                    pieces.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if isinstance(coll, LineCollection) and coll.get_visible():
            for segment in coll.get_segments():
                if len(segment) > 1:
                    pieces.append(coll.get_transform().transform(np.asarray(segment, float)))
    points = []
    for xy in pieces:
        for a, b in zip(xy[:-1], xy[1:], strict=True):
            if not (np.isfinite(a).all() and np.isfinite(b).all()):
                continue
            steps = int(min(max(np.hypot(*(b - a)), 1.0), 2000))
            t = np.linspace(0.0, 1.0, steps + 1)[:, None]
            points.append(a + t * (b - a))
    if not points:
        return np.empty((0, 2))
    xy = np.concatenate(points)
    keep = np.ones(len(xy), bool)
    frame = ax.get_window_extent()
    keep &= (xy[:, 0] >= frame.x0) & (xy[:, 0] <= frame.x1)
    keep &= (xy[:, 1] >= frame.y0) & (xy[:, 1] <= frame.y1)
    for inset in ax.child_axes:
        if inset.get_visible():
            box = inset.get_window_extent()
            under = (xy[:, 0] > box.x0) & (xy[:, 0] < box.x1)
            keep &= ~(under & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1))
    return xy[keep]


def _inside(xy, box) -> int:
    """How many of the display points ``xy`` lie strictly inside ``box``."""
    x, y = xy[:, 0], xy[:, 1]
    return int(((x > box.x0) & (x < box.x1) & (y > box.y0) & (y < box.y1)).sum())


def _near(xy, radius, box, clearance) -> int:
    """How many of the discs (centres ``xy``, radii ``radius``) come closer than
    ``clearance`` to ``box``."""
    dx = np.maximum(np.maximum(box.x0 - xy[:, 0], 0.0), xy[:, 0] - box.x1)
    dy = np.maximum(np.maximum(box.y0 - xy[:, 1], 0.0), xy[:, 1] - box.y1)
    return int((np.hypot(dx, dy) < radius + clearance).sum())


def _frame_bands(ax):
    """(side, Bbox) of the band each visible spine of ``ax`` and its major tick marks
    cover, in display units: the spine's line and the ticks' length inwards or outwards."""
    if not ax.get_visible() or not ax.axison:
        return []
    to_pixels = ax.get_figure(root=True).dpi / 72.0
    box = ax.get_window_extent()
    bands = []
    for side, axis, first in (
        ("bottom", ax.xaxis, True),
        ("top", ax.xaxis, False),
        ("left", ax.yaxis, True),
        ("right", ax.yaxis, False),
    ):
        spine = ax.spines[side]
        half = spine.get_linewidth() / 2 * to_pixels
        inward = outward = half if spine.get_visible() else 0.0
        ticks = axis.get_major_ticks()
        if ticks and axis.get_visible():
            tick = ticks[0]
            mark = tick.tick1line if first else tick.tick2line
            if mark.get_visible():
                length = tick._size * to_pixels  # the tick length in points (private)
                inward = max(inward, length if tick.get_tickdir() in ("in", "inout") else 0.0)
                outward = max(outward, length if tick.get_tickdir() in ("out", "inout") else 0.0)
        if inward == outward == 0.0:
            continue
        if side == "bottom":
            bands.append((side, Bbox([[box.x0, box.y0 - outward], [box.x1, box.y0 + inward]])))
        elif side == "top":
            bands.append((side, Bbox([[box.x0, box.y1 - inward], [box.x1, box.y1 + outward]])))
        elif side == "left":
            bands.append((side, Bbox([[box.x0 - outward, box.y0], [box.x0 + inward, box.y1]])))
        else:
            bands.append((side, Bbox([[box.x1 - inward, box.y0], [box.x1 + outward, box.y1]])))
    return bands


def layout_problems(fig) -> list[str]:
    """Every overlap of two texts, every text on a data marker or across the frame (spine
    and tick marks) of an axes of ``fig``, every inset on a data marker, and every declared
    or hatched category that no legend shows as drawn (:func:`legend_problems`); empty:
    clean."""
    if fig.canvas is None or not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    # drawn as the pipeline lays it out (every artist placed, no pixels: the places are
    # those of a rendering, which costs a sixth more)
    with ticks_once():
        fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = _boxes(fig, renderer)
    problems = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if box_a.overlaps(box_b):
                problems.append(f"{a} overlaps {b}")
    every_axes = axes_of(fig)
    for where, ax in every_axes:
        for side, band in _frame_bands(ax):
            for name, box in boxes:
                if box.overlaps(band):
                    problems.append(f"{name} crosses the {side} frame (or its ticks) of {where}")
    clearance = MARKER_CLEARANCE * fig.dpi / 72.0
    insets = [
        (where, ax)
        for where, ax in every_axes
        if " inset " in where or ax.get_subplotspec() is None
    ]
    for where, ax in every_axes:
        xy, radius = _markers(ax)
        if not len(xy):
            continue
        frame = ax.get_window_extent()
        curves = _curves(ax)
        for name, box in boxes:
            # markers are clipped at the frame: only the part of a text inside it can meet one
            box = Bbox.intersection(box, frame)
            covered = _near(xy, radius, box, clearance) if box is not None else 0
            if covered:
                problems.append(f"{name} covers {covered} data marker(s) of {where}")
            elif box is not None and _inside(curves, box):
                problems.append(f"{name} lies on a data curve (or error bar) of {where}")
        for inset_name, inset in insets:
            if where == inset_name or where.startswith(f"{inset_name} inset "):
                continue  # an inset covers its own insets' markers, not its own
            covered = _inside(xy, inset.get_tightbbox(renderer).padded(-SHRINK))  # with labels
            if covered:
                problems.append(f"{inset_name} covers {covered} data marker(s) of {where}")
    return problems + legend_problems(fig)


# --------------------------------------------------------------------------
# legends: every drawn category named, drawn as the figure draws it
# --------------------------------------------------------------------------

#: How far two colours may differ, per RGBA channel, and still be one colour.
COLOUR_TOLERANCE = 0.02
_NO_LINE = {"None", "none", "", " ", None}


def _colour(value) -> tuple:
    """A colour (a name, an RGBA tuple, or a collection's array of them: its first) as a
    rounded RGBA tuple."""
    if isinstance(value, str):
        value = to_rgba(value)
    rgba = np.asarray(value, float).reshape(-1, 4)
    return tuple(np.round(rgba[0], 3)) if rgba.size else (0.0, 0.0, 0.0, 0.0)


def _dashes(linestyle) -> str:
    """'solid' or 'broken' of a Line2D's or a Collection's line style."""
    if isinstance(linestyle, list):  # a collection: [(offset, dashes or None), ...]
        linestyle = linestyle[0] if linestyle else (0, None)
    if isinstance(linestyle, tuple):
        return "solid" if not linestyle[1] else "broken"
    return "solid" if linestyle in ("-", "solid") else "broken"


def look(artist) -> dict:
    """What a reader tells a category by: its fill colour, hatch and hatch colour, line
    colour and style, marker (only what the artist shows)."""
    out = {}
    if isinstance(artist, Line2D):
        if artist.get_linestyle() not in _NO_LINE and artist.get_linewidth() > 0:
            out["line colour"] = _colour(artist.get_color())
            out["line style"] = _dashes(artist.get_linestyle())
        if artist.get_marker() not in CAPS:
            out["marker"] = str(artist.get_marker())
            out["marker colour"] = _colour(artist.get_markeredgecolor())
        return out
    if isinstance(artist, Patch | Collection):
        face = _colour(artist.get_facecolor())
        if face[3] > 0:
            out["fill"] = face
        if artist.get_hatch():
            out["hatch"] = artist.get_hatch()
            out["hatch colour"] = _colour(artist.get_hatchcolor())
        width = np.atleast_1d(artist.get_linewidth())
        edge = _colour(artist.get_edgecolor())
        if "fill" not in out and "hatch" not in out and width.size and width[0] > 0:
            if edge[3] > 0:
                out["line colour"] = edge
                out["line style"] = _dashes(artist.get_linestyle())
    return out


def _same(drawn: dict, shown: dict) -> list[str]:
    """The features of ``drawn`` that ``shown`` (a legend handle's look) lacks or differs in."""
    differ = []
    for key, value in drawn.items():
        other = shown.get(key)
        if isinstance(value, tuple):
            ok = other is not None and np.allclose(value, other, atol=COLOUR_TOLERANCE)
        else:
            ok = other == value
        if not ok:
            differ.append(f"{key} {value!r} (legend: {other!r})")
    return differ


def _legends(fig):
    """Every legend of the figure: of its axes and insets, kept as artists, of the figure."""
    found = list(fig.legends)
    for _where, ax in axes_of(fig):
        for legend in [ax.get_legend(), *[a for a in ax.artists if isinstance(a, Legend)]]:
            if legend is not None and legend.get_visible() and legend not in found:
                found.append(legend)
    return found


def legend_entries(fig) -> list[tuple[str, dict]]:
    """(text, look of its handle) of every entry of every legend of ``fig``."""
    entries = []
    for legend in _legends(fig):
        for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True):
            if handle is not None:
                entries.append((text.get_text(), look(handle)))
    return entries


def _combined_look(artists) -> dict:
    merged = {}
    for artist in artists:
        merged.update(look(artist))
    return merged


def legend_problems(fig) -> list[str]:
    """Every category declared on ``fig`` (:func:`hyst.plotting.style.declare`) that no
    legend entry names with a handle drawn alike, and every hatched region (declared or
    not) whose hatch no legend entry shows."""
    entries = legend_entries(fig)
    problems = []
    for meaning, artists in drawn_categories(fig):
        drawn = _combined_look(artists)
        named = [shown for text, shown in entries if text == meaning]
        if not named:
            problems.append(f"category {meaning!r} ({drawn}) is in no legend")
            continue
        if all(_same(drawn, shown) for shown in named):
            problems.append(
                f"legend entry {meaning!r} is not drawn as the figure draws it: "
                + "; ".join(_same(drawn, named[0]))
            )
    hatches = {(e["hatch"], e["hatch colour"]) for _t, e in entries if "hatch" in e}
    for where, ax in axes_of(fig):
        for artist in [*ax.patches, *ax.collections]:
            shown = look(artist)
            if artist.get_visible() and "hatch" in shown:
                key = (shown["hatch"], shown["hatch colour"])
                if not any(
                    k[0] == key[0] and np.allclose(k[1], key[1], atol=COLOUR_TOLERANCE)
                    for k in hatches
                ):
                    problems.append(f"hatch {key[0]!r} in {where} is in no legend")
                    hatches.add(key)  # said once
    return problems
