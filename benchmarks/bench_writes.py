"""Writing point files while a Dask client is active, as a points job does.

A points job saves each point's file as soon as its chunks are in, while its client (an
in-process LocalCluster, or the configuration's cluster) samples the other points. Times,
side by side in one run, ``--files`` writes of one point's dataset (every observable group
of the point, as the paper preset's points carry them):

- no client:        :func:`hyst.provenance.files.write_dataset` with no client;
- client, xarray's lock: ``Dataset.to_netcdf`` under the client, as write_dataset did
  before it took a lock of its own process (xarray then takes a ``distributed.Lock`` of
  the scheduler around each variable's write);
- client, through xarray: ``to_netcdf`` under the client with the lock of this process,
  as write_dataset wrote every dataset before it wrote plain ones (a point's) with netCDF4
  directly;
- client, write_dataset: write_dataset under the client (a point's dataset: netCDF4
  directly, one variable per statistic, as point files were written before they were
  packed);
- client, write_point: :func:`hyst.studies.point_jobs.write_point` under the client (the
  variables packed by dtype: what a points job writes).

It also times reading each file back as a study's collection reads it (the one-variable-
per-statistic files variable by variable with netCDF4, the packed ones with
:func:`hyst.studies.point_jobs.read_point`), and building the point's dataset from its
tally (``tally_to_dataset``).

Wall and CPU time per file (CPU: this process, the in-process scheduler's thread included).

    python benchmarks/bench_writes.py [--files 40] [--N 6]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from hyst.provenance.files import (
    _write_with_xarray,
    atomic_write,
    compressed_encoding,
    write_dataset,
)
from hyst.sampling.cluster import client
from hyst.sampling.sampler import Point, resolve_groups, sample_point
from hyst.sampling.tallies import tally_to_dataset
from hyst.studies.point_jobs import read_point, write_point
from hyst.studies.points import PointSpec


def xarray_lock_write(ds, path):
    """The write as it was: ``to_netcdf`` with xarray's choice of lock."""
    encoding = compressed_encoding(ds)
    return atomic_write(path, lambda tmp: ds.to_netcdf(tmp, engine="netcdf4", encoding=encoding))


def xarray_write(ds, path):
    """The write through xarray, with the lock of this process (``write_dataset`` before it
    wrote plain datasets with netCDF4 directly)."""
    encoding = compressed_encoding(ds)
    return atomic_write(path, lambda tmp: _write_with_xarray(ds, tmp, encoding))


def read_variables(path, known=frozenset()):
    """A point file of one variable per statistic read as collections read it before the
    files were packed: each variable's values and dimensions, the attributes of those not
    ``known``."""
    import netCDF4

    values, attrs = {}, {}
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        for name, var in nc.variables.items():
            if name not in nc.dimensions:
                values[name] = (var[...], var.dimensions)
                if name not in known:
                    attrs[name] = {k: var.getncattr(k) for k in var.ncattrs()}
    return values, None, attrs


def read_time(read, folder: Path) -> float:
    """CPU seconds per file of reading every file of ``folder`` (the attributes once)."""
    paths = sorted(folder.glob("*.nc"))
    known: set = set()
    cpu = time.process_time()
    for path in paths:
        values, _dims, _attrs = read(path, known)
        known.update(values)
    return (time.process_time() - cpu) / len(paths)


def timed(write, ds, folder: Path, files: int) -> tuple[float, float]:
    """(wall, CPU) seconds per file of ``files`` writes of ``ds`` into ``folder``."""
    folder.mkdir()
    wall, cpu = time.perf_counter(), time.process_time()
    for k in range(files):
        write(ds, folder / f"{k}.nc")
    return (time.perf_counter() - wall) / files, (time.process_time() - cpu) / files


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=40, help="files written per variant")
    parser.add_argument("--N", type=int, default=6, help="elements of the point's systems")
    args = parser.parse_args(argv)
    point = Point("random", "hysteron", "1", args.N, 1.0)
    groups = resolve_groups(point)
    tally = sample_point(point, 1000, 1, groups)
    ds = tally_to_dataset(tally, groups, PointSpec(point, 1000, groups, 1).attrs())
    with tempfile.TemporaryDirectory() as tmp:
        write_dataset(ds, Path(tmp) / "first.nc")  # the first write loads netCDF4's libraries
    print(f"one point's dataset: {len(ds.variables)} variables, {args.files} files a variant")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        rows = [("no client", timed(write_dataset, ds, root / "plain", args.files))]
        with client(threads=2):
            rows.append(
                ("client, xarray's lock", timed(xarray_lock_write, ds, root / "lock", args.files))
            )
            rows.append(
                ("client, through xarray", timed(xarray_write, ds, root / "xr", args.files))
            )
            rows.append(
                ("client, write_dataset", timed(write_dataset, ds, root / "own", args.files))
            )
            rows.append(
                ("client, write_point", timed(write_point, ds, root / "packed", args.files))
            )
        contents = {p.read_bytes() for p in (root / "plain").glob("*.nc")}
        contents |= {p.read_bytes() for p in (root / "own").glob("*.nc")}
        packed = {p.read_bytes() for p in (root / "packed").glob("*.nc")}
        reads = [
            ("one variable a statistic", read_time(read_variables, root / "own")),
            ("packed (read_point)", read_time(read_point, root / "packed")),
        ]
    print(f"{'variant':<24}{'wall/file':>12}{'CPU/file':>12}")
    for name, (wall, cpu) in rows:
        print(f"{name:<24}{wall * 1e3:>10.1f} ms{cpu * 1e3:>10.1f} ms")
    print("files identical:", len(contents) == 1 and len(packed) == 1)
    for name, cpu in reads:
        print(f"read back, {name:<26}{cpu * 1e3:>8.1f} ms CPU a file")
    cpu = time.process_time()
    for _ in range(args.files):
        tally_to_dataset(tally, groups, PointSpec(point, 1000, groups, 1).attrs())
    print(f"tally_to_dataset: {(time.process_time() - cpu) / args.files * 1e3:.1f} ms CPU a point")


if __name__ == "__main__":
    main()
