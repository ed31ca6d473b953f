"""Local slopes d ln P / d ln(N J0) versus N J0 (one curve per N): the view in which a
crossover between two power laws shows as a step instead of being averaged into one fit.

The slopes, each N's fit window and the pooled exponent come from the study's analysis
(:mod:`hyst.analysis.exponents`), or are computed from the dataset when none is given.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst import catalogue
from hyst.analysis.exponents import small_coupling_exponents
from hyst.catalogue.labels import COUPLING_TITLES, RULE_TITLES
from hyst.plotting.panels import SELECT_DIMS, analysis_for, n_legend
from hyst.plotting.style import (
    SPAN_TITLES,
    decade_ticks,
    label,
    n_colors,
    new_figure,
    panel_letter,
    style,
)

#: Variables of an analysis the figure reads, per observable (prefix ``<observable>_``).
_SLOPE_VARS = ("local_slope", "local_slope_stderr", "local_slope_x", "local_slope_in_window")


def _exponents(ds: xr.Dataset, analysis, obs: str) -> xr.Dataset:
    """The small-coupling exponents of ``obs``: from the analysis, or computed."""
    if analysis is not None and all(f"{obs}_{v}" in analysis for v in _SLOPE_VARS):
        names = [v for v in analysis.data_vars if str(v).startswith(f"{obs}_")]
        return analysis[names].rename({v: str(v)[len(obs) + 1 :] for v in names})
    return small_coupling_exponents(ds, obs)


def _groups(ds: xr.Dataset) -> list[dict]:
    """Every couplings × spans × rule combination of the dataset, as selections."""
    dims = [d for d in SELECT_DIMS if d in ds.dims]
    values = [list(ds[d].values) for d in dims]
    out = [{}]
    for d, vs in zip(dims, values, strict=True):
        out = [{**o, d: v} for o in out for v in vs]
    return out


def _group_title(sel: dict, ds: xr.Dataset) -> str:
    parts = []
    for d, titles in (
        ("couplings", COUPLING_TITLES),
        ("spans", SPAN_TITLES),
        ("rule", RULE_TITLES),
    ):
        if d in sel and ds.sizes.get(d, 1) > 1:
            parts.append(titles.get(str(sel[d]), str(sel[d])))
    return ", ".join(parts)


def _pick(e: xr.Dataset, var: str, sel: dict) -> xr.DataArray:
    da = e[var]
    return da.sel({d: v for d, v in sel.items() if d in da.dims})


def slope_panel(ax, e: xr.Dataset, sel: dict, colors: dict, paper: float, legend: bool) -> None:
    """Local slopes of one group: per N, in-window points filled, others open; the pooled
    exponent as a line with its ±1σ band; the paper's slope dashed."""
    shown = []
    for n, color in colors.items():
        at = {**sel, "N": n}
        slope = _pick(e, "local_slope", at).values
        err = _pick(e, "local_slope_stderr", at).values
        x = _pick(e, "local_slope_x", at).values
        inside = _pick(e, "local_slope_in_window", at).values.astype(bool)
        ok = np.isfinite(slope) & np.isfinite(err) & (err < 2.0)
        for mask, filled in ((ok & inside, True), (ok & ~inside, False)):
            if not mask.any():
                continue
            ax.errorbar(
                x[mask],
                slope[mask],
                yerr=err[mask],
                fmt="o" if filled else "o-",
                ms=3.0,
                lw=0.0 if filled else 0.5,
                elinewidth=0.7,
                color=color,
                mfc=color if filled else "white",
                label=rf"${int(n)}$" if filled or not (ok & inside).any() else None,
            )
        shown.extend(slope[ok])
    k = float(_pick(e, "pooled_exponent", sel).values)
    dk = float(_pick(e, "pooled_exponent_stderr", sel).values)
    if math.isfinite(k):
        ax.axhline(k, color="0.2", lw=0.9, label=None)
        if math.isfinite(dk):
            ax.axhspan(k - dk, k + dk, color="0.6", alpha=0.3, lw=0)
    if math.isfinite(paper):
        ax.axhline(paper, color="k", ls="--", lw=0.8)
        shown.append(paper)
    ax.set_xscale("log")
    ax.autoscale_view()
    decade_ticks(ax.xaxis)
    if shown:
        lo, hi = float(np.min(shown)), float(np.max(shown))
        ax.set_ylim(max(min(lo, 0.0) - 0.3, -2.0), min(hi + 0.5, 10.0))
    if legend:
        n_legend(
            ax,
            loc="upper right",
            ncol=2,
            fontsize=6,
            title_fontsize=6,
            handlelength=1.0,
            columnspacing=0.6,
        )


def pooled_text(e: xr.Dataset, sel: dict) -> str:
    """The pooled exponent of a panel for its title (in the title, it covers no data):
    "k = 1.23 ± 0.04", or why there is none."""
    k = float(_pick(e, "pooled_exponent", sel).values)
    dk = float(_pick(e, "pooled_exponent_stderr", sel).values)
    if math.isfinite(k):
        return rf"$k = {k:.2f} \pm {dk:.2f}$"
    reason = str(_pick(e, "pooled_reason", sel).values)
    return "not pooled" if "inconsistent" in reason else "no window"


def fig_local_slopes(
    ds: xr.Dataset,
    analysis=None,
    *,
    observables: Sequence[str] | None = None,
    size: tuple[float, float] | None = None,
) -> Figure:
    """Local slopes d ln P / d ln(N J0) of the small-coupling observables versus N J0.

    One panel per observable (default: every observable with a claimed power law that
    the dataset holds) and per couplings × spans × rule combination; one colour per N
    (light to dark). Filled points: slopes between two points of the N's fit window
    (:mod:`hyst.analysis.power_laws`); open points: outside it. Solid line and band: the
    pooled exponent ± its standard error (absent where the per-N exponents disagree);
    dashed: the paper's slope for the ensemble.
    """
    analysis = analysis_for(analysis, ds)
    if observables is None:
        observables = [o.name for o in catalogue.analysed() if o.scaling.power_law]
    observables = [o for o in observables if o in ds]
    groups = _groups(ds)
    panels = [(g, obs) for g in groups for obs in observables]
    ncols = len(observables) if len(groups) > 1 else min(len(observables), 3)
    ncols = max(ncols, 1)
    nrows = max(math.ceil(len(panels) / ncols), 1)
    size = size or (2.3 * ncols + 0.3, 2.0 * nrows + 0.2)
    colors = n_colors(list(ds["N"].values))
    fits = {obs: _exponents(ds, analysis, obs) for obs in observables}
    with style():
        fig, axes = new_figure(nrows, ncols, size)
        for i, (sel, obs) in enumerate(panels):
            ax = axes.flat[i]
            paper = catalogue.paper_slope(obs, **{d: str(v) for d, v in sel.items()})
            slope_panel(ax, fits[obs], sel, colors, paper, legend=(i % ncols == 0))
            title = ", ".join(t for t in (label(obs), _group_title(sel, ds)) if t)
            panel_letter(ax, i, f"{title}: {pooled_text(fits[obs], sel)}")
            ax.set_xlabel(label("NJ0"))
            if i % ncols == 0:
                ax.set_ylabel(r"$d \ln P / d \ln (N J_0)$")
        for ax in axes.flat[len(panels) :]:
            ax.remove()
    return fig
