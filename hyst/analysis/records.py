"""Records of a collected points dataset (the seeded bottom-k samples of a catalogue records
observable, e.g. the L = 4 self-loops): their labels along the sweep axes and the rescaled
couplings of L = 4 records (Supplemental, "Large systems")."""

from __future__ import annotations

import numpy as np
import xarray as xr


def record_labels(ds: xr.Dataset, records: str, axis: str) -> np.ndarray:
    """The ``axis`` label (e.g. spans, N, NJ0) of every record ``records`` of a collected
    points dataset, from its index variable ``<records>_<axis>_index``."""
    index = f"{records}_{axis}_index"
    if index not in ds:
        return np.asarray(ds[axis].values[:0])
    return np.asarray(ds[axis].values)[np.asarray(ds[index].values, np.int64)]


def l4_labels(ds: xr.Dataset, axis: str) -> np.ndarray:
    """The ``axis`` label (e.g. the span ensemble) of every L = 4 record of a study dataset,
    as strings (records store the index along the axis)."""
    if axis not in ds.coords:
        return np.array([], str)
    return record_labels(ds, "l4", axis).astype(str)


def l4_rescaled(ds: xr.Dataset, mask=None) -> tuple[np.ndarray, np.ndarray]:
    """Rescaled couplings (c_kl/Δh̃, c_lk/Δh̃) of L = 4 records, oriented so Δh̃ = h̃_l − h̃_k > 0."""
    ckl = np.asarray(ds["l4_c_kl"].values, float)
    clk = np.asarray(ds["l4_c_lk"].values, float)
    dh = np.asarray(ds["l4_h_tilde_l"].values, float) - np.asarray(ds["l4_h_tilde_k"].values, float)
    if mask is not None:
        ckl, clk, dh = ckl[mask], clk[mask], dh[mask]
    swap = dh < 0
    x = np.where(swap, clk, ckl)
    y = np.where(swap, ckl, clk)
    with np.errstate(divide="ignore", invalid="ignore"):
        ad = np.abs(dh)
        x = np.where(ad > 0, x / ad, np.nan)
        y = np.where(ad > 0, y / ad, np.nan)
    return x, y
