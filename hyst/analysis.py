"""Quantitative analysis of study datasets: power laws, plateaus, collapse.

The paper's claims about the Monte Carlo curves P(N, J0) are

* small coupling, N·J0 ≪ 1: every observable grows as a power law of N·J0
  with a stated slope (``PAPER_SLOPES``);
* the curves of all N collapse when plotted against N·J0;
* large coupling, N·J0 ≫ 1: each curve saturates at a plateau, and the
  probability to be self-loop free, 1 − P_sl at N·J0 = 100, decays
  exponentially with N (inset of Fig. 2(d)).

This module turns those statements into numbers with error bars, from the
datasets written by :func:`hyst.pipeline.collect` (dimensions ``couplings,
spans, rule, N`` and ``NJ0`` or ``J0``; per observable NAME the variables
NAME and NAME_stderr, plus NAME_count/NAME_trials for probabilities). All
functions are pure: xarray/numpy in, dicts or xarray Datasets out.

Error floors: a probability estimated as 0 or 1 has a binomial standard error
of 0; its error is floored at one count, 1/trials. Mean observables keep their
sample standard errors; zero errors are replaced by the smallest positive
error of the same curve.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import xarray as xr
from scipy import interpolate, optimize, stats

__all__ = [
    "OBSERVABLES",
    "PAPER_SLOPES",
    "analyse_study",
    "collapse_exponent",
    "collapse_fit",
    "collapse_quality",
    "exponential_fit",
    "plateau",
    "plateau_versus_n",
    "power_law_fit",
    "small_coupling_exponents",
]

#: Dimensions that label one curve (besides the abscissa).
CURVE_DIMS = ("couplings", "spans", "rule", "N")

#: Observables analysed by :func:`analyse_study`: kind ("probability" or
#: "mean"), whether a small-coupling power law is claimed, and the largest value
#: used for the collapse (the rising part: the large-coupling plateaus depend
#: on N, e.g. 1 − P_sl decays with N, so they must not enter the collapse).
OBSERVABLES = {
    "gap_probability_at_zero": {
        "kind": "probability",
        "power_law": True,
        "collapse_max_value": 0.5,
        "symbol": "P_g^0",
    },
    "gap_fraction": {
        "kind": "mean",
        "power_law": True,
        "collapse_max_value": 0.5,
        "symbol": "f_G",
    },
    "self_loop_probability_at_zero": {
        "kind": "probability",
        "power_law": True,
        "collapse_max_value": 0.5,
        "symbol": "P_sl^0",
    },
    "self_loop_probability": {
        "kind": "probability",
        "power_law": True,
        "collapse_max_value": 0.5,
        "symbol": "P_sl",
    },
    "race_condition_probability": {
        "kind": "probability",
        "power_law": True,
        "collapse_max_value": 0.5,
        "symbol": "P_RC",
    },
    "potentially_stable_over_spins": {
        "kind": "mean",
        "power_law": False,
        "collapse_max_value": None,
        "symbol": "P_s 2^N/(N+1)",
    },
}

#: Small-coupling slopes d log P / d log(N J0) drawn as dashed lines in the
#: paper, keyed by (study, observable); study names are those of
#: config/config.yaml. Sources: Fig. 2 (random hysterons); Supplemental figs.
#: "Overwhelming self-loops for randomly-coupled spins", "weak asymmetric
#: interactions", "Statistics of race conditions" (slope 2 for spins,
#: hysterons and equal spans), "different race condition rules" (slope 3 for
#: rules 0, 1, 1', 2) and "well-behaved models ... rule 2" (slope 4). The
#: equal-spans figure states no slopes for gaps/self-loops (it has a lower
#: N·J0 cutoff instead), so it has no entries for them.
PAPER_SLOPES: dict[tuple[str, str], float] = {
    ("random_hysterons", "gap_probability_at_zero"): 4.0,
    ("random_hysterons", "gap_fraction"): 4.0,
    ("random_hysterons", "self_loop_probability_at_zero"): 4.0,
    ("random_hysterons", "self_loop_probability"): 3.0,
    ("spins", "gap_probability_at_zero"): 2.0,
    ("spins", "gap_fraction"): 2.0,
    ("spins", "self_loop_probability_at_zero"): 2.0,
    ("spins", "self_loop_probability"): 2.0 / 3.0,
    ("weak_asymmetry", "gap_probability_at_zero"): 5.0,
    ("weak_asymmetry", "gap_fraction"): 4.0,
    ("weak_asymmetry", "self_loop_probability_at_zero"): 5.0,
    ("weak_asymmetry", "self_loop_probability"): 4.0,
    ("spins", "race_condition_probability"): 2.0,
    ("random_hysterons", "race_condition_probability"): 2.0,
    ("equal_spans", "race_condition_probability"): 2.0,
    ("rules", "self_loop_probability"): 3.0,
    ("well_behaved_rule2", "self_loop_probability"): 4.0,
}

_SIGMA_FLOOR = 1e-6  # smallest relative (log-space) error allowed in fits
_IRLS_STEPS = 4  # reweighting passes of the log-log fits


# --------------------------------------------------------------------------
# one-curve fits
# --------------------------------------------------------------------------


def _as_values(v, like: xr.DataArray | None = None) -> np.ndarray:
    if isinstance(v, str):
        if like is None:
            raise ValueError(f"x={v!r} given by name needs y as a DataArray")
        return np.asarray(like[v].values, dtype=float)
    if isinstance(v, xr.DataArray):
        return np.asarray(v.values, dtype=float)
    return np.asarray(v, dtype=float)


def _weighted_line(t: np.ndarray, z: np.ndarray, s: np.ndarray | None) -> dict:
    """Weighted least squares z ≈ c0 + c1·t with errors s (None: unweighted).

    The covariance is scaled by the reduced χ² when that exceeds 1 (or always,
    when no errors are known). Returns coefficients, covariance, χ²_red, dof.
    """
    n = t.size
    w = np.ones(n) if s is None else 1.0 / s**2
    X = np.column_stack([np.ones(n), t])
    A = X.T @ (w[:, None] * X)
    cov = np.linalg.inv(A)
    coef = cov @ (X.T @ (w * z))
    r = z - X @ coef
    chi2 = float(np.sum(w * r**2))
    dof = n - 2
    red = chi2 / dof if dof > 0 else math.nan
    if dof > 0 and (s is None or red > 1.0):
        cov = cov * red
    elif dof <= 0:
        cov = np.full_like(cov, math.nan)
    return {"coef": coef, "cov": cov, "chi2": chi2, "chi2_reduced": red, "dof": dof}


def _log_sigma(y: np.ndarray, yerr: np.ndarray) -> np.ndarray | None:
    """σ of log y = yerr/y, zero/invalid errors replaced by the smallest valid one.

    Returns None when no point has a usable error (then fit unweighted).
    """
    s = np.asarray(yerr, float) / y
    good = np.isfinite(s) & (s > 0)
    if not good.any():
        return None
    s = np.where(good, s, s[good].min())
    return np.maximum(s, _SIGMA_FLOOR)


#: The small-coupling range also stays below this fraction of the curve's largest value,
#: so that a curve saturating below ``max_value`` is not fitted on its plateau.
MAX_FRACTION_OF_PLATEAU = 0.25


def _select_power_law(x: np.ndarray, y: np.ndarray, max_value: float) -> np.ndarray:
    """Indices (in x order) of the small-value range: 0 < y ≤ max_value and
    y ≤ MAX_FRACTION_OF_PLATEAU × max(y), x > 0, and only before y first exceeds
    that bound (NaN and zero points are skipped without breaking the range)."""
    finite = y[np.isfinite(y)]
    if finite.size:
        max_value = min(max_value, MAX_FRACTION_OF_PLATEAU * float(finite.max()))
    order = np.argsort(x, kind="stable")
    keep = []
    for i in order:
        if not (np.isfinite(x[i]) and x[i] > 0 and np.isfinite(y[i])):
            continue
        if y[i] > max_value:
            break
        if y[i] > 0:
            keep.append(i)
    return np.asarray(keep, dtype=int)


def _nan_power_law(points: int, reason: str, x_min=math.nan, x_max=math.nan) -> dict:
    return {
        "exponent": math.nan,
        "exponent_stderr": math.nan,
        "exponent_lo": math.nan,
        "exponent_hi": math.nan,
        "amplitude": math.nan,
        "log_amplitude_stderr": math.nan,
        "chi2_reduced": math.nan,
        "points": int(points),
        "x_min": float(x_min),
        "x_max": float(x_max),
        "reason": reason,
    }


def _fit_loglog(x, y, yerr, min_points: int, confidence: float = 0.95) -> dict:
    n = x.size
    if n == 0:
        return _nan_power_law(0, "too few points: none in the small-value range")
    if n < max(min_points, 2):
        return _nan_power_law(n, f"too few points: {n} < {max(min_points, 2)}", x.min(), x.max())
    if np.unique(x).size < 2:
        return _nan_power_law(n, "too few distinct x values", x.min(), x.max())
    s = _log_sigma(y, yerr)
    lx, ly = np.log(x), np.log(y)
    f = _weighted_line(lx, ly, s)
    if s is not None:
        # Iteratively reweighted: a point's relative error scales as
        # 1/sqrt(expected count), so rescale the observed σ_log by
        # sqrt(y/ŷ) with ŷ the fitted curve. Weights from the observed values
        # favour upward fluctuations at low counts and bias the exponent.
        for _ in range(_IRLS_STEPS):
            ratio = np.exp(ly - (f["coef"][0] + f["coef"][1] * lx))
            f = _weighted_line(lx, ly, np.maximum(s * np.sqrt(ratio), _SIGMA_FLOOR))
    k = float(f["coef"][1])
    se = float(math.sqrt(f["cov"][1, 1])) if np.isfinite(f["cov"][1, 1]) else math.nan
    if f["dof"] > 0:
        half = float(stats.t.ppf(0.5 + confidence / 2, f["dof"])) * se
    else:
        half = math.nan
    return {
        "exponent": k,
        "exponent_stderr": se,
        "exponent_lo": k - half,
        "exponent_hi": k + half,
        "amplitude": float(math.exp(f["coef"][0])),
        "log_amplitude_stderr": float(math.sqrt(f["cov"][0, 0]))
        if np.isfinite(f["cov"][0, 0])
        else math.nan,
        "chi2_reduced": float(f["chi2_reduced"]),
        "points": int(n),
        "x_min": float(x.min()),
        "x_max": float(x.max()),
        "reason": "",
    }


def power_law_fit(y, yerr, x="NJ0", *, max_value: float = 0.2, min_points: int = 3) -> dict:
    """Fit y ≈ A·x^k on the small-coupling side of one curve.

    Weighted least squares of log y against log x, using the points with
    0 < y ≤ ``max_value`` in the contiguous low-x range before y first exceeds
    ``max_value``; σ(log y) = yerr/y (zero errors replaced by the smallest
    positive one), iteratively reweighted to the fitted curve as
    σ·sqrt(y/ŷ) (counting statistics; avoids the bias of weighting by the
    observed fluctuations at low counts). The covariance is scaled by χ²_red
    when χ²_red > 1; the 95 % interval uses Student's t with n − 2 degrees of
    freedom.

    ``y``, ``yerr``: 1-D arrays or DataArrays; ``x``: the abscissa values, or
    the name of a coordinate of ``y``. Returns a dict with exponent,
    exponent_stderr, exponent_lo, exponent_hi, amplitude (A),
    log_amplitude_stderr, chi2_reduced, points, x_min, x_max and reason
    ("" on success; otherwise all fitted numbers are NaN).
    """
    xv = _as_values(x, y if isinstance(y, xr.DataArray) else None)
    yv = _as_values(y)
    ev = _as_values(yerr)
    if not (xv.shape == yv.shape == ev.shape) or yv.ndim != 1:
        raise ValueError("power_law_fit needs 1-D y, yerr, x of equal length")
    idx = _select_power_law(xv, yv, max_value)
    return _fit_loglog(xv[idx], yv[idx], ev[idx], min_points)


def exponential_fit(n, y, yerr, *, min_points: int = 3) -> dict:
    """Fit y ≈ A·exp(−n/ξ) by weighted least squares of log y against n.

    Points with y ≤ 0 or NaN are skipped; σ(log y) = yerr/y. Returns xi (the
    decay length ξ), xi_stderr, rate = 1/ξ and rate_stderr (well defined even
    when y does not decay: then rate ≤ 0 and xi is NaN), amplitude A and
    amplitude_stderr, chi2_reduced and p_value (χ² goodness of fit with the
    given errors), points, n_min, n_max and reason.
    """
    n = np.asarray(n, float)
    y = np.asarray(y, float)
    e = np.asarray(yerr, float)
    ok = np.isfinite(n) & np.isfinite(y) & (y > 0)
    n, y, e = n[ok], y[ok], e[ok]
    out = {
        "xi": math.nan,
        "xi_stderr": math.nan,
        "rate": math.nan,
        "rate_stderr": math.nan,
        "amplitude": math.nan,
        "amplitude_stderr": math.nan,
        "chi2_reduced": math.nan,
        "p_value": math.nan,
        "points": int(n.size),
        "n_min": float(n.min()) if n.size else math.nan,
        "n_max": float(n.max()) if n.size else math.nan,
        "reason": "",
    }
    if n.size < max(min_points, 2) or np.unique(n).size < 2:
        out["reason"] = f"too few points: {n.size} positive values"
        return out
    s = _log_sigma(y, e)
    f = _weighted_line(n, np.log(y), s)
    b = float(f["coef"][1])
    sb = math.sqrt(f["cov"][1, 1]) if np.isfinite(f["cov"][1, 1]) else math.nan
    A = math.exp(f["coef"][0])
    out.update(
        rate=-b,
        rate_stderr=sb,
        amplitude=A,
        amplitude_stderr=A * math.sqrt(f["cov"][0, 0]) if np.isfinite(f["cov"][0, 0]) else math.nan,
        chi2_reduced=float(f["chi2_reduced"]),
        p_value=float(stats.chi2.sf(f["chi2"], f["dof"]))
        if f["dof"] > 0 and s is not None
        else math.nan,
    )
    if b < 0:
        out["xi"] = -1.0 / b
        out["xi_stderr"] = sb / b**2
    else:
        out["reason"] = "no decay: fitted rate 1/xi <= 0"
    return out


# --------------------------------------------------------------------------
# dataset helpers
# --------------------------------------------------------------------------


def _x_dim(da: xr.DataArray, ds: xr.Dataset, x: str) -> str:
    if x in da.dims:
        return x
    if x not in ds.variables:
        raise KeyError(f"{x!r} is neither a dimension nor a coordinate of the dataset")
    cands = [d for d in ds[x].dims if d in da.dims and d not in CURVE_DIMS]
    if len(cands) != 1:
        raise ValueError(f"cannot tell the abscissa dimension of {x!r} (dims {ds[x].dims})")
    return cands[0]


def _errors(ds: xr.Dataset, observable: str) -> xr.DataArray:
    """Standard errors with the module's floors (see the module docstring)."""
    y = ds[observable]
    if f"{observable}_stderr" in ds:
        e = ds[f"{observable}_stderr"].astype(float)
    else:
        e = xr.full_like(y, np.nan, dtype=float)
    if f"{observable}_count" in ds and f"{observable}_trials" in ds:
        trials = ds[f"{observable}_trials"].astype(float)
        floor = 1.0 / trials.where(trials > 0)
        e = xr.where(np.isfinite(e), np.maximum(e, floor), floor)
    return e.where(np.isfinite(y))


class _Curves:
    """An observable arranged as (*curve dims, x) numpy arrays."""

    def __init__(self, ds: xr.Dataset, observable: str, x: str):
        if observable not in ds:
            raise KeyError(f"observable {observable!r} not in dataset")
        da = ds[observable].astype(float)
        self.xdim = _x_dim(da, ds, x)
        self.dims = tuple(d for d in da.dims if d != self.xdim)
        order = (*self.dims, self.xdim)
        self.y = da.transpose(*order).values
        self.e = _errors(ds, observable).broadcast_like(da).transpose(*order).values
        xv = ds[x].astype(float).broadcast_like(da)
        self.x = xv.transpose(*order).values
        self.coords = {
            d: ds[d].values if d in ds.coords else np.arange(ds.sizes[d]) for d in self.dims
        }
        self.shape = self.y.shape[:-1]
        self.ds = ds

    def group_dims(self) -> tuple[str, ...]:
        return tuple(d for d in self.dims if d != "N")

    def n_values(self) -> np.ndarray:
        return np.asarray(self.coords["N"], float)

    def groups(self):
        """Yield (group index tuple, list of (N, x, y, e)) over non-N dims."""
        gd = self.group_dims()
        gshape = tuple(self.y.shape[self.dims.index(d)] for d in gd)
        nax = self.dims.index("N") if "N" in self.dims else None
        for gi in np.ndindex(*gshape):
            curves = []
            nlen = self.y.shape[nax] if nax is not None else 1
            for k in range(nlen):
                full = list(gi)
                if nax is not None:
                    full.insert(nax, k)
                full = tuple(full)
                nval = float(self.coords["N"][k]) if nax is not None else math.nan
                curves.append((nval, self.x[full], self.y[full], self.e[full]))
            yield gi, curves

    def make(self, dims: Sequence[str], data: dict, attrs: dict | None = None) -> xr.Dataset:
        coords = {d: self.coords[d] for d in dims}
        out = xr.Dataset({k: (tuple(dims), v) for k, v in data.items()}, coords=coords)
        out.attrs.update(attrs or {})
        return out


def _collect(keys: Iterable[str], shape) -> dict:
    return {k: np.empty(shape, dtype=object) for k in keys}


def _finish(arrays: dict) -> dict:
    out = {}
    for k, a in arrays.items():
        flat = list(a.ravel())
        if flat and isinstance(flat[0], str):
            out[k] = np.array(flat, dtype=str).reshape(a.shape)
        elif flat and isinstance(flat[0], int | np.integer):
            out[k] = np.array(flat, dtype=np.int32).reshape(a.shape)
        else:
            out[k] = np.array(flat, dtype=float).reshape(a.shape)
    return out


_PL_KEYS = (
    "exponent",
    "exponent_stderr",
    "exponent_lo",
    "exponent_hi",
    "amplitude",
    "chi2_reduced",
    "points",
    "x_min",
    "x_max",
    "reason",
)


# --------------------------------------------------------------------------
# dataset-level analyses
# --------------------------------------------------------------------------


def small_coupling_exponents(
    ds: xr.Dataset, observable: str, *, x: str = "NJ0", max_value: float = 0.2, min_points: int = 3
) -> xr.Dataset:
    """Small-coupling power-law exponent k in P ≈ A·(N J0)^k, per curve and pooled.

    Per curve (every couplings × spans × rule × N): :func:`power_law_fit` of
    the observable against ``x``. Pooled (every couplings × spans × rule): one
    weighted log-log fit through the selected points of all N together — the
    paper's collapse claim means one exponent and amplitude for all N, so the
    pooled χ²_red is also a test of the collapse on the power-law side.
    Variables: exponent, exponent_stderr, exponent_lo, exponent_hi (95 %),
    amplitude, chi2_reduced, points, x_min, x_max, reason, and pooled_* for each.
    """
    c = _Curves(ds, observable, x)
    per = _collect(_PL_KEYS, c.shape)
    for idx in np.ndindex(*c.shape):
        sel = _select_power_law(c.x[idx], c.y[idx], max_value)
        r = _fit_loglog(c.x[idx][sel], c.y[idx][sel], c.e[idx][sel], min_points)
        for k in _PL_KEYS:
            per[k][idx] = r[k]
    out = c.make(c.dims, _finish(per))
    gd = c.group_dims()
    gshape = tuple(c.y.shape[c.dims.index(d)] for d in gd)
    pooled = _collect(_PL_KEYS, gshape)
    for gi, curves in c.groups():
        xs, ys, es = [], [], []
        for _n, xv, yv, ev in curves:
            sel = _select_power_law(xv, yv, max_value)
            xs.append(xv[sel])
            ys.append(yv[sel])
            es.append(ev[sel])
        r = _fit_loglog(np.concatenate(xs), np.concatenate(ys), np.concatenate(es), min_points)
        for k in _PL_KEYS:
            pooled[k][gi] = r[k]
    pooled_ds = c.make(gd, {f"pooled_{k}": v for k, v in _finish(pooled).items()})
    out = xr.merge([out, pooled_ds])
    out.attrs.update(
        {
            "observable": observable,
            "x": x,
            "max_value": float(max_value),
            "min_points": int(min_points),
            "description": "small-coupling power law P ~ A x^k: weighted LSQ of log P vs log x "
            "on 0 < P <= max_value before P first exceeds max_value",
        }
    )
    return out


def plateau(ds: xr.Dataset, observable: str, *, x: str = "NJ0", n_last: int = 1) -> xr.Dataset:
    """Large-coupling plateau of each curve.

    The inverse-variance weighted mean of the observable over the ``n_last``
    largest finite x values of each curve (default: just the largest N·J0),
    with its standard error 1/sqrt(Σ 1/σ²) (unweighted mean when no errors are
    known). Variables plateau, plateau_stderr, plateau_x_min (smallest x used).
    """
    if n_last < 1:
        raise ValueError("n_last must be >= 1")
    c = _Curves(ds, observable, x)
    val = np.full(c.shape, np.nan)
    err = np.full(c.shape, np.nan)
    xmin = np.full(c.shape, np.nan)
    for idx in np.ndindex(*c.shape):
        xv, yv, ev = c.x[idx], c.y[idx], c.e[idx]
        ok = np.flatnonzero(np.isfinite(xv) & np.isfinite(yv))
        if ok.size == 0:
            continue
        use = ok[np.argsort(xv[ok], kind="stable")][-n_last:]
        y, e = yv[use], ev[use]
        good = np.isfinite(e) & (e > 0)
        if good.all():
            w = 1.0 / e**2
            val[idx] = np.sum(w * y) / np.sum(w)
            err[idx] = 1.0 / math.sqrt(np.sum(w))
        else:
            val[idx] = float(np.mean(y))
            err[idx] = (
                float(np.sqrt(np.sum(np.where(good, e, 0.0) ** 2))) / y.size
                if good.any()
                else math.nan
            )
        xmin[idx] = float(xv[use].min())
    return c.make(
        c.dims,
        {"plateau": val, "plateau_stderr": err, "plateau_x_min": xmin},
        {
            "observable": observable,
            "x": x,
            "n_last": int(n_last),
            "description": "weighted mean over the n_last largest x values",
        },
    )


def plateau_versus_n(
    ds: xr.Dataset,
    observable: str,
    *,
    at: float = 100.0,
    complement: bool = True,
    x: str = "NJ0",
    rtol: float = 0.05,
    n_min: float | None = None,
) -> xr.Dataset:
    """1 − P at N·J0 = ``at`` versus N, and its exponential decay length.

    The inset of Fig. 2(d): the probability to be self-loop free,
    1 − P_sl(N, N·J0 = 100), decays as A·exp(−N/ξ). Per curve, the point whose
    x is nearest to ``at`` in log scale (NaN if further than ``rtol``
    relatively) gives value = 1 − P (or P when ``complement`` is False) with
    its error; per couplings × spans × rule, :func:`exponential_fit` of value
    against N (zeros skipped, only N ≥ ``n_min`` when given) gives xi,
    xi_stderr, rate = 1/ξ, amplitude, chi2_reduced and p_value (goodness).
    """
    c = _Curves(ds, observable, x)
    if "N" not in c.dims:
        raise ValueError("plateau_versus_n needs an N dimension")
    val = np.full(c.shape, np.nan)
    err = np.full(c.shape, np.nan)
    xat = np.full(c.shape, np.nan)
    for idx in np.ndindex(*c.shape):
        xv = c.x[idx]
        ok = np.flatnonzero(np.isfinite(xv) & (xv > 0) & np.isfinite(c.y[idx]))
        if ok.size == 0:
            continue
        j = ok[np.argmin(np.abs(np.log(xv[ok] / at)))]
        if abs(xv[j] / at - 1.0) > rtol:
            continue
        y = c.y[idx][j]
        val[idx] = 1.0 - y if complement else y
        err[idx] = c.e[idx][j]
        xat[idx] = xv[j]
    name = "complement" if complement else "value"
    out = c.make(c.dims, {name: val, f"{name}_stderr": err, f"{name}_x": xat})
    keys = (
        "xi",
        "xi_stderr",
        "rate",
        "rate_stderr",
        "amplitude",
        "amplitude_stderr",
        "chi2_reduced",
        "p_value",
        "points",
        "reason",
    )
    gd = c.group_dims()
    nax = c.dims.index("N")
    gshape = tuple(c.y.shape[c.dims.index(d)] for d in gd)
    res = _collect(keys, gshape)
    nv = c.n_values()
    for gi in np.ndindex(*gshape):
        sl = list(gi)
        sl.insert(nax, slice(None))
        v, e = val[tuple(sl)], err[tuple(sl)]
        m = np.ones(nv.size, bool) if n_min is None else nv >= n_min
        r = exponential_fit(nv[m], v[m], e[m])
        for k in keys:
            res[k][gi] = r[k]
    fit = c.make(
        gd,
        {f"decay_{k}" if k not in ("xi", "xi_stderr") else k: a for k, a in _finish(res).items()},
    )
    out = xr.merge([out, fit])
    out.attrs.update(
        {
            "observable": observable,
            "x": x,
            "at": float(at),
            "complement": int(complement),
            "description": f"{'1 - P' if complement else 'P'} at {x} = {at} versus N, "
            "fitted as A exp(-N/xi) by weighted LSQ of its log",
        }
    )
    return out


# --------------------------------------------------------------------------
# data collapse
# --------------------------------------------------------------------------


def _prepare_collapse(curves, max_value):
    """Per curve: (log N, log x, log y, σ_log, interpolant of log y in log x)."""
    prepared = []
    for n, xv, yv, ev in curves:
        ok = np.isfinite(xv) & (xv > 0) & np.isfinite(yv) & (yv > 0)
        if max_value is not None:
            ok &= yv <= max_value
        if not np.isfinite(n) or n <= 0:
            continue
        lx, idx = np.unique(np.log(xv[ok]), return_index=True)
        if lx.size < 2:
            continue
        ly = np.log(yv[ok][idx])
        s = _log_sigma(yv[ok][idx], ev[ok][idx])
        if s is None:
            s = np.ones_like(ly)
        prepared.append((math.log(n), lx, ly, s, interpolate.PchipInterpolator(lx, ly)))
    return prepared


def _quality(prepared, a: float) -> tuple[float, float, int]:
    """(Q, effective dof D, number of pair terms) at exponent a."""
    m = len(prepared)
    if m < 2:
        return math.nan, 0.0, 0
    num = 0.0
    dof = 0.0
    terms = 0
    for i in range(m):
        lni, lxi, vi, si, _ = prepared[i]
        acc = np.zeros(lxi.size)
        cnt = np.zeros(lxi.size)
        for j in range(m):
            if j == i:
                continue
            lnj, lxj, vj, sj, fj = prepared[j]
            # point k of curve i sits at rescaled u = lx_ik + (a-1) ln N_i; curve j
            # reaches that u at its own lx = lx_ik + (a-1)(ln N_i - ln N_j)
            t = lxi + (a - 1.0) * (lni - lnj)
            inside = (t >= lxj[0]) & (t <= lxj[-1])
            if not inside.any():
                continue
            ti = t[inside]
            vint = fj(ti)
            # interpolation uncertainty: |PCHIP − linear| between the nodes of j
            # (zero on the nodes), so that rescalings which put curve i between
            # the sampled x of curve j are not penalised for j's sparse sampling
            sint2 = np.interp(ti, lxj, sj) ** 2 + (vint - np.interp(ti, lxj, vj)) ** 2
            acc[inside] += (vi[inside] - vint) ** 2 / (si[inside] ** 2 + sint2)
            cnt[inside] += 1
        has = cnt > 0
        num += float(np.sum(acc[has] / (cnt[has] + 1)))
        dof += float(np.sum(cnt[has] / (cnt[has] + 1)))
        terms += int(cnt.sum())
    if dof == 0:
        return math.nan, 0.0, 0
    return num / dof, dof, terms


def collapse_quality(curves, a: float, *, max_value: float | None = None) -> float:
    """Collapse cost Q(a) for curves [(N, x, y, yerr), ...] rescaled to N^(a−1)·x.

    With x = N·J0 the rescaled abscissa is N^a·J0. In log–log coordinates
    (u = log x + (a−1) log N, v = log y, σ = yerr/y), every point k of curve i
    lying inside the u-range of another curve j is compared with j
    interpolated there (monotone cubic, PCHIP, in log–log):
    d²_ijk = (v_ik − v_j(u_ik))² / (σ_ik² + σ_j(u_ik)² + δ_j(u_ik)²), with σ_j
    interpolated linearly and δ_j = |PCHIP − linear| an interpolation
    uncertainty (zero on j's nodes, so aligned grids at a = 1 are not favoured).
    A point compared with c partner curves contributes Σ_j d²_ijk/(c+1) and
    c/(c+1) degrees of freedom (for c+1 curves sharing one true value, the
    pairwise sum over ordered pairs is (c+1) times the χ² about their mean);
    Q = Σ contributions / Σ dof. Q ≈ 1: deviations of the size of the error
    bars (perfect collapse); Q ≫ 1: no collapse. (Bhattacharjee–Seno pairwise
    overlap with Houdayer–Hartmann error weighting.)
    """
    return _quality(_prepare_collapse(curves, max_value), a)[0]


def _crossing(f, a0: float, level: float, step: float, direction: int, bound: float) -> float:
    """First a beyond a0 (in direction) where f(a) >= level, by expanding then bisecting."""
    lo = a0
    hi = a0 + direction * step
    for _ in range(60):
        if direction * (hi - bound) > 0:
            hi = bound
        q = f(hi)
        if not np.isfinite(q) or q >= level:
            break
        if hi == bound:
            return math.nan
        lo, hi = hi, a0 + 2.0 * (hi - a0)
    else:
        return math.nan
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        q = f(mid)
        if np.isfinite(q) and q < level:
            lo = mid
        else:
            hi = mid
        if abs(hi - lo) < 1e-6:
            break
    return 0.5 * (lo + hi)


def collapse_fit(
    curves,
    *,
    a_grid=None,
    max_value: float | None = None,
    bounds: tuple[float, float] | None = None,
) -> dict:
    """Best collapse exponent a for one family of curves [(N, x, y, yerr), ...].

    Scans :func:`collapse_quality` Q(a) on ``a_grid`` (default 0…2, step
    0.025), refines the minimum with a bounded scalar minimisation, and
    derives uncertainties from the rise of Q:

    * a_stderr: statistical, Δχ² = 1 on χ² = D·Q (D the effective dof), from
      the curvature of a parabola fitted to Q(a) where Q ≤ Q_min + max(Q_min, 1);
      errors inflated by sqrt(Q_min) when Q_min > 1.
    * a_lo, a_hi: the Houdayer–Hartmann width, where Q = Q_min + 1
      (deviations one error bar larger per point; conservative). NaN where Q
      stays below that level up to the end of the grid.

    The reason flags a minimum at the edge of the grid (a outside it) and
    curves that do not constrain a at all.

    Returns a_best, a_stderr, a_lo, a_hi, q_min, dof, terms, curves, a_grid,
    q_grid and reason ("" on success).
    """
    grid = np.linspace(0.0, 2.0, 81) if a_grid is None else np.asarray(a_grid, float)
    prepared = _prepare_collapse(curves, max_value)
    out = {
        "a_best": math.nan,
        "a_stderr": math.nan,
        "a_lo": math.nan,
        "a_hi": math.nan,
        "q_min": math.nan,
        "dof": math.nan,
        "terms": 0,
        "curves": len(prepared),
        "a_grid": grid,
        "q_grid": np.full(grid.size, np.nan),
        "reason": "",
    }
    if len(prepared) < 2:
        out["reason"] = "fewer than two curves with two positive points"
        return out
    q_grid = np.array([_quality(prepared, a)[0] for a in grid])
    out["q_grid"] = q_grid
    if not np.isfinite(q_grid).any():
        out["reason"] = "curves never overlap"
        return out
    lo_b, hi_b = bounds if bounds is not None else (grid.min(), grid.max())
    i = int(np.nanargmin(q_grid))

    def f(a):
        return _quality(prepared, float(a))[0]

    left = grid[max(i - 1, 0)]
    right = grid[min(i + 1, grid.size - 1)]
    a_best, q_min = float(grid[i]), float(q_grid[i])
    if right > left:

        def g(a):
            q = f(a)
            return q if np.isfinite(q) else np.inf

        r = optimize.minimize_scalar(
            g, bounds=(left, right), method="bounded", options={"xatol": 1e-5}
        )
        if np.isfinite(r.fun) and r.fun <= q_min:
            a_best, q_min = float(r.x), float(r.fun)
    _q, dof, terms = _quality(prepared, a_best)
    out.update(a_best=a_best, q_min=q_min, dof=dof, terms=terms)
    if np.nanmax(q_grid) <= 1e-12:
        out["reason"] = "Q = 0 for every a: the curves do not constrain a (undetermined)"
        out["a_best"] = math.nan
        return out
    step = float(np.median(np.diff(grid))) / 4 if grid.size > 1 else 0.01
    out["a_lo"] = _crossing(f, a_best, q_min + 1.0, step / 8, -1, lo_b)
    out["a_hi"] = _crossing(f, a_best, q_min + 1.0, step / 8, +1, hi_b)
    # statistical error: parabola through Q on the window where Q <= Q_min +
    # max(Q_min, 1) (wide enough to average over the small jumps of Q where
    # overlaps change), then Δχ² = 1 on χ² = D·Q, with the errors inflated by
    # sqrt(Q_min) when Q_min > 1.
    level = q_min + max(q_min, 1.0)
    wl = _crossing(f, a_best, level, step / 8, -1, lo_b)
    wr = _crossing(f, a_best, level, step / 8, +1, hi_b)
    wl = wl if np.isfinite(wl) else lo_b
    wr = wr if np.isfinite(wr) else hi_b
    aa = np.linspace(wl, wr, 15)
    qq = np.array([f(a) for a in aa])
    ok = np.isfinite(qq)
    if ok.sum() >= 3 and wr > wl:
        c2 = np.polyfit(aa[ok] - a_best, qq[ok], 2)[0]
        if c2 > 0:
            out["a_stderr"] = math.sqrt(max(q_min, 1.0) / (dof * c2))
    if i in (0, grid.size - 1):
        out["reason"] = "minimum at the edge of a_grid"
    return out


def collapse_exponent(
    ds: xr.Dataset, observable: str, *, x: str = "NJ0", a_grid=None, max_value: float | None = None
) -> xr.Dataset:
    """Exponent a for which the curves of all N collapse against N^a·J0.

    With x = N·J0, N^a·J0 = N^(a−1)·x; the paper's claim is a = 1. For each
    couplings × spans × rule, :func:`collapse_fit` over the N curves (points
    with P > 0, and P ≤ ``max_value`` when given). Variables a_best, a_stderr,
    a_lo, a_hi, q_min (collapse quality, ≈ 1 for a collapse within errors),
    dof, terms, reason and q (Q on the ``a`` grid dimension). It is the
    dict of :func:`collapse_fit` laid out over the group dimensions.
    """
    c = _Curves(ds, observable, x)
    gd = c.group_dims()
    gshape = tuple(c.y.shape[c.dims.index(d)] for d in gd)
    keys = ("a_best", "a_stderr", "a_lo", "a_hi", "q_min", "dof", "terms", "reason")
    res = _collect(keys, gshape)
    grid = np.linspace(0.0, 2.0, 81) if a_grid is None else np.asarray(a_grid, float)
    q = np.full((*gshape, grid.size), np.nan)
    for gi, curves in c.groups():
        r = collapse_fit(curves, a_grid=grid, max_value=max_value)
        for k in keys:
            res[k][gi] = r[k]
        q[gi] = r["q_grid"]
    out = c.make(gd, _finish(res))
    out["q"] = ((*gd, "a"), q)
    out = out.assign_coords(a=grid)
    out.attrs.update(
        {
            "observable": observable,
            "x": x,
            "max_value": float(max_value) if max_value is not None else math.nan,
            "description": "collapse of all N against N^a J0 = N^(a-1) NJ0; Q(a) = error-weighted "
            "mean squared log-log pairwise deviation per dof (Q~1: collapse)",
        }
    )
    return out


# --------------------------------------------------------------------------
# everything at once
# --------------------------------------------------------------------------

_ATTRS = {
    "exponent": "small-coupling power-law exponent k, P ~ A x^k (per curve)",
    "exponent_stderr": "standard error of k (scaled by sqrt(chi2_red) when > 1)",
    "exponent_lo": "lower 95% limit of k (Student t, n-2 dof)",
    "exponent_hi": "upper 95% limit of k (Student t, n-2 dof)",
    "amplitude": "power-law amplitude A",
    "chi2_reduced": "reduced chi2 of the log-log fit",
    "points": "number of points in the fit",
    "x_min": "smallest x in the fit",
    "x_max": "largest x in the fit",
    "reason": "why the fit is NaN ('' when it succeeded)",
    "plateau": "large-coupling value: weighted mean over the largest x values",
    "plateau_stderr": "standard error of the plateau",
    "plateau_x_min": "smallest x entering the plateau",
    "complement": "1 - P at x = at (inset of Fig. 2(d))",
    "complement_stderr": "standard error of 1 - P",
    "complement_x": "x value used for 1 - P",
    "xi": "decay length xi of 1 - P ~ A exp(-N/xi)",
    "xi_stderr": "standard error of xi",
    "decay_rate": "1/xi",
    "decay_rate_stderr": "standard error of 1/xi",
    "decay_amplitude": "A of 1 - P ~ A exp(-N/xi)",
    "decay_amplitude_stderr": "standard error of A",
    "decay_chi2_reduced": "reduced chi2 of the exponential fit (goodness)",
    "decay_p_value": "chi2 p-value of the exponential fit",
    "decay_points": "number of N values in the exponential fit",
    "decay_reason": "why the exponential fit is NaN ('' when it succeeded)",
    "collapse_a": "exponent a of the best collapse against N^a J0 (paper: 1)",
    "collapse_a_stderr": "statistical error of a (Delta chi2 = 1 on D*Q)",
    "collapse_a_lo": "lower end of Q <= Q_min + 1 (Houdayer-Hartmann width)",
    "collapse_a_hi": "upper end of Q <= Q_min + 1 (Houdayer-Hartmann width)",
    "collapse_q_min": "collapse quality Q at a_best (~1: collapse within errors)",
    "collapse_dof": "effective degrees of freedom D of Q",
    "collapse_terms": "number of pairwise comparisons in Q",
    "collapse_reason": "why the collapse fit failed or is suspect ('' when fine)",
    "collapse_q": "collapse quality Q(a) on the collapse_a_grid",
}


def _describe(name: str) -> str:
    base = name[len("pooled_") :] if name.startswith("pooled_") else name
    text = _ATTRS.get(base, base)
    return f"pooled over N: {text}" if name.startswith("pooled_") else text


def analyse_study(
    ds: xr.Dataset,
    observables: Sequence[str] | None = None,
    *,
    x: str = "NJ0",
    max_value: float = 0.2,
    at: float = 100.0,
    n_last: int = 1,
    collapse_max_value: float | None = None,
    a_grid=None,
) -> xr.Dataset:
    """All analyses for every observable present, in one NetCDF-writable Dataset.

    For each observable (default: those of ``OBSERVABLES`` in ``ds``),
    variables prefixed ``<observable>_``: the per-curve and pooled
    small-coupling exponents (power-law observables only), the plateau, for
    probabilities 1 − P at N·J0 = ``at`` versus N with its decay length xi,
    and the collapse exponent ``collapse_a`` with its Q(a) curve
    (``collapse_q`` on the ``collapse_a_grid`` dimension), computed on the
    points with P ≤ ``collapse_max_value`` (default: per observable, see
    ``OBSERVABLES``; ``math.inf`` for all points). ``paper_slope``
    attrs give ``PAPER_SLOPES`` for the study named in ``ds.attrs['study']``
    (NaN when the paper states none).
    """
    if observables is None:
        observables = [o for o in OBSERVABLES if o in ds]
    study = str(ds.attrs.get("study", ""))
    parts = []
    for obs in observables:
        info = OBSERVABLES.get(
            obs,
            {
                "kind": "probability" if f"{obs}_count" in ds else "mean",
                "power_law": True,
                "collapse_max_value": None,
                "symbol": obs,
            },
        )
        cmax = info["collapse_max_value"] if collapse_max_value is None else collapse_max_value
        cmax = None if cmax is not None and math.isinf(cmax) else cmax
        pieces = []
        if info["power_law"]:
            pieces.append(small_coupling_exponents(ds, obs, x=x, max_value=max_value))
        pieces.append(plateau(ds, obs, x=x, n_last=n_last))
        if info["kind"] == "probability" and "N" in ds[obs].dims:
            pieces.append(plateau_versus_n(ds, obs, at=at, complement=True, x=x))
        col = collapse_exponent(ds, obs, x=x, a_grid=a_grid, max_value=cmax)
        col = col.rename(
            {k: f"collapse_{k}" if k != "a_best" else "collapse_a" for k in col.data_vars}
        )
        col = col.rename({"a": "collapse_a_grid"})
        pieces.append(col)
        merged = xr.merge(pieces, combine_attrs="drop")
        slope = PAPER_SLOPES.get((study, obs), math.nan)
        renamed = {}
        for v in merged.data_vars:
            da = merged[v]
            da.attrs = {
                "description": _describe(str(v)),
                "observable": obs,
                "symbol": info["symbol"],
            }
            if str(v) in ("exponent", "pooled_exponent"):
                da.attrs["paper_slope"] = float(slope)
            if str(v).startswith("collapse_"):
                da.attrs["max_value"] = float(cmax) if cmax is not None else math.inf
            renamed[f"{obs}_{v}"] = da
        parts.append(xr.Dataset(renamed))
    out = xr.merge(parts) if parts else xr.Dataset()
    out.attrs.update(
        {
            "study": study,
            "x": x,
            "max_value": float(max_value),
            "at": float(at),
            "n_last": int(n_last),
            "collapse_max_value": "per observable (hyst.analysis.OBSERVABLES)"
            if collapse_max_value is None
            else float(collapse_max_value),
            "observables": ",".join(observables),
            "description": "hyst.analysis: small-coupling power laws, plateaus, 1-P vs N decay, "
            "collapse exponent a in N^a J0 (paper: a = 1)",
        }
    )
    return out
