"""Mergeable sufficient statistics of a sampled point, and their xarray Dataset.

A :class:`Tally` holds integer counts, (n, Σx, Σx²) sums, histograms and
record tables; tallies of chunks merge exactly in chunk order. Which tally
entries exist, and which dataset variables they become, is derived from the
observable catalogue (:mod:`hyst.catalogue`):

- probability NAME: NAME (estimate), NAME_count, NAME_trials, NAME_stderr
  (binomial standard error);
- mean NAME: NAME, NAME_trials, NAME_stderr (standard error of the mean),
  NAME_sum, NAME_sumsq;
- histogram NAME: NAME along its dimension (counts per bin);
- records NAME: NAME_<field> along the records' dimension;
- count NAME: an int64 scalar.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from hyst.catalogue import COUNT, HISTOGRAM, MEAN, OBSERVABLES, PROBABILITY, RECORDS


@dataclass
class Tally:
    """Mergeable sufficient statistics of a point (counts, sums, histograms, records)."""

    counts: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    hists: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)

    def add_count(self, name, value):
        self.counts[name] = self.counts.get(name, 0) + int(value)

    def add_sum(self, name, values):
        values = np.asarray(values, dtype=np.float64)
        n, s, s2 = self.sums.get(name, (0, 0.0, 0.0))
        self.sums[name] = (n + values.size, s + float(values.sum()), s2 + float((values**2).sum()))

    def add_hist(self, name, counts):
        counts = np.asarray(counts, dtype=np.int64)
        old = self.hists.get(name)
        if old is None:
            self.hists[name] = counts.copy()
            return
        n = max(old.size, counts.size)
        new = np.zeros(n, np.int64)
        new[: old.size] += old
        new[: counts.size] += counts
        self.hists[name] = new

    def add_records(self, name, table: dict):
        """Append a table of equal-length columns. Tables with other columns (e.g. L = 4
        records of the enumeration and of the saturated loop in one point) are joined on
        the union of their columns; a missing column is filled with −1 (integers) or NaN."""
        table = {k: np.asarray(v) for k, v in table.items()}
        old = self.records.get(name)
        if old is None:
            self.records[name] = table
            return
        merged = {}
        for k in dict.fromkeys([*old, *table]):
            parts = [_column(t, k, like) for t, like in ((old, table), (table, old))]
            merged[k] = np.concatenate(parts)
        self.records[name] = merged

    def merge(self, other: Tally):
        for k, v in other.counts.items():
            self.add_count(k, v)
        for k, (n, s, s2) in other.sums.items():
            n0, s0, s20 = self.sums.get(k, (0, 0.0, 0.0))
            self.sums[k] = (n0 + n, s0 + s, s20 + s2)
        for k, v in other.hists.items():
            self.add_hist(k, v)
        for k, v in other.records.items():
            self.add_records(k, v)

    def add_measured(self, decoded: dict, served) -> None:
        """Tally every catalogue observable produced by one decoded kernel call that
        served the groups ``served`` (see :mod:`hyst.catalogue`)."""
        served = set(served)
        for o in OBSERVABLES:
            if not served & set(o.groups):
                continue
            value = o.measure(decoded)
            if value is None:
                continue
            if o.kind == PROBABILITY:
                events = np.asarray(value, bool)
                mask = np.ones(events.shape[0], bool) if o.trials is None else o.trials(decoded)
                self.add_count(o.name, (events & mask).sum())
                self.add_count(f"{o.name}_trials", np.asarray(mask, bool).sum())
            elif o.kind == MEAN:
                self.add_sum(o.name, value)
            elif o.kind == HISTOGRAM:
                self.add_hist(o.name, value)
            elif o.kind == RECORDS:
                self.add_records(o.name, value)
            else:
                self.add_count(o.name, value)


def _column(table: dict, key: str, other: dict) -> np.ndarray:
    """Column ``key`` of ``table``, or a fill column of its length (−1 or NaN)."""
    if key in table:
        return table[key]
    n = len(next(iter(table.values()))) if table else 0
    like = other[key]
    return np.full(n, np.nan if like.dtype.kind == "f" else -1, like.dtype)


def binomial(count: int, trials: int) -> tuple[float, float]:
    """Estimate and binomial standard error sqrt(p(1-p)/n) (NaN without trials)."""
    if trials <= 0:
        return float("nan"), float("nan")
    p = count / trials
    return p, float(np.sqrt(p * (1.0 - p) / trials))


def mean_stderr(n: int, s: float, s2: float) -> tuple[float, float]:
    """Mean and standard error of the mean from count, sum and sum of squares."""
    if n <= 0:
        return float("nan"), float("nan")
    mean = s / n
    if n < 2:
        return mean, float("nan")
    var = max(s2 - n * mean * mean, 0.0) / (n - 1)
    return mean, float(np.sqrt(var / n))


def _attrs(o) -> dict:
    return {"long_name": o.description, "symbol": o.symbol or o.name, "units": o.units}


def tally_to_dataset(tally: Tally, groups, attrs: dict | None = None) -> xr.Dataset:
    """Statistics of a point as an xarray Dataset (scalars, histograms, records).

    Probabilities and means appear for every requested group (NaN without trials);
    histograms, records and counts where the tally has them.
    """
    groups = set(groups)
    data = {}
    c = tally.counts
    for o in OBSERVABLES:
        requested = bool(groups & set(o.groups))
        if o.kind == PROBABILITY and requested:
            count, trials = c.get(o.name, 0), c.get(f"{o.name}_trials", 0)
            p, err = binomial(count, trials)
            data[o.name] = xr.DataArray(p, attrs=_attrs(o))
            data[f"{o.name}_count"] = xr.DataArray(np.int64(count))
            data[f"{o.name}_trials"] = xr.DataArray(np.int64(trials))
            data[f"{o.name}_stderr"] = xr.DataArray(err)
        elif o.kind == MEAN and requested:
            n, s, s2 = tally.sums.get(o.name, (0, 0.0, 0.0))
            m, err = mean_stderr(n, s, s2)
            data[o.name] = xr.DataArray(m, attrs=_attrs(o))
            data[f"{o.name}_trials"] = xr.DataArray(np.int64(n))
            data[f"{o.name}_stderr"] = xr.DataArray(err)
            data[f"{o.name}_sum"] = xr.DataArray(s)
            data[f"{o.name}_sumsq"] = xr.DataArray(s2)
        elif o.kind == HISTOGRAM and o.name in tally.hists:
            h = tally.hists[o.name]
            data[o.name] = xr.DataArray(
                h, dims=(o.dim,), coords={o.dim: np.arange(h.size)}, attrs=_attrs(o)
            )
        elif o.kind == COUNT and o.name in c:
            data[o.name] = xr.DataArray(np.int64(c[o.name]), attrs={"long_name": o.description})
        elif o.kind == RECORDS and o.name in tally.records:
            for k, v in tally.records[o.name].items():
                data[f"{o.name}_{k}"] = xr.DataArray(np.asarray(v), dims=(o.dim,))
    ds = xr.Dataset(data)
    ds.attrs.update(attrs or {})
    return ds
