"""Figures of points studies swept over N and N·J0: Fig. 2 and its Supplemental replicas,
race conditions, stable states, gaps versus self-loops, race-condition rules and rule 2,
and P_sl beyond the paper's sizes (Fig. 2's inset extended).

Each function takes the bound study datasets (one per need of its figure type,
:mod:`hyst.plotting.registry`) and the optional analyses, and returns a
:class:`matplotlib.figure.Figure`. Reference slopes default to the paper's
(:mod:`hyst.catalogue`) for the ensemble shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst import catalogue
from hyst.analysis import plateau_versus_n
from hyst.catalogue.labels import COUPLING_TITLES, RULE_TITLES
from hyst.plotting.panels import (
    analysis_for,
    inset_complement,
    loglog_panel,
    n_legend,
    nearest,
    observable_curves,
    select,
    selection,
)
from hyst.plotting.placement import free_legend, make_room
from hyst.plotting.style import (
    CMAP,
    SPAN_COLORS,
    SPAN_NAMES,
    SPAN_TITLES,
    decade_ticks,
    n_colors,
    new_figure,
    panel_letter,
    style,
)
from hyst.plotting.style import label as axis_label

#: A reference slope given as PAPER is the paper's slope for the ensemble shown
#: (:func:`hyst.catalogue.paper_slope`; none where the paper states none).
PAPER = "paper"


def reference_slope(slope, obs: str, ds: xr.Dataset) -> float | None:
    """``slope`` itself, or (``PAPER``) the paper's slope of ``obs`` for the ensemble of the
    reduced dataset ``ds``."""
    if slope != PAPER:
        return slope
    sel = selection(ds)
    value = catalogue.paper_slope(obs, sel.get("couplings"), sel.get("spans"), sel.get("rule"))
    return value if np.isfinite(value) else None


#: The main-text variant of P_sl^0 (one random start), drawn dashed next to the
#: Supplemental's definition (some of the 2^N states reaches a cycle at H = 0).
RANDOM_START = "self_loop_probability_at_zero_random_start"
P_SL0_DEFINITIONS = ("from any of the $2^N$ states", "from one random start")


def corner_legend(ax):
    """The N legend in the upper left corner, below a fit note (free on rising curves; the
    y axis is raised where a curve would reach under it)."""
    n = len(ax.get_legend_handles_labels()[1])
    n_legend(ax, loc="upper left", ncol=min(n, 5), fontsize=5, bbox_to_anchor=(0.0, 0.93))
    if ax.get_legend() is not None:
        make_room(ax, ax.get_legend())


def dashed_curves(ax, ds, obs, colors, marker="o"):
    """Curves of ``obs`` (one per N) dashed with open markers, for a second definition."""
    for n, x, y, _e in observable_curves(ds, obs):
        ok = np.isfinite(x) & np.isfinite(y) & (y > 0)
        ax.plot(
            x[ok],
            y[ok],
            ls="--",
            marker=marker,
            mfc="none",
            ms=2.5,
            lw=0.8,
            color=colors.get(n, "k"),
        )


def style_handles():
    """Legend handles of the solid (filled) and the dashed (open) curves."""
    return [
        mpl.lines.Line2D([], [], color="k", marker="o", ms=3, lw=1.0),
        mpl.lines.Line2D([], [], color="k", marker="o", mfc="none", ls="--", ms=3, lw=0.8),
    ]


def styles_legend(ax, labels, loc="upper left", **kw):
    """A second legend (the N legend kept) naming what the solid and the dashed curves show."""
    first = ax.get_legend()
    ax.legend(style_handles(), labels, loc=loc, fontsize=5, **kw)
    if first is not None:
        ax.add_artist(first)


def definitions_legend(ax, ds, loc="upper left"):
    """The legend naming the two P_sl^0 definitions (filled: the Supplemental's)."""
    if RANDOM_START in ds:
        labels = ["any of the $2^N$ states (Suppl.)", "one random start (main text)"]
        styles_legend(ax, labels, loc=loc, title=r"$P_{sl}^0$", title_fontsize=5)


_FIG2_OBS = (
    "gap_probability_at_zero",
    "gap_fraction",
    "self_loop_probability_at_zero",
    "self_loop_probability",
)


def fig_gaps_and_self_loops(
    ds: xr.Dataset,
    analysis=None,
    *,
    slopes: Sequence[float | str | None] | str | None = PAPER,
    inset_at: float = 100.0,
    title: str | None = None,
    couplings=None,
    spans=None,
    rule=None,
    size=(6.4, 5.0),
) -> Figure:
    """Main Fig. 2 and its Supplemental replicas (spins, equal spans, weak asymmetry).

    Versus N·J0, one curve per N (light to dark): (a) gap probability at H = 0,
    P_g^0; (b) mean gap fraction f_G; (c) self-loop probability at H = 0,
    P_sl^0; (d) probability of a self-loop at any H, P_sl, with an inset
    1 − P_sl versus N at N·J0 = ``inset_at`` (log y). ``slopes``: one reference
    slope per panel (None for none), or PAPER (default) for the paper's slopes of the
    ensemble shown: (4, 4, 4, 3) for random hysterons (Fig. 2), (2, 2, 2, 2/3) for spins,
    (5, 4, 5, 4) for weak asymmetry, none for equal spans.
    """
    ds = select(ds, couplings=couplings, spans=spans, rule=rule)
    sel = selection(ds)
    analysis = analysis_for(analysis, ds)
    if slopes is None or isinstance(slopes, str):
        slopes = [slopes] * 4
    slopes = [
        reference_slope(v, o, ds)
        for v, o in zip([*slopes, None, None, None], _FIG2_OBS, strict=False)
    ]
    colors = n_colors(list(ds["N"].values))
    with style():
        fig, axes = new_figure(2, 2, size)
        for i, (ax, obs) in enumerate(zip(axes.flat, _FIG2_OBS, strict=True)):
            loglog_panel(ax, ds, obs, colors, slope=slopes[i], analysis=analysis, sel=sel)
            panel_letter(ax, i)
            corner_legend(ax)
            if obs == "self_loop_probability_at_zero" and RANDOM_START in ds:
                dashed_curves(ax, ds, RANDOM_START, colors)
                free_legend(ax, style_handles(), P_SL0_DEFINITIONS, fontsize=5)
        inset_complement(
            axes[1, 1], ds, "self_loop_probability", colors, at=inset_at, analysis=analysis, sel=sel
        )
        if title:
            fig.suptitle(title)
    return fig


def _three_panel(datasets, titles, draw, size=(7.2, 2.5)):
    with style():
        fig, axes = new_figure(1, len(datasets), size)
        for i, (ax, ds) in enumerate(zip(axes.flat, datasets, strict=True)):
            draw(ax, ds, i)
            panel_letter(ax, i, titles[i])
    return fig


def _span_title(ds: xr.Dataset, default: str) -> str:
    if "spans" in ds.coords:
        v = np.atleast_1d(ds["spans"].values)
        if v.size == 1:
            return SPAN_TITLES.get(str(v[0]), str(v[0]))
    return default


def fig_race_conditions(
    ds_spins, ds_hysterons, ds_equal, analysis=None, *, slope=PAPER, size=(7.2, 2.5)
) -> Figure:
    """Supplemental "Statistics of race conditions": P_RC versus N·J0 (log-log).

    (a) spins, (b) hysterons with spans in [0, 0.5], (c) equal spans; one
    curve per N, dashed reference ``slope`` (default: the paper's, 2).
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [select(d) for d in (ds_spins, ds_hysterons, ds_equal)]

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        loglog_panel(
            ax,
            ds,
            "race_condition_probability",
            colors,
            slope=reference_slope(slope, "race_condition_probability", ds),
            analysis=analysis_for(analysis, ds),
            sel=selection(ds),
            legend=(i == 0),
        )

    return _three_panel(
        dss, [_span_title(d, t) for d, t in zip(dss, defaults, strict=True)], draw, size
    )


def fig_stable_states(ds_spins, ds_hysterons, ds_equal, *, log_y=False, size=(7.2, 2.5)) -> Figure:
    """Supplemental "Fraction of potentially stable states": P_s 2^N/(N+1) versus N·J0.

    (a) spins (exactly 1), (b) hysterons, (c) equal spans; log x, linear y
    (``log_y=True`` for log), dotted line at the spin value 1.
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [select(d) for d in (ds_spins, ds_hysterons, ds_equal)]
    obs = "potentially_stable_over_spins"
    ymax = 0.0
    for d in dss:
        v = np.asarray(d[obs].values, float)
        if np.isfinite(v).any():
            ymax = max(ymax, float(np.nanmax(v)))

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        loglog_panel(ax, ds, obs, colors, log_y=log_y, legend=(i == 0))
        ax.axhline(1.0, color="k", ls=":", lw=0.8, zorder=0)
        if not log_y:
            ax.set_ylim(0.9, max(1.1, ymax * 1.05))
        else:
            ax.set_ylim(0.9, max(1.2, ymax * 1.3))
        if i == 0:
            ax.get_legend().set_loc("upper right")

    return _three_panel(
        dss, [_span_title(d, t) for d, t in zip(dss, defaults, strict=True)], draw, size
    )


def fig_gap_vs_self_loops(ds_spins, ds_hysterons, ds_equal, *, log=True, size=(7.2, 2.6)) -> Figure:
    """Supplemental "Probability of self-loops as a function of the probability of gaps".

    P_sl^0 versus P_g^0 at H = 0, one marker per N·J0, connected per N (light
    to dark); the dashed black line is y = x. (a) spins, (b) hysterons,
    (c) equal spans. Log-log by default (points with a zero are dropped).
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [select(d) for d in (ds_spins, ds_hysterons, ds_equal)]

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        g = observable_curves(ds, "gap_probability_at_zero")
        s = observable_curves(ds, "self_loop_probability_at_zero")
        allv = []
        for (n, _x, gy, gerr), (_n2, _x2, sy, serr) in zip(g, s, strict=True):
            ok = np.isfinite(gy) & np.isfinite(sy)
            if log:
                ok &= (gy > 0) & (sy > 0)
            c = colors.get(n, "k")
            if ok.any():
                ax.errorbar(
                    gy[ok],
                    sy[ok],
                    xerr=clip_err(gy[ok], gerr[ok], log),
                    yerr=clip_err(sy[ok], serr[ok], log),
                    color=c,
                    marker="o",
                    lw=0.8,
                    elinewidth=0.6,
                    markeredgewidth=0,
                    label=f"{int(n)}",
                )
                allv.extend(gy[ok])
                allv.extend(sy[ok])
            else:
                ax.plot([], [], "o-", color=c, label=f"{int(n)}")
        allv = np.asarray(allv, float)
        lo = allv[allv > 0].min() / 2 if (allv > 0).any() else 1e-3
        lims = (lo, 1.2) if log else (0.0, 1.0)
        ax.plot(lims, lims, "--", color="k", lw=0.9, zorder=0)
        if log:
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlim(*lims)
        ax.set_ylim(*lims)
        if log:
            decade_ticks(ax.xaxis)
            decade_ticks(ax.yaxis)
        if RANDOM_START in ds:
            r = observable_curves(ds, RANDOM_START)
            for (n, _x, gy, _ge), (_n2, _x2, ry, _re) in zip(g, r, strict=True):
                ok = np.isfinite(gy) & np.isfinite(ry)
                if log:
                    ok &= (gy > 0) & (ry > 0)
                ax.plot(gy[ok], ry[ok], "o--", mfc="none", ms=2.5, lw=0.6, color=colors.get(n))
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(axis_label("gap_probability_at_zero"))
        ax.set_ylabel(axis_label("self_loop_probability_at_zero"))
        n_legend(ax, loc="lower right", ncol=3, fontsize=5)
        if i == 0:
            definitions_legend(ax, ds)

    return _three_panel(
        dss, [_span_title(d, t) for d, t in zip(dss, defaults, strict=True)], draw, size
    )


def clip_err(v, e, log):
    """Error bars (lower, upper) of values ``v`` with standard errors ``e``, the lower bar
    clipped above zero on a log axis; None when no error is positive."""
    e = np.where(np.isfinite(e) & (e > 0), e, 0.0)
    if not np.any(e > 0):
        return None
    lower = np.minimum(e, v * (1 - 1e-6)) if log else e
    return np.vstack([lower, e])


def _length_distribution(ds: xr.Dataset, rule, N: float, NJ0: float):
    """(L, P(L), N used, NJ0 used) of the self-loop length histogram nearest to (N, NJ0)."""
    d = select(ds, rule=rule)
    h = d["self_loop_length_hist"]
    n_used = nj_used = math.nan
    if "N" in h.dims:
        h = h.sel(N=N, method="nearest")
        n_used = float(h["N"].values)
    if "NJ0" in h.dims:
        j = nearest(h["NJ0"].values, NJ0)
        h = h.isel(NJ0=j if j is not None else 0)
        nj_used = float(h["NJ0"].values)
    counts = np.asarray(h.squeeze().values, float).reshape(-1)
    L = np.asarray(h["L"].values, float) if "L" in h.coords else np.arange(counts.size)
    counts = np.where(np.isfinite(counts), counts, 0.0)
    total = counts.sum()
    p = counts / total if total > 0 else np.full_like(counts, np.nan)
    return L, p, n_used, nj_used


#: Rule 0 discards the ill-defined instances: P_sl among the well-defined ones.
WELL_DEFINED = "self_loop_probability_well_defined"


def _self_loop_panel(ax, ds, slope, analysis, sel, inset_at, first, obs="self_loop_probability"):
    """P_sl versus N J0 (one curve per N) with the 1 − P_sl versus N inset; ``obs`` may be
    the rule-0 variant among well-defined instances, then P_sl of all instances is dashed."""
    colors = n_colors(list(ds["N"].values))
    loglog_panel(
        ax,
        ds,
        obs,
        colors,
        slope=reference_slope(slope, obs, ds),
        analysis=analysis,
        sel=sel,
    )
    if obs != "self_loop_probability":
        dashed_curves(ax, ds, "self_loop_probability", colors)
        ax.set_ylabel(axis_label("self_loop_probability"))
    corner_legend(ax)
    if obs != "self_loop_probability":
        n_box = ax.get_legend().get_window_extent(ax.get_figure(root=True).canvas.get_renderer())
        top = n_box.transformed(ax.transAxes.inverted()).y0  # right below the N legend
        styles_legend(
            ax, ["well-defined", "all instances"], loc="upper left", bbox_to_anchor=(0.0, top)
        )
        make_room(ax, ax.get_legend())
    inset_complement(ax, ds, obs, colors, at=inset_at, analysis=analysis, sel=sel)


def fig_rules(
    ds_rules,
    ds_rules_sizes=None,
    analysis=None,
    *,
    slope=PAPER,
    rules: Sequence[str] | None = None,
    inset_at: float = 100.0,
    hist_N: float = 8,
    hist_NJ0: float = 20.0,
    size=(10.0, 4.6),
) -> Figure:
    """Supplemental "Self-loop statistics for ... different race condition rules".

    Top row (a-d): P_sl versus N·J0 for rules 0, 1, 1', 2 (one curve per N,
    dashed ``slope``, default the paper's: 3), inset 1 − P_sl versus N at
    N·J0 = ``inset_at``. Bottom
    row (e-h): distribution of the lengths L of distinct self-loops (log y) at
    N = ``hist_N``, N·J0 = ``hist_NJ0`` from ``ds_rules_sizes`` (nearest
    available point of ``ds_rules`` when it is None).
    """
    if rules is None:
        rules = [str(r) for r in np.atleast_1d(ds_rules["rule"].values)]
    hist_ds = ds_rules_sizes if ds_rules_sizes is not None else ds_rules
    hist_rules = (
        [str(r) for r in np.atleast_1d(hist_ds["rule"].values)] if "rule" in hist_ds.dims else []
    )
    with style():
        fig, axes = new_figure(2, len(rules), size)
        for i, r in enumerate(rules):
            ds = select(ds_rules, rule=r)
            sel = selection(ds)
            ana = analysis_for(analysis, ds_rules)
            ax = axes[0, i]
            obs = WELL_DEFINED if r == "0" and WELL_DEFINED in ds else "self_loop_probability"
            _self_loop_panel(ax, ds, slope, ana, sel, inset_at, first=(i == 0), obs=obs)
            title = RULE_TITLES.get(r, f"rule {r}")
            panel_letter(ax, i, title + (", well-defined" if obs == WELL_DEFINED else ""))
            ax2 = axes[1, i]
            panel_letter(ax2, len(rules) + i, RULE_TITLES.get(r, f"rule {r}"))
            ax2.set_xlabel(r"$L$")
            ax2.set_ylabel(r"$P(L)$")
            ax2.set_yscale("log")
            if r not in hist_rules and "rule" in hist_ds.dims:
                ax2.text(0.5, 0.5, "no data", transform=ax2.transAxes, ha="center")
                continue
            L, p, n_used, nj_used = _length_distribution(hist_ds, r, hist_N, hist_NJ0)
            ok = np.isfinite(p) & (p > 0)
            if ok.any():
                ax2.bar(L[ok], p[ok], width=0.8, color=mpl.colormaps[CMAP](0.8), lw=0)
                ax2.set_xlim(0, L[ok].max() + 2)
                ax2.set_ylim(p[ok].min() / 3, 1.5)
            else:
                ax2.text(0.5, 0.5, "no self-loops", transform=ax2.transAxes, ha="center")
            ax2.text(
                0.96,
                0.95,
                rf"$N = {n_used:g}$, $NJ_0 = {nj_used:g}$",
                transform=ax2.transAxes,
                ha="right",
                va="top",
                fontsize=7,
            )
            ax2.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True, nbins=5))
    return fig


def fig_well_behaved_rule2(
    ds,
    analysis=None,
    *,
    slope=PAPER,
    couplings: Sequence[str] = ("symmetric", "columns", "rows"),
    inset_at: float = 100.0,
    rule=None,
    size=(7.2, 4.6),
) -> Figure:
    """Supplemental "Self-loop statistics for well-behaved models ... rule 2".

    P_sl versus N·J0 for (a) symmetric, (b) constant-columns, (c) constant-rows
    couplings under rule 2, dashed ``slope`` (default: the paper's, 4); insets 1 − P_sl
    versus N at N·J0 = ``inset_at`` (open triangles: no loop-free sample, drawn at 1/trials);
    (d–f) the self-loops met by length L, one bar per N, pooled over N·J0 (log y; the
    paper: L = 2 only; the guard checks it on every batch), the lengths never met named.
    """
    present = [str(c) for c in np.atleast_1d(ds["couplings"].values)]
    couplings = [c for c in couplings if c in present] or present
    hists = "self_loop_length_hist" in ds
    with style():
        fig, axes = new_figure(2 if hists else 1, len(couplings), size)
        for i, c in enumerate(couplings):
            d = select(ds, couplings=c, rule=rule)
            sel = selection(d)
            ana = analysis_for(analysis, ds)
            ax = axes[0, i]
            _self_loop_panel(ax, d, slope, ana, sel, inset_at, first=(i == 0))
            panel_letter(ax, i, COUPLING_TITLES.get(c, c))
            if hists:
                counted = _pooled_lengths(axes[1, i], d)
                panel_letter(
                    axes[1, i], len(couplings) + i, f"{COUPLING_TITLES.get(c, c)}\n{counted}"
                )
    return fig


def fig_self_loop_free_versus_n(
    ds: xr.Dataset,
    analysis=None,
    *,
    curves_N: Sequence[int] = (12, 14, 16),
    at: Sequence[float] = (100.0, 10.0),
    fit_N_min: float = 10,
    slope=PAPER,
    couplings=None,
    rule=None,
    size=(7.2, 5.0),
) -> Figure:
    """P_sl beyond the paper's N = 10, and Fig. 2's inset extended.

    (a)–(c), one panel per span ensemble (hysterons, spins, equal spans; those
    present): P_sl versus N·J0 for N in ``curves_N`` (those present, else the three
    largest), dashed the paper's small-coupling slope for the ensemble. (d): the
    probability to be self-loop free, 1 − P_sl, versus N (log y) at N·J0 = each of
    ``at`` (filled circles: the first, open squares: the others), one colour per span
    ensemble, with A exp(−N/ξ) fitted over N ≥ ``fit_N_min`` by
    :func:`hyst.analysis.plateau_versus_n` (weighted least squares of the log, points
    without a loop-free sample skipped and drawn as open triangles at 1/samples);
    the legend gives ξ ± its standard error.
    """
    present = [str(v) for v in np.atleast_1d(ds["spans"].values)] if "spans" in ds.coords else []
    spans = [s for s in SPAN_NAMES if s in present] + [s for s in present if s not in SPAN_NAMES]
    if not spans:
        spans = [None]
    ns = [int(n) for n in ds["N"].values]
    shown_N = [n for n in curves_N if n in ns] or ns[-3:]
    with style():
        fig, axes = new_figure(2, len(spans), size)
        grid = axes[1, 0].get_gridspec()
        for ax in axes[1]:
            ax.remove()
        tail = fig.add_subplot(grid[1, :])
        for i, s in enumerate(spans):
            d = select(ds, couplings=couplings, spans=s, rule=rule)
            curves = d.sel(N=shown_N)
            _self_loop_curves(axes[0, i], curves, slope, analysis_for(analysis, ds), i == 0)
            panel_letter(axes[0, i], i, SPAN_TITLES.get(s, s) if s else None)
        shown = []
        for s in spans:
            d = select(ds, couplings=couplings, spans=s, rule=rule)
            for k, x in enumerate(at):
                shown += _complement_versus_n(tail, d, s, float(x), fit_N_min, filled=(k == 0))
        tail.set_yscale("log")
        if shown:  # from the values, not from error bars that reach zero
            tail.set_ylim(min(shown) / 3, 1.5)
        tail.set_xlabel(axis_label("N"))
        tail.set_ylabel(r"$1-P_{sl}$")
        tail.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
        tail.legend(loc="lower left", ncol=2, fontsize=6)
        panel_letter(tail, len(spans), rf"self-loop free, fits over $N \geq {fit_N_min:g}$")
    return fig


def _self_loop_curves(ax, ds, slope, analysis, first):
    colors = n_colors(list(ds["N"].values))
    loglog_panel(
        ax,
        ds,
        "self_loop_probability",
        colors,
        slope=reference_slope(slope, "self_loop_probability", ds),
        analysis=analysis,
        sel=selection(ds),
        legend=first,
    )
    if first:
        ax.get_legend().set_loc("lower right")


def _complement_versus_n(ax, ds, spans, at, fit_N_min, filled) -> list:
    """1 − P_sl versus N at N·J0 = ``at`` with its exponential fit over N ≥ fit_N_min;
    returns the values drawn."""
    obs = "self_loop_probability"
    res = plateau_versus_n(ds, obs, at=at, n_min=fit_N_min)
    n = np.asarray(res["N"].values, float)
    v = np.asarray(res["complement"].values, float)
    e = np.asarray(res["complement_stderr"].values, float)
    color = SPAN_COLORS.get(spans, "k")
    label = rf"{SPAN_NAMES.get(spans, spans or '')}, $NJ_0 = {at:g}$"
    xi, dxi = float(res["xi"]), float(res["xi_stderr"])
    amp = float(res["decay_amplitude"])
    if np.isfinite(xi) and np.isfinite(amp):
        label += rf": $\xi = {xi:.2f} \pm {dxi:.2f}$"
        nn = np.linspace(max(fit_N_min, n.min()), n.max(), 50)
        ax.plot(nn, amp * np.exp(-nn / xi), "--" if filled else ":", color=color, lw=0.8)
    ok = np.isfinite(v) & (v > 0)
    err = np.where(np.isfinite(e) & (e > 0), e, 0.0)
    lower = np.minimum(err, v * (1 - 1e-6))  # a log axis: down to just above zero
    ax.errorbar(
        n[ok],
        v[ok],
        yerr=np.vstack([lower[ok], err[ok]]),
        color=color,
        marker="o" if filled else "s",
        ms=3.5,
        mfc=color if filled else "none",
        mec=color,
        mew=0.8,
        lw=0.6,
        elinewidth=0.6,
        label=label,
    )
    shown = list(v[ok])
    trials = ds.get(f"{obs}_trials")
    zero = np.isfinite(v) & (v <= 0)
    if trials is not None and zero.any():  # no loop-free sample: the one-count bound
        x_used = np.asarray(res["complement_x"].values, float)
        for nv, xv in zip(n[zero], x_used[zero], strict=True):
            t = float(trials.sel(N=nv).sel(NJ0=xv, method="nearest"))
            if t > 0:
                ax.plot([nv], [1.0 / t], "v", ms=3.5, mfc="none", mec=color, mew=0.8)
                shown.append(1.0 / t)
    return shown


def _pooled_lengths(ax, ds) -> str:
    """Self-loops met by their length L, per N (one bar per N, pooled over N J0; log y):
    how many of each length every N gave, so that a missing length is seen to be none."""
    h = ds["self_loop_length_hist"]
    other = [x for x in h.dims if x not in ("L", "N")]
    counts = h.sum(other) if other else h
    Ns = [float(n) for n in np.atleast_1d(counts["N"].values)] if "N" in counts.dims else [None]
    colors = n_colors(Ns) if Ns != [None] else {None: mpl.colormaps[CMAP](0.8)}
    total = np.asarray(counts.sum("N").values if "N" in counts.dims else counts.values, float)
    lengths = [
        L for L in range(2, max(9, int(np.flatnonzero(total).max()) + 1 if total.any() else 9), 2)
    ]
    width = 0.8 / len(Ns)
    for k, n in enumerate(Ns):
        row = np.asarray(counts.sel(N=n).values if n is not None else counts.values, float)
        ys = [row[L] if L < row.size else 0.0 for L in lengths]
        xs = [L + (k - (len(Ns) - 1) / 2) * width * 2 for L in lengths]
        ok = [y > 0 for y in ys]
        if not any(ok):
            continue
        ax.bar(
            [x for x, o in zip(xs, ok, strict=True) if o],
            [y for y, o in zip(ys, ok, strict=True) if o],
            width=width * 2,
            color=colors[n],
            lw=0,
            label=f"{int(n)}" if n is not None else None,
        )
    ax.set_yscale("log")
    met = [L for L in lengths if L < total.size and total[L] > 0]
    none = [L for L in lengths if L not in met]
    text = f"{int(total.sum()):,} self-loops" + (
        f"; none of $L$ = {', '.join(map(str, none))}" if none and met else ""
    )
    if not met:
        text = "no self-loops"
    ax.set_xticks(lengths)
    ax.set_xlim(lengths[0] - 1.2, lengths[-1] + 1.2)
    if met:
        top = float(total.max())
        ax.set_ylim(0.5, top * 30)
    ax.set_xlabel(r"$L$")
    ax.set_ylabel(r"self-loops of length $L$")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, title=r"$N$", loc="upper right", ncol=len(handles), fontsize=5)
    return text
