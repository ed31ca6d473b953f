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
    parallel=(False, True),
    processes: int = 1,
    groups: tuple[str, ...] | None = None,
    each_alone: bool = False,
) -> float:
    """Sample four systems of every coupling ensemble, span ensemble and rule, with every
    observable group (or ``groups``) and records kept, on the calling thread and on all
    numba threads (``parallel``): every kernel a sampling job runs is compiled, or loaded
    from the cache.

    ``processes`` > 1 shares the work between that many fresh processes: the serial twins
    and the multithreaded kernels apart (``hyst compile``: 268 CPU-s, 141 s of wall time on
    two cores, 2026-11-27), or the groups of one mode dealt out between them (the job
    server's serial twins, :data:`TWO_SHARES`). Each group's kernels are its own; the few
    kernels groups share, the draws, compile in each process.

    ``each_alone`` also samples each group alone: which kernel serves a group can depend
    on the others asked with it (the enumeration serves the avalanche where it runs and
    leaves the cyclic drive alone to the drive pass; avalanche and cyclic drive together
    take one fused kernel), so a process that compiles a share of the groups must meet
    every kernel that any selection of them takes.
    Returns the CPU seconds it took, in all processes."""
    names = tuple(GROUPS) if groups is None else tuple(groups)
    if processes > 1:
        shares = _shares(tuple(parallel), names, processes)
        if len(shares) > 1:
            spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked state
            with ProcessPoolExecutor(len(shares), mp_context=spawn) as pool:
                return sum(pool.map(_compile_share, shares))
    t0 = time.process_time()
    selections = [names] + ([(name,) for name in names] if each_alone else [])
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
    mode, groups, each_alone = share
    return compile_sampler((mode,), groups=groups, each_alone=each_alone)


#: The observable groups of each of two compiling processes: the drive groups, which share
#: the event-driven relaxation and the constant-column kernels, on one side; the enumeration,
#: the self-loop search and addressability on the other (a group it does not name goes with
#: the second), about equal CPU time on each side.
TWO_SHARES = (
    ("avalanche", "cyclic", "float64", "saturated_loop", "multiperiodic", "periods"),
    ("transitions", "zero_field", "any_self_loop", "addressability", "reachability"),
)


def _shares(modes: tuple, groups: tuple, processes: int) -> list:
    """The work of ``processes`` processes: (mode, groups, each_alone) triples, the modes
    apart, each mode's groups split in two by :data:`TWO_SHARES` (a group it does not name
    goes with the second), or dealt out round-robin among more processes; a process with a
    part of the groups also samples each alone."""
    per_mode = max(1, processes // len(modes))
    shares = []
    for mode in modes:
        if per_mode == 2:
            first = tuple(g for g in groups if g in TWO_SHARES[0])
            parts = [first, tuple(g for g in groups if g not in first)]
        else:
            parts = [groups[k::per_mode] for k in range(min(per_mode, len(groups)))]
        shares += [(mode, part, len(parts) > 1) for part in parts if part]
    return shares
