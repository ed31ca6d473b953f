"""The sweep: studies -> points -> sampling batches -> study datasets.

A validated configuration (:mod:`hyst.config`) names studies; each study is
the product of its axes. Every distinct (point, samples, observables, seed) is
a *point spec* with its own file ``results/points/.../*.nc``, named by the
spec's content. Specs of one (couplings, spans, rule) and size class (N up to
18, enumerated, or larger), ordered by N and NJ0, are grouped into *batches*
of at most ``batch.max_points``; one Snakemake job runs a batch and
writes a manifest ``results/batches/<batch>.json``. A batch recomputes only
the point files that are missing or whose provenance does not match, so
adding NJ0 values or changing one study's samples recomputes only what
changed. ``collect`` merges a study's point files into
``results/datasets/<study>.nc`` with dimensions named after the axes.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr

from hyst import __version__
from hyst.config import grid
from hyst.io import FORMAT_VERSION, provenance, provenance_matches, read_dataset
from hyst.observables import ENUMERATION_MAX_N, Point, check_self_loop_free, resolve_groups

AXES = ("couplings", "spans", "rule", "N")


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class PointSpec:
    """A point with everything that determines its result."""

    point: Point
    samples: int
    groups: tuple
    seed: int

    def identity(self) -> dict:
        return {
            **self.point.canonical(),
            "samples": self.samples,
            "observables": list(self.groups),
            "seed": self.seed,
            "format_version": FORMAT_VERSION,
        }

    def key(self) -> str:
        return _hash(self.identity())

    def path(self, results) -> Path:
        p = self.point
        return (
            Path(results)
            / "points"
            / f"{p.couplings}-{p.spans}-rule{p.rule}"
            / f"N{p.N}"
            / f"NJ0-{p.NJ0:.6g}-{self.key()}.nc"
        )

    def provenance(self) -> dict:
        return provenance(self.point, self.samples, self.seed, self.groups)


@dataclass(frozen=True)
class Batch:
    """Point specs of one (couplings, spans, rule) sampled by one job."""

    name: str
    specs: tuple

    def to_json(self) -> dict:
        return {"batch": self.name, "points": [s.identity() for s in self.specs]}

    @classmethod
    def from_json(cls, data: dict) -> Batch:
        specs = []
        for d in data["points"]:
            point = Point(d["couplings"], d["spans"], d["rule"], int(d["N"]), float(d["NJ0"]))
            specs.append(
                PointSpec(point, int(d["samples"]), tuple(d["observables"]), int(d["seed"]))
            )
        return cls(data["batch"], tuple(specs))


def study_specs(name: str, study: dict, config: dict) -> list[tuple[dict, PointSpec]]:
    """[(axis labels, spec)] of a study: the product of its axes."""
    out = []
    axis = "NJ0" if "NJ0" in study else "J0"
    values = grid(study[axis])
    groups_cfg = None if study["observables"] == "all" else study["observables"]
    for couplings in study["couplings"]:
        for spans in study["spans"]:
            for rule in study["rule"]:
                for N in study["N"]:
                    for v in values:
                        NJ0 = v if axis == "NJ0" else float(f"{v * N:.12g}")
                        point = Point(couplings, spans, rule, N, NJ0)
                        groups = resolve_groups(point, groups_cfg)
                        labels = {
                            "couplings": couplings,
                            "spans": spans,
                            "rule": rule,
                            "N": N,
                            axis: v,
                        }
                        spec = PointSpec(point, study["samples"], groups, config["seed"])
                        out.append((labels, spec))
    return out


def plan(config: dict) -> tuple[dict, dict]:
    """(batches by name, study name -> [(labels, spec)]) for a validated config."""
    studies = {name: study_specs(name, s, config) for name, s in config["studies"].items()}
    unique = {}
    for specs in studies.values():
        for _labels, spec in specs:
            unique[spec.key()] = spec
    groups: dict[tuple, list] = {}
    for spec in unique.values():
        p = spec.point
        # small (enumerated) and large systems cost very differently: separate jobs
        key = (p.couplings, p.spans, p.rule, p.N > ENUMERATION_MAX_N)
        groups.setdefault(key, []).append(spec)
    batches = {}
    size = config["batch"]["max_points"]
    for (couplings, spans, rule, _large), specs in sorted(groups.items()):
        specs.sort(key=lambda s: (s.point.N, s.point.NJ0, s.samples, s.groups, s.key()))
        for i in range(0, len(specs), size):
            members = tuple(specs[i : i + size])
            Ns = sorted({s.point.N for s in members})
            label = f"N{Ns[0]}" if len(Ns) == 1 else f"N{Ns[0]}-{Ns[-1]}"
            name = f"{couplings}-{spans}-rule{rule}-{label}-{_hash([s.key() for s in members])}"
            batches[name] = Batch(name, members)
    return batches, studies


def study_batches(batches: dict, specs: list) -> list[str]:
    """Names of the batches holding a study's specs."""
    keys = {spec.key() for _labels, spec in specs}
    return sorted(n for n, b in batches.items() if any(s.key() in keys for s in b.specs))


def atomic_write_text(path, text: str):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)


def run_batch(
    batch: Batch, results, manifest, dask: dict, threads: int, mem_mb: int, log=print
) -> dict:
    """Ensure every point file of a batch exists with matching provenance; write the manifest."""
    from hyst.distributed import client, sample_points
    from hyst.io import tally_to_dataset, write_dataset

    t0 = time.perf_counter()
    todo, reused = [], 0
    for spec in batch.specs:
        path = spec.path(results)
        if path.exists():
            try:
                ok = provenance_matches(read_dataset(path), spec.provenance())
            except (OSError, ValueError):
                ok = False
            if ok:
                reused += 1
                continue
            log(f"{path}: provenance does not match, recomputing")
        todo.append(spec)
    where = f"host {socket.gethostname()}"
    if os.environ.get("SLURM_JOB_ID"):
        where += f", SLURM_JOB_ID={os.environ['SLURM_JOB_ID']}"
    log(
        f"batch {batch.name} on {where}: {len(batch.specs)} points, {reused} reused, "
        f"{len(todo)} to sample"
    )
    if todo:
        samples = sum(s.samples for s in todo)
        with client(dask.get("scheduler_file"), dask.get("address"), threads, mem_mb) as c:
            t1 = time.perf_counter()
            tallies = sample_points(
                c, [(s.point, s.samples, s.seed, s.groups) for s in todo], log=log
            )
            dt = time.perf_counter() - t1
        for spec, tally in zip(todo, tallies, strict=True):
            check_self_loop_free(spec.point, tally)
            ds = tally_to_dataset(spec.point, spec.samples, spec.seed, spec.groups, tally)
            write_dataset(ds, spec.path(results))
        log(
            f"batch {batch.name}: sampled {samples} systems in {dt:.1f} s "
            f"({samples / max(dt, 1e-9):,.0f} samples/s); total {time.perf_counter() - t0:.1f} s"
        )
    info = {
        **batch.to_json(),
        "files": [str(s.path(results)) for s in batch.specs],
        "hyst_version": __version__,
    }
    atomic_write_text(manifest, json.dumps(info, indent=1))
    return info


def _read_point(path) -> tuple[dict, dict, dict]:
    """(values, dimensions, attributes) of every data variable of a point file."""
    import netCDF4

    values, dims, attrs = {}, {}, {}
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        for name, var in nc.variables.items():
            if name in nc.dimensions:  # coordinate of a histogram dimension
                continue
            values[name] = var[...]
            dims[name] = var.dimensions
            attrs[name] = {k: var.getncattr(k) for k in var.ncattrs() if k != "_FillValue"}
    return values, dims, attrs


def collect(name: str, study: dict, specs: list, results) -> xr.Dataset:
    """Merge a study's point files into one dataset with the axes as dimensions.

    Scalars become arrays over (couplings, spans, rule, N, NJ0 or J0);
    histograms get their own trailing dimension, zero-padded to the longest;
    L = 4 self-loop records are concatenated along ``l4_loop`` with their
    point's labels.
    """
    axis = "NJ0" if "NJ0" in study else "J0"
    names = (*AXES, axis)
    coords = {a: sorted({labels[a] for labels, _spec in specs}) for a in names}
    index = {a: {v: i for i, v in enumerate(coords[a])} for a in names}
    shape = tuple(len(coords[a]) for a in names)
    points = [(labels, *_read_point(spec.path(results))) for labels, spec in specs]
    data, var_dims, var_attrs = {}, {}, {}
    lengths: dict[str, int] = {}
    for _labels, values, dims, _attrs in points:
        for v, d in dims.items():
            if len(d) == 1 and d[0] != "l4_loop":
                lengths[d[0]] = max(lengths.get(d[0], 0), values[v].shape[0])
    l4: dict[str, list] = {}
    for labels, values, dims, attrs in points:
        at = tuple(index[a][labels[a]] for a in names)
        for v, value in values.items():
            d = dims[v]
            if d == ("l4_loop",):
                l4.setdefault(f"l4_{v[3:]}" if v.startswith("l4_") else v, []).append(value)
                continue
            if v not in data:
                extra = tuple(lengths[x] for x in d)
                fill = np.nan if value.dtype.kind == "f" else 0
                data[v] = np.full(shape + extra, fill, dtype=value.dtype)
                var_dims[v] = (*names, *d)
                var_attrs[v] = attrs[v]
            if d:
                data[v][at][: value.shape[0]] = value
            else:
                data[v][at] = value
        if any(dims[v] == ("l4_loop",) for v in dims):
            n = next(values[v].shape[0] for v in dims if dims[v] == ("l4_loop",))
            for a in names:
                l4.setdefault(f"l4_{a}", []).append(np.full(n, labels[a]))
    ds = xr.Dataset(
        {v: xr.DataArray(data[v], dims=var_dims[v], attrs=var_attrs[v]) for v in data},
        coords={**{a: coords[a] for a in names}, **{d: np.arange(n) for d, n in lengths.items()}},
    )
    if axis == "J0":
        ds = ds.assign_coords(NJ0=ds.N * ds.J0)
    for v, parts in l4.items():
        ds[v] = ("l4_loop", np.concatenate(parts))
    ds.attrs.update(
        {
            "study": name,
            "description": study.get("description", ""),
            "hyst_version": __version__,
            "format_version": FORMAT_VERSION,
            "seed": specs[0][1].seed,
            "samples": study["samples"],
            "observables": ",".join(specs[0][1].groups),
            "axes": ",".join(names),
        }
    )
    return ds
