"""Direct mechanical simulation of serial chains of bilinear elements (no mapping).

Only ``@jit`` functions over plain int64 arrays live here. A chain of N
elements f_i = x_i − d_i s_i in series with a spring k = p/q (no spring:
p = 1, q = 0) is driven by the total displacement U. Force balance (one force
f in every element, f/k in the spring) gives, with D = pN + q and the drive
variable W = p U,

    X_i := D x_i = W − p Σ_j d_j s_j + D d_i s_i,

so scaled positions, scaled switching displacements D x_i^± and W are exact
int64 (quanta of ``hyst.model.systems.QUANTUM``). Element i is unstable when it has
left its branch: s_i = −1 and X_i > D x_i^+, or s_i = +1 and X_i < D x_i^−. Its
distance past the threshold in x, times 2D, is the doubled margin

    s_i = −1:  m_i = 2 (X_i − D x_i^+) + eps,     s_i = +1:  m_i = 2 (D x_i^− − X_i) − eps

at the drive W = Wc + eps·0⁺ (eps in {+1, 0, −1}; ∂X_i/∂W = 1 for every
element). Rules as in the hysteron model (codes 0, 1, 2 = 1p, 3 = 2): rule 1
flips the element furthest past its threshold in x (lowest index on equal
margins, counted as a tie); a margin of exactly 0 is a tie and stable.

Phase states are uint64 bitmasks (bit i set ⇔ s_i = +1, N ≤ 64) next to int8
arrays of ±1. A relaxation at fixed drive records every phase state it visits
and stops at the first revisit: limit cycles are found exactly, never by a
step cap. Outcome codes: 0 stable, 1 limit cycle (self-loop), 2 ill-defined
(rule 0 race condition).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst.kernels import bookkeeping, rules
from hyst.kernels.codes import (
    ILL_DEFINED,
    INF,
    MECH_RELAX_COLUMNS,
    ML_EVENTS,
    ML_L,
    ML_N_E,
    ML_OUTCOME,
    MOVED,
    MR_CYCLE_START,
    PC_ATTRACTOR,
    PC_GRAPH,
    PC_INTERVALS,
    PC_TIES,
    RECORD_L,
    RECORD_N_E,
    RECORD_TIES,
    RULE_0,
    RULE_2,
    SELF_LOOP,
    SL1,
    SL2,
    SL3,
    SL4,
    SL5,
    SL6,
    SL_OTHER,
    STABLE,
)
from hyst.kernels.jit import batch_kernel, jit


@jit(borrow=True)
def phase_mask(s):
    """uint64 bitmask of a phase state (bit i ⇔ s_i = +1)."""
    m = np.uint64(0)
    for i in range(s.shape[0]):
        if s[i] > 0:
            m |= np.uint64(1) << np.uint64(i)
    return m


@jit(borrow=True)
def set_phases(mask, s):
    """Fill the int8 phases s from a bitmask."""
    for i in range(s.shape[0]):
        s[i] = 1 if (mask >> np.uint64(i)) & np.uint64(1) else -1


@jit(borrow=True)
def scaled_positions(s, Wc, p, D, d, X):
    """X_i = D x_i at drive W = Wc from force balance (one force in the whole chain)."""
    N = s.shape[0]
    load = np.int64(0)
    for j in range(N):
        load += d[j] * s[j]
    load *= p
    for i in range(N):
        X[i] = Wc - load + D * d[i] * s[i]


@jit(borrow=True)
def switching_drives(s, p, D, xm, xp, d, X):
    """(W^−(S), W^+(S)): the drives at which the first element leaves its branch going
    down / up (±INF when every element is up / down). Uses X as work array."""
    scaled_positions(s, 0, p, D, d, X)
    up = INF
    dn = -INF
    for i in range(s.shape[0]):
        if s[i] < 0:
            up = min(up, D * xp[i] - X[i])
        else:
            dn = max(dn, D * xm[i] - X[i])
    return dn, up


@jit(borrow=True)
def step(s, Wc, eps, rule, p, D, xm, xp, d, X):
    """One step at drive (Wc, eps): flip the rule's element(s) in place.

    The margins are the hysteron model's with H_i^+ → D x_i^+ − X_i and H_i^− → D x_i^− − X_i
    at Hc = 0 (X_i holds the drive), and the rule's choice is that of
    :mod:`hyst.kernels.rules`. Returns (code, n_unstable, n_flipped, ties): code STABLE,
    MOVED or ILL_DEFINED (rule 0 with several unstable elements), ``bookkeeping.verdict``'s
    answer written out: called here, the chains' saturated loop ran 10 % slower.
    ties: 1 for a stable state with a zero margin; for a state that moves, its zero margins
    plus 1 if the winning margin is shared (the hysteron kernels' count).
    """
    N = s.shape[0]
    scaled_positions(s, Wc, p, D, d, X)
    acc = rules.start(rule)
    for i in range(N):
        acc = rules.tally(acc, i, rules.margin(s[i] > 0, X[i], D * xp[i], D * xm[i], 0, eps), rule)
    n_u, chosen, ties = rules.choose(rule, acc)
    if n_u == 0:
        return STABLE, 0, 0, 1 if ties > 0 else 0
    if rule == RULE_0 and n_u > 1:
        return ILL_DEFINED, n_u, 0, ties
    if rule == RULE_2:
        mask = rules.unstable(acc)
        for i in range(N):
            if (mask >> i) & 1:
                s[i] = -s[i]
        return MOVED, n_u, n_u, ties
    s[chosen] = -s[chosen]
    return MOVED, n_u, 1, ties


@jit
def relax(s, Wc, eps, rule, p, D, xm, xp, d, traj, out):
    """Relax the phases s (in place) at the fixed drive (Wc, eps) under ``rule``; returns
    (outcome, traj).

    Each ``step`` flips the element(s) the rule picks among those past their thresholds;
    the relaxation's record (steps, flips, race, ties), its end (stable, or ill-defined under
    rule 0) and its self-loops are :mod:`hyst.kernels.bookkeeping`'s. traj (uint64) records
    the phase states visited, traj[k] after k steps (grown when needed, and returned): a
    step onto a state already in it closes a limit cycle, found exactly, never by a step cap.

    Fills out = ``codes.MECH_RELAX_COLUMNS``: the record (flips, steps, race, ties, L, n_e:
    the states of the limit cycle and the elements that flip in it), then cycle_start, the
    index in traj of the cycle's first state (−1 if none). For a limit cycle, s ends on the
    first revisited state and traj[cycle_start : cycle_start + L] are the cycle's states in
    order.
    """
    N = s.shape[0]
    X = np.empty(N, np.int64)
    book = bookkeeping.begin(0)
    traj[0] = phase_mask(s)
    outcome = STABLE
    L = 0
    n_e = 0
    start = -1
    while True:
        code, n_u, nf, t = step(s, Wc, eps, rule, p, D, xm, xp, d, X)
        book = bookkeeping.scanned(book, n_u, t)
        if code != MOVED:
            outcome = code
            break
        book = bookkeeping.moved(book, nf)
        steps = book[0]
        m = phase_mask(s)
        for k in range(steps - 1, -1, -1):
            if traj[k] == m:
                start = k
                break
        if start >= 0:
            outcome = SELF_LOOP
            L = bookkeeping.loop_length(book, start)
            changed = np.uint64(0)
            for k in range(start, steps):
                nxt = traj[k + 1] if k + 1 < steps else traj[start]
                changed |= traj[k] ^ nxt
            n_e = bookkeeping.elements_flipping(changed)
            break
        if steps >= traj.shape[0]:
            grown = np.empty(2 * traj.shape[0], np.uint64)
            grown[: traj.shape[0]] = traj
            traj = grown
        traj[steps] = m
    bookkeeping.record(out, book, L, n_e)
    out[MR_CYCLE_START] = start
    return outcome, traj


@jit
def relax_mask(state, Wc, eps, rule, p, D, xm, xp, d, traj, out):
    """``relax`` from a bitmask; returns (outcome, final bitmask, traj)."""
    s = np.empty(xm.shape[0], np.int8)
    set_phases(np.uint64(state), s)
    oc, traj = relax(s, Wc, eps, rule, p, D, xm, xp, d, traj, out)
    return oc, phase_mask(s), traj


@jit
def all_switching_drives(xm, xp, d, p, D, wminus, wplus):
    """W^∓(S) of all 2^N phase states (bitmask order; N ≤ 24)."""
    N = xm.shape[0]
    s = np.empty(N, np.int8)
    X = np.empty(N, np.int64)
    for S in range(1 << N):
        set_phases(np.uint64(S), s)
        wminus[S], wplus[S] = switching_drives(s, p, D, xm, xp, d, X)


@jit
def saturated_branch(direction, s, p, D, xm, xp, d, rule, traj, row):
    """Drive one saturated branch quasistatically, event by event, from the current
    (saturated) phases: W jumps to the next switching drive W^±(S) and the chain
    relaxes at W^±(S) ± 0⁺. Stops at saturation or at the first state that is not
    stable. row = (outcome, L, n_e, events), L = n_e = −1 when the branch saturates;
    returns traj."""
    N = s.shape[0]
    X = np.empty(N, np.int64)
    res = np.zeros(len(MECH_RELAX_COLUMNS), np.int64)
    events = 0
    row[ML_OUTCOME] = STABLE
    row[ML_L] = -1
    row[ML_N_E] = -1
    while True:
        dn, up = switching_drives(s, p, D, xm, xp, d, X)
        Wc = up if direction > 0 else dn
        if Wc >= INF or Wc <= -INF:
            break
        oc, traj = relax(s, Wc, direction, rule, p, D, xm, xp, d, traj, res)
        events += 1
        if oc != STABLE:
            row[ML_OUTCOME] = oc
            row[ML_L] = res[RECORD_L]
            row[ML_N_E] = res[RECORD_N_E]
            break
    row[ML_EVENTS] = events
    return traj


@jit
def saturated_loop_one(k, xm, xp, d, p, D, rule, out):
    """Chain k: up branch from all s = −1, down branch from all s = +1."""
    N = xm.shape[1]
    s = np.empty(N, np.int8)
    traj = np.empty(64, np.uint64)
    for b in range(2):
        direction = 1 if b == 0 else -1
        for i in range(N):
            s[i] = -direction
        traj = saturated_branch(direction, s, p, D, xm[k], xp[k], d[k], rule, traj, out[k, b])


@batch_kernel
def saturated_loop_batch(xm, xp, d, p, D, rule, out):
    """Self-loops met along the saturated loop of a batch of chains (N ≤ 64).

    out[k, branch] = ``codes.MECH_LOOP_COLUMNS``, branch 0 from all −1 up to
    all +1, branch 1 back down; the hysteron counterpart is
    ``hyst.kernels.first_loops.first_loops_batch``.
    """
    for k in prange(xm.shape[0]):
        saturated_loop_one(np.int64(k), xm, xp, d, p, D, rule, out)


@jit
def critical_drives(xm, xp, d, p, D, buf):
    """Sorted distinct drives (in units of W/2) where the fixed-drive dynamics can change.

    Between two consecutive values every element's stability and the order of
    the margins are the same in every phase state: the thresholds 2 W_i^±(S) of
    every element in every state, and the crossings W_i^+(S) + W_j^−(S) of the
    margins of a down element i and an up element j (margins of elements
    moving the same way are parallel and never cross). buf needs
    2^N (N + N²/4) entries; returns how many were filled.
    """
    N = xm.shape[0]
    s = np.empty(N, np.int8)
    X = np.empty(N, np.int64)
    n = 0
    for S in range(1 << N):
        set_phases(np.uint64(S), s)
        scaled_positions(s, 0, p, D, d, X)
        for i in range(N):
            wi = D * (xp[i] if s[i] < 0 else xm[i]) - X[i]
            buf[n] = 2 * wi
            n += 1
            if s[i] < 0:
                for j in range(N):
                    if s[j] > 0:
                        buf[n] = wi + D * xm[j] - X[j]
                        n += 1
    vals = np.sort(buf[:n])
    m = 0
    for k in range(n):
        if m == 0 or vals[k] != buf[m - 1]:
            buf[m] = vals[k]
            m += 1
    return m


@jit
def pair_family(cycle_min, L, second):
    """Family code of a limit cycle of two elements: 0–5 for SL1–SL6, 6 otherwise.

    SL1 (−−)↔(+−), SL2 (−+)↔(++), SL3 (−−)↔(−+), SL4 (+−)↔(++) (L = 2, one
    element); SL5 (−−)→(+−)→(++)→(−+), SL6 (−−)→(−+)→(++)→(+−) (L = 4, both).
    Bit 0 is element 1 (state (+−) is bitmask 1). ``second`` is the state after
    ``cycle_min`` in the cycle. Codes: ``codes.PAIR_FAMILIES``.
    """
    if L == 2:
        if cycle_min == 0:
            return SL1 if second == 1 else (SL3 if second == 2 else SL_OTHER)
        if cycle_min == 2 and second == 3:
            return SL2
        if cycle_min == 1 and second == 3:
            return SL4
        return SL_OTHER
    if L == 4 and cycle_min == 0:
        return SL5 if second == 1 else SL6
    return SL_OTHER


@jit
def _cycle_family(traj, out):
    """Family of the limit cycle just found by ``relax`` (its states are in traj)."""
    start = out[MR_CYCLE_START]
    L = out[RECORD_L]
    kmin = start
    for k in range(start, start + L):
        if traj[k] < traj[kmin]:
            kmin = k
    nxt = kmin + 1 if kmin + 1 < start + L else start
    return pair_family(np.int64(traj[kmin]), L, np.int64(traj[nxt]))


@jit
def pair_cell(xm, xp, d, p, D, rule, buf, traj, out):
    """Self-loop families of one chain of two elements (one cell of a (d1, d2) scan).

    Works in doubled units (every margin crossing is then an integer drive).
    out = ``codes.PAIR_CELL_COLUMNS``: families met as attractors anywhere in the
    drive range, families met by the transition graph's transitions (bitmasks of
    ``pair_family`` codes), intervals scanned, ties met. The drive range is scanned at
    W = c + 0⁺ for every critical drive c and below the lowest one: one drive
    inside every open interval on which the dynamics is constant.
    """
    N = xm.shape[0]
    xm2 = 2 * xm
    xp2 = 2 * xp
    d2 = 2 * d
    res = np.zeros(len(MECH_RELAX_COLUMNS), np.int64)
    s = np.empty(N, np.int8)
    X = np.empty(N, np.int64)
    # critical drives of the chain in units of W/2 = the drives of the doubled chain
    n = critical_drives(xm, xp, d, p, D, buf)
    attract = 0
    graph = 0
    ties = 0
    for k in range(-1, n):
        Wc = buf[0] if k < 0 else buf[k]
        eps = -1 if k < 0 else 1
        for S in range(1 << N):
            set_phases(np.uint64(S), s)
            oc, traj = relax(s, Wc, eps, rule, p, D, xm2, xp2, d2, traj, res)
            ties += res[RECORD_TIES]
            if oc == SELF_LOOP:
                attract |= 1 << _cycle_family(traj, res)
    for S in range(1 << N):
        set_phases(np.uint64(S), s)
        dn, up = switching_drives(s, p, D, xm2, xp2, d2, X)
        if not dn < up:
            continue
        for direction in (1, -1):
            Wc = up if direction > 0 else dn
            if Wc >= INF or Wc <= -INF:
                continue
            set_phases(np.uint64(S), s)
            oc, traj = relax(s, Wc, direction, rule, p, D, xm2, xp2, d2, traj, res)
            ties += res[RECORD_TIES]
            if oc == SELF_LOOP:
                graph |= 1 << _cycle_family(traj, res)
    out[PC_ATTRACTOR] = attract
    out[PC_GRAPH] = graph
    out[PC_INTERVALS] = n + 1
    out[PC_TIES] = ties


@batch_kernel
def pair_scan(xm, xp, d, p, D, rule, out):
    """``pair_cell`` for a batch of two-element chains (cells), xm, xp, d (cells, 2)."""
    for k in prange(xm.shape[0]):
        buf = np.empty(4 * 4, np.int64)
        traj = np.empty(16, np.uint64)
        pair_cell(xm[k], xp[k], d[k], p, D, rule, buf, traj, out[k])
