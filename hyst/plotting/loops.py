"""Figures of self-loop structures: states placed by magnetisation, transitions coloured by
direction (up: an element flips −1 → +1, the magnetisation rises; down: the reverse).

- :func:`fig_fundamental_loops`: the Supplemental's "Ensembles of fundamental self-loops":
  every fundamental loop of L = 4 and L = 6 and a sample of those of L = 8, from a
  ``loops`` study dataset (its stored representatives);
- :func:`draw_state`, :func:`draw_transition`: the drawing primitives, also used for
  the transition graph of one system (``hyst system``).

State positions come from :func:`hyst.loops.layout.cube_positions` (magnetisation
vertical; for n = 3 the Supplemental's hexagon).
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst.loops.layout import magnetisation, state_label, subset_positions
from hyst.plotting.style import new_figure, style

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


def draw_loop(ax, start: int, flips, n: int, *, note: str = "", fontsize: float = 4.5) -> None:
    """One loop (start state, flips) of n elements: its states by magnetisation."""
    states = [int(start)]
    for e in flips[:-1]:
        states.append(states[-1] ^ (1 << int(e)))
    pos = subset_positions(states, n, spacing=1.0 + 0.25 * max(0, n - 3))
    for s, e in zip(states, flips, strict=True):
        nxt = s ^ (1 << int(e))
        draw_transition(ax, pos[s], pos[nxt], direction_color(s, int(e)), shrink=6)
    for s in states:
        draw_state(ax, pos[s], state_label(s, n), fontsize=fontsize)
    xs = [x for x, _m in pos.values()]
    half = max(max(abs(x) for x in xs), 1.0) + 0.8
    ax.set_xlim(-half, half)
    ax.set_ylim(-n - 0.9, n + 0.9)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.minorticks_off()
    for side in ax.spines.values():
        side.set_linewidth(0.4)
        side.set_color("0.6")
    if note:
        ax.text(0.03, 0.03, note, transform=ax.transAxes, ha="left", va="bottom", fontsize=5)


def _loops_of(ds: xr.Dataset, L: int) -> list[tuple[int, int, list[int], dict]]:
    """(n_e, start, flips, realizability) of the stored loops of length L."""
    if "loop_L" not in ds:
        return []
    idx = np.flatnonzero(ds.loop_L.values == L)
    out = []
    checks = {
        name: ds[f"loop_status_{name}"].values
        for name in ("M_R", "M_W")
        if f"loop_status_{name}" in ds
    }
    for k in idx:
        n = int(ds.loop_n_e.values[k])
        flips = [int(e) for e in ds.loop_flips.values[k, :L]]
        status = {name: int(v[k]) for name, v in checks.items()}
        out.append((n, int(ds.loop_start.values[k]), flips, status))
    return out


def _note(status: dict) -> str:
    marks = {1: "yes", 0: "no"}
    parts = [f"{name[2:]}: {marks[v]}" for name, v in status.items() if v in marks]
    return ", ".join(parts)


def fig_fundamental_loops(ds: xr.Dataset, *, sample: int = 12, size=None) -> Figure:
    """Supplemental "Ensembles of fundamental self-loops of different sizes".

    (a) the L = 4 loop, (b) the six L = 6 loops, (c) ``sample`` of the L = 8 loops
    (evenly spaced in the enumeration order, both n_e = 3 loops first). States are
    drawn by magnetisation m = Σ s_i (vertical), up transitions blue, down red; each
    panel notes whether the loop is realizable (R: M_R, W: M_W) when the study
    checked it.
    """
    rows = [(4, _loops_of(ds, 4)), (6, _loops_of(ds, 6))]
    eight = _loops_of(ds, 8)
    three = [x for x in eight if x[0] == 3]
    rest = [x for x in eight if x[0] != 3]
    k = max(0, min(sample - len(three), len(rest)))
    picks = three + [rest[int(i)] for i in np.linspace(0, len(rest) - 1, k).round()] if k else three
    if not rows[0][1] or not rows[1][1] or not picks:
        raise ValueError("the loops study must store the representatives of L = 4, 6 and 8")
    ncols = 6
    eight_rows = -(-len(picks) // ncols)
    with style():
        fig, axes = new_figure(2 + eight_rows, ncols, size or (7.0, 1.35 * (2 + eight_rows)))
        for ax in axes.ravel():
            ax.set_axis_off()
        titles = {
            4: f"(a) L = 4: {len(rows[0][1])} loop",
            6: f"(b) L = 6: {len(rows[1][1])} loops",
            8: f"(c) L = 8: {len(picks)} of {len(eight)} loops",
        }
        placed = [(0, rows[0][1]), (1, rows[1][1][:ncols])]
        placed += [(2 + r, picks[r * ncols : (r + 1) * ncols]) for r in range(eight_rows)]
        for r, loops in placed:
            for c, (n, start, flips, status) in enumerate(loops):
                ax = axes[r, c]
                ax.set_axis_on()
                draw_loop(ax, start, flips, n, note=_note(status))
            L = 4 if r == 0 else 6 if r == 1 else 8
            if r <= 2:
                axes[r, 0].set_title(titles[L], loc="left", fontsize=8)
        handles = [
            axes[0, 0].plot([], [], color=UP_COLOR, label="up transition")[0],
            axes[0, 0].plot([], [], color=DOWN_COLOR, label="down transition")[0],
        ]
        axes[0, 2].legend(handles=handles, loc="center", fontsize=7)
    return fig


def magnetisation_ticks(ax, n: int) -> None:
    """Label the vertical axis with the magnetisation m = −n … n."""
    ms = list(range(-n, n + 1, 2))
    ax.set_yticks(ms)
    ax.set_yticklabels([str(m) for m in ms])
    ax.set_ylabel(r"magnetisation $m = \sum_i s_i$")


__all__ = [
    "DOWN_COLOR",
    "LOOP_COLOR",
    "UP_COLOR",
    "direction_color",
    "draw_loop",
    "draw_state",
    "draw_transition",
    "fig_fundamental_loops",
    "magnetisation",
    "magnetisation_ticks",
]
