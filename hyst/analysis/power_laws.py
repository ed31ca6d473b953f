"""Small-coupling power laws P ≈ A·x^k fitted to counts, with a documented window, and
local slopes d ln P / d ln x (pure numpy: arrays in, dicts out).

The likelihood
--------------
A probability is a count k_i of events among n_i independent systems per point,
so the fit maximises the binomial likelihood Σ k_i ln p_i + (n_i − k_i) ln(1 − p_i)
with p_i = A·x_i^k. A mean of a non-negative per-system quantity (f_G) is fitted
as a quasi-Poisson count: its effective number of events k_i = (y_i/σ_i)²
(σ_i the standard error of the mean: for values that are mostly zero this is
the number of systems contributing, Kish's effective sample size) with exposure
k_i/y_i, so that the expected count is λ_i = (k_i/y_i)·A·x_i^k. Points are
independent (every point draws its own systems). The fit is Newton's method on
(ln A_g, k) with step halving; errors come from the observed information,
scaled by the deviance per degree of freedom when that exceeds 1
(over-dispersion); the deviance is also the goodness of fit (χ² with
points − parameters degrees of freedom).

The window rule
---------------
On each curve (one N), sorted by x, the window is the contiguous run of points
that

1. have at least :data:`MIN_EVENTS` events (relative error of P at most about
   1/sqrt(20) ≈ 22 %: points with one to three events bias the fit towards
   upward fluctuations);
2. lie well below the plateau: P ≤ :data:`PLATEAU_FRACTION` × the curve's largest
   value and P ≤ ``max_value``; the window ends where P first exceeds this cut
   (the paper-scale curves bend away from their small-coupling slope from a few
   per cent of their plateau on: P_g^0 of random hysterons has local slopes
   near 4 up to 2 % of its plateau and 3.2 at 9 %);
3. follow one power law: while the fit's goodness-of-fit p-value is below
   :data:`GOODNESS_P` and more than :data:`MIN_TRIM_POINTS` points remain, the
   lowest-x point is dropped (a crossover from another slope at smaller x: the
   fit reports the slope above it; the bend towards the plateau is cut by rule 2).

A curve needs :data:`MIN_POINTS` points in its window to be fitted.

Pooling over N
--------------
Curves of different N have different prefactors, so each N keeps its amplitude
and the pooled exponent is the inverse-variance weighted mean of the per-N
exponents (each N's error already includes its own misfit). It pools only N
whose exponents are consistent with one exponent: χ² = Σ_N (k_N − k̄)²/σ_N² with
(curves − 1) degrees of freedom must have p ≥ :data:`CONSISTENCY_P`; where the
N ≥ 2 disagree, the smallest N (largest finite-size corrections) are left out
one by one, and the smallest N pooled is reported (``n_min``).
"""

from __future__ import annotations

import math

import numpy as np

#: Fewest events a point needs to enter a fit window.
MIN_EVENTS = 20
#: The window stays below this fraction of the curve's largest value.
PLATEAU_FRACTION = 0.02
#: ... and below this absolute value (probabilities).
MAX_VALUE = 0.1
#: Fewest points of a fitted curve.
MIN_POINTS = 2
#: Goodness-of-fit p-value below which the lowest point of a window is dropped.
GOODNESS_P = 0.01
#: Points a window keeps at least when dropping low points.
MIN_TRIM_POINTS = 3
#: p-value of the per-N consistency test below which no pooled exponent is reported.
CONSISTENCY_P = 0.001
#: Two-sided 95 % normal quantile for the intervals: ``scipy.stats.norm.ppf(0.975)``, written
#: out (tests/test_analysis.py checks it) so that importing this module does not import scipy.
Z95 = 1.959963984540054

BINOMIAL, POISSON = "binomial", "poisson"


# --------------------------------------------------------------------------
# counts of one curve
# --------------------------------------------------------------------------


def counts_of_mean(y, stderr) -> tuple[np.ndarray, np.ndarray]:
    """(effective events, exposure) of means ``y`` with standard errors ``stderr``:
    k = (y/σ)², exposure k/y (NaN-free; 0 events where y or σ is not positive)."""
    y = np.asarray(y, float)
    s = np.asarray(stderr, float)
    ok = np.isfinite(y) & np.isfinite(s) & (y > 0) & (s > 0)
    k = np.where(ok, (np.where(ok, y, 1.0) / np.where(ok, s, 1.0)) ** 2, 0.0)
    exposure = np.where(ok, k / np.where(ok, y, 1.0), 0.0)
    return k, exposure


def window(x, y, events, *, max_value: float = MAX_VALUE) -> np.ndarray:
    """Indices (in x order) of a curve's window by rules 1 and 2 of the module docstring."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    events = np.asarray(events, float)
    finite = y[np.isfinite(y)]
    cut = max_value
    if finite.size:
        cut = min(cut, PLATEAU_FRACTION * float(finite.max()))
    keep = []
    for i in np.argsort(x, kind="stable"):
        if not (np.isfinite(x[i]) and x[i] > 0 and np.isfinite(y[i])):
            continue
        if y[i] > cut:
            break
        if events[i] >= MIN_EVENTS and y[i] > 0:
            keep.append(i)
    return np.asarray(keep, dtype=int)


# --------------------------------------------------------------------------
# maximum likelihood
# --------------------------------------------------------------------------


def _loglik(eta, k, n, family):
    """Log-likelihood per point (up to terms free of the parameters) and its saturated
    value, for the linear predictor eta = ln(expected P)."""
    if family == BINOMIAL:
        p = np.exp(eta)
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = k * eta + (n - k) * np.log1p(-p)
            ph = k / n
            sat = np.where(k > 0, k * np.log(ph), 0.0) + np.where(
                n - k > 0, (n - k) * np.log1p(-ph), 0.0
            )
        return ll, sat
    lam = n * np.exp(eta)
    with np.errstate(divide="ignore"):
        sat = np.where(k > 0, k * np.log(np.where(k > 0, k, 1.0)) - k, 0.0)
    return k * np.log(n) + k * eta - lam, sat


def chi2_survival(chi2: float, dof: int) -> float:
    """P(χ²_dof ≥ ``chi2``): the p-value of a goodness-of-fit or consistency test.

    scipy.stats is imported here, not with the module: the figures, their captions and the
    Snakefile import this module for its constants, and scipy.stats takes most of a second
    to import, in every pipeline job."""
    from scipy import stats

    return float(stats.chi2.sf(chi2, dof))


def _score_info(eta, k, n, family):
    """d ln L/d eta and −d² ln L/d eta² per point."""
    if family == BINOMIAL:
        p = np.exp(eta)
        odds = p / (1.0 - p)
        return k - (n - k) * odds, (n - k) * odds / (1.0 - p)
    lam = n * np.exp(eta)
    return k - lam, lam


def fit_counts(x, k, n, groups=None, family: str = BINOMIAL) -> dict:
    """Maximum-likelihood power law P_g = A_g·x^e for events ``k`` out of ``n`` (binomial)
    or with exposure ``n`` (Poisson), one amplitude per value of ``groups`` (default one
    group) and one exponent e.

    Returns exponent, exponent_stderr (scaled by sqrt(deviance/dof) when > 1),
    exponent_lo/hi (95 %), log_amplitudes (per group, in order of np.unique(groups)),
    deviance, dof, p_value (goodness of fit), dispersion, loglik, points and reason
    ("" on success)."""
    x = np.asarray(x, float)
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    g = np.zeros(x.size, int) if groups is None else np.unique(groups, return_inverse=True)[1]
    m = int(g.max()) + 1 if g.size else 0
    out = _nan_fit(x.size, "")
    if x.size < 2 or np.unique(np.log(x)).size < 2:
        out["reason"] = f"too few points: {x.size} < {MIN_POINTS}"
        return out
    X = np.zeros((x.size, m + 1))
    X[np.arange(x.size), g] = 1.0
    X[:, m] = np.log(x)
    beta = np.linalg.lstsq(X, np.log(k / n), rcond=None)[0]

    def total(b):
        eta = X @ b
        if family == BINOMIAL and np.any(eta >= 0):
            return -np.inf
        return float(np.sum(_loglik(eta, k, n, family)[0]))

    ll = total(beta)
    if not np.isfinite(ll):  # a least-squares start above P = 1: start below every point
        beta[:m] = np.log(k / n).min() - 1.0
        beta[m] = 0.0
        ll = total(beta)
    for _ in range(200):
        s, w = _score_info(X @ beta, k, n, family)
        info = X.T @ (w[:, None] * X)
        step = np.linalg.solve(info, X.T @ s)
        t = 1.0
        while t > 1e-12:
            trial = beta + t * step
            lt = total(trial)
            if lt >= ll - 1e-12 * abs(ll):
                break
            t /= 2
        beta, ll_new = trial, lt
        if np.max(np.abs(t * step)) < 1e-11 or abs(ll_new - ll) < 1e-13 * max(abs(ll), 1.0):
            ll = ll_new
            break
        ll = ll_new
    eta = X @ beta
    _s, w = _score_info(eta, k, n, family)
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    lik, sat = _loglik(eta, k, n, family)
    deviance = float(max(2.0 * np.sum(sat - lik), 0.0))
    dof = x.size - (m + 1)
    dispersion = max(1.0, deviance / dof) if dof > 0 else 1.0
    se = math.sqrt(cov[m, m] * dispersion)
    e = float(beta[m])
    out.update(
        exponent=e,
        exponent_stderr=se,
        exponent_lo=e - Z95 * se,
        exponent_hi=e + Z95 * se,
        log_amplitudes=beta[:m].copy(),
        amplitude=float(math.exp(beta[0])) if m == 1 else math.nan,
        deviance=deviance,
        dof=int(dof),
        p_value=chi2_survival(deviance, dof) if dof > 0 else math.nan,
        dispersion=float(dispersion),
        loglik=float(ll),
        points=int(x.size),
        x_min=float(x.min()),
        x_max=float(x.max()),
    )
    return out


def _nan_fit(points: int, reason: str) -> dict:
    return {
        "exponent": math.nan,
        "exponent_stderr": math.nan,
        "exponent_lo": math.nan,
        "exponent_hi": math.nan,
        "log_amplitudes": np.array([]),
        "amplitude": math.nan,
        "deviance": math.nan,
        "dof": 0,
        "p_value": math.nan,
        "dispersion": math.nan,
        "loglik": math.nan,
        "points": int(points),
        "x_min": math.nan,
        "x_max": math.nan,
        "dropped": 0,
        "events_min": math.nan,
        "reason": reason,
    }


# --------------------------------------------------------------------------
# one curve, and curves pooled over N
# --------------------------------------------------------------------------


def fit_curve(x, y, k, n, family: str = BINOMIAL, *, max_value: float = MAX_VALUE) -> dict:
    """Power law of one curve in its window (rules 1–3 of the module docstring).

    ``x``, ``y``: abscissa and estimate; ``k``, ``n``: events and trials (binomial) or
    exposure (Poisson). Returns the dict of :func:`fit_counts` with the window's points,
    x_min, x_max, events_min, the number of low points dropped (``dropped``) and
    ``index`` (the points used, indices into x)."""
    idx = window(x, y, k, max_value=max_value)
    x = np.asarray(x, float)
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    if idx.size < MIN_POINTS:
        why = "no point" if idx.size == 0 else f"{idx.size} point"
        r = _nan_fit(
            idx.size,
            f"too few points: {why} with >= {MIN_EVENTS} events below the plateau cut",
        )
        r["index"] = idx
        return r
    dropped = 0
    while True:
        r = fit_counts(x[idx], k[idx], n[idx], family=family)
        if not (r["dof"] > 0 and r["p_value"] < GOODNESS_P and idx.size > MIN_TRIM_POINTS):
            break
        idx = idx[1:]
        dropped += 1
    r.update(dropped=dropped, events_min=float(k[idx].min()), index=idx)
    return r


def weighted_mean(fits) -> dict:
    """The inverse-variance weighted mean of per-curve exponents (:func:`fit_curve` dicts
    with a finite exponent and error): exponent, exponent_stderr (1/sqrt(Σ w), scaled by
    sqrt(χ²/dof) when that exceeds 1), exponent_lo/hi (95 %), and the consistency
    χ² = Σ w (k − k̄)² with its dof (curves − 1) and p-value."""
    k = np.array([f["exponent"] for f in fits])
    w = 1.0 / np.array([f["exponent_stderr"] for f in fits]) ** 2
    mean = float(np.sum(w * k) / np.sum(w))
    chi2 = float(np.sum(w * (k - mean) ** 2))
    dof = len(fits) - 1
    se = math.sqrt(1.0 / np.sum(w)) * (math.sqrt(max(1.0, chi2 / dof)) if dof > 0 else 1.0)
    return {
        "exponent": mean,
        "exponent_stderr": se,
        "exponent_lo": mean - Z95 * se,
        "exponent_hi": mean + Z95 * se,
        "consistency_chi2": chi2,
        "consistency_dof": dof,
        "consistency_p": chi2_survival(chi2, dof) if dof > 0 else math.nan,
    }


def pool(fits, n_values=None) -> dict:
    """One exponent for the curves of several N (each with its own amplitude) from their
    per-curve fits (:func:`fit_curve`, in the order of ``n_values``, ascending N).

    The pooled exponent is the :func:`weighted_mean` of the per-N exponents of N ≥ N_min,
    where N_min is the smallest N for which those exponents are consistent with one
    exponent (χ² p-value ≥ :data:`CONSISTENCY_P`): finite-size corrections are largest at
    small N, so the smallest N are left out first, down to two curves. NaN (reason given)
    where even the two largest N disagree, or no N has a window. Returns exponent,
    exponent_stderr, exponent_lo/hi, n_min, curves, points, x_min, x_max,
    consistency_chi2, consistency_dof, consistency_p (of the pooled N), reason."""
    n_values = list(range(len(fits))) if n_values is None else list(n_values)
    used = [
        (n, f)
        for n, f in zip(n_values, fits, strict=True)
        if np.isfinite(f["exponent"])
        and np.isfinite(f["exponent_stderr"])
        and f["exponent_stderr"] > 0
    ]
    out = {
        "exponent": math.nan,
        "exponent_stderr": math.nan,
        "exponent_lo": math.nan,
        "exponent_hi": math.nan,
        "n_min": math.nan,
        "curves": 0,
        "points": 0,
        "x_min": math.nan,
        "x_max": math.nan,
        "consistency_chi2": math.nan,
        "consistency_dof": 0,
        "consistency_p": math.nan,
        "reason": "",
    }
    if not used:
        out["reason"] = "no N has a fit window"
        return out
    for start in range(len(used)):
        part = used[start:]
        r = weighted_mean([f for _n, f in part])
        if r["consistency_dof"] == 0 or r["consistency_p"] >= CONSISTENCY_P or len(part) <= 2:
            break
    consistent = r["consistency_dof"] == 0 or r["consistency_p"] >= CONSISTENCY_P
    out.update(
        {k: r[k] for k in ("consistency_chi2", "consistency_dof", "consistency_p")},
        n_min=float(part[0][0]),
        curves=len(part),
        points=int(sum(f["points"] for _n, f in part)),
        x_min=min(f["x_min"] for _n, f in part),
        x_max=max(f["x_max"] for _n, f in part),
    )
    if not consistent:
        out["reason"] = (
            f"per-N exponents inconsistent with one exponent down to the two largest N "
            f"(chi2 = {r['consistency_chi2']:.1f}, p = {r['consistency_p']:.2g}): not pooled"
        )
        return out
    out.update({k: r[k] for k in ("exponent", "exponent_stderr", "exponent_lo", "exponent_hi")})
    return out


# --------------------------------------------------------------------------
# local slopes
# --------------------------------------------------------------------------


def local_slopes(x, y, k, n, family: str = BINOMIAL) -> dict:
    """d ln P / d ln x between consecutive points (sorted by x) of one curve.

    Returns x_mid (geometric mean of the two x), slope, stderr (from the counts:
    var ln P = (1 − P)/k binomial, 1/k Poisson), and the index pairs (lo, hi) into x.
    Slopes need events at both ends (NaN otherwise)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    k = np.asarray(k, float)
    order = np.argsort(x, kind="stable")
    lo, hi = order[:-1], order[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.where(k > 0, (1.0 - y) / k if family == BINOMIAL else 1.0 / k, np.nan)
        dl = np.log(x[hi]) - np.log(x[lo])
        ok = (k[lo] > 0) & (k[hi] > 0) & (dl > 0) & (y[lo] > 0) & (y[hi] > 0)
        slope = np.where(ok, (np.log(y[hi]) - np.log(y[lo])) / dl, np.nan)
        err = np.where(ok, np.sqrt(var[lo] + var[hi]) / dl, np.nan)
        mid = np.sqrt(x[lo] * x[hi])
    return {"x_mid": mid, "slope": slope, "stderr": err, "lo": lo, "hi": hi}


def window_slope(x, y, k, index, family: str = BINOMIAL) -> tuple[float, float]:
    """The local slopes inside a window averaged with weights Δ ln x: the slope between
    the window's end points, with its standard error (NaN for fewer than two points)."""
    if len(index) < 2:
        return math.nan, math.nan
    x = np.asarray(x, float)[index]
    y = np.asarray(y, float)[index]
    k = np.asarray(k, float)[index]
    a, b = int(np.argmin(x)), int(np.argmax(x))
    dl = math.log(x[b] / x[a])
    var = (1.0 - y) / k if family == BINOMIAL else 1.0 / k
    return math.log(y[b] / y[a]) / dl, math.sqrt(var[a] + var[b]) / dl


def power_law_fit(
    y,
    x,
    *,
    counts=None,
    trials=None,
    stderr=None,
    max_value: float = MAX_VALUE,
) -> dict:
    """Small-coupling power law of one curve: a probability from its ``counts`` and
    ``trials`` (binomial), or a mean from its ``stderr`` (quasi-Poisson), in the window of
    the module docstring. 1-D array-likes of equal length; returns :func:`fit_curve`'s dict
    (``family`` added)."""
    y = np.asarray(y, float)
    x = np.asarray(x, float)
    if counts is not None and trials is not None:
        k, n, family = np.asarray(counts, float), np.asarray(trials, float), BINOMIAL
    elif stderr is not None:
        (k, n), family = counts_of_mean(y, stderr), POISSON
    else:
        raise ValueError("power_law_fit needs counts and trials (probability) or stderr (mean)")
    if not (x.shape == y.shape == k.shape == n.shape) or y.ndim != 1:
        raise ValueError("power_law_fit needs 1-D y, x and counts of equal length")
    r = fit_curve(x, y, k, n, family, max_value=max_value)
    r["family"] = family
    return r
