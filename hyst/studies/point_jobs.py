"""The points kind's jobs and files: point specs packed into jobs, a point file read back."""

from __future__ import annotations

import numpy as np

from hyst.catalogue import ENUMERATION_MAX_N


def read_point(path, known=frozenset()) -> tuple[dict, dict, dict]:
    """(values, dimensions, attributes) of every data variable of a point file, the
    attributes only of the variables not in ``known`` (a study's points share them: its
    collection reads them from the first point that has the variable)."""
    import netCDF4

    values, dims, attrs = {}, {}, {}
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        for name, var in nc.variables.items():
            if name in nc.dimensions:  # coordinate of a histogram dimension
                continue
            values[name] = var[...]
            dims[name] = var.dimensions
            if name not in known:
                attrs[name] = {k: var.getncattr(k) for k in var.ncattrs() if k != "_FillValue"}
    return values, dims, attrs


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
