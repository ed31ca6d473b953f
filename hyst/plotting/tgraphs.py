"""The share of well-defined parameter space of the general model versus n (a ``tgraphs`` study
dataset), next to the pairwise model's probability to be self-loop free, 1 − P_sl, at large
coupling (a points study over N and NJ0): the general model's version of the paper's central
claim.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst.analysis import plateau_versus_n
from hyst.plotting.panels import select
from hyst.plotting.placement import free_legend
from hyst.plotting.style import new_figure, panel_letter, style

#: Where the legend of a panel may go, first choice first.
LEGEND_CORNERS = (
    ("lower left", (0.0, 0.0)),
    ("upper right", (1.0, 1.0)),
    ("lower right", (1.0, 0.0)),
)

#: Colour and marker of each rule.
RULE_STYLE = {"0": ("#d62728", "o"), "1": ("#1f5fbf", "s"), "1p": ("#2ca02c", "^"),
              "2": ("#9467bd", "D")}  # fmt: skip
RULE_NAMES = {"0": "rule 0", "1": "rule 1", "1p": "rule 1′", "2": "rule 2"}
#: The y label of each definition of a well-defined t-graph.
Y_LABELS = {
    "all_states_stable": "share well defined (every state)",
    "all_transitions": "share well defined (every transition)",
    "stable_states": "share well defined (stable states)",
    "reachable": "share well defined (reachable states)",
}


def _exact(ds, rule, definition, simple):
    """{n: exact share} where counted."""
    out = {}
    for n in ds.n.values if "n" in ds.dims else []:
        v = float(
            ds.share_exact.sel(n=n, rule=rule, definition=definition, simple_self_loops=simple)
        )
        if np.isfinite(v):
            out[int(n)] = v
    return out


def _curve(ax, ds, rule, definition, simple, m) -> list:
    """One rule's shares versus n: exact points filled, sampled ones with their standard
    errors, 95 % upper bounds (open, pointing down) where none was found. Returns the
    values drawn."""
    from hyst.combinatorics.tgraph_orders import Share

    color, marker = RULE_STYLE[rule]
    exact = _exact(ds, rule, definition, simple)
    ns, vals, errs, bounds = [], [], [], []
    for n in ds.n_sampled.values:
        n = int(n)
        if n in exact:
            ns += [n]
            vals += [exact[n]]
            errs += [0.0]
            continue
        k = int(ds.sampled.sel(n_sampled=n, rule=rule, sampled_what=definition,
                                simple_self_loops=simple))  # fmt: skip
        s = Share(k, m)
        if k:
            ns += [n]
            vals += [s.value]
            errs += [s.error]
        else:
            bounds.append((n, s.upper))
    lower = np.minimum(errs, np.asarray(vals) * (1 - 1e-6))  # a log axis: above zero
    ax.errorbar(ns, vals, yerr=np.vstack([lower, errs]) if ns else None, color=color,
                marker=marker, ms=3.5, lw=0.9, elinewidth=0.6, label=RULE_NAMES[rule])  # fmt: skip
    if bounds:
        bn, bv = zip(*bounds, strict=True)
        ax.plot(bn, bv, ls="none", marker="v", mfc="none", mec=color, ms=4, mew=0.7)
    return vals + [b for _n, b in bounds]


def _pairwise(ax, points: xr.Dataset, at: float) -> list:
    """1 − P_sl of the pairwise model versus N at N·J0 = ``at`` (black squares)."""
    d = select(points, couplings="random", spans="hysteron", rule="1")
    res = plateau_versus_n(d, "self_loop_probability", at=at)
    n = np.asarray(res["N"].values, float)
    v = np.asarray(res["complement"].values, float)
    e = np.asarray(res["complement_stderr"].values, float)
    ok = np.isfinite(v) & (v > 0)
    e = np.where(np.isfinite(e), e, 0.0)
    ax.errorbar(n[ok], v[ok], yerr=np.vstack([np.minimum(e, v * (1 - 1e-6))[ok], e[ok]]), color="k",
                marker="s", mfc="none", ms=3.5, lw=0.8, elinewidth=0.6,
                label=rf"pairwise $1-P_{{sl}}$, $NJ_0 = {at:g}$")  # fmt: skip
    return list(v[ok])


def fig_tgraph_shares(
    ds: xr.Dataset,
    points: xr.Dataset | None = None,
    analysis=None,
    *,
    definition: str = "reachable",
    at: float = 100.0,
    size=(7.2, 3.0),
) -> Figure:
    """The share of random switching fields (uniform total orders) with a well-defined
    t-graph versus n, one curve per race-condition rule: (a) simple self-loops allowed,
    (b) forbidden; ``definition`` of :data:`hyst.combinatorics.tgraph_orders.DEFINITIONS`
    (default the Garden-of-Eden-reduced graph, the states reachable from the all-down
    state). Filled: exact counts (n ≤ 3, rules 0 and 2), else sampled with standard errors;
    open triangles pointing down: 95 % upper bounds where no sample was well defined. With a
    points study (random couplings, hysterons, rule 1), panel (a) also shows the pairwise
    model's 1 − P_sl at N·J0 = ``at`` versus N."""
    m = int(ds.attrs["samples"])
    with style():
        fig, axes = new_figure(1, 2, size)
        for ax, simple, title in zip(axes.ravel(), ("allowed", "forbidden"),
                                     ("simple self-loops allowed", "simple self-loops forbidden"),
                                     strict=True):  # fmt: skip
            shown = []
            for rule in RULE_STYLE:
                shown += _curve(ax, ds, rule, definition, simple, m)
            if points is not None and simple == "allowed":
                shown += _pairwise(ax, points, at)
            ax.set_yscale("log")
            positive = [v for v in shown if v > 0]
            if positive:
                ax.set_ylim(min(positive) / 3, 2.0)
            ax.set_xlabel(r"$n$ (hysterons)")
            ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
            # the first corner where the legend covers no curve (the shares fall with n)
            free_legend(ax, *ax.get_legend_handles_labels(), places=LEGEND_CORNERS, fontsize=6)
            panel_letter(ax, 0 if simple == "allowed" else 1, title)
        axes.ravel()[0].set_ylabel(Y_LABELS[definition])
    return fig
