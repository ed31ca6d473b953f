"""Figures of what designed materials do, as ensemble statistics (groups addressability,
reachability, periods and multiperiodic): the states one drive cycle from saturation
addresses, the periods and transients of the symmetric cyclic drive, return-point memory,
against N (from small N to the largest sampled) and N·J0.

Each figure takes a study of the small sizes and, optionally, one of the large sizes (the
same ensembles; the reachable states only at small N); their N are drawn together. A
probability estimated as 0 of n trials is drawn as its upper bound 3/n (95 % confidence,
an open downward triangle), never as a point at zero; with n ≤ 3 trials the bound (1 or
more) says nothing and is not drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from hyst.catalogue.labels import COUPLING_TITLES
from hyst.plotting.panels import errorbar, nearest, select
from hyst.plotting.placement import free_legend
from hyst.plotting.style import (
    SPAN_NAMES,
    decade_ticks,
    declare,
    label,
    n_colors,
    new_figure,
    panel_letter,
    style,
)

#: (couplings, spans) drawn, in this order where the datasets have them.
ENSEMBLES = (
    ("random", "hysteron"),
    ("random", "spin"),
    ("symmetric", "hysteron"),
    ("columns", "hysteron"),
    ("rows", "hysteron"),
    ("weak", "hysteron"),
    ("ferro", "hysteron"),
)
#: The upper bound drawn for an estimate of 0 of n: 3/n (95 % confidence).
ZERO_BOUND = 3.0
UPPER_BOUND = "0 of $n$: upper bound $3/n$"
#: The factor between the N at which neighbouring N·J0 are drawn in P(all addressable).
DODGE = 1.05
#: The legend's name of the dashed curves of the addressability figure.
REACHABLE = "reachable by any history"


def _values(ds: xr.Dataset | None, dim: str) -> list[str]:
    if ds is None or dim not in ds.coords:
        return []
    return [str(v) for v in np.atleast_1d(ds[dim].values)]


def _present(datasets, ensembles) -> list[tuple[str, str]]:
    first = datasets[0]
    couplings, spans = _values(first, "couplings"), _values(first, "spans")
    present = [(c, s) for c, s in ensembles if c in couplings and s in spans]
    return present or [(couplings[0] if couplings else None, spans[0] if spans else None)]


def _at(ds: xr.Dataset, couplings, spans, rule, nj0: float | None) -> xr.Dataset | None:
    """One ensemble of a dataset, at the N J0 nearest ``nj0`` (None: all N J0)."""
    sel = {}
    if "couplings" in ds.dims and couplings is not None:
        if couplings not in _values(ds, "couplings"):
            return None
        sel["couplings"] = couplings
    if "spans" in ds.dims and spans is not None:
        if spans not in _values(ds, "spans"):
            return None
        sel["spans"] = spans
    d = select(ds, rule=rule, **sel)
    if nj0 is not None and "NJ0" in d.dims:
        d = d.isel(NJ0=nearest(d["NJ0"].values, nj0))
    return d


def _by_N(datasets, obs: str, couplings, spans, rule, nj0: float) -> dict:
    """{N: (value, stderr, count, trials)} of ``obs`` over the datasets (the first one that
    has an N gives it), at the N J0 nearest ``nj0``: one N J0 for every N, the nearest any
    dataset sampled (a dataset whose own nearest is farther gives no N, so that one curve
    is one N J0)."""
    found = []
    for ds in datasets:
        if ds is None or obs not in ds:
            continue
        d = _at(ds, couplings, spans, rule, nj0)
        if d is not None:
            found.append(d)
    at = [float(d["NJ0"]) if "NJ0" in d.coords and d["NJ0"].size == 1 else None for d in found]
    known = [a for a in at if a is not None]
    best = min(known, key=lambda a: abs(np.log(a / nj0))) if known else None
    out: dict = {}
    for d, a in zip(found, at, strict=True):
        if a is not None and not np.isclose(a, best, rtol=1e-9):
            continue
        for n in np.atleast_1d(d["N"].values):
            if int(n) in out:
                continue
            row = d.sel(N=n)
            out[int(n)] = tuple(
                float(row[v]) if v in row else np.nan
                for v in (obs, f"{obs}_stderr", f"{obs}_count", f"{obs}_trials")
            )
    return dict(sorted(out.items()))


def _curve(ax, x, values, color, text, marker="o", ls="-"):
    """Estimates with their error bars; estimates of 0 of n trials as upper bounds 3/n,
    where they bound anything (n > 3: a bound of 1 or more says nothing and is left out).
    Returns the upper-bound markers drawn (None if none)."""
    x = np.asarray(x, float)
    v, e, count, trials = (np.asarray(a, float) for a in zip(*values, strict=True))
    zero = (count == 0) & (trials > 0)
    bounded = zero & (trials > ZERO_BOUND)
    errorbar(ax, x[~zero], v[~zero], e[~zero], color, label=text, marker=marker, ls=ls)
    if not bounded.any():
        return None
    (bound,) = ax.plot(
        x[bounded],
        ZERO_BOUND / trials[bounded],
        ls="none",
        marker="v",
        mfc="none",
        color=color,
        ms=5,
    )
    return bound


def _bound_legend(ax, bounds) -> None:
    """Name the upper-bound markers in a second legend, its entry drawn as the first of
    them (the others differ only by the colour of their curve)."""
    bounds = [b for b in bounds if b is not None]
    if not bounds:
        return
    declare(ax, UPPER_BOUND, bounds[0])
    handle = Line2D([], [], ls="none", marker="v", mfc="none", color=bounds[0].get_color(), ms=5)
    free_legend(ax, [handle], [UPPER_BOUND], fontsize="x-small")


def _log_y(ax) -> None:
    """Log y from a third of the smallest positive value drawn (error bars that reach down
    towards zero leave the panel at its bottom)."""
    ys = [np.asarray(line.get_ydata(), float) for line in ax.get_lines()]
    ys = np.concatenate(ys) if ys else np.zeros(0)
    ys = ys[np.isfinite(ys) & (ys > 0)]
    if ys.size == 0:
        return
    ax.set_yscale("log")
    ax.set_ylim(ys.min() / 3, min(ys.max() * 3, 2.0) if ys.max() <= 1 else ys.max() * 3)


def _n_axis(ax) -> None:
    ax.set_xscale("log")
    decade_ticks(ax.xaxis)
    ax.set_xlabel(label("N"))


def _ensemble_title(c, s) -> str:
    return f"{COUPLING_TITLES.get(c, c)},\n{SPAN_NAMES.get(s, s)}"


def _nj0_text(v: float) -> str:
    return f"$N J_0 = {v:g}$"


def fig_addressability(
    small: xr.Dataset,
    large: xr.Dataset | None = None,
    *,
    ensembles: Sequence[Sequence[str]] = ENSEMBLES[:3],
    nj0: Sequence[float] = (0.1, 1.0, 10.0),
    rule=None,
    size=(8.0, 5.0),
) -> Figure:
    """Top row: P(all addressable), the probability that one drive cycle from saturation (up
    to H1, back down to H2) addresses every one of the 2^N states, against N, one curve per
    N·J0 of ``nj0`` (the nearest sampled), each drawn a little to the side of N (by the
    factor ``DODGE`` between neighbours) so that equal values stay apart. Bottom row: the
    share of the 2^N states addressable in one cycle (solid) and reachable by any field
    history (dashed, where sampled), log y. One column per (couplings, spans) of
    ``ensembles`` present; one legend below the panels (the N·J0 colours, the dashed
    curves, the upper bounds), so that the columns keep even widths."""
    datasets = [small, large]
    present = _present(datasets, ensembles)
    colors = n_colors(list(nj0))
    with style():
        fig, axes = new_figure(2, len(present), size)
        entries: dict = {}  # legend text: handle, in the order first drawn
        bounds, reach_lines = [], []
        for i, (c, s) in enumerate(present):
            top, bottom = axes[0, i], axes[1, i]
            for j, v in enumerate(nj0):
                pts = _by_N(datasets, "all_addressable_probability", c, s, rule, v)
                if pts:
                    # each N J0 a little to the side (its upper bounds 3/n, the same n,
                    # would otherwise hide each other)
                    shift = DODGE ** (j - (len(nj0) - 1) / 2)
                    x = [n * shift for n in pts]
                    bounds.append(_curve(top, x, list(pts.values()), colors[v], _nj0_text(v)))
                share = _by_N(datasets, "addressable_share", c, s, rule, v)
                if share:
                    _curve(bottom, list(share), list(share.values()), colors[v], _nj0_text(v))
                reach = _by_N(datasets, "reachable_share", c, s, rule, v)
                if reach:
                    (line,) = bottom.plot(
                        list(reach), [p[0] for p in reach.values()], ls="--", color=colors[v]
                    )
                    reach_lines.append(line)
            for ax in (top, bottom):
                _n_axis(ax)
                _log_y(ax)
                for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
                    entries.setdefault(text, handle)
            top.set_ylabel(label("all_addressable_probability") if i == 0 else "")
            bottom.set_ylabel(r"share of the $2^N$ states" if i == 0 else "")
            panel_letter(top, i, _ensemble_title(c, s))
            panel_letter(bottom, len(present) + i)
        handles, texts = [entries[t] for t in entries], list(entries)
        if reach_lines:  # named once, drawn as the first of them
            declare(axes[1, 0], REACHABLE, reach_lines[0])
            handles.append(Line2D([], [], color=reach_lines[0].get_color(), ls="--"))
            texts.append(REACHABLE)
        bounds = [b for b in bounds if b is not None]
        if bounds:  # drawn as the first of them (the others differ only by colour)
            declare(axes[0, 0], UPPER_BOUND, bounds[0])
            handles.append(
                Line2D([], [], ls="none", marker="v", mfc="none", color=bounds[0].get_color(), ms=5)
            )
            texts.append(UPPER_BOUND)
        if handles:  # one legend below the panels: they keep the figure's width
            fig.legend(
                handles, texts, loc="outside lower center", ncol=len(handles), fontsize="x-small"
            )
    return fig


def fig_periods(
    small: xr.Dataset,
    large: xr.Dataset | None = None,
    *,
    couplings: str = "random",
    spans: str = "hysteron",
    Ns: Sequence[int] = (4, 8, 16, 64),
    periods: Sequence[int] = (2, 3, 4, 5, 6),
    rule=None,
    size=(8.0, 2.9),
) -> Figure:
    """P(T = k), the probability that the symmetric cyclic drive ±A from saturation reaches
    an orbit of period k at some amplitude, against N·J0, one panel per N of ``Ns`` present
    (the nearest sampled), one curve per k of ``periods``; odd k dashed with open markers.
    Periods never met at an N J0 are left out there, and the legend names only the periods
    some panel draws."""
    by_n: dict = {}
    for ds in (small, large):
        if ds is None:
            continue
        for n in np.atleast_1d(ds["N"].values):
            by_n.setdefault(int(n), ds)
    shown = []
    for n in Ns:
        if by_n:
            pick = min(by_n, key=lambda m, n=n: abs(m - n))
            if pick not in shown:
                shown.append(pick)
    colors = n_colors(list(periods), cmap="viridis", lo=0.0, hi=0.85)
    with style():
        fig, axes = new_figure(1, max(len(shown), 1), size)
        axes = np.atleast_1d(axes).reshape(-1)
        drawn: dict = {}  # k: the first line drawn of P(T = k), in any panel
        for i, n in enumerate(shown):
            ax = axes[i]
            d = _at(by_n[n], couplings, spans, rule, None).sel(N=n)
            for k in periods:
                obs = f"period_{k}_probability"
                if obs not in d:
                    continue
                odd = k % 2 == 1
                x, y, e = (
                    np.asarray(a, float)
                    for a in (d["NJ0"].values, d[obs].values, d[f"{obs}_stderr"].values)
                )
                ok = np.isfinite(y) & (y > 0)
                if not ok.any():
                    continue
                e = np.where(np.isfinite(e), e, 0.0)[ok]
                bars = ax.errorbar(
                    x[ok],
                    y[ok],
                    yerr=np.vstack([np.minimum(e, y[ok] * (1 - 1e-6)), e]),
                    color=colors[k],
                    marker="s" if odd else "o",
                    ls="--" if odd else "-",
                    mfc="none" if odd else colors[k],
                    markeredgewidth=1.0 if odd else 0.0,
                    elinewidth=0.7,
                )
                drawn.setdefault(k, (ax, bars.lines[0]))
            ax.set_xscale("log")
            sampled = np.asarray(d["NJ0"].values, float)
            if sampled.size:  # every panel over the N J0 sampled, drawn or not
                ax.set_xlim(sampled.min() / 1.5, sampled.max() * 1.5)
            decade_ticks(ax.xaxis)
            if any(np.nansum(line.get_ydata()) > 0 for line in ax.get_lines()):
                _log_y(ax)
            else:
                ax.yaxis.set_major_locator(NullLocator())  # no data: no scale to read
                ax.yaxis.set_minor_locator(NullLocator())
                trials = int(np.nansum(d[f"period_{periods[0]}_probability_trials"].values))
                ax.text(
                    0.5,
                    0.5,
                    f"no $T > 1$\nin {trials:,} systems",
                    ha="center",
                    va="center",
                    transform=ax.transAxes,
                    fontsize=6.5,
                )
            ax.set_xlabel(label("NJ0"))
            ax.set_ylabel(r"$P(T = k)$" if i == 0 else "")
            panel_letter(
                ax,
                i,
                f"$N = {n}$"
                + (
                    f", {COUPLING_TITLES.get(couplings, couplings)} {SPAN_NAMES.get(spans, spans)}"
                    if i == 0
                    else ""
                ),
            )
        handles, texts = [], []
        for k in sorted(drawn):  # only the periods some panel draws
            ax, line = drawn[k]
            odd = k % 2 == 1
            texts.append(f"$T = {k}$" + (" (odd)" if odd else ""))
            handles.append(
                Line2D(
                    [],
                    [],
                    color=colors[k],
                    marker="s" if odd else "o",
                    ls="--" if odd else "-",
                    mfc="none" if odd else colors[k],
                    markeredgewidth=1.0 if odd else 0.0,
                )
            )
            if odd:  # odd periods: broken, open markers
                declare(ax, texts[-1], line)
        if handles:
            axes[0].legend(handles, texts, loc="lower right", fontsize="x-small", ncol=1)
    return fig


def fig_odd_periods_and_memory(
    small: xr.Dataset,
    large: xr.Dataset | None = None,
    *,
    ensembles: Sequence[Sequence[str]] = ENSEMBLES[:4],
    nj0: float = 10.0,
    rule=None,
    size=(7.0, 3.0),
) -> Figure:
    """Left: P(odd T ≥ 3), the probability of an orbit of odd period T ≥ 3 of the symmetric
    cyclic drive at some amplitude; right: P_RPM, return-point memory on the nested protocol
    to half the saturation field (from saturation up to A_s/2, down to −A_s/2, a sub-loop up
    to 0 and back, up to A_s/2 again); both against N at the N·J0 nearest ``nj0``, one curve
    per (couplings, spans) of ``ensembles`` present."""
    datasets = [small, large]
    present = _present(datasets, ensembles)
    colors = n_colors(list(range(len(present))), cmap="plasma", lo=0.0, hi=0.8)
    markers = "osD^v<>"
    with style():
        fig, axes = new_figure(1, 2, size)
        axes = np.atleast_1d(axes).reshape(-1)
        for j, obs in enumerate(("odd_period_probability", "return_point_memory_probability")):
            ax = axes[j]
            bounds = []
            nj0_shown = nj0
            for i, (c, s) in enumerate(present):
                pts = _by_N(datasets, obs, c, s, rule, nj0)
                if not pts:
                    continue
                text = f"{COUPLING_TITLES.get(c, c)} {SPAN_NAMES.get(s, s)}"
                bounds.append(
                    _curve(ax, list(pts), list(pts.values()), colors[i], text, markers[i % 7])
                )
                d = _at(small, c, s, rule, nj0)
                if d is not None:
                    nj0_shown = float(d["NJ0"])
            _n_axis(ax)
            if obs == "odd_period_probability":
                _log_y(ax)
            ax.set_ylabel(label(obs))
            panel_letter(ax, j, _nj0_text(nj0_shown) if j == 0 else None)
            _bound_legend(ax, bounds)
        axes[1].legend(loc="lower left", fontsize="x-small")
    return fig
