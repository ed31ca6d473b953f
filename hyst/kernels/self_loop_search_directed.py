"""The self-loop search (P_sl alone, group any_self_loop) for direction-dependent couplings
c^+ ≠ c^− (bitmask states, N ≤ 62).

Only ``@jit`` functions over plain int64 arrays live here; units, field pairs (Hc, eps),
outcome, rule and column codes as in :mod:`hyst.kernels.self_loop_search`, whose search
this is, answering the same question with the same two phases and the same step semantics.
An element reads its up threshold H_i^+(S) = h_i^+ − Σ_j c^+_ij s_j while it is down and
its down threshold H_i^−(S) = h_i^− − Σ_j c^−_ij s_j while it is up. The search therefore
carries both fields of every element, f^+_i = Σ_j c^+_ij s_j and f^−_i = Σ_j c^−_ij s_j, in
one vector of 2N entries (f^+ then f^−), which every flip updates from one row of
ct[j] = (c^+_{·j}, c^−_{·j}) (O(N) per flip, as for one matrix); the rules read each
element's own field, f^+_i while s_i = −1 and f^−_i while s_i = +1.

The complete search bounds the free part of each field by its own matrix:
R^±_i = Σ_{j∉A} |c^±_ij|. Every completion of the partial assignment A then has

    H^−(S) ≥ LB = max_{i∈A, s_i=+1} (h_i^− − f^{−A}_i − R^−_i),
    H^+(S) ≤ UB = min_{i∈A, s_i=−1} (h_i^+ − f^{+A}_i + R^+_i),

a free element j can be up only if h_j^− − f^{−A}_j − R^−_j < UB and down only if
h_j^+ − f^{+A}_j + R^+_j > LB, and the critical pair (i* up attaining LB, k* down attaining
UB) has H^+_k* − H^−_i* ≤ h_k*^+ − h_i*^− − (f^{+A}_k* − f^{−A}_i*) + Σ_{j∉A} |c^+_k*j −
c^−_i*j|. With c^+ = c^− these are the bounds of the plain search, which the paper's model
runs (``Systems.directed`` is False there): this module never sees it.

Memory per worker thread: 8 bytes × (8 N² + 14 N + 12) plus the reachable search's table
and queue (as the plain search's).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from hyst.kernels import rules
from hyst.kernels.codes import (
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
from hyst.kernels.self_loop_search import table_find, table_size


class DirectedWork(NamedTuple):
    """Work arrays of one thread (``directed_workspace``) for systems of N elements.

    couplings[j] = (c^+_{0j} … c^+_{N−1,j}, c^−_{0j} … c^−_{N−1,j}) (N, 2N) and magnitudes =
    |couplings|; order (N), the branching order; per depth of the complete search: fields
    (N + 1, 2N), the fixed parts of f^+ and f^−, reserve (N + 1, 2N), R^+ and R^−, spins and
    assigned (N + 1), branch (N + 1), untried (N + 1); f_state, f_walk (2N), both fields of
    a state and along a relaxation; own (N), the field each element's margin reads; keys,
    slots, stamps, queue, scalars: the reachable search's hash table, queue and the tallies
    of the current sample, as in ``self_loop_search.SearchWork``.
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
    own: np.ndarray
    keys: np.ndarray
    slots: np.ndarray
    stamps: np.ndarray
    queue: np.ndarray
    scalars: np.ndarray


@jit
def directed_workspace(N, cap):
    """The ``DirectedWork`` of one thread for systems of N elements."""
    size = table_size(cap)
    return DirectedWork(
        np.empty((N, 2 * N), np.int64),
        np.empty((N, 2 * N), np.int64),
        np.empty(N, np.int64),
        np.empty((N + 1, 2 * N), np.int64),
        np.empty((N + 1, 2 * N), np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(N + 1, np.int64),
        np.empty(2 * N, np.int64),
        np.empty(2 * N, np.int64),
        np.empty(N, np.int64),
        np.empty(size, np.int64),
        np.empty(size, np.int64),
        np.full(size, -1, np.int64),
        np.empty(max(cap, 1), np.int64),
        np.zeros(8, np.int64),
    )


@jit
def prepare_directed(c, ct, act, order):
    """ct[j, i] = c^+_ij and ct[j, N + i] = c^−_ij from c (2N, N) = c^+ stacked over c^−
    (``FORM_DIRECTED``), act = |ct|, and the branching order: elements by decreasing
    Σ_i (|c^+_ij| + |c^−_ij|) (fixing them first narrows the bounds most)."""
    N = c.shape[1]
    weight = np.zeros(N, np.int64)
    for i in range(N):
        for j in range(N):
            ct[j, i] = c[i, j]
            ct[j, N + i] = c[N + i, j]
    for j in range(N):
        for i in range(2 * N):
            v = ct[j, i]
            a = v if v >= 0 else -v
            act[j, i] = a
            weight[j] += a
    idx = np.argsort(-weight, kind="mergesort")
    for k in range(N):
        order[k] = idx[k]


@jit(borrow=True)
def directed_fields(S, ct, f):
    """f[i] = f^+_i = Σ_j c^+_ij s_j and f[N + i] = f^−_i of bitmask state S (O(N²))."""
    N = ct.shape[0]
    for i in range(2 * N):
        f[i] = 0
    for j in range(N):
        add_row(f, ct, j, np.int64(1) if (S >> j) & 1 else np.int64(-1))


@jit(borrow=True)
def directed_thresholds(S, hp, hm, f):
    """(H^+(S), H^−(S)) from both fields f (2N,) (INF / −INF when empty): H^+ over the down
    elements with f^+, H^− over the up elements with f^−."""
    N = hp.shape[0]
    up = INF
    dn = -INF
    for i in range(N):
        bit = (S >> i) & 1
        up = min(up, hp[i] - f[i] + bit * OFFSET)
        dn = max(dn, hm[i] - f[N + i] - (1 - bit) * OFFSET)
    return up, dn


@jit(borrow=True)
def relax_directed(S, Hc, eps, rule, hp, hm, ct, f, own, tau):
    """Relax state S at field (Hc, eps) under ``rule``: ``self_loop_search.relax_fields``
    with both fields f (2N,) of S on entry (of the last state on return); own (N,) is a
    work array, the field each element's margin reads. Returns (outcome, last state,
    ties)."""
    N = hp.shape[0]
    ties = 0
    tortoise = S
    power = 1
    lam = 0
    while True:
        for i in range(N):
            own[i] = f[N + i] if (S >> i) & 1 else f[i]
        if rule == RULE_TAU:
            n_u, chosen, t = rules.scan_tau(S, own, hp, hm, Hc, eps, tau)
            acc = rules.start(RULE_1)
        else:
            acc = rules.start(rule)
            for i in range(N):
                m = rules.margin((S >> i) & 1, own[i], hp[i], hm[i], Hc, eps)
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
            add_row(f, ct, j, np.int64(-2) if (S >> j) & 1 else np.int64(2))
        S ^= flips
        if S == tortoise:
            return SELF_LOOP, S, ties
        lam += 1
        if lam == power:
            tortoise = S
            power *= 2
            lam = 0


@jit(borrow=True)
def directed_transitions(S, f_state, hp, hm, ws, rule, res, tau):
    """``self_loop_search.transitions_of_state`` with both fields f_state (2N,) of
    potentially stable S: res[0] walks, res[1] ties accumulated, res[2], res[3] the stable
    ends of the up and down transitions (−1 if none). Returns True on a self-loop."""
    ct, f_walk, own = ws.couplings, ws.f_walk, ws.own
    up, dn = directed_thresholds(S, hp, hm, f_state)
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
        for i in range(f_state.shape[0]):
            f_walk[i] = f_state[i]
        oc, T, t = relax_directed(S, Hc, eps, rule, hp, hm, ct, f_walk, own, tau)
        res[0] += 1
        res[1] += t
        if oc == SELF_LOOP:
            return True
        if oc == STABLE:
            res[2 + direction] = T
    return False


@jit(borrow=True)
def directed_reachable(hp, hm, rule, cap, ws, gen, res, tau):
    """Phase 1 (``self_loop_search.reachable_search``): breadth first from the saturated
    states over stable end states. Returns (found, processed, queued)."""
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
        directed_fields(S, ws.couplings, ws.f_state)
        if directed_transitions(S, ws.f_state, hp, hm, ws, rule, res, tau):
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
def node_bounds(hp, hm, f, R, bits, assigned):
    """(LB, UB, i*, k*) of a node of the complete search: the bounds on H^−(S) and H^+(S)
    over its completions and the elements attaining them (−1 when none is assigned on that
    side; the OFFSET keeps unassigned elements and the wrong side out of range)."""
    N = hp.shape[0]
    lb = -INF
    ub = INF
    istar = -1
    kstar = -1
    for i in range(N):
        a = (assigned >> i) & 1
        b = (bits >> i) & 1
        is_up = a & b
        is_dn = a & (1 - b)
        vlb = hm[i] - f[N + i] - R[N + i] - (1 - is_up) * OFFSET
        vub = hp[i] - f[i] + R[i] + (1 - is_dn) * OFFSET
        if vlb > lb:
            lb = vlb
            istar = i
        if vub < ub:
            ub = vub
            kstar = i
    return lb, ub, istar, kstar


@jit(borrow=True)
def directed_complete(hp, hm, rule, ws, gen, processed, res, tau):
    """Phase 2 (``self_loop_search.complete_search``) with the bounds of both matrices
    (module docstring): every potentially stable state met once as a leaf, the
    transitions of those phase 1 did not process relaxed. Returns True on a self-loop;
    res[4] search nodes and res[5] potentially stable states met are set."""
    ct, act, order = ws.couplings, ws.magnitudes, ws.order
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
    W = 2 * N
    size = keys.shape[0]
    full = (np.int64(1) << N) - 1
    for i in range(W):
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
        nodes += 1
        f = fstk[d]
        R = rstk[d]
        assigned = astk[d]
        lb, ub, istar, kstar = node_bounds(hp, hm, f, R, bstk[d], assigned)
        opts[d] = 0
        if lb < ub and istar >= 0 and kstar >= 0 and assigned != full:
            # the critical pair (i* up, k* down): f^+_k* − f^−_i* moves by at most
            # Σ_free |c^+_k*j − c^−_i*j|
            gap = hp[kstar] - hm[istar] - (f[kstar] - f[N + istar])
            for j in range(N):
                x = ct[j, kstar] - ct[j, N + istar]
                x = x if x >= 0 else -x
                gap += x * (1 - ((assigned >> j) & 1))
            if gap <= 0:
                lb = ub
        if lb < ub:
            if assigned == full:
                n_ps += 1
                S = bstk[d]
                done = False
                if processed > 0:
                    k = table_find(S, keys, stamps, gen, size)
                    done = stamps[k] == gen and slots[k] < processed
                if not done:
                    if directed_transitions(S, f, hp, hm, ws, rule, res, tau):
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
                    can_up = hm[j] - f[N + j] - R[N + j] < ub
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
        sign = np.int64(1) if v else np.int64(-1)
        for i in range(W):
            fb[i] = fa[i] + sign * row[i]
            rb[i] = ra[i] - arow[i]
        bstk[d + 1] = bstk[d] | (np.int64(v) << j)
        astk[d + 1] = astk[d] | (np.int64(1) << j)
        d += 1
    res[4] = nodes
    res[5] = n_ps
    return False


@jit(borrow=True)
def any_self_loop_directed_system(hp, hm, c, rule, cap, ws, out, tau):
    """P_sl of one system with direction-dependent couplings (hp, hm: (N,), c: (2N, N), c^+
    over c^−, flip times tau: (N,)) with workspace ``ws`` from ``directed_workspace(N,
    cap)``; fills ``out`` (``codes.SEARCH_COLUMNS``) as ``any_self_loop_system``."""
    prepare_directed(c, ws.couplings, ws.magnitudes, ws.order)
    scalars = ws.scalars
    scalars[0] += 1
    gen = scalars[0]
    res = scalars[1:]
    for k in range(res.shape[0]):
        res[k] = 0
    for k in range(out.shape[0]):
        out[k] = 0
    found, processed, queued = directed_reachable(hp, hm, rule, cap, ws, gen, res, tau)
    out[SR_REACHABLE_STATES] = queued
    if found:
        out[SR_SELF_LOOP] = 1
        out[SR_FOUND_BY] = FOUND_REACHABLE
    elif directed_complete(hp, hm, rule, ws, gen, processed, res, tau):
        out[SR_SELF_LOOP] = 1
        out[SR_FOUND_BY] = FOUND_COMPLETE
    out[SR_WALKS] = res[0]
    out[SR_SEARCH_NODES] = res[4]
    out[SR_POTENTIALLY_STABLE_SEARCHED] = res[5]
    out[SR_TIES] = res[1]


@jit
def any_self_loop_directed_block(b, blocks, systems, rule, cap, out, flip_times):
    """Samples b, b + blocks, b + 2 blocks, ... of ``any_self_loop_directed_batch``."""
    n, N = systems.h_plus.shape
    ws = directed_workspace(N, cap)
    for s in range(b, n, blocks):
        any_self_loop_directed_system(
            systems.h_plus[s],
            systems.h_minus[s],
            systems.couplings[s],
            rule,
            cap,
            ws,
            out[s],
            flip_times[s % flip_times.shape[0]],
        )


@batch_kernel
def any_self_loop_directed_batch(systems, rule, cap, blocks, out, flip_times):
    """Per-sample P_sl of a batch with direction-dependent couplings: systems, an
    ``operands.SystemBatch`` of form FORM_DIRECTED (couplings (n, 2N, N), c^+ over c^−);
    out (n, ``codes.SEARCH_COLUMNS``); flip_times (n, N) or (1, N), read by the flip-time
    rule only. Samples in ``blocks`` interleaved blocks, one workspace each."""
    for b in prange(blocks):
        any_self_loop_directed_block(np.int64(b), blocks, systems, rule, cap, out, flip_times)
