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


def x_dim(da: xr.DataArray | xr.Variable, ds: xr.Dataset, x: str) -> str:
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


def _error_values(ds: xr.Dataset, observable: str, y: np.ndarray, values) -> np.ndarray:
    """Standard errors of the estimates ``y`` of :class:`Curves` (``values(name)``: a
    variable of the dataset over the curves' dimensions), a probability's floored at one
    count, 1/trials (a probability estimated as 0 or 1 has a binomial standard error of
    0); NaN where the estimate is not finite."""
    stderr, count, trials = (f"{observable}_{k}" for k in ("stderr", "count", "trials"))
    e = values(stderr) if stderr in ds else np.full(y.shape, np.nan)
    if count in ds and trials in ds:
        n = values(trials)
        with np.errstate(divide="ignore", invalid="ignore"):
            floor = 1.0 / np.where(n > 0, n, np.nan)
        e = np.where(np.isfinite(e), np.maximum(e, floor), floor)
    return np.where(np.isfinite(y), e, np.nan)


class Curves:
    """An observable arranged as (*curve dims, x) numpy arrays: abscissa ``x``, estimate
    ``y``, error ``e``, and its counts for the likelihood fits: events ``k`` and trials
    (binomial) or exposure (Poisson) ``n``, of the ``family`` of
    :mod:`hyst.analysis.power_laws`."""

    def __init__(self, ds: xr.Dataset, observable: str, x: str):
        if observable not in ds:
            raise KeyError(f"observable {observable!r} not in dataset")
        # the dataset's variables, not DataArrays: one dataset's variables share its
        # dimensions' coordinates, so broadcasting needs no alignment (xarray's alignment of
        # DataArrays was most of the cost: 215 curves of a quick run's analyses)
        variables = ds.variables
        y = variables[observable]
        self.xdim = x_dim(y, ds, x)
        self.dims = tuple(d for d in y.dims if d != self.xdim)
        order = (*self.dims, self.xdim)
        sizes = {d: ds.sizes[d] for d in order}

        def values(name: str) -> np.ndarray:
            """The variable as floats over the dimensions ``order``."""
            return variables[name].astype(float).set_dims(sizes).transpose(*order).values

        self.y = values(observable)
        self.e = _error_values(ds, observable, self.y, values)
        self.x = values(x)
        self.coords = {
            d: ds[d].values if d in ds.coords else np.arange(ds.sizes[d]) for d in self.dims
        }
        self.shape = self.y.shape[:-1]
        self.ds = ds
        count, trials = f"{observable}_count", f"{observable}_trials"
        if count in ds and trials in ds:
            self.family = BINOMIAL
            self.k = values(count)
            self.n = values(trials)
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
