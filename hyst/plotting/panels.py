"""Data access and drawing helpers shared by the figure families.

Datasets are the pipeline's study datasets (:mod:`hyst.studies`); per
observable NAME they hold NAME and NAME_stderr, and their ``sweep`` attribute
names the swept coupling axis (NJ0, or J0 with the coordinate NJ0 = N·J0).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping

import matplotlib as mpl
import numpy as np
import xarray as xr
from matplotlib.lines import Line2D

from hyst.catalogue.labels import fmt_number
from hyst.plotting.placement import free_box, keep_inside_later, make_room, place_label
from hyst.plotting.style import declare
from hyst.plotting.style import label as axis_label

SELECT_DIMS = ("couplings", "spans", "rule")


def select(ds: xr.Dataset, **sel) -> xr.Dataset:
    """Select one couplings/spans/rule value (given, or the only one, or the first)."""
    for dim in SELECT_DIMS:
        if dim not in ds.dims:
            continue
        value = sel.get(dim)
        if value is not None:
            ds = ds.sel({dim: value})
        elif ds.sizes[dim] == 1:
            ds = ds.isel({dim: 0})
        else:
            values = [str(v) for v in ds[dim].values]
            pick = "1" if dim == "rule" and "1" in values else values[0]
            warnings.warn(
                f"{ds.attrs.get('study', 'dataset')}: {dim} has {values}; plotting {pick!r}",
                stacklevel=3,
            )
            ds = ds.sel({dim: pick})
    return ds


def x_values(ds: xr.Dataset, n: float) -> tuple[str, np.ndarray]:
    """The abscissa of a sweep as coupling strength N J0 for size ``n``: its name and values
    (N J0 itself, or n J0 on a J0 sweep)."""
    if "NJ0" in ds.dims:
        return "NJ0", np.asarray(ds["NJ0"].values, float)
    if "J0" in ds.dims:
        return "J0", n * np.asarray(ds["J0"].values, float)
    raise ValueError("dataset has neither an NJ0 nor a J0 dimension")


def observable_curves(ds: xr.Dataset, name: str, transform: Callable | None = None) -> list:
    """[(N, x, y, yerr)] of one observable in a dataset reduced to (N, NJ0)."""
    if name not in ds:
        raise KeyError(f"{ds.attrs.get('study', 'dataset')} has no variable {name!r}")
    da = ds[name]
    err = ds.get(f"{name}_stderr")
    ns = ds["N"].values if "N" in da.dims else [np.nan]
    out = []
    for n in ns:
        d = da.sel(N=n) if "N" in da.dims else da
        e = err.sel(N=n) if (err is not None and "N" in err.dims) else err
        xdim, x = x_values(ds, float(n))
        d = d.transpose(xdim, ...).squeeze()
        y = np.asarray(d.values, float).reshape(-1)
        ye = (
            np.asarray(e.transpose(xdim, ...).squeeze().values, float).reshape(-1)
            if e is not None
            else np.full_like(y, np.nan)
        )
        if transform is not None:
            y = transform(y)
        order = np.argsort(x)
        out.append((n, x[order], y[order], ye[order]))
    return out


def analysis_for(analysis, ds: xr.Dataset | None):
    """The analysis Dataset that belongs to ``ds`` (dict by study, or a single one)."""
    if analysis is None or ds is None:
        return None
    study = str(ds.attrs.get("study", ""))
    if not isinstance(analysis, xr.Dataset) and isinstance(analysis, Mapping):
        return analysis.get(study)
    a_study = str(analysis.attrs.get("study", ""))
    if a_study and study and a_study != study:
        return None
    return analysis


def analysis_value(analysis, var: str, **sel) -> float:
    """One scalar from an analysis Dataset (NaN if absent or not scalar)."""
    if analysis is None or var not in analysis:
        return math.nan
    da = analysis[var]
    for dim in SELECT_DIMS:
        if dim in da.dims:
            value = sel.get(dim)
            try:
                da = da.sel({dim: value}) if value is not None else da.isel({dim: 0})
            except (KeyError, ValueError):
                return math.nan
    if da.size != 1:
        return math.nan
    try:
        return float(da.values.reshape(-1)[0])
    except (TypeError, ValueError):
        return math.nan


def selection(ds: xr.Dataset) -> dict:
    """The couplings/spans/rule labels of a reduced dataset (for analysis lookup)."""
    return {d: ds[d].values.item() for d in SELECT_DIMS if d in ds.coords and ds[d].ndim == 0}


def nearest(values: np.ndarray, target: float) -> int | None:
    """Index of the value nearest to target in log scale (None if none finite > 0)."""
    v = np.asarray(values, float)
    ok = np.flatnonzero(np.isfinite(v) & (v > 0))
    if ok.size == 0:
        return None
    return int(ok[np.argmin(np.abs(np.log(v[ok] / target)))])


# --------------------------------------------------------------------------
# drawing helpers
# --------------------------------------------------------------------------


def errorbar(ax, x, y, yerr, color, label=None, log_y=True, marker="o", **kw):
    """Markers + line with error bars; non-finite (and, on log y, non-positive) points dropped.

    On a log axis a lower error bar that would cross zero is drawn down to
    just above zero (it then leaves the axes at the bottom).
    """
    x, y, yerr = (np.asarray(a, float) for a in (x, y, yerr))
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0)
    if log_y:
        ok &= y > 0
    x, y, yerr = x[ok], y[ok], yerr[ok]
    if x.size == 0:
        ax.plot([], [], marker=marker, color=color, label=label, **kw)
        return
    e = np.where(np.isfinite(yerr) & (yerr > 0), yerr, 0.0)
    lower = np.minimum(e, y * (1 - 1e-6)) if log_y else e
    has_err = bool(np.any(e > 0))
    ax.errorbar(
        x,
        y,
        yerr=np.vstack([lower, e]) if has_err else None,
        color=color,
        marker=marker,
        label=label,
        elinewidth=0.7,
        markeredgewidth=0.0,
        **kw,
    )


def log_limits(ax, curves, pad=2.0, top=None):
    """y limits of a log axis from the positive finite data (not from error bars)."""
    ys = np.concatenate([c[2] for c in curves]) if curves else np.array([])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    if ys.size == 0:
        ax.set_ylim(1e-3, 1.0)
        return
    lo = ys.min() / pad
    hi = ys.max() * pad if top is None else max(top, ys.max() * 1.2)
    ax.set_ylim(lo, hi)


def x_limits(ax, curves, pad=1.4):
    """Set the x range of a log axis to the positive finite abscissae of ``curves``, widened
    by the factor ``pad`` on each side."""
    xs = np.concatenate([c[1] for c in curves]) if curves else np.array([])
    xs = xs[np.isfinite(xs) & (xs > 0)]
    if xs.size:
        ax.set_xlim(xs.min() / pad, xs.max() * pad)


def slope_line(
    ax,
    curves,
    slope: float,
    *,
    y_max: float = 0.2,
    offset: float = 2.0,
    max_decades_y: float = 2.5,
    max_extend: float = 1.5,
    label: str | None = None,
) -> None:
    """Dashed black reference line of the given slope on the small-coupling side.

    The line starts at the smallest N·J0 where the median of the (not
    identically zero) curves is positive, spans at most one decade in x and
    ``max_decades_y`` in y, stays where the median is ≤ ``y_max``, and its
    upper end lies a factor ``offset`` below the lowest curve. The y axis is
    extended downwards (by at most ``max_extend`` decades) to show it whole.
    """
    if slope is None or not np.isfinite(slope) or slope <= 0:
        return
    live = [c for c in curves if np.any(np.isfinite(c[2]) & (c[2] > 0))]
    if not live:
        return
    xs = np.unique(np.concatenate([c[1] for c in live]))
    xs = xs[np.isfinite(xs) & (xs > 0)]
    med, low = [], []
    for xv in xs:
        vals = [y[(x == xv) & np.isfinite(y)] for _n, x, y, _e in live]
        vals = np.concatenate(vals) if vals else np.array([])
        med.append(np.median(vals) if vals.size else np.nan)
        low.append(vals[vals > 0].min() if np.any(vals > 0) else np.nan)
    med, low = np.asarray(med), np.asarray(low)
    pos = np.isfinite(med) & (med > 0)
    if not pos.any():
        return
    lx, ly = np.log10(xs[pos]), np.log10(med[pos])
    span = min(1.0, max_decades_y / slope)
    x_lo = lx.min()
    small = lx[10**ly <= y_max]
    x_hi = min(x_lo + span, small.max()) if small.size else x_lo
    if x_hi - x_lo < 0.25 * span:  # too few small-coupling points: use the full span
        x_hi = x_lo + span
    lxl, lyl = np.log10(xs[pos]), np.log10(low[pos])  # lower envelope (positive where med is)
    y_hi = np.interp(x_hi, lxl, lyl) - math.log10(offset)
    y_lo = y_hi - slope * (x_hi - x_lo)
    bottom, top = ax.get_ylim()
    if bottom > 0 and y_lo < math.log10(bottom):
        new_bottom = max(y_lo - 0.15, math.log10(bottom) - max_extend)
        ax.set_ylim(10**new_bottom, top)
        if y_lo < new_bottom:  # still too low: shorten the line
            x_lo = x_hi - (y_hi - new_bottom - 0.1) / slope
            y_lo = y_hi - slope * (x_hi - x_lo)
    px = 10 ** np.array([x_lo, x_hi])
    py = 10 ** np.array([y_lo, y_hi])
    ax.plot(px, py, "--", color="k", lw=1.0, zorder=5)
    text = label if label is not None else f"slope {fmt_number(slope)}"

    def along(f):  # a point of the line, a fraction f of its length from the lower end
        return 10 ** (x_lo + f * (x_hi - x_lo)), 10 ** (y_lo + f * (y_hi - y_lo))

    middle = along(0.5)
    # the curves lie above the line, to its left: below it and to its right first, near its
    # middle, then further along it, then beside its ends, then above it
    fractions = (0.5, 0.3, 0.7, 0.15, 0.85)
    anchors = (
        *((along(f), (5, -2), "left", "top") for f in fractions),
        *((along(f), (12, -8), "left", "top") for f in fractions),
        ((px[0], py[0]), (-4, 0), "right", "center"),
        ((px[0], py[0]), (-4, 3), "right", "bottom"),
        ((px[1], py[1]), (5, -2), "left", "top"),
        ((px[0], py[0]), (6, 0), "left", "center"),
        *((along(f), (-5, 2), "right", "bottom") for f in fractions),
    )
    note = ax.annotate(text, middle, xytext=(0, 0), textcoords="offset points", fontsize=7)
    place_label(ax, note, anchors)


def fit_note(ax, analysis, obs: str, sel: dict, loc=(0.04, 0.96)) -> None:
    """'fit k = ...' from ``<obs>_pooled_exponent`` of an analysis Dataset."""
    k = analysis_value(analysis, f"{obs}_pooled_exponent", **sel)
    if not np.isfinite(k):
        return
    dk = analysis_value(analysis, f"{obs}_pooled_exponent_stderr", **sel)
    text = rf"fit: $k = {k:.2f}" + (rf" \pm {dk:.2f}$" if np.isfinite(dk) else "$")
    ax.text(*loc, text, transform=ax.transAxes, ha="left", va="top", fontsize=7)


def n_legend(ax, loc="best", ncol=1, **kw):
    """A legend of the curves titled N (system size), when the axes have labelled curves."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc=loc, ncol=ncol, title=r"$N$", **kw)


def inset_complement(
    ax,
    ds: xr.Dataset,
    obs: str,
    colors: dict,
    *,
    at: float,
    analysis=None,
    sel: dict | None = None,
    bounds=None,
) -> None:
    """Inset: 1 − P versus N at N·J0 = ``at`` (nearest available, else the largest), log y.

    Placed in the first free corner of the panel (lower right preferred)
    unless ``bounds`` (axes fraction x0, y0, w, h) is given, and kept inside the panel once
    the figure is drawn (:func:`hyst.plotting.placement.keep_inside_later`).
    """
    bounds = bounds if bounds is not None else free_box(ax)
    ins = ax.inset_axes(bounds)
    ns, vals, errs, used, bounds_ = [], [], [], [], []
    trials = (
        {c[0]: c for c in observable_curves(ds, f"{obs}_trials")} if f"{obs}_trials" in ds else {}
    )
    for n, x, y, e in observable_curves(ds, obs):
        j = nearest(x, at)
        finite = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
        if j is None or finite.size == 0:
            continue
        if abs(math.log(x[j] / at)) > math.log(1.05):  # not there: the largest N J0
            j = finite[np.argmax(x[finite])]
        if not np.isfinite(y[j]):
            continue
        ns.append(n)
        vals.append(1.0 - y[j])
        errs.append(e[j])
        used.append(x[j])
        t = trials.get(n)
        k = np.flatnonzero(t[1] == x[j]) if t is not None else []
        bounds_.append(1.0 / t[2][k[0]] if len(k) and t[2][k[0]] > 0 else np.nan)
    ns, vals, errs, bounds_ = (np.asarray(a, float) for a in (ns, vals, errs, bounds_))
    pos = np.isfinite(vals) & (vals > 0)
    meanings = []  # (handle, text) of the inset's legend
    if pos.any():
        (guide,) = ins.plot(ns[pos], vals[pos], "-", color="0.6", lw=0.7, zorder=1)
        meanings.append((guide, "sampled"))
    for n, v, e in zip(ns, vals, errs, strict=True):
        errorbar(ins, [n], [v], [e], colors.get(n, "k"), log_y=True, ms=3)
    # 1 − P = 0 (every sample has a self-loop): open triangle at the one-count bound 1/trials
    zero = np.isfinite(vals) & (vals <= 0) & np.isfinite(bounds_)
    for n, b in zip(ns[zero], bounds_[zero], strict=True):
        ins.plot([n], [b], "v", ms=3.5, mfc="none", mec=colors.get(n, "k"), mew=0.8)
    if zero.any():
        meanings.append(
            (
                Line2D([], [], ls="", marker="v", ms=3.5, mfc="none", mec="k", mew=0.8),
                "none: 1/trials",
            )
        )

    ins.set_yscale("log")
    shown_vals = np.concatenate([vals[pos], bounds_[zero]])
    if shown_vals.size:
        lo, hi = shown_vals.min(), shown_vals.max()
        lo_d = 10 ** math.floor(math.log10(lo / 1.5))
        hi_d = min(1.5, 10 ** math.ceil(math.log10(hi * 1.5)))
        ins.set_ylim(lo_d, hi_d)
    ins.yaxis.set_major_locator(mpl.ticker.LogLocator(numticks=4))
    ins.yaxis.set_minor_formatter(mpl.ticker.NullFormatter())
    if ns.size:
        ins.set_xlim(ns.min() - 0.7, ns.max() + 0.7)
        step = max(1, int(math.ceil((ns.max() - ns.min() + 1) / 5)))
        ins.set_xticks(np.arange(int(ns.min()), int(ns.max()) + 1, step))
    ins.xaxis.set_minor_locator(mpl.ticker.NullLocator())
    ins.tick_params(labelsize=6, pad=1.5)
    ins.set_xlabel(r"$N$", fontsize=7, labelpad=0.5)
    # the symbol alone (a qualifier such as "(well-defined)" is the panel's title)
    ins.set_ylabel(
        r"$1-P_{sl}$"
        if obs == "self_loop_probability"
        else rf"$1-${axis_label(obs).split(' (')[0]}",
        fontsize=7,
        labelpad=0.5,
    )
    shown = used[0] if used and all(u == used[0] for u in used) else at
    ins.set_title(rf"$NJ_0 = {shown:g}$", fontsize=6, pad=1.5, loc="right")
    xi = analysis_value(analysis, f"{obs}_xi", **(sel or {}))
    amp = analysis_value(analysis, f"{obs}_decay_amplitude", **(sel or {}))
    if np.isfinite(xi) and np.isfinite(amp) and ns.size:
        nn = np.linspace(ns.min(), ns.max(), 50)
        (fit,) = ins.plot(nn, amp * np.exp(-nn / xi), "--", color="k", lw=0.7)
        meanings.append((fit, rf"$\propto e^{{-N/\xi}}$, $\xi = {xi:.2g}$"))
    for handle, meaning in meanings:
        if handle.axes is ins:
            declare(ins, meaning, handle)
    if meanings:  # lower left, free on decaying points (the y axis extended if not)
        handles, texts = zip(*meanings, strict=True)
        legend = ins.legend(
            list(handles),
            list(texts),
            loc="lower left",
            fontsize=4.5,
            handlelength=1.6,
            borderaxespad=0.2,
        )
        make_room(ins, legend, margin=3.0, below=True)
    keep_inside_later(ax, ins, bounds, then=lambda: _place_again(ax))


def _place_again(ax) -> None:
    """The labels of ``ax`` placed before its inset was (reference slopes), placed again."""
    for note in ax.texts:
        if getattr(note, "anchors", None):
            place_label(ax, note)


def loglog_panel(
    ax,
    ds,
    obs,
    colors,
    *,
    slope=None,
    analysis=None,
    sel=None,
    legend=False,
    log_y=True,
    slope_y_max=0.2,
):
    """Draw an observable against N J0 on log axes, one curve per N with error bars, and the
    reference slope and the fitted exponents where given; return the curves."""
    curves = observable_curves(ds, obs)
    for n, x, y, e in curves:
        errorbar(
            ax,
            x,
            y,
            e,
            colors.get(n, "k"),
            label=f"{int(n)}" if np.isfinite(n) else None,
            log_y=log_y,
        )
    ax.set_xscale("log")
    x_limits(ax, curves)
    if log_y:
        ax.set_yscale("log")
        log_limits(ax, curves, top=None)
        if "probability" in obs:  # probabilities: at most up to 1.5
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, min(1.5, hi * 1.5))
    ax.set_xlabel(axis_label("NJ0"))
    ax.set_ylabel(axis_label(obs))
    if slope is not None and log_y:
        slope_line(ax, curves, slope, y_max=slope_y_max)
    fit_note(ax, analysis, obs, sel or {})
    if legend:
        n_legend(ax)
    return curves
