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
from concurrent.futures import ProcessPoolExecutor, as_completed

from hyst.catalogue import GROUPS
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES
from hyst.model.systems import RULES
from hyst.sampling.sampler import Point, SamplingJob, sample_chunk

#: Elements of the systems drawn to compile: small, so that sampling them costs nothing
#: beside compiling; the kernels' types do not depend on N.
N_COMPILE = 6


def every_selection() -> list[tuple[str, ...]]:
    """Every observable group together, each alone, and for each kernel pass the groups it
    can serve: selections whose kernels cover any selection's (which kernel serves a group
    depends on the others asked with it: the enumeration serves the avalanche where it
    runs, the drive pass otherwise, and avalanche and cyclic drive together take one fused
    kernel). What ``hyst compile`` compiles when no configuration says what a run asks."""
    from hyst.sampling.passes import PASSES, SOURCES

    names = tuple(GROUPS)
    by_pass = [
        tuple(g for g in names if any(s.kernel is kernel for s in SOURCES[g])) for kernel in PASSES
    ]
    return list(dict.fromkeys([names, *((name,) for name in names), *by_pass]))


def compile_sampler(
    parallel=(False, True),
    processes: int = 1,
    selections=None,
    report=None,
) -> float:
    """Sample four systems of every coupling ensemble, span ensemble and rule for each
    selection of observable groups (``selections``: tuples of group names; default
    :func:`every_selection`), with records kept, on the calling thread and on all numba
    threads (``parallel``): every kernel a sampling job of those selections runs is compiled,
    or loaded from the cache.

    ``processes`` > 1 hands the (mode, selection) tasks, the serial twins first, each mode
    in the order of :func:`task_order`, to that many fresh processes, each taking the next
    task when it is free: a kernel one of them has compiled, the others load from the cache,
    and a kernel another is compiling they wait for and then load
    (:func:`hyst.kernels.jit.compile_lock`), so the work is shared, never repeated. The
    parallel twins come last: what their loops call, the serial twins have compiled
    (:func:`hyst.kernels.jit.batch_kernel`). Every selection in both modes from an empty
    cache, two processes: 168 CPU-s and 90 s of wall time, against 242 CPU-s and 127 s
    when the processes compiled the kernels they met at the same moment twice (2026-12-03,
    2 cores; ``docs/benchmarks.md``). ``report(done, total)``, if given, is called as each
    task ends.
    Returns the CPU seconds it took, in all processes."""
    chosen = every_selection() if selections is None else [tuple(s) for s in selections]
    tasks = [(mode, selection) for mode in parallel for selection in task_order(chosen)]
    seconds = 0.0
    if processes > 1 and len(tasks) > 1:
        spawn = multiprocessing.get_context("spawn")  # a fresh interpreter, no forked state
        with ProcessPoolExecutor(min(processes, len(tasks)), mp_context=spawn) as pool:
            futures = [pool.submit(_compile_task, task) for task in tasks]  # taken in order
            for done, future in enumerate(as_completed(futures), 1):
                seconds += future.result()
                if report is not None:
                    report(done, len(tasks))
        return seconds
    for done, task in enumerate(tasks, 1):
        seconds += _compile_task(task)
        if report is not None:
            report(done, len(tasks))
    return seconds


def task_order(selections) -> list[tuple[str, ...]]:
    """The ``selections`` (each once) in the order the compiling processes take them: next
    always one that runs a kernel pass the ones before it do not
    (:func:`hyst.sampling.passes.plan`), the one with the fewest passes first, the larger
    first among equals. The first tasks then run one new pass each, so two processes
    compile different kernels rather than one waiting on the other's compile of a
    selection that runs every pass; a selection whose passes the others run comes last,
    when most of what it needs is in the cache."""
    from hyst.sampling.passes import plan

    left = sorted(dict.fromkeys(tuple(s) for s in selections), key=len, reverse=True)
    met: set[str] = set()
    order = []
    while left:
        passes = [{kernel.name for kernel, _served in plan(s)} for s in left]
        best = min(range(len(left)), key=lambda k: (not passes[k] - met, len(passes[k]), k))
        met |= passes[best]
        order.append(left.pop(best))
    return order


def _compile_task(task) -> float:
    """Compile (or load) the kernels of one (mode, selection): the CPU seconds it took."""
    on_threads, selection = task
    t0 = time.process_time()
    first_spans = next(iter(SPAN_ENSEMBLES))
    for couplings in COUPLING_ENSEMBLES:
        for spans in SPAN_ENSEMBLES:
            for rule in RULES:
                if len(selection) == 1 and spans != first_spans:
                    continue  # the spans change the draws, not the kernels' types
                point = Point(couplings, spans, rule, N_COMPILE, 10.0)
                job = SamplingJob(point, 4, selection, 1, {"l4": 2})
                sample_chunk(job, 0, 4, parallel=on_threads)
    return time.process_time() - t0
