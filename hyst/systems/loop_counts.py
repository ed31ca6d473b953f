"""The counts of ``hyst loops``: M, M_R and M_W of the fundamental self-loops of K elements,
one row per loop length, through the pipeline's cell files.

Cells are computed through the same files as the pipeline's ``loops`` study
(``<results>/loops/``, see :mod:`hyst.combinatorics.store`): a cell already there with
matching provenance is read, anything else is computed and written, so a second
call (or a pipeline run with the same options) computes nothing again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from hyst.combinatorics import store
from hyst.combinatorics.counts import count_file
from hyst.combinatorics.realizations import realize_file
from hyst.sampling.cluster import client_if_parallel


def loop_count_rows(
    n: int,
    lengths: Sequence[int],
    *,
    variants: Sequence[str],
    mode: str,
    lp_form: str,
    realize_max: int,
    burnside: bool,
    results,
    threads: int,
    log: Callable[[str], None],
) -> list[dict]:
    """One row per loop length L of ``n`` elements: ``L``, ``M`` (the fundamental loop
    structures), per realizability variant the number found realizable (where M ≤
    ``realize_max``) and ``"<variant> failed"`` where a check failed, and the seconds it
    took. ``threads`` > 1 runs the cells on a local Dask cluster of that many threads."""
    rows = []
    with client_if_parallel(threads) as client:
        for L in lengths:
            t0 = time.perf_counter()
            payload = store.count_payload(
                n, L, store.DEFAULTS["chunk_depth"], store.DEFAULTS["store_max"], burnside
            )
            count = count_file(payload, results, client, log)
            row = {"L": L, "M": int(count.attrs["M"])}
            if row["M"] <= realize_max:
                rp = store.realize_payload(n, L, variants, mode, lp_form, store.DEFAULTS["block"])
                cell = realize_file(rp, results, client, log)
                summary = json.loads(cell.attrs["summary"])
                for v in variants:
                    row[v] = summary[v]["feasible"]
                    if summary[v]["failed"]:
                        row[f"{v} failed"] = summary[v]["failed"]
            row["seconds"] = round(time.perf_counter() - t0, 2)
            rows.append(row)
    return rows
