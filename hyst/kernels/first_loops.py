"""The first self-loop (or ill-defined transition) of each main branch of the saturated
loop: the protocol of serial chains' mechanical simulation, on the event-driven relaxation
of :mod:`hyst.kernels.relaxation` (the full protocol, driven through loops and with
returns, is ``drive.saturated_loop_batch``). Only ``@jit`` functions over plain arrays."""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst.kernels.codes import ML_EVENTS, ML_L, ML_N_E, ML_OUTCOME, RECORD_L, RECORD_N_E, STABLE
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.relaxation import (
    Spins,
    init_fields,
    next_down,
    next_up,
    relax_event,
    system_state,
    transpose_buffer,
    up_mask,
    view_of,
)


@jit(borrow=True)
def _first_loop_branch(direction, st, v, rule, ws, res, row):
    """Drive one saturated branch (``Spins`` st, ``SystemView`` v) event by event until
    saturation or its first transition that does not end stable: row =
    ``codes.MECH_LOOP_COLUMNS`` (outcome, L, n_e, events; L = n_e = −1 when the branch
    saturates)."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    events = 0
    row[ML_OUTCOME] = STABLE
    row[ML_L] = -1
    row[ML_N_E] = -1
    while True:
        if direction > 0:
            Hc, crit, tie = next_up(neg, f, hp)
        else:
            Hc, crit, tie = next_down(neg, f, hm)
        if crit < 0:  # saturated
            break
        oc = relax_event(
            -1 if tie else crit, s, neg, f, Hc, direction, rule, hp, hm, form, ct, d, ws, res
        )
        events += 1
        if oc != STABLE:
            row[ML_OUTCOME] = oc
            row[ML_L] = res[RECORD_L]
            row[ML_N_E] = res[RECORD_N_E]
            break
    row[ML_EVENTS] = events


@jit
def first_loops_one(k, systems, rule, out):
    """System k: the up branch from all −1 and the down branch from all +1."""
    N = systems.h_plus.shape[1]
    s, neg, f, res, ws = system_state(N)
    v = view_of(k, systems, transpose_buffer(systems.form, N))
    for b in range(2):
        direction = 1 if b == 0 else -1
        for i in range(N):
            s[i] = -direction
        up_mask(s, neg)
        init_fields(s, f, v.form, v.ct, v.d)
        _first_loop_branch(direction, Spins(s, neg, f), v, rule, ws, res, out[k, b])


@batch_kernel
def first_loops_batch(systems, rule, out):
    """The first self-loop (or ill-defined transition) of each main branch of the saturated
    loop, for a batch of systems (``operands.SystemBatch``): out[k, branch] =
    ``codes.MECH_LOOP_COLUMNS``, branch 0 driven up from all −1, branch 1 down from all +1;
    a branch stops at its first transition that does not end stable. The protocol of serial
    chains' mechanical simulation (``hyst.kernels.mechanics.saturated_loop_batch``); the
    full protocol, driven through loops and with returns, is ``saturated_loop_batch``."""
    for k in prange(systems.h_plus.shape[0]):
        first_loops_one(np.int64(k), systems, rule, out)
