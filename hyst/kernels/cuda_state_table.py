"""The enumeration's P_sl transitions on a CUDA GPU: one thread block per system, the 2^N
states over its threads (numba-cuda; also in numba's CUDA simulator).

What it computes is the ``transitions`` part of ``state_table.enumerate_observables``, per
system and bit for bit: every up and down transition H → H^±(S) ± 0⁺ out of every
potentially stable state S (H^−(S) < H^+(S)) relaxed under the rule, counted (transitions,
self-loops, ill-defined ones, a race met, ties), the distinct self-loops among them
(identified, as on the CPU, by their smallest state, L and the sum of their states) in
histograms of L and n_e, and the first ``K`` distinct L = 4 loops of two elements in the
CPU's order (by state, then up before down).

A block of ``width`` threads (a power of two, at most :data:`THREADS`) takes a system:

1. each thread fills the state table F[S, i] = Σ_j c_ij s_j, H^+(S), H^−(S) for a
   contiguous range of Gray-code indices (one flip, O(N) per state, exactly as the CPU);
2. each thread relaxes both transitions of the states of its own range: the step and the
   record are the CPU's own definitions (``state_table.step``, :mod:`hyst.kernels.rules`,
   :mod:`hyst.kernels.bookkeeping`, compiled for CUDA by
   :func:`hyst.kernels.cuda_device.device_twins`); a self-loop is found with Brent's
   algorithm instead of the CPU's per-state visit stamps (which concurrent walks cannot
   share), then the walk is replayed to the first repeated state, so that its record (ties,
   race) is the CPU's;
3. a transition's loop is new when no earlier transition (in the CPU's order) ended in the
   same loop: the earliest transition per smallest state comes from an atomic minimum, the
   rare loops that share a smallest state with another are compared one by one;
4. the per-thread counts are summed per system in shared memory (a tree reduction,
   :func:`block_sums`), and an exclusive prefix sum over the threads places each thread's
   new L = 4 loops in the CPU's order.

Integer sums in any order are exact, so the result is the CPU's whatever the block width.
The kernels are compiled from this module's Python functions by :func:`build` (numba-cuda is
imported here, so this module is imported only when the CUDA backend runs).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import cuda, int64

from hyst.kernels import bookkeeping, state_table
from hyst.kernels.codes import ILL_DEFINED, INF, MOVED, OFFSET, SELF_LOOP
from hyst.kernels.cuda_device import device_twins, rule_twins
from hyst.kernels.state_table import ctz, cycle_key, step

#: Most threads per block (the shared arrays are sized for it); a power of two.
THREADS = 128
#: Largest N of this kernel (the local-field work array of a thread is this long).
MAX_N = 24
#: Per-thread sums reduced per system, in this order (rows of the shared array).
SUM_ROWS = (
    "transitions",
    "self_loop_transitions",
    "ill_defined_transitions",
    "race",
    "ties",
    "distinct_loops",
    "l4",
)
#: Rows of the shared array of per-thread sums.
N_SUMS = len(SUM_ROWS)
(
    S_TRANSITIONS,
    S_SELF_LOOP_TRANSITIONS,
    S_ILL_DEFINED_TRANSITIONS,
    S_RACE,
    S_TIES,
    S_DISTINCT_LOOPS,
    S_L4,
) = range(len(SUM_ROWS))
#: Columns of a transition's loop record: smallest state, L, sum of states, n_e, flipping
#: elements, and whether it is the first transition into this loop.
LOOP_RECORD = ("cycle_min", "L", "cycle_sum", "n_e", "flip_mask", "new")
LR_CYCLE_MIN, LR_L, LR_CYCLE_SUM, LR_N_E, LR_FLIP_MASK, LR_NEW = range(len(LOOP_RECORD))
#: The "no transition yet" value of the earliest transition per smallest state.
NO_TRANSITION = np.int64(2**62)


def fill_states(hp, hm, c, transposed, lo, hi, F, up, down, first):
    """Fill the state table of the Gray-code indices k in [lo, hi) of one system (F[S, i],
    H^+(S), H^−(S) as ``state_table.fill_state_table``) and reset first[S]."""
    N = hp.shape[0]
    if lo >= hi:
        return
    f = cuda.local.array(MAX_N, int64)
    g = lo ^ (lo >> 1)
    for i in range(N):
        acc = int64(0)
        for j in range(N):
            cij = c[j, i] if transposed else c[i, j]
            acc += cij if (g >> j) & 1 else -cij
        f[i] = acc
    for k in range(lo, hi):
        if k > lo:
            j = ctz(k)
            g ^= 1 << j
            sgn = 2 * ((g >> j) & 1) - 1
            for i in range(N):
                cij = c[j, i] if transposed else c[i, j]
                f[i] += sgn * 2 * cij
        u = INF
        d = -INF
        for i in range(N):
            fi = f[i]
            F[g, i] = fi
            bit = (g >> i) & 1
            u = min(u, hp[i] - fi + bit * OFFSET)
            d = max(d, hm[i] - fi - (1 - bit) * OFFSET)
        up[g] = u
        down[g] = d
        first[g] = NO_TRANSITION


def next_state(S, Hc, eps, rule, hp, hm, F, up, down, tau):
    """The state after one step from S (a state that moves)."""
    return step(S, Hc, eps, rule, hp, hm, F, up, down, tau)[0]


def walk_transition(S0, Hc, eps, rule, hp, hm, F, up, down, tau):
    """Relax from S0 at (Hc, eps) as ``state_table.walk`` does, without visit stamps.

    Returns (outcome, ties, race, L, n_e, cycle_min, cycle_sum, flip_mask): the record of
    ``state_table.walk`` up to its stop. A self-loop is found by Brent's algorithm (cycle
    length L), its first repeated state by the tail length mu, and the record is replayed
    for the mu + L steps the CPU walk makes before it meets a state again."""
    book = bookkeeping.begin(0)
    S = S0
    tortoise = S0
    power = 1
    lam = 0
    while True:
        S2, n_u, nf, t, code = step(S, Hc, eps, rule, hp, hm, F, up, down, tau)
        book = bookkeeping.scanned(book, n_u, t)
        if code != MOVED:
            return code, book[3], book[2], 0, 0, 0, 0, 0
        S = S2
        book = bookkeeping.moved(book, nf)
        lam += 1
        if S == tortoise:
            break
        if lam == power:
            tortoise = S
            power *= 2
            lam = 0
    # the tail: mu steps to the first state that repeats
    a = S0
    b = S0
    for _ in range(lam):
        b = next_state(b, Hc, eps, rule, hp, hm, F, up, down, tau)
    mu = 0
    while a != b:
        a = next_state(a, Hc, eps, rule, hp, hm, F, up, down, tau)
        b = next_state(b, Hc, eps, rule, hp, hm, F, up, down, tau)
        mu += 1
    # the record of the CPU walk: mu + lam steps, then the step onto a visited state
    book = bookkeeping.begin(0)
    S = S0
    for _ in range(mu + lam):
        S2, n_u, nf, t, code = step(S, Hc, eps, rule, hp, hm, F, up, down, tau)
        book = bookkeeping.scanned(book, n_u, t)
        S = S2
        book = bookkeeping.moved(book, nf)
    L = bookkeeping.loop_length(book, mu)
    cmin = S
    csum = int64(0)
    fmask = int64(0)
    x = S
    for _ in range(L):
        x2 = next_state(x, Hc, eps, rule, hp, hm, F, up, down, tau)
        fmask |= x ^ x2
        csum += cycle_key(x | (x2 << 32))  # the edge x -> x2, as the CPU's walk keys it
        cmin = min(cmin, x)
        x = x2
    return SELF_LOOP, book[3], book[2], L, bookkeeping.elements_flipping(fmask), cmin, csum, fmask


def loop_is_new(loops, first, k):
    """Whether transition k's loop was met by no earlier transition (the CPU's order)."""
    cmin = loops[k, LR_CYCLE_MIN]
    k0 = first[cmin]
    if k0 == k:
        return True
    L = loops[k, LR_L]
    csum = loops[k, LR_CYCLE_SUM]
    for q in range(k0, k):
        same_min = loops[q, LR_CYCLE_MIN] == cmin
        if loops[q, LR_L] == L and same_min and loops[q, LR_CYCLE_SUM] == csum:
            return False
    return True


def block_sums(partial, tid, width):
    """Sum every row of partial[:, :width] into its column 0: a tree reduction in shared
    memory (width a power of two), with a barrier per level."""
    stride = width // 2
    while stride > 0:
        if tid < stride:
            for r in range(partial.shape[0]):
                partial[r, tid] += partial[r, tid + stride]
        cuda.syncthreads()
        stride //= 2


def transitions_kernel(
    h_plus,
    h_minus,
    couplings,
    transposed,
    rule,
    F_all,
    up_all,
    down_all,
    first_all,
    loops_all,
    sums,
    lengths,
    elements,
    l4_state,
    l4_mask,
    tau,
):
    """Systems blockIdx.x, blockIdx.x + gridDim.x, ... (one block each, its tables in slot
    blockIdx.x of the work arrays; ``tau`` (N,) the flip times that ``state_table.step``
    takes, read by the flip-time rule only, which this kernel does not run): sums[s]
    (:data:`SUM_ROWS`), the loop histograms
    lengths[L] and elements[n_e] (added atomically over the batch), l4_state[s], l4_mask[s]
    (the first K distinct L = 4 loops of two elements)."""
    partial = cuda.shared.array((N_SUMS, THREADS), int64)
    offsets = cuda.shared.array(THREADS, int64)
    tid = cuda.threadIdx.x
    width = cuda.blockDim.x
    slot = cuda.blockIdx.x
    n = h_plus.shape[0]
    N = h_plus.shape[1]
    n_states = 1 << N
    per = (n_states + width - 1) // width
    lo = min(tid * per, n_states)
    hi = min(lo + per, n_states)
    F = F_all[slot]
    up = up_all[slot]
    down = down_all[slot]
    first = first_all[slot]
    loops = loops_all[slot]
    K = l4_state.shape[1]
    for s in range(slot, n, cuda.gridDim.x):
        hp = h_plus[s]
        hm = h_minus[s]
        fill_states(hp, hm, couplings[s], transposed, lo, hi, F, up, down, first)
        cuda.syncthreads()
        n_t = 0
        n_loop = 0
        n_ill = 0
        race = 0
        ties = 0
        for S in range(lo, hi):
            for direction in range(2):
                k = 2 * S + direction
                loops[k, LR_L] = 0
                loops[k, LR_NEW] = 0
                if not down[S] < up[S]:
                    continue
                if direction == 0:
                    if up[S] >= INF:
                        continue
                    Hc = up[S]
                    eps = 1
                else:
                    if down[S] <= -INF:
                        continue
                    Hc = down[S]
                    eps = -1
                oc, t, r, L, n_e, cmin, csum, fmask = walk_transition(
                    S, Hc, eps, rule, hp, hm, F, up, down, tau
                )
                n_t += 1
                ties += t
                race |= r
                if oc == ILL_DEFINED:
                    n_ill += 1
                elif oc == SELF_LOOP:
                    n_loop += 1
                    loops[k, LR_CYCLE_MIN] = cmin
                    loops[k, LR_L] = L
                    loops[k, LR_CYCLE_SUM] = csum
                    loops[k, LR_N_E] = n_e
                    loops[k, LR_FLIP_MASK] = fmask
                    cuda.atomic.min(first, cmin, k)
        cuda.syncthreads()
        n_new = 0
        n4 = 0
        for k in range(2 * lo, 2 * hi):
            if loops[k, LR_L] > 0 and loop_is_new(loops, first, k):
                loops[k, LR_NEW] = 1
                n_new += 1
                cuda.atomic.add(lengths, loops[k, LR_L], 1)
                cuda.atomic.add(elements, loops[k, LR_N_E], 1)
                if loops[k, LR_L] == 4 and loops[k, LR_N_E] == 2:
                    n4 += 1
        partial[S_TRANSITIONS, tid] = n_t
        partial[S_SELF_LOOP_TRANSITIONS, tid] = n_loop
        partial[S_ILL_DEFINED_TRANSITIONS, tid] = n_ill
        partial[S_RACE, tid] = race
        partial[S_TIES, tid] = ties
        partial[S_DISTINCT_LOOPS, tid] = n_new
        partial[S_L4, tid] = n4
        offsets[tid] = n4
        cuda.syncthreads()
        if tid == 0:  # exclusive prefix sum of the threads' new L = 4 loops
            run = 0
            for q in range(width):
                v = offsets[q]
                offsets[q] = run
                run += v
        cuda.syncthreads()
        q = offsets[tid]
        for k in range(2 * lo, 2 * hi):
            if loops[k, LR_NEW] == 1 and loops[k, LR_L] == 4 and loops[k, LR_N_E] == 2:
                if q < K:
                    l4_state[s, q] = loops[k, LR_CYCLE_MIN]
                    l4_mask[s, q] = loops[k, LR_FLIP_MASK]
                q += 1
        block_sums(partial, tid, width)
        if tid == 0:
            for r in range(N_SUMS):
                sums[s, r] = partial[r, 0]
            sums[s, S_RACE] = 1 if partial[S_RACE, 0] > 0 else 0
        cuda.syncthreads()  # the slot's tables are free for the block's next system


#: This module's device functions, compiled by :func:`build`.
DEVICE_FUNCTIONS = ("fill_states", "next_state", "walk_transition", "loop_is_new", "block_sums")


@functools.cache
def build():
    """The CUDA kernel ``transitions_kernel``, compiled (lazily, at its first launch) from
    this module's functions, with the CPU's ``state_table.step``, ``state_table.ctz``, rules
    and bookkeeping as device twins."""
    import sys

    rules_cuda, book_cuda = rule_twins()
    table_cuda = device_twins(
        state_table, ("ctz", "step", "cycle_key"), rules=rules_cuda, bookkeeping=book_cuda
    )
    here = device_twins(
        sys.modules[__name__],
        DEVICE_FUNCTIONS,
        kernels=("transitions_kernel",),
        step=table_cuda.step,
        ctz=table_cuda.ctz,
        cycle_key=table_cuda.cycle_key,
        bookkeeping=book_cuda,
    )
    return here.transitions_kernel
