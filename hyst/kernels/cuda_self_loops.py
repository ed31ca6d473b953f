"""The self-loop search (P_sl alone, group any_self_loop) on a CUDA GPU: one thread per
system, the search itself the CPU's (numba-cuda; also in numba's CUDA simulator).

The search of :mod:`hyst.kernels.self_loop_search` (a breadth-first search from the
saturated states, then a pruned depth-first search over partial spin assignments) is not a
sweep over the 2^N states: it stops at the first self-loop and prunes whole subcubes, and
its counts (transitions relaxed, search nodes, ties, which phase found the loop) are part
of every point's results. Each CUDA thread therefore runs the CPU's own search functions,
compiled for CUDA by :func:`hyst.kernels.cuda_device.device_twins`, on one system at a
time, in a workspace of its own in global memory (the CPU's ``SearchWork``: 76 KiB at
N = 24), laid out with the thread index last so that a warp's reads coalesce. The only
function written again is the preparation of a system (:func:`prepare_system`: the CPU's
uses ``np.argsort``, which CUDA lacks; this one sorts with a stable insertion sort, the
same order). Every column of ``codes.SEARCH_COLUMNS``
is therefore the CPU's, system by system.
"""

from __future__ import annotations

import functools

from numba import cuda, int64

from hyst.kernels import dense_couplings, self_loop_search
from hyst.kernels.cuda_device import device_twins, rule_twins
from hyst.kernels.self_loop_search import SearchWork, any_self_loop_system

#: The search functions of ``self_loop_search`` compiled for CUDA (all it calls per system).
SEARCH_FUNCTIONS = (
    "state_fields",
    "state_thresholds",
    "relax_fields",
    "table_bits",
    "table_find",
    "transitions_of_state",
    "reachable_search",
    "complete_search",
    "any_self_loop_system",
)


def prepare_system(c, transposed, ct, act, order):
    """``self_loop_search.prepare_system`` without ``np.argsort``: ct[j, i] = c_ij,
    act = |ct|, and the branching order, elements by decreasing Σ_i |c_ij|, equal weights in
    index order (a stable insertion sort: the order of the CPU's stable mergesort)."""
    N = c.shape[0]
    weight = cuda.local.array(64, int64)
    for j in range(N):
        weight[j] = 0
    for i in range(N):
        for j in range(N):
            ct[j, i] = c[j, i] if transposed else c[i, j]
    for j in range(N):
        for i in range(N):
            v = ct[j, i]
            a = v if v >= 0 else -v
            act[j, i] = a
            weight[j] += a
    for k in range(N):
        order[k] = k
    for k in range(1, N):
        j = order[k]
        w = weight[j]
        p = k
        while p > 0 and weight[order[p - 1]] < w:
            order[p] = order[p - 1]
            p -= 1
        order[p] = j


def search_kernel(
    h_plus,
    h_minus,
    couplings,
    transposed,
    rule,
    cap,
    ct,
    act,
    order,
    fields,
    reserve,
    spins,
    assigned,
    branch,
    untried,
    f_state,
    f_walk,
    keys,
    slots,
    stamps,
    queue,
    scalars,
    out,
    tau,
):
    """Systems t, t + threads, ... of the batch for the grid's thread t, in its workspace
    (``tau`` (N,): the flip times the search takes, read by the flip-time rule only, which
    this kernel does not run):
    the arrays after ``cap``, each with the thread as its last index, so that the threads
    of a warp reading the same word of their workspaces read adjacent words of memory (one
    transaction, where the workspaces one after the other would take one each). out[s] =
    ``codes.SEARCH_COLUMNS`` of system s."""
    t = cuda.grid(1)
    if t >= ct.shape[2]:
        return
    ws = SearchWork(
        ct[:, :, t],
        act[:, :, t],
        order[:, t],
        fields[:, :, t],
        reserve[:, :, t],
        spins[:, t],
        assigned[:, t],
        branch[:, t],
        untried[:, t],
        f_state[:, t],
        f_walk[:, t],
        keys[:, t],
        slots[:, t],
        stamps[:, t],
        queue[:, t],
        scalars[:, t],
    )
    threads = ct.shape[2]
    for s in range(t, h_plus.shape[0], threads):
        any_self_loop_system(
            h_plus[s], h_minus[s], couplings[s], transposed, rule, cap, ws, out[s], tau
        )


@functools.cache
def build():
    """The CUDA kernel ``search_kernel``, compiled (lazily, at its first launch) from the
    CPU's search functions and :func:`prepare_system`."""
    import sys

    rules_cuda, _book = rule_twins()
    rows = device_twins(dense_couplings, ("add_row",))
    mine = device_twins(sys.modules[__name__], ("prepare_system",))
    search = device_twins(
        self_loop_search,
        SEARCH_FUNCTIONS,
        rules=rules_cuda,
        add_row=rows.add_row,
        prepare_system=mine.prepare_system,
    )
    kernel = device_twins(
        sys.modules[__name__],
        (),
        kernels=("search_kernel",),
        any_self_loop_system=search.any_self_loop_system,
    )
    return kernel.search_kernel
