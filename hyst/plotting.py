"""Figures of the paper from study datasets.

Every figure function takes the datasets written by the pipeline (dimensions
``couplings, spans, rule, N, NJ0``; per observable NAME the variables NAME and
NAME_stderr) and returns a :class:`matplotlib.figure.Figure`. Figures are built
on bare ``Figure`` objects (no pyplot state, any backend) inside the project
style (:func:`style`): serif (STIX) text, ticks in on all sides, small
frameless legends, curves from light to dark red as N increases, log axes for
the small-coupling power laws, dashed black reference slopes, error bars from
the ``*_stderr`` variables and panel letters (a), (b), ...

An optional ``analysis`` argument (the :func:`hyst.analysis.analyse_study`
Dataset of a study, or a dict ``{study: Dataset}``) adds the fitted
small-coupling exponents (``<obs>_pooled_exponent``) and the decay length of
1 − P versus N (``<obs>_xi``) to the panels; nothing else depends on it.

:data:`FIGURES` names each figure after the paper and lists the study
datasets it needs; :func:`render` draws one by name and :func:`save` writes
``stem.png`` and ``stem.pdf``.
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import matplotlib as mpl
import numpy as np
import xarray as xr
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = [
    "FIGURES",
    "LABELS",
    "REQUIRED_DATASETS",
    "STYLE",
    "FigureSpec",
    "fig_gap_vs_self_loops",
    "fig_gaps_and_self_loops",
    "fig_large_l4",
    "fig_pairs_l4",
    "fig_race_conditions",
    "fig_rules",
    "fig_stable_states",
    "fig_well_behaved_rule2",
    "l4_region_polygons",
    "n_colors",
    "render",
    "save",
    "style",
]

# --------------------------------------------------------------------------
# style
# --------------------------------------------------------------------------

#: rcParams of the project style (applied with :func:`style`).
STYLE: dict = {
    "font.family": "serif",
    "font.serif": ["STIXGeneral", "STIX Two Text", "Times New Roman", "DejaVu Serif"],
    "mathtext.fontset": "stix",
    "font.size": 9,
    "axes.labelsize": 10,
    "axes.titlesize": 9,
    "axes.linewidth": 0.7,
    "axes.titlepad": 3.0,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "legend.frameon": False,
    "legend.handlelength": 1.2,
    "legend.handletextpad": 0.4,
    "legend.borderaxespad": 0.3,
    "legend.labelspacing": 0.25,
    "legend.columnspacing": 0.8,
    "xtick.direction": "in",
    "ytick.direction": "in",
    "xtick.top": True,
    "ytick.right": True,
    "xtick.minor.visible": True,
    "ytick.minor.visible": True,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "xtick.major.size": 3.5,
    "ytick.major.size": 3.5,
    "xtick.minor.size": 1.8,
    "ytick.minor.size": 1.8,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.5,
    "ytick.minor.width": 0.5,
    "lines.linewidth": 1.1,
    "lines.markersize": 3.5,
    "errorbar.capsize": 0,
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.03,
    "pdf.fonttype": 42,
    "axes.formatter.use_mathtext": True,
}

#: Sequential colormap of the curves (light = smallest N).
CMAP = "Reds"
#: Colour of scatter markers (self-loop samples).
SCATTER_COLOR = "#d62728"

#: Axis labels of the observables.
LABELS: dict[str, str] = {
    "NJ0": r"$N J_0$",
    "N": r"$N$",
    "gap_probability_at_zero": r"$P_g^0$",
    "gap_fraction": r"$f_G$",
    "self_loop_probability_at_zero": r"$P_{sl}^0$",
    "self_loop_probability": r"$P_{sl}$",
    "race_condition_probability": r"$P_{\mathrm{RC}}$",
    "potentially_stable_over_spins": r"$P_s\,2^N/(N+1)$",
    "one_minus_self_loop_probability": r"$1-P_{sl}$",
}

_SPAN_TITLES = {
    "spin": r"spins ($\sigma_i = 0$)",
    "spins": r"spins ($\sigma_i = 0$)",
    "hysteron": r"hysterons ($\sigma_i \in [0, 0.5]$)",
    "hysterons": r"hysterons ($\sigma_i \in [0, 0.5]$)",
    "equal": r"equal spans ($\sigma_i = 0.5$)",
}
_RULE_TITLES = {"0": "rule 0", "1": "rule 1", "1p": r"rule $1'$", "2": "rule 2"}
_COUPLING_TITLES = {
    "symmetric": "symmetric",
    "columns": "constant columns",
    "rows": "constant rows",
    "random": "random",
    "weak": "weak asymmetry",
}


@contextlib.contextmanager
def style(**overrides):
    """Context manager applying the project style (:data:`STYLE` + overrides)."""
    with mpl.rc_context({**STYLE, **overrides}):
        yield


def n_colors(ns: Sequence, cmap: str = CMAP, lo: float = 0.3, hi: float = 0.95) -> dict:
    """{N: colour} from light (smallest N) to dark (largest N) on ``cmap``."""
    ns = [v for v in ns]
    cm = mpl.colormaps[cmap]
    if len(ns) == 1:
        return {ns[0]: cm(hi)}
    order = np.argsort(np.asarray(ns, float))
    out = {}
    for rank, i in enumerate(order):
        out[ns[i]] = cm(lo + (hi - lo) * rank / (len(ns) - 1))
    return out


def _letter(ax, i: int, text: str | None = None) -> None:
    """Panel letter (a), (b), ... (and an optional description) above the axes."""
    label = f"({chr(ord('a') + i)})"
    ax.set_title(f"{label} {text}" if text else label, loc="left")


def _figure(nrows: int, ncols: int, size: tuple[float, float]) -> tuple[Figure, np.ndarray]:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)  # a renderer for text extents (inset placement); any format saves
    axes = fig.subplots(nrows, ncols, squeeze=False)
    fig.get_layout_engine().set(w_pad=0.03, h_pad=0.03, wspace=0.03, hspace=0.04)
    return fig, axes


def _fmt_number(v: float) -> str:
    """2/3 -> '2/3', 4.0 -> '4', 2.5 -> '5/2'."""
    f = Fraction(float(v)).limit_denominator(12)
    if abs(float(f) - v) > 1e-6:
        return f"{v:g}"
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


# --------------------------------------------------------------------------
# data access
# --------------------------------------------------------------------------

_SELECT_DIMS = ("couplings", "spans", "rule")


def _sub(ds: xr.Dataset, **sel) -> xr.Dataset:
    """Select one couplings/spans/rule value (given, or the only one, or the first)."""
    for dim in _SELECT_DIMS:
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


def _x_values(ds: xr.Dataset, n: float) -> tuple[str, np.ndarray]:
    if "NJ0" in ds.dims:
        return "NJ0", np.asarray(ds["NJ0"].values, float)
    if "J0" in ds.dims:
        return "J0", n * np.asarray(ds["J0"].values, float)
    raise ValueError("dataset has neither an NJ0 nor a J0 dimension")


def _curves(ds: xr.Dataset, name: str, transform: Callable | None = None) -> list:
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
        xdim, x = _x_values(ds, float(n))
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


def _analysis_for(analysis, ds: xr.Dataset | None):
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


def _analysis_value(analysis, var: str, **sel) -> float:
    """One scalar from an analysis Dataset (NaN if absent or not scalar)."""
    if analysis is None or var not in analysis:
        return math.nan
    da = analysis[var]
    for dim in _SELECT_DIMS:
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


def _selection(ds: xr.Dataset) -> dict:
    """The couplings/spans/rule labels of a reduced dataset (for analysis lookup)."""
    return {d: ds[d].values.item() for d in _SELECT_DIMS if d in ds.coords and ds[d].ndim == 0}


def _nearest(values: np.ndarray, target: float) -> int | None:
    """Index of the value nearest to target in log scale (None if none finite > 0)."""
    v = np.asarray(values, float)
    ok = np.flatnonzero(np.isfinite(v) & (v > 0))
    if ok.size == 0:
        return None
    return int(ok[np.argmin(np.abs(np.log(v[ok] / target)))])


# --------------------------------------------------------------------------
# drawing helpers
# --------------------------------------------------------------------------


def _errorbar(ax, x, y, yerr, color, label=None, log_y=True, marker="o", **kw):
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


def _log_limits(ax, curves, pad=2.0, top=None):
    """y limits of a log axis from the positive finite data (not from error bars)."""
    ys = np.concatenate([c[2] for c in curves]) if curves else np.array([])
    ys = ys[np.isfinite(ys) & (ys > 0)]
    if ys.size == 0:
        ax.set_ylim(1e-3, 1.0)
        return
    lo = ys.min() / pad
    hi = ys.max() * pad if top is None else max(top, ys.max() * 1.2)
    ax.set_ylim(lo, hi)


def _x_limits(ax, curves, pad=1.4):
    xs = np.concatenate([c[1] for c in curves]) if curves else np.array([])
    xs = xs[np.isfinite(xs) & (xs > 0)]
    if xs.size:
        ax.set_xlim(xs.min() / pad, xs.max() * pad)


def _slope_line(
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
    text = label if label is not None else f"slope {_fmt_number(slope)}"
    ax.annotate(
        text,
        (px[0], py[0]),
        xytext=(4, 1),
        textcoords="offset points",
        ha="left",
        va="bottom",
        fontsize=7,
    )


def _occupied(ax) -> np.ndarray:
    """Axes-fraction coordinates of everything drawn: line points (densified) and texts."""
    pts = []
    to_axes = ax.transAxes.inverted()
    for line in ax.get_lines():
        xy = np.asarray(line.get_xydata(), float)
        if xy.ndim != 2 or xy.shape[0] == 0:
            continue
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if xy.shape[0] == 0:
            continue
        a = to_axes.transform(ax.transData.transform(xy))
        pts.append(a)
        if a.shape[0] > 1:  # points along the segments
            t = np.linspace(0, 1, 12)[1:-1, None]
            for p, q in zip(a[:-1], a[1:], strict=True):
                pts.append(p + t * (q - p))
    renderer = (
        ax.figure.canvas.get_renderer() if hasattr(ax.figure.canvas, "get_renderer") else None
    )
    extras = list(ax.texts)
    if ax.get_legend() is not None:
        extras.append(ax.get_legend())
    if renderer is not None:
        g = np.linspace(0, 1, 5)
        for art in extras:
            try:
                bb = art.get_window_extent(renderer)
            except (RuntimeError, TypeError, ValueError):
                continue
            gx, gy = np.meshgrid(bb.x0 + g * bb.width, bb.y0 + g * bb.height)
            pts.append(to_axes.transform(np.column_stack([gx.ravel(), gy.ravel()])))
    return np.concatenate(pts) if pts else np.empty((0, 2))


_INSET_BOXES = (
    (0.57, 0.14, 0.4, 0.34),  # lower right
    (0.14, 0.52, 0.4, 0.34),  # upper left
    (0.57, 0.52, 0.4, 0.34),  # upper right
    (0.14, 0.14, 0.4, 0.34),  # lower left
)


def _free_box(ax, boxes=_INSET_BOXES, margin=(0.12, 0.09)) -> tuple:
    """The first candidate inset box (axes fraction, with room for its labels)
    that covers no drawn point, else the least covered one."""
    pts = _occupied(ax)
    best, best_n = boxes[0], None
    for b in boxes:
        x0, y0, w, h = b
        inside = (
            (
                (pts[:, 0] > x0 - margin[0])
                & (pts[:, 0] < x0 + w + 0.02)
                & (pts[:, 1] > y0 - margin[1])
                & (pts[:, 1] < y0 + h + 0.02)
            )
            if pts.size
            else np.array([], bool)
        )
        n = int(inside.sum())
        if n == 0:
            return b
        if best_n is None or n < best_n:
            best, best_n = b, n
    return best


def _fit_note(ax, analysis, obs: str, sel: dict, loc=(0.04, 0.96)) -> None:
    """'fit k = ...' from ``<obs>_pooled_exponent`` of an analysis Dataset."""
    k = _analysis_value(analysis, f"{obs}_pooled_exponent", **sel)
    if not np.isfinite(k):
        return
    dk = _analysis_value(analysis, f"{obs}_pooled_exponent_stderr", **sel)
    text = rf"fit: $k = {k:.2f}" + (rf" \pm {dk:.2f}$" if np.isfinite(dk) else "$")
    ax.text(*loc, text, transform=ax.transAxes, ha="left", va="top", fontsize=7)


def _n_legend(ax, loc="best", ncol=1, **kw):
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc=loc, ncol=ncol, title=r"$N$", **kw)


def _inset_complement(
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
    unless ``bounds`` (axes fraction x0, y0, w, h) is given.
    """
    ins = ax.inset_axes(bounds if bounds is not None else _free_box(ax))
    ns, vals, errs, used, bounds_ = [], [], [], [], []
    trials = {c[0]: c for c in _curves(ds, f"{obs}_trials")} if f"{obs}_trials" in ds else {}
    for n, x, y, e in _curves(ds, obs):
        j = _nearest(x, at)
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
    if pos.any():
        ins.plot(ns[pos], vals[pos], "-", color="0.6", lw=0.7, zorder=1)
    for n, v, e in zip(ns, vals, errs, strict=True):
        _errorbar(ins, [n], [v], [e], colors.get(n, "k"), log_y=True, ms=3)
    # 1 − P = 0 (every sample has a self-loop): open triangle at the one-count bound 1/trials
    zero = np.isfinite(vals) & (vals <= 0) & np.isfinite(bounds_)
    for n, b in zip(ns[zero], bounds_[zero], strict=True):
        ins.plot([n], [b], "v", ms=3.5, mfc="none", mec=colors.get(n, "k"), mew=0.8)
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
    ins.set_ylabel(
        LABELS["one_minus_self_loop_probability"]
        if obs == "self_loop_probability"
        else rf"$1-${LABELS.get(obs, obs)}",
        fontsize=7,
        labelpad=0.5,
    )
    shown = used[0] if used and all(u == used[0] for u in used) else at
    ins.set_title(rf"$NJ_0 = {shown:g}$", fontsize=6, pad=1.5, loc="right")
    xi = _analysis_value(analysis, f"{obs}_xi", **(sel or {}))
    amp = _analysis_value(analysis, f"{obs}_decay_amplitude", **(sel or {}))
    if np.isfinite(xi) and np.isfinite(amp) and ns.size:
        nn = np.linspace(ns.min(), ns.max(), 50)
        ins.plot(nn, amp * np.exp(-nn / xi), "--", color="k", lw=0.7)
        ins.text(
            0.05,
            0.07,
            rf"$\xi = {xi:.2g}$",
            transform=ins.transAxes,
            ha="left",
            va="bottom",
            fontsize=6,
        )


def _loglog_panel(
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
    curves = _curves(ds, obs)
    for n, x, y, e in curves:
        _errorbar(
            ax,
            x,
            y,
            e,
            colors.get(n, "k"),
            label=f"{int(n)}" if np.isfinite(n) else None,
            log_y=log_y,
        )
    ax.set_xscale("log")
    _x_limits(ax, curves)
    if log_y:
        ax.set_yscale("log")
        _log_limits(ax, curves, top=None)
        if "probability" in obs:  # probabilities: at most up to 1.5
            lo, hi = ax.get_ylim()
            ax.set_ylim(lo, min(1.5, hi * 1.5))
    ax.set_xlabel(LABELS["NJ0"])
    ax.set_ylabel(LABELS.get(obs, obs))
    if slope is not None and log_y:
        _slope_line(ax, curves, slope, y_max=slope_y_max)
    _fit_note(ax, analysis, obs, sel or {})
    if legend:
        _n_legend(ax)
    return curves


# --------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------

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
    slopes: Sequence[float | None] | None = (4, 4, 4, 3),
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
    slope per panel (None for none), e.g. (4, 4, 4, 3) for Fig. 2,
    (2, 2, 2, 2/3) for spins, (5, 4, 5, 4) for weak asymmetry, None for equal spans.
    """
    ds = _sub(ds, couplings=couplings, spans=spans, rule=rule)
    sel = _selection(ds)
    analysis = _analysis_for(analysis, ds)
    slopes = list(slopes) if slopes is not None else [None] * 4
    slopes += [None] * (4 - len(slopes))
    colors = n_colors(list(ds["N"].values))
    with style():
        fig, axes = _figure(2, 2, size)
        for i, (ax, obs) in enumerate(zip(axes.flat, _FIG2_OBS, strict=True)):
            _loglog_panel(
                ax, ds, obs, colors, slope=slopes[i], analysis=analysis, sel=sel, legend=(i == 0)
            )
            _letter(ax, i)
        _inset_complement(
            axes[1, 1], ds, "self_loop_probability", colors, at=inset_at, analysis=analysis, sel=sel
        )
        if title:
            fig.suptitle(title)
    return fig


def _three_panel(datasets, titles, draw, size=(7.2, 2.5)):
    with style():
        fig, axes = _figure(1, len(datasets), size)
        for i, (ax, ds) in enumerate(zip(axes.flat, datasets, strict=True)):
            draw(ax, ds, i)
            _letter(ax, i, titles[i])
    return fig


def _span_title(ds: xr.Dataset, default: str) -> str:
    if "spans" in ds.coords:
        v = np.atleast_1d(ds["spans"].values)
        if v.size == 1:
            return _SPAN_TITLES.get(str(v[0]), str(v[0]))
    return default


def fig_race_conditions(
    ds_spins, ds_hysterons, ds_equal, analysis=None, *, slope=2.0, size=(7.2, 2.5)
) -> Figure:
    """Supplemental "Statistics of race conditions": P_RC versus N·J0 (log-log).

    (a) spins, (b) hysterons with spans in [0, 0.5], (c) equal spans; one
    curve per N, dashed reference ``slope`` (paper: 2).
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [_sub(d) for d in (ds_spins, ds_hysterons, ds_equal)]

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        _loglog_panel(
            ax,
            ds,
            "race_condition_probability",
            colors,
            slope=slope,
            analysis=_analysis_for(analysis, ds),
            sel=_selection(ds),
            legend=(i == 0),
        )

    return _three_panel(
        dss, [_span_title(d, t) for d, t in zip(dss, defaults, strict=True)], draw, size
    )


def fig_stable_states(
    ds_spins, ds_hysterons, ds_equal, analysis=None, *, log_y=False, size=(7.2, 2.5)
) -> Figure:
    """Supplemental "Fraction of potentially stable states": P_s 2^N/(N+1) versus N·J0.

    (a) spins (exactly 1), (b) hysterons, (c) equal spans; log x, linear y
    (``log_y=True`` for log), dotted line at the spin value 1.
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [_sub(d) for d in (ds_spins, ds_hysterons, ds_equal)]
    obs = "potentially_stable_over_spins"
    ymax = 0.0
    for d in dss:
        v = np.asarray(d[obs].values, float)
        if np.isfinite(v).any():
            ymax = max(ymax, float(np.nanmax(v)))

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        _loglog_panel(ax, ds, obs, colors, log_y=log_y, legend=(i == 0))
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


def fig_gap_vs_self_loops(
    ds_spins, ds_hysterons, ds_equal, analysis=None, *, log=True, size=(7.2, 2.6)
) -> Figure:
    """Supplemental "Probability of self-loops as a function of the probability of gaps".

    P_sl^0 versus P_g^0 at H = 0, one marker per N·J0, connected per N (light
    to dark); the dashed black line is y = x. (a) spins, (b) hysterons,
    (c) equal spans. Log-log by default (points with a zero are dropped).
    """
    defaults = ["spins", "hysterons", "equal spans"]
    dss = [_sub(d) for d in (ds_spins, ds_hysterons, ds_equal)]

    def draw(ax, ds, i):
        colors = n_colors(list(ds["N"].values))
        g = _curves(ds, "gap_probability_at_zero")
        s = _curves(ds, "self_loop_probability_at_zero")
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
                    xerr=_clip_err(gy[ok], gerr[ok], log),
                    yerr=_clip_err(sy[ok], serr[ok], log),
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
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel(LABELS["gap_probability_at_zero"])
        ax.set_ylabel(LABELS["self_loop_probability_at_zero"])
        if i == 0:
            _n_legend(ax, loc="lower right")

    return _three_panel(
        dss, [_span_title(d, t) for d, t in zip(dss, defaults, strict=True)], draw, size
    )


def _clip_err(v, e, log):
    e = np.where(np.isfinite(e) & (e > 0), e, 0.0)
    if not np.any(e > 0):
        return None
    lower = np.minimum(e, v * (1 - 1e-6)) if log else e
    return np.vstack([lower, e])


def _length_distribution(ds: xr.Dataset, rule, N: float, NJ0: float):
    """(L, P(L), N used, NJ0 used) of the self-loop length histogram nearest to (N, NJ0)."""
    d = _sub(ds, rule=rule)
    h = d["self_loop_length_hist"]
    n_used = nj_used = math.nan
    if "N" in h.dims:
        h = h.sel(N=N, method="nearest")
        n_used = float(h["N"].values)
    if "NJ0" in h.dims:
        j = _nearest(h["NJ0"].values, NJ0)
        h = h.isel(NJ0=j if j is not None else 0)
        nj_used = float(h["NJ0"].values)
    counts = np.asarray(h.squeeze().values, float).reshape(-1)
    L = np.asarray(h["L"].values, float) if "L" in h.coords else np.arange(counts.size)
    counts = np.where(np.isfinite(counts), counts, 0.0)
    total = counts.sum()
    p = counts / total if total > 0 else np.full_like(counts, np.nan)
    return L, p, n_used, nj_used


def _self_loop_panel(ax, ds, slope, analysis, sel, inset_at, first):
    """P_sl versus N J0 (one curve per N) with the 1 − P_sl versus N inset."""
    colors = n_colors(list(ds["N"].values))
    _loglog_panel(
        ax,
        ds,
        "self_loop_probability",
        colors,
        slope=slope,
        analysis=analysis,
        sel=sel,
        legend=first,
    )
    if first:
        ax.get_legend().set_loc("upper left")
        ax.get_legend().set_bbox_to_anchor((0.0, 0.92))
    _inset_complement(
        ax, ds, "self_loop_probability", colors, at=inset_at, analysis=analysis, sel=sel
    )


def fig_rules(
    ds_rules,
    ds_rules_sizes=None,
    analysis=None,
    *,
    slope=3.0,
    rules: Sequence[str] | None = None,
    inset_at: float = 100.0,
    hist_N: float = 8,
    hist_NJ0: float = 20.0,
    size=(10.0, 4.6),
) -> Figure:
    """Supplemental "Self-loop statistics for ... different race condition rules".

    Top row (a-d): P_sl versus N·J0 for rules 0, 1, 1', 2 (one curve per N,
    dashed ``slope``), inset 1 − P_sl versus N at N·J0 = ``inset_at``. Bottom
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
        fig, axes = _figure(2, len(rules), size)
        for i, r in enumerate(rules):
            ds = _sub(ds_rules, rule=r)
            sel = _selection(ds)
            ana = _analysis_for(analysis, ds_rules)
            ax = axes[0, i]
            _self_loop_panel(ax, ds, slope, ana, sel, inset_at, first=(i == 0))
            _letter(ax, i, _RULE_TITLES.get(r, f"rule {r}"))
            ax2 = axes[1, i]
            _letter(ax2, len(rules) + i, _RULE_TITLES.get(r, f"rule {r}"))
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
    slope=4.0,
    couplings: Sequence[str] = ("symmetric", "columns", "rows"),
    inset_at: float = 100.0,
    rule=None,
    size=(7.2, 2.6),
) -> Figure:
    """Supplemental "Self-loop statistics for well-behaved models ... rule 2".

    P_sl versus N·J0 for (a) symmetric, (b) constant-columns, (c) constant-rows
    couplings under rule 2 (all self-loops have L = 2), dashed ``slope``
    (paper: 4); insets 1 − P_sl versus N at N·J0 = ``inset_at``.
    """
    present = [str(c) for c in np.atleast_1d(ds["couplings"].values)]
    couplings = [c for c in couplings if c in present] or present
    with style():
        fig, axes = _figure(1, len(couplings), size)
        for i, c in enumerate(couplings):
            d = _sub(ds, couplings=c, rule=rule)
            sel = _selection(d)
            ana = _analysis_for(analysis, ds)
            ax = axes[0, i]
            _self_loop_panel(ax, d, slope, ana, sel, inset_at, first=(i == 0))
            _letter(ax, i, _COUPLING_TITLES.get(c, c))
    return fig


# ---- L = 4 self-loops -----------------------------------------------------


def _clip(poly: list, a: float, b: float, c: float) -> list:
    """Sutherland–Hodgman: the part of a convex polygon with a·x + b·y ≤ c."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if fp <= 0:
            out.append(p)
        if fp * fq < 0:
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def l4_region_polygons(sigma: float, delta_h: float, lim: float) -> list[np.ndarray]:
    """Polygons (within the box |c12|, |c21| ≤ lim) where two elements have an L = 4 self-loop.

    Supplemental Eq. for equal spans σ (σ = 0: spins): c12 c21 < 0,
    |c12| > σ/2, |c21| > σ/2 and |c12 − c21| > |Δh^c + σ|; one polygon for
    c12 > 0 > c21 and its mirror for c12 < 0 < c21.
    """
    d = abs(delta_h + sigma)
    s = sigma / 2.0
    box = [(-lim, -lim), (lim, -lim), (lim, lim), (-lim, lim)]
    out = []
    # c12 >= s, c21 <= -s, c12 - c21 >= d
    p = _clip(_clip(_clip(box, -1, 0, -s), 0, 1, -s), -1, 1, -d)
    if len(p) >= 3:
        out.append(np.asarray(p))
    # c12 <= -s, c21 >= s, c21 - c12 >= d
    p = _clip(_clip(_clip(box, 1, 0, -s), 0, -1, -s), 1, -1, -d)
    if len(p) >= 3:
        out.append(np.asarray(p))
    return out


def _draw_region(ax, polygons, lim, **kw):
    """Dashed edges of the region polygons, leaving out the edges on the box border."""
    style_kw = {"color": "k", "ls": "--", "lw": 0.9, "zorder": 4, **kw}
    tol = 1e-9 * max(1.0, lim)
    for poly in polygons:
        n = len(poly)
        for i in range(n):
            p, q = poly[i], poly[(i + 1) % n]
            on_border = any(
                abs(p[k] - v) < tol and abs(q[k] - v) < tol for k in (0, 1) for v in (-lim, lim)
            )
            if not on_border:
                ax.plot([p[0], q[0]], [p[1], q[1]], **style_kw)


def _scatter_panel(ax, x, y, lim, *, ms=1.5, alpha=0.25):
    ok = np.isfinite(x) & np.isfinite(y)
    ax.scatter(
        x[ok], y[ok], s=ms, color=SCATTER_COLOR, alpha=alpha, lw=0, rasterized=True, zorder=2
    )
    ax.axhline(0, color="0.7", lw=0.5, zorder=1)
    ax.axvline(0, color="0.7", lw=0.5, zorder=1)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal", adjustable="box")


def fig_pairs_l4(
    pairs: xr.Dataset,
    analysis=None,
    *,
    lim: float | None = None,
    delta_h: float | None = None,
    ms: float = 1.5,
    alpha: float = 0.25,
    size=None,
) -> Figure:
    """Supplemental "Sampling self-loops for N = 2 interacting elements".

    One panel per span σ (``pairs`` dims ``sigma, pair``): (c12, c21) of the
    systems with an L = 4 self-loop (small red transparent markers), with the
    dashed boundaries of the analytic region (:func:`l4_region_polygons`; σ = 0:
    c12 c21 < 0 and |c12 − c21| > |Δh^c|), Δh^c from ``attrs['delta_h']``.
    """
    dh = float(delta_h if delta_h is not None else pairs.attrs.get("delta_h", 1.0))
    sigmas = np.atleast_1d(pairs["sigma"].values) if "sigma" in pairs.dims else [0.0]
    if lim is None:
        cm = pairs.attrs.get("c_max")
        if cm is not None and np.isfinite(float(cm)):
            lim = float(cm)
        else:
            v = np.abs(
                np.concatenate([np.ravel(pairs["c12"].values), np.ravel(pairs["c21"].values)])
            )
            v = v[np.isfinite(v)]
            lim = float(v.max()) if v.size else 1.0
    n = len(sigmas)
    size = size or (2.5 * n + 0.3, 2.7)
    with style():
        fig, axes = _figure(1, n, size)
        for i, s in enumerate(sigmas):
            p = pairs.sel(sigma=s) if "sigma" in pairs.dims else pairs
            loop = np.asarray(p["self_loop"].values).reshape(-1).astype(bool)
            x = np.asarray(p["c12"].values, float).reshape(-1)[loop]
            y = np.asarray(p["c21"].values, float).reshape(-1)[loop]
            ax = axes[0, i]
            _scatter_panel(ax, x, y, lim, ms=ms, alpha=alpha)
            _draw_region(ax, l4_region_polygons(float(s), dh, lim), lim)
            ax.set_xlabel(r"$c_{12}$")
            ax.set_ylabel(r"$c_{21}$")
            name = "spins, " if float(s) == 0 else ""
            _letter(ax, i, rf"{name}$\sigma = {float(s):g}$")
            ax.text(
                0.97,
                0.97,
                rf"$\Delta h^c = {dh:g}$",
                transform=ax.transAxes,
                ha="right",
                va="top",
                fontsize=7,
            )
    return fig


def l4_rescaled(ds: xr.Dataset, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Rescaled couplings (c_kl/Δh̃, c_lk/Δh̃) of L = 4 records, oriented so Δh̃ = h̃_l − h̃_k > 0."""
    ckl = np.asarray(ds["l4_c_kl"].values, float)
    clk = np.asarray(ds["l4_c_lk"].values, float)
    dh = np.asarray(ds["l4_h_tilde_l"].values, float) - np.asarray(ds["l4_h_tilde_k"].values, float)
    if mask is not None:
        ckl, clk, dh = ckl[mask], clk[mask], dh[mask]
    swap = dh < 0
    x = np.where(swap, clk, ckl)
    y = np.where(swap, ckl, clk)
    with np.errstate(divide="ignore", invalid="ignore"):
        ad = np.abs(dh)
        x = np.where(ad > 0, x / ad, np.nan)
        y = np.where(ad > 0, y / ad, np.nan)
    return x, y


def fig_large_l4(
    large_l4: xr.Dataset,
    analysis=None,
    *,
    spans: Sequence[str] = ("spin", "hysteron"),
    N=None,
    NJ0=None,
    lim: float = 4.0,
    ms: float = 1.5,
    alpha: float = 0.25,
    size=None,
) -> Figure:
    """Supplemental "Self-loops of size 4 in large systems" (N = 1024, N·J0 = 10).

    One panel per span ensemble (``l4_spans``): each recorded L = 4 self-loop of
    elements k, l as a point (c_kl/Δh̃, c_lk/Δh̃), Δh̃ = h̃_l^c − h̃_k^c > 0
    (k, l swapped when negative), with the N = 2 spin region |x − y| > 1,
    x y < 0 dashed; the fraction of records inside it is printed.
    """
    labels = (
        np.asarray(large_l4["l4_spans"].values).astype(str)
        if "l4_spans" in large_l4
        else np.array([], str)
    )
    base = np.ones(labels.size, bool)
    if N is not None and "l4_N" in large_l4:
        base &= np.asarray(large_l4["l4_N"].values) == N
    if NJ0 is not None and "l4_NJ0" in large_l4:
        base &= np.isclose(np.asarray(large_l4["l4_NJ0"].values, float), NJ0)
    spans = list(spans)
    n = len(spans)
    size = size or (2.6 * n + 0.3, 2.8)
    with style():
        fig, axes = _figure(1, n, size)
        for i, sp in enumerate(spans):
            ax = axes[0, i]
            m = base & (labels == sp)
            x, y = l4_rescaled(large_l4, m) if m.any() else (np.array([]), np.array([]))
            _scatter_panel(ax, x, y, lim, ms=ms, alpha=alpha)
            _draw_region(ax, l4_region_polygons(0.0, 1.0, lim), lim)
            ax.set_xlabel(r"$c_{kl}/\Delta\tilde h^c$")
            ax.set_ylabel(r"$c_{lk}/\Delta\tilde h^c$")
            title = {"spin": "spins", "hysteron": "hysterons"}.get(sp, sp)
            _letter(ax, i, title)
            ok = np.isfinite(x) & np.isfinite(y)
            if ok.any():
                inside = ((np.abs(x - y) > 1) & (x * y < 0))[ok].mean()
                ax.text(
                    0.97,
                    0.97,
                    f"{ok.sum()} loops\n{100 * inside:.1f}% in region",
                    transform=ax.transAxes,
                    ha="right",
                    va="top",
                    fontsize=6.5,
                )
            else:
                ax.text(0.5, 0.5, "no records", transform=ax.transAxes, ha="center")
            nn = (
                np.unique(np.asarray(large_l4["l4_N"].values)[m])
                if "l4_N" in large_l4 and m.any()
                else []
            )
            if len(nn) == 1:
                ax.text(0.03, 0.03, rf"$N = {nn[0]}$", transform=ax.transAxes, fontsize=7)
    return fig


# --------------------------------------------------------------------------
# large strictly self-loop-free systems (main Fig. 4 and Supplemental)
# --------------------------------------------------------------------------

ENSEMBLE_TITLES = {"symmetric": "symmetric", "columns": "constant columns", "rows": "constant rows"}


def _large_sel(ds, couplings, rule="1"):
    sub = ds.sel(couplings=couplings)
    if "rule" in sub.dims:
        sub = sub.sel(rule=rule if rule in sub.rule.values else sub.rule.values[0])
    if "spans" in sub.dims:
        sub = sub.isel(spans=0)
    return sub


def _mean_vs_nj0(ax, ds, var, couplings, rule="1", log_y=True, marker="o", label_n=True):
    """One curve per N of a mean observable versus N J0 (J0-grid datasets)."""
    sub = _large_sel(ds, couplings, rule)
    colors = n_colors(list(sub.N.values), cmap="Blues" if var != "transient" else "Reds")
    for n in sub.N.values:
        row = sub.sel(N=n)
        x = (row.NJ0 if "NJ0" in row.coords and row.NJ0.ndim else row.J0 * n).values
        _errorbar(
            ax,
            x,
            row[var].values,
            row[f"{var}_stderr"].values,
            colors[n],
            label=str(int(n)) if label_n else None,
            log_y=log_y,
            marker=marker,
            ms=3,
        )
    ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")


def fig_large_n(ds, ds_rule0=None, *, analysis=None, size=(7.0, 5.2)):
    """Main Fig. 4: ⟨A⟩ (a, b) and ⟨τ⟩ (c, d) versus N J0 for constant columns (left) and
    symmetric couplings (right), N = 16…512 light to dark; rule 1, σ ~ U[0, 0.5].
    With ``ds_rule0``, (a) also shows constant columns under rule 0 (open markers, A ≤ 2)."""
    fig, axes = _figure(2, 2, size)
    for col, couplings in enumerate(("columns", "symmetric")):
        ax = axes[0, col]
        _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
        if couplings == "columns" and ds_rule0 is not None:
            sub = _large_sel(ds_rule0, "columns", "0")
            for n in sub.N.values[-1:]:
                row = sub.sel(N=n)
                ax.plot(
                    (row.J0 * n).values,
                    row.avalanche_size.values,
                    "s",
                    mfc="none",
                    color="0.3",
                    ms=3,
                    label=f"rule 0, N={int(n)}",
                )
        ax.set_ylabel(r"$\langle A \rangle$")
        _letter(ax, col, ENSEMBLE_TITLES[couplings])
        _n_legend(ax, loc="upper left", fontsize=6)
        ax = axes[1, col]
        _mean_vs_nj0(ax, ds, "transient", couplings, log_y=False)
        ax.set_ylabel(r"$\langle \tau \rangle$")
        ax.set_xlabel(r"$N J_0$")
        _letter(ax, 2 + col, ENSEMBLE_TITLES[couplings])
    return fig


def fig_avalanche_distributions(ds_1024, ds, *, analysis=None, size=(7.2, 4.6)):
    """Supplemental: avalanche-size distributions P(A) at the largest N for J0 = 10^-2…10^2
    (a–c, light to dark as J0 grows) and ⟨A⟩ versus N J0 for N = 16…512 (d–f),
    for symmetric, constant-columns and constant-rows couplings."""
    fig, axes = _figure(2, 3, size)
    for col, couplings in enumerate(("symmetric", "columns", "rows")):
        ax = axes[0, col]
        sub = _large_sel(ds_1024, couplings).isel(N=-1)
        j0s = list(sub.J0.values)
        colors = n_colors(j0s, cmap="Blues")
        for j0 in j0s:
            h = sub.sel(J0=j0).avalanche_size_hist.values.astype(float)
            if h.sum() <= 0:
                continue
            p = h / h.sum()
            a = np.arange(p.size)
            ok = p > 0
            ax.plot(a[ok], p[ok], "o-", ms=2, lw=0.8, color=colors[j0], label=f"{j0:.3g}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        if sub.avalanche_size_hist.sum("J0").values[3:].sum() == 0:  # A <= 2 (constant rows)
            ax.set_xticks([1, 2], ["1", "2"])
            ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
        ax.set_xlabel(r"$A$")
        ax.set_ylabel(r"$P(A)$")
        _letter(ax, col, ENSEMBLE_TITLES[couplings])
        ax.text(0.96, 0.92, rf"$N = {int(sub.N)}$", transform=ax.transAxes, fontsize=7, ha="right")
        if col == 0:  # the same J0 in every panel: one legend, where P(A) has no points
            ax.legend(title=r"$J_0$", fontsize=5, title_fontsize=6, loc="lower left", ncol=2)
        ax = axes[1, col]
        _mean_vs_nj0(ax, ds, "avalanche_size", couplings)
        ax.set_xlabel(r"$N J_0$")
        ax.set_ylabel(r"$\langle A \rangle$")
        _letter(ax, 3 + col)
        _n_legend(ax, loc="upper left", fontsize=6)
    return fig


def fig_cyclic_drive(ds, *, analysis=None, size=(7.2, 4.6)):
    """Supplemental: transients ⟨τ⟩ (a–c) and periods ⟨T⟩ (d–f) of the cyclic drive
    versus J0 for symmetric, constant-columns and constant-rows couplings,
    N = 16…512 light to dark."""
    fig, axes = _figure(2, 3, size)
    for col, couplings in enumerate(("symmetric", "columns", "rows")):
        sub = _large_sel(ds, couplings)
        colors = n_colors(list(sub.N.values), cmap="Reds")
        for row_i, var, sym in ((0, "transient", r"\tau"), (1, "period", "T")):
            ax = axes[row_i, col]
            for n in sub.N.values:
                row = sub.sel(N=n)
                _errorbar(
                    ax,
                    row.J0.values,
                    row[var].values,
                    row[f"{var}_stderr"].values,
                    colors[n],
                    label=str(int(n)),
                    log_y=False,
                    ms=3,
                )
            ax.set_xscale("log")
            ax.set_xlabel(r"$J_0$")
            ax.set_ylabel(rf"$\langle {sym} \rangle$")
            _letter(ax, 3 * row_i + col, ENSEMBLE_TITLES[couplings])
            ax.ticklabel_format(axis="y", useOffset=False)
            if row_i == 0 and col == 0:
                _n_legend(ax, loc="upper right", fontsize=6)
    return fig


# --------------------------------------------------------------------------
# registry
# --------------------------------------------------------------------------


class FigureSpec(NamedTuple):
    """A paper figure: drawing function, description, study datasets it needs (in
    the order of the function's positional arguments) and default parameters."""

    function: Callable[..., Figure]
    description: str
    datasets: tuple[str, ...]
    params: dict


_REPLICA = "Supplemental replica of Fig. 2: P_g^0, f_G, P_sl^0, P_sl vs N J0 (inset 1 - P_sl vs N)"

#: name -> FigureSpec(function, description, datasets, params).
FIGURES: dict[str, FigureSpec] = {
    "fig2_random_hysterons": FigureSpec(
        fig_gaps_and_self_loops,
        "Main Fig. 2: gaps and self-loops of randomly coupled hysterons, P_g^0, f_G, P_sl^0, "
        "P_sl vs N J0 (slopes 4, 4, 4, 3; inset 1 - P_sl vs N at N J0 = 100)",
        ("random_hysterons",),
        {"slopes": (4, 4, 4, 3)},
    ),
    "figS_spins": FigureSpec(
        fig_gaps_and_self_loops,
        f"{_REPLICA}; binary spins (slopes 2, 2, 2, 2/3)",
        ("spins",),
        {"slopes": (2, 2, 2, 2 / 3)},
    ),
    "figS_equal_spans": FigureSpec(
        fig_gaps_and_self_loops,
        f"{_REPLICA}; hysterons with equal spans (no slopes: lower N J0 cutoff)",
        ("equal_spans",),
        {"slopes": None},
    ),
    "figS_weak_asymmetry": FigureSpec(
        fig_gaps_and_self_loops,
        f"{_REPLICA}; weakly asymmetric couplings c_ij c_ji > 0 (slopes 5, 4, 5, 4)",
        ("weak_asymmetry",),
        {"slopes": (5, 4, 5, 4)},
    ),
    "figS_race_conditions": FigureSpec(
        fig_race_conditions,
        "Supplemental: race-condition probability P_RC vs N J0 for spins, hysterons, "
        "equal spans (slope 2)",
        ("spins", "random_hysterons", "equal_spans"),
        {"slope": 2.0},
    ),
    "figS_stable_states": FigureSpec(
        fig_stable_states,
        "Supplemental: fraction of potentially stable states P_s 2^N/(N+1) vs N J0 for spins, "
        "hysterons, equal spans",
        ("spins", "random_hysterons", "equal_spans"),
        {},
    ),
    "figS_gap_vs_self_loops": FigureSpec(
        fig_gap_vs_self_loops,
        "Supplemental: P_sl^0 vs P_g^0 at H = 0 (one point per N J0, y = x dashed) for spins, "
        "hysterons, equal spans",
        ("spins", "random_hysterons", "equal_spans"),
        {},
    ),
    "figS_rules": FigureSpec(
        fig_rules,
        "Supplemental: race-condition rules 0, 1, 1', 2: P_sl vs N J0 (slope 3, inset 1 - P_sl "
        "vs N) and self-loop length distributions at N = 8, N J0 = 20",
        ("rules", "rules_sizes"),
        {"slope": 3.0},
    ),
    "figS_well_behaved_rule2": FigureSpec(
        fig_well_behaved_rule2,
        "Supplemental: well-behaved ensembles (symmetric, constant columns, constant rows) "
        "under rule 2: P_sl vs N J0 (slope 4, inset 1 - P_sl vs N)",
        ("well_behaved_rule2",),
        {"slope": 4.0},
    ),
    "figS_l4_pairs": FigureSpec(
        fig_pairs_l4,
        "Supplemental: L = 4 self-loops of N = 2 elements in the (c12, c21) plane per span "
        "sigma, with the analytic region",
        ("pairs",),
        {},
    ),
    "figS_l4_large": FigureSpec(
        fig_large_l4,
        "Supplemental: L = 4 self-loops in large systems (N = 1024, N J0 = 10) in the rescaled "
        "(c_kl, c_lk)/Delta h~ plane, spins and hysterons, with the N = 2 spin region",
        ("large_l4",),
        {},
    ),
    "fig4_large_n": FigureSpec(
        fig_large_n,
        "Main Fig. 4: mean avalanche size <A> and transient <tau> vs N J0 for constant "
        "columns and symmetric couplings, N = 16...512 (rule 1; rule 0 for comparison)",
        ("large_n", "large_n_rule0"),
        {},
    ),
    "figS_avalanche_distributions": FigureSpec(
        fig_avalanche_distributions,
        "Supplemental: avalanche-size distributions at N = 1024 for J0 = 1e-2...1e2 and <A> vs "
        "N J0 for N = 16...512 (symmetric, constant columns, constant rows)",
        ("large_n_1024", "large_n"),
        {},
    ),
    "figS_cyclic_drive": FigureSpec(
        fig_cyclic_drive,
        "Supplemental: cyclic drive, transient <tau> and period <T> vs J0 (symmetric, constant "
        "columns, constant rows), N = 16...512",
        ("large_n",),
        {},
    ),
}

#: name -> study datasets the figure needs.
REQUIRED_DATASETS: dict[str, tuple[str, ...]] = {k: v.datasets for k, v in FIGURES.items()}


#: (figure, dataset) pairs a figure can do without.
OPTIONAL = {("figS_rules", "rules_sizes"), ("fig4_large_n", "large_n_rule0")}


def render(name: str, datasets: Mapping[str, xr.Dataset], analysis=None, **params) -> Figure:
    """Draw the registered figure ``name`` from ``datasets`` ({study: Dataset}).

    ``analysis``: None, one analysis Dataset, or {study: analysis Dataset};
    ``params`` override the registry defaults. A missing dataset raises KeyError.
    """
    if name not in FIGURES:
        raise KeyError(f"unknown figure {name!r}; known: {', '.join(FIGURES)}")
    spec = FIGURES[name]
    missing = [d for d in spec.datasets if d not in datasets or datasets[d] is None]
    # optional datasets: rules_sizes (falls back on rules), large_n_rule0
    missing = [d for d in missing if (name, d) not in OPTIONAL]
    if missing:
        raise KeyError(f"{name} needs datasets {missing}")
    args = [datasets.get(d) for d in spec.datasets]
    return spec.function(*args, analysis=analysis, **{**spec.params, **params})


def save(fig: Figure, stem, *, dpi: int = 200, formats: Sequence[str] = ("png", "pdf")) -> list:
    """Write ``stem.png`` (``dpi``) and ``stem.pdf``; returns the paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    with style():
        for ext in formats:
            path = stem.with_name(f"{stem.name}.{ext}")
            fig.savefig(path, dpi=dpi, bbox_inches="tight")
            paths.append(path)
    return paths
