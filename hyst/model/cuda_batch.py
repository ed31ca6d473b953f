"""The CUDA backend's kernel calls: the enumeration's P_sl transitions and the self-loop
search on an NVIDIA GPU (or in numba's CUDA simulator), with the outputs of the CPU
gateway (:mod:`hyst.model.batch`), equal to them system by system.

The backend is an operational choice, like the number of threads: ``backend: cuda`` in a
configuration, ``hyst point --backend cuda``, ``hyst.sample_point(..., backend="cuda")``.
It changes where the kernels run, never what they compute, so it is no part of a point's
identity or provenance (a point sampled on either backend is reused by the other).

- :func:`enumerate_batch`: the enumeration of all 2^N states, its ``transitions`` group on
  the GPU (:mod:`hyst.kernels.cuda_state_table`: one thread block per system), the groups
  that share the pass (``zero_field``, ``avalanche``) on the CPU, merged into the CPU
  call's output;
- :func:`any_self_loop_batch`: the self-loop search (:mod:`hyst.kernels.cuda_self_loops`:
  one thread per system).

numba-cuda is optional (``pip install 'hyst[cuda]'``): this module imports it only when a
CUDA kernel runs; :func:`check_backend` refuses ``cuda`` in one line where it cannot run.
"""

from __future__ import annotations

import threading

import numpy as np

from hyst.kernels import codes
from hyst.kernels.cuda_device import cuda_problem, simulated, simulator_pace
from hyst.model import batch
from hyst.model.flip_times import unit_flip_times
from hyst.model.systems import Systems, rule_code

#: Where the kernels run: the CPU's numba threads, or a CUDA GPU.
BACKENDS = ("cpu", "cuda")
#: Threads per block of the enumeration (a power of two; at most
#: ``cuda_state_table.THREADS``).
ENUMERATION_THREADS = 128
#: ... and of the self-loop search's blocks, in numba's CUDA simulator, which runs every
#: thread of a block as a Python thread.
SIMULATOR_THREADS = 4
#: Threads per block of the self-loop search (one system per thread).
SEARCH_BLOCK = 64
#: Most threads of the self-loop search at once (each with its workspace in GPU memory:
#: 76 KiB at N = 24, 1.2 GiB for all of them).
SEARCH_THREADS = 16384
#: One kernel launch at a time per process: the threads of a Dask worker share its GPU (whose
#: default stream runs one kernel after another anyway), and the simulator runs one at a time.
LAUNCH = threading.Lock()
#: GPU memory for the enumeration's state tables of the blocks running at once, in bytes.
ENUMERATION_MEMORY = 4 * 2**30


def check_backend(backend) -> str:
    """``backend`` if it is one of :data:`BACKENDS` and can run here; otherwise ValueError
    with one line naming the value, why, and what is allowed."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend: {backend!r} is not one of {', '.join(BACKENDS)}")
    if backend == "cuda":
        problem = cuda_problem()
        if problem is not None:
            raise ValueError(f"backend: 'cuda' cannot run here ({problem}); allowed here: cpu")
    return backend


def _check_not_directed(systems: Systems) -> None:
    """The CUDA kernels read one coupling matrix: direction-dependent couplings are refused."""
    if systems.directed:
        raise ValueError(
            "backend: 'cuda' does not run direction-dependent couplings (c+ != c-); "
            "allowed for them: cpu"
        )


def enumerate_batch(
    systems: Systems,
    starts,
    rule,
    what: int = codes.WHAT_ALL,
    *,
    parallel: bool = True,
    l4_per_system: int = batch.L4_PER_SYSTEM,
    threads: int | None = None,
) -> batch.EnumerationOutput:
    """``batch.enumerate_batch`` with its ``transitions`` group (``what & WHAT_TRANSITIONS``)
    computed on the GPU, one block of ``threads`` threads per system (default
    :data:`ENUMERATION_THREADS`, :data:`SIMULATOR_THREADS` in the simulator); the other
    groups of ``what`` on the CPU (``parallel`` as there). The same output, bit for bit."""
    if threads is None:
        threads = SIMULATOR_THREADS if simulated() else ENUMERATION_THREADS
    rest = int(what) & ~codes.WHAT_TRANSITIONS
    n, N = systems.h_plus.shape
    if rest or not what & codes.WHAT_TRANSITIONS:
        out = batch.enumerate_batch(
            systems, starts, rule, rest, parallel=parallel, l4_per_system=l4_per_system
        )
        if not what & codes.WHAT_TRANSITIONS:
            return out
        columns = out.columns.array
        gap = out.gap_fraction
    else:
        columns = np.zeros((n, len(codes.ENUMERATION_COLUMNS)), np.int64)
        gap = np.zeros(n)
    sums, lengths, elements, l4_state, l4_mask = transitions_on_gpu(
        systems, rule, l4_per_system, threads
    )
    from hyst.kernels import cuda_state_table as k

    columns[:, codes.E_N_TRANSITIONS] = sums[:, k.S_TRANSITIONS]
    columns[:, codes.E_N_SELF_LOOP_TRANSITIONS] = sums[:, k.S_SELF_LOOP_TRANSITIONS]
    columns[:, codes.E_N_ILL_DEFINED_TRANSITIONS] = sums[:, k.S_ILL_DEFINED_TRANSITIONS]
    columns[:, codes.E_RACE_IN_TRANSITIONS] = sums[:, k.S_RACE]
    columns[:, codes.E_N_DISTINCT_LOOPS] = sums[:, k.S_DISTINCT_LOOPS]
    columns[:, codes.E_TIES] += sums[:, k.S_TIES]
    return batch.EnumerationOutput(
        batch.Columns(columns, codes.ENUMERATION_COLUMNS),
        gap,
        lengths,
        elements,
        l4_state,
        l4_mask,
        sums[:, k.S_L4].copy(),
    )


def transitions_on_gpu(systems: Systems, rule, l4_per_system: int, threads: int):
    """Launch ``cuda_state_table.transitions_kernel`` on a batch: (per-system sums
    (``cuda_state_table.SUM_ROWS``), L histogram (2^N + 1), n_e histogram (N + 1), l4_state,
    l4_mask)."""
    from numba import cuda

    from hyst.kernels import cuda_state_table as k

    n, N = systems.h_plus.shape
    if not 1 <= N <= k.MAX_N:
        raise ValueError(f"N: {N} is not allowed for the CUDA enumeration (N <= {k.MAX_N})")
    if threads < 1 or threads > k.THREADS or threads & (threads - 1):
        raise ValueError(f"threads: {threads} is not allowed (a power of two <= {k.THREADS})")
    _check_not_directed(systems)
    kb = systems.kernel_batch(dense=True)
    n_states = 1 << N
    per_block = 8 * (n_states * (N + 3) + 2 * n_states * len(k.LOOP_RECORD))
    blocks = max(1, min(n, ENUMERATION_MEMORY // per_block))
    K = l4_per_system
    sums = cuda.device_array((n, len(k.SUM_ROWS)), np.int64)
    lengths = cuda.to_device(np.zeros(n_states + 1, np.int64))
    elements = cuda.to_device(np.zeros(N + 1, np.int64))
    l4_state = cuda.to_device(np.zeros((n, K), np.int64))
    l4_mask = cuda.to_device(np.zeros((n, K), np.int64))
    kernel = k.build()[blocks, threads]
    with LAUNCH, simulator_pace():
        kernel(
            cuda.to_device(np.ascontiguousarray(kb.h_plus)),
            cuda.to_device(np.ascontiguousarray(kb.h_minus)),
            cuda.to_device(np.ascontiguousarray(kb.couplings)),
            kb.form == codes.FORM_DENSE_T,
            rule_code(rule),
            cuda.device_array((blocks, n_states, N), np.int64),
            cuda.device_array((blocks, n_states), np.int64),
            cuda.device_array((blocks, n_states), np.int64),
            cuda.device_array((blocks, n_states), np.int64),
            cuda.device_array((blocks, 2 * n_states, len(k.LOOP_RECORD)), np.int64),
            sums,
            lengths,
            elements,
            l4_state,
            l4_mask,
            cuda.to_device(unit_flip_times(N)[0]),
        )
    return tuple(a.copy_to_host() for a in (sums, lengths, elements, l4_state, l4_mask))


def any_self_loop_batch(
    systems: Systems,
    rule,
    *,
    reachable_cap: int = codes.SEARCH_REACHABLE_CAP,
    block: int | None = None,
    most_threads: int | None = None,
) -> batch.Columns:
    """``batch.any_self_loop_batch`` on the GPU: the CPU's search, one system per thread
    (``block`` threads per block, at most ``most_threads`` at once; defaults
    :data:`SEARCH_BLOCK` and :data:`SEARCH_THREADS`, one block of
    :data:`SIMULATOR_THREADS` in the simulator). The same columns
    (``codes.SEARCH_COLUMNS``), bit for bit."""
    sim = simulated()
    if block is None:
        block = SIMULATOR_THREADS if sim else SEARCH_BLOCK
    if most_threads is None:
        most_threads = SIMULATOR_THREADS if sim else SEARCH_THREADS
    from numba import cuda

    from hyst.kernels import cuda_self_loops
    from hyst.kernels.self_loop_search import table_size

    N = systems.N
    if not 2 <= N <= codes.SEARCH_BITMASK_MAX_N:
        raise ValueError(
            f"N: {N} is not allowed for the self-loop search (2 <= N <= "
            f"{codes.SEARCH_BITMASK_MAX_N})"
        )
    if not isinstance(reachable_cap, int | np.integer) or reachable_cap < 0:
        raise ValueError(f"reachable_cap: {reachable_cap!r} is not allowed (an integer >= 0)")
    n = systems.samples
    _check_not_directed(systems)
    kb = systems.kernel_batch(dense=True)
    t = min(n, most_threads)
    size = int(table_size(int(reachable_cap)))

    def work(*shape):  # the thread index last: a warp's reads of one word coalesce
        return cuda.device_array((*shape, t), np.int64)

    out = cuda.device_array((n, len(codes.SEARCH_COLUMNS)), np.int64)
    kernel = cuda_self_loops.build()[-(-t // block), block]
    with LAUNCH, simulator_pace():
        kernel(
            cuda.to_device(np.ascontiguousarray(kb.h_plus)),
            cuda.to_device(np.ascontiguousarray(kb.h_minus)),
            cuda.to_device(np.ascontiguousarray(kb.couplings)),
            kb.form == codes.FORM_DENSE_T,
            rule_code(rule),
            int(reachable_cap),
            work(N, N),
            work(N, N),
            work(N),
            work(N + 1, N),
            work(N + 1, N),
            work(N + 1),
            work(N + 1),
            work(N + 1),
            work(N + 1),
            work(N),
            work(N),
            work(size),
            work(size),
            cuda.to_device(np.full((size, t), -1, np.int64)),
            work(max(int(reachable_cap), 1)),
            cuda.to_device(np.zeros((8, t), np.int64)),
            out,
            cuda.to_device(unit_flip_times(N)[0]),
        )
    return batch.Columns(out.copy_to_host(), codes.SEARCH_COLUMNS)
