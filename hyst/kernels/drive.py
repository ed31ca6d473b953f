"""Event-driven kernels for systems of any size (int8 spin arrays, O(N) per flip).

Only ``@jit`` functions over plain arrays live here. Conventions as in
:mod:`hyst.model`: integer parameters, fields ``(Hc, eps)``, rule codes
0, 1, 2 (= 1p), 3 (= 2), outcome codes 0 stable, 1 self-loop, 2 ill-defined.

State s (int8 ±1) and local fields f_i = Σ_j c_ij s_j are updated together in
O(N) per flip. Cycle detection is exact: a 64-bit Zobrist hash of the state
locates candidate revisits in an open-addressing table, and a candidate is
confirmed only if every element flipped an even number of times since the
earlier visit (so a hash collision can never fake a self-loop). The table is
only set up once a relaxation takes a second step.

Couplings reach every kernel as ``(form, c, d)`` (``hyst.model.COUPLING_FORMS``):

- FORM_DENSE:     c[k] = c_ij (N, N); columns are read from a transposed copy
- FORM_SYMMETRIC: d[k] = the packed upper triangle, unpacked per system (c = c^T)
- FORM_COLUMNS:   d[k] (N,), c_ij = −d_j for i ≠ j: no matrix at all
- FORM_ROWS:      d[k] (N,), c_ij = −d_i for i ≠ j: no matrix at all

Per system the helpers take ``(form, ct, dk)`` with ct[j, i] = c_ij for the
matrix forms and dk the strengths of the columns and rows forms (the unused
one is an empty array).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst._numba import jit
from hyst.kernels.structure import dense_from_packed

INF = np.int64(2**61)
STABLE, SELF_LOOP, ILL_DEFINED = 0, 1, 2
RULE_0, RULE_1, RULE_1P, RULE_2 = 0, 1, 2, 3
FORM_DENSE, FORM_SYMMETRIC, FORM_COLUMNS, FORM_ROWS = 0, 1, 2, 3
#: Cyclic-drive outcome: a periodic orbit was reached / the drive hit the cycle limit.
ORBIT, NOT_CONVERGED = 0, 3


@jit
def zobrist_keys(N):
    """Deterministic 64-bit keys per element (splitmix64)."""
    keys = np.empty(N, np.uint64)
    x = np.uint64(0x9E3779B97F4A7C15)
    for i in range(N):
        x += np.uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        keys[i] = z ^ (z >> np.uint64(31))
    return keys


@jit
def init_fields(s, f, form, ct, d):
    """f_i = Σ_{j≠i} c_ij s_j; returns nothing."""
    N = s.shape[0]
    if form == FORM_COLUMNS:  # f_i = −(D − d_i s_i), D = Σ_j d_j s_j
        D = np.int64(0)
        for j in range(N):
            D += d[j] * s[j]
        for i in range(N):
            f[i] = d[i] * s[i] - D
    elif form == FORM_ROWS:  # f_i = −d_i (M − s_i), M = Σ_j s_j
        M = np.int64(0)
        for j in range(N):
            M += s[j]
        for i in range(N):
            f[i] = -d[i] * (M - s[i])
    else:
        for i in range(N):
            f[i] = 0
        for j in range(N):
            row = ct[j]
            if s[j] > 0:
                for i in range(N):
                    f[i] += row[i]
            else:
                for i in range(N):
                    f[i] -= row[i]


@jit
def coupling(i, j, form, ct, d):
    """c_ij of one system."""
    if i == j:
        return np.int64(0)
    if form == FORM_COLUMNS:
        return -d[j]
    if form == FORM_ROWS:
        return -d[i]
    return ct[j, i]


@jit
def system_view(k, form, c, d, buf):
    """(ct, dk) of system k: ct[j, i] = c_ij for the matrix forms (the dense form is
    transposed into ``buf``, the symmetric one unpacked into it) and the strengths."""
    if form == FORM_SYMMETRIC:
        dense_from_packed(FORM_SYMMETRIC, d[k], buf)
        return buf, d[k]
    if form != FORM_DENSE:
        return c[k], d[k]
    ck = c[k]
    N = ck.shape[0]
    tile = 32
    for ib in range(0, N, tile):
        for jb in range(0, N, tile):
            for i in range(ib, min(ib + tile, N)):
                for j in range(jb, min(jb + tile, N)):
                    buf[j, i] = ck[i, j]
    return buf, d[k]


@jit
def transpose_buffer(form, N):
    """Work array for ``system_view`` (empty for the columns and rows forms)."""
    n = N if form == FORM_DENSE or form == FORM_SYMMETRIC else 0
    return np.empty((n, n), np.int64)


@jit
def state_hash(neg, keys):
    """Zobrist hash of a state: XOR of the keys of the elements with s_i = +1 (branch free)."""
    h = np.uint64(0)
    for i in range(neg.shape[0]):
        h ^= keys[i] & np.uint64(neg[i])
    return h


@jit
def up_mask(s, neg):
    """neg_i = −1 (all bits set) if s_i = +1 else 0: the int64 mirror of the state that
    keeps the scans below branch free and vectorised."""
    for i in range(s.shape[0]):
        neg[i] = -1 if s[i] > 0 else 0


@jit
def flip(j, s, neg, f, form, ct, d):
    """Flip element j and update the local fields in O(N)."""
    s[j] = -s[j]
    neg[j] = ~neg[j]
    N = s.shape[0]
    if form == FORM_COLUMNS:  # Δf_i = c_ij Δs_j = −2 s_j d_j for every i ≠ j
        delta = 2 * s[j] * d[j]
        for i in range(N):
            f[i] -= delta
        f[j] += delta
    elif form == FORM_ROWS:  # Δf_i = −2 s_j d_i for i ≠ j
        if s[j] > 0:
            for i in range(N):
                f[i] -= 2 * d[i]
            f[j] += 2 * d[j]
        else:
            for i in range(N):
                f[i] += 2 * d[i]
            f[j] -= 2 * d[j]
    else:  # Δf_i = 2 s_j c_ij, row j of ct (c_jj = 0)
        row = ct[j]
        if s[j] > 0:
            for i in range(N):
                f[i] += 2 * row[i]
        else:
            for i in range(N):
                f[i] -= 2 * row[i]


#: Sentinel values above this bound are "no element" (real thresholds are below 2^59).
_NONE = np.int64(2**60)


@jit
def next_up(neg, f, hp):
    """(H^+(S), critical element, tie) over elements with s_i = −1; (INF, −1) if none.

    Branch free (elements with s_i = +1 are pushed up by INF), then the first
    index attaining the minimum."""
    N = neg.shape[0]
    best = INF
    for i in range(N):
        best = min(best, hp[i] - f[i] + (neg[i] & INF))
    if best >= _NONE:
        return INF, -1, False
    arg = N
    count = 0
    for i in range(N):  # the first index attaining the minimum, and how many do
        hit = hp[i] - f[i] + (neg[i] & INF) == best
        arg = min(arg, i if hit else N)
        count += hit
    return best, arg, count > 1


@jit
def next_down(neg, f, hm):
    """(H^−(S), critical element, tie) over elements with s_i = +1; (−INF, −1) if none."""
    N = neg.shape[0]
    best = -INF
    for i in range(N):
        best = max(best, hm[i] - f[i] - (~neg[i] & INF))
    if best <= -_NONE:
        return -INF, -1, False
    arg = N
    count = 0
    for i in range(N):
        hit = hm[i] - f[i] - (~neg[i] & INF) == best
        arg = min(arg, i if hit else N)
        count += hit
    return best, arg, count > 1


@jit(inline=True)
def _margin(ng, f_i, hp_i, hm_i, Hc, eps):
    """Instability margin m_i (times two) of one element (ng = its up mask); unstable
    iff m_i > 0. s_i = −1: 2 (Hc − H_i^+) + eps; s_i = +1: 2 (H_i^− − Hc) − eps."""
    thr = (hp_i & ~ng) | (hm_i & ng)
    x = 2 * (Hc - thr + f_i) + eps
    return (x ^ ng) - ng


@jit
def _scan(neg, f, Hc, eps, rule, hp, hm, buf):
    """Unstable elements at (Hc, eps): returns (n_u, chosen, ties); rule 2 fills buf."""
    N = neg.shape[0]
    if rule == RULE_1 or rule == RULE_0:
        # branch free: counts and the largest margin, then the first index attaining it
        n_u = np.int64(0)
        zeros = np.int64(0)
        bestm = np.int64(0)
        for i in range(N):
            m = _margin(neg[i], f[i], hp[i], hm[i], Hc, eps)
            n_u += m > 0
            zeros += m == 0
            bestm = max(bestm, m)
        if n_u == 0:
            return n_u, -1, zeros
        chosen = N
        count = 0
        for i in range(N):  # the first index with the largest margin, and how many have it
            hit = _margin(neg[i], f[i], hp[i], hm[i], Hc, eps) == bestm
            chosen = min(chosen, i if hit else N)
            count += hit
        if count > 1 and rule == RULE_1:  # equal largest margins: resolved by lowest index
            zeros += 1
        return n_u, chosen, zeros
    n_u = np.int64(0)
    ties = np.int64(0)
    chosen = -1
    bestm = np.int64(0)
    tie = False
    for i in range(N):
        m = _margin(neg[i], f[i], hp[i], hm[i], Hc, eps)
        if m == 0:
            ties += 1
        elif m > 0:
            if rule == RULE_2:
                buf[n_u] = i
            n_u += 1
            if chosen < 0 or m < bestm:
                bestm = m
                chosen = i
                tie = False
            elif m == bestm:
                tie = True
    if tie and rule == RULE_1P:
        ties += 1
    return n_u, chosen, ties


@jit
def _grow(a, n):
    b = np.empty(2 * a.shape[0], a.dtype)
    b[:n] = a[:n]
    return b


@jit
def _finish(out, flips, steps, race, ties, L, n_e, e1, e2):
    out[0] = flips
    out[1] = steps
    out[2] = race
    out[3] = ties
    out[4] = L
    out[5] = n_e
    out[6] = e1
    out[7] = e2


#: Initial capacity of a workspace's revisit table (a power of two) and flip log.
_TABLE, _LOG = 64, 256


@jit
def workspace(N):
    """Scratch arrays of the relaxation of one N-element system, reused across calls:
    (Zobrist keys, rule-2 buffer, table keys, table steps (−1 = empty), flip log,
    step bounds, parity marks)."""
    return (
        zobrist_keys(N),
        np.empty(N, np.int64),
        np.zeros(_TABLE, np.uint64),
        np.full(_TABLE, -1, np.int64),
        np.empty(_LOG, np.int64),
        np.empty(_TABLE, np.int64),
        np.zeros(N, np.int8),
    )


@jit
def system_state(N):
    """Work arrays of one N-element system: spins s (int8), their int64 mirror neg,
    local fields f, a relaxation result row and a ``workspace``."""
    return (
        np.empty(N, np.int8),
        np.empty(N, np.int64),
        np.empty(N, np.int64),
        np.zeros(8, np.int64),
        workspace(N),
    )


@jit
def relax(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out):
    """Relax (s, neg, f) in place at field (Hc, eps) under ``rule``.

    Fills out = [flips, steps, race, ties, L, n_e, e1, e2] and returns the outcome
    code. race = 1 if a state after the first step had several unstable
    elements. For a self-loop, L is the cycle length (steps) and n_e the
    number of distinct elements flipping in the cycle; (s, neg, f) are left at
    the first repeated state; e1, e2 are the first two elements flipping in
    the cycle (−1 if none). ``ws`` is a ``workspace(N)``.

    Transitions of zero or one flip (most events of a drive) take no cycle
    bookkeeping; longer ones continue in ``_relax_walk``.
    """
    buf = ws[1]
    if rule == RULE_2:
        nothing = (np.int64(0), -1, np.int64(0))
        return _relax_walk(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, -1, 0, nothing)
    n_u, chosen, ties = _scan(neg, f, Hc, eps, rule, hp, hm, buf)
    if n_u == 0:
        _finish(out, 0, 0, 0, ties, 0, 0, -1, -1)
        return STABLE
    if rule == RULE_0 and n_u > 1:
        _finish(out, 0, 0, 0, ties, 0, 0, -1, -1)
        return ILL_DEFINED
    flip(chosen, s, neg, f, form, ct, d)
    n_u, second, t = _scan(neg, f, Hc, eps, rule, hp, hm, buf)
    if n_u == 0:
        _finish(out, 1, 1, 0, ties + t, 0, 0, -1, -1)
        return STABLE
    scanned = (n_u, second, t)
    return _relax_walk(
        s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, chosen, ties, scanned
    )


@jit
def _relax_walk(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, first, ties, scanned):
    """The general relaxation loop with exact cycle detection. ``first`` >= 0: one
    single flip (of that element) was already made, with ``ties`` counted before it,
    and ``scanned`` is the scan of the state it led to."""
    keys, buf, tkeys, tstep, log, bound, par = ws
    e1 = -1
    e2 = -1
    nlog = 0
    h = state_hash(neg, keys)
    steps = 0
    flips = 0
    race = 0
    L = 0
    n_e = 0
    outcome = STABLE
    nent = 0
    mask = np.uint64(tkeys.shape[0] - 1)
    if first >= 0:  # the start state and step 1
        h0 = h ^ keys[first]
        slot = np.int64(h0 & mask)
        tkeys[slot] = h0
        tstep[slot] = 0
        nent = 1
        log[0] = first
        bound[0] = 0
        nlog = 1
        steps = 1
        flips = 1
    slot = np.int64(h & mask)
    while tstep[slot] >= 0:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    tkeys[slot] = h
    tstep[slot] = steps
    nent += 1
    while True:
        if first >= 0 and steps == 1:
            n_u, chosen, t = scanned
        else:
            n_u, chosen, t = _scan(neg, f, Hc, eps, rule, hp, hm, buf)
        ties += t
        if steps > 0 and n_u > 1:
            race = 1
        if n_u == 0:
            break
        if rule == RULE_0 and n_u > 1:
            outcome = ILL_DEFINED
            break
        if steps >= bound.shape[0]:
            bound = _grow(bound, steps)
        bound[steps] = nlog
        if rule == RULE_2:
            for q in range(n_u):
                j = buf[q]
                flip(j, s, neg, f, form, ct, d)
                h ^= keys[j]
                if nlog >= log.shape[0]:
                    log = _grow(log, nlog)
                log[nlog] = j
                nlog += 1
            flips += n_u
        else:
            flip(chosen, s, neg, f, form, ct, d)
            h ^= keys[chosen]
            if nlog >= log.shape[0]:
                log = _grow(log, nlog)
            log[nlog] = chosen
            nlog += 1
            flips += 1
        steps += 1
        # look the new state up
        mask = np.uint64(tkeys.shape[0] - 1)
        slot = np.int64(h & mask)
        found = -1
        while tstep[slot] >= 0:
            if tkeys[slot] == h:
                # candidate revisit: confirm exactly by flip parity since that step
                t0 = tstep[slot]
                for q in range(bound[t0], nlog):
                    par[log[q]] ^= 1
                ok = True
                for q in range(bound[t0], nlog):
                    if par[log[q]]:
                        ok = False
                    par[log[q]] = 0
                if ok:
                    found = t0
                    break
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
        if found >= 0:
            outcome = SELF_LOOP
            L = steps - found
            for q in range(bound[found], nlog):  # distinct elements, in order
                if not par[log[q]]:
                    par[log[q]] = 1
                    if n_e == 0:
                        e1 = log[q]
                    elif n_e == 1:
                        e2 = log[q]
                    n_e += 1
            for q in range(bound[found], nlog):
                par[log[q]] = 0
            break
        tkeys[slot] = h
        tstep[slot] = steps
        nent += 1
        if 2 * nent > tkeys.shape[0]:  # rehash into a table twice as large (this call only)
            ncap = 2 * tkeys.shape[0]
            nk = np.zeros(ncap, np.uint64)
            ns = np.full(ncap, -1, np.int64)
            nm = np.uint64(ncap - 1)
            for q in range(tkeys.shape[0]):
                if tstep[q] >= 0:
                    p = np.int64(tkeys[q] & nm)
                    while ns[p] >= 0:
                        p = np.int64((np.uint64(p) + np.uint64(1)) & nm)
                    nk[p] = tkeys[q]
                    ns[p] = tstep[q]
            if tkeys.shape[0] == ws[2].shape[0]:
                ws[3][:] = -1  # leave the workspace's own table empty
            tkeys = nk
            tstep = ns
    if tkeys.shape[0] == ws[2].shape[0]:
        tstep[:] = -1
    _finish(out, flips, steps, race, ties, L, n_e, e1, e2)
    return outcome


@jit
def _prepare(k, starts, form, c, d, s, neg, f, buf):
    """Copy start k into (s, neg), view system k's couplings and fill the local fields."""
    for i in range(s.shape[0]):
        s[i] = starts[k, i]
    up_mask(s, neg)
    ct, dk = system_view(k, form, c, d, buf)
    init_fields(s, f, form, ct, dk)
    return ct, dk


@jit(parallel=True)
def avalanche_batch(hp, hm, form, c, d, starts, rule, out):
    """Avalanches from prepared stable states, for a batch of systems.

    The random start (starts[k], int8 ±1) is relaxed at H = 0 under rule 1 to a
    stable S0; then H is raised to H^+(S0) + 0⁺ and the system relaxed under
    ``rule``. out[k] = [prepared (0/1; −1 if the preparation self-looped),
    outcome (−1 undefined), A = flips, race_first_flip (−1 undefined),
    ties, preparation_flips, L (self-loop length), n_e].
    """
    for k in prange(hp.shape[0]):
        avalanche_one(k, hp, hm, form, c, d, starts, rule, out)


@jit
def avalanche_batch_serial(hp, hm, form, c, d, starts, rule, out):
    """``avalanche_batch`` on the calling thread only (for thread pools)."""
    for k in range(hp.shape[0]):
        avalanche_one(k, hp, hm, form, c, d, starts, rule, out)


@jit
def avalanche_one(k, hp, hm, form, c, d, starts, rule, out):
    """Sample k of ``avalanche_batch``."""
    N = hp.shape[1]
    s, neg, f, res, ws = system_state(N)
    buf = ws[1]
    ct, dk = _prepare(k, starts, form, c, d, s, neg, f, transpose_buffer(form, N))
    o = out[k]
    oc = relax(s, neg, f, 0, 0, RULE_1, hp[k], hm[k], form, ct, dk, ws, res)
    o[0] = 1 if oc == STABLE else -1
    o[1] = -1
    o[2] = -1
    o[3] = -1
    o[4] = res[3]
    o[5] = res[0]
    o[6] = 0
    o[7] = 0
    if oc != STABLE:
        return
    Hc, crit, tie = next_up(neg, f, hp[k])
    if crit < 0:
        return
    if tie:
        o[4] += 1
    flip(crit, s, neg, f, form, ct, dk)
    n_u, _ch, _t = _scan(neg, f, Hc, 1, RULE_1, hp[k], hm[k], buf)
    o[3] = 1 if n_u > 1 else 0
    flip(crit, s, neg, f, form, ct, dk)
    oc = relax(s, neg, f, Hc, 1, rule, hp[k], hm[k], form, ct, dk, ws, res)
    o[1] = oc
    o[2] = res[0]
    o[4] += res[3]
    o[6] = res[4]
    o[7] = res[5]


@jit
def _sweep_up(s, neg, f, Umax, rule, hp, hm, form, ct, d, ws, res, acc):
    """Raise H event by event up to Umax + 0⁺. Returns an outcome code."""
    while True:
        Hc, crit, tie = next_up(neg, f, hp)
        if crit < 0 or Hc > Umax:
            return STABLE
        if tie:
            acc[1] += 1
        oc = relax(s, neg, f, Hc, 1, rule, hp, hm, form, ct, d, ws, res)
        acc[0] += res[0]
        acc[1] += res[3]
        if oc != STABLE:
            return oc


@jit
def _sweep_down(s, neg, f, rule, hp, hm, form, ct, d, ws, res, acc):
    """Lower H event by event down to exactly 0. Returns an outcome code."""
    while True:
        Hc, crit, tie = next_down(neg, f, hm)
        if crit < 0 or Hc < 0:
            return STABLE
        if Hc == 0:  # threshold exactly at the turning point: a tie, element kept
            acc[1] += 1
            return STABLE
        if tie:
            acc[1] += 1
        oc = relax(s, neg, f, Hc, -1, rule, hp, hm, form, ct, d, ws, res)
        acc[0] += res[0]
        acc[1] += res[3]
        if oc != STABLE:
            return oc


@jit(parallel=True)
def cyclic_drive_batch(hp, hm, form, c, d, starts, rule, max_cycles, out, umax):
    """Cyclic drive between U = 0 and U_max for a batch of systems.

    The random start is relaxed at U = 0 under rule 1 to S0 = x_0. In the first
    cycle U is raised event by event until the magnetisation m = Σ s_i
    reaches N/2; that switching field (+0⁺) is U_max, fixed afterwards. Each
    cycle raises U to U_max + 0⁺ and lowers it to 0 (transitions under
    ``rule``); x_k is the state at U = 0 after cycle k. The first repeat
    x_b = x_a gives the transient τ = a and period T = b − a (exact state
    comparison). out[k] = [prepared, outcome (0 orbit, 1 self-loop,
    2 ill-defined, 3 not converged within max_cycles, −1 undefined), tau, T,
    cycles, flips, ties]; umax[k] = U_max (int, quantum units).
    """
    for k in prange(hp.shape[0]):
        cyclic_drive_one(k, hp, hm, form, c, d, starts, rule, max_cycles, out, umax)


@jit
def cyclic_drive_batch_serial(hp, hm, form, c, d, starts, rule, max_cycles, out, umax):
    """``cyclic_drive_batch`` on the calling thread only (for thread pools)."""
    for k in range(hp.shape[0]):
        cyclic_drive_one(k, hp, hm, form, c, d, starts, rule, max_cycles, out, umax)


@jit
def cyclic_drive_one(k, hp, hm, form, c, d, starts, rule, max_cycles, out, umax):
    """Sample k of ``cyclic_drive_batch``."""
    N = hp.shape[1]
    s, neg, f, res, ws = system_state(N)
    keys = ws[0]
    acc = np.zeros(2, np.int64)  # flips, ties
    o = out[k]
    for q in range(o.shape[0]):
        o[q] = -1
    umax[k] = 0
    ct, dk = _prepare(k, starts, form, c, d, s, neg, f, transpose_buffer(form, N))
    hpk, hmk = hp[k], hm[k]
    oc = relax(s, neg, f, 0, 0, RULE_1, hpk, hmk, form, ct, dk, ws, res)
    acc[1] += res[3]
    o[0] = 1 if oc == STABLE else 0
    if oc != STABLE:
        o[6] = acc[1]
        return
    snaps = np.empty((16, N), np.int8)
    hashes = np.empty(16, np.uint64)
    snaps[0] = s
    hashes[0] = state_hash(neg, keys)
    nsnap = 1
    # first cycle: find U_max
    m = 0
    for i in range(N):
        m += s[i]
    Umax = np.int64(0)
    outcome = -1
    while 2 * m < N:
        Hc, crit, tie = next_up(neg, f, hpk)
        if crit < 0:
            break
        if tie:
            acc[1] += 1
        oc = relax(s, neg, f, Hc, 1, rule, hpk, hmk, form, ct, dk, ws, res)
        acc[0] += res[0]
        acc[1] += res[3]
        Umax = Hc
        if oc != STABLE:
            outcome = oc
            break
        m = 0
        for i in range(N):
            m += s[i]
    umax[k] = Umax
    cycles = 0
    if outcome < 0:
        oc = _sweep_down(s, neg, f, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        if oc != STABLE:
            outcome = oc
    cycles = 1
    while outcome < 0:
        h = state_hash(neg, keys)
        for a in range(nsnap):
            if hashes[a] == h:
                same = True
                for i in range(N):
                    if snaps[a, i] != s[i]:
                        same = False
                        break
                if same:
                    outcome = ORBIT
                    o[2] = a
                    o[3] = nsnap - a
                    break
        if outcome >= 0:
            break
        if nsnap >= max_cycles:
            outcome = NOT_CONVERGED
            break
        if nsnap >= snaps.shape[0]:
            ns = np.empty((2 * nsnap, N), np.int8)
            ns[:nsnap] = snaps[:nsnap]
            snaps = ns
            hashes = _grow(hashes, nsnap)
        snaps[nsnap] = s
        hashes[nsnap] = h
        nsnap += 1
        oc = _sweep_up(s, neg, f, Umax, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        if oc == STABLE:
            oc = _sweep_down(s, neg, f, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        cycles += 1
        if oc != STABLE:
            outcome = oc
    o[1] = outcome
    o[4] = cycles
    o[5] = acc[0]
    o[6] = acc[1]


#: Columns of one branch in ``saturated_loop_batch``'s output.
LOOP_COLUMNS = ("outcome", "L", "n_e", "e1", "e2", "c_kl", "c_lk", "h2_k", "h2_l", "events")


@jit
def _branch(direction, s, neg, f, hp, hm, form, ct, d, rule, ws, res, row):
    """Drive one saturated branch event by event; record its first self-loop in ``row``."""
    events = 0
    for q in range(row.shape[0]):
        row[q] = -1
    while True:
        if direction > 0:
            Hc, crit, _tie = next_up(neg, f, hp)
        else:
            Hc, crit, _tie = next_down(neg, f, hm)
        if crit < 0:  # saturated: the branch ended without a self-loop
            row[0] = STABLE
            break
        oc = relax(s, neg, f, Hc, direction, rule, hp, hm, form, ct, d, ws, res)
        events += 1
        if oc != STABLE:
            row[0] = oc
            row[1] = res[4]
            row[2] = res[5]
            k = res[6]
            l = res[7]
            row[3] = k
            row[4] = l
            if oc == SELF_LOOP and res[5] == 2:
                ckl = coupling(k, l, form, ct, d)
                clk = coupling(l, k, form, ct, d)
                row[5] = ckl
                row[6] = clk
                # 2 h̃_i = h_i^+ + h_i^- − 2 Σ_{j≠k,l} c_ij s_j  (exact, in quanta)
                row[7] = hp[k] + hm[k] - 2 * (f[k] - ckl * s[l])
                row[8] = hp[l] + hm[l] - 2 * (f[l] - clk * s[k])
            break
    row[9] = events


@jit
def saturated_loop_one(k, hp, hm, form, c, d, rule, out):
    """System k: the up branch from all −1 and the down branch from all +1."""
    N = hp.shape[1]
    s, neg, f, res, ws = system_state(N)
    ct, dk = system_view(k, form, c, d, transpose_buffer(form, N))
    for direction in (1, -1):
        for i in range(N):
            s[i] = -direction
        up_mask(s, neg)
        init_fields(s, f, form, ct, dk)
        _branch(
            direction,
            s,
            neg,
            f,
            hp[k],
            hm[k],
            form,
            ct,
            dk,
            rule,
            ws,
            res,
            out[k, 0 if direction > 0 else 1],
        )


@jit(parallel=True)
def saturated_loop_batch(hp, hm, form, c, d, rule, out):
    """Self-loops met along the saturated hysteresis loop, for a batch of systems.

    Each system is driven event by event (H jumps to the next switching field,
    transitions under ``rule``) from the all-down state up to the all-up state
    (branch 0) and from all-up down to all-down (branch 1). A branch stops at
    its first self-loop. out[k, branch] = LOOP_COLUMNS: outcome (0 reached
    saturation, 1 self-loop, 2 ill-defined), L, n_e, the loop's first two
    elements k, l, and for n_e = 2 loops c_kl, c_lk and 2 h̃ of both elements
    (h̃_i = h_i^c − Σ_{j≠k,l} c_ij s_j, in quanta), and the number of events.
    """
    for k in prange(hp.shape[0]):
        saturated_loop_one(k, hp, hm, form, c, d, rule, out)


@jit
def saturated_loop_batch_serial(hp, hm, form, c, d, rule, out):
    """``saturated_loop_batch`` on the calling thread only (for thread pools)."""
    for k in range(hp.shape[0]):
        saturated_loop_one(k, hp, hm, form, c, d, rule, out)
