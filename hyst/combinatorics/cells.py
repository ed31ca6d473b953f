"""One cell (n_e, L) at a time, counted in independent pieces: groups of enumeration chunks
(``structures.Chunk``), the units a scheduler distributes (a Dask client, or the calling
thread; :func:`run_tasks`). Each returns a plain number, summed, so a count never depends
on how the work was scheduled. The realizability of a cell's loops is checked by blocks
(:mod:`hyst.combinatorics.blocks`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from hyst.combinatorics import structures as S

#: Enumeration chunks per task.
CHUNKS_PER_TASK = 64


def run_tasks(fn: Callable, items: list, client=None, on_result: Callable | None = None) -> list:
    """``[fn(item) for item in items]``, on a Dask client if given (all submitted at once);
    ``on_result(index, result)`` is called as each result arrives."""
    if client is None:
        out = []
        for k, item in enumerate(items):
            out.append(fn(item))
            if on_result is not None:
                on_result(k, out[-1])
        return out
    from distributed import as_completed

    futures = [client.submit(fn, item, pure=False) for item in items]
    index = {f.key: k for k, f in enumerate(futures)}
    out: list = [None] * len(items)
    for fut in as_completed(futures):
        k = index[fut.key]
        out[k] = fut.result()
        if on_result is not None:
            on_result(k, out[k])
    return out


@dataclass
class CellCount:
    """M(n_e, L) with the wall time it took and its number of chunks."""

    n_e: int
    L: int
    count: int
    seconds: float
    chunks: int


def count_chunks(chunks: list[S.Chunk]) -> int:
    """Representatives in a group of chunks (counted, not stored)."""
    return sum(S.enumerate_chunk(c, store=False).count for c in chunks)


def count_cell(n_e: int, L: int, depth: int = S.DEFAULT_CHUNK_DEPTH, client=None) -> CellCount:
    """M(n_e, L) by groups of chunks (on ``client`` if given)."""
    t0 = time.perf_counter()
    chunks = S.cell_chunks(n_e, L, depth)
    groups = [chunks[k : k + CHUNKS_PER_TASK] for k in range(0, len(chunks), CHUNKS_PER_TASK)]
    total = sum(run_tasks(count_chunks, groups, client))
    return CellCount(n_e, L, int(total), time.perf_counter() - t0, len(chunks))
