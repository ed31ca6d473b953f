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
from hyst.sampling.sampler import Point, SamplingJob, sample_chunk

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
    first, then the multithreaded kernels (which load the inner kernels they share with the
    twins from the cache), each time the groups dealt out between the processes (each
    group's kernels are its own; the few kernels they share, the draws, compile in each).
    The serial twins alone, which a pipeline's single-threaded jobs run: 96 s of CPU in
    one process; 106 s in two (:data:`TWO_SHARES`), about 55 s of wall time on two cores.
    Returns the CPU seconds it took, in all processes."""
    names = tuple(GROUPS) if groups is None else tuple(groups)
    if processes > 1:
        # the serial twins first, then the multithreaded kernels: their prange loops call the
        # same inner kernels (a block of systems), which they then load from the cache instead
        # of compiling them once more in a process of their own
        cpu = 0.0
        spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked state
        for mode in sorted(set(parallel)):
            shares = _shares((mode,), names, processes)
            with ProcessPoolExecutor(len(shares), mp_context=spawn) as pool:
                cpu += sum(pool.map(_compile_share, shares))
        return cpu
    t0 = time.process_time()
    # the groups together, and each alone: which kernel serves a group can depend on the
    # others asked with it (the enumeration serves the avalanche where it runs, leaving the
    # cyclic drive alone to the drive pass; avalanche and cyclic drive together take one
    # fused kernel), and a process that compiles a share of the groups must meet every
    # kernel that any selection of them takes
    selections = [names] + ([(name,) for name in names] if len(names) > 1 else [])
    first_spans = next(iter(SPAN_ENSEMBLES))
    for couplings in COUPLING_ENSEMBLES:
        for spans in SPAN_ENSEMBLES:
            for rule in RULES:
                point = Point(couplings, spans, rule, N_COMPILE, 10.0)
                for k, selection in enumerate(selections):
                    if k and spans != first_spans:
                        continue  # the spans change the draws, not the kernels' types
                    job = SamplingJob(point, 4, selection, 1, {"l4": 2})
                    for on_threads in parallel:
                        sample_chunk(job, 0, 4, parallel=on_threads)
    return time.process_time() - t0


def _compile_share(share) -> float:
    mode, groups = share
    return compile_sampler((mode,), groups=groups)


#: The observable groups of each of two compiling processes: the drive groups, which share
#: the event-driven relaxation and the constant-column kernels, on one side; the enumeration,
#: the self-loop search and addressability on the other (a group it does not name goes with
#: the second), about equal CPU time on each side.
TWO_SHARES = (
    ("avalanche", "cyclic", "float64", "saturated_loop", "multiperiodic", "periods"),
    ("transitions", "zero_field", "any_self_loop", "addressability", "reachability"),
)


def _shares(modes: tuple, groups: tuple, processes: int) -> list:
    """The work of ``processes`` processes: (mode, groups) pairs, the modes apart, each
    mode's groups split in two by :data:`TWO_SHARES` (a group it does not name goes with
    the second), or dealt out round-robin among more processes."""
    per_mode = max(1, processes // len(modes))
    shares = []
    for mode in modes:
        if per_mode == 2:
            first = tuple(g for g in groups if g in TWO_SHARES[0])
            parts = [first, tuple(g for g in groups if g not in first)]
        else:
            parts = [groups[k::per_mode] for k in range(min(per_mode, len(groups)))]
        shares += [(mode, part) for part in parts if part]
    return shares
