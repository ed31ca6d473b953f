"""One cell (n_e, L) at a time: counting and realizability in independent chunks.

These are the units a scheduler distributes (Dask, SLURM, a process pool): a chunk
of the enumeration (``structures.Chunk``) or a block of representatives to check
(``realize_block``). Each returns plain numbers and arrays, merged in chunk order,
so a cell's result never depends on how the work was scheduled.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from hyst.loops import realize as rz
from hyst.loops import structures as S

#: Representatives checked per realizability block.
BLOCK_SIZE = 2000


@dataclass
class CellCount:
    """M(n_e, L) with the wall time it took and its number of chunks."""

    n_e: int
    L: int
    count: int
    seconds: float
    chunks: int


def count_cell(n_e: int, L: int, depth: int = S.DEFAULT_CHUNK_DEPTH, mapper: Callable = map):
    """M(n_e, L) chunk by chunk (``mapper`` distributes ``count_chunk`` over the chunks)."""
    t0 = time.perf_counter()
    chunks = S.cell_chunks(n_e, L, depth)
    total = sum(mapper(count_chunk, chunks))
    return CellCount(n_e, L, int(total), time.perf_counter() - t0, len(chunks))


def count_chunk(chunk: S.Chunk) -> int:
    return S.enumerate_chunk(chunk, store=False).count


@dataclass
class BlockResult:
    """Realizability of a block of representatives, per variant (arrays along loops).

    status: ``realize.STATUS`` codes; lps: LPs solved; leaves: infeasible sign
    patterns; residual: the Farkas residual of the first infeasible leaf (0 when
    feasible); field2: 2H where the loop was re-simulated (0 when not feasible);
    messages: (loop index in block, variant, status, message) for every failed check;
    points: integer parameters of the feasible loops (when kept), else empty.
    """

    status: dict
    lps: dict
    leaves: dict
    residual: dict
    field2: dict
    messages: list = field(default_factory=list)
    points: dict = field(default_factory=dict)


def realize_block(
    starts,
    flips,
    variants=("R", "W+"),
    mode: str = "conservative",
    eliminate: bool = True,
    keep_points: bool = False,
) -> BlockResult:
    """Check every loop (start, flips row) of a block under each variant."""
    n = len(starts)
    status = {v: np.zeros(n, np.int8) for v in variants}
    lps = {v: np.zeros(n, np.int32) for v in variants}
    leaves = {v: np.zeros(n, np.int32) for v in variants}
    residual = {v: np.zeros(n) for v in variants}
    field2 = {v: np.zeros(n, np.int64) for v in variants}
    points: dict = {v: {} for v in variants} if keep_points else {}
    messages = []
    loops = [S.Loop(int(starts[k]), tuple(int(e) for e in flips[k])) for k in range(n)]
    for k, out in enumerate(rz.classify_many(loops, variants, mode=mode, eliminate=eliminate)):
        for v, res in out.items():
            status[v][k] = res.code
            lps[v][k] = res.lps
            leaves[v][k] = res.leaves
            residual[v][k] = res.residual
            field2[v][k] = res.field2 or 0
            if res.code < 0:
                messages.append((k, v, res.status, res.message))
            if keep_points and res.point is not None and res.code > 0:
                points[v][k] = res.point
    return BlockResult(status, lps, leaves, residual, field2, messages, points)


def blocks(count: int, size: int = BLOCK_SIZE) -> list[tuple[int, int]]:
    """(first, stop) index ranges covering ``count`` representatives."""
    return [(a, min(a + size, count)) for a in range(0, count, size)]


def merge_blocks(results: Iterable[BlockResult], variants) -> BlockResult:
    """Concatenate block results in block order (message indices become cell indices)."""
    results = list(results)
    cat = {}
    for name in ("status", "lps", "leaves", "residual", "field2"):
        cat[name] = {v: np.concatenate([getattr(r, name)[v] for r in results]) for v in variants}
    messages, offset = [], 0
    for r in results:
        messages += [(k + offset, v, s, m) for k, v, s, m in r.messages]
        offset += len(r.status[variants[0]])
    return BlockResult(**cat, messages=messages)


def summary(res: BlockResult) -> dict:
    """Per variant: feasible and infeasible counts, failures, LPs."""
    out = {}
    for v, codes in res.status.items():
        out[v] = {
            "feasible": int((codes == rz.STATUS["feasible"]).sum()),
            "infeasible": int((codes == rz.STATUS["infeasible"]).sum()),
            "failed": int((codes < 0).sum()),
            "lps": int(res.lps[v].sum()),
        }
    return out


def _save_block(path, res: BlockResult, variants) -> None:
    arrays = {}
    for name in ("status", "lps", "leaves", "residual", "field2"):
        for v in variants:
            arrays[f"{name}:{v}"] = getattr(res, name)[v]
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, messages=np.asarray(json.dumps(res.messages)), **arrays)
    tmp.replace(path)


def _load_block(path, variants) -> BlockResult:
    with np.load(path) as z:
        parts = {
            name: {v: z[f"{name}:{v}"] for v in variants}
            for name in ("status", "lps", "leaves", "residual", "field2")
        }
        messages = [tuple(m) for m in json.loads(str(z["messages"]))]
    return BlockResult(**parts, messages=messages)


def realize_cell_files(
    n_e: int,
    L: int,
    folder,
    variants=("R", "W+"),
    eliminate: bool = True,
    block_size: int = BLOCK_SIZE,
    log: Callable = print,
) -> BlockResult:
    """Realizability of every representative of a cell, block by block, each block saved
    to ``folder`` (``block-<first>-<stop>.npz``) and reused when present: an interrupted
    run resumes where it stopped. Returns the merged result."""
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    reps = S.enumerate_cell(n_e, L)
    results = []
    t0 = time.perf_counter()
    done = 0
    for first, stop in blocks(reps.count, block_size):
        path = folder / f"block-{first:07d}-{stop:07d}.npz"
        if path.exists():
            results.append(_load_block(path, variants))
            continue
        res = realize_block(
            reps.starts[first:stop], reps.flips[first:stop], variants, eliminate=eliminate
        )
        _save_block(path, res, variants)
        results.append(res)
        done += stop - first
        rate = done / (time.perf_counter() - t0)
        log(f"(n_e={n_e}, L={L}) block {first}-{stop}: {rate:.1f} loops/s")
    return merge_blocks(results, variants)
