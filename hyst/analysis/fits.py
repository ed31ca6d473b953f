"""Fits of single curves and of families of curves (no datasets): exponential decay and the
quality of a scaling collapse (small-coupling power laws: :mod:`hyst.analysis.power_laws`).

All functions are pure: numpy arrays in, dicts out. Error floors: a zero or
invalid error is replaced by the smallest positive error of the same curve.
"""

from __future__ import annotations

import math

import numpy as np

from hyst.analysis.power_laws import chi2_survival

_SIGMA_FLOOR = 1e-6  # smallest relative (log-space) error allowed in fits


# --------------------------------------------------------------------------
# one-curve fits
# --------------------------------------------------------------------------


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
        p_value=chi2_survival(f["chi2"], f["dof"]) if f["dof"] > 0 and s is not None else math.nan,
    )
    if b < 0:
        out["xi"] = -1.0 / b
        out["xi_stderr"] = sb / b**2
    else:
        out["reason"] = "no decay: fitted rate 1/xi <= 0"
    return out


def _prepare_collapse(curves, max_value):
    """Per curve: (log N, log x, log y, σ_log, interpolant of log y in log x)."""
    from scipy import interpolate  # here: importing hyst.analysis imports no scipy

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
    q, dof, terms = _qualities(prepared, [a])
    return float(q[0]), float(dof[0]), int(terms[0])


def _qualities(prepared, exponents) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Q, effective dof D, number of pair terms) at each of ``exponents`` at once: for each
    exponent the same floating-point operations, in the same order, as on its own (each
    pair of curves is compared at every exponent in one pass, the sums stay per exponent)."""
    a = np.asarray(exponents, float).reshape(-1, 1)
    n, m = a.shape[0], len(prepared)
    q = np.full(n, math.nan)
    dof = np.zeros(n)
    terms = np.zeros(n, np.int64)
    if m < 2:
        return q, dof, terms
    num = [0.0] * n
    den = [0.0] * n
    count = [0] * n
    for i in range(m):
        lni, lxi, vi, si, _ = prepared[i]
        acc = np.zeros((n, lxi.size))
        cnt = np.zeros((n, lxi.size))
        vi_all = np.broadcast_to(vi, acc.shape)
        si_all = np.broadcast_to(si, acc.shape)
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
            acc[inside] += (vi_all[inside] - vint) ** 2 / (si_all[inside] ** 2 + sint2)
            cnt[inside] += 1
        for r in range(n):
            row, seen = acc[r], cnt[r]
            has = seen > 0
            num[r] += float(np.sum(row[has] / (seen[has] + 1)))
            den[r] += float(np.sum(seen[has] / (seen[has] + 1)))
            count[r] += int(seen.sum())
    for r in range(n):
        if den[r] != 0:
            q[r], dof[r], terms[r] = num[r] / den[r], den[r], count[r]
    return q, dof, terms


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
    from scipy import optimize  # here: importing hyst.analysis imports no scipy

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
    q_grid = _qualities(prepared, grid)[0]
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
    qq = _qualities(prepared, aa)[0]
    ok = np.isfinite(qq)
    if ok.sum() >= 3 and wr > wl:
        c2 = np.polyfit(aa[ok] - a_best, qq[ok], 2)[0]
        if c2 > 0:
            out["a_stderr"] = math.sqrt(max(q_min, 1.0) / (dof * c2))
    if i in (0, grid.size - 1):
        out["reason"] = "minimum at the edge of a_grid"
    return out
