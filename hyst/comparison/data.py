"""Reading the study datasets for the paper-comparison page: points, curves, histograms,
the ensembles a dataset holds, and the formatting of values with errors and verdicts."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import xarray as xr

from hyst.catalogue.labels import COUPLING_TITLES, RULE_TITLES

ENSEMBLE_DIMS = ("couplings", "spans", "rule")
SPAN_WORDS = {"spin": "spins", "hysteron": "hysterons", "equal": "equal spans"}


def ensembles(ds: xr.Dataset) -> Iterator[dict]:
    """Every (couplings, spans, rule) of a points dataset, as a selection dict."""
    dims = [d for d in ENSEMBLE_DIMS if d in ds.dims]
    values = [[str(v) for v in ds[d].values] for d in dims]
    for combo in np.ndindex(*(len(v) for v in values)):
        yield {d: values[i][j] for i, (d, j) in enumerate(zip(dims, combo, strict=True))}


def ensemble_text(sel: dict) -> str:
    """'random couplings, hysterons, rule 1' for a selection."""
    parts = []
    if "couplings" in sel:
        parts.append(f"{COUPLING_TITLES.get(sel['couplings'], sel['couplings'])} couplings")
    if "spans" in sel:
        parts.append(SPAN_WORDS.get(sel["spans"], sel["spans"]))
    if "rule" in sel:
        parts.append(RULE_TITLES.get(sel["rule"], f"rule {sel['rule']}").replace("$", ""))
    return ", ".join(parts).replace("1'", "1′")


def nj0(ds: xr.Dataset) -> xr.DataArray:
    """N·J0 of every (N, swept value) of a dataset (a coordinate on J0 sweeps)."""
    if "NJ0" in ds.dims:
        return ds["NJ0"].broadcast_like(ds["N"]).transpose("N", "NJ0")
    return ds["NJ0"].transpose("N", "J0")


def sweep_dim(ds: xr.Dataset) -> str:
    """The swept dimension of a study dataset: ``NJ0`` (coupling strength N J0 swept) or ``J0``."""
    return "NJ0" if "NJ0" in ds.dims else "J0"


def point(ds: xr.Dataset, name: str, sel: dict, N: int, NJ0: float) -> dict | None:
    """{value, stderr, count, trials} of observable ``name`` at (ensemble, N, NJ0), or None
    when the dataset does not hold that point."""
    if name not in ds or N not in ds["N"].values:
        return None
    try:
        sub = ds.sel({d: v for d, v in sel.items() if d in ds.dims})
    except KeyError:
        return None
    x = nj0(sub).sel(N=N).values
    hit = np.flatnonzero(np.isclose(x, NJ0, rtol=1e-6))
    if hit.size == 0:
        return None
    at = {"N": N, sweep_dim(ds): sub[sweep_dim(ds)].values[hit[0]]}
    out = {"value": float(sub[name].sel(at).values)}
    for key in ("stderr", "count", "trials"):
        var = f"{name}_{key}"
        out[key] = float(sub[var].sel(at).values) if var in sub else math.nan
    return out


def curve(ds: xr.Dataset, name: str, sel: dict, N) -> tuple[np.ndarray, ...]:
    """(J0 or NJ0 values, N·J0, mean, stderr) of one observable of one N, sorted."""
    sub = ds.sel({d: v for d, v in sel.items() if d in ds.dims}).sel(N=N)
    dim = sweep_dim(ds)
    x = np.asarray(sub[dim].values, float)
    xn = np.asarray(nj0(ds.sel({d: v for d, v in sel.items() if d in ds.dims})).sel(N=N), float)
    y = np.asarray(sub[name].values, float)
    e = np.asarray(sub[f"{name}_stderr"].values, float) if f"{name}_stderr" in sub else y * np.nan
    order = np.argsort(x)
    return x[order], xn[order], y[order], e[order]


def histogram(ds: xr.Dataset, name: str, sel: dict, **at) -> np.ndarray:
    """Counts of a histogram observable summed over every point of the ensemble (and of
    ``at``: e.g. N = 10)."""
    da = ds[name].sel({d: v for d, v in sel.items() if d in ds[name].dims})
    if at:
        da = da.sel(at)
    hdim = da.dims[-1]
    return np.asarray(da.sum([d for d in da.dims if d != hdim]).values, np.int64)


def histogram_points(ds: xr.Dataset, name: str, sel: dict) -> Iterator[tuple[dict, np.ndarray]]:
    """(labels, counts) of a histogram observable at every point of an ensemble."""
    da = ds[name].sel({d: v for d, v in sel.items() if d in ds[name].dims})
    hdim = da.dims[-1]
    other = [d for d in da.dims if d != hdim]
    for idx in np.ndindex(*(da.sizes[d] for d in other)):
        labels = {d: da[d].values[i].item() for d, i in zip(other, idx, strict=True)}
        yield labels, np.asarray(da.isel(dict(zip(other, idx, strict=True))).values, np.int64)


#: The presets of the repository, smallest first (``config/`` beside the package, where it
#: is installed from its repository).
PRESETS = ("quick.yaml", "medium.yaml", "config.yaml")


@functools.cache
def preset_studies() -> dict[str, dict]:
    """The studies of each preset of the repository (read once), {} where there is none."""
    import yaml

    folder = Path(__file__).resolve().parents[2] / "config"
    found = {}
    for name in PRESETS:
        try:
            found[f"config/{name}"] = yaml.safe_load((folder / name).read_text())["studies"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def preset_sizes(study: str) -> dict[str, list[int]]:
    """{preset file: the N it samples} of every preset of the repository with this study."""
    found = {}
    for name, studies in preset_studies().items():
        sizes = (studies.get(study) or {}).get("N")
        if isinstance(sizes, list) and all(isinstance(n, int) for n in sizes):
            found[name] = sizes
    return found


def larger_runs(study: str, dataset) -> str:
    """What an undetermined row says of the presets that run the same study at larger N or
    with more systems per point than this run (`` at N ≤ 64, 400 systems a point:
    config/config.yaml runs N ≤ 512, 5,000 a point``), or nothing where none does."""
    import json

    try:
        run = json.loads(dataset.attrs["study_config"])
        samples, largest = int(run["samples"]), max(int(n) for n in run["N"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return ""
    more = []
    for name, studies in preset_studies().items():
        other = studies.get(study) or {}
        try:
            n, s = max(int(v) for v in other["N"]), int(other["samples"])
        except (KeyError, TypeError, ValueError):
            continue
        if n > largest or s > samples:
            more.append(f"{name} runs N ≤ {n}, {s:,} a point")
    if not more:
        return ""
    return f" at N ≤ {largest}, {samples:,} systems a point: {'; '.join(more)}"


# ---- formatting ---------------------------------------------------------------------------


def percent(value: float, err: float | None = None, digits: int = 2) -> str:
    """'98.69 ± 0.04 %' (or '98.69 %')."""
    if not np.isfinite(value):
        return "—"
    if err is None or not np.isfinite(err):
        return f"{100 * value:.{digits}f} %"
    return f"{100 * value:.{digits}f} ± {100 * err:.{digits}f} %"


def pm(value: float, err: float, digits: int = 2) -> str:
    """'2.95 ± 0.12' ('—' when not a number)."""
    if not np.isfinite(value):
        return "—"
    if not np.isfinite(err):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} ± {err:.{digits}f}"


def quoted_digits(value: float) -> int:
    """Decimal places of a value as the paper quotes it (0.998 -> 3, 0.14 -> 2)."""
    text = f"{value:.10g}"
    return len(text.split(".")[1]) if "." in text else 0


def value_verdict(paper: float, value: float, err: float) -> tuple[str, float]:
    """('agrees' or 'disagrees', distance in standard errors) of a measured value against
    a quoted one: agreement within two standard errors plus the quote's rounding."""
    if not (np.isfinite(value) and np.isfinite(err)):
        return "not measured", math.nan
    rounding = 0.5 * 10.0 ** -quoted_digits(paper)
    gap = max(abs(value - paper) - rounding, 0.0)
    sigmas = gap / err if err > 0 else (math.inf if gap > 0 else 0.0)
    return ("agrees" if sigmas <= 2 else "disagrees"), sigmas


#: A fitted slope whose standard error exceeds this cannot tell the paper's slope from
#: its neighbours (the paper's slopes are integers and halves): its verdict is "undetermined".
SLOPE_UNDETERMINED_ERROR = 0.5


def slope_verdict(paper: float, value: float, err: float) -> tuple[str, float]:
    """('agrees', 'disagrees', 'undetermined' or 'not determined', distance in standard
    errors) of a fitted exponent against the paper's slope: agreement within two standard
    errors; undetermined when the standard error exceeds ``SLOPE_UNDETERMINED_ERROR``."""
    if not np.isfinite(paper):
        return "no slope stated", math.nan
    if not (np.isfinite(value) and np.isfinite(err) and err > 0):
        return "not determined", math.nan
    sigmas = abs(value - paper) / err
    if err > SLOPE_UNDETERMINED_ERROR:
        return "undetermined", sigmas
    return ("agrees" if sigmas <= 2 else "disagrees"), sigmas
