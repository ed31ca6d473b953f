"""Drive protocols for systems of any size, built on the event-driven relaxation of
:mod:`hyst.kernels.relaxation`: avalanches from prepared stable states, the cyclic
drive, and the saturated hysteresis loop.

Only ``@jit`` functions over plain arrays live here; output columns are the
names of :mod:`hyst.kernels.codes` (AV_*, CY_*, LOOP_*). Each protocol has a
``prange`` batch kernel and a serial twin for thread pools.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst._numba import jit
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
    LOOP_C_KL,
    LOOP_C_LK,
    LOOP_E1,
    LOOP_E2,
    LOOP_EVENTS,
    LOOP_H2_K,
    LOOP_H2_L,
    LOOP_L,
    LOOP_N_E,
    LOOP_OUTCOME,
    NOT_CONVERGED,
    ORBIT,
    RELAX_E1,
    RELAX_E2,
    RELAX_FLIPS,
    RELAX_L,
    RELAX_N_E,
    RELAX_TIES,
    RULE_1,
    SELF_LOOP,
    STABLE,
    UNDEFINED,
)
from hyst.kernels.relaxation import (
    coupling,
    flip,
    grow,
    init_fields,
    next_down,
    next_up,
    relax,
    scan,
    state_hash,
    system_state,
    system_view,
    transpose_buffer,
    up_mask,
)

#: Slots of the (flips, ties) accumulator of a drive.
_ACC_FLIPS, _ACC_TIES = 0, 1


@jit
def prepare(k, starts, form, c, d, s, neg, f, buf):
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
    ct, dk = prepare(k, starts, form, c, d, s, neg, f, transpose_buffer(form, N))
    o = out[k]
    oc = relax(s, neg, f, 0, 0, RULE_1, hp[k], hm[k], form, ct, dk, ws, res)
    o[AV_PREPARED] = 1 if oc == STABLE else -1
    o[AV_OUTCOME] = UNDEFINED
    o[AV_SIZE] = UNDEFINED
    o[AV_RACE_FIRST_FLIP] = UNDEFINED
    o[AV_TIES] = res[RELAX_TIES]
    o[AV_PREPARATION_FLIPS] = res[RELAX_FLIPS]
    o[AV_L] = 0
    o[AV_N_E] = 0
    if oc != STABLE:
        return
    Hc, crit, tie = next_up(neg, f, hp[k])
    if crit < 0:
        return
    if tie:
        o[AV_TIES] += 1
    flip(crit, s, neg, f, form, ct, dk)
    n_u, _ch, _t = scan(neg, f, Hc, 1, RULE_1, hp[k], hm[k], buf)
    o[AV_RACE_FIRST_FLIP] = 1 if n_u > 1 else 0
    flip(crit, s, neg, f, form, ct, dk)
    oc = relax(s, neg, f, Hc, 1, rule, hp[k], hm[k], form, ct, dk, ws, res)
    o[AV_OUTCOME] = oc
    o[AV_SIZE] = res[RELAX_FLIPS]
    o[AV_TIES] += res[RELAX_TIES]
    o[AV_L] = res[RELAX_L]
    o[AV_N_E] = res[RELAX_N_E]


@jit
def _sweep_up(s, neg, f, Umax, rule, hp, hm, form, ct, d, ws, res, acc):
    """Raise H event by event up to Umax + 0⁺. Returns an outcome code."""
    while True:
        Hc, crit, tie = next_up(neg, f, hp)
        if crit < 0 or Hc > Umax:
            return STABLE
        if tie:
            acc[_ACC_TIES] += 1
        oc = relax(s, neg, f, Hc, 1, rule, hp, hm, form, ct, d, ws, res)
        acc[_ACC_FLIPS] += res[RELAX_FLIPS]
        acc[_ACC_TIES] += res[RELAX_TIES]
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
            acc[_ACC_TIES] += 1
            return STABLE
        if tie:
            acc[_ACC_TIES] += 1
        oc = relax(s, neg, f, Hc, -1, rule, hp, hm, form, ct, d, ws, res)
        acc[_ACC_FLIPS] += res[RELAX_FLIPS]
        acc[_ACC_TIES] += res[RELAX_TIES]
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
        o[q] = UNDEFINED
    umax[k] = 0
    ct, dk = prepare(k, starts, form, c, d, s, neg, f, transpose_buffer(form, N))
    hpk, hmk = hp[k], hm[k]
    oc = relax(s, neg, f, 0, 0, RULE_1, hpk, hmk, form, ct, dk, ws, res)
    acc[_ACC_TIES] += res[RELAX_TIES]
    o[CY_PREPARED] = 1 if oc == STABLE else 0
    if oc != STABLE:
        o[CY_TIES] = acc[_ACC_TIES]
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
    outcome = UNDEFINED
    while 2 * m < N:
        Hc, crit, tie = next_up(neg, f, hpk)
        if crit < 0:
            break
        if tie:
            acc[_ACC_TIES] += 1
        oc = relax(s, neg, f, Hc, 1, rule, hpk, hmk, form, ct, dk, ws, res)
        acc[_ACC_FLIPS] += res[RELAX_FLIPS]
        acc[_ACC_TIES] += res[RELAX_TIES]
        Umax = Hc
        if oc != STABLE:
            outcome = oc
            break
        m = 0
        for i in range(N):
            m += s[i]
    umax[k] = Umax
    cycles = 0
    if outcome == UNDEFINED:
        oc = _sweep_down(s, neg, f, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        if oc != STABLE:
            outcome = oc
    cycles = 1
    while outcome == UNDEFINED:
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
                    o[CY_TRANSIENT] = a
                    o[CY_PERIOD] = nsnap - a
                    break
        if outcome != UNDEFINED:
            break
        if nsnap >= max_cycles:
            outcome = NOT_CONVERGED
            break
        if nsnap >= snaps.shape[0]:
            ns = np.empty((2 * nsnap, N), np.int8)
            ns[:nsnap] = snaps[:nsnap]
            snaps = ns
            hashes = grow(hashes, nsnap)
        snaps[nsnap] = s
        hashes[nsnap] = h
        nsnap += 1
        oc = _sweep_up(s, neg, f, Umax, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        if oc == STABLE:
            oc = _sweep_down(s, neg, f, rule, hpk, hmk, form, ct, dk, ws, res, acc)
        cycles += 1
        if oc != STABLE:
            outcome = oc
    o[CY_OUTCOME] = outcome
    o[CY_CYCLES] = cycles
    o[CY_FLIPS] = acc[_ACC_FLIPS]
    o[CY_TIES] = acc[_ACC_TIES]


@jit
def _branch(direction, s, neg, f, hp, hm, form, ct, d, rule, ws, res, row):
    """Drive one saturated branch event by event; record its first self-loop in ``row``."""
    events = 0
    for q in range(row.shape[0]):
        row[q] = UNDEFINED
    while True:
        if direction > 0:
            Hc, crit, _tie = next_up(neg, f, hp)
        else:
            Hc, crit, _tie = next_down(neg, f, hm)
        if crit < 0:  # saturated: the branch ended without a self-loop
            row[LOOP_OUTCOME] = STABLE
            break
        oc = relax(s, neg, f, Hc, direction, rule, hp, hm, form, ct, d, ws, res)
        events += 1
        if oc != STABLE:
            row[LOOP_OUTCOME] = oc
            row[LOOP_L] = res[RELAX_L]
            row[LOOP_N_E] = res[RELAX_N_E]
            k = res[RELAX_E1]
            l = res[RELAX_E2]
            row[LOOP_E1] = k
            row[LOOP_E2] = l
            if oc == SELF_LOOP and res[RELAX_N_E] == 2:
                ckl = coupling(k, l, form, ct, d)
                clk = coupling(l, k, form, ct, d)
                row[LOOP_C_KL] = ckl
                row[LOOP_C_LK] = clk
                # 2 h̃_i = h_i^+ + h_i^- − 2 Σ_{j≠k,l} c_ij s_j  (exact, in quanta)
                row[LOOP_H2_K] = hp[k] + hm[k] - 2 * (f[k] - ckl * s[l])
                row[LOOP_H2_L] = hp[l] + hm[l] - 2 * (f[l] - clk * s[k])
            break
    row[LOOP_EVENTS] = events


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
