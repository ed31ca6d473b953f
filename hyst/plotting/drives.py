"""Pictures of one system under a drive protocol: the magnetisation m(H) along the drive
(every avalanche a vertical jump at its switching field), and the period T of the
symmetric drive against its amplitude A (the amplitude sweep). They read the datasets
of :mod:`hyst.systems.drives` (fields dimensionless: the datasets' field_unit)."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from hyst.plotting.loops import DOWN_COLOR, LOOP_COLOR, UP_COLOR, magnetisation_ticks
from hyst.plotting.style import new_figure, style

#: Colour of the legs of a cyclic drive before its orbit (the transient).
TRANSIENT_COLOR = "#9a9a9a"


def response_path(ds: xr.Dataset, margin: float):
    """The polyline (H, m) of each leg: horizontal between events, vertical at each
    avalanche; the first leg starts ``margin`` before its first field (it comes from
    saturation at ∓inf). Returns a list of (leg, H values, m values)."""
    N = int(ds.attrs["N"])
    turning = ds.turning_field.values
    directions = ds.leg_direction.values
    ev_leg = ds.event_leg.values
    H, m_after = ds.H.values, ds.m.values
    m = -N if directions[0] > 0 else N
    first = np.concatenate([turning[:1], H[ev_leg == 0]])
    at = (first.min() - margin) if directions[0] > 0 else (first.max() + margin)
    paths = []
    for leg in range(turning.shape[0]):
        xs, ys = [at], [m]
        for k in np.nonzero(ev_leg == leg)[0]:
            xs += [H[k], H[k]]
            ys += [m, m_after[k]]
            m = m_after[k]
        stopped = ds.outcome.values[ev_leg == leg]
        if not (stopped.size and stopped[-1] != "stable"):
            xs.append(turning[leg])
            ys.append(m)
            at = turning[leg]
        paths.append((leg, np.array(xs), np.array(ys)))
    return paths


def fig_response(ds: xr.Dataset, *, size=(4.2, 3.0)) -> Figure:
    """m(H) along a drive: up legs blue, down legs red; for a cyclic drive the transient
    is grey and the orbit coloured; a self-loop that stopped the drive is marked where it
    started, with its L and n_e."""
    a = ds.attrs
    N = int(a["N"])
    fields = np.concatenate([ds.turning_field.values, ds.H.values])
    fields = fields[np.isfinite(fields)]
    span = float(np.ptp(fields)) if fields.size else 1.0
    margin = 0.08 * (span or 1.0)
    pre, per = int(a.get("preamble_legs", 0)), int(a.get("cycle_legs", 0))
    orbit_from = pre + per * int(a["transient"]) if a["outcome"] == "orbit" else None
    with style():
        fig, axes = new_figure(1, 1, size)
        ax = axes[0, 0]
        drawn = {}
        for leg, xs, ys in response_path(ds, margin):
            up = ds.leg_direction.values[leg] > 0
            kind = "H increasing" if up else "H decreasing"
            if orbit_from is not None and leg < orbit_from:
                kind = "transient"
            color = {"H increasing": UP_COLOR, "H decreasing": DOWN_COLOR}.get(
                kind, TRANSIENT_COLOR
            )
            ax.plot(xs, ys, color=color, lw=1.0, solid_joinstyle="miter")
            drawn[kind] = color
        order = ("H increasing", "H decreasing", "transient")
        handles = [Line2D([], [], color=drawn[k], label=k) for k in order if k in drawn]
        if "stopped_by" in a:
            k = ds.sizes["event"] - 1
            x, y = float(ds.H[k]), float(ds.m[k])
            what = (
                f"self-loop, $L$ = {a['self_loop_L']}, $n_e$ = {a['self_loop_n_e']}"
                if a["stopped_by"] == "self_loop"
                else "ill-defined (rule 0)"
            )
            ax.plot([x], [y], marker="X", ms=8, color=LOOP_COLOR, ls="none", zorder=5)
            handles.append(
                Line2D([], [], marker="X", ms=7, color=LOOP_COLOR, ls="none", label=what)
            )
        if N <= 12:
            magnetisation_ticks(ax, N)
        else:
            ax.yaxis.set_major_locator(MaxNLocator(nbins=8, steps=[2, 4, 5, 10]))
            ax.set_ylabel(r"magnetisation $m$")
        ax.set_ylim(-N - 0.6, N + 0.6)
        ax.set_xlabel(r"field $H$")
        title = a["protocol"]
        if a["outcome"] == "orbit":
            title += f": $\\tau$ = {a['transient']}, $T$ = {a['period']}"
        ax.set_title(title, fontsize=7)
        ax.legend(handles=handles, loc="upper left", fontsize=6)
    return fig


def fig_sweep(ds: xr.Dataset, *, size=(4.2, 2.6)) -> Figure:
    """The period T of the symmetric drive at every distinct amplitude A (a step: the
    response is the same up to the next amplitude); amplitudes where a self-loop stopped
    the drive marked orange; the critical amplitude (first T > 1) dashed."""
    A = ds.amplitude.values
    nxt = ds.next_amplitude.values
    last = A[-1] + 0.1 * (A[-1] - A[0] or 1.0) if A.size else 1.0
    ends = np.where(np.isfinite(nxt), nxt, last)
    orbit = ds.outcome.values == "orbit"
    with style():
        fig, axes = new_figure(1, 1, size)
        ax = axes[0, 0]
        for q in np.nonzero(orbit)[0]:
            ax.plot([A[q], ends[q]], [ds.period.values[q]] * 2, color="black", lw=1.2)
        handles = [Line2D([], [], color="black", label="orbit, period $T$")]
        loops = np.nonzero(ds.outcome.values == "self_loop")[0]
        if loops.size:
            ax.plot(A[loops], np.ones(loops.size), "X", color=LOOP_COLOR, ms=6)
            handles.append(
                Line2D([], [], marker="X", color=LOOP_COLOR, ls="none", label="self-loop")
            )
        crit = ds.attrs["critical_amplitude"]
        if np.isfinite(crit):
            ax.axvline(crit, color="0.4", ls="--", lw=0.8)
            handles.append(
                Line2D([], [], color="0.4", ls="--", lw=0.8, label=f"$A_c$ = {crit:.4g}")
            )
        if not A.size:
            ax.text(
                0.5,
                0.5,
                f"no amplitude driven: the rise from saturation\nto H = 0 ended in a "
                f"{ds.attrs['preamble'].replace('_', '-')}",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize=7,
            )
        top = max(2, int(ds.period.values.max(initial=1)))
        ax.set_yticks(range(1, top + 1))
        ax.minorticks_off()
        ax.set_ylim(0.5, top + 0.6)
        ax.set_xlabel(r"amplitude $A$")
        ax.set_ylabel(r"period $T$")
        ax.set_title(f"{ds.attrs['protocol']}, rule {ds.attrs['rule']}", fontsize=7)
        if A.size:
            ax.legend(handles=handles, loc="upper left", fontsize=6)
    return fig
