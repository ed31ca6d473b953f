"""NetCDF I/O: atomic writes that respect the umask, reads, provenance checks, content hashes."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import xarray as xr


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: The temporary files of this project's atomic writes (:func:`atomic_write`, the caches of
#: :mod:`hyst.provenance.fingerprints`): ``.<name>.<random>.tmp`` next to the file written.
TEMPORARY = ".*.tmp"


def remove_stale_temporaries(folder, older_than: float = 0.0) -> list[Path]:
    """Remove the temporary files (:data:`TEMPORARY`) below ``folder`` that are at least
    ``older_than`` seconds old, and return them: what a writer killed mid-write (a run
    killed by SIGKILL or a node failure) leaves behind. Called at the start of a run, when
    no writer of the run is at work."""
    import time

    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = []
    for path in folder.rglob(TEMPORARY):
        try:
            if path.is_file() and time.time() - path.stat().st_mtime >= older_than:
                path.unlink()
                removed.append(path)
        except FileNotFoundError:  # its writer finished (or removed it) meanwhile
            continue
    return removed


def atomic_write(path, write: Callable[[str], None]) -> Path:
    """Write ``path`` atomically: ``write(tmp)`` fills a temporary file in the same folder,
    which then replaces ``path``. The file gets the permissions a plain write would
    (0666 less the umask), so collaborators in the same group can read it; a failed
    write leaves ``path`` as it was and no temporary file behind."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write a text file atomically (see :func:`atomic_write`)."""

    def write(tmp):
        with open(tmp, "w") as fh:
            fh.write(text)

    return atomic_write(path, write)


#: Lossless compression: zlib (deflate) at this level, after the byte shuffle filter. It
#: changes no value; a level above 4 gains little and costs time.
COMPRESSION = {"zlib": True, "complevel": 4, "shuffle": True}
#: Variables holding fewer bytes are stored as they are: a compressed (hence chunked) HDF5
#: variable costs about 3 kB of chunk index, more than deflate saves on a small array
#: (measured: a point file of 111 variables is 102 kB with every variable compressed and
#: 61 kB with none; the quick preset's rules dataset without records 606 kB, 583 kB, and
#: 246 kB compressing only the variables of at least 4 kB).
COMPRESS_MIN_BYTES = 4096
#: Encoding keys of a dataset read from disk that would fight the compression.
_STORAGE_KEYS = (
    "zlib",
    "complevel",
    "shuffle",
    "compression",
    "contiguous",
    "chunksizes",
    "fletcher32",
    "szip",
    "zstd",
    "bzip2",
    "blosc",
    "source",
    "original_shape",
    "preferred_chunks",
)


def compressed_encoding(ds: xr.Dataset) -> dict:
    """The encoding :func:`write_dataset` uses: each variable's own encoding of values
    (dtype, fill value: no value changes), with :data:`COMPRESSION` for every variable of
    at least :data:`COMPRESS_MIN_BYTES` (the others, scalars included, stored as they are)."""
    encoding = {}
    for name, var in ds.variables.items():
        own = {k: v for k, v in var.encoding.items() if k not in _STORAGE_KEYS}
        big = var.ndim > 0 and var.dtype.kind != "O" and var.nbytes >= COMPRESS_MIN_BYTES
        encoding[name] = {**own, **COMPRESSION} if big else own
    return encoding


def write_dataset(ds: xr.Dataset, path) -> Path:
    """Write ``ds`` to compressed NetCDF (netCDF4, :func:`compressed_encoding`) atomically
    (see :func:`atomic_write`).

    A plain dataset (:func:`_plain`: numbers and text only, every coordinate a dimension's,
    attributes of numbers and text; a point file, a study's dataset, an analysis) is
    written with netCDF4 directly: the file xarray would write, variable for variable,
    attribute for attribute, in a fraction of its CPU time (a point of 105 variables:
    50 -> 37 ms; the 35 datasets and analyses of a quick run that are plain: 9.1 -> 2.3
    CPU-s). Any other dataset goes through xarray.

    The file is this process's own (a temporary name, renamed when complete), so its writes
    take a lock of this process. Left to itself, xarray would take a lock of the Dask
    scheduler whenever a ``distributed.Client`` is active (a points job saving a point while
    its other chunks run): a round trip to the scheduler around each variable's write,
    6 times the CPU time of the write on this machine, and more on a cluster's network."""
    encoding = compressed_encoding(ds)
    if _plain(ds, encoding):
        return atomic_write(path, lambda tmp: _write_plain(ds, tmp, encoding))
    return atomic_write(path, lambda tmp: _write_with_xarray(ds, tmp, encoding))


def _write_with_xarray(ds: xr.Dataset, tmp, encoding: dict) -> None:
    import dask

    with dask.config.set(scheduler="synchronous"):  # xarray: a threading lock
        ds.to_netcdf(tmp, engine="netcdf4", encoding=encoding)


def _plain_attr(value) -> bool:
    """An attribute netCDF4 stores as xarray would hand it over: text, a number, or a
    sequence of numbers (no bool, which xarray refuses)."""
    if isinstance(value, str):
        return True
    values = np.asarray(value)
    return values.ndim <= 1 and values.dtype.kind in "iuf"


def _plain(ds: xr.Dataset, encoding: dict) -> bool:
    """Whether xarray would write ``ds`` as netCDF4 writes it unaided: every variable of
    integer or float numbers or of text (a study's ensemble names, an analysis's reasons),
    every coordinate a dimension's own (no ``coordinates``
    attribute to write), nothing in the encodings but the dtype the values have and a
    fill value, no unlimited dimension asked for, attributes of text and numbers."""
    if ds.encoding.get("unlimited_dims") or set(ds.coords) - set(ds.dims):
        return False
    for name, var in ds.variables.items():
        if var.dtype.kind not in "iufU" or var.dtype.byteorder not in "=|":
            return False
        own = {k: v for k, v in encoding[name].items() if k not in COMPRESSION}
        if own.pop("dtype", var.dtype) != var.dtype or set(own) - {"_FillValue"}:
            return False
        if "_FillValue" in var.attrs or not all(map(_plain_attr, var.attrs.values())):
            return False
    return all(map(_plain_attr, ds.attrs.values()))


def _write_plain(ds: xr.Dataset, tmp, encoding: dict) -> None:
    """``ds`` (:func:`_plain`) written with netCDF4 as xarray writes it: the dimensions
    (length 0 unlimited, as netCDF makes it), then each variable in order, with xarray's
    fill value (NaN for floats unless the encoding names one; none for integers), its
    compression and its attributes, then the dataset's attributes, then every variable's
    values. Under xarray's locks of the netCDF-C and HDF5 libraries, which are not
    thread-safe.

    Like xarray, every variable is defined before any is written: a write between two
    definitions makes netCDF-C leave and re-enter define mode, which for a point file of
    57 variables doubled the time of the write (19 -> 9 ms)."""
    import netCDF4
    from xarray.backends.locks import HDF5_LOCK, NETCDFC_LOCK

    with NETCDFC_LOCK, HDF5_LOCK, netCDF4.Dataset(tmp, "w", format="NETCDF4") as nc:
        for dim, size in ds.sizes.items():
            nc.createDimension(dim, size or None)
        defined = []
        for name, var in ds.variables.items():
            enc = encoding[name]
            default = np.nan if var.dtype.kind == "f" else None
            fill = enc.get("_FillValue", default)
            packed = {k: enc[k] for k in COMPRESSION if k in enc}
            text = var.dtype.kind == "U"  # variable-length strings, as xarray stores text
            kind = str if text else var.dtype
            out = nc.createVariable(name, kind, var.dims, fill_value=fill, **packed)
            if var.attrs:
                out.setncatts(var.attrs)
            defined.append((out, var, text))
        if ds.attrs:
            nc.setncatts(ds.attrs)
        for out, var, text in defined:
            out[...] = var.values.astype(object) if text else var.values


#: Datasets this process keeps loaded for the processes it forks (:func:`keep_loaded`: the
#: run's job server, for the figures, captions, analyses, tables and comparison page that
#: read them): {absolute path: (the file's identity, the dataset)}.
_KEPT: dict[str, tuple[tuple, xr.Dataset]] = {}
#: The most bytes of data :func:`keep_loaded` keeps (the oldest datasets go first).
KEPT_MAX_BYTES = 1 << 30


def _identity(path: str) -> tuple:
    """What tells one file from another at ``path``: device, inode, size, modification
    time. An atomic write (:func:`atomic_write`) gives the path a new inode."""
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def keep_loaded(paths) -> list[str]:
    """Load the NetCDF datasets at ``paths`` into this process's memory, each once (again
    where the file changed since), for :func:`read_dataset` and :func:`opened_datasets` in
    the processes it forks afterwards, which then read no file: a run's datasets and
    analyses are each opened once, not by every figure, caption and analysis that reads
    them (opening one costs 40-150 ms of CPU, mostly HDF5's and xarray's work per
    variable). A file that cannot be read is left to the job, which reports it. Returns
    the paths loaded now."""
    loaded = []
    for path in paths:
        full = os.path.abspath(path)
        try:
            identity = _identity(full)
        except OSError:
            continue
        kept = _KEPT.get(full)
        if kept is not None and kept[0] == identity:
            continue
        try:
            _KEPT[full] = (identity, _read_file(full))
        except (OSError, ValueError):
            _KEPT.pop(full, None)
            continue
        loaded.append(full)
        while len(_KEPT) > 1 and sum(d.nbytes for _i, d in _KEPT.values()) > KEPT_MAX_BYTES:
            _KEPT.pop(next(iter(_KEPT)))
    return loaded


def _kept(path) -> xr.Dataset | None:
    """A copy of the dataset kept loaded for ``path`` (:func:`keep_loaded`), if the file
    there is still the one loaded; else None."""
    full = os.path.abspath(path)
    kept = _KEPT.get(full)
    if kept is None:
        return None
    try:
        if _identity(full) != kept[0]:
            return None
    except OSError:
        return None
    return kept[1].copy(deep=True)


def read_dataset(path) -> xr.Dataset:
    """Open a NetCDF dataset fully into memory (the file is closed afterwards), or copy it
    from the datasets this process was forked with (:func:`keep_loaded`)."""
    kept = _kept(path)
    return kept if kept is not None else _read_file(path)


def _read_file(path) -> xr.Dataset:
    """The NetCDF dataset at ``path``, read whole (the file is closed afterwards)."""
    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


def read_datasets(names, paths) -> dict:
    """{name: dataset} of the files ``paths``, one per name, in order (:func:`read_dataset`)."""
    return dict(zip(names, map(read_dataset, paths), strict=True))


@contextlib.contextmanager
def opened_datasets(names, paths):
    """{name: dataset} of the files ``paths``, one per name, in order, opened lazily for the
    duration of the ``with`` block (closed after it): a variable is read from its file when
    first used, with the same decoding as :func:`read_dataset`. For a job that uses a few
    variables of each file (a figure's analyses, a caption): an analysis file holds about
    430 variables, and reading all of them costs about a third of opening it. A dataset
    kept loaded by the process this one was forked from (:func:`keep_loaded`) is a copy of
    it, read from no file."""
    with contextlib.ExitStack() as stack:
        opened = {}
        for name, path in zip(names, paths, strict=True):
            kept = _kept(path)  # loaded already (keep_loaded): no file to open
            if kept is None:
                kept = stack.enter_context(xr.open_dataset(path, engine="netcdf4"))
            opened[name] = kept
        yield opened


def write_log(path, *items) -> None:
    """Write a job's log file: every item on its own line(s), as ``print`` shows it."""
    with open(path, "w") as log:
        for item in items:
            print(item, file=log)


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


def reusable(path, expected: dict, log: Callable[[str], None] | None = None) -> xr.Dataset | None:
    """The result file at ``path`` if it exists, can be read and carries every ``expected``
    provenance attribute (:func:`provenance_matches`); else None, and it is computed again.
    ``log`` is told which (a reused file, or one whose provenance does not match)."""
    path = Path(path)
    if not path.exists():
        return None
    try:
        ds = read_dataset(path)
    except (OSError, ValueError):
        ds = None
    if ds is not None and provenance_matches(ds, expected):
        if log is not None:
            log(f"{path}: reused")
        return ds
    if log is not None:
        log(f"{path}: provenance does not match, recomputing")
    return None


def content_hash(ds: xr.Dataset, length: int = 16) -> str:
    """SHA-256 of a dataset's variables and coordinates (names, dimensions, dtypes and
    values; attributes excluded): equal hashes mean bit-identical data."""
    h = hashlib.sha256()
    for name in sorted(map(str, ds.variables)):
        var = ds[name].variable
        values = np.asarray(var.values)
        h.update(name.encode())
        h.update(repr(var.dims).encode())
        h.update(str(values.dtype).encode())
        if values.dtype.kind in "OUS":
            h.update(json.dumps([str(x) for x in values.ravel()]).encode())
        else:
            h.update(np.ascontiguousarray(values).tobytes())
    return h.hexdigest()[:length]
