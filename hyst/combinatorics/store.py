"""Result files of the loop cells: one NetCDF file per (cell, what), reused when its
provenance (the job's payload and the fingerprint of the code behind it) matches.

Both the study kind ``loops`` and ``hyst loops`` compute cells through
``count_file`` and ``realize_file``, so each reuses what the other computed.

- ``count``: M(n_e, L) by the enumerator (and by Burnside's lemma when asked),
  the wall time, the number of chunks, and the representatives (start state,
  flips) when M ≤ ``store_max``;
- ``realize``: per representative and per variant the status code
  (``realize.STATUS``), LPs, refuted sign patterns, the size and residual of
  the Farkas certificate, 2H of the re-simulation; the counts per variant; the
  failed checks' messages; the wall time. Long cells write one file per block
  of representatives as they finish (a folder next to the cell file), so an
  interrupted job resumes where it stopped (``seconds`` is then the wall time of
  the run that finished the cell, ``blocks_reused`` says how many it found).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.combinatorics import cells, realize
from hyst.combinatorics import structures as S
from hyst.model import seeds
from hyst.provenance.files import reusable, write_dataset
from hyst.provenance.fingerprints import code_fingerprint

#: Version of the file layout (part of the provenance).
FORMAT_VERSION = 1
#: Defaults of the job options (also the defaults of the study schema and of the CLI).
DEFAULTS = {
    "chunk_depth": 8,
    "store_max": 100_000,
    "variants": ["R", "W+"],
    "mode": "conservative",
    "lp_form": "eliminated",
    "block": cells.BLOCK_SIZE,
}
LP_FORMS = {
    "eliminated": "H eliminated: every lower bound on 2H below every upper bound (Supplemental)",
    "compact": "2H kept as an LP variable (the same parameters are feasible; faster)",
}


def count_payload(n_e: int, L: int, chunk_depth: int, store_max: int, burnside: bool) -> dict:
    return {
        "what": "count",
        "n_e": int(n_e),
        "L": int(L),
        "chunk_depth": int(chunk_depth),
        "store_max": int(store_max),
        "burnside": bool(burnside),
    }


def realize_payload(n_e, L, variants, mode, lp_form, block) -> dict:
    return {
        "what": "realize",
        "n_e": int(n_e),
        "L": int(L),
        "variants": sorted(variants, key=list(realize.VARIANTS).index),
        "mode": str(mode),
        "lp_form": str(lp_form),
        "block": int(block),
    }


def job_name(payload: dict) -> str:
    """A file-system safe name saying what the job is, plus a digest of its payload."""
    return f"{payload['what']}-n{payload['n_e']}-L{payload['L']}-{seeds.digest(payload, 10)}"


def cell_path(results, payload: dict) -> Path:
    return Path(results) / "loops" / f"{job_name(payload)}.nc"


def provenance(payload: dict) -> dict:
    """Attributes a file must carry to be reused: the JSON payload and the fingerprint of
    the code of this module and everything it imports (the counting and the
    realizability code), shared by the ``loops`` study kind and ``hyst loops``."""
    return {
        "payload": json.dumps(payload, sort_keys=True),
        "code_fingerprint": code_fingerprint([__name__]),
        "format_version": FORMAT_VERSION,
    }


def count_file(payload: dict, results, client=None, log: Callable = print) -> xr.Dataset:
    """The count file of a cell: reused if present with matching provenance, else computed."""
    path = cell_path(results, payload)
    ds = reusable(path, provenance(payload), log)
    return ds if ds is not None else _count_cell(payload, path, client, log)


def realize_file(payload: dict, results, client=None, log: Callable = print) -> xr.Dataset:
    """The realizability file of a cell (see the module docstring), block by block: reused
    if present with matching provenance, else computed from the blocks (each reused the
    same way)."""
    path = cell_path(results, payload)
    ds = reusable(path, provenance(payload), log)
    return ds if ds is not None else _realize_cell(payload, path, client, log)


def _count_cell(payload: dict, path: Path, client, log: Callable) -> xr.Dataset:
    """Count (and store, up to ``store_max``) the loops of a cell into ``path``."""
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
        "seconds": got.seconds,
        "chunks": got.chunks,
        "hyst_version": __version__,
        **provenance(payload),
    }
    if payload["burnside"]:
        t0 = time.perf_counter()
        attrs["M_burnside"] = S.burnside_count(n, L)
        attrs["burnside_seconds"] = time.perf_counter() - t0
        if attrs["M_burnside"] != got.count:
            raise RuntimeError(f"(n_e={n}, L={L}): Burnside {attrs['M_burnside']} != {got.count}")
    ds = xr.Dataset(data, coords=coords, attrs=attrs)
    write_dataset(ds, path)
    log(f"M({n}, {L}) = {got.count:,} in {got.seconds:.1f} s ({got.chunks} chunks)")
    return ds


def _block_dataset(res: cells.BlockResult, payload: dict, first: int) -> xr.Dataset:
    data = {
        f"{name}_{v}": ("loop", arr) for name, per in res.arrays.items() for v, arr in per.items()
    }
    attrs = {"first": first, "messages": json.dumps(res.messages), **provenance(payload)}
    return xr.Dataset(data, attrs=attrs)


def _block_result(ds: xr.Dataset, variants) -> cells.BlockResult:
    arrays = {
        name: {v: ds[f"{name}_{v}"].values.astype(dt) for v in variants}
        for name, dt in cells.BLOCK_ARRAYS.items()
    }
    return cells.BlockResult(arrays, [tuple(m) for m in json.loads(ds.attrs["messages"])])


def _block_path(folder: Path, first: int, stop: int) -> Path:
    return folder / f"block-{first:07d}-{stop:07d}.nc"


def _realize_cell(payload: dict, path: Path, client, log: Callable) -> xr.Dataset:
    """Decide the realizability of every loop of a cell, block by block (blocks already
    written with matching provenance are reused), into ``path``."""
    n, L, variants = payload["n_e"], payload["L"], tuple(payload["variants"])
    t0 = time.perf_counter()
    reps = S.enumerate_cell(n, L)
    ranges = cells.blocks(reps.count, payload["block"])
    folder = path.with_suffix("")
    results_by_block: dict[int, cells.BlockResult] = {}
    todo = []
    for k, (a, b) in enumerate(ranges):
        part = reusable(_block_path(folder, a, b), provenance(payload))
        if part is not None:
            results_by_block[k] = _block_result(part, variants)
        else:
            todo.append(k)
    reused = len(ranges) - len(todo)
    if reused:
        log(f"{folder}: {reused} of {len(ranges)} blocks reused")
    eliminate = payload["lp_form"] == "eliminated"
    tasks = [
        cells.Block(
            reps.starts[ranges[k][0] : ranges[k][1]],
            reps.flips[ranges[k][0] : ranges[k][1]],
            variants,
            payload["mode"],
            eliminate,
        )
        for k in todo
    ]
    t1 = time.perf_counter()
    done = [0]

    def save(i, res):
        k = todo[i]
        a, b = ranges[k]
        write_dataset(_block_dataset(res, payload, a), _block_path(folder, a, b))
        results_by_block[k] = res
        done[0] += b - a
        rate = done[0] / max(time.perf_counter() - t1, 1e-9)
        log(f"(n_e={n}, L={L}) block {a}-{b} done: {rate:.1f} loops/s")

    cells.run_tasks(cells.realize_block, tasks, client, on_result=save)
    merged = cells.merge_blocks([results_by_block[k] for k in range(len(ranges))])
    seconds = time.perf_counter() - t0
    summary = cells.summary(merged)
    ds = _block_dataset(merged, payload, 0)
    ds = ds.assign_coords(loop=np.arange(reps.count))
    ds.attrs.update(
        {
            "n_e": n,
            "L": L,
            "M": reps.count,
            "seconds": seconds,
            "blocks": len(ranges),
            "blocks_reused": reused,
            "summary": json.dumps(summary),
            "hyst_version": __version__,
        }
    )
    write_dataset(ds, path)
    failed = sum(s["failed"] for s in summary.values())
    log(
        f"(n_e={n}, L={L}): "
        + ", ".join(f"{v} {s['feasible']:,}" for v, s in summary.items())
        + f" of {reps.count:,} realizable; {failed} failed checks; {seconds:.1f} s"
    )
    return ds
