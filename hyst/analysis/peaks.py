"""Maxima of mean observables against the coupling strength (large-N studies).

The paper places the maxima of <tau>, <T> and <A> against J0 (J0 ≈ 1/N or J0 ≈ 1) and
describes the constant-column <A> curve as rising to a maximum that grows with N, dropping
abruptly and rising again. :func:`curve_maximum` locates the maximum of one curve on its
grid (refined by a parabola through the maximum and its two neighbours in log x), and the
first dip after it; :func:`maxima` does so for every N of one ensemble of a dataset.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr


def curve_maximum(x, y, e) -> dict:
    """Maximum of one curve y(x) > 0 sampled on a log grid x.

    Returns x_grid (the grid point of the largest y), x_refined (vertex of the parabola
    through it and its neighbours in log10 x; the grid point at an end), y, y_err, and the
    dip after it: dip_x, dip_y, dip_err (the smallest y after the maximum before y rises
    again by three standard errors; NaN if it never does) and recovery_y (the largest y
    after the dip).
    """
    x, y, e = (np.asarray(a, float) for a in (x, y, e))
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y, e = x[ok], y[ok], e[ok]
    nan = math.nan
    out = dict(x_grid=nan, x_refined=nan, y=nan, y_err=nan, dip_x=nan, dip_y=nan, dip_err=nan)
    out["recovery_y"] = nan
    if x.size == 0:
        return out
    order = np.argsort(x)
    x, y, e = x[order], y[order], np.where(np.isfinite(e[order]), e[order], 0.0)
    j = int(np.argmax(y))
    out.update(x_grid=x[j], x_refined=x[j], y=y[j], y_err=e[j])
    if 0 < j < x.size - 1:
        lx = np.log10(x[j - 1 : j + 2])
        a, b, _c = np.polyfit(lx, y[j - 1 : j + 2], 2)
        if a < 0:
            out["x_refined"] = float(10 ** np.clip(-b / (2 * a), lx[0], lx[-1]))
    # the dip: running minimum after the maximum, until the curve rises 3 errors above it
    k = j
    for i in range(j + 1, x.size):
        if y[i] < y[k]:
            k = i
        elif y[i] - y[k] > 3 * math.hypot(e[i], e[k]) and k > j:
            out.update(dip_x=x[k], dip_y=y[k], dip_err=e[k], recovery_y=float(y[i:].max()))
            break
    return out


def maxima(ds: xr.Dataset, observable: str, sel: dict) -> dict[int, dict]:
    """{N: :func:`curve_maximum` of ``observable`` against the swept axis (J0 or N J0)} for
    one ensemble ``sel`` (couplings, spans, rule) of a points dataset."""
    sub = ds.sel({d: v for d, v in sel.items() if d in ds.dims})
    dim = "J0" if "J0" in sub.dims else "NJ0"
    out = {}
    for N in sub["N"].values:
        row = sub.sel(N=N)
        err = row[f"{observable}_stderr"].values if f"{observable}_stderr" in row else None
        y = row[observable].values
        out[int(N)] = curve_maximum(row[dim].values, y, err if err is not None else y * np.nan)
    return out


def power_of_n(ns, xs) -> tuple[float, float]:
    """Exponent p (and its standard error) of x ∝ N^p: least squares of log x on log N."""
    ns, xs = np.asarray(ns, float), np.asarray(xs, float)
    ok = np.isfinite(xs) & (xs > 0)
    if ok.sum() < 2:
        return math.nan, math.nan
    lx, ly = np.log(ns[ok]), np.log(xs[ok])
    if ok.sum() == 2:
        return float((ly[1] - ly[0]) / (lx[1] - lx[0])), math.nan
    (p, _c), cov = np.polyfit(lx, ly, 1, cov=True)
    return float(p), float(math.sqrt(cov[0, 0]))
