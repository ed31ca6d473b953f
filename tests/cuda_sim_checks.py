"""The CUDA backend against the CPU kernels, system by system, in numba's CUDA simulator.

Run as a script (``tests/test_cuda_backend.py`` starts it in a subprocess with
``NUMBA_ENABLE_CUDASIM=1``, which numba reads when ``numba.cuda`` is first imported); prints
one JSON object: per check, the systems compared and those that differ.

- ``enumeration``: the enumeration's P_sl transitions (``cuda_batch.enumerate_batch``,
  one block per system) against ``batch.enumerate_batch``: every column, the loop
  histograms, the L = 4 records, per ensemble and rule, N = 2 … 10, blocks of 1, 4 and 8
  threads;
- ``search``: the self-loop search (``cuda_batch.any_self_loop_batch``) against
  ``batch.any_self_loop_batch``: every column;
- ``broken``: the enumeration with a wrong shared-memory reduction (its first level
  skipped): the comparison must find the systems it breaks;
- ``threads``: both passes called from 4 threads at once;
- ``point``: a chunk of the sampler (its own streams and passes) with backend cuda against
  cpu: the same tallies.
"""

from __future__ import annotations

import json
import os
import time
import warnings

import numpy as np

# the search's Fibonacci hash multiplies uint64 with wrap-around (numpy warns in Python)
warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning)

from numba import cuda  # noqa: E402

from hyst.model import batch, cuda_batch  # noqa: E402
from hyst.model.ensembles import sample_systems  # noqa: E402
from hyst.model.systems import Systems  # noqa: E402

RULES = ("0", "1", "1p", "2")
#: (name, draw(N, n, rng) -> Systems): the ensembles compared.
ENSEMBLES = {
    "random-hysteron": lambda N, n, rng: sample_systems("random", "hysteron", N, 10.0, n, rng),
    "random-spin": lambda N, n, rng: sample_systems("random", "spin", N, 100.0, n, rng),
    "weak-equal": lambda N, n, rng: sample_systems("weak", "equal", N, 10.0, n, rng),
    "ties": lambda N, n, rng: tie_heavy(N, n, rng),
}


def tie_heavy(N: int, n: int, rng) -> Systems:
    """Systems whose thresholds and couplings are small integers (in quanta): many states
    exactly at a threshold and many equal winning margins."""
    mid = rng.integers(-2, 3, (n, N))
    span = rng.integers(0, 2, (n, N))
    c = rng.integers(-1, 2, (n, N, N))
    c[:, np.arange(N), np.arange(N)] = 0
    return Systems((mid + span).astype(np.int64), (mid - span).astype(np.int64), c)


def same_enumeration(a, b) -> np.ndarray:
    """Per system: whether two enumeration outputs agree (columns, L = 4 records)."""
    ok = (a.columns.array == b.columns.array).all(axis=1)
    ok &= (a.l4_state == b.l4_state).all(axis=1) & (a.l4_mask == b.l4_mask).all(axis=1)
    ok &= (a.l4_count == b.l4_count) & (a.gap_fraction == b.gap_fraction)
    return ok


def compare_enumeration(systems, rule, rng, what, threads) -> tuple[int, int, int]:
    """(systems, systems that differ, loops met) of one batch; a difference in the batch's
    loop histograms counts every system as differing."""
    starts = rng.integers(0, 1 << systems.N, systems.samples)
    cpu = batch.enumerate_batch(systems, starts, rule, what, parallel=False)
    gpu = cuda_batch.enumerate_batch(systems, starts, rule, what, parallel=False, threads=threads)
    bad = int((~same_enumeration(cpu, gpu)).sum())
    if not (
        np.array_equal(cpu.loop_length_hist, gpu.loop_length_hist)
        and np.array_equal(cpu.loop_elements_hist, gpu.loop_elements_hist)
    ):
        bad = systems.samples
    loops = int(cpu.columns["n_self_loop_transitions"].sum())
    return systems.samples, bad, loops


#: Enumeration: (N, systems per ensemble and rule, threads per block).
ENUMERATION_PLAN = ((2, 24, 4), (3, 16, 4), (4, 12, 8), (5, 8, 4), (6, 4, 8), (7, 2, 4))
#: Enumeration at larger N: (N, systems per rule, threads), random hysterons and ties.
LARGE_PLAN = ((8, 1, 8), (10, 1, 8))
#: Self-loop search: (N, systems per ensemble and rule).
SEARCH_PLAN = ((2, 60), (3, 50), (4, 40), (5, 30), (6, 20), (8, 10), (10, 6))


def main() -> dict:
    rng = np.random.default_rng(20261127)
    report = {"enumeration": {}, "search": {}, "seconds": {}}
    t0 = time.perf_counter()
    for name, draw in ENSEMBLES.items():
        for rule in RULES:
            n = bad = loops = 0
            for N, count, threads in ENUMERATION_PLAN:
                # one in three batches asks the groups that share the pass too (CPU, merged)
                what = 7 if N % 3 == 0 else 1
                k, b, lo = compare_enumeration(draw(N, count, rng), rule, rng, what, threads)
                n, bad, loops = n + k, bad + b, loops + lo
            if name in ("random-hysteron", "ties"):
                for N, count, threads in LARGE_PLAN:
                    k, b, lo = compare_enumeration(draw(N, count, rng), rule, rng, 1, threads)
                    n, bad, loops = n + k, bad + b, loops + lo
            report["enumeration"][f"{name}/{rule}"] = {
                "systems": n,
                "differ": bad,
                "self_loop_transitions": loops,
            }
    t1 = time.perf_counter()
    for name, draw in ENSEMBLES.items():
        for rule in RULES:
            n = bad = loops = 0
            for N, count in SEARCH_PLAN:
                systems = draw(N, count, rng)
                cpu = batch.any_self_loop_batch(systems, rule, parallel=False)
                gpu = cuda_batch.any_self_loop_batch(systems, rule, block=8, most_threads=8)
                n += count
                bad += int((cpu.array != gpu.array).any(axis=1).sum())
                loops += int(cpu["self_loop"].sum())
            report["search"][f"{name}/{rule}"] = {
                "systems": n,
                "differ": bad,
                "self_loops": loops,
            }
    t2 = time.perf_counter()
    report["broken"] = broken_reduction(rng)
    report["point"] = same_point()
    report["threads"] = from_threads(rng)
    t3 = time.perf_counter()
    report["seconds"] = {
        "enumeration": round(t1 - t0, 1),
        "search": round(t2 - t1, 1),
        "broken_and_point": round(t3 - t2, 1),
    }
    return report


def broken_reduction(rng) -> dict:
    """The enumeration with a wrong reduction (the first level of the tree skipped: half of
    the threads' counts lost): how many of 16 systems the comparison finds differing."""
    from hyst.kernels import cuda_state_table

    right = cuda_state_table.block_sums

    def wrong(partial, tid, width):  # compiled in the kernel module's globals, as the right one
        stride = width // 4  # should start at width // 2
        while stride > 0:
            if tid < stride:
                for r in range(partial.shape[0]):
                    partial[r, tid] += partial[r, tid + stride]
            cuda.syncthreads()
            stride //= 2

    cuda_state_table.block_sums = wrong
    cuda_state_table.build.cache_clear()
    try:
        systems = ENSEMBLES["random-hysteron"](5, 16, rng)
        n, bad, _ = compare_enumeration(systems, "1", rng, 1, 4)
    finally:
        cuda_state_table.block_sums = right
        cuda_state_table.build.cache_clear()
    return {"systems": n, "differ": bad}


def from_threads(rng) -> dict:
    """Both CUDA passes called from 4 threads at once (as a Dask worker's threads call them):
    the systems of each call that differ from the CPU's."""
    from concurrent.futures import ThreadPoolExecutor

    batches = [ENSEMBLES["random-hysteron"](4, 6, rng) for _ in range(4)]

    def check(systems):
        starts = np.zeros(systems.samples, np.int64)
        cpu = batch.enumerate_batch(systems, starts, "1", 1, parallel=False)
        gpu = cuda_batch.enumerate_batch(systems, starts, "1", 1, parallel=False)
        bad = int((~same_enumeration(cpu, gpu)).sum())
        cpu = batch.any_self_loop_batch(systems, "1", parallel=False)
        gpu = cuda_batch.any_self_loop_batch(systems, "1")
        return bad + int((cpu.array != gpu.array).any(axis=1).sum())

    with ThreadPoolExecutor(4) as pool:
        differ = list(pool.map(check, batches))
    return {"calls": len(batches), "differ": sum(differ)}


def same_point() -> dict:
    """A chunk of the sampler (its own streams and passes) on both backends: whether the
    tallies agree, for the enumeration (transitions with P_sl) and the search alone."""
    from hyst.sampling.sampler import Point, SamplingJob, sample_chunk

    out = {}
    for groups in (("transitions", "zero_field"), ("any_self_loop",)):
        point = Point("random", "hysteron", "1", 5, 10.0)
        cpu = sample_chunk(SamplingJob(point, 40, groups, 3), 0, 40, parallel=False)
        job = SamplingJob(point, 40, groups, 3, backend="cuda")
        gpu = sample_chunk(job, 0, 40, parallel=False)
        same = cpu.counts == gpu.counts and cpu.sums == gpu.sums
        same = same and cpu.hists.keys() == gpu.hists.keys()
        same = same and all(np.array_equal(cpu.hists[k], gpu.hists[k]) for k in cpu.hists)
        out["+".join(groups)] = {"same": bool(same), "counts": len(cpu.counts)}
    return out


def on_one_core() -> None:
    """Keep this process on one core. The simulator runs a block's threads as Python
    threads that take turns holding the GIL: spread over two cores they handed it from core
    to core (700,000 context switches, 33 CPU-s for this script); on one core the same
    checks take 19 CPU-s and no longer (2026-12-03, 2 cores)."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


if __name__ == "__main__":
    on_one_core()
    print(json.dumps(main()))
