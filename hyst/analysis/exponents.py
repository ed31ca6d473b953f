"""Small-coupling exponents of a study dataset: per N, pooled over N where consistent, and
the local slopes d ln P / d ln(N J0) that show crossovers instead of averaging them away.

The method (likelihood for counts, window rule, per-N consistency test) is that of
:mod:`hyst.analysis.power_laws`; this module lays it out over a dataset's curves
(dimensions couplings, spans, rule, N and the abscissa N·J0).
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from hyst.analysis.curves import Curves, collect, finish
from hyst.analysis.power_laws import (
    CONSISTENCY_P,
    GOODNESS_P,
    MAX_VALUE,
    MIN_EVENTS,
    PLATEAU_FRACTION,
    fit_curve,
    local_slopes,
    pool,
    window_slope,
)

#: Per-curve fit results laid out over (couplings, spans, rule, N).
CURVE_KEYS = (
    "exponent",
    "exponent_stderr",
    "exponent_lo",
    "exponent_hi",
    "amplitude",
    "deviance",
    "dof",
    "p_value",
    "points",
    "dropped",
    "events_min",
    "x_min",
    "x_max",
    "window_slope",
    "window_slope_stderr",
    "reason",
)
#: Pooled results laid out over (couplings, spans, rule), each prefixed ``pooled_``.
POOLED_KEYS = (
    "exponent",
    "exponent_stderr",
    "exponent_lo",
    "exponent_hi",
    "points",
    "curves",
    "n_min",
    "consistency_chi2",
    "consistency_dof",
    "consistency_p",
    "x_min",
    "x_max",
    "local_slope",
    "local_slope_stderr",
    "reason",
)

DESCRIPTIONS = {
    "exponent": "small-coupling exponent k of P ~ A x^k in the curve's window (maximum "
    "likelihood: binomial for probabilities, quasi-Poisson for means)",
    "exponent_stderr": "standard error of k (observed information, scaled by "
    "sqrt(deviance/dof) when > 1)",
    "exponent_lo": "lower 95% limit of k",
    "exponent_hi": "upper 95% limit of k",
    "amplitude": "power-law amplitude A",
    "deviance": "deviance of the fit (goodness of fit: chi2 with dof degrees of freedom)",
    "dof": "degrees of freedom of the deviance",
    "p_value": "goodness-of-fit p-value of the power law in the window",
    "points": "points in the fit window",
    "dropped": "low points dropped from the window because one power law did not fit",
    "events_min": "fewest events of a point in the window",
    "x_min": "smallest x in the window",
    "x_max": "largest x in the window",
    "window_slope": "local slopes in the window averaged with weights dln x (the slope "
    "between the window's end points)",
    "window_slope_stderr": "standard error of window_slope",
    "reason": "why the fit is NaN ('' when it succeeded)",
    "curves": "curves (N values) pooled",
    "n_min": "smallest N pooled (smaller N left out where their exponents disagree)",
    "consistency_chi2": "chi2 of the per-N exponents about their weighted mean",
    "consistency_dof": "degrees of freedom of consistency_chi2 (curves - 1)",
    "consistency_p": f"p-value of consistency_chi2 (pooled only where >= {CONSISTENCY_P})",
    "local_slope": "inverse-variance mean of window_slope over the pooled N",
    "local_slope_stderr": "standard error of the pooled local_slope",
    "local_slope_x": "geometric mean of the two x of a local slope",
    "local_slope_in_window": "1 where both points of a local slope are in the fit window",
}


def small_coupling_exponents(
    ds: xr.Dataset, observable: str, *, x: str = "NJ0", max_value: float = MAX_VALUE
) -> xr.Dataset:
    """Small-coupling power-law exponent k in P ≈ A_N·(N J0)^k, per N and pooled over N.

    Per curve (every couplings × spans × rule × N): :func:`~hyst.analysis.power_laws.
    fit_curve` in the curve's window, and the local slopes between consecutive points
    (dimension ``slope_step``: ``local_slope``, ``local_slope_stderr``,
    ``local_slope_x``, ``local_slope_in_window``). Pooled (every couplings × spans ×
    rule): the weighted mean of the per-N exponents (one amplitude per N) of the N that
    agree (:func:`~hyst.analysis.power_laws.pool`, ``n_min``). Variables: the
    :data:`CURVE_KEYS`, and ``pooled_`` + each of :data:`POOLED_KEYS`.
    """
    c = Curves(ds, observable, x)
    per = collect(CURVE_KEYS, c.shape)
    steps = max(c.x.shape[-1] - 1, 0)
    slopes = {k: np.full((*c.shape, steps), np.nan) for k in ("slope", "stderr", "x_mid")}
    in_window = np.zeros((*c.shape, steps), np.int8)
    fits = {}
    for idx in np.ndindex(*c.shape):
        xv, yv, kv, nv = c.x[idx], c.y[idx], c.k[idx], c.n[idx]
        r = fit_curve(xv, yv, kv, nv, c.family, max_value=max_value)
        r["window_slope"], r["window_slope_stderr"] = window_slope(xv, yv, kv, r["index"], c.family)
        fits[idx] = r
        for key in CURVE_KEYS:
            per[key][idx] = r[key]
        s = local_slopes(xv, yv, kv, nv, c.family)
        slopes["slope"][idx] = s["slope"]
        slopes["stderr"][idx] = s["stderr"]
        slopes["x_mid"][idx] = s["x_mid"]
        used = set(r["index"].tolist()) if np.isfinite(r["exponent"]) else set()
        in_window[idx] = np.isin(s["lo"], list(used)) & np.isin(s["hi"], list(used))
    out = c.make(c.dims, finish(per))
    step_dims = (*c.dims, "slope_step")
    out["local_slope"] = (step_dims, slopes["slope"])
    out["local_slope_stderr"] = (step_dims, slopes["stderr"])
    out["local_slope_x"] = (step_dims, slopes["x_mid"])
    out["local_slope_in_window"] = (step_dims, in_window)
    gd = c.group_dims()
    gshape = tuple(c.y.shape[c.dims.index(d)] for d in gd)
    pooled = collect(POOLED_KEYS, gshape)
    nax = c.dims.index("N") if "N" in c.dims else None
    for gi in np.ndindex(*gshape):
        members = []
        for j in range(c.y.shape[nax] if nax is not None else 1):
            full = list(gi)
            if nax is not None:
                full.insert(nax, j)
            members.append(fits[tuple(full)])
        ns = c.n_values() if nax is not None else np.zeros(1)
        order = np.argsort(ns, kind="stable")
        r = pool([members[i] for i in order], ns[order])
        pooled_n = [  # the local slopes of the N that were pooled (all N if none were)
            f for n, f in zip(ns, members, strict=True) if not n < r["n_min"]
        ]
        r["local_slope"], r["local_slope_stderr"] = _mean(
            [(f["window_slope"], f["window_slope_stderr"]) for f in pooled_n]
        )
        for key in POOLED_KEYS:
            pooled[key][gi] = r[key]
    out = xr.merge([out, c.make(gd, {f"pooled_{k}": v for k, v in finish(pooled).items()})])
    out.attrs.update(
        {
            "observable": observable,
            "x": x,
            "family": c.family,
            "max_value": float(max_value),
            "min_events": MIN_EVENTS,
            "plateau_fraction": PLATEAU_FRACTION,
            "goodness_p": GOODNESS_P,
            "consistency_p": CONSISTENCY_P,
            "description": "small-coupling power law P ~ A_N x^k by maximum likelihood of the "
            f"counts (hyst.analysis.power_laws) in a window of points with >= {MIN_EVENTS} "
            f"events and P <= min({max_value}, {PLATEAU_FRACTION} x the curve's largest "
            "value); pooled over N (weighted mean of the per-N k, one A_N per N) where the "
            "per-N exponents are consistent",
        }
    )
    return out


def _mean(values) -> tuple[float, float]:
    """Inverse-variance mean and its standard error of (value, stderr) pairs (NaN: none)."""
    v = np.array([a for a, e in values if np.isfinite(a) and np.isfinite(e) and e > 0])
    e = np.array([e for a, e in values if np.isfinite(a) and np.isfinite(e) and e > 0])
    if v.size == 0:
        return math.nan, math.nan
    w = 1.0 / e**2
    return float(np.sum(w * v) / np.sum(w)), float(1.0 / math.sqrt(np.sum(w)))
