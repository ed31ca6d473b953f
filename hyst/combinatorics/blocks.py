"""The realizability of one cell (n_e, L), checked in independent blocks of representatives
(:func:`realize_block`), the units a scheduler distributes (a Dask client, or the calling
thread; :func:`hyst.combinatorics.cells.run_tasks`). Each returns plain arrays, merged in
block order, so a cell's result never depends on how the work was scheduled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from hyst.combinatorics import realize as rz
from hyst.combinatorics import structures as S
from hyst.combinatorics.store import DEFAULTS

#: Representatives checked per realizability block (the default of a study's ``block``).
BLOCK_SIZE = DEFAULTS["block"]
#: Per-loop arrays of a block result (name -> dtype).
BLOCK_ARRAYS = {
    "status": np.int8,
    "lps": np.int32,
    "leaves": np.int32,
    "support": np.int32,
    "residual": np.float64,
    "field2": np.int64,
}


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
        """The number of representatives (loops) in the block."""
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
