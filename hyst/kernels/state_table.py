"""Kernels over all 2^N states of small systems (bitmask states; the observable groups use
them up to N = 18, ``hyst.catalogue.ENUMERATION_MAX_N``; one system up to N = 24).

Only ``@jit`` functions over plain int64 arrays live here. Parameters are in
units of ``hyst.model.systems.QUANTUM``; a field is ``(Hc, eps)`` meaning Hc + eps·0⁺;
see :mod:`hyst.model.systems` for the conventions. Outcome, rule and output-column
codes are the names of :mod:`hyst.kernels.codes`.

The state table is built in one Gray-code pass: consecutive states differ in
one element j, so the local fields f_i(S) = Σ_j c_ij s_j are updated in O(N)
per state, exactly, in int64.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from hyst.kernels import bookkeeping, rules
from hyst.kernels.codes import (
    E_AVALANCHE_OUTCOME,
    E_AVALANCHE_SIZE,
    E_N_DISTINCT_LOOPS,
    E_N_ILL_DEFINED_TRANSITIONS,
    E_N_POTENTIALLY_STABLE,
    E_N_SELF_LOOP_TRANSITIONS,
    E_N_STABLE_AT_ZERO,
    E_N_TRANSITIONS,
    E_POTENTIALLY_STABLE_TIES,
    E_RACE_FIRST_FLIP,
    E_RACE_IN_TRANSITIONS,
    E_RANDOM_START_LENGTH,
    E_RANDOM_START_OUTCOME,
    E_SELF_LOOP_AT_ZERO_ANY,
    E_START_PREPARED,
    E_TIES,
    E_ZERO_TIES,
    FORM_DENSE_T,
    ILL_DEFINED,
    INF,
    MOVED,
    OFFSET,
    RECORD_FLIPS,
    RECORD_L,
    RECORD_N_E,
    RECORD_RACE,
    RECORD_TIES,
    RULE_1,
    RULE_2,
    RULE_TAU,
    SELF_LOOP,
    STABLE,
    UNDEFINED,
    WALK_COLUMNS,
    WALK_CYCLE_MIN,
    WALK_CYCLE_SUM,
    WALK_FINAL_STATE,
    WALK_FLIP_MASK,
    WHAT_AVALANCHE,
    WHAT_TRANSITIONS,
    WHAT_ZERO_FIELD,
)
from hyst.kernels.jit import batch_kernel, jit

#: Length of a ``walk`` result row.
WALK_WIDTH = len(WALK_COLUMNS)


class StateTable(NamedTuple):
    """The tables of all 2^N states of one system, with the work arrays of its relaxations
    (its bare thresholds h_i^± travel beside it: a table serves every system of a block).

    fields: (2^N, N) F[S, i] = Σ_j c_ij s_j; up, down: (2^N,) H^+(S) (INF if all up) and
    H^−(S) (−INF if all down); stamp, stamp_step: (2^N,) visit stamps of ``walk`` (stamp
    −1 and step 0 when new).
    """

    fields: np.ndarray
    up: np.ndarray
    down: np.ndarray
    stamp: np.ndarray
    stamp_step: np.ndarray


class BlockWork(NamedTuple):
    """Work arrays of one block of ``enumerate_observables``, allocated once per block:
    res, a ``walk`` result row; keys (2^N, 3), the distinct loops of a system by smallest
    state, and more (2^(N+1), 3), its further loops sharing a smallest state (a system has
    at most 2^(N+1) transitions, each ends in at most one loop); lo, hi (2^N) of
    ``gap_fraction``; nxt, pid (2^N) of ``map_has_cycle``; f (N) and c2t (N, N) of
    ``fill_state_table`` (2N and (2N, N) for direction-dependent couplings)."""

    res: np.ndarray
    keys: np.ndarray
    more: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    nxt: np.ndarray
    pid: np.ndarray
    f: np.ndarray
    c2t: np.ndarray


@jit
def ctz(k):
    """Index of the lowest set bit of k > 0."""
    j = 0
    while not (k >> j) & 1:
        j += 1
    return j


@jit
def build_state_table(hp, hm, c, transposed, F, hplus, hminus):
    """Fill the tables of all 2^N states of one system (``fill_state_table`` with work
    arrays of its own)."""
    N = hp.shape[0]
    M = c.shape[0]  # N, or 2N for direction-dependent couplings (c^+ over c^−)
    fill_state_table(
        hp, hm, c, transposed, F, hplus, hminus, np.empty(M, np.int64), np.empty((M, N), np.int64)
    )


@jit(borrow=True)
def fill_state_table(hp, hm, c, transposed, F, hplus, hminus, f, c2t):
    """Fill the tables of all 2^N states of one system.

    F[S, i] = Σ_j c_ij s_j (local interaction field); hplus[S] = H^+(S)
    (INF if all up) and hminus[S] = H^−(S) (−INF if all down). c[i, j] = c_ij, or
    c[j, i] = c_ij when ``transposed`` (couplings drawn in the event-driven kernels'
    layout, read without a copy). f (N,) and c2t (N, N) are work arrays.

    Direction-dependent couplings: c (2N, N) stacks c^+ over c^− (``FORM_DIRECTED``; f
    (2N,) and c2t (2N, N)), see ``fill_directed``.
    """
    N = hp.shape[0]
    if c.shape[0] != N:
        fill_directed(hp, hm, c, F, hplus, hminus, f, c2t)
        return
    for i in range(N):
        acc = np.int64(0)
        for j in range(N):
            cij = c[j, i] if transposed else c[i, j]
            acc -= cij
            c2t[j, i] = 2 * cij
        f[i] = acc
    g = 0
    for k in range(1 << N):
        if k > 0:
            j = ctz(k)
            g ^= 1 << j
            sgn = 2 * ((g >> j) & 1) - 1
            for i in range(N):
                f[i] += sgn * c2t[j, i]
        # Elements of the wrong sign are pushed out of range by an offset:
        # a branch-free min/max.
        up = INF
        dn = -INF
        for i in range(N):
            fi = f[i]
            F[g, i] = fi
            bit = (g >> i) & 1
            up = min(up, hp[i] - fi + bit * OFFSET)
            dn = max(dn, hm[i] - fi - (1 - bit) * OFFSET)
        hplus[g] = up
        hminus[g] = dn


@jit(borrow=True)
def fill_directed(hp, hm, c, F, hplus, hminus, f, c2t):
    """``fill_state_table`` for direction-dependent couplings: c (2N, N), c[i, j] = c^+_ij
    and c[N + i, j] = c^−_ij; work arrays f (2N,) and c2t (2N, N).

    An element's up threshold is read only while it is down, and its down threshold only
    while it is up, so the table keeps one field per element and state, the one its margin
    reads: F[S, i] = Σ_j c^+_ij s_j if s_i = −1, Σ_j c^−_ij s_j if s_i = +1. ``step``,
    ``walk`` and everything built on the table then run unchanged. Both fields follow the
    Gray code exactly in int64."""
    N = hp.shape[0]
    for i in range(N):  # f[i] = f^+_i, f[N + i] = f^−_i of the all-down state
        acc_p = np.int64(0)
        acc_m = np.int64(0)
        for j in range(N):
            acc_p -= c[i, j]
            acc_m -= c[N + i, j]
            c2t[j, i] = 2 * c[i, j]
            c2t[N + j, i] = 2 * c[N + i, j]
        f[i] = acc_p
        f[N + i] = acc_m
    g = 0
    for k in range(1 << N):
        if k > 0:
            j = ctz(k)
            g ^= 1 << j
            sgn = 2 * ((g >> j) & 1) - 1
            for i in range(N):
                f[i] += sgn * c2t[j, i]
                f[N + i] += sgn * c2t[N + j, i]
        up = INF
        dn = -INF
        for i in range(N):
            bit = (g >> i) & 1
            fi = f[N + i] if bit else f[i]
            F[g, i] = fi
            up = min(up, hp[i] - fi + bit * OFFSET)
            dn = max(dn, hm[i] - fi - (1 - bit) * OFFSET)
        hplus[g] = up
        hminus[g] = dn


@jit(inline=True)
def step(S, Hc, eps, rule, hp, hm, F, up, down, tau):
    """One step of the dynamics at field (Hc, eps) from state S of the system with bare
    thresholds hp, hm, the ``StateTable`` arrays F, up, down and the flip times tau (N,)
    (positive integers, read by the flip-time rule only).

    Returns (next_state, n_unstable, n_flipped, ties, code) with code STABLE,
    MOVED or ILL_DEFINED (rule 0 with n_unstable > 1).
    Stability is read from the table in O(1) (ties: 1 if a margin is exactly 0); a state
    that moves is scanned in O(N) for the rule's choice (:mod:`hyst.kernels.rules`: exact
    n_unstable and ties).
    """
    mu = 2 * (Hc - up[S]) + eps  # largest margin of a down element
    md = 2 * (down[S] - Hc) - eps  # largest margin of an up element
    if mu <= 0 and md <= 0:
        return S, 0, 0, 1 if (mu == 0 or md == 0) else 0, STABLE
    row = F[S]
    if rule == RULE_TAU:
        n_u, chosen, ties = rules.scan_tau(S, row, hp, hm, Hc, eps, tau)
        return S ^ (1 << chosen), n_u, 1, ties, MOVED
    acc = rules.start(rule)
    for i in range(hp.shape[0]):
        acc = rules.tally(acc, i, rules.margin((S >> i) & 1, row[i], hp[i], hm[i], Hc, eps), rule)
    n_u, chosen, ties = rules.choose(rule, acc)
    code = bookkeeping.verdict(rule, n_u)
    if code != MOVED:  # rule 0 with a race condition (n_u > 0 here)
        return S, n_u, 0, ties, code
    if rule == RULE_2:
        return S ^ rules.unstable(acc), n_u, n_u, ties, MOVED
    return S ^ (1 << chosen), n_u, 1, ties, MOVED


@jit(inline=True)
def cycle_key(S):
    """A 64-bit hash of S (splitmix64's finaliser, wrapping int64). A self-loop's identity
    is its smallest state, L and the sum of this hash over its edges x → x' (S = x + 2^32 x'):
    a cycle is its set of edges, so the identity tells apart loops through the same states
    in another order too (the reference compares the cycles state by state). The plain sum
    of the bitmasks told apart too few loops: under rule 2 the cycles 0 → 4 → 2 and
    0 → 5 → 1 of one system (direction-dependent couplings) have the same smallest state,
    L = 3 and sum 6."""
    z = np.uint64(S) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.int64(z ^ (z >> np.uint64(31)))


@jit(inline=True, borrow=True)
def walk(S, Hc, eps, rule, hp, hm, table, wid, out, tau):
    """Relax from state S at field (Hc, eps) under ``rule`` (bare thresholds hp, hm, the
    system's ``StateTable`` and its flip times tau, read by the flip-time rule); returns the
    outcome code (STABLE, SELF_LOOP or ILL_DEFINED).

    Each ``step`` reads the state's stability from the table and, if it moves, flips the
    rule's choice; the relaxation's record (steps, flips, race, ties) and its end are
    :mod:`hyst.kernels.bookkeeping`'s. Cycle detection is exact: the table's per-state stamps
    hold ``wid``, a walk id never used before with them (no reset needed), and the step at
    which the walk first reached each state, so a step onto a stamped state closes a
    self-loop of L = steps − that step.

    Fills out = ``codes.WALK_COLUMNS``: the record (flips, steps, race, ties, L, n_e), then
    final_state (the stable state, the ill-defined state, or the first repeated state of a
    self-loop) and, for a self-loop, cycle_min and cycle_sum (its smallest state and the sum
    of ``cycle_key`` over its edges: with L, the loop's identity) and flip_mask (the
    elements flipping in it; n_e of them).
    """
    F, up, down, stamp, stamp_step = table
    book = bookkeeping.begin(0)
    stamp[S] = wid
    stamp_step[S] = 0
    outcome = STABLE
    L = 0
    n_e = 0
    cmin = 0
    csum = 0
    fmask = 0
    while True:
        S2, n_u, nf, t, code = step(S, Hc, eps, rule, hp, hm, F, up, down, tau)
        book = bookkeeping.scanned(book, n_u, t)
        if code != MOVED:
            outcome = code
            break
        S = S2
        book = bookkeeping.moved(book, nf)
        if stamp[S] == wid:
            outcome = SELF_LOOP
            L = bookkeeping.loop_length(book, stamp_step[S])
            cmin = S
            x = S
            for _ in range(L):
                x2, _nu, _nf, _t, _c = step(x, Hc, eps, rule, hp, hm, F, up, down, tau)
                fmask |= x ^ x2
                csum += cycle_key(x | (x2 << 32))  # the edge x -> x2 (states < 2^24)
                if x < cmin:
                    cmin = x
                x = x2
            n_e = bookkeeping.elements_flipping(fmask)
            break
        stamp[S] = wid
        stamp_step[S] = book[0]
    bookkeeping.record(out, book, L, n_e)
    out[WALK_FINAL_STATE] = S
    out[WALK_CYCLE_MIN] = cmin
    out[WALK_CYCLE_SUM] = csum
    out[WALK_FLIP_MASK] = fmask
    return outcome


@jit(borrow=True)
def walk_once(S, Hc, eps, rule, hp, hm, table, wid, out, tau):
    """``walk``, compiled once as a function of its own, for the kernels that relax a few
    times per system (``zero_field``, ``avalanche``). ``transitions``, which relaxes
    2 · 2^N times per system, inlines ``walk``: there the inlined copy is 5-20 % faster
    (``benchmarks/bench_kernels.py``), while each inlined copy costs 10-20 s of CPU to
    compile (a first run's cost)."""
    return walk(S, Hc, eps, rule, hp, hm, table, wid, out, tau)


@jit
def gap_fraction(hplus, hminus, N, lo, hi):
    """Fraction of [H^+(−…−), H^−(+…+)] covered by no state's stability interval.

    Zero when H^+(−…−) ≥ H^−(+…+) (the saturated states overlap). ``lo``/``hi``
    are work arrays of length 2^N.
    """
    a = hplus[0]
    b = hminus[(1 << N) - 1]
    if a >= b:
        return 0.0
    n = 0
    for S in range(1 << N):
        l = hminus[S]
        h = hplus[S]
        if l < h:
            if l < a:
                l = a
            if h > b:
                h = b
            if l < h:
                lo[n] = l
                hi[n] = h
                n += 1
    order = np.argsort(lo[:n])
    covered = np.int64(0)
    cur_lo = a
    cur_hi = a
    for k in range(n):
        l = lo[order[k]]
        h = hi[order[k]]
        if l > cur_hi:
            covered += cur_hi - cur_lo
            cur_lo = l
            cur_hi = h
        elif h > cur_hi:
            cur_hi = h
    covered += cur_hi - cur_lo
    return float((b - a) - covered) / float(b - a)


@jit(borrow=True)
def map_has_cycle(rule, hp, hm, table, nxt, pid, tau):
    """True iff the H = 0 dynamics (one step of ``rule``) has a cycle among unstable states."""
    F, up, down = table[:3]
    n_states = nxt.shape[0]
    for S in range(n_states):
        S2, _nu, _nf, _t, code = step(S, 0, 0, rule, hp, hm, F, up, down, tau)
        nxt[S] = S2 if code == MOVED else -1
        pid[S] = -1
    for u in range(n_states):
        p = u
        while p != -1 and pid[p] == -1:
            pid[p] = u
            p = nxt[p]
        if p != -1 and pid[p] == u:
            return True
    return False


@batch_kernel
def enumerate_observables(systems, starts, rule, what, out, flip_times):
    """Per-sample observables of a batch of small systems (all 2^N states).

    systems: ``operands.SystemBatch`` in a dense form (FORM_DENSE or FORM_DENSE_T);
    starts: (n,) random start bitmasks; what: bitmask of WHAT_* groups to compute (others
    are left at 0); out: ``operands.EnumerationArrays`` (columns E_* of
    :mod:`hyst.kernels.codes`); flip_times: (n, N) or (1, N) positive integer flip times
    τ_i (one row for all systems), read by the flip-time rule only. Samples are dealt to
    out.loop_lengths.shape[0] blocks.
    """
    for b in prange(out.loop_lengths.shape[0]):
        enumerate_block(np.int64(b), systems, starts, rule, what, out, flip_times)


@jit
def enumerate_block(b, systems, starts, rule, what, out, flip_times):
    """Samples b, b + blocks, b + 2 blocks, ... of ``enumerate_observables``."""
    N = systems.h_plus.shape[1]
    n_states = 1 << N
    F = np.empty((n_states, N), np.int64)
    up = np.empty(n_states, np.int64)
    down = np.empty(n_states, np.int64)
    stamp = np.full(n_states, -1, np.int64)
    stamp_step = np.zeros(n_states, np.int64)
    table = StateTable(F, up, down, stamp, stamp_step)
    work = BlockWork(
        np.zeros(WALK_WIDTH, np.int64),
        np.full((n_states, 3), -1, np.int64),  # distinct loops by cycle-min state
        np.empty((2 * n_states, 3), np.int64),
        np.empty(n_states, np.int64),
        np.empty(n_states, np.int64),
        np.empty(n_states, np.int64),
        np.empty(n_states, np.int64),
        np.empty(systems.couplings.shape[1], np.int64),  # N, or 2N for FORM_DIRECTED
        np.empty((systems.couplings.shape[1], N), np.int64),
    )
    enumerate_systems(b, systems, starts, rule, what, out, table, work, flip_times)


@jit(borrow=True)
def enumerate_systems(b, systems, starts, rule, what, out, table, work, flip_times):
    """The samples of block b, in the block's tables and work arrays (one call per block:
    its arrays are bound once, not per system)."""
    n, N = systems.h_plus.shape
    nb = out.loop_lengths.shape[0]
    transposed = systems.form == FORM_DENSE_T
    F, up, down = table[:3]
    wid = 0
    for s in range(b, n, nb):
        hps = systems.h_plus[s]
        hms = systems.h_minus[s]
        tau = flip_times[s % flip_times.shape[0]]
        fill_state_table(hps, hms, systems.couplings[s], transposed, F, up, down, work.f, work.c2t)
        o = out.columns[s]
        for k in range(o.shape[0]):
            o[k] = 0
        ties = 0
        out.gap_fraction[s] = 0.0
        out.l4_count[s] = 0
        if what & WHAT_ZERO_FIELD:
            wid += 1
            ties += zero_field(s, starts[s], rule, hps, hms, table, work, wid, out, tau)
        if what & WHAT_TRANSITIONS:
            wid, t = transitions(s, b, rule, hps, hms, table, work, wid, out, tau)
            ties += t
        if what & WHAT_AVALANCHE:
            wid += 2
            ties += avalanche(starts[s], rule, hps, hms, table, wid, work.res, o, tau)
        o[E_TIES] = ties


@jit(borrow=True)
def zero_field(s, start, rule, hp, hm, table, work, wid, out, tau):
    """P_s, P_g^0, f_G and P_sl^0 (both variants) of system s; returns ties met."""
    up = table.up
    down = table.down
    o = out.columns[s]
    for S in range(up.shape[0]):
        lm = down[S]
        hi = up[S]
        if lm < hi:
            o[E_N_POTENTIALLY_STABLE] += 1
        elif lm == hi:
            o[E_POTENTIALLY_STABLE_TIES] += 1
        if lm < 0 < hi:
            o[E_N_STABLE_AT_ZERO] += 1
        if (lm == 0 and hi >= 0) or (hi == 0 and lm <= 0):
            o[E_ZERO_TIES] += 1
    out.gap_fraction[s] = gap_fraction(up, down, hp.shape[0], work.lo, work.hi)
    o[E_SELF_LOOP_AT_ZERO_ANY] = (
        1 if map_has_cycle(rule, hp, hm, table, work.nxt, work.pid, tau) else 0
    )
    # relaxation of the random start at H = 0 under the rule
    res = work.res
    oc = walk_once(start, 0, 0, rule, hp, hm, table, wid, res, tau)
    o[E_RANDOM_START_OUTCOME] = oc
    o[E_RANDOM_START_LENGTH] = res[RECORD_L]
    return res[RECORD_TIES]


@jit(borrow=True)
def transitions(s, b, rule, hp, hm, table, work, wid, out, tau):
    """P_sl of system s (block b): relax every up/down transition out of every
    potentially stable state; record distinct self-loops. Returns (wid, ties).

    A self-loop is identified by (its smallest state, L, the sum of its states), counted
    once however many transitions reach it. ``work.keys`` (2^N, 3) holds, per smallest
    state, (sample s, L, sum) of the first loop seen with it (a row of another sample is
    free); further loops with the same smallest state (met at other fields) go to a list."""
    up = table.up
    down = table.down
    res = work.res
    keys = work.keys
    o = out.columns[s]
    K = out.l4_state.shape[1]
    ties = 0
    # P_sl: every transition out of every potentially stable state
    nkeys = 0
    more = work.more  # loops sharing a smallest state with an earlier one
    nmore = 0
    n4 = 0
    for S in range(up.shape[0]):
        if not down[S] < up[S]:
            continue
        for direction in range(2):
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
            wid += 1
            oc = walk(S, Hc, eps, rule, hp, hm, table, wid, res, tau)
            o[E_N_TRANSITIONS] += 1
            ties += res[RECORD_TIES]
            if res[RECORD_RACE]:
                o[E_RACE_IN_TRANSITIONS] = 1
            if oc == ILL_DEFINED:
                o[E_N_ILL_DEFINED_TRANSITIONS] += 1
            elif oc == SELF_LOOP:
                o[E_N_SELF_LOOP_TRANSITIONS] += 1
                cmin = res[WALK_CYCLE_MIN]
                L = res[RECORD_L]
                csum = res[WALK_CYCLE_SUM]
                row = keys[cmin]
                new = True
                if row[0] != s:  # the first loop of this system with this smallest state
                    row[0] = s
                    row[1] = L
                    row[2] = csum
                elif row[1] == L and row[2] == csum:
                    new = False
                else:
                    for q in range(nmore):
                        if more[q, 0] == cmin and more[q, 1] == L and more[q, 2] == csum:
                            new = False
                            break
                    if new:
                        more[nmore, 0] = cmin
                        more[nmore, 1] = L
                        more[nmore, 2] = csum
                        nmore += 1
                if new:
                    nkeys += 1
                    out.loop_lengths[b, res[RECORD_L]] += 1
                    out.loop_elements[b, res[RECORD_N_E]] += 1
                    if res[RECORD_L] == 4 and res[RECORD_N_E] == 2:
                        if n4 < K:
                            out.l4_state[s, n4] = res[WALK_CYCLE_MIN]
                            out.l4_mask[s, n4] = res[WALK_FLIP_MASK]
                        n4 += 1
    o[E_N_DISTINCT_LOOPS] = nkeys
    out.l4_count[s] = n4
    return wid, ties


@jit(borrow=True)
def avalanche(start, rule, hp, hm, table, wid, res, o, tau):
    """S0 = rule-1 relaxation of the random start at H = 0; P_RC of the first
    flip at H^+(S0) and the avalanche under ``rule``. Uses walk ids wid − 1
    and wid. Returns ties met."""
    ties = 0
    # S0: rule-1 relaxation of the random start at H = 0; then raise H to H^+(S0)
    oc = walk_once(start, 0, 0, RULE_1, hp, hm, table, wid - 1, res, tau)
    o[E_RACE_FIRST_FLIP] = UNDEFINED
    o[E_AVALANCHE_OUTCOME] = UNDEFINED
    o[E_AVALANCHE_SIZE] = UNDEFINED
    if oc == STABLE:
        o[E_START_PREPARED] = 1
        S0 = res[WALK_FINAL_STATE]
        if table.up[S0] < INF:
            Hc = table.up[S0]
            F, up, down = table[:3]
            S1, _nu, _nf, t, _c = step(S0, Hc, 1, RULE_1, hp, hm, F, up, down, tau)
            ties += t
            _S2, n_u, _nf, _t, _c = step(S1, Hc, 1, RULE_1, hp, hm, F, up, down, tau)
            o[E_RACE_FIRST_FLIP] = 1 if n_u > 1 else 0
            oc = walk_once(S0, Hc, 1, rule, hp, hm, table, wid, res, tau)
            o[E_AVALANCHE_OUTCOME] = oc
            ties += res[RECORD_TIES]
            if oc == STABLE:
                o[E_AVALANCHE_SIZE] = res[RECORD_FLIPS]
    return ties
