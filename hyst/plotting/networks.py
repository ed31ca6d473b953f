"""Figure family: networks of passive and active bilinear elements (Fig. 3, the
Supplemental section "Serially-coupled two-state elements", random serial chains).

Every function returns a matplotlib ``Figure`` (no pyplot state) drawn inside the
house style (:func:`hyst.plotting.style.style`). ``planes`` is the dataset of a
``networks`` study with ``part: planes`` (:func:`hyst.networks.scan.scan_panels`:
dims panel, d1, d2, family), ``chains`` one with ``part: chains``
(:func:`hyst.networks.chains.assemble`). Parameters that the paper's captions fix
(element values, the d values of the transition-graph panels) are keyword defaults.
Self-loop families are filled with the blend of their colours and labelled by their
numbers (SL1–SL6); the passive quadrant is hatched in blue, the symmetric line
d1 = d2 < 0 is orange.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib import colors as mpl_colors
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle
from scipy import ndimage

from hyst.model.systems import INF, QUANTUM
from hyst.model.transition_graph import TransitionGraph
from hyst.networks.elements import SerialChains, force_control_gap
from hyst.networks.mapping import spring_thresholds
from hyst.networks.mechanics import ChainMechanics, mechanical_transition_graph
from hyst.networks.pair import CYCLE_FAMILY, FAMILIES, hysteron_pair_conditions, w_gap
from hyst.plotting.style import (
    declare,
    drawn_categories,
    label,
    n_colors,
    new_figure,
    panel_letter,
    style,
)

#: Colours of the self-loop families and of the Fig. 3d classes.
FAMILY_COLORS = dict(
    zip(FAMILIES, ("#1f77b4", "#17becf", "#d62728", "#ff7f0e", "#2ca02c", "#9467bd"), strict=True)
)
CLASS_COLORS = {1: "#ffffff", 2: "#bdbdbd", 3: "#fff3b0", 4: "#74c476"}
PASSIVE_HATCH = {"hatch": "////", "edgecolor": "#3b6fb6", "facecolor": "none", "lw": 0.0}
SYMMETRIC_COLOR = "#f28e2b"
RED_DOT = (-1.8, 0.6)
STATE_LABELS = {0: "$(--)$", 1: "$(+-)$", 2: "$(-+)$", 3: "$(++)$"}


def _plane_axes(ax, ds):
    ax.set_xlabel(r"$d_1$")
    ax.set_ylabel(r"$d_2$")
    lo, hi = float(ds.d1.min()), float(ds.d1.max())
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")


def _passive_hatch(ax, hi):
    """The passive quadrant d1, d2 > 0, hatched in blue; returns its patch."""
    return ax.add_patch(Rectangle((0, 0), hi, hi, **PASSIVE_HATCH, zorder=3))


def _blend(codes):
    """Colour of a set of families (bitmask over FAMILIES): the mean of their colours."""
    rgb = [mpl_colors.to_rgb(FAMILY_COLORS[f]) for k, f in enumerate(FAMILIES) if codes >> k & 1]
    return tuple(np.mean(rgb, axis=0))


#: What the family planes draw besides the families, as their legend names it.
CONDITIONS_NAME = "the Supplemental's conditions"
DISAGREE_NAME = "scan and conditions disagree"
DISAGREE_COLOR = "#d62728"
#: Points of room a family label keeps: to the frame (its ticks) and to a marked point.
LABEL_ROOM = 6.0


def _label_cells(ax, part, d1, text, avoid) -> tuple[np.ndarray, int, int]:
    """The cells of a region (``part``, a (d1, d2) mask) where its label ``text`` fits
    inside the frame of ``ax``, clear of its tick marks and of the points ``avoid`` (each
    a point and its half width and height of room, data units); and the number of cells to
    keep from the frame along d1 and d2."""
    text_w, text_h = _text_room(ax, d1, text)
    room = LABEL_ROOM * text_h / 3.0  # text_h: 3 points, in data units
    half_w, half_h = text_w + room, text_h + room
    cell = (d1[-1] - d1[0]) / (len(d1) - 1)
    ok = part.copy()
    nx, ny = int(np.ceil(half_w / cell)), int(np.ceil(half_h / cell))
    ok[:nx], ok[-nx:], ok[:, :ny], ok[:, -ny:] = False, False, False, False
    g1, g2 = np.meshgrid(d1, d1, indexing="ij")
    for (x, y), (room_w, room_h) in avoid:
        ok &= (np.abs(g1 - x) > half_w + room_w) | (np.abs(g2 - y) > half_h + room_h)
    return ok, nx, ny


def _text_room(ax, d1, text) -> tuple[float, float]:
    """Half the width and height of a family label (fontsize 6), in data units."""
    fig = ax.get_figure(root=True)
    per_point = (d1[-1] - d1[0]) / (ax.get_position().width * fig.get_figwidth() * 72)
    return 0.5 * 6 * 0.55 * len(text) * per_point, 0.5 * 6 * per_point


def _families(ax, panel, var="attractor", boundaries=None, disagreement=None, avoid=()):
    """Regions of each set of families of one panel, filled with the blend of the family
    colours and labelled by their family numbers (inside the frame, clear of its ticks and
    of the points ``avoid``); optional analytic boundaries (``boundaries`` = variable name,
    black dashed) and cells where ``disagreement`` differs from ``var`` (red hatching)."""
    d1, d2 = panel.d1.values, panel.d2.values
    att = panel[var].values  # (d1, d2, family)
    code = (att * (1 << np.arange(len(FAMILIES)))).sum(axis=-1)
    taken = [(xy, (0.0, 0.0)) for xy in avoid]  # the points and the labels placed so far
    for c in np.unique(code):
        if c == 0:
            continue
        mask = code == c
        ax.contourf(d1, d2, mask.T.astype(float), levels=[0.5, 1.5], colors=[_blend(c)], alpha=0.6)
        parts, n = ndimage.label(mask)
        text = ",".join(f[2] for j, f in enumerate(FAMILIES) if c >> j & 1)
        for k in range(1, n + 1):
            part = parts == k
            if part.sum() < 0.004 * mask.size:
                continue
            depth = ndimage.distance_transform_edt(np.pad(part, 1))[1:-1, 1:-1]
            fits, nx, ny = _label_cells(ax, part, d1, text, taken)
            if fits.any():  # the deepest cell where the label fits
                a, b = np.unravel_index(np.argmax(np.where(fits, depth, 0.0)), depth.shape)
            else:  # the deepest cell, moved in from the frame
                a, b = np.unravel_index(np.argmax(depth), depth.shape)
                a, b = min(max(a, nx), len(d1) - 1 - nx), min(max(b, ny), len(d2) - 1 - ny)
            ax.text(d1[a], d2[b], text, ha="center", va="center", fontsize=6)
            taken.append(((d1[a], d2[b]), _text_room(ax, d1, text)))
    if boundaries is not None:
        for fam in FAMILIES:
            edge = panel[boundaries].sel(family=fam).values.T.astype(float)
            if 0 < edge.sum() < edge.size:
                lines = ax.contour(
                    d1, d2, edge, levels=[0.5], colors="k", linewidths=0.6, linestyles="--"
                )
                declare(ax, CONDITIONS_NAME, lines)
    if disagreement is not None:
        bad = (panel[disagreement] != panel[var]).any("family").values.T.astype(float)
        if bad.any():
            cs = ax.contourf(d1, d2, bad, levels=[0.5, 1.5], colors="none", hatches=["xxxx"])
            cs.set_edgecolor(DISAGREE_COLOR)
            cs.set_linewidth(0.0)
            declare(ax, DISAGREE_NAME, cs)


def _family_legend(fig, extra=()):
    """Figure-level legend of the family colours (regions are labelled by family number),
    the passive hatch, and what else the planes declared (the Supplemental's conditions
    dashed, cells where they disagree with the scan hatched red); ``extra`` handles last."""
    handles = [Patch(color=FAMILY_COLORS[f], alpha=0.6, label=f"SL$_{f[2]}$") for f in FAMILIES]
    handles.append(Patch(**{**PASSIVE_HATCH, "edgecolor": "#3b6fb6"}, label="passive"))
    declared = {meaning for meaning, _artists in drawn_categories(fig)}
    if CONDITIONS_NAME in declared:
        handles.append(Line2D([], [], color="k", lw=0.6, ls="--", label=CONDITIONS_NAME))
    if DISAGREE_NAME in declared:
        handles.append(
            Patch(
                facecolor="none",
                edgecolor=DISAGREE_COLOR,
                hatch="xxxx",
                lw=0.0,
                label=DISAGREE_NAME,
            )
        )
    handles += list(extra)
    ncol = min(len(handles), 9) if fig.get_figwidth() > 5 else 4
    fig.legend(handles=handles, loc="outside upper center", ncol=ncol, fontsize=7)


def _panel_title(panel):
    x1 = (float(panel.x1_minus), float(panel.x1_plus))
    x2 = (float(panel.x2_minus), float(panel.x2_plus))
    return rf"$x_1^\pm = {x1[0]:g},{x1[1]:g}$; $x_2^\pm = {x2[0]:g},{x2[1]:g}$"


def _element_curve(ax, xm, xp, d, color, lim=2.5):
    """Both branches f = x − d s of one element, the jumps as arrows."""
    xs = np.linspace(-lim, xp, 50)
    ax.plot(xs, xs + d, color=color)
    xs = np.linspace(xm, lim, 50)
    ax.plot(xs, xs - d, color=color)
    for x, f0, f1 in ((xp, xp + d, xp - d), (xm, xm - d, xm + d)):
        ax.add_patch(
            FancyArrowPatch(
                (x, f0), (x, f1), arrowstyle="-|>", mutation_scale=7, color=color, lw=0.8
            )
        )
    ax.set_xlabel(r"$x_i$")
    ax.set_ylabel(r"$f_i$")
    ax.set_xlim(-lim, lim)


def fig_element_curves(
    planes: xr.Dataset | None = None,
    *,
    ds_values=(-2.0, -0.5, 0.5, 1.0),
    x=(-1.0, 1.0),
    size=(7.2, 2.0),
):
    """Supplemental: force–displacement curves, d_i = −2, −0.5, 0.5, 1 at (x^−, x^+) = (−1, 1);
    the force range with no stable branch under force control (d < −σ^0/2) shaded. The
    curves follow from the parameters alone (``planes``, the bound study, is not read)."""
    with style():
        fig, axes = new_figure(1, len(ds_values), size)
        for k, (ax, d) in enumerate(zip(axes[0], ds_values, strict=True)):
            color = "#d62728" if d < 0 else "#1f77b4"
            _element_curve(ax, x[0], x[1], d, color)
            gap = force_control_gap(x[0], x[1], d)
            if gap is not None:
                ax.axhspan(gap[0], gap[1], color="#a1d99b", alpha=0.6, lw=0)
            kind = "active" if d < 0 else "passive"
            panel_letter(ax, k, rf"$d_i = {d:g}$ ({kind})")
            ax.set_ylim(-4.5, 4.5)
        return fig


def _spring_panel(ax, k=1, x=(-1.0, 1.0), d=-2.5):
    """One active element and a spring k: force vs U on both branches; a gap
    U^+(△) < U^−(▽) when σ_1 = [(k+1)σ^0 + 2d]/k < 0."""
    chain = SerialChains.from_floats([x[0]], [x[1]], [d], spring=k)
    mech = ChainMechanics(chain)
    p = chain.ratio[0]
    up, down, sigma = (float(v) for v in spring_thresholds(x[0], x[1], d, k))
    for state, lo, hi, ls in ((0, -6.0, up, "-"), (1, down, 6.0, "-")):
        U = np.linspace(lo, hi, 40)
        f = [mech.force(state, int(round(u * p / QUANTUM))) for u in U]
        ax.plot(U, f, color="#d62728", ls=ls)
    f_up = mech.force(0, int(round(up * p / QUANTUM)))
    f_dn = mech.force(1, int(round(down * p / QUANTUM)))
    ax.plot([up], [f_up], marker="^", color="k", ms=5)
    ax.plot([down], [f_dn], marker="v", color="k", ms=5)
    if sigma < 0:
        ax.axvspan(up, down, color="#a1d99b", alpha=0.6, lw=0)
    ax.set_xlabel(r"$U$")
    ax.set_ylabel(r"$f$")
    ax.text(
        0.03,
        0.95,
        rf"$k = {k}$, $d_1 = {d:g}$" + "\n" + rf"$\sigma_1 = {sigma:g}$",
        transform=ax.transAxes,
        va="top",
        fontsize=7,
    )


#: The Fig. 3 classes of two serial elements, as their legend names them.
CLASS_NAMES = {
    1: r"(i) passive, $d_i > 0$",
    2: r"(ii) $\sigma_i < 0$",
    3: "(iii) weakly active",
    4: "(iv) $L = 4$",
}
L4_COLOR = "#238b45"
SYMMETRIC_NAME = r"$d_1 = d_2 < 0$: symmetric $c_{ij}$"


def _passive_handle():
    """The legend's passive region: white, hatched as the plane draws it."""
    return Patch(
        facecolor=CLASS_COLORS[1],
        **{k: v for k, v in PASSIVE_HATCH.items() if k not in ("facecolor", "lw")},
        lw=0.0,
        label=CLASS_NAMES[1],
    )


def _symmetric_line(ax, lo):
    """The orange line d1 = d2 < 0 (active elements that map to symmetric couplings)."""
    (line,) = ax.plot([lo, 0], [lo, 0], color=SYMMETRIC_COLOR, lw=1.2)
    declare(ax, SYMMETRIC_NAME, line)


def _classes(ax, panel):
    """The four classes (i)-(iv) of two serial elements in the (d1, d2) plane, the outline of
    every L = 4 loop (also inside (ii)), the passive quadrant hatched and the line d1 = d2 < 0."""
    cls = panel.behaviour.values.T
    d1, d2 = panel.d1.values, panel.d2.values
    hi = float(d1.max())
    hatch = Rectangle((0, 0), hi, hi, **PASSIVE_HATCH, zorder=3)
    for code, color in CLASS_COLORS.items():
        mask = (cls == code).astype(float)
        if mask.any():
            fill = ax.contourf(d1, d2, mask, levels=[0.5, 1.5], colors=[color])
            declare(ax, CLASS_NAMES[code], fill, *((hatch,) if code == 1 else ()))
    l4 = panel.attractor.sel(family=["SL5", "SL6"]).any("family").values.T.astype(float)
    outline = ax.contour(d1, d2, l4, levels=[0.5], colors=L4_COLOR, linewidths=0.8)
    declare(ax, L4_OUTLINE, outline)
    ax.add_patch(hatch)
    _symmetric_line(ax, float(d1.min()))


L4_OUTLINE = "outline of the $L = 4$ loops"


def _hysteron_l4(ax, d1, d2, h1c, h2c, sigma, **contour):
    """L = 4 region (SL5 ∪ SL6) of two hysterons with c12 = −d2, c21 = −d1."""
    D1, D2 = np.meshgrid(d1, d2, indexing="ij")
    q = lambda v: np.rint(np.asarray(v) / QUANTUM).astype(np.int64)  # noqa: E731
    cond = hysteron_pair_conditions(
        q(h1c + sigma[0] / 2),
        q(h1c - sigma[0] / 2),
        q(h2c + sigma[1] / 2),
        q(h2c - sigma[1] / 2),
        q(-D2),
        q(-D1),
    )
    mask = (cond["SL5"] | cond["SL6"]).T.astype(float)
    if contour.pop("fill", False):
        return ax.contourf(d1, d2, mask, levels=[0.5, 1.5], **contour)
    return ax.contour(d1, d2, mask, levels=[0.5], **contour)


def _loop_diagram(ax, order, title):
    """An L = 4 loop as arrows around the square of the four states."""
    pos = {0: (0, 0), 1: (-0.62, 1), 2: (0.62, 1), 3: (0, 2)}
    for s, (x, y) in pos.items():
        ax.text(
            x,
            y,
            STATE_LABELS[s],
            ha="center",
            va="center",
            fontsize=7,
            bbox={"boxstyle": "round", "fc": "white", "ec": "0.4", "lw": 0.5},
        )
    for a, b in zip(order, order[1:] + order[:1], strict=True):
        ax.add_patch(
            FancyArrowPatch(
                pos[a],
                pos[b],
                arrowstyle="-|>",
                mutation_scale=8,
                shrinkA=11,
                shrinkB=11,
                color="#238b45",
                lw=1.0,
            )
        )
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-0.9, 2.4)
    ax.axis("off")
    ax.text(0, -0.75, title, ha="center", fontsize=8)


def fig3_networks(planes: xr.Dataset, *, red_dot=RED_DOT, size=(7.2, 6.0)):
    """Fig. 3 (b, e, g, d, f of the paper): top, the element curves of a passive and an
    active element, the gap of one active element with a spring and the two L = 4 loops;
    below, the four classes of two serial elements in the (d1, d2) plane and the L = 4
    regions of two hysterons; one legend below names every region, line and the red dot."""
    panel = planes.sel(panel="fig3d")
    x1 = (float(panel.x1_minus), float(panel.x1_plus))
    x2 = (float(panel.x2_minus), float(panel.x2_plus))
    with style():
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(2, 4, height_ratios=(1, 1.9))
        # created in reading order, left to right, top to bottom: the panel letters
        ax_a = fig.add_subplot(grid[0, 0])
        ax_b = fig.add_subplot(grid[0, 1])
        ax_spring = fig.add_subplot(grid[0, 2])
        ax_loops = fig.add_subplot(grid[0, 3])
        ax_classes = fig.add_subplot(grid[1, :2])
        ax_pair = fig.add_subplot(grid[1, 2:])
        _element_curve(ax_a, -1.0, 1.0, 0.5, "#1f77b4")
        panel_letter(ax_a, 0, r"passive, $d_i > 0$")
        _element_curve(ax_b, -1.0, 1.0, -0.5, "#d62728")
        panel_letter(ax_b, 1, r"active, $d_i < 0$")
        _spring_panel(ax_spring)
        panel_letter(ax_spring, 2, "with a spring (3e)")
        inner = ax_loops.inset_axes([0.0, 0.0, 0.5, 1.0])
        inner2 = ax_loops.inset_axes([0.5, 0.0, 0.5, 1.0])
        ax_loops.axis("off")
        _loop_diagram(inner, [0, 1, 3, 2], "SL$_5$")
        _loop_diagram(inner2, [0, 2, 3, 1], "SL$_6$")
        panel_letter(ax_loops, 3, "$L = 4$ loops (3g)")
        _classes(ax_classes, panel)
        (dot,) = ax_classes.plot(*red_dot, "o", color="#d62728", ms=4, zorder=5)
        _plane_axes(ax_classes, panel)
        panel_letter(ax_classes, 4, "two elements in series (Fig. 3d)")
        d1, d2 = panel.d1.values, panel.d2.values
        h1c, h2c = x1[0] + x1[1], x2[0] + x2[1]
        spans = (2 * (x1[1] - x1[0] + red_dot[0]), 2 * (x2[1] - x2[0] + red_dot[1]))
        spans_text = rf"$\sigma = ({spans[0]:.1f}, {spans[1]:.1f})$"
        green = _hysteron_l4(ax_pair, d1, d2, h1c, h2c, (0.0, 0.0), fill=True, colors=["#74c476"])
        declare(ax_pair, PAIR_L4_ZERO, green)
        red = _hysteron_l4(ax_pair, d1, d2, h1c, h2c, spans, colors="#d62728", linewidths=1.0)
        declare(ax_pair, PAIR_L4_DOT.format(spans=spans_text), red)
        hatch = _passive_hatch(ax_pair, float(d1.max()))
        declare(ax_pair, CLASS_NAMES[1], hatch)
        _symmetric_line(ax_pair, float(d1.min()))
        (dot_f,) = ax_pair.plot(*red_dot, "o", color="#d62728", ms=4, zorder=5)
        dot_name = rf"red dot: $(d_1, d_2) = ({red_dot[0]:g}, {red_dot[1]:g})$, {spans_text}"
        declare(ax_classes, dot_name, dot)
        declare(ax_pair, dot_name, dot_f)
        _plane_axes(ax_pair, panel)
        ax_pair.set_xlabel(r"$d_1 = -c_{21}$")
        ax_pair.set_ylabel(r"$d_2 = -c_{12}$")
        panel_letter(ax_pair, 5, "two hysterons, $L = 4$ (Fig. 3f)")
        handles = [
            _passive_handle(),
            *(
                Patch(facecolor=CLASS_COLORS[c], edgecolor="0.5", lw=0.4, label=CLASS_NAMES[c])
                for c in (2, 3, 4)
            ),
            Line2D([], [], color=L4_COLOR, lw=0.8, label=L4_OUTLINE),
            Line2D([], [], color=SYMMETRIC_COLOR, lw=1.2, label=SYMMETRIC_NAME),
            Patch(facecolor="#74c476", label=PAIR_L4_ZERO),
            Line2D([], [], color="#d62728", lw=1.0, label=PAIR_L4_DOT.format(spans=spans_text)),
            Line2D([], [], ls="", marker="o", color="#d62728", ms=4, label=dot_name),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=6.5)
        return fig


#: What (f) draws: the L = 4 region of two hysterons without spans, and its edge with the
#: spans of the red dot's elements.
PAIR_L4_ZERO = r"(f) $L = 4$ at $\sigma_i = 0$"
PAIR_L4_DOT = "(f) edge of $L = 4$ at {spans}"


def _switching_chart(ax, graph: TransitionGraph, attractors, lim):
    """Stability ranges (U^−(S), U^+(S)) of the four states as bars, the transitions of
    the graph as arrows (blue up, red down), and the drive intervals with a limit cycle
    as bands labelled by family (two serial elements, H = U)."""
    for S in range(4):
        ax.axhline(S, color="0.85", lw=0.5)
    for S, lo, hi in zip(graph.states, graph.h_minus, graph.h_plus, strict=True):
        a = -lim if lo <= -INF else lo * QUANTUM
        b = lim if hi >= INF else hi * QUANTUM
        ax.plot([a, b], [S, S], color="k", lw=3, solid_capstyle="butt")
    for t in graph.transitions:
        x = t.field[0] * QUANTUM
        if t.target >= 0:
            ax.add_patch(
                FancyArrowPatch(
                    (x, t.source),
                    (x, t.target),
                    arrowstyle="-|>",
                    mutation_scale=6,
                    lw=0.7,
                    color="#3b6fb6" if t.direction > 0 else "#d62728",
                )
            )
        elif t.outcome == "self_loop":
            ax.plot([x], [t.source], marker="o", mfc="none", color="#238b45", ms=6)
    spans = []  # (family, low, high) with consecutive intervals merged
    for lo, hi, cycles in attractors:
        for cycle, _L, _n in cycles:
            fam = CYCLE_FAMILY.get(cycle)
            if fam is None:
                continue
            last = next((sp for sp in reversed(spans) if sp[0] == fam), None)
            if last is not None and last[2] == lo:
                last[2] = hi
            else:
                spans.append([fam, lo, hi])
    for fam, lo, hi in spans:
        a = max(-lim, lo * QUANTUM / 2)
        b = min(lim, hi * QUANTUM / 2)
        ax.axvspan(a, b, color=FAMILY_COLORS[fam], alpha=0.3, lw=0)
        ax.text(
            0.5 * (a + b), 3.45, f"SL$_{fam[2]}$", ha="center", fontsize=6, color=FAMILY_COLORS[fam]
        )
    ax.set_yticks(range(4), [STATE_LABELS[s] for s in range(4)])
    ax.set_ylabel("state")
    ax.set_ylim(-0.5, 3.8)
    ax.set_xlim(-lim, lim)
    ax.set_xlabel(r"$U$")


def _chart(ax, x1, x2, d1, d2, lim):
    from hyst.networks.mechanics import drive_range_attractors

    chain = SerialChains.from_floats([x1[0], x2[0]], [x1[1], x2[1]], [d1, d2])
    _switching_chart(ax, mechanical_transition_graph(chain), drive_range_attractors(chain), lim)


def fig_spin_like(
    planes: xr.Dataset,
    *,
    chart_panel="spin_1",
    chart_jumps=((-2.0, 2.0), (-2.0, -2.0), (2.0, -2.0)),
    size=(7.2, 4.6),
):
    """Supplemental, spin-like elements: (a) families in the (d1, d2) plane for x_1^c = 0 and
    x_2^c = 0.5, 1, 2; (b) switching fields and transition graphs at d_i = ±2 (x_2^c = 1)."""
    names = ("spin_0.5", "spin_1", "spin_2")
    with style():
        fig, axes = new_figure(2, 3, size)
        charts = f"({chr(ord('a') + 3)})-({chr(ord('a') + 2 + len(chart_jumps))})"
        marked = rf"$(d_1, d_2)$ of {charts}"
        for k, name in enumerate(names):
            panel = planes.sel(panel=name)
            _families(axes[0, k], panel, boundaries="paper", avoid=chart_jumps)
            _passive_hatch(axes[0, k], float(panel.d1.max()))
            _plane_axes(axes[0, k], panel)
            panel_letter(axes[0, k], k, rf"$x_2^c = {float(panel.x2_plus):g}$")
            (crosses,) = axes[0, k].plot(*np.transpose(chart_jumps), "x", ls="", color="k", ms=4)
            declare(axes[0, k], marked, crosses)
        _family_legend(fig, [Line2D([], [], ls="", marker="x", color="k", ms=4, label=marked)])
        panel = planes.sel(panel=chart_panel)
        x1 = (float(panel.x1_minus), float(panel.x1_plus))
        x2 = (float(panel.x2_minus), float(panel.x2_plus))
        for k, (d1, d2) in enumerate(chart_jumps):
            _chart(axes[1, k], x1, x2, d1, d2, lim=6.0)
            panel_letter(axes[1, k], 3 + k, rf"$d_1 = {d1:g}$, $d_2 = {d2:g}$")
        return fig


#: The Supplemental's four rows of hysteretic panels (panel names of ``PAPER_PANELS``).
HYSTERETIC_ROWS = (
    ("a_0.75", "a_1.5", "a_2"),
    ("b_0", "b_0.625", "b_1.2"),
    ("c_0.1", "c_0.25", "c_0.85"),
    ("d_1.2", "d_1.6", "d_2"),
)


def fig_hysteretic(planes: xr.Dataset, *, size=(7.2, 9.4)):
    """Supplemental, hysteretic elements: rows (a)–(d) varying x_2^+, x_2^c, σ_2^0, σ_1^0;
    families from the drive-range scan (filled) and the Supplemental's analytic
    boundaries (dashed); cells where they disagree are hatched in red (each one fails a
    race inequality R1–R4 of ``hyst.networks.pair.l4_race_conditions``)."""
    with style():
        fig, axes = new_figure(4, 3, size)
        for r, row in enumerate(HYSTERETIC_ROWS):
            for k, name in enumerate(row):
                ax = axes[r, k]
                panel = planes.sel(panel=name)
                _families(ax, panel, boundaries="paper", disagreement="paper")
                _passive_hatch(ax, float(panel.d1.max()))
                _plane_axes(ax, panel)
                letter = chr(ord("a") + 3 * r + k)
                ax.set_title(
                    f"({letter}) row {'abcd'[r]}: " + _panel_title(panel), loc="left", fontsize=7
                )
        _family_legend(fig)
        return fig


def fig_summary(planes: xr.Dataset, *, panel_name="summary", size=(3.6, 3.4)):
    """Supplemental summary panel (x_1^± = ±1, x_2^± = 0.5, 0.75): families and the lines
    of the analytic conditions: d_i = −σ_i^0 (L = 2), d_1 = W and d_2 = W (L = 4) with
    W = min(x_2^− − x_1^+, x_1^− − x_2^+)."""
    panel = planes.sel(panel=panel_name)
    x1m, x1p, x2m, x2p = (float(panel[k]) for k in ("x1_minus", "x1_plus", "x2_minus", "x2_plus"))
    W = float(w_gap(x1m, x1p, x2m, x2p))
    with style():
        fig, axes = new_figure(1, 1, size)
        ax = axes[0, 0]
        _families(ax, panel, boundaries="paper")
        _passive_hatch(ax, float(panel.d1.max()))
        lo, hi = float(panel.d1.min()), float(panel.d1.max())
        for v, kw in ((-(x1p - x1m), {"ls": ":"}), (W, {"ls": "-."})):
            ax.axvline(v, color="0.2", lw=0.8, **kw)
        for v, kw in ((-(x2p - x2m), {"ls": ":"}), (W, {"ls": "-."})):
            ax.axhline(v, color="0.2", lw=0.8, **kw)
        ax.text(W, hi - 0.3, r" $d_1 = W$", fontsize=7)
        ax.text(lo + 0.1, W + 0.08, r"$d_2 = W$", fontsize=7)
        _plane_axes(ax, panel)
        ax.set_title("(a) " + _panel_title(panel) + rf", $W = {W:g}$", fontsize=7, loc="left")
        _family_legend(fig)
        return fig


def fig_symmetric(
    planes: xr.Dataset, *, panel_name="summary", jumps=(-1.0, -0.5, 0.1), size=(7.2, 4.2)
):
    """Supplemental, symmetric elements d_1 = d_2 = d: self-loops along the diagonal (top;
    none for d > −min σ_i^0) and switching fields and transition graphs at d = −1, −0.5, 0.1."""
    panel = planes.sel(panel=panel_name)
    x1 = (float(panel.x1_minus), float(panel.x1_plus))
    x2 = (float(panel.x2_minus), float(panel.x2_plus))
    from hyst.networks.scan import cell_centres, symmetric_line

    d = cell_centres(float(panel.d1.min()), float(panel.d1.max()), 480)
    line = symmetric_line(x1, x2, d)
    threshold = -min(x1[1] - x1[0], x2[1] - x2[0])
    with style():
        fig = Figure(figsize=size, layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(2, 3, height_ratios=(1, 2.2))
        top = fig.add_subplot(grid[0, :])
        for k, fam in enumerate(FAMILIES):
            on = line.attractor.sel(family=fam).values
            top.fill_between(d, k, k + 0.8, where=on, color=FAMILY_COLORS[fam], step="mid")
        top.axvline(threshold, color="k", lw=0.8, ls="--")
        top.text(
            threshold,
            6.75,
            rf" $d = -\min_i \sigma_i^0 = {threshold:g}$",
            fontsize=7,
            va="center",
        )
        top.set_xlim(float(d.min()), float(d.max()))
        top.set_yticks(np.arange(6) + 0.4, [f"SL$_{f[2]}$" for f in FAMILIES], fontsize=6)
        top.set_xlabel(r"$d_1 = d_2 = d$")
        top.set_ylabel("family")
        top.set_ylim(0, 8.0)  # room for the threshold's label, clear of the top ticks
        panel_letter(top, 0, _panel_title(panel))
        for k, dv in enumerate(jumps):
            ax = fig.add_subplot(grid[1, k])
            _chart(ax, x1, x2, dv, dv, lim=4.0)
            panel_letter(ax, k + 1, rf"$d = {dv:g}$")
        return fig


def _points(ax, phi, sel, name: str, fmt: str, color, **kw):
    """Observable ``name`` ± its standard error versus φ at one N (labelled by N)."""
    n = f"{int(sel.N)}"
    ax.errorbar(phi, sel[name], sel[f"{name}_stderr"], fmt=fmt, **kw, color=color, ms=3, label=n)


def fig_chains(chains: xr.Dataset, *, size=(7.2, 2.6)):
    """Beyond the paper: random serial chains. (a) P_sl versus φ for several N (markers:
    every transition, N ≤ 18; open: saturated loop) with the exact probability of a
    negative span (lines); (b) P_g^0; (c) fraction of the self-loops with n_e ≥ 2."""
    Ns = [int(n) for n in chains.N.values]
    colors = n_colors(Ns)
    phi = chains.phi.values
    with style():
        fig, axes = new_figure(1, 3, size)
        a, b, c = axes[0]
        for N in Ns:
            sel = chains.sel(N=N)
            a.plot(phi, sel.negative_span_probability_exact, color=colors[N], lw=0.8)
            if np.isfinite(sel.self_loop_probability).any():
                _points(a, phi, sel, "self_loop_probability", "o", colors[N])
                _points(b, phi, sel, "gap_probability_at_zero", "o-", colors[N])
                ne = sel.self_loop_n_e
            else:
                _points(a, phi, sel, "saturated_loop_probability", "s", colors[N], mfc="none")
                ne = sel.saturated_loop_n_e
            total = ne.sum("n_e").values
            multi = ne.isel(n_e=slice(2, None)).sum("n_e").values
            frac = np.where(total > 0, multi / np.maximum(total, 1), np.nan)
            c.plot(phi, 1e3 * frac, "o-", color=colors[N], ms=3)
        a.set_xlabel(r"$\phi$")
        a.set_ylabel(label("self_loop_probability"))
        handles, labels = a.get_legend_handles_labels()  # N: beside (b)'s rising curves
        b.legend(handles, labels, title="$N$", ncol=2, fontsize=6, loc="upper left")
        shapes = [
            Line2D([], [], color="0.3", lw=0.8),
            Line2D([], [], color="0.3", marker="o", ls="none", ms=3),
            Line2D([], [], color="0.3", marker="s", mfc="none", ls="none", ms=3),
        ]
        meanings = [
            "exact: a negative span",
            "sampled: every transition",
            "sampled: the saturated loop",
        ]
        present = [True, *[any(line.get_marker() == m for line in a.lines) for m in ("o", "s")]]
        a.legend(
            [h for h, p in zip(shapes, present, strict=True) if p],
            [t for t, p in zip(meanings, present, strict=True) if p],
            fontsize=6,
            loc="lower right",
        )
        panel_letter(a, 0)
        b.set_xlabel(r"$\phi$")
        b.set_ylabel(label("gap_probability_at_zero"))
        panel_letter(b, 1)
        c.set_xlabel(r"$\phi$")
        c.set_ylabel(r"$10^3\times$ share of loops with $n_e \geq 2$")
        panel_letter(c, 2)
        return fig
