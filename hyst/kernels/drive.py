"""Drive protocols for systems of any size, built on the event-driven relaxation of
:mod:`hyst.kernels.relaxation`: avalanches from prepared stable states, the cyclic
drive, and the saturated hysteresis loop.

Only ``@jit`` functions over plain arrays live here; output columns are the
names of :mod:`hyst.kernels.codes` (AV_*, CY_*, SAT_*, LOOP_*). Each protocol has a
``prange`` batch kernel and a serial twin for thread pools.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst.kernels import columns
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
    LOOP_C_KL,
    LOOP_C_LK,
    LOOP_E1,
    LOOP_E2,
    LOOP_EVENT,
    LOOP_FIELD,
    LOOP_H2_K,
    LOOP_H2_L,
    LOOP_L,
    LOOP_N_E,
    LOOP_OUTCOME,
    LOOP_REST_HASH,
    LOOP_SOURCE,
    NOT_CONVERGED,
    ORBIT,
    RECORD_FLIPS,
    RECORD_L,
    RECORD_N_E,
    RECORD_TIES,
    RELAX_E1,
    RELAX_E2,
    RULE_0,
    RULE_1,
    RULE_2,
    SAT_EVENTS,
    SAT_ILL_BRANCH,
    SAT_ILL_RETURN,
    SAT_L4,
    SAT_LOOPS,
    SAT_LOOPS_BRANCH,
    SAT_LOOPS_RETURN,
    SAT_RETURNS,
    SAT_SATURATED,
    SAT_SKIPS,
    SELF_LOOP,
    SOURCE_DOWN,
    SOURCE_RETURN_DOWN,
    SOURCE_RETURN_UP,
    SOURCE_UP,
    STABLE,
    UNDEFINED,
)
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.relaxation import (
    Spins,
    SystemView,
    coupling,
    earlier_visit,
    flip,
    init_fields,
    next_down,
    next_switch,
    next_up,
    next_up_down,
    relax,
    relax_event,
    scan,
    state_hash,
    store_visit,
    system_state,
    system_view,
    transpose_buffer,
    up_mask,
    view_of,
)

#: Slots of the (flips, ties) accumulator of a drive.
_ACC_FLIPS, _ACC_TIES = 0, 1


@jit
def prepare(k, starts, systems, s, neg, f, buf):
    """Copy start k into (s, neg), view system k's couplings and fill the local fields."""
    for i in range(s.shape[0]):
        s[i] = starts[k, i]
    up_mask(s, neg)
    ct, dk = system_view(k, systems, buf)
    init_fields(s, f, systems.form, ct, dk)
    return ct, dk


@batch_kernel
def avalanche_batch(systems, starts, rule, out):
    """Avalanches from prepared stable states, for a batch of systems
    (``operands.SystemBatch``).

    The random start (starts[k], int8 ±1) is relaxed at H = 0 under rule 1 to a
    stable S0; then H is raised to H^+(S0) + 0⁺ and the system relaxed under
    ``rule``. out[k] = [prepared (0/1; −1 if the preparation self-looped),
    outcome (−1 undefined), A = flips, race_first_flip (−1 undefined),
    ties, preparation_flips, L (self-loop length), n_e].
    """
    for k in prange(systems.h_plus.shape[0]):
        avalanche_one(np.int64(k), systems, starts, rule, out)


@jit
def prepared_system(k, systems, starts):
    """(oc, st, res, ws, v) of system k: its ``SystemView`` v and its start relaxed at H = 0
    under rule 1 to the ``Spins`` st (the S0 of both drives); oc, res: outcome and result
    row of that relaxation; ws: its relaxation workspace."""
    N = systems.h_plus.shape[1]
    s, neg, f, res, ws = system_state(N)
    ct, dk = prepare(k, starts, systems, s, neg, f, transpose_buffer(systems.form, N))
    v = SystemView(systems.h_plus[k], systems.h_minus[k], systems.form, ct, dk)
    oc = relax(s, neg, f, 0, 0, RULE_1, v.h_plus, v.h_minus, v.form, ct, dk, ws, res)
    return oc, Spins(s, neg, f), res, ws, v


@jit
def avalanche_one(k, systems, starts, rule, out):
    """Sample k of ``avalanche_batch``."""
    form = systems.form
    if form == FORM_COLUMNS and (rule == RULE_0 or rule == RULE_1):
        columns.avalanche_one(k, systems, starts, rule, out)  # O(N/64) a flip
        return
    oc, st, res, ws, v = prepared_system(k, systems, starts)
    _avalanche_after(oc, st, v, rule, ws, res, out[k])


@jit(borrow=True)
def _avalanche_after(oc, st, v, rule, ws, res, o):
    """The avalanche of one system (``SystemView`` v) from its prepared state: ``oc`` and
    ``res`` are the outcome and result row of the preparation, st the ``Spins`` it left."""
    s, neg, f = st
    hpk, hmk, form, ct, dk = v
    buf = ws[1]
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
    Hc, crit, tie = next_up(neg, f, hpk)
    if crit < 0:
        return
    if tie:
        o[AV_TIES] += 1
    flip(crit, s, neg, f, form, ct, dk)
    n_u, _ch, _t = scan(neg, f, Hc, 1, RULE_1, hpk, hmk, buf)
    o[AV_RACE_FIRST_FLIP] = 1 if n_u > 1 else 0
    flip(crit, s, neg, f, form, ct, dk)
    oc = relax_event(-1 if tie else crit, s, neg, f, Hc, 1, rule, hpk, hmk, form, ct, dk, ws, res)
    o[AV_OUTCOME] = oc
    o[AV_SIZE] = res[RECORD_FLIPS]
    o[AV_TIES] += res[RECORD_TIES]
    o[AV_L] = res[RECORD_L]
    o[AV_N_E] = res[RECORD_N_E]


@jit(borrow=True)
def _sweep(st, v, direction, Umax, rule, ws, res, acc):
    """Raise H event by event up to Umax + 0⁺ (direction +1) or lower it down to exactly 0
    (−1). Returns an outcome code."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    turn = Umax if direction > 0 else 0
    while True:
        Hc, crit, tie = next_switch(neg, f, hp, hm, direction)
        if crit < 0 or (Hc - turn) * direction > 0:
            return STABLE
        if direction < 0 and Hc == 0:  # threshold exactly at the turning point: a tie, kept
            acc[_ACC_TIES] += 1
            return STABLE
        acc[_ACC_TIES] += tie
        known = -1 if tie else crit
        oc = relax_event(known, s, neg, f, Hc, direction, rule, hp, hm, form, ct, d, ws, res)
        acc[_ACC_FLIPS] += res[RECORD_FLIPS]
        acc[_ACC_TIES] += res[RECORD_TIES]
        if oc != STABLE:
            return oc


@batch_kernel
def cyclic_drive_batch(systems, starts, rule, max_cycles, out, umax):
    """Cyclic drive between U = 0 and U_max for a batch of systems
    (``operands.SystemBatch``).

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
    for k in prange(systems.h_plus.shape[0]):
        cyclic_drive_one(np.int64(k), systems, starts, rule, max_cycles, out, umax)


@jit
def cyclic_drive_one(k, systems, starts, rule, max_cycles, out, umax):
    """Sample k of ``cyclic_drive_batch``."""
    form = systems.form
    if form == FORM_COLUMNS and (rule == RULE_0 or rule == RULE_1):
        columns.cyclic_drive_one(k, systems, starts, rule, max_cycles, out, umax)
        return
    oc, st, res, ws, v = prepared_system(k, systems, starts)
    umax[k] = _cyclic_after(oc, st, v, rule, max_cycles, ws, res, out[k])


@jit
def _cyclic_after(oc, st, v, rule, max_cycles, ws, res, o):
    """The cyclic drive of one system (``SystemView`` v) from its prepared state st
    (``oc``, ``res``: outcome and result row of the preparation); fills o and returns
    U_max."""
    s, neg, f = st
    hpk, hmk, form, ct, dk = v
    N = s.shape[0]
    keys = ws[0]
    acc = np.zeros(2, np.int64)  # flips, ties
    for q in range(o.shape[0]):
        o[q] = UNDEFINED
    acc[_ACC_TIES] += res[RECORD_TIES]
    o[CY_PREPARED] = 1 if oc == STABLE else 0
    if oc != STABLE:
        o[CY_TIES] = acc[_ACC_TIES]
        return np.int64(0)
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
        acc[_ACC_TIES] += tie
        oc = relax_event(
            -1 if tie else crit, s, neg, f, Hc, 1, rule, hpk, hmk, form, ct, dk, ws, res
        )
        acc[_ACC_FLIPS] += res[RECORD_FLIPS]
        acc[_ACC_TIES] += res[RECORD_TIES]
        Umax = Hc
        if oc != STABLE:
            outcome = oc
            break
        m = 0
        for i in range(N):
            m += s[i]
    cycles = 0
    if outcome == UNDEFINED:
        oc = _sweep(st, v, -1, Umax, rule, ws, res, acc)
        if oc != STABLE:
            outcome = oc
    cycles = 1
    while outcome == UNDEFINED:
        h = state_hash(neg, keys)
        a = earlier_visit(snaps, hashes, nsnap, s, h)
        if a >= 0:
            outcome = ORBIT
            o[CY_TRANSIENT] = a
            o[CY_PERIOD] = nsnap - a
            break
        if nsnap >= max_cycles:
            outcome = NOT_CONVERGED
            break
        snaps, hashes = store_visit(snaps, hashes, nsnap, s, h)
        nsnap += 1
        oc = _sweep(st, v, 1, Umax, rule, ws, res, acc)
        if oc == STABLE:
            oc = _sweep(st, v, -1, Umax, rule, ws, res, acc)
        cycles += 1
        if oc != STABLE:
            outcome = oc
    o[CY_OUTCOME] = outcome
    o[CY_CYCLES] = cycles
    o[CY_FLIPS] = acc[_ACC_FLIPS]
    o[CY_TIES] = acc[_ACC_TIES]
    return Umax


@batch_kernel
def avalanche_cyclic_batch(systems, starts, rule, max_cycles, av_out, cy_out, umax):
    """``avalanche_batch`` and ``cyclic_drive_batch`` in one pass (each system's couplings
    viewed and its start prepared once); outputs equal the two kernels'."""
    for k in prange(systems.h_plus.shape[0]):
        avalanche_cyclic_one(np.int64(k), systems, starts, rule, max_cycles, av_out, cy_out, umax)


@jit
def avalanche_cyclic_one(k, systems, starts, rule, max_cycles, av_out, cy_out, umax):
    """Sample k of ``avalanche_cyclic_batch``: the avalanche runs on a copy of S0."""
    form = systems.form
    if form == FORM_COLUMNS and (rule == RULE_0 or rule == RULE_1):
        columns.avalanche_cyclic_one(k, systems, starts, rule, max_cycles, av_out, cy_out, umax)
        return
    oc, st, res, ws, v = prepared_system(k, systems, starts)
    st0 = Spins(st.s.copy(), st.neg.copy(), st.f.copy())
    _avalanche_after(oc, st0, v, rule, ws, res.copy(), av_out[k])
    umax[k] = _cyclic_after(oc, st, v, rule, max_cycles, ws, res, cy_out[k])


@jit(borrow=True)
def _loop_exit(direction, L, st, v, Hc, rule, buf):
    """Where a self-loop met by a driven branch breaks up.

    st (``Spins``) is a state of a cycle of length L at the field (Hc, ±0⁺) of the drive. A
    step of the cycle that flips an element against the drive (down while H rises, up
    while it falls) exists only while H is below (above) that element's threshold in the
    state it flips from; the cycle breaks at the first such threshold beyond Hc, H*. The
    state is left at the cycle state whose step breaks there, and H* is returned."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    best = INF if direction > 0 else -INF
    at = 0
    for step in range(L):  # once around the cycle: the step that breaks first
        n_u, chosen, _t = scan(neg, f, Hc, direction, rule, hp, hm, buf)
        count = n_u if rule == RULE_2 else min(n_u, 1)
        for q in range(count):
            j = buf[q] if rule == RULE_2 else chosen
            if direction > 0 and neg[j] != 0 and hm[j] - f[j] < best:
                best = hm[j] - f[j]
                at = step
            elif direction < 0 and neg[j] == 0 and hp[j] - f[j] > best:
                best = hp[j] - f[j]
                at = step
        for q in range(count):
            flip(buf[q] if rule == RULE_2 else chosen, s, neg, f, form, ct, d)
    for _step in range(at):  # back at the first state: walk to the breaking one
        n_u, chosen, _t = scan(neg, f, Hc, direction, rule, hp, hm, buf)
        count = n_u if rule == RULE_2 else min(n_u, 1)
        for q in range(count):
            flip(buf[q] if rule == RULE_2 else chosen, s, neg, f, form, ct, d)
    return best


@jit(borrow=True)
def _record(rec, nrec, source, event, Hc, oc, res, st, v, keys, summ):
    """Count a transition that did not end stable and record it in ``rec`` (while there is
    room); st (``Spins``) is where the relaxation left it. Returns the new record count."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    summ[SAT_LOOPS] += 1
    if oc == SELF_LOOP and res[RECORD_N_E] == 2 and res[RECORD_L] == 4:
        summ[SAT_L4] += 1
    if nrec >= rec.shape[0]:
        return nrec
    row = rec[nrec]
    for q in range(row.shape[0]):
        row[q] = 0
    row[LOOP_SOURCE] = source
    row[LOOP_EVENT] = event
    row[LOOP_FIELD] = Hc
    row[LOOP_OUTCOME] = oc
    row[LOOP_E1] = res[RELAX_E1]
    row[LOOP_E2] = res[RELAX_E2]
    if oc == SELF_LOOP:
        row[LOOP_L] = res[RECORD_L]
        row[LOOP_N_E] = res[RECORD_N_E]
    if oc == SELF_LOOP and res[RECORD_N_E] == 2:
        k = res[RELAX_E1]
        l = res[RELAX_E2]
        ckl = coupling(k, l, form, ct, d)
        clk = coupling(l, k, form, ct, d)
        row[LOOP_C_KL] = ckl
        row[LOOP_C_LK] = clk
        # 2 h̃_i = h_i^+ + h_i^- − 2 Σ_{j≠k,l} c_ij s_j  (exact, in quanta)
        row[LOOP_H2_K] = hp[k] + hm[k] - 2 * (f[k] - ckl * s[l])
        row[LOOP_H2_L] = hp[l] + hm[l] - 2 * (f[l] - clk * s[k])
        h = state_hash(neg, keys)
        h ^= keys[k] & np.uint64(neg[k])
        h ^= keys[l] & np.uint64(neg[l])
        row[LOOP_REST_HASH] = np.int64(h >> np.uint64(1))  # 63 bits: a non-negative int64
    return nrec + 1


@jit(borrow=True)
def _returns(direction, event, st, v, rule, ws, res, events, rec, nrec, summ, ret, back):
    """The return from the turning point st (``Spins``) of a main branch: the field is
    reversed and the state driven back, in the copy ``ret``, for at most ``events``
    transitions (the branch state is left alone). A transition that does not end stable is
    recorded and ends the return. ``back``: the turning point's switching field against the
    drive, (H, element, tie) of ``next_down`` (up branch) or ``next_up`` (down branch)."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    r_s, r_neg, r_f = ret
    for i in range(s.shape[0]):
        r_s[i] = s[i]
        r_neg[i] = neg[i]
        r_f[i] = f[i]
    source = SOURCE_RETURN_UP if direction > 0 else SOURCE_RETURN_DOWN
    for q in range(events):
        if q == 0:
            Hr, cr, tie = back
        elif direction > 0:
            Hr, cr, tie = next_down(r_neg, r_f, hm)
        else:
            Hr, cr, tie = next_up(r_neg, r_f, hp)
        if cr < 0:
            break
        oc = relax_event(
            -1 if tie else cr, r_s, r_neg, r_f, Hr, -direction, rule, hp, hm, form, ct, d, ws, res
        )
        summ[SAT_RETURNS] += 1
        if oc != STABLE:
            summ[SAT_LOOPS_RETURN if oc == SELF_LOOP else SAT_ILL_RETURN] += 1
            nrec = _record(rec, nrec, source, event, Hr, oc, res, ret, v, ws[0], summ)
            break
    return nrec


@jit
def saturated_loop_one(k, systems, rule, return_events, max_loops, out):
    """System k of ``saturated_loop_batch``."""
    N = systems.h_plus.shape[1]
    s, neg, f, res, ws = system_state(N)
    v = view_of(k, systems, transpose_buffer(systems.form, N))
    hpk, hmk, form, ct, dk = v
    st = Spins(s, neg, f)
    ret = Spins(np.empty(N, np.int8), np.empty(N, np.int64), np.empty(N, np.int64))
    rec = out.records[k]
    so = out.summary[k]
    for q in range(so.shape[0]):
        so[q] = 0
    n = 0
    for direction in (1, -1):
        source = SOURCE_UP if direction > 0 else SOURCE_DOWN
        for i in range(N):
            s[i] = -direction
        up_mask(s, neg)
        init_fields(s, f, form, ct, dk)
        event = 0  # stable states reached on this branch after the saturated start
        stable = True  # the branch state is stable (else: it left a self-loop at Hc)
        Hc = np.int64(0)
        loops = 0  # self-loops driven through on this branch
        while True:
            known = -1  # the event's first flip, when the switching field names it alone
            if stable:
                turning = event > 0 and return_events > 0
                if turning:  # both switching fields of the turning point, in one go
                    up, down = next_up_down(neg, f, hpk, hmk)
                    ahead, back = (up, down) if direction > 0 else (down, up)
                elif direction > 0:
                    ahead = next_up(neg, f, hpk)
                    back = ahead
                else:
                    ahead = next_down(neg, f, hmk)
                    back = ahead
                Hc, crit, tie = ahead
                known = -1 if tie else crit
                if crit < 0:
                    so[SAT_SATURATED] += 1
                    break
                if turning:
                    n = _returns(
                        direction, event, st, v, rule, ws, res, return_events, rec, n, so, ret, back
                    )
            oc = relax_event(known, s, neg, f, Hc, direction, rule, hpk, hmk, form, ct, dk, ws, res)
            so[SAT_EVENTS] += 1
            if oc == STABLE:
                event += 1
                stable = True
                continue
            so[SAT_LOOPS_BRANCH if oc == SELF_LOOP else SAT_ILL_BRANCH] += 1
            n = _record(rec, n, source, event, Hc, oc, res, st, v, ws[0], so)
            if oc != SELF_LOOP or loops == max_loops:  # ill-defined (rule 0), or enough loops
                break
            loops += 1
            # the drive goes on: the loop lasts until its first step against the drive
            # breaks, at H*; the branch continues from that cycle state at H* ± 0⁺
            so[SAT_SKIPS] += 1
            Hc = _loop_exit(direction, res[RECORD_L], st, v, Hc, rule, ws[1])
            if Hc >= INF or Hc <= -INF:  # no step against the drive (not a cycle)
                break
            stable = False
    out.recorded[k] = n


@batch_kernel
def saturated_loop_batch(systems, rule, return_events, max_loops, out):
    """Transitions out of the stable states met along the saturated hysteresis loop and on
    the returns from its turning points, for a batch of systems (any N;
    ``operands.SystemBatch``).

    Protocol (rule ``rule`` for every transition, H jumping from one switching field to
    the next, ±0⁺ in the direction of the drive):

    - main branches: from all −1, H is raised event by event until the state is all +1
      (up branch); from all +1, lowered until it is all −1 (down branch). A transition
      that ends in a self-loop is recorded and the drive goes on: the loop lasts while H
      moves on until the first of its steps against the drive (a down flip while H rises,
      an up flip while it falls) breaks, at that element's threshold H* in the state it
      flips from; the branch continues by relaxing that cycle state at H* ± 0⁺. A branch
      drives through ``max_loops`` self-loops and ends at the next one (or at an
      ill-defined transition, rule 0); otherwise it ends at saturation;
    - returns: at every stable state a main branch reaches after its saturated start (a
      turning point), the field is reversed and the state driven back for at most
      ``return_events`` transitions (the start of the minor loop turning there); a return
      ends at its first transition that does not end stable, which is recorded.

    out: ``operands.SaturatedLoopArrays``, out.summary[k] = ``codes.SATURATED_COLUMNS``;
    out.records[k, :out.recorded[k]] = ``codes.LOOP_COLUMNS`` of the first
    out.records.shape[1] transitions that did not end stable (the summary counts are exact).
    """
    for k in prange(systems.h_plus.shape[0]):
        saturated_loop_one(np.int64(k), systems, rule, return_events, max_loops, out)
