"""Count files of the loop cells (:mod:`hyst.combinatorics.store`): M(n_e, L) by the
enumerator in chunks (:mod:`hyst.combinatorics.cells`), by Burnside's lemma when asked, and
the representatives when few enough. A file records the fingerprint of this module's code
and what it imports (the enumeration, not the linear programs)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.combinatorics import cells, store
from hyst.combinatorics import structures as S
from hyst.provenance.files import reusable, write_dataset


def count_file(payload: dict, results, client=None, log: Callable = print) -> xr.Dataset:
    """The count file of a cell: reused if present with matching provenance, else computed."""
    path = store.cell_path(results, payload)
    ds = reusable(path, store.provenance(payload, __name__), log)
    if ds is not None:
        return ds
    n, L = payload["n_e"], payload["L"]
    got = cells.count_cell(n, L, payload["chunk_depth"], client)
    data = {}
    coords = {}
    if got.count <= payload["store_max"]:
        reps = S.enumerate_cell(n, L)
        if reps.count != got.count:
            raise RuntimeError(f"(n_e={n}, L={L}): stored {reps.count} != counted {got.count}")
        data["start"] = ("loop", reps.starts)
        data["flips"] = (("loop", "step"), reps.flips)
        coords = {"loop": np.arange(reps.count), "step": np.arange(L)}
    attrs = {
        "n_e": n,
        "L": L,
        "M": got.count,
        "chunks": got.chunks,
        "hyst_version": __version__,
        **store.provenance(payload, __name__),
    }
    if payload["burnside"]:
        t0 = time.perf_counter()
        attrs["M_burnside"] = S.burnside_count(n, L)
        log(f"M({n}, {L}) by Burnside's lemma in {time.perf_counter() - t0:.1f} s")
        if attrs["M_burnside"] != got.count:
            raise RuntimeError(f"(n_e={n}, L={L}): Burnside {attrs['M_burnside']} != {got.count}")
    ds = xr.Dataset(data, coords=coords, attrs=attrs)
    write_dataset(ds, path)
    log(f"M({n}, {L}) = {got.count:,} in {got.seconds:.1f} s ({got.chunks} chunks)")
    return ds
