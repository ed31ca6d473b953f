"""Compile the sampler's kernels into numba's on-disk cache before any job needs them.

A kernel compiles on its first call in a checkout (minutes of CPU time for the sampler,
``benchmarks/rates.json``) and loads from the cache (``__pycache__`` next to its module)
ever after. Processes that start sampling at the same time on an empty cache, a run's
parallel jobs, a cluster's workers, each compile the same kernels; compiling them once
beforehand (``hyst compile``) spares them that, on a workstation as on a cluster's login
node whose file system the nodes share.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

from hyst.catalogue import GROUPS
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES
from hyst.model.systems import RULES
from hyst.sampling.sampler import Point, sample_chunk

#: Elements of the systems drawn to compile: small, so that sampling them costs nothing
#: beside compiling; the kernels' types do not depend on N.
N_COMPILE = 6


def compile_sampler(parallel=(False, True), processes: int = 1) -> float:
    """Sample four systems of every coupling ensemble, span ensemble and rule, with every
    observable group and records kept, on the calling thread and on all numba threads
    (``parallel``): every kernel a sampling job runs is compiled, or loaded from the cache.

    ``processes`` = 2 compiles the serial twins and the multithreaded kernels in two
    processes at once (the kernels they share are compiled in both): 86 s instead of 110 s
    on two cores. Returns the CPU seconds it took, in all processes."""
    if processes > 1 and len(parallel) > 1:
        spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked state
        with ProcessPoolExecutor(min(processes, len(parallel)), mp_context=spawn) as pool:
            return sum(pool.map(compile_sampler, [(mode,) for mode in parallel]))
    t0 = time.process_time()
    for couplings in COUPLING_ENSEMBLES:
        for spans in SPAN_ENSEMBLES:
            for rule in RULES:
                point = Point(couplings, spans, rule, N_COMPILE, 10.0)
                for on_threads in parallel:
                    sample_chunk(
                        point, 1, 0, 4, tuple(GROUPS), parallel=on_threads, records={"l4": 2}
                    )
    return time.process_time() - t0
