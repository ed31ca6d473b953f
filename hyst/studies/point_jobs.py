"""The points kind's jobs and files: point specs packed into jobs, a point's file written and
read back.

A point file holds one point's statistics (:func:`hyst.sampling.tallies.tally_to_dataset`:
about 60 variables, most of them scalars) **packed by dtype**: the values of every variable
of one dtype, flattened, one after the other in a single NetCDF variable
(``float64_values``, ``int64_values``), and a JSON table of the variables in the file's
attribute :data:`LAYOUT` (each variable's name, dimensions, shape, dtype, offset and
attributes, in the dataset's order). HDF5 costs about a quarter of a millisecond per
variable to write and as much to open and read, whatever its size: a run of the quick
preset writes and reads its 1,044 point files in a tenth of the time that one variable per
statistic took. The file stays self-describing (every name, unit and description is in
it, beside the provenance in the global attributes); :func:`read_point_dataset` gives it
back as the dataset that was written.
"""

from __future__ import annotations

import json

import numpy as np

from hyst.catalogue import ENUMERATION_MAX_N

#: The global attribute of a point file that lists its packed variables (JSON).
LAYOUT = "packed_variables"
#: The global attribute of a point file that says how it is laid out (:data:`LAYOUT_NOTE`).
LAYOUT_NOTE_ATTR = "layout"
#: What a point file says of its layout.
LAYOUT_NOTE = (
    "One point's statistics, packed by dtype: <dtype>_values holds the values of every "
    "variable of that dtype, flattened, one after the other; the attribute "
    f"{LAYOUT} lists each variable (name, dimensions, shape, dtype, offset into "
    "<dtype>_values, attributes) in order. hyst.studies.point_jobs.read_point_dataset "
    "reads the file back as a dataset."
)


def _packed_name(dtype_name: str) -> str:
    return f"{dtype_name}_values"


def _json_attr(value):
    """An attribute value as JSON holds it (numpy numbers and arrays as Python's)."""
    return value.tolist() if isinstance(value, np.ndarray | np.generic) else value


def write_point(ds, path):
    """Write a point's dataset ``ds`` (numbers only) to ``path`` atomically, packed by dtype
    (module docstring); returns the path. The same dataset gives the same bytes."""
    from hyst.provenance.files import COMPRESS_MIN_BYTES, COMPRESSION, atomic_write

    layout, parts = [], {}
    for name, var in ds.variables.items():
        values = np.asarray(var.values)
        if values.dtype.kind not in "iuf" or values.dtype.byteorder not in "=|":
            raise ValueError(f"point variable {name}: dtype {values.dtype} is not a number")
        dtype_name = values.dtype.name
        chunks = parts.setdefault(dtype_name, [])
        offset = sum(c.size for c in chunks)
        chunks.append(values.ravel())
        attrs = {k: _json_attr(v) for k, v in var.attrs.items()}
        layout.append(
            {
                "name": str(name),
                "dims": list(var.dims),
                "shape": list(values.shape),
                "dtype": dtype_name,
                "offset": offset,
                "attrs": attrs,
            }
        )
    table = json.dumps(layout, separators=(",", ":"))

    def write(tmp):
        import netCDF4
        from xarray.backends.locks import HDF5_LOCK, NETCDFC_LOCK

        with NETCDFC_LOCK, HDF5_LOCK, netCDF4.Dataset(tmp, "w", format="NETCDF4") as nc:
            defined = []
            for dtype_name, chunks in parts.items():
                flat = np.concatenate(chunks)
                name = _packed_name(dtype_name)
                nc.createDimension(f"{name}_length", flat.size or None)
                big = flat.nbytes >= COMPRESS_MIN_BYTES
                out = nc.createVariable(
                    name, flat.dtype, (f"{name}_length",), **(COMPRESSION if big else {})
                )
                out.setncatts(
                    {
                        "long_name": f"the point's {dtype_name} variables, flattened one "
                        f"after the other (where each is: the attribute {LAYOUT})"
                    }
                )
                defined.append((out, flat))
            nc.setncatts({**ds.attrs, LAYOUT_NOTE_ATTR: LAYOUT_NOTE, LAYOUT: table})
            for out, flat in defined:
                out[...] = flat

    return atomic_write(path, write)


def _unpacked(path, with_attrs: bool):
    """(layout, {dtype: flat values}, global attributes or None) of a point file."""
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        layout = json.loads(nc.getncattr(LAYOUT))
        flats = {d: nc.variables[_packed_name(d)][...] for d in {e["dtype"] for e in layout}}
        glob = None
        if with_attrs:
            skip = {LAYOUT, LAYOUT_NOTE_ATTR}
            glob = {k: nc.getncattr(k) for k in nc.ncattrs() if k not in skip}
    return layout, flats, glob


def _values(entry: dict, flats: dict) -> np.ndarray:
    size = int(np.prod(entry["shape"], dtype=np.int64))
    start = entry["offset"]
    return flats[entry["dtype"]][start : start + size].reshape(entry["shape"])


def read_point(path, known=frozenset()) -> tuple[dict, dict, dict]:
    """(values, dimensions, attributes) of every data variable of a point file (not the
    coordinates of its histograms' dimensions), the attributes only of the variables not in
    ``known`` (a study's points share them: its collection reads them from the first point
    that has the variable)."""
    layout, flats, _ = _unpacked(path, with_attrs=False)
    coordinates = {d for entry in layout for d in entry["dims"]}
    values, dims, attrs = {}, {}, {}
    for entry in layout:
        name = entry["name"]
        if name in coordinates:
            continue
        values[name] = _values(entry, flats)
        dims[name] = tuple(entry["dims"])
        if name not in known:
            attrs[name] = entry["attrs"]
    return values, dims, attrs


def read_point_dataset(path):
    """The dataset a point file was written from (:func:`write_point`): every variable
    with its dimensions, values, dtype and attributes, the histograms' coordinates, and
    the file's provenance as the dataset's attributes."""
    import xarray as xr

    layout, flats, glob = _unpacked(path, with_attrs=True)
    variables = {
        e["name"]: xr.Variable(tuple(e["dims"]), _values(e, flats).copy(), e["attrs"])
        for e in layout
    }
    return xr.Dataset(variables, attrs=glob)


def index_dtype(n: int):
    """The smallest signed integer dtype indexing ``n`` values."""
    return np.int8 if n <= 127 else np.int16 if n <= 32767 else np.int32


def pack(specs: list, size: int) -> list[list[tuple[tuple, list]]]:
    """Point specs packed into jobs of at most ``size`` points: each job a list of
    ((couplings, spans, rule), specs of that class).

    Each class (ensemble, rule, enumerated or large: they cost very differently) is cut
    into chunks of at most ``size``, in order of (N, NJ0); consecutive chunks of the same
    cost class are then packed into one job while they fit, so small classes share a job
    instead of paying a job's start-up each. Point files are per point: packing changes
    no result. Jobs of large systems hold few, long chunks (the longest, N = 1024 with the
    saturated loop at any H, runs 20 minutes on one core): they are marked long and start
    first, so that the short enumeration jobs fill the end of a run.
    """
    classes: dict[tuple, list] = {}
    for spec in specs:
        p = spec.point
        classes.setdefault((p.couplings, p.spans, p.rule, p.N > ENUMERATION_MAX_N), []).append(spec)
    chunks: dict[bool, list[tuple[tuple, list]]] = {False: [], True: []}
    for key, members in sorted(classes.items()):
        members.sort(key=lambda s: (s.point.N, s.point.NJ0, s.samples, s.groups, s.key()))
        for i in range(0, len(members), size):
            chunks[key[3]].append((key[:3], members[i : i + size]))
    packed = []
    for stream in chunks.values():
        current: list[tuple[tuple, list]] = []
        for chunk in stream:
            if current and sum(len(c[1]) for c in current) + len(chunk[1]) > size:
                packed.append(current)
                current = []
            current.append(chunk)
        if current:
            packed.append(current)
    return packed
