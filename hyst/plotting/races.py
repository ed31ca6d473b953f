"""Figures of the races studies: the flip-time rule against the flip-time spread, and the
random-order traps against rule 1's self-loops."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst.catalogue.labels import COUPLING_TITLES
from hyst.plotting.style import SPAN_NAMES, n_colors, new_figure, panel_letter, style

#: The panels of the flip-time figure: (variable, its label).
SPREAD_PANELS = (
    ("self_loop_probability", r"$P_{sl}$"),
    ("self_loop_probability_at_zero", r"$P_{sl}^0$"),
    ("race_condition_probability", r"$P_{\mathrm{RC}}$"),
)
#: Markers of the coupling ensembles in the random-order figure, in the study's order.
MARKERS = "osD^v<>"


def _nearest(values, target: float) -> int:
    values = np.asarray(values, float)
    return int(np.argmin(np.abs(np.log(values) - np.log(target))))


def fig_flip_time_spread(races: xr.Dataset, *, NJ0: float = 10.0, size=None) -> Figure:
    """P_sl, P_sl^0 and P_RC against the flip-time spread D (decades) at the study's N J0
    nearest ``NJ0``, one row per coupling ensemble: one curve per N, solid for the first span
    ensemble, dashed for the others; D = 0 is rule 1. P_RC (several elements unstable after
    the first flip of the avalanche from S0) is decided before any rule acts: it stays flat,
    a check that every spread sees the same systems."""
    k = _nearest(races.NJ0.values, NJ0)
    ds = races.isel(NJ0=k)
    ns = [int(n) for n in ds.N.values]
    colors = n_colors(ns)
    cols = len(ds.couplings)
    size = size or (2.6 * len(SPREAD_PANELS) + 0.3, 2.5 * cols + 0.2)
    x = ds.flip_time_decades.values
    with style():
        fig, axes = new_figure(cols, len(SPREAD_PANELS), size)
        for r, couplings in enumerate(ds.couplings.values):
            for c, (var, label) in enumerate(SPREAD_PANELS):
                ax = axes[r, c]
                for s, spans in enumerate(ds.spans.values):
                    for n in ns:
                        y = ds[var].sel(couplings=couplings, spans=spans, N=n).values
                        ax.plot(
                            x,
                            y,
                            "o-" if s == 0 else "s--",
                            color=colors[n],
                            ms=3,
                            lw=1,
                            label=f"N = {n}, {SPAN_NAMES.get(str(spans), spans)}",
                        )
                ax.set_xlabel("flip-time spread D (decades)")
                ax.set_ylabel(label)
                ax.set_ylim(-0.02, 1.02)
                title = COUPLING_TITLES.get(str(couplings), str(couplings))
                ax.set_title(f"{title}, N J0 = {float(ds.NJ0):g}", fontsize="small")
                panel_letter(ax, r * len(SPREAD_PANELS) + c)
        axes[0, 0].legend(fontsize="x-small", frameon=False)
    return fig


def fig_random_order_traps(races: xr.Dataset, *, size=None) -> Figure:
    """(a) The share of systems that random order can trap (some transition can end in a
    closed set of unstable states) against the share with a rule-1 self-loop, one marker per
    (couplings, spans, N, N J0), colour by N, marker by coupling ensemble, the diagonal
    dotted; (b) the trap share among the systems with a rule-1 self-loop (solid) and among
    those without (dashed), against N J0."""
    ns = [int(n) for n in races.N.values]
    colors = n_colors(ns)
    size = size or (6.4, 2.8)
    with style():
        fig, axes = new_figure(1, 2, size)
        a, b = axes[0]
        for ci, couplings in enumerate(races.couplings.values):
            marker = MARKERS[ci % len(MARKERS)]
            title = COUPLING_TITLES.get(str(couplings), str(couplings))
            for spans in races.spans.values:
                for n in ns:
                    ds = races.sel(couplings=couplings, spans=spans, N=n)
                    total = ds.random_order_systems.values.astype(float)
                    trap = ds.random_order_trappable.values / total
                    loop = ds.random_order_rule1_self_loop.values / total
                    both = ds.random_order_trappable_and_self_loop.values
                    a.plot(loop, trap, marker, color=colors[n], ms=4, label=f"N = {n}, {title}")
                    with np.errstate(invalid="ignore", divide="ignore"):
                        given = both / ds.random_order_rule1_self_loop.values
                        given_not = (ds.random_order_trappable.values - both) / (
                            total - ds.random_order_rule1_self_loop.values
                        )
                    b.plot(ds.NJ0.values, given, marker + "-", color=colors[n], ms=3, lw=1)
                    b.plot(ds.NJ0.values, given_not, marker + "--", color=colors[n], ms=3, lw=1)
        a.plot([0, 1], [0, 1], ":", color="0.5", lw=1)
        a.set_xlabel(r"rule 1: $P_{sl}$")
        a.set_ylabel("random order: share trappable")
        a.set_xlim(-0.02, 1.02)
        a.set_ylim(-0.02, 1.02)
        handles, labels = a.get_legend_handles_labels()
        seen = dict(zip(labels, handles, strict=True))
        a.legend(seen.values(), seen.keys(), fontsize="x-small", frameon=False)
        b.set_xscale("log")
        b.set_xlabel(r"$N J_0$")
        b.set_ylabel("share trappable")
        b.set_ylim(-0.02, 1.02)
        b.plot([], [], "-", color="0.3", lw=1, label="with a rule-1 self-loop")
        b.plot([], [], "--", color="0.3", lw=1, label="without")
        b.legend(fontsize="x-small", frameon=False, loc="center right")
        panel_letter(a, 0)
        panel_letter(b, 1)
    return fig
