"""Figures of self-loop structures: states placed by magnetisation, transitions coloured by
direction (up: an element flips −1 → +1, the magnetisation rises; down: the reverse).

- :func:`fig_fundamental_loops`: the Supplemental's "Ensembles of fundamental self-loops":
  every fundamental loop of L = 4 and L = 6 and a sample of those of L = 8, from a
  ``loops`` study dataset (its stored representatives);
- :func:`draw_state`, :func:`draw_transition`: the drawing primitives, also used for
  the transition graph of one system (``hyst system``).

State positions come from :func:`hyst.plotting.layout.cube_positions` (magnetisation
vertical; for n = 3 the Supplemental's hexagon).
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from hyst.plotting.layout import magnetisation, state_label, subset_positions
from hyst.plotting.style import panel_letter, style

#: Colours of up and down transitions (the Supplemental: blue up, red down).
UP_COLOR = "#1f5fbf"
DOWN_COLOR = "#d62728"
#: Colour of highlighted self-loop transitions (one system's graph).
LOOP_COLOR = "#ff9f1c"


def draw_state(ax, xy, text: str, *, fontsize: float = 5.0, stable: bool = True, **kw) -> None:
    """A state: its sign string in a small box (dashed box: not potentially stable)."""
    ax.text(
        *xy,
        text,
        ha="center",
        va="center",
        fontsize=fontsize,
        family="monospace",
        zorder=5,
        bbox={
            "boxstyle": "round,pad=0.18",
            "fc": "white",
            "ec": "0.25",
            "lw": 0.5,
            "ls": "-" if stable else "--",
        },
        **kw,
    )


def draw_transition(ax, a, b, color, *, lw: float = 0.9, rad: float = 0.0, shrink: float = 9):
    """An arrow from point a to point b."""
    ax.annotate(
        "",
        xy=b,
        xytext=a,
        zorder=3,
        arrowprops={
            "arrowstyle": "-|>,head_length=0.35,head_width=0.18",
            "color": color,
            "lw": lw,
            "shrinkA": shrink,
            "shrinkB": shrink,
            "connectionstyle": f"arc3,rad={rad}",
        },
    )


def direction_color(state: int, element: int) -> str:
    """Up (−1 → +1) or down colour of flipping ``element`` in ``state``."""
    return DOWN_COLOR if (state >> element) & 1 else UP_COLOR


def draw_loop(ax, start: int, flips, n: int, *, at=(0.0, 0.0), fontsize: float = 4.5) -> None:
    """One loop (start state, flips) of n elements, its states by magnetisation, centred
    at ``at`` (x offset, m offset) in data units."""
    states = [int(start)]
    for e in flips[:-1]:
        states.append(states[-1] ^ (1 << int(e)))
    pos = subset_positions(states, n, spacing=LOOP_SPACING(n))
    pos = {s: (x + at[0], m + at[1]) for s, (x, m) in pos.items()}
    for s, e in zip(states, flips, strict=True):
        nxt = s ^ (1 << int(e))
        draw_transition(ax, pos[s], pos[nxt], direction_color(s, int(e)), shrink=5)
    for s in states:
        draw_state(ax, pos[s], state_label(s, n), fontsize=fontsize)


def LOOP_SPACING(n: int) -> float:  # noqa: N802 - a layout constant per n
    """Horizontal distance of neighbouring states of one loop (labels of n signs)."""
    return 0.8 + 0.3 * n


def _loops_of(ds: xr.Dataset, L: int) -> list[tuple[int, int, int, list[int], dict]]:
    """(index in its cell, n_e, start, flips, realizability) of the stored loops of length L."""
    if "loop_L" not in ds:
        return []
    idx = np.flatnonzero(ds.loop_L.values == L)
    checks = {
        name: ds[f"loop_status_{name}"].values
        for name in ("M_R", "M_W")
        if f"loop_status_{name}" in ds
    }
    out, seen = [], {}
    for k in idx:
        n = int(ds.loop_n_e.values[k])
        seen[n] = seen.get(n, 0) + 1
        flips = [int(e) for e in ds.loop_flips.values[k, :L]]
        status = {name: int(v[k]) for name, v in checks.items()}
        out.append((seen[n], n, int(ds.loop_start.values[k]), flips, status))
    return out


def _note(status: dict) -> str:
    """'R W' for a loop realizable under both, '-' under neither (checked loops only)."""
    marks = [name[2:] for name, v in status.items() if v == 1]
    checked = [v for v in status.values() if v in (0, 1)]
    return " ".join(marks) if marks else ("–" if checked else "")


def _draw_row(ax, loops, *, width: float, y: float = 0.0) -> list[float]:
    """Loops side by side (centres ``width`` apart) at height ``y``, each named "n_e:index"
    (its place in the cell's enumeration order) with its realizability note below it;
    returns the centres."""
    centres = []
    for j, (index, n, start, flips, status) in enumerate(loops):
        x = j * width
        draw_loop(ax, start, flips, n, at=(x, y))
        note = _note(status)
        ax.text(
            x,
            y - n - 0.9,
            f"{n}:{index}" + (f"  {note}" if note else ""),
            ha="center",
            va="top",
            fontsize=5.5,
        )
        centres.append(x)
    return centres


def fig_fundamental_loops(ds: xr.Dataset, *, sample: int = 12, per_row: int = 6, size=None):
    """Supplemental "Ensembles of fundamental self-loops of different sizes".

    (a) the L = 4 loop, (b) the six L = 6 loops, (c) ``sample`` of the L = 8 loops
    (both n_e = 3 loops, then n_e = 4 loops evenly spaced in the enumeration order),
    from a ``loops`` study storing these representatives. Within each loop the states
    are placed by magnetisation m = Σ s_i (vertical, −n_e … n_e) with their signs
    s_0 s_1 …; up transitions blue, down red. Below each loop: "n_e:index" (its
    place in the cell's enumeration order) and, when the study checked it, R and W
    if the loop is realizable in the pairwise model (M_R) and with weak asymmetry
    (M_W), "–" if neither.
    """
    fours, sixes, eights = (_loops_of(ds, L) for L in (4, 6, 8))
    three = [x for x in eights if x[1] == 3]
    rest = [x for x in eights if x[1] != 3]
    k = max(0, min(sample - len(three), len(rest)))
    picks = three + ([rest[int(i)] for i in np.linspace(0, len(rest) - 1, k).round()] if k else [])
    if not (fours and sixes and picks):
        raise ValueError("the loops study must store the representatives of L = 4, 6 and 8")
    rows_c = -(-len(picks) // per_row)
    width = 3 * LOOP_SPACING(4) + 2.0
    with style():
        fig = Figure(figsize=size or (7.2, 1.9 * (1.8 + rows_c)), layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(3, 1, height_ratios=[0.8, 1, rows_c])
        panels = [
            (axes[0], fours, f"L = 4: the {len(fours)} fundamental loop"),
            (axes[1], sixes, f"L = 6: all {len(sixes)} fundamental loops"),
            (axes[2], picks, f"L = 8: {len(picks)} of the {len(eights)} fundamental loops"),
        ]
        for i, (ax, loops, text) in enumerate(panels):
            centres = []
            rows = [loops[r : r + per_row] for r in range(0, len(loops), per_row)]
            height = 2 * 4 + 3.5
            for r, row in enumerate(rows):
                centres += _draw_row(ax, row, width=width, y=-r * height)
            ax.set_xlim(-width / 2, (per_row - 0.5) * width)
            ax.set_ylim(-(len(rows) - 1) * height - 6.2, 4.9)
            ax.set_xticks(sorted(set(centres)))
            ax.set_xticklabels([])
            ax.set_yticks([])
            ax.minorticks_off()
            ax.set_ylabel(r"magnetisation $m$")
            panel_letter(ax, i, text)
        axes[0].legend(
            handles=[
                axes[0].plot([], [], color=UP_COLOR, label="up transition")[0],
                axes[0].plot([], [], color=DOWN_COLOR, label="down transition")[0],
            ],
            loc="center right",
            fontsize=7,
        )
    return fig


def fig_transition_graph(graph, loops, *, size=None) -> Figure:
    """The transition graph of one system (``hyst.model.transition_graph.TransitionGraph`` and the
    :class:`hyst.SelfLoop` list): potentially stable states (solid boxes) and the
    unstable states of the self-loops (dashed boxes) by magnetisation; transitions between
    stable states as arrows, up blue, down red; a transition that ends in a self-loop as
    a dashed arrow to the state where it enters the loop; the loops' own steps thick
    orange; a legend for each of these marks."""
    N = graph.N
    loop_states = {s for loop in loops for s in loop.cycle}
    nodes = set(graph.states) | loop_states
    pos = subset_positions(nodes, N, spacing=LOOP_SPACING(N))
    width = max(abs(x) for x, _m in pos.values()) + LOOP_SPACING(N)
    with style():
        # the legend sits to the right of the graph: 2.3 inches more
        fig = Figure(
            figsize=size or (max(4.0, 0.55 * width + 2.0) + 2.3, max(2.4, 1.0 + 0.55 * (N + 1)))
        )
        FigureCanvasAgg(fig)
        ax = fig.subplots()
        for loop in loops:
            for a, b in zip(loop.cycle, loop.cycle[1:] + loop.cycle[:1], strict=True):
                draw_transition(ax, pos[a], pos[b], LOOP_COLOR, lw=2.0, shrink=8)
        entry = {(src, d): e for loop in loops for src, d, e in loop.entries}
        for t in graph.transitions:
            color = UP_COLOR if t.direction > 0 else DOWN_COLOR
            bend = 0.15 if t.direction > 0 else 0.32  # up and down between the same states apart
            if t.outcome == "stable" and t.target != t.source:
                draw_transition(ax, pos[t.source], pos[t.target], color, rad=bend, shrink=8)
            elif t.outcome == "self_loop":
                ax.annotate(
                    "",
                    xy=pos[entry[(t.source, t.direction)]],
                    xytext=pos[t.source],
                    zorder=3,
                    arrowprops={
                        "arrowstyle": "-|>,head_length=0.35,head_width=0.18",
                        "color": color,
                        "lw": 0.9,
                        "ls": "--",
                        "shrinkA": 8,
                        "shrinkB": 8,
                        "connectionstyle": f"arc3,rad={bend}",
                    },
                )
        for s in nodes:
            draw_state(ax, pos[s], state_label(s, N), fontsize=6, stable=s in graph.states)
        ax.set_xlim(-width, width)
        ax.set_ylim(-N - 1, N + 1)
        ax.set_xticks([])
        magnetisation_ticks(ax, N)
        ax.set_title(
            f"N = {N}, rule {graph.rule}: {len(graph.states)} potentially stable states, "
            f"{len(loops)} self-loop{'s' if len(loops) != 1 else ''}",
            loc="left",
        )
        from matplotlib.patches import Patch

        # one entry for each kind of mark the picture holds
        into_loops = any(t.outcome == "self_loop" for t in graph.transitions)
        handles = [
            Patch(fc="white", ec="0.25", lw=0.5, label="potentially stable state"),
            *[
                Patch(fc="white", ec="0.25", lw=0.5, ls="--", label="unstable state of a loop")
                for _ in [1]
                if loop_states - set(graph.states)
            ],
            ax.plot([], [], color=UP_COLOR, label="up transition (H rises)")[0],
            ax.plot([], [], color=DOWN_COLOR, label="down transition (H falls)")[0],
            *[
                ax.plot([], [], color="0.3", ls="--", label="transition into a self-loop")[0]
                for _ in [1]
                if into_loops
            ],
            *[
                ax.plot([], [], color=LOOP_COLOR, lw=2, label="self-loop step")[0]
                for _ in loops[:1]
            ],
        ]
        ax.legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            fontsize=6,
            borderaxespad=0.0,
        )
    return fig


def magnetisation_ticks(ax, n: int) -> None:
    """Label the vertical axis with the magnetisation m = −n … n."""
    ms = list(range(-n, n + 1, 2))
    ax.set_yticks(ms)
    ax.set_yticklabels([str(m) for m in ms])
    ax.set_ylabel(r"magnetisation $m$")


__all__ = [
    "DOWN_COLOR",
    "LOOP_COLOR",
    "UP_COLOR",
    "direction_color",
    "draw_loop",
    "draw_state",
    "draw_transition",
    "fig_fundamental_loops",
    "fig_transition_graph",
    "magnetisation",
    "magnetisation_ticks",
]
