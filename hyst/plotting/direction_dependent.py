"""Figures of direction-dependent couplings (H_i^± = h_i^± − Σ_j c^±_ij s_j, Paulsen, arXiv
2409.07726): the self-loop probability P_sl against N·J0 for several direction asymmetries α
(c^− = √(1 − α²) c^+ + α c′, :mod:`hyst.model.ensembles`; α = 0 is the paper's model)."""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst.catalogue.labels import COUPLING_TITLES
from hyst.plotting.panels import errorbar, x_values
from hyst.plotting.style import SPAN_TITLES, decade_ticks, new_figure, panel_letter, style
from hyst.plotting.style import label as axis_label

#: The axis of the direction asymmetry α in a points dataset.
ASYMMETRY = "direction_asymmetry"


def asymmetry_colors(alphas) -> dict:
    """{α: colour}: α = 0 (the paper's model) black, larger α warmer."""
    cm = mpl.colormaps["plasma"]
    top = max(float(a) for a in alphas) or 1.0
    return {a: "k" if a == 0 else cm(0.15 + 0.7 * float(a) / top) for a in alphas}


def _panels(ds: xr.Dataset) -> list[dict]:
    """The (couplings, spans, rule) selections of a dataset, one panel each."""
    out = [{}]
    for dim in ("couplings", "spans", "rule"):
        if dim in ds.dims:
            out = [{**sel, dim: v} for sel in out for v in ds[dim].values]
    return out


def _title(ds: xr.Dataset, N: int) -> str:
    parts = []
    for dim, titles in (("couplings", COUPLING_TITLES), ("spans", SPAN_TITLES)):
        if dim in ds.coords:
            v = str(np.atleast_1d(ds[dim].values)[0])
            parts.append(titles.get(v, v))
    return ", ".join([*parts, f"N = {N}"])


def fig_self_loops_by_asymmetry(
    ds: xr.Dataset, analysis=None, *, N: int | None = None, size=(7.2, 2.6)
) -> Figure:
    """P_sl, the share of systems with a self-loop in some transition, against N·J0: one
    curve per direction asymmetry α, one panel per couplings × spans (× rule) of the study,
    at one size N (``N``; default the largest). Error bars: one standard error."""
    del analysis  # the scaling analysis does not apply to an α axis
    sizes = [int(n) for n in ds["N"].values]
    n = max(sizes) if N is None else int(N)
    if n not in sizes:
        raise ValueError(f"N: {n} is not a size of the study (N = {sizes})")
    ds = ds.sel(N=n)
    panels = _panels(ds)
    alphas = [float(a) for a in ds[ASYMMETRY].values]
    colors = asymmetry_colors(alphas)
    obs = "self_loop_probability"
    with style():
        fig, axes = new_figure(1, len(panels), (size[0], size[1]))
        for i, (ax, sel) in enumerate(zip(axes.flat, panels, strict=True)):
            part = ds.sel(sel)
            _xname, x = x_values(part, n)
            for a in alphas:
                one = part.sel({ASYMMETRY: a})
                y = np.asarray(one[obs].values, float)
                none = bool(np.all(y[np.isfinite(y)] == 0))  # no self-loop: off a log axis
                errorbar(
                    ax,
                    x,
                    y,
                    one[f"{obs}_stderr"].values,
                    colors[a],
                    label=f"α = {a:g}"
                    + (" (paper)" if a == 0 else "")
                    + (": no self-loop" if none else ""),
                )
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(axis_label("NJ0"))
            if i == 0:
                ax.set_ylabel(axis_label(obs))
            ax.legend(loc="best", fontsize="small")
            decade_ticks(ax.xaxis)
            panel_letter(ax, i, _title(part, n))
    return fig
