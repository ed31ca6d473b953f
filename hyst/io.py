"""NetCDF I/O: point datasets with provenance, written atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from hyst import __version__
from hyst.ensembles import SAMPLING_VERSION
from hyst.model import QUANTUM_BITS
from hyst.observables import Point, Tally, chunk_size

#: Version of the dataset layout; part of the provenance, bumped when the layout changes.
FORMAT_VERSION = 3

#: Probability observables: name -> (count key, trials key or "samples").
PROBABILITIES = {
    "gap_probability_at_zero": ("gap_probability_at_zero", "samples", "zero_field"),
    "self_loop_probability_at_zero": ("self_loop_probability_at_zero", "samples", "zero_field"),
    "self_loop_probability_at_zero_random_start": (
        "self_loop_probability_at_zero_random_start",
        "samples",
        "zero_field",
    ),
    "self_loop_probability": ("self_loop_probability", "samples", "transitions"),
    "ill_defined_probability": ("ill_defined_probability", "samples", "transitions"),
    "self_loop_probability_well_defined": (
        "self_loop_well_defined",
        "well_defined_systems",
        "transitions",
    ),
    "race_in_transitions_probability": (
        "race_in_transitions_probability",
        "samples",
        "transitions",
    ),
    "race_condition_probability": (
        "race_condition_probability",
        "race_condition_trials",
        "avalanche",
    ),
    "avalanche_self_loop_probability": (
        "avalanche_self_loop_probability",
        "avalanche_trials",
        "avalanche",
    ),
    "drive_self_loop_probability": ("drive_self_loop_probability", "drive_trials", "cyclic"),
    "saturated_loop_probability": ("saturated_loop_probability", "samples", "saturated_loop"),
}
#: Mean observables (sums of per-sample values).
MEANS = {
    "potentially_stable_fraction": "zero_field",
    "potentially_stable_over_spins": "zero_field",
    "gap_fraction": "zero_field",
    "avalanche_size": "avalanche",
    "transient": "cyclic",
    "period": "cyclic",
    "drive_amplitude": "cyclic",
}
#: Histograms: name -> dimension.
HISTOGRAMS = {
    "self_loop_length_hist": "L",
    "self_loop_elements_hist": "n_e",
    "random_start_loop_length_hist": "L_random_start",
    "avalanche_size_hist": "A",
    "transient_hist": "tau",
    "period_hist": "T",
    "saturated_loop_length_hist": "L_saturated",
}
UNITS = {
    "potentially_stable_fraction": "fraction of the 2^N states",
    "gap_fraction": "fraction of [H+(-...-), H-(+...+)]",
    "avalanche_size": "flips",
    "transient": "drive cycles",
    "period": "drive cycles",
    "drive_amplitude": "field units",
}


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


def provenance(point: Point, samples: int, seed: int, groups) -> dict:
    """Attributes that identify how a point dataset was made."""
    return {
        "hyst_version": __version__,
        "format_version": FORMAT_VERSION,
        "sampling_version": SAMPLING_VERSION,
        **{k: v for k, v in point.canonical().items() if k != "NJ0"},
        "NJ0": point.NJ0,
        "J0": point.J0,
        "samples": int(samples),
        "seed": int(seed),
        "observables": ",".join(groups),
        "chunk_size": chunk_size(point.N),
        "quantum_bits": QUANTUM_BITS,
        "point_key": point.key(),
    }


def tally_to_dataset(point: Point, samples: int, seed: int, groups, tally: Tally) -> xr.Dataset:
    """Statistics of a point as an xarray Dataset (scalars, histograms, L = 4 records)."""
    data = {}
    c = tally.counts
    for name, (count_key, trials_key, group) in PROBABILITIES.items():
        if group not in groups:
            continue
        count = c.get(count_key, 0)
        trials = c.get(trials_key, 0)
        p, err = binomial(count, trials)
        data[name] = xr.DataArray(p, attrs={"long_name": name, "units": "probability"})
        data[f"{name}_count"] = xr.DataArray(np.int64(count))
        data[f"{name}_trials"] = xr.DataArray(np.int64(trials))
        data[f"{name}_stderr"] = xr.DataArray(err)
    for name, group in MEANS.items():
        if group not in groups:
            continue
        n, s, s2 = tally.sums.get(name, (0, 0.0, 0.0))
        m, err = mean_stderr(n, s, s2)
        data[name] = xr.DataArray(m, attrs={"long_name": name, "units": UNITS.get(name, "")})
        data[f"{name}_trials"] = xr.DataArray(np.int64(n))
        data[f"{name}_stderr"] = xr.DataArray(err)
        data[f"{name}_sum"] = xr.DataArray(s)
        data[f"{name}_sumsq"] = xr.DataArray(s2)
    for name, dim in HISTOGRAMS.items():
        if name in tally.hists:
            h = tally.hists[name]
            data[name] = xr.DataArray(h, dims=(dim,), coords={dim: np.arange(h.size)})
    for key in (
        "samples",
        "ties",
        "samples_with_ties",
        "potentially_stable_ties",
        "zero_field_ties",
        "random_start_ill_defined",
        "transitions",
        "self_loop_transitions",
        "ill_defined_transitions",
        "distinct_self_loops",
        "l4_loops",
        "l4_loops_recorded",
        "prepared_starts",
        "avalanche_ill_defined",
        "drive_ill_defined",
        "drive_not_converged",
        "saturated_loop_ill_defined",
        "saturated_loop_events",
    ):
        if key in c:
            data[key] = xr.DataArray(np.int64(c[key]))
    if "l4" in tally.records:
        for k, v in tally.records["l4"].items():
            data[f"l4_{k}"] = xr.DataArray(np.asarray(v), dims=("l4_loop",))
    ds = xr.Dataset(data)
    ds.attrs.update(provenance(point, samples, seed, groups))
    return ds


def write_dataset(ds: xr.Dataset, path) -> Path:
    """Write ``ds`` to NetCDF atomically: a temporary file in the same folder, then rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        ds.to_netcdf(tmp, engine="netcdf4")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def read_dataset(path) -> xr.Dataset:
    """Open a NetCDF dataset fully into memory (the file is closed afterwards)."""
    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


def provenance_matches(ds: xr.Dataset, expected: dict) -> bool:
    """True iff every expected provenance attribute is present with the same value."""
    for k, v in expected.items():
        if k not in ds.attrs:
            return False
        a = ds.attrs[k]
        if isinstance(v, float) or isinstance(a, float):
            if float(a) != float(v):
                return False
        elif str(a) != str(v):
            return False
    return True
