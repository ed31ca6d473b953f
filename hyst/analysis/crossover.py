"""The slope of the small-coupling curves in a given N·J0 range: where a figure shows its data
and draws its guide line, as opposed to the asymptotic small-coupling exponent of
:mod:`hyst.analysis.exponents` (fitted where N·J0 ≪ 1, below 2 % of the plateau).

A curve that crosses over from its small-coupling power law to its plateau has a local slope
d ln P / d ln(N J0) that falls continuously through the crossover; a guide line drawn over
data in the crossover has the slope of the crossover there, not the exponent. This module
measures that slope with its error, so that a slope stated from a figure can be compared
with both numbers.

Per curve (one N), the slope in the range is the slope between the range's end points
(the local slopes inside it averaged with weights Δ ln(N J0),
:func:`~hyst.analysis.power_laws.window_slope`), over the points of the range with at least
:data:`~hyst.analysis.power_laws.MIN_EVENTS` events; its error comes from the counts. The
curves of all N are pooled by their inverse-variance weighted mean, whose error is scaled
by sqrt(χ²/dof) when the N disagree (:func:`~hyst.analysis.power_laws.weighted_mean`): the
spread of the slopes over N, which one guide line drawn through all curves cannot resolve,
is part of the error. The smallest and largest per-N slope are reported beside it.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from hyst.analysis.curves import Curves
from hyst.analysis.power_laws import MIN_EVENTS, weighted_mean, window_slope

#: Relative tolerance on the ends of a range (grid values are written with a few digits).
RANGE_RTOL = 0.02


def curve_slope_in_range(x, y, k, low: float, high: float, family: str) -> dict:
    """The slope d ln P / d ln x of one curve between ``low`` and ``high`` (its points in
    the range with at least ``MIN_EVENTS`` events and P > 0): slope, stderr, x_min, x_max
    and points (NaN slope where fewer than two such points span the range)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    k = np.asarray(k, float)
    inside = (
        np.isfinite(x)
        & np.isfinite(y)
        & (x >= low * (1 - RANGE_RTOL))
        & (x <= high * (1 + RANGE_RTOL))
        & (k >= MIN_EVENTS)
        & (y > 0)
    )
    index = np.flatnonzero(inside)
    out = {"slope": math.nan, "stderr": math.nan, "x_min": math.nan, "x_max": math.nan}
    out["points"] = int(index.size)
    if index.size < 2 or np.unique(x[index]).size < 2:
        return out
    slope, err = window_slope(x, y, k, index, family)
    out.update(slope=slope, stderr=err, x_min=float(x[index].min()), x_max=float(x[index].max()))
    return out


def slope_in_range(ds: xr.Dataset, observable: str, sel: dict, low: float, high: float) -> dict:
    """The slope of ``observable`` of one ensemble (``sel``: couplings, spans, rule) in the
    N·J0 range [``low``, ``high``], per N and pooled over N (module docstring).

    Returns slope, stderr (pooled; NaN where no N has two points in the range), per_N
    ({N: curve dict of :func:`curve_slope_in_range`}), curves (N pooled), lowest and
    highest (the extreme per-N slopes), x_min and x_max (the N·J0 covered), low, high."""
    sub = ds.sel({d: v for d, v in sel.items() if d in ds[observable].dims})
    c = Curves(sub, observable, "NJ0")
    per_n = {}
    ns = c.n_values() if "N" in c.dims else np.array([math.nan])
    for j, n in enumerate(ns):
        idx = (j,) if "N" in c.dims else ()
        per_n[int(n) if np.isfinite(n) else 0] = curve_slope_in_range(
            c.x[idx], c.y[idx], c.k[idx], low, high, c.family
        )
    used = [
        {"exponent": r["slope"], "exponent_stderr": r["stderr"]}
        for r in per_n.values()
        if np.isfinite(r["slope"]) and np.isfinite(r["stderr"]) and r["stderr"] > 0
    ]
    out = {
        "slope": math.nan,
        "stderr": math.nan,
        "per_N": per_n,
        "curves": len(used),
        "lowest": math.nan,
        "highest": math.nan,
        "x_min": math.nan,
        "x_max": math.nan,
        "low": float(low),
        "high": float(high),
    }
    if not used:
        return out
    mean = weighted_mean(used)
    slopes = [u["exponent"] for u in used]
    good = [r for r in per_n.values() if np.isfinite(r["slope"])]
    out.update(
        slope=mean["exponent"],
        stderr=mean["exponent_stderr"],
        lowest=float(min(slopes)),
        highest=float(max(slopes)),
        x_min=float(min(r["x_min"] for r in good)),
        x_max=float(max(r["x_max"] for r in good)),
    )
    return out


def window_evidence(ds: xr.Dataset, observable: str, sel: dict) -> dict:
    """What a pooled small-coupling exponent rests on, for one ensemble (``sel``): the
    per-N fits of :func:`~hyst.analysis.power_laws.fit_curve` and two checks of the pooled
    exponent of :func:`~hyst.analysis.power_laws.pool`.

    * ``lower``: the same windows without their highest point, pooled: a window whose top
      reaches the bend toward the plateau gives a smaller exponent than its lower part.
    * ``bottom``: the local slope between the two smallest N·J0 of each window, pooled: a
      slope that still rises toward small N·J0 is approached from below the window.
    * ``trend``: the per-N exponents fitted as k_N = k_inf + b/N (weighted least squares
      over the N with a fit): k_inf (the exponent extrapolated to large N) and b, each with
      its standard error, scaled by sqrt(χ²/dof) when that exceeds 1.

    Returns per_N ({N: exponent, stderr, x_min, x_max, points, lower, lower_stderr, bottom,
    bottom_stderr}),
    pooled and lower (dicts of :func:`pool`), bottom (exponent, exponent_stderr, curves),
    trend (k_inf, k_inf_stderr, b, b_stderr, curves)."""
    from hyst.analysis.power_laws import MIN_POINTS, fit_counts, fit_curve, pool

    sub = ds.sel({d: v for d, v in sel.items() if d in ds[observable].dims})
    c = Curves(sub, observable, "NJ0")
    ns = c.n_values()
    fits, lowers, bottoms, per_n = [], [], [], {}
    for j, n in enumerate(ns):
        x, y, k, trials = c.x[j], c.y[j], c.k[j], c.n[j]
        r = fit_curve(x, y, k, trials, c.family)
        idx = r["index"]
        q = {"exponent": math.nan, "exponent_stderr": math.nan, "points": 0}
        if np.isfinite(r["exponent"]) and idx.size > MIN_POINTS:
            top = idx[np.argsort(x[idx])][:-1]
            q = fit_counts(x[top], k[top], trials[top], family=c.family)
        bottom = {"exponent": math.nan, "exponent_stderr": math.nan}
        if np.isfinite(r["exponent"]) and idx.size >= 2:
            pair = idx[np.argsort(x[idx])][:2]
            s, e = window_slope(x, y, k, pair, c.family)
            bottom = {"exponent": s, "exponent_stderr": e}
        bottoms.append(bottom)
        fits.append(r)
        lowers.append(q)
        per_n[int(n)] = {
            "exponent": r["exponent"],
            "stderr": r["exponent_stderr"],
            "x_min": r["x_min"],
            "x_max": r["x_max"],
            "points": r["points"],
            "lower": q["exponent"],
            "lower_stderr": q["exponent_stderr"],
            "bottom": bottom["exponent"],
            "bottom_stderr": bottom["exponent_stderr"],
        }
    return {
        "per_N": per_n,
        "pooled": pool(fits, ns),
        "lower": pool(lowers, ns),
        "bottom": _bottom(bottoms),
        "trend": _trend(per_n),
    }


def _bottom(slopes) -> dict:
    """The local slopes at the low ends of the windows, pooled (weighted mean, its error
    scaled by the spread of the N)."""
    used = [s for s in slopes if np.isfinite(s["exponent"]) and np.isfinite(s["exponent_stderr"])]
    used = [s for s in used if s["exponent_stderr"] > 0]
    if not used:
        return {"exponent": math.nan, "exponent_stderr": math.nan, "curves": 0}
    return {**weighted_mean(used), "curves": len(used)}


def _trend(per_n: dict) -> dict:
    """k_N = k_inf + b/N by weighted least squares over the N with a finite exponent."""
    rows = [
        (n, r["exponent"], r["stderr"])
        for n, r in per_n.items()
        if np.isfinite(r["exponent"]) and np.isfinite(r["stderr"]) and r["stderr"] > 0
    ]
    out = {"k_inf": math.nan, "k_inf_stderr": math.nan, "b": math.nan, "b_stderr": math.nan}
    out["curves"] = len(rows)
    if len(rows) < 3:
        return out
    n, k, e = (np.array(v, float) for v in zip(*rows, strict=True))
    w = 1.0 / e**2
    X = np.column_stack([np.ones_like(n), 1.0 / n])
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    coef = cov @ (X.T @ (w * k))
    chi2 = float(np.sum(w * (k - X @ coef) ** 2))
    cov = cov * max(1.0, chi2 / (len(rows) - 2))
    out.update(
        k_inf=float(coef[0]),
        k_inf_stderr=float(math.sqrt(cov[0, 0])),
        b=float(coef[1]),
        b_stderr=float(math.sqrt(cov[1, 1])),
    )
    return out
