"""Analyses of study datasets: small-coupling exponents, plateaus, 1 − P versus N and the
collapse exponent, for every observable the catalogue marks for scaling analysis.

The paper's claims about the Monte Carlo curves P(N, J0) are

* small coupling, N·J0 ≪ 1: every observable grows as a power law of N·J0
  with a stated slope (:func:`hyst.catalogue.paper_slope`);
* the curves of all N collapse when plotted against N·J0;
* large coupling, N·J0 ≫ 1: each curve saturates at a plateau, and the
  probability to be self-loop free, 1 − P_sl at N·J0 = 100, decays
  exponentially with N (inset of Fig. 2(d)).

This module turns those statements into numbers with error bars, from the
datasets of points studies (dimensions ``couplings, spans, rule, N`` and the
swept axis ``NJ0`` or ``J0``; per observable NAME the variables NAME and
NAME_stderr, plus NAME_count/NAME_trials for probabilities). The abscissa is
always N·J0: on a J0 grid it is the 2-D coordinate NJ0 = N·J0, so exponents and
the collapse are reported against N·J0 whatever the grid. All functions are
pure: xarray in, xarray Datasets out.

The small-coupling exponents (per N, pooled where consistent, local slopes) are
those of :mod:`hyst.analysis.exponents`. Error floors: a probability estimated
as 0 or 1 has a binomial standard error of 0; its error is floored at one count,
1/trials.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import xarray as xr

from hyst import catalogue
from hyst.analysis.curves import CURVE_DIMS, Curves, collect, finish
from hyst.analysis.exponents import DESCRIPTIONS, small_coupling_exponents
from hyst.analysis.fits import collapse_fit, exponential_fit
from hyst.analysis.power_laws import MAX_VALUE

__all__ = [
    "CURVE_DIMS",
    "analyse_study",
    "collapse_exponent",
    "paper_slopes",
    "plateau",
    "plateau_versus_n",
]


def plateau(ds: xr.Dataset, observable: str, *, x: str = "NJ0", n_last: int = 1) -> xr.Dataset:
    """Large-coupling plateau of each curve.

    The inverse-variance weighted mean of the observable over the ``n_last``
    largest finite x values of each curve (default: just the largest N·J0),
    with its standard error 1/sqrt(Σ 1/σ²) (unweighted mean when no errors are
    known). Variables plateau, plateau_stderr, plateau_x_min (smallest x used).
    """
    if n_last < 1:
        raise ValueError("n_last must be >= 1")
    c = Curves(ds, observable, x)
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
    c = Curves(ds, observable, x)
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
    res = collect(keys, gshape)
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
        {f"decay_{k}" if k not in ("xi", "xi_stderr") else k: a for k, a in finish(res).items()},
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
    c = Curves(ds, observable, x)
    gd = c.group_dims()
    gshape = tuple(c.y.shape[c.dims.index(d)] for d in gd)
    keys = ("a_best", "a_stderr", "a_lo", "a_hi", "q_min", "dof", "terms", "reason")
    res = collect(keys, gshape)
    grid = np.linspace(0.0, 2.0, 81) if a_grid is None else np.asarray(a_grid, float)
    q = np.full((*gshape, grid.size), np.nan)
    for gi, curves in c.groups():
        r = collapse_fit(curves, a_grid=grid, max_value=max_value)
        for k in keys:
            res[k][gi] = r[k]
        q[gi] = r["q_grid"]
    out = c.make(gd, finish(res))
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
    "paper_slope": "the paper's small-coupling slope for this ensemble (NaN: none stated)",
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
    text = _ATTRS.get(base) or DESCRIPTIONS.get(base, base)
    return f"pooled over N: {text}" if name.startswith("pooled_") else text


def paper_slopes(ds: xr.Dataset, observable: str) -> xr.DataArray:
    """The paper's small-coupling slope of ``observable`` for every (couplings, spans, rule)
    of the dataset (NaN where the paper states none)."""
    dims = [d for d in ("couplings", "spans", "rule") if d in ds[observable].dims]
    shape = tuple(ds.sizes[d] for d in dims)
    values = np.full(shape, np.nan)
    for idx in np.ndindex(*shape):
        sel = {d: str(ds[d].values[i]) for d, i in zip(dims, idx, strict=True)}
        for d in ("couplings", "spans", "rule"):  # scalar coordinates of a reduced dataset
            if d not in sel and d in ds.coords and ds[d].ndim == 0:
                sel[d] = str(ds[d].values)
        values[idx] = catalogue.paper_slope(observable, **sel)
    return xr.DataArray(values, dims=dims, coords={d: ds[d].values for d in dims})


def analyse_study(
    ds: xr.Dataset,
    observables: Sequence[str] | None = None,
    *,
    x: str = "NJ0",
    max_value: float = MAX_VALUE,
    at: float = 100.0,
    n_last: int = 1,
    collapse_max_value: float | None = None,
    a_grid=None,
) -> xr.Dataset:
    """All analyses for every observable present, in one NetCDF-writable Dataset.

    For each observable (default: the catalogue's observables with a scaling analysis that
    ``ds`` holds), variables prefixed ``<observable>_``: the per-curve and pooled
    small-coupling exponents (power-law observables only) with the paper's slope per
    ensemble (``paper_slope``), the plateau, for probabilities 1 − P at N·J0 = ``at``
    versus N with its decay length xi, and the collapse exponent ``collapse_a`` with its
    Q(a) curve (``collapse_q`` on the ``collapse_a_grid`` dimension), computed on the
    points with P ≤ ``collapse_max_value`` (default: per observable, from the catalogue;
    ``math.inf`` for all points). The abscissa ``x`` is N·J0 whatever the grid (on a J0
    grid the coordinate NJ0 = N·J0), so the collapse exponent a is the one of N^a·J0.
    """
    if observables is None:
        observables = [o.name for o in catalogue.analysed() if o.name in ds]
    study = str(ds.attrs.get("study", ""))
    parts = []
    for obs in observables:
        entry = catalogue.CATALOGUE.get(obs)
        scaling = (
            entry.scaling
            if entry is not None and entry.scaling
            else catalogue.Scaling(collapse_max_value=None)
        )
        is_probability = f"{obs}_count" in ds
        cmax = scaling.collapse_max_value if collapse_max_value is None else collapse_max_value
        cmax = None if cmax is not None and math.isinf(cmax) else cmax
        pieces = []
        if scaling.power_law:
            pieces.append(small_coupling_exponents(ds, obs, x=x, max_value=max_value))
            pieces.append(xr.Dataset({"paper_slope": paper_slopes(ds, obs)}))
        pieces.append(plateau(ds, obs, x=x, n_last=n_last))
        if is_probability and "N" in ds[obs].dims:
            pieces.append(plateau_versus_n(ds, obs, at=at, complement=True, x=x))
        col = collapse_exponent(ds, obs, x=x, a_grid=a_grid, max_value=cmax)
        col = col.rename(
            {k: f"collapse_{k}" if k != "a_best" else "collapse_a" for k in col.data_vars}
        )
        col = col.rename({"a": "collapse_a_grid"})
        pieces.append(col)
        merged = xr.merge(pieces, combine_attrs="drop")
        renamed = {}
        for v in merged.data_vars:
            da = merged[v]
            da.attrs = {
                "long_name": f"{catalogue.symbol(obs)}: {str(v).replace('_', ' ')}",
                "description": _describe(str(v)),
                "observable": obs,
                "symbol": catalogue.symbol(obs),
            }
            if da.dtype.kind in "iuf":  # exponents, amplitudes, positions in N J0: all
                da.attrs["units"] = "1"  # dimensionless (the field's unit: field_unit)
            if str(v).startswith("collapse_"):
                da.attrs["max_value"] = float(cmax) if cmax is not None else math.inf
            renamed[f"{obs}_{v}"] = da
        parts.append(xr.Dataset(renamed))
    out = xr.merge(parts) if parts else xr.Dataset()
    out.attrs.update(
        {
            "study": study,
            "x": x,
            "sweep": str(ds.attrs.get("sweep", x)),
            "max_value": float(max_value),
            "at": float(at),
            "n_last": int(n_last),
            "collapse_max_value": "per observable (hyst.catalogue)"
            if collapse_max_value is None
            else float(collapse_max_value),
            "observables": ",".join(observables),
            "description": "hyst.analysis: small-coupling power laws against N J0 (per N, "
            "pooled where consistent, local slopes), plateaus, 1-P vs N decay, collapse "
            "exponent a in N^a J0 (paper: a = 1)",
        }
    )
    return out
