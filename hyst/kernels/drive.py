"""Event-driven kernels for systems of any size (int8 spin arrays, O(N) per flip).

Only ``@jit`` functions over plain arrays live here. Conventions as in
:mod:`hyst.model`: integer parameters, fields ``(Hc, eps)``, rule codes
0, 1, 2 (= 1p), 3 (= 2), outcome codes 0 stable, 1 self-loop, 2 ill-defined.

State s (int8 ±1) and local fields f_i = Σ_j c_ij s_j are updated together in
O(N) per flip. Cycle detection is exact: a 64-bit Zobrist hash of the state
locates candidate revisits in an open-addressing table, and a candidate is
confirmed only if every element flipped an even number of times since the
earlier visit (so a hash collision can never fake a self-loop).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst._numba import jit

INF = np.int64(2**61)
STABLE, SELF_LOOP, ILL_DEFINED = 0, 1, 2
RULE_0, RULE_1, RULE_1P, RULE_2 = 0, 1, 2, 3
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
def init_fields(c, s, f):
    """f_i = Σ_j c_ij s_j; returns nothing."""
    N = s.shape[0]
    for i in range(N):
        acc = np.int64(0)
        for j in range(N):
            acc += c[i, j] * s[j]
        f[i] = acc


@jit
def state_hash(s, keys):
    h = np.uint64(0)
    for i in range(s.shape[0]):
        if s[i] > 0:
            h ^= keys[i]
    return h


@jit
def flip(j, s, f, c2t):
    """Flip element j and update the local fields (c2t[j, i] = 2 c_ij)."""
    s[j] = -s[j]
    row = c2t[j]
    if s[j] > 0:
        for i in range(s.shape[0]):
            f[i] += row[i]
    else:
        for i in range(s.shape[0]):
            f[i] -= row[i]


@jit
def next_up(s, f, hp):
    """(H^+(S), critical element, tie) over elements with s_i = −1; (INF, −1) if none."""
    best = INF
    arg = -1
    tie = False
    for i in range(s.shape[0]):
        if s[i] < 0:
            v = hp[i] - f[i]
            if v < best:
                best = v
                arg = i
                tie = False
            elif v == best:
                tie = True
    return best, arg, tie


@jit
def next_down(s, f, hm):
    """(H^−(S), critical element, tie) over elements with s_i = +1; (−INF, −1) if none."""
    best = -INF
    arg = -1
    tie = False
    for i in range(s.shape[0]):
        if s[i] > 0:
            v = hm[i] - f[i]
            if v > best:
                best = v
                arg = i
                tie = False
            elif v == best:
                tie = True
    return best, arg, tie


@jit
def _scan(s, f, Hc, eps, rule, hp, hm, buf):
    """Unstable elements at (Hc, eps): returns (n_u, chosen, ties); rule 2 fills buf."""
    n_u = 0
    ties = 0
    chosen = -1
    bestm = np.int64(0)
    tie = False
    for i in range(s.shape[0]):
        if s[i] < 0:
            m = 2 * (Hc - hp[i] + f[i]) + eps
        else:
            m = 2 * (hm[i] - f[i] - Hc) - eps
        if m == 0:
            ties += 1
        elif m > 0:
            if rule == RULE_2:
                buf[n_u] = i
            n_u += 1
            if chosen < 0 or (rule == RULE_1P and m < bestm) or (rule != RULE_1P and m > bestm):
                bestm = m
                chosen = i
                tie = False
            elif m == bestm:
                tie = True
    if tie and (rule == RULE_1 or rule == RULE_1P):
        ties += 1
    return n_u, chosen, ties


@jit
def _grow(a, n):
    b = np.empty(2 * a.shape[0], a.dtype)
    b[:n] = a[:n]
    return b


@jit
def relax(s, f, Hc, eps, rule, hp, hm, c2t, keys, out):
    """Relax (s, f) in place at field (Hc, eps) under ``rule``.

    Fills out = [flips, steps, race, ties, L, n_e, e1, e2] and returns the outcome
    code. race = 1 if a state after the first step had several unstable
    elements. For a self-loop, L is the cycle length (steps) and n_e the
    number of distinct elements flipping in the cycle; (s, f) are left at the
    first repeated state; e1, e2 are the first two elements flipping in the
    cycle (−1 if none).
    """
    N = s.shape[0]
    first_two = np.full(2, -1, np.int64)
    buf = np.empty(N, np.int64)
    cap = 64
    tkeys = np.zeros(cap, np.uint64)
    tstep = np.full(cap, -1, np.int64)
    log = np.empty(256, np.int64)  # flipped elements, in order
    bound = np.empty(64, np.int64)  # log position at the start of each step
    nlog = 0
    h = state_hash(s, keys)
    steps = 0
    flips = 0
    race = 0
    ties = 0
    L = 0
    n_e = 0
    outcome = STABLE
    # insert the start state
    slot = np.int64(h & np.uint64(cap - 1))
    tkeys[slot] = h
    tstep[slot] = 0
    nent = 1
    while True:
        n_u, chosen, t = _scan(s, f, Hc, eps, rule, hp, hm, buf)
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
            for k in range(n_u):
                j = buf[k]
                flip(j, s, f, c2t)
                h ^= keys[j]
                if nlog >= log.shape[0]:
                    log = _grow(log, nlog)
                log[nlog] = j
                nlog += 1
            flips += n_u
        else:
            flip(chosen, s, f, c2t)
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
                par = np.zeros(N, np.int8)
                for q in range(bound[t0], nlog):
                    par[log[q]] ^= 1
                ok = True
                for i in range(N):
                    if par[i]:
                        ok = False
                        break
                if ok:
                    found = t0
                    break
            slot = np.int64((slot + 1) & mask)
        if found >= 0:
            outcome = SELF_LOOP
            L = steps - found
            seen = np.zeros(N, np.int8)
            for q in range(bound[found], nlog):
                if not seen[log[q]]:
                    seen[log[q]] = 1
                    if n_e < 2:
                        first_two[n_e] = log[q]
                    n_e += 1
            break
        tkeys[slot] = h
        tstep[slot] = steps
        nent += 1
        if 2 * nent > tkeys.shape[0]:  # rehash into a table twice as large
            ncap = 2 * tkeys.shape[0]
            nk = np.zeros(ncap, np.uint64)
            ns = np.full(ncap, -1, np.int64)
            nm = np.uint64(ncap - 1)
            for q in range(tkeys.shape[0]):
                if tstep[q] >= 0:
                    p = np.int64(tkeys[q] & nm)
                    while ns[p] >= 0:
                        p = np.int64((p + 1) & nm)
                    nk[p] = tkeys[q]
                    ns[p] = tstep[q]
            tkeys = nk
            tstep = ns
    out[0] = flips
    out[1] = steps
    out[2] = race
    out[3] = ties
    out[4] = L
    out[5] = n_e
    out[6] = first_two[0]
    out[7] = first_two[1]
    return outcome


@jit
def _system_setup(start, c, s, f, c2t):
    """Copy the start state, fill c2t[j, i] = 2 c_ij (a tiled transpose, cache friendly
    at large N) and the local fields."""
    N = s.shape[0]
    for i in range(N):
        s[i] = start[i]
    tile = 32
    for ib in range(0, N, tile):
        for jb in range(0, N, tile):
            for i in range(ib, min(ib + tile, N)):
                for j in range(jb, min(jb + tile, N)):
                    c2t[j, i] = 2 * c[i, j]
    init_fields(c, s, f)


@jit(parallel=True)
def avalanche_batch(hp, hm, c, starts, rule, out):
    """Avalanches from prepared stable states, for a batch of systems.

    The random start (starts[k], int8 ±1) is relaxed at H = 0 under rule 1 to a
    stable S0; then H is raised to H^+(S0) + 0⁺ and the system relaxed under
    ``rule``. out[k] = [prepared (0/1; −1 if the preparation self-looped),
    outcome (−1 undefined), A = flips, race_first_flip (−1 undefined),
    ties, preparation_flips, L (self-loop length), n_e].
    """
    keys = zobrist_keys(hp.shape[1])
    for k in prange(hp.shape[0]):
        avalanche_one(k, hp, hm, c, starts, rule, out, keys)


@jit
def avalanche_batch_serial(hp, hm, c, starts, rule, out):
    """``avalanche_batch`` on the calling thread only (for thread pools)."""
    keys = zobrist_keys(hp.shape[1])
    for k in range(hp.shape[0]):
        avalanche_one(k, hp, hm, c, starts, rule, out, keys)


@jit
def avalanche_one(k, hp, hm, c, starts, rule, out, keys):
    """Sample k of ``avalanche_batch``."""
    N = hp.shape[1]
    s = np.empty(N, np.int8)
    f = np.empty(N, np.int64)
    c2t = np.empty((N, N), np.int64)
    res = np.zeros(8, np.int64)
    buf = np.empty(N, np.int64)
    o = out[k]
    _system_setup(starts[k], c[k], s, f, c2t)
    oc = relax(s, f, 0, 0, RULE_1, hp[k], hm[k], c2t, keys, res)
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
    Hc, crit, tie = next_up(s, f, hp[k])
    if crit < 0:
        return
    if tie:
        o[4] += 1
    flip(crit, s, f, c2t)
    n_u, _ch, _t = _scan(s, f, Hc, 1, RULE_1, hp[k], hm[k], buf)
    o[3] = 1 if n_u > 1 else 0
    flip(crit, s, f, c2t)
    oc = relax(s, f, Hc, 1, rule, hp[k], hm[k], c2t, keys, res)
    o[1] = oc
    o[2] = res[0]
    o[4] += res[3]
    o[6] = res[4]
    o[7] = res[5]


@jit
def _sweep_up(s, f, Umax, rule, hp, hm, c2t, keys, res, acc):
    """Raise H event by event up to Umax + 0⁺. Returns an outcome code."""
    while True:
        Hc, crit, tie = next_up(s, f, hp)
        if crit < 0 or Hc > Umax:
            return STABLE
        if tie:
            acc[1] += 1
        oc = relax(s, f, Hc, 1, rule, hp, hm, c2t, keys, res)
        acc[0] += res[0]
        acc[1] += res[3]
        if oc != STABLE:
            return oc


@jit
def _sweep_down(s, f, rule, hp, hm, c2t, keys, res, acc):
    """Lower H event by event down to exactly 0. Returns an outcome code."""
    while True:
        Hc, crit, tie = next_down(s, f, hm)
        if crit < 0 or Hc < 0:
            return STABLE
        if Hc == 0:  # threshold exactly at the turning point: a tie, element kept
            acc[1] += 1
            return STABLE
        if tie:
            acc[1] += 1
        oc = relax(s, f, Hc, -1, rule, hp, hm, c2t, keys, res)
        acc[0] += res[0]
        acc[1] += res[3]
        if oc != STABLE:
            return oc


@jit(parallel=True)
def cyclic_drive_batch(hp, hm, c, starts, rule, max_cycles, out, umax):
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
    keys = zobrist_keys(hp.shape[1])
    for k in prange(hp.shape[0]):
        cyclic_drive_one(k, hp, hm, c, starts, rule, max_cycles, out, umax, keys)


@jit
def cyclic_drive_batch_serial(hp, hm, c, starts, rule, max_cycles, out, umax):
    """``cyclic_drive_batch`` on the calling thread only (for thread pools)."""
    keys = zobrist_keys(hp.shape[1])
    for k in range(hp.shape[0]):
        cyclic_drive_one(k, hp, hm, c, starts, rule, max_cycles, out, umax, keys)


@jit
def cyclic_drive_one(k, hp, hm, c, starts, rule, max_cycles, out, umax, keys):
    """Sample k of ``cyclic_drive_batch``."""
    N = hp.shape[1]
    s = np.empty(N, np.int8)
    f = np.empty(N, np.int64)
    c2t = np.empty((N, N), np.int64)
    res = np.zeros(8, np.int64)
    acc = np.zeros(2, np.int64)  # flips, ties
    o = out[k]
    for q in range(o.shape[0]):
        o[q] = -1
    umax[k] = 0
    _system_setup(starts[k], c[k], s, f, c2t)
    oc = relax(s, f, 0, 0, RULE_1, hp[k], hm[k], c2t, keys, res)
    acc[1] += res[3]
    o[0] = 1 if oc == STABLE else 0
    if oc != STABLE:
        o[6] = acc[1]
        return
    snaps = np.empty((16, N), np.int8)
    hashes = np.empty(16, np.uint64)
    snaps[0] = s
    hashes[0] = state_hash(s, keys)
    nsnap = 1
    # first cycle: find U_max
    m = 0
    for i in range(N):
        m += s[i]
    Umax = np.int64(0)
    outcome = -1
    while 2 * m < N:
        Hc, crit, tie = next_up(s, f, hp[k])
        if crit < 0:
            break
        if tie:
            acc[1] += 1
        oc = relax(s, f, Hc, 1, rule, hp[k], hm[k], c2t, keys, res)
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
        oc = _sweep_down(s, f, rule, hp[k], hm[k], c2t, keys, res, acc)
        if oc != STABLE:
            outcome = oc
    cycles = 1
    while outcome < 0:
        h = state_hash(s, keys)
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
        oc = _sweep_up(s, f, Umax, rule, hp[k], hm[k], c2t, keys, res, acc)
        if oc == STABLE:
            oc = _sweep_down(s, f, rule, hp[k], hm[k], c2t, keys, res, acc)
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
def _branch(direction, s, f, hp, hm, c, c2t, rule, keys, res, row):
    """Drive one saturated branch event by event; record its first self-loop in ``row``."""
    events = 0
    for q in range(row.shape[0]):
        row[q] = -1
    while True:
        if direction > 0:
            Hc, crit, _tie = next_up(s, f, hp)
        else:
            Hc, crit, _tie = next_down(s, f, hm)
        if crit < 0:  # saturated: the branch ended without a self-loop
            row[0] = STABLE
            break
        oc = relax(s, f, Hc, direction, rule, hp, hm, c2t, keys, res)
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
                row[5] = c[k, l]
                row[6] = c[l, k]
                # 2 h̃_i = h_i^+ + h_i^- − 2 Σ_{j≠k,l} c_ij s_j  (exact, in quanta)
                row[7] = hp[k] + hm[k] - 2 * (f[k] - c[k, l] * s[l])
                row[8] = hp[l] + hm[l] - 2 * (f[l] - c[l, k] * s[k])
            break
    row[9] = events


@jit
def saturated_loop_one(k, hp, hm, c, rule, out, keys):
    """System k: the up branch from all −1 and the down branch from all +1."""
    N = hp.shape[1]
    s = np.empty(N, np.int8)
    f = np.empty(N, np.int64)
    c2t = np.empty((N, N), np.int64)
    res = np.zeros(8, np.int64)
    for direction in (1, -1):
        for i in range(N):
            s[i] = -direction
        _system_setup(s.copy(), c[k], s, f, c2t)
        _branch(
            direction,
            s,
            f,
            hp[k],
            hm[k],
            c[k],
            c2t,
            rule,
            keys,
            res,
            out[k, 0 if direction > 0 else 1],
        )


@jit(parallel=True)
def saturated_loop_batch(hp, hm, c, rule, out):
    """Self-loops met along the saturated hysteresis loop, for a batch of systems.

    Each system is driven event by event (H jumps to the next switching field,
    transitions under ``rule``) from the all-down state up to the all-up state
    (branch 0) and from all-up down to all-down (branch 1). A branch stops at
    its first self-loop. out[k, branch] = LOOP_COLUMNS: outcome (0 reached
    saturation, 1 self-loop, 2 ill-defined), L, n_e, the loop's first two
    elements k, l, and for n_e = 2 loops c_kl, c_lk and 2 h̃ of both elements
    (h̃_i = h_i^c − Σ_{j≠k,l} c_ij s_j, in quanta), and the number of events.
    """
    keys = zobrist_keys(hp.shape[1])
    for k in prange(hp.shape[0]):
        saturated_loop_one(k, hp, hm, c, rule, out, keys)


@jit
def saturated_loop_batch_serial(hp, hm, c, rule, out):
    """``saturated_loop_batch`` on the calling thread only (for thread pools)."""
    keys = zobrist_keys(hp.shape[1])
    for k in range(hp.shape[0]):
        saturated_loop_one(k, hp, hm, c, rule, out, keys)
