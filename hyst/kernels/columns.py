"""Constant-columns systems (c_ij = −d_j) relaxed and driven in O(N/64) per flip.

With c_ij = −d_j the local field is f_i = d_i s_i − D, D = Σ_j d_j s_j, so the state enters
the stability of element i only through X = H − D against a static key:

- a down element (s_i = −1) has the instability margin (times two) 2 (X − κ⁺_i) + eps with
  κ⁺_i = h_i^+ + d_i, and the switching field H_i^+ = κ⁺_i + D;
- an up element has the margin 2 (κ⁻_i − X) − eps with κ⁻_i = h_i^− − d_i, and
  H_i^− = κ⁻_i + D.

The keys are sorted once per system (κ⁺ ascending, κ⁻ descending, lower index first among
equal keys) and one bitset per order marks the elements that are down (up). The first set
bits then answer everything a rule-0 or rule-1 relaxation and the drive ask: the most
unstable element, whether a second one is unstable, equal largest margins, zero margins
(eps = 0), the next switching field and its ties. A flip toggles two bits and updates D:
O(1), and a question costs O(N/64) instead of the O(N) scans of
:mod:`hyst.kernels.relaxation`.

The drivers below are the avalanche and the cyclic drive of :mod:`hyst.kernels.drive` for
that case (``drive.avalanche_one``, ``cyclic_drive_one`` and ``avalanche_cyclic_one`` hand
constant-columns systems under rules 0 and 1 to them); their outputs are equal bit for bit
(``tests/test_columns.py``). A relaxation that takes more than ``4 N + 64`` steps is redone
from its start state by the generic ``relaxation.relax``, which detects self-loops exactly.

Only ``@jit`` functions over plain arrays live here. A system is the tuple ``cs`` of three
flat arrays made by ``columns_system``.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from hyst.kernels import bookkeeping
from hyst.kernels import relaxation as generic
from hyst.kernels.codes import (
    AV_L,
    AV_N_E,
    AV_OUTCOME,
    AV_PREPARATION_FLIPS,
    AV_PREPARED,
    AV_RACE_FIRST_FLIP,
    AV_SIZE,
    AV_TIES,
    CY_CYCLES,
    CY_FLIPS,
    CY_OUTCOME,
    CY_PERIOD,
    CY_PREPARED,
    CY_TIES,
    CY_TRANSIENT,
    FORM_COLUMNS,
    INF,
    MOVED,
    NOT_CONVERGED,
    ORBIT,
    RECORD_FLIPS,
    RECORD_L,
    RECORD_N_E,
    RECORD_TIES,
    RELAX_COLUMNS,
    RULE_1,
    STABLE,
    UNDEFINED,
)
from hyst.kernels.jit import jit

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
#: Margin of "no element" (below every real margin).
_NO_MARGIN = np.int64(-(2**62))


@jit
def columns_system(s0, hp, hm, d):
    """The ``cs`` of one constant-columns system in the state s0 (int8 ±1, copied): three
    flat arrays, so that passing it around costs three reference counts, not twelve.

    - s: the spins (int8);
    - K (int64, 6N + 2): κ⁺ sorted ascending, its order (rank -> element), the ranks
      (element -> rank), then the same for −κ⁻ (ascending = κ⁻ descending), then D, Σ s_i;
    - B (uint64, 2W + 1 + N, W = ⌈N/64⌉): the down bits (by κ⁺ rank), the up bits (by κ⁻
      rank), the Zobrist hash of the state (XOR of the keys of the up elements), the keys.
    """
    N = s0.shape[0]
    kp = hp + d
    km = -(hm - d)
    op = np.argsort(kp, kind="mergesort")  # stable: lower index first among equal keys
    om = np.argsort(km, kind="mergesort")
    K = np.empty(6 * N + 2, np.int64)
    for r in range(N):
        K[r] = kp[op[r]]
        K[N + r] = op[r]
        K[2 * N + op[r]] = r
        K[3 * N + r] = km[om[r]]
        K[4 * N + r] = om[r]
        K[5 * N + om[r]] = r
    W = (N + 63) // 64
    B = np.zeros(2 * W + 1 + N, np.uint64)
    B[2 * W + 1 :] = generic.zobrist_keys(N)
    cs = (s0.copy(), K, B)
    set_state(cs, s0, d)
    return cs


@jit(borrow=True)
def set_state(cs, s0, d):
    """Put cs in the state s0 (int8 ±1): spins, bitsets, D, Σ s_i and the hash."""
    s, K, B = cs
    N = s.shape[0]
    W = (N + 63) // 64
    B[: 2 * W + 1] = 0
    D = np.int64(0)
    m = np.int64(0)
    h = np.uint64(0)
    for i in range(N):
        s[i] = s0[i]
        D += d[i] * s[i]
        m += s[i]
        if s[i] < 0:
            r = K[2 * N + i]
            B[r >> 6] |= np.uint64(1) << np.uint64(r & 63)
        else:
            r = K[5 * N + i]
            B[W + (r >> 6)] |= np.uint64(1) << np.uint64(r & 63)
            h ^= B[2 * W + 1 + i]
    K[6 * N] = D
    K[6 * N + 1] = m
    B[2 * W] = h


@jit
def copy_system(cs):
    """An independent copy of cs."""
    return (cs[0].copy(), cs[1].copy(), cs[2].copy())


@jit(inline=True)
def _first_set(B, base, W, start, N):
    """The lowest rank >= start set in the bitset B[base : base + W]; N if none."""
    if start >= N:
        return N
    w = start >> 6
    x = B[base + w] & (_ALL << np.uint64(start & 63))
    while x == 0:
        w += 1
        if w == W:
            return N
        x = B[base + w]
    r = (w << 6) + np.int64(trailing_zeros(x))
    return r if r < N else N


@jit(borrow=True)
def _count_set(B, base, lo, hi):
    """Set bits of ranks lo..hi−1 of the bitset at B[base:]."""
    n = 0
    for r in range(lo, hi):
        n += (B[base + (r >> 6)] >> np.uint64(r & 63)) & np.uint64(1)
    return np.int64(n)


@jit(inline=True)
def flip(cs, i, d):
    """Flip element i: two bits, D, Σ s_i and the hash, O(1)."""
    s, K, B = cs
    N = s.shape[0]
    W = (N + 63) // 64
    s[i] = -s[i]
    r = K[2 * N + i]
    B[r >> 6] ^= np.uint64(1) << np.uint64(r & 63)
    r = K[5 * N + i]
    B[W + (r >> 6)] ^= np.uint64(1) << np.uint64(r & 63)
    K[6 * N] += 2 * s[i] * d[i]
    K[6 * N + 1] += 2 * s[i]
    B[2 * W] ^= B[2 * W + 1 + i]


@jit(inline=True)
def spin_sum(cs):
    """Σ s_i."""
    return cs[1][6 * cs[0].shape[0] + 1]


@jit(inline=True)
def state_hash(cs):
    """The Zobrist hash of the state (``relaxation.state_hash``)."""
    N = cs[0].shape[0]
    return cs[2][2 * ((N + 63) // 64)]


@jit(inline=True)
def next_up(cs):
    """``relaxation.next_up``: (H^+(S), critical element, tie); (INF, −1, False) if none."""
    s, K, B = cs
    N = s.shape[0]
    W = (N + 63) // 64
    r1 = _first_set(B, 0, W, 0, N)
    if r1 >= N:
        return INF, np.int64(-1), False
    r2 = _first_set(B, 0, W, r1 + 1, N)
    return K[r1] + K[6 * N], K[N + r1], r2 < N and K[r2] == K[r1]


@jit(inline=True)
def next_down(cs):
    """``relaxation.next_down``: (H^−(S), critical element, tie); (−INF, −1, False) if none."""
    s, K, B = cs
    N = s.shape[0]
    W = (N + 63) // 64
    q1 = _first_set(B, W, W, 0, N)
    if q1 >= N:
        return -INF, np.int64(-1), False
    q2 = _first_set(B, W, W, q1 + 1, N)
    return K[6 * N] - K[3 * N + q1], K[4 * N + q1], q2 < N and K[3 * N + q2] == K[3 * N + q1]


@jit(inline=True)
def scan(cs, Hc, eps, rule):
    """``relaxation.scan`` under rule 0 or 1: (n_u, chosen, ties). n_u is exact up to 2 for
    each sign (callers ask only whether it is 0, 1 or more)."""
    s, K, B = cs
    N = s.shape[0]
    W = (N + 63) // 64
    X = Hc - K[6 * N]
    n_u = np.int64(0)
    md = _NO_MARGIN
    mu = _NO_MARGIN
    r1 = _first_set(B, 0, W, 0, N)
    r2 = N
    if r1 < N:
        md = 2 * (X - K[r1]) + eps
        r2 = _first_set(B, 0, W, r1 + 1, N)
        if md > 0:
            n_u += 1
            if r2 < N and 2 * (X - K[r2]) + eps > 0:
                n_u += 1
    q1 = _first_set(B, W, W, 0, N)
    q2 = N
    if q1 < N:
        mu = 2 * (-K[3 * N + q1] - X) - eps
        q2 = _first_set(B, W, W, q1 + 1, N)
        if mu > 0:
            n_u += 1
            if q2 < N and 2 * (-K[3 * N + q2] - X) - eps > 0:
                n_u += 1
    zeros = np.int64(0)
    if eps == 0:  # margins are odd otherwise: zero only at a key equal to X
        zeros += _zero_margins(K, B, N, W, X)
    if n_u == 0:
        return n_u, np.int64(-1), zeros
    bestm = max(md, mu)
    chosen = N
    count = 0
    if md == bestm:
        chosen = K[N + r1]
        count += 2 if r2 < N and K[r2] == K[r1] else 1
    if mu == bestm:
        chosen = min(chosen, K[4 * N + q1])
        count += 2 if q2 < N and K[3 * N + q2] == K[3 * N + q1] else 1
    if count > 1 and rule == RULE_1:  # equal largest margins: resolved by lowest index
        zeros += 1
    return n_u, chosen, zeros


@jit(borrow=True)
def _zero_margins(K, B, N, W, X):
    """Elements with margin 0 at (X, eps = 0): down ones with κ⁺ = X, up ones with κ⁻ = X."""
    kp = K[:N]
    km = K[3 * N : 4 * N]
    n = _count_set(B, 0, np.searchsorted(kp, X, "left"), np.searchsorted(kp, X, "right"))
    n += _count_set(B, W, np.searchsorted(km, -X, "left"), np.searchsorted(km, -X, "right"))
    return n


@jit(inline=True)
def relax(cs, Hc, eps, rule, hp, hm, d, log, out):
    """``relaxation.relax`` of cs at (Hc, eps) under rule 0 or 1; returns the outcome code.

    Each step asks ``scan`` for the most unstable element (O(N/64)) and flips it (O(1)); the
    relaxation's record (steps, flips, race, ties: one flip a step under these rules) and
    its end, stable or ill-defined (rule 0), are :mod:`hyst.kernels.bookkeeping`'s, as in
    the generic kernel. Nothing here detects a self-loop: ``log`` records the flips, and
    after log.shape[0] steps they are undone and the relaxation is redone from its start by
    the generic kernel, which detects self-loops exactly (a relaxation that ends within the
    bound visits no state twice: it would then cycle forever)."""
    bound = log.shape[0]
    book = bookkeeping.begin(0)
    while True:
        n_u, chosen, t = scan(cs, Hc, eps, rule)
        book = bookkeeping.scanned(book, n_u, t)
        code = bookkeeping.verdict(rule, n_u)
        if code != MOVED:
            generic.finish(out, book, 0, 0, -1, -1)
            return code
        steps = book[0]
        if steps >= bound:
            for q in range(steps - 1, -1, -1):  # back to the start state
                flip(cs, log[q], d)
            return _generic(cs, Hc, eps, rule, hp, hm, d, out)
        flip(cs, chosen, d)
        log[steps] = chosen
        book = bookkeeping.moved(book, 1)


@jit(borrow=True)
def relax_once(cs, Hc, eps, rule, hp, hm, d, log, out):
    """``relax``, compiled once as a function of its own, for the kernels that relax once
    per system (``prepared``, ``avalanche_after``); the drives' loops over fields inline
    ``relax``. Each inlined copy costs seconds of CPU to compile (a first run's cost)."""
    return relax(cs, Hc, eps, rule, hp, hm, d, log, out)


@jit
def _generic(cs, Hc, eps, rule, hp, hm, d, out):
    """``relaxation.relax`` of the state of cs (work arrays allocated here: it is rare);
    cs follows it."""
    s = cs[0]
    N = s.shape[0]
    neg, f, ws = np.empty(N, np.int64), np.empty(N, np.int64), generic.workspace(N)
    generic.up_mask(s, neg)
    generic.init_fields(s, f, FORM_COLUMNS, np.empty((0, 0), np.int64), d)
    oc = generic.relax(
        s, neg, f, Hc, eps, rule, hp, hm, FORM_COLUMNS, np.empty((0, 0), np.int64), d, ws, out
    )
    moved = s.copy()
    set_state(cs, moved, d)
    return oc


# ---- the drives (``hyst.kernels.drive`` for constant columns under rules 0 and 1) ----------


@jit
def prepared(k, systems, starts):
    """(oc, cs, log, res) of system k: its start relaxed at H = 0 under rule 1."""
    N = systems.h_plus.shape[1]
    hpk, hmk, dk = systems.h_plus[k], systems.h_minus[k], systems.packed[k]
    cs = columns_system(starts[k], hpk, hmk, dk)
    log = np.empty(4 * N + 64, np.int64)  # flips of one relaxation; longer ones: generic
    res = np.zeros(len(RELAX_COLUMNS), np.int64)
    oc = relax_once(cs, 0, 0, RULE_1, hpk, hmk, dk, log, res)
    return oc, cs, log, res


@jit(borrow=True)
def avalanche_after(oc, cs, hpk, hmk, dk, rule, log, res, o):
    """``drive._avalanche_after`` of a constant-columns system."""
    o[AV_PREPARED] = 1 if oc == STABLE else -1
    o[AV_OUTCOME] = UNDEFINED
    o[AV_SIZE] = UNDEFINED
    o[AV_RACE_FIRST_FLIP] = UNDEFINED
    o[AV_TIES] = res[RECORD_TIES]
    o[AV_PREPARATION_FLIPS] = res[RECORD_FLIPS]
    o[AV_L] = 0
    o[AV_N_E] = 0
    if oc != STABLE:
        return
    Hc, crit, tie = next_up(cs)
    if crit < 0:
        return
    if tie:
        o[AV_TIES] += 1
    flip(cs, crit, dk)
    n_u, _ch, _t = scan(cs, Hc, 1, RULE_1)
    o[AV_RACE_FIRST_FLIP] = 1 if n_u > 1 else 0
    flip(cs, crit, dk)
    oc = relax_once(cs, Hc, 1, rule, hpk, hmk, dk, log, res)
    o[AV_OUTCOME] = oc
    o[AV_SIZE] = res[RECORD_FLIPS]
    o[AV_TIES] += res[RECORD_TIES]
    o[AV_L] = res[RECORD_L]
    o[AV_N_E] = res[RECORD_N_E]


@jit(borrow=True)
def _sweep(cs, direction, Umax, rule, hpk, hmk, dk, log, res, acc):
    """``drive._sweep_up`` (direction +1, up to Umax + 0⁺) or ``_sweep_down`` (−1, down to
    exactly 0). Returns an outcome code."""
    while True:
        if direction > 0:
            Hc, crit, tie = next_up(cs)
            if crit < 0 or Hc > Umax:
                return STABLE
        else:
            Hc, crit, tie = next_down(cs)
            if crit < 0 or Hc < 0:
                return STABLE
            if Hc == 0:  # threshold exactly at the turning point: a tie, element kept
                acc[1] += 1
                return STABLE
        acc[1] += tie
        oc = relax(cs, Hc, direction, rule, hpk, hmk, dk, log, res)
        acc[0] += res[RECORD_FLIPS]
        acc[1] += res[RECORD_TIES]
        if oc != STABLE:
            return oc


@jit
def cyclic_after(oc, cs, hpk, hmk, dk, rule, max_cycles, log, res, o):
    """``drive._cyclic_after`` of a constant-columns system; fills o, returns U_max."""
    s = cs[0]
    N = s.shape[0]
    acc = np.zeros(2, np.int64)  # flips, ties
    for q in range(o.shape[0]):
        o[q] = UNDEFINED
    acc[1] += res[RECORD_TIES]
    o[CY_PREPARED] = 1 if oc == STABLE else 0
    if oc != STABLE:
        o[CY_TIES] = acc[1]
        return np.int64(0)
    snaps = np.empty((16, N), np.int8)
    hashes = np.empty(16, np.uint64)
    snaps[0] = s
    hashes[0] = state_hash(cs)
    nsnap = 1
    Umax = np.int64(0)
    outcome = UNDEFINED
    while 2 * spin_sum(cs) < N:  # first cycle: U_max is where Σ s_i reaches N/2
        Hc, crit, tie = next_up(cs)
        if crit < 0:
            break
        acc[1] += tie
        oc = relax(cs, Hc, 1, rule, hpk, hmk, dk, log, res)
        acc[0] += res[RECORD_FLIPS]
        acc[1] += res[RECORD_TIES]
        Umax = Hc
        if oc != STABLE:
            outcome = oc
            break
    if outcome == UNDEFINED:
        oc = _sweep(cs, -1, Umax, rule, hpk, hmk, dk, log, res, acc)
        if oc != STABLE:
            outcome = oc
    cycles = 1
    while outcome == UNDEFINED:
        h = state_hash(cs)
        a = generic.earlier_visit(snaps, hashes, nsnap, s, h)
        if a >= 0:
            outcome = ORBIT
            o[CY_TRANSIENT] = a
            o[CY_PERIOD] = nsnap - a
            break
        if nsnap >= max_cycles:
            outcome = NOT_CONVERGED
            break
        snaps, hashes = generic.store_visit(snaps, hashes, nsnap, s, h)
        nsnap += 1
        oc = _sweep(cs, 1, Umax, rule, hpk, hmk, dk, log, res, acc)
        if oc == STABLE:
            oc = _sweep(cs, -1, Umax, rule, hpk, hmk, dk, log, res, acc)
        cycles += 1
        if oc != STABLE:
            outcome = oc
    o[CY_OUTCOME] = outcome
    o[CY_CYCLES] = cycles
    o[CY_FLIPS] = acc[0]
    o[CY_TIES] = acc[1]
    return Umax


@jit
def avalanche_one(k, systems, starts, rule, out):
    """``drive.avalanche_one`` of constant-columns system k (rule 0 or 1)."""
    oc, cs, log, res = prepared(k, systems, starts)
    hpk, hmk, dk = systems.h_plus[k], systems.h_minus[k], systems.packed[k]
    avalanche_after(oc, cs, hpk, hmk, dk, rule, log, res, out[k])


@jit
def cyclic_drive_one(k, systems, starts, rule, max_cycles, out, umax):
    """``drive.cyclic_drive_one`` of constant-columns system k (rule 0 or 1)."""
    oc, cs, log, res = prepared(k, systems, starts)
    hpk, hmk, dk = systems.h_plus[k], systems.h_minus[k], systems.packed[k]
    umax[k] = cyclic_after(oc, cs, hpk, hmk, dk, rule, max_cycles, log, res, out[k])


@jit
def avalanche_cyclic_one(k, systems, starts, rule, max_cycles, av_out, cy_out, umax):
    """``drive.avalanche_cyclic_one`` of constant-columns system k (rule 0 or 1)."""
    oc, cs, log, res = prepared(k, systems, starts)
    hpk, hmk, dk = systems.h_plus[k], systems.h_minus[k], systems.packed[k]
    res0 = res.copy()
    avalanche_after(oc, copy_system(cs), hpk, hmk, dk, rule, log, res0, av_out[k])
    umax[k] = cyclic_after(oc, cs, hpk, hmk, dk, rule, max_cycles, log, res, cy_out[k])
