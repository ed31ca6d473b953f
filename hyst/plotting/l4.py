"""Figures of L = 4 self-loops: two elements in the (c12, c21) plane, and large systems in
the rescaled plane, against the Supplemental's analytic region
(:func:`hyst.model.two_elements.l4_region_polygons`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from hyst.analysis.records import l4_labels, l4_rescaled, record_labels
from hyst.model.two_elements import l4_region_polygons
from hyst.plotting.style import SCATTER_COLOR, new_figure, panel_letter, style


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
        fig, axes = new_figure(1, n, size)
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
            panel_letter(ax, i, rf"{name}$\sigma = {float(s):g}$")
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


def _loops_met(ds: xr.Dataset, spans: str, N=None) -> int:
    """L = 4 loops met (exact count ``l4_loops``) for one span ensemble (and N)."""
    if "l4_loops" not in ds:
        return 0
    met = ds["l4_loops"]
    if "spans" in met.dims:
        met = met.sel(spans=spans) if spans in ds["spans"].values else met.isel(spans=[])
    if N is not None and "N" in met.dims:
        met = met.sel(N=[N]) if N in ds["N"].values else met.isel(N=[])
    return int(met.sum())


def fig_large_l4(
    ds: xr.Dataset,
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

    One panel per span ensemble (``l4_spans``): each distinct L = 4 self-loop met at any H
    (main branches of the saturated loop and the returns from its turning points,
    :func:`hyst.kernels.drive.saturated_loop_batch`) of elements k, l as a point
    (c_kl/Δh̃, c_lk/Δh̃), Δh̃ = h̃_l^c − h̃_k^c > 0
    (k, l swapped when negative), with the N = 2 spin region |x − y| > 1,
    x y < 0 dashed; the fraction of records inside it is printed.
    """
    labels = l4_labels(ds, "spans")
    record_N = record_labels(ds, "l4", "N") if "N" in ds else np.array([])
    base = np.ones(labels.size, bool)
    if N is not None and record_N.size:
        base &= record_N == N
    if NJ0 is not None and "NJ0" in ds.dims:
        base &= np.isclose(np.asarray(record_labels(ds, "l4", "NJ0"), float), NJ0)
    spans = list(spans)
    n = len(spans)
    size = size or (2.6 * n + 0.3, 2.8)
    with style():
        fig, axes = new_figure(1, n, size)
        for i, sp in enumerate(spans):
            ax = axes[0, i]
            m = base & (labels == sp)
            x, y = l4_rescaled(ds, m) if m.any() else (np.array([]), np.array([]))
            _scatter_panel(ax, x, y, lim, ms=ms, alpha=alpha)
            _draw_region(ax, l4_region_polygons(0.0, 1.0, lim), lim)
            ax.set_xlabel(r"$c_{kl}/\Delta\tilde h^c$")
            ax.set_ylabel(r"$c_{lk}/\Delta\tilde h^c$")
            title = {"spin": "spins", "hysteron": "hysterons"}.get(sp, sp)
            ok = np.isfinite(x) & np.isfinite(y)
            if ok.any():
                inside = ((np.abs(x - y) > 1) & (x * y < 0))[ok].mean()
                met = _loops_met(ds, sp, N)
                shown = f"{ok.sum()} of {met} loops" if met > ok.sum() else f"{ok.sum()} loops"
                returning = (
                    int(np.asarray(ds["l4_returning"].values)[m][ok].sum())
                    if "l4_returning" in ds
                    else 0
                )
                # in the title, where it covers no loop
                title += f"\n{shown}, {returning} on returns\n{100 * inside:.1f}% in the region"
            else:
                ax.text(0.5, 0.5, "no records", transform=ax.transAxes, ha="center")
            panel_letter(ax, i, title)
            nn = np.unique(record_N[m]) if m.any() else []
            if len(nn) == 1:
                ax.annotate(  # in the corner, clear of the tick marks
                    rf"$N = {nn[0]}$",
                    (0.0, 0.0),
                    xycoords="axes fraction",
                    xytext=(6, 6),
                    textcoords="offset points",
                    fontsize=7,
                )
    return fig
