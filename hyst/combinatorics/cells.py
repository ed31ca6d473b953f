"""One cell (n_e, L) at a time: counting and realizability in independent pieces.

These are the units a scheduler distributes (a Dask client, or the calling thread):
groups of enumeration chunks (``structures.Chunk``) and blocks of representatives
to check (``realize_block``). Each returns plain numbers and arrays, merged in
their order, so a cell's result never depends on how the work was scheduled.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from hyst.combinatorics import realize as rz
from hyst.combinatorics import structures as S

#: Representatives checked per realizability block.
BLOCK_SIZE = 2000
#: Enumeration chunks per task.
CHUNKS_PER_TASK = 64
#: Per-loop arrays of a block result (name -> dtype).
BLOCK_ARRAYS = {
    "status": np.int8,
    "lps": np.int32,
    "leaves": np.int32,
    "support": np.int32,
    "residual": np.float64,
    "field2": np.int64,
}


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


@dataclass
class BlockResult:
    """Realizability of a block of representatives, per variant: ``arrays[name][variant]``
    along the loops (``BLOCK_ARRAYS``: status codes of ``realize.STATUS``, LPs solved,
    refuted sign patterns, rows of the Farkas certificate, its residual, 2H of the
    re-simulation), and ``messages``: (loop index, variant, status, message) for every
    failed check."""

    arrays: dict
    messages: list = field(default_factory=list)

    @property
    def size(self) -> int:
        first = next(iter(self.arrays["status"].values()))
        return int(first.shape[0])


@dataclass(frozen=True)
class Block:
    """A block of representatives to check and how to check them."""

    starts: np.ndarray
    flips: np.ndarray
    variants: tuple = ("R", "W+")
    mode: str = "conservative"
    eliminate: bool = True


def realize_block(block: Block) -> BlockResult:
    """Check every loop (start, flips row) of a block under each variant."""
    n = len(block.starts)
    arrays = {k: {v: np.zeros(n, dt) for v in block.variants} for k, dt in BLOCK_ARRAYS.items()}
    loops = [S.Loop(int(block.starts[k]), tuple(int(e) for e in block.flips[k])) for k in range(n)]
    messages = []
    answers = rz.classify_many(loops, block.variants, mode=block.mode, eliminate=block.eliminate)
    for k, out in enumerate(answers):
        for v, res in out.items():
            arrays["status"][v][k] = res.code
            arrays["lps"][v][k] = res.lps
            arrays["leaves"][v][k] = res.leaves
            arrays["support"][v][k] = res.support
            arrays["residual"][v][k] = res.residual
            arrays["field2"][v][k] = res.field2 or 0
            if res.code < 0:
                messages.append((k, v, res.status, res.message))
    return BlockResult(arrays, messages)


def blocks(count: int, size: int = BLOCK_SIZE) -> list[tuple[int, int]]:
    """(first, stop) index ranges covering ``count`` representatives."""
    return [(a, min(a + size, count)) for a in range(0, count, size)]


def merge_blocks(results: Iterable[BlockResult]) -> BlockResult:
    """Concatenate block results in block order (message indices become cell indices)."""
    results = list(results)
    arrays = {
        name: {v: np.concatenate([r.arrays[name][v] for r in results]) for v in per}
        for name, per in results[0].arrays.items()
    }
    messages, offset = [], 0
    for r in results:
        messages += [(k + offset, v, s, m) for k, v, s, m in r.messages]
        offset += r.size
    return BlockResult(arrays, messages)


def summary(res: BlockResult) -> dict:
    """Per variant: feasible and infeasible counts, failures, LPs."""
    out = {}
    for v, codes in res.arrays["status"].items():
        out[v] = {
            "feasible": int((codes == rz.STATUS["feasible"]).sum()),
            "infeasible": int((codes == rz.STATUS["infeasible"]).sum()),
            "failed": int((codes < 0).sum()),
            "lps": int(res.arrays["lps"][v].sum()),
        }
    return out
