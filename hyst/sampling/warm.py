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


def compile_sampler(
    parallel=(False, True), processes: int = 1, groups: tuple[str, ...] | None = None
) -> float:
    """Sample four systems of every coupling ensemble, span ensemble and rule, with every
    observable group (or ``groups``) and records kept, on the calling thread and on all
    numba threads (``parallel``): every kernel a sampling job runs is compiled, or loaded
    from the cache.

    ``processes`` > 1 shares the work between that many fresh processes: the serial twins
    and the multithreaded kernels apart, and the groups dealt out between them (each
    group's kernels are its own; the few kernels they share, the draws, compile in each).
    The serial twins alone, which a pipeline's single-threaded jobs run: 96 s in one
    process, 57 s in two on two cores. Returns the CPU seconds it took, in all processes."""
    names = tuple(GROUPS) if groups is None else tuple(groups)
    if processes > 1:
        shares = _shares(tuple(parallel), names, processes)
        if len(shares) > 1:
            spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked state
            with ProcessPoolExecutor(len(shares), mp_context=spawn) as pool:
                return sum(pool.map(_compile_share, shares))
    t0 = time.process_time()
    for couplings in COUPLING_ENSEMBLES:
        for spans in SPAN_ENSEMBLES:
            for rule in RULES:
                point = Point(couplings, spans, rule, N_COMPILE, 10.0)
                for on_threads in parallel:
                    sample_chunk(point, 1, 0, 4, names, parallel=on_threads, records={"l4": 2})
    return time.process_time() - t0


def _compile_share(share) -> float:
    mode, groups = share
    return compile_sampler((mode,), groups=groups)


def _shares(modes: tuple, groups: tuple, processes: int) -> list:
    """The work of ``processes`` processes: (mode, groups) pairs, the modes apart, the groups
    dealt out round-robin (in the catalogue's order, which alternates cheap and costly)."""
    per_mode = max(1, processes // len(modes))
    shares = []
    for mode in modes:
        for k in range(min(per_mode, len(groups))):
            shares.append((mode, groups[k::per_mode]))
    return shares
