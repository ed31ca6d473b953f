"""Exact P_sl alone, without the 2^N state table (bitmask states, N ≤ 62).

Only ``@jit`` functions over plain int64 arrays live here. Parameters are in
units of ``hyst.model.systems.QUANTUM``; a field is ``(Hc, eps)`` meaning Hc + eps·0⁺;
see :mod:`hyst.model.systems` for the conventions. Outcome, rule and output-column
codes are the names of :mod:`hyst.kernels.codes` (``SEARCH_COLUMNS``).

Question answered per system, with exactly the definitions of the
``transitions`` group of :mod:`hyst.kernels.state_table`: does some transition
out of some potentially stable state S (H^−(S) < H^+(S)), H → H^+(S) + 0⁺ or
H → H^−(S) − 0⁺ (when finite), end in a self-loop under the rule? Two phases,
stopping at the first self-loop:

1. *Reachable search.* Breadth first from the saturated states (all down, all
   up): relax both transitions out of each state and queue every new stable end
   state (a state stable at H^±(S) ± 0⁺ is potentially stable). At most ``cap``
   states are queued; most systems with self-loops have one here.
2. *Complete search.* Depth first over partial spin assignments. With the
   spins of a set A fixed, the local field of element i is
   f_i = Σ_{j∈A} c_ij s_j + Σ_{j∉A} c_ij s_j, the free part within ±R_i,
   R_i = Σ_{j∉A} |c_ij|, so every completion has
   H^−(S) ≥ LB = max_{i∈A, s_i=+1} (h_i^− − f_i^A − R_i) and
   H^+(S) ≤ UB = min_{i∈A, s_i=−1} (h_i^+ − f_i^A + R_i).
   LB ≥ UB prunes the whole subcube (no completion is potentially stable); a
   free element j that could be up only if h_j^− − f_j^A − R_j < UB, and down
   only if h_j^+ − f_j^A + R_j > LB, is forced (one child) or, if neither,
   prunes the subcube. The critical pair (i* attaining LB, k* attaining UB)
   is also bounded jointly: every completion has H_k*^+ − H_i*^− ≤
   h_k*^+ − h_i*^− − (f_k*^A − f_i*^A) + Σ_{j∉A} |c_k*j − c_i*j|; a value ≤ 0
   prunes (several times fewer nodes for correlated couplings such as
   ferromagnetic ones). Every potentially stable state is met exactly once as a
   leaf (R = 0, so LB = H^−(S) and UB = H^+(S) exactly); its two transitions are
   relaxed unless phase 1 already did.

Relaxations update the local fields in O(N) per flip from the leaf's (or a
from-scratch O(N^2)) fields, and detect cycles with Brent's algorithm: a
self-loop is a revisited state, found exactly by state comparison, without
visit tables and without an iteration cap. Step semantics (margins, the rule's
element, lowest index on equal winning margins, ties counted) are those of
``state_table.step``.

Memory per worker thread (``workspace``): 8 bytes × (4 N² + 9 N + 12) for the
couplings, the search stack and the fields (20 KiB at N = 24), plus 8 bytes ×
7 cap for the reachable search (cap = 1024: 56 KiB), whatever the number of
states: 76 KiB at N = 24, 0.2 MiB at N = 62.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from hyst.kernels import rules
from hyst.kernels.codes import (
    FORM_DENSE_T,
    FOUND_COMPLETE,
    FOUND_REACHABLE,
    ILL_DEFINED,
    INF,
    OFFSET,
    RULE_0,
    RULE_1,
    RULE_2,
    RULE_TAU,
    SELF_LOOP,
    SR_FOUND_BY,
    SR_POTENTIALLY_STABLE_SEARCHED,
    SR_REACHABLE_STATES,
    SR_SEARCH_NODES,
    SR_SELF_LOOP,
    SR_TIES,
    SR_WALKS,
    STABLE,
)
from hyst.kernels.dense_couplings import add_row
from hyst.kernels.jit import batch_kernel, jit

#: Multiplier of the reachable search's hash (Fibonacci hashing).
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


@jit
def table_size(cap):
    """Slots of the reachable search's hash table: a power of two ≥ 2 cap (load ≤ 1/2)."""
    size = 16
    while size < 2 * cap:
        size *= 2
    return size


class SearchWork(NamedTuple):
    """Work arrays of one thread (``workspace``), handed to the search as one group.

    couplings[j, i] = c_ij and magnitudes = |c_ij| (N, N); order (N), the branching order;
    per depth of the complete search: fields (N + 1, N), the fixed part of the local
    fields, reserve (N + 1, N), R_i, spins and assigned (N + 1), the spin bits and the
    assigned mask, branch (N + 1), the branching element, untried (N + 1), its untried
    values (bit 0 down, bit 1 up); f_state, f_walk (N), the local fields of a state and
    along a relaxation; keys, slots, stamps (a power of two ≥ 2 cap), the reachable
    search's hash table (state, queue index, sample generation); queue (cap); scalars (8),
    [generation, tallies of the current sample].
    """

    couplings: np.ndarray
    magnitudes: np.ndarray
    order: np.ndarray
    fields: np.ndarray
    reserve: np.ndarray
    spins: np.ndarray
    assigned: np.ndarray
    branch: np.ndarray
    untried: np.ndarray
    f_state: np.ndarray
    f_walk: np.ndarray
    keys: np.ndarray
    slots: np.ndarray
    stamps: np.ndarray
    queue: np.ndarray
    scalars: np.ndarray


@jit
def workspace(N, cap):
    """The ``SearchWork`` of one thread for systems of N elements."""
    size = table_size(cap)
    return SearchWork(
        np.empty((N, N), np.int64),
        np.empty((N, N), np.int64),
        np.empty(N, np.int64),
        np.empty((N + 1, N), np.int64),
        np.empty((N + 1, N), np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N, np.int64),
        np.empty(N, np.int64),
        np.empty(size, np.int64),
        np.empty(size, np.int64),
        np.full(size, -1, np.int64),
        np.empty(max(cap, 1), np.int64),
        np.zeros(8, np.int64),
    )


@jit
def prepare_system(c, transposed, ct, act, order):
    """Transposed couplings ct[j, i] = c_ij, act = |ct|, and the branching order:
    elements by decreasing Σ_i |c_ij| (fixing them first narrows the bounds most).
    c[i, j] = c_ij, or c[j, i] = c_ij when ``transposed``."""
    N = c.shape[0]
    weight = np.empty(N, np.int64)
    for j in range(N):
        weight[j] = 0
    if transposed:  # c is already ct: copy it row by row
        for j in range(N):
            for i in range(N):
                ct[j, i] = c[j, i]
    else:
        for i in range(N):
            for j in range(N):
                ct[j, i] = c[i, j]
    for j in range(N):
        for i in range(N):
            v = ct[j, i]
            a = v if v >= 0 else -v
            act[j, i] = a
            weight[j] += a
    idx = np.argsort(-weight, kind="mergesort")
    for k in range(N):
        order[k] = idx[k]


@jit(borrow=True)
def state_fields(S, ct, f):
    """f_i = Σ_j c_ij s_j of bitmask state S (O(N²))."""
    N = f.shape[0]
    for i in range(N):
        f[i] = 0
    for j in range(N):
        add_row(f, ct, j, np.int64(1) if (S >> j) & 1 else np.int64(-1))


@jit(borrow=True)
def state_thresholds(S, hp, hm, f):
    """(H^+(S), H^−(S)) from the local fields (INF / −INF when empty)."""
    N = hp.shape[0]
    up = INF
    dn = -INF
    for i in range(N):
        bit = (S >> i) & 1
        fi = f[i]
        up = min(up, hp[i] - fi + bit * OFFSET)
        dn = max(dn, hm[i] - fi - (1 - bit) * OFFSET)
    return up, dn


@jit(borrow=True)
def relax_fields(S, Hc, eps, rule, hp, hm, ct, f, tau):
    """Relax state S at field (Hc, eps) under ``rule``; ``f`` holds the local fields of
    S on entry and of the last state on return; tau (N,) the flip times (positive
    integers) that the flip-time rule reads.

    Steps as ``state_table.step``: the margins and the rule's choice are those of
    :mod:`hyst.kernels.rules` (rule 1 flips the largest margin, 1p the smallest positive
    one, lowest index on equal margins, counted as a tie; rule 2 all unstable elements,
    rule 0 the only one, more than one: ill-defined). Self-loops (a revisited state) are
    detected exactly with Brent's algorithm. Returns (outcome, last state, ties).
    """
    N = hp.shape[0]
    ties = 0
    tortoise = S
    power = 1
    lam = 0
    while True:
        if rule == RULE_TAU:
            n_u, chosen, t = rules.scan_tau(S, f, hp, hm, Hc, eps, tau)
            acc = rules.start(RULE_1)
        else:
            acc = rules.start(rule)
            for i in range(N):
                m = rules.margin((S >> i) & 1, f[i], hp[i], hm[i], Hc, eps)
                acc = rules.tally(acc, i, m, rule)
            n_u, chosen, t = rules.choose(rule, acc)
        ties += t
        if n_u == 0:
            return STABLE, S, ties
        if rule == RULE_0 and n_u > 1:
            return ILL_DEFINED, S, ties
        flips = rules.unstable(acc) if rule == RULE_2 else np.int64(1) << chosen
        todo = flips
        while todo:
            j = 0
            while not (todo >> j) & 1:
                j += 1
            todo ^= np.int64(1) << j
            add_row(f, ct, j, np.int64(-2) if (S >> j) & 1 else np.int64(2))  # up -> down: −2
        S ^= flips
        if S == tortoise:
            return SELF_LOOP, S, ties
        lam += 1
        if lam == power:
            tortoise = S
            power *= 2
            lam = 0


@jit(borrow=True)
def table_find(S, keys, stamps, gen, size):
    """Slot of state S in the hash table of generation ``gen`` (or the empty slot
    where it would go)."""
    h = (np.uint64(S) * HASH_MULTIPLIER) >> np.uint64(64 - table_bits(size))
    k = np.int64(h)
    while stamps[k] == gen and keys[k] != S:
        k = (k + 1) & (size - 1)
    return k


@jit(borrow=True)
def table_bits(size):
    """The number of bits b with 2^b >= ``size``: the bits of a hash-table index of that size."""
    b = 0
    while (1 << b) < size:
        b += 1
    return b


@jit(borrow=True)
def transitions_of_state(S, f_state, hp, hm, ct, f_walk, rule, res, tau):
    """Relax both transitions out of potentially stable S (local fields f_state; f_walk is a
    work array).

    res[0] walks, res[1] ties are accumulated; res[2], res[3] receive the
    stable end states of the up and down transitions (−1 if none). Returns True
    on a self-loop.
    """
    N = hp.shape[0]
    up, dn = state_thresholds(S, hp, hm, f_state)
    res[2] = -1
    res[3] = -1
    for direction in range(2):
        if direction == 0:
            if up >= INF:
                continue
            Hc = up
            eps = 1
        else:
            if dn <= -INF:
                continue
            Hc = dn
            eps = -1
        for i in range(N):
            f_walk[i] = f_state[i]
        oc, T, t = relax_fields(S, Hc, eps, rule, hp, hm, ct, f_walk, tau)
        res[0] += 1
        res[1] += t
        if oc == SELF_LOOP:
            return True
        if oc == STABLE:
            res[2 + direction] = T
    return False


@jit(borrow=True)
def reachable_search(hp, hm, rule, cap, ws, gen, res, tau):
    """Phase 1: breadth first from the saturated states over stable end states.

    Returns (found, processed, queued): the states queue[:processed] had both
    transitions relaxed (of ``queued`` states); keys/slots of generation ``gen`` map
    a state to its queue index. res[0] walks and res[1] ties are accumulated.
    """
    ct, f_state, f_walk = ws.couplings, ws.f_state, ws.f_walk
    keys, slots, stamps, queue = ws.keys, ws.slots, ws.stamps, ws.queue
    N = hp.shape[0]
    size = keys.shape[0]
    count = 0
    if cap > 0:
        for S in (np.int64(0), (np.int64(1) << N) - 1):
            k = table_find(S, keys, stamps, gen, size)
            stamps[k] = gen
            keys[k] = S
            slots[k] = count
            queue[count] = S
            count += 1
    head = 0
    while head < count:
        S = queue[head]
        state_fields(S, ct, f_state)
        if transitions_of_state(S, f_state, hp, hm, ct, f_walk, rule, res, tau):
            return True, head, count
        for d in range(2):
            T = res[2 + d]
            if T >= 0 and count < cap:
                k = table_find(T, keys, stamps, gen, size)
                if stamps[k] != gen:
                    stamps[k] = gen
                    keys[k] = T
                    slots[k] = count
                    queue[count] = T
                    count += 1
        head += 1
    return False, head, count


@jit(borrow=True)
def complete_search(hp, hm, rule, ws, gen, processed, res, tau):
    """Phase 2: every potentially stable state by a pruned depth-first search; relax
    the transitions of those not processed by phase 1. Returns True on a self-loop.

    res[0] walks and res[1] ties are accumulated; res[4] search nodes and res[5]
    potentially stable states met are set.
    """
    ct, act, order, f_walk = ws.couplings, ws.magnitudes, ws.order, ws.f_walk
    fstk, rstk, bstk, astk, var, opts = (
        ws.fields,
        ws.reserve,
        ws.spins,
        ws.assigned,
        ws.branch,
        ws.untried,
    )
    keys, slots, stamps = ws.keys, ws.slots, ws.stamps
    N = hp.shape[0]
    size = keys.shape[0]
    full = (np.int64(1) << N) - 1
    for i in range(N):
        fstk[0, i] = 0
        acc = np.int64(0)
        for j in range(N):
            acc += act[j, i]
        rstk[0, i] = acc
    bstk[0] = 0
    astk[0] = 0
    nodes = 0
    n_ps = 0
    d = 0
    while True:
        # evaluate the node at depth d
        nodes += 1
        f = fstk[d]
        R = rstk[d]
        bits = bstk[d]
        assigned = astk[d]
        lb = -INF  # lower bound on H^-(S)
        ub = INF  # upper bound on H^+(S)
        istar = -1
        kstar = -1
        for i in range(N):
            a = (assigned >> i) & 1
            b = (bits >> i) & 1
            is_up = a & b
            is_dn = a & (1 - b)
            vlb = hm[i] - f[i] - R[i] - (1 - is_up) * OFFSET
            vub = hp[i] - f[i] + R[i] + (1 - is_dn) * OFFSET
            if vlb > lb:
                lb = vlb
                istar = i
            if vub < ub:
                ub = vub
                kstar = i
        opts[d] = 0
        if lb < ub and istar >= 0 and kstar >= 0 and assigned != full:
            # the critical pair (i* up, k* down) bounded jointly: the free spins move
            # f_k* − f_i* by at most Σ_free |c_k*j − c_i*j| (tighter than R_k* + R_i*)
            gap = hp[kstar] - hm[istar] - (f[kstar] - f[istar])
            for j in range(N):
                x = ct[j, kstar] - ct[j, istar]
                x = x if x >= 0 else -x
                gap += x * (1 - ((assigned >> j) & 1))
            if gap <= 0:  # H^+_k*(S) ≤ H^-_i*(S) in every completion
                lb = ub
        if lb < ub:
            if assigned == full:
                n_ps += 1
                S = bits
                done = False
                if processed > 0:
                    k = table_find(S, keys, stamps, gen, size)
                    done = stamps[k] == gen and slots[k] < processed
                if not done:
                    if transitions_of_state(S, f, hp, hm, ct, f_walk, rule, res, tau):
                        res[4] = nodes
                        res[5] = n_ps
                        return True
            else:
                forced = -1
                forced_opts = 0
                free = -1
                feasible = True
                for k in range(N):
                    j = order[k]
                    if (assigned >> j) & 1:
                        continue
                    can_dn = hp[j] - f[j] + R[j] > lb
                    can_up = hm[j] - f[j] - R[j] < ub
                    o = np.int64(can_dn) | (np.int64(can_up) << 1)
                    if o == 0:
                        feasible = False
                        break
                    if o != 3 and forced < 0:
                        forced = j
                        forced_opts = o
                    if free < 0:
                        free = j
                if feasible:
                    if forced >= 0:
                        var[d] = forced
                        opts[d] = forced_opts
                    else:
                        var[d] = free
                        opts[d] = 3
        # advance: the next untried value at the deepest level that has one
        while d >= 0 and opts[d] == 0:
            d -= 1
        if d < 0:
            break
        o = opts[d]
        if o & 1:
            v = 0
            opts[d] = o & 2
        else:
            v = 1
            opts[d] = 0
        j = var[d]
        row = ct[j]
        arow = act[j]
        fa = fstk[d]
        ra = rstk[d]
        fb = fstk[d + 1]
        rb = rstk[d + 1]
        if v:
            for i in range(N):
                fb[i] = fa[i] + row[i]
                rb[i] = ra[i] - arow[i]
        else:
            for i in range(N):
                fb[i] = fa[i] - row[i]
                rb[i] = ra[i] - arow[i]
        bstk[d + 1] = bstk[d] | (np.int64(v) << j)
        astk[d + 1] = astk[d] | (np.int64(1) << j)
        d += 1
    res[4] = nodes
    res[5] = n_ps
    return False


@jit(borrow=True)
def any_self_loop_system(hp, hm, c, transposed, rule, cap, ws, out, tau):
    """P_sl of one system (hp, hm: (N,), c: (N, N), flip times tau: (N,)) with workspace
    ``ws`` from ``workspace(N, cap)``; fills ``out`` (``codes.SEARCH_COLUMNS``)."""
    prepare_system(c, transposed, ws.couplings, ws.magnitudes, ws.order)
    scalars = ws.scalars
    scalars[0] += 1
    gen = scalars[0]
    res = scalars[1:]
    for k in range(res.shape[0]):
        res[k] = 0
    for k in range(out.shape[0]):
        out[k] = 0
    found, processed, queued = reachable_search(hp, hm, rule, cap, ws, gen, res, tau)
    out[SR_REACHABLE_STATES] = queued
    if found:
        out[SR_SELF_LOOP] = 1
        out[SR_FOUND_BY] = FOUND_REACHABLE
    elif complete_search(hp, hm, rule, ws, gen, processed, res, tau):
        out[SR_SELF_LOOP] = 1
        out[SR_FOUND_BY] = FOUND_COMPLETE
    out[SR_WALKS] = res[0]
    out[SR_SEARCH_NODES] = res[4]
    out[SR_POTENTIALLY_STABLE_SEARCHED] = res[5]
    out[SR_TIES] = res[1]


@jit
def any_self_loop_block(b, blocks, systems, rule, cap, out, flip_times):
    """Samples b, b + blocks, b + 2 blocks, ... of ``any_self_loop_batch``."""
    n, N = systems.h_plus.shape
    transposed = systems.form == FORM_DENSE_T
    ws = workspace(N, cap)
    for s in range(b, n, blocks):
        any_self_loop_system(
            systems.h_plus[s],
            systems.h_minus[s],
            systems.couplings[s],
            transposed,
            rule,
            cap,
            ws,
            out[s],
            flip_times[s % flip_times.shape[0]],
        )


@batch_kernel
def any_self_loop_batch(systems, rule, cap, blocks, out, flip_times):
    """Per-sample P_sl of a batch: systems, an ``operands.SystemBatch`` in a dense form
    (FORM_DENSE or FORM_DENSE_T); out (n, ``codes.SEARCH_COLUMNS``); flip_times (n, N) or
    (1, N) positive integers (one row for all), read by the flip-time rule only.

    Samples are dealt in ``blocks`` interleaved blocks, one workspace each (to numba
    threads; the serial twin takes one block).
    """
    for b in prange(blocks):
        any_self_loop_block(np.int64(b), blocks, systems, rule, cap, out, flip_times)
