"""A study dataset's observable as an array of curves (one per couplings × spans × rule × N)
against the swept abscissa, for the analyses of :mod:`hyst.analysis`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import xarray as xr

from hyst.analysis.power_laws import BINOMIAL, POISSON, counts_of_mean

#: Dimensions that label one curve (besides the abscissa).
CURVE_DIMS = ("couplings", "spans", "rule", "N")


def x_dim(da: xr.DataArray, ds: xr.Dataset, x: str) -> str:
    """The dimension of ``da`` that ``x`` runs along: ``x`` itself when it is a dimension, else
    the one non-curve dimension of the coordinate ``x`` (e.g. N J0 along a coupling sweep)."""
    if x in da.dims:
        return x
    if x not in ds.variables:
        raise KeyError(f"{x!r} is neither a dimension nor a coordinate of the dataset")
    cands = [d for d in ds[x].dims if d in da.dims and d not in CURVE_DIMS]
    if len(cands) != 1:
        raise ValueError(f"cannot tell the abscissa dimension of {x!r} (dims {ds[x].dims})")
    return cands[0]


def errors(ds: xr.Dataset, observable: str) -> xr.DataArray:
    """Standard errors, a probability's floored at one count, 1/trials (a probability
    estimated as 0 or 1 has a binomial standard error of 0)."""
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


class Curves:
    """An observable arranged as (*curve dims, x) numpy arrays: abscissa ``x``, estimate
    ``y``, error ``e``, and its counts for the likelihood fits: events ``k`` and trials
    (binomial) or exposure (Poisson) ``n``, of the ``family`` of
    :mod:`hyst.analysis.power_laws`."""

    def __init__(self, ds: xr.Dataset, observable: str, x: str):
        if observable not in ds:
            raise KeyError(f"observable {observable!r} not in dataset")
        da = ds[observable].astype(float)
        self.xdim = x_dim(da, ds, x)
        self.dims = tuple(d for d in da.dims if d != self.xdim)
        order = (*self.dims, self.xdim)
        self.y = da.transpose(*order).values
        self.e = errors(ds, observable).broadcast_like(da).transpose(*order).values
        xv = ds[x].astype(float).broadcast_like(da)
        self.x = xv.transpose(*order).values
        self.coords = {
            d: ds[d].values if d in ds.coords else np.arange(ds.sizes[d]) for d in self.dims
        }
        self.shape = self.y.shape[:-1]
        self.ds = ds
        count, trials = f"{observable}_count", f"{observable}_trials"
        if count in ds and trials in ds:
            self.family = BINOMIAL
            self.k = ds[count].astype(float).broadcast_like(da).transpose(*order).values
            self.n = ds[trials].astype(float).broadcast_like(da).transpose(*order).values
        else:
            self.family = POISSON
            self.k, self.n = counts_of_mean(self.y, self.e)

    def group_dims(self) -> tuple[str, ...]:
        """The curve dimensions that label a group of curves (all but N: a group holds one
        curve per N)."""
        return tuple(d for d in self.dims if d != "N")

    def n_values(self) -> np.ndarray:
        """The system sizes N of the curves, as floats (the coordinate N)."""
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
        """A dataset of ``data`` (arrays over ``dims``, a subset of the curve dimensions) with
        those dimensions' coordinates and the given ``attrs``."""
        coords = {d: self.coords[d] for d in dims}
        out = xr.Dataset({k: (tuple(dims), v) for k, v in data.items()}, coords=coords)
        out.attrs.update(attrs or {})
        return out


def collect(keys: Iterable[str], shape) -> dict:
    """Empty object arrays of the given shape, one per key, for per-curve results that
    :func:`finish` turns into typed arrays."""
    return {k: np.empty(shape, dtype=object) for k in keys}


def finish(arrays: dict) -> dict:
    """The arrays of :func:`collect` as typed arrays: str, int32 or float, by each array's
    first element."""
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
