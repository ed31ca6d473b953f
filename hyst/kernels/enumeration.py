"""Kernels over all 2^N states of small systems (bitmask states, N ≤ 24).

Only ``@jit`` functions over plain int64 arrays live here. Parameters are in
units of ``hyst.model.QUANTUM``; a field is ``(Hc, eps)`` meaning Hc + eps·0⁺;
see :mod:`hyst.model` for the conventions. Outcome codes: 0 stable,
1 self-loop, 2 ill-defined (rule 0). Rule codes: 0, 1, 2 (= 1p), 3 (= 2).

The state table is built in one Gray-code pass: consecutive states differ in
one element j, so the local fields f_i(S) = Σ_j c_ij s_j are updated in O(N)
per state, exactly, in int64.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst._numba import jit

INF = np.int64(2**61)
OFFSET = np.int64(2**62)  # > INF + any threshold: masks elements of the wrong sign
STABLE, SELF_LOOP, ILL_DEFINED = 0, 1, 2
RULE_0, RULE_1, RULE_1P, RULE_2 = 0, 1, 2, 3

# Columns of the per-sample integer output of ``enumerate_observables``.
COLUMNS = (
    "n_potentially_stable",  # states with H^-(S) < H^+(S)
    "potentially_stable_ties",  # states with H^-(S) == H^+(S)
    "n_stable_at_zero",  # states with H^-(S) < 0 < H^+(S)
    "zero_ties",  # states with a threshold exactly at H = 0
    "self_loop_at_zero_any",  # the H = 0 map has a cycle
    "random_start_outcome",  # relaxation of the random start at H = 0 under the rule
    "random_start_length",  # its cycle length L (0 unless self-loop)
    "n_transitions",  # up/down transitions from potentially stable states
    "n_self_loop_transitions",
    "n_ill_defined_transitions",
    "race_in_transitions",  # some transition met a race condition
    "start_prepared",  # rule-1 relaxation of the random start reached a stable S0
    "race_first_flip",  # 1 if >1 unstable after the first flip from S0 (−1 undefined)
    "avalanche_outcome",  # outcome of raising H to H^+(S0) (−1 undefined)
    "avalanche_size",  # flips of that avalanche (−1 unless stable)
    "ties",  # ties met in all walks
    "n_distinct_loops",  # distinct self-loops met in the P_sl transitions
)
NCOL = len(COLUMNS)
COL = {name: k for k, name in enumerate(COLUMNS)}

# Groups of observables selectable with the ``what`` bitmask.
WHAT_TRANSITIONS = 1  # P_sl: every transition out of every potentially stable state
WHAT_ZERO_FIELD = 2  # P_s, P_g^0, f_G, P_sl^0 (map at H = 0 and the random start)
WHAT_AVALANCHE = 4  # S0 preparation, P_RC and the avalanche A
WHAT_ALL = 7


@jit
def ctz(k):
    """Index of the lowest set bit of k > 0."""
    j = 0
    while not (k >> j) & 1:
        j += 1
    return j


@jit
def build_state_table(hp, hm, c, F, hplus, hminus):
    """Fill the tables of all 2^N states of one system.

    F[S, i] = Σ_j c_ij s_j (local interaction field); hplus[S] = H^+(S)
    (INF if all up) and hminus[S] = H^−(S) (−INF if all down).
    """
    N = hp.shape[0]
    f = np.empty(N, np.int64)
    c2t = np.empty((N, N), np.int64)  # c2t[j, i] = 2 c_ij, contiguous in i
    for i in range(N):
        acc = np.int64(0)
        for j in range(N):
            acc -= c[i, j]
            c2t[j, i] = 2 * c[i, j]
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


@jit(inline=True)
def step(S, Hc, eps, rule, hp, hm, F, hplus, hminus):
    """One step of the dynamics at field (Hc, eps) from state S.

    Returns (next_state, n_unstable, n_flipped, ties, code) with code 0 if S is
    stable, 1 if it moved, 2 if ill-defined (rule 0 with n_unstable > 1).
    Stability is read from the table in O(1); a state that moves is scanned in
    O(N) for the rule's element, the exact n_unstable and exact ties (equal
    winning margins; margins exactly 0 when eps = 0).
    """
    mu = 2 * (Hc - hplus[S]) + eps  # largest margin of a down element
    md = 2 * (hminus[S] - Hc) - eps  # largest margin of an up element
    if mu <= 0 and md <= 0:
        return S, 0, 0, 1 if (mu == 0 or md == 0) else 0, STABLE
    N = hp.shape[0]
    row = F[S]
    ties = 0
    n_u = 0
    mask = 0
    # branch-free scan: first/last index reaching the winning margin (a tie if they differ)
    first = -1
    last = -1
    bestm = -OFFSET if rule != RULE_1P else OFFSET
    for i in range(N):
        bit = (S >> i) & 1
        m_dn = 2 * (hm[i] - row[i] - Hc) - eps
        m_up = 2 * (Hc - hp[i] + row[i]) + eps
        m = m_dn if bit else m_up
        pos = m > 0
        n_u += pos
        mask |= np.int64(pos) << i
        ties += m == 0
        if rule == RULE_1P:
            v = m if pos else OFFSET
            first = i if v < bestm else first
            last = i if v <= bestm else last
            bestm = min(bestm, v)
        else:
            first = i if m > bestm else first
            last = i if m >= bestm else last
            bestm = max(bestm, m)
    best = first
    nbest = 1 if first == last else 2
    if rule == RULE_2:
        return S ^ mask, n_u, n_u, ties, 1
    if rule == RULE_0:
        if n_u > 1:
            return S, n_u, 0, ties, ILL_DEFINED
        return S ^ mask, n_u, 1, ties, 1
    if nbest > 1:
        ties += 1
    return S ^ (1 << best), n_u, 1, ties, 1


@jit
def walk(S, Hc, eps, rule, hp, hm, F, hplus, hminus, stamp, stamp_step, wid, out):
    """Relax from state S at field (Hc, eps) under ``rule``; exact cycle detection.

    ``stamp``/``stamp_step`` are per-state work arrays and ``wid`` a walk id
    never used before with them (no reset needed). Fills
    out = [final_state, flips, steps, race, ties, L, n_e, cycle_min, cycle_sum, flip_mask]
    and returns the outcome code. For a self-loop, final_state is the first
    repeated state, L the cycle length, n_e the number of elements flipping in
    the cycle and flip_mask their bitmask.
    """
    steps = 0
    flips = 0
    race = 0
    ties = 0
    stamp[S] = wid
    stamp_step[S] = 0
    outcome = STABLE
    L = 0
    n_e = 0
    cmin = 0
    csum = 0
    fmask = 0
    while True:
        S2, n_u, nf, t, code = step(S, Hc, eps, rule, hp, hm, F, hplus, hminus)
        ties += t
        if steps > 0 and n_u > 1:
            race = 1
        if code == STABLE:
            break
        if code == ILL_DEFINED:
            outcome = ILL_DEFINED
            break
        S = S2
        steps += 1
        flips += nf
        if stamp[S] == wid:
            outcome = SELF_LOOP
            L = steps - stamp_step[S]
            cmin = S
            x = S
            for _ in range(L):
                x2, _nu, _nf, _t, _c = step(x, Hc, eps, rule, hp, hm, F, hplus, hminus)
                fmask |= x ^ x2
                csum += x
                if x < cmin:
                    cmin = x
                x = x2
            m = fmask
            while m:
                n_e += m & 1
                m >>= 1
            break
        stamp[S] = wid
        stamp_step[S] = steps
    out[0] = S
    out[1] = flips
    out[2] = steps
    out[3] = race
    out[4] = ties
    out[5] = L
    out[6] = n_e
    out[7] = cmin
    out[8] = csum
    out[9] = fmask
    return outcome


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


@jit
def map_has_cycle(rule, hp, hm, F, hplus, hminus, nxt, pid):
    """True iff the H = 0 dynamics (one step of ``rule``) has a cycle among unstable states."""
    n_states = nxt.shape[0]
    for S in range(n_states):
        S2, _nu, _nf, _t, code = step(S, 0, 0, rule, hp, hm, F, hplus, hminus)
        nxt[S] = S2 if code == 1 else -1
        pid[S] = -1
    for u in range(n_states):
        p = u
        while p != -1 and pid[p] == -1:
            pid[p] = u
            p = nxt[p]
        if p != -1 and pid[p] == u:
            return True
    return False


@jit(parallel=True)
def enumerate_observables(
    hp, hm, c, starts, rule, what, out, gapf, hist_L, hist_ne, l4_state, l4_mask, l4_count
):
    """Per-sample observables of a batch of small systems (all 2^N states).

    hp, hm: (n, N); c: (n, N, N); starts: (n,) random start bitmasks;
    what: bitmask of WHAT_* groups to compute (others are left at 0).
    out: (n, NCOL) int64, see ``COLUMNS``; gapf: (n,) gap fraction f_G.
    hist_L: (blocks, 2^N + 1) and hist_ne: (blocks, N + 1): distinct self-loops
    met in the P_sl transitions by length L and element count n_e, summed over
    the samples handled by each block (sum over blocks for the totals).
    l4_state/l4_mask: (n, K) the first K distinct L = 4 loops of two elements (cycle min state,
    flipping elements); l4_count: (n,) how many there were.
    """
    for b in prange(hist_L.shape[0]):
        enumerate_block(
            b,
            hp,
            hm,
            c,
            starts,
            rule,
            what,
            out,
            gapf,
            hist_L,
            hist_ne,
            l4_state,
            l4_mask,
            l4_count,
        )


@jit
def enumerate_observables_serial(
    hp, hm, c, starts, rule, what, out, gapf, hist_L, hist_ne, l4_state, l4_mask, l4_count
):
    """``enumerate_observables`` on the calling thread only (for thread pools)."""
    for b in range(hist_L.shape[0]):
        enumerate_block(
            b,
            hp,
            hm,
            c,
            starts,
            rule,
            what,
            out,
            gapf,
            hist_L,
            hist_ne,
            l4_state,
            l4_mask,
            l4_count,
        )


@jit
def enumerate_block(
    b, hp, hm, c, starts, rule, what, out, gapf, hist_L, hist_ne, l4_state, l4_mask, l4_count
):
    """Samples b, b + blocks, b + 2 blocks, ... of ``enumerate_observables``."""
    n, N = hp.shape
    n_states = 1 << N
    nb = hist_L.shape[0]
    F = np.empty((n_states, N), np.int64)
    hplus = np.empty(n_states, np.int64)
    hminus = np.empty(n_states, np.int64)
    stamp = np.full(n_states, -1, np.int64)
    stamp_step = np.zeros(n_states, np.int64)
    lo = np.empty(n_states, np.int64)
    hi = np.empty(n_states, np.int64)
    nxt = np.empty(n_states, np.int64)
    pid = np.empty(n_states, np.int64)
    res = np.zeros(10, np.int64)
    cap = 64
    keys = np.zeros((cap, 3), np.int64)
    wid = 0
    for s in range(b, n, nb):
        hps = hp[s]
        hms = hm[s]
        build_state_table(hps, hms, c[s], F, hplus, hminus)
        o = out[s]
        for k in range(o.shape[0]):
            o[k] = 0
        ties = 0
        gapf[s] = 0.0
        l4_count[s] = 0
        if what & WHAT_ZERO_FIELD:
            wid += 1
            ties += zero_field(
                s,
                starts[s],
                rule,
                hps,
                hms,
                F,
                hplus,
                hminus,
                stamp,
                stamp_step,
                wid,
                res,
                lo,
                hi,
                nxt,
                pid,
                o,
                gapf,
            )
        if what & WHAT_TRANSITIONS:
            wid, t = transitions(
                s,
                b,
                rule,
                hps,
                hms,
                F,
                hplus,
                hminus,
                stamp,
                stamp_step,
                wid,
                res,
                keys,
                hist_L,
                hist_ne,
                l4_state,
                l4_mask,
                l4_count,
                o,
            )
            ties += t
        if what & WHAT_AVALANCHE:
            wid += 2
            ties += avalanche(
                starts[s], rule, hps, hms, F, hplus, hminus, stamp, stamp_step, wid, res, o
            )
        o[15] = ties


@jit
def zero_field(
    s,
    start,
    rule,
    hps,
    hms,
    F,
    hplus,
    hminus,
    stamp,
    stamp_step,
    wid,
    res,
    lo,
    hi,
    nxt,
    pid,
    o,
    gapf,
):
    """P_s, P_g^0, f_G and P_sl^0 (both variants) of one system; returns ties met."""
    n_states = hplus.shape[0]
    N = hps.shape[0]
    for S in range(n_states):
        lm = hminus[S]
        up = hplus[S]
        if lm < up:
            o[0] += 1
        elif lm == up:
            o[1] += 1
        if lm < 0 < up:
            o[2] += 1
        if (lm == 0 and up >= 0) or (up == 0 and lm <= 0):
            o[3] += 1
    gapf[s] = gap_fraction(hplus, hminus, N, lo, hi)
    o[4] = 1 if map_has_cycle(rule, hps, hms, F, hplus, hminus, nxt, pid) else 0
    # relaxation of the random start at H = 0 under the rule
    oc = walk(start, 0, 0, rule, hps, hms, F, hplus, hminus, stamp, stamp_step, wid, res)
    o[5] = oc
    o[6] = res[5]
    return res[4]


@jit
def transitions(
    s,
    b,
    rule,
    hps,
    hms,
    F,
    hplus,
    hminus,
    stamp,
    stamp_step,
    wid,
    res,
    keys,
    hist_L,
    hist_ne,
    l4_state,
    l4_mask,
    l4_count,
    o,
):
    """P_sl of one system: relax every up/down transition out of every
    potentially stable state; record distinct self-loops. Returns (wid, ties)."""
    n_states = hplus.shape[0]
    K = l4_state.shape[1]
    cap = keys.shape[0]
    ties = 0
    # P_sl: every transition out of every potentially stable state
    nkeys = 0
    n4 = 0
    for S in range(n_states):
        if not hminus[S] < hplus[S]:
            continue
        for direction in range(2):
            if direction == 0:
                if hplus[S] >= INF:
                    continue
                Hc = hplus[S]
                eps = 1
            else:
                if hminus[S] <= -INF:
                    continue
                Hc = hminus[S]
                eps = -1
            wid += 1
            oc = walk(S, Hc, eps, rule, hps, hms, F, hplus, hminus, stamp, stamp_step, wid, res)
            o[7] += 1
            ties += res[4]
            if res[3]:
                o[10] = 1
            if oc == ILL_DEFINED:
                o[9] += 1
            elif oc == SELF_LOOP:
                o[8] += 1
                new = True
                for q in range(min(nkeys, cap)):
                    if keys[q, 0] == res[7] and keys[q, 1] == res[5] and keys[q, 2] == res[8]:
                        new = False
                        break
                if new:
                    if nkeys < cap:
                        keys[nkeys, 0] = res[7]
                        keys[nkeys, 1] = res[5]
                        keys[nkeys, 2] = res[8]
                    nkeys += 1
                    hist_L[b, res[5]] += 1
                    hist_ne[b, res[6]] += 1
                    if res[5] == 4 and res[6] == 2:
                        if n4 < K:
                            l4_state[s, n4] = res[7]
                            l4_mask[s, n4] = res[9]
                        n4 += 1
    o[16] = nkeys
    l4_count[s] = n4
    return wid, ties


@jit
def avalanche(start, rule, hps, hms, F, hplus, hminus, stamp, stamp_step, wid, res, o):
    """S0 = rule-1 relaxation of the random start at H = 0; P_RC of the first
    flip at H^+(S0) and the avalanche under ``rule``. Uses walk ids wid − 1
    and wid. Returns ties met."""
    ties = 0
    # S0: rule-1 relaxation of the random start at H = 0; then raise H to H^+(S0)
    oc = walk(start, 0, 0, RULE_1, hps, hms, F, hplus, hminus, stamp, stamp_step, wid - 1, res)
    o[12] = -1
    o[13] = -1
    o[14] = -1
    if oc == STABLE:
        o[11] = 1
        S0 = res[0]
        if hplus[S0] < INF:
            Hc = hplus[S0]
            S1, _nu, _nf, t, _c = step(S0, Hc, 1, RULE_1, hps, hms, F, hplus, hminus)
            ties += t
            _S2, n_u, _nf, _t, _c = step(S1, Hc, 1, RULE_1, hps, hms, F, hplus, hminus)
            o[12] = 1 if n_u > 1 else 0
            oc = walk(S0, Hc, 1, rule, hps, hms, F, hplus, hminus, stamp, stamp_step, wid, res)
            o[13] = oc
            ties += res[4]
            if oc == STABLE:
                o[14] = res[1]
    return ties
