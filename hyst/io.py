"""NetCDF I/O: atomic writes that respect the umask, reads, provenance checks, content hashes."""

from __future__ import annotations

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


def write_dataset(ds: xr.Dataset, path) -> Path:
    """Write ``ds`` to NetCDF (netCDF4) atomically (see :func:`atomic_write`)."""
    return atomic_write(path, lambda tmp: ds.to_netcdf(tmp, engine="netcdf4"))


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
