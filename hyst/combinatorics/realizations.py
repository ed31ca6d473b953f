"""Realizability files of the loop cells (:mod:`hyst.combinatorics.store`): every
representative checked under each variant by linear programming, block by block
(:mod:`hyst.combinatorics.blocks`), each block's file written as it finishes so that an
interrupted cell resumes. A file records the fingerprint of this module's code and what it
imports (the enumeration, the design inequalities, the LPs, the re-simulation)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import numpy as np
import xarray as xr

from hyst._version import __version__
from hyst.combinatorics import blocks as B
from hyst.combinatorics import store
from hyst.combinatorics import structures as S
from hyst.combinatorics.cells import run_tasks
from hyst.provenance.files import reusable, write_dataset


def _block_dataset(res: B.BlockResult, payload: dict, first: int) -> xr.Dataset:
    data = {
        f"{name}_{v}": ("loop", arr) for name, per in res.arrays.items() for v, arr in per.items()
    }
    attrs = {
        "first": first,
        "messages": json.dumps(res.messages),
        **store.provenance(payload, __name__),
    }
    return xr.Dataset(data, attrs=attrs)


def _block_result(ds: xr.Dataset, variants) -> B.BlockResult:
    arrays = {
        name: {v: ds[f"{name}_{v}"].values.astype(dt) for v in variants}
        for name, dt in B.BLOCK_ARRAYS.items()
    }
    return B.BlockResult(arrays, [tuple(m) for m in json.loads(ds.attrs["messages"])])


def realize_file(payload: dict, results, client=None, log: Callable = print) -> xr.Dataset:
    """The realizability file of a cell (see the module docstring), block by block."""
    path = store.cell_path(results, payload)
    ds = reusable(path, store.provenance(payload, __name__), log)
    if ds is not None:
        return ds
    n, L, variants = payload["n_e"], payload["L"], tuple(payload["variants"])
    t0 = time.perf_counter()
    reps = S.enumerate_cell(n, L)
    ranges = B.blocks(reps.count, payload["block"])
    folder = path.with_suffix("")
    results_by_block: dict[int, B.BlockResult] = {}
    todo = []
    for k, (a, b) in enumerate(ranges):
        part = reusable(folder / f"block-{a:07d}-{b:07d}.nc", store.provenance(payload, __name__))
        if part is not None:
            results_by_block[k] = _block_result(part, variants)
        else:
            todo.append(k)
    reused = len(ranges) - len(todo)
    if reused:
        log(f"{folder}: {reused} of {len(ranges)} blocks reused")
    eliminate = payload["lp_form"] == "eliminated"
    tasks = [
        B.Block(
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
        write_dataset(_block_dataset(res, payload, a), folder / f"block-{a:07d}-{b:07d}.nc")
        results_by_block[k] = res
        done[0] += b - a
        rate = done[0] / max(time.perf_counter() - t1, 1e-9)
        log(f"(n_e={n}, L={L}) block {a}-{b} done: {rate:.1f} loops/s")

    run_tasks(B.realize_block, tasks, client, on_result=save)
    merged = B.merge_blocks([results_by_block[k] for k in range(len(ranges))])
    seconds = time.perf_counter() - t0
    summary = B.summary(merged)
    ds = _block_dataset(merged, payload, 0)
    ds = ds.assign_coords(loop=np.arange(reps.count))
    ds.attrs.update(
        {
            "n_e": n,
            "L": L,
            "M": reps.count,
            "blocks": len(ranges),
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
