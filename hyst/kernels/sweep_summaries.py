"""The summary of an amplitude sweep (:func:`hyst.kernels.protocols.sweep`) per system, and
return-point memory on the standard nested protocol scaled by the sweep's saturation field.

Only ``@jit`` functions over plain arrays live here; the rows they read are
``protocols.SWEEP_COLUMNS``, the summary they fill ``protocols.SWEEP_SUMMARY_COLUMNS``.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import ILL_DEFINED, INF, NOT_CONVERGED, ORBIT, SELF_LOOP, STABLE
from hyst.kernels.drive_paths import path
from hyst.kernels.jit import jit
from hyst.kernels.protocols import (
    PERIOD_MASK_OVERFLOW,
    SS_AMPLITUDES,
    SS_CRITICAL,
    SS_CRITICAL_PERIOD,
    SS_ILL_AMPLITUDE,
    SS_LARGEST_PERIOD,
    SS_LARGEST_TRANSIENT,
    SS_LOOP_AMPLITUDE,
    SS_LOOP_L,
    SS_LOOP_N_E,
    SS_LOOPS,
    SS_ORBITS,
    SS_PERIOD_MASK,
    SS_PREAMBLE,
    SS_SATURATION,
    SS_TIES,
    SS_UNCONVERGED,
    SW_AMPLITUDE,
    SW_L,
    SW_N_E,
    SW_NEXT,
    SW_OUTCOME,
    SW_PERIOD,
    SW_TRANSIENT,
    copy_spins,
)


@jit(borrow=True)
def sweep_summary(rows, preamble, ties, out):
    """Fill one system's ``SWEEP_SUMMARY_COLUMNS`` from the rows of its ``sweep``."""
    for q in range(out.shape[0]):
        out[q] = 0
    out[SS_PREAMBLE] = preamble
    out[SS_AMPLITUDES] = rows.shape[0]
    out[SS_CRITICAL] = -1
    out[SS_LOOP_AMPLITUDE] = -1
    out[SS_ILL_AMPLITUDE] = -1
    out[SS_SATURATION] = INF
    out[SS_TIES] = ties
    for r in range(rows.shape[0]):
        row = rows[r]
        oc = row[SW_OUTCOME]
        if oc == ORBIT:
            T = row[SW_PERIOD]
            out[SS_LARGEST_PERIOD] = max(out[SS_LARGEST_PERIOD], T)
            if T > 1 and out[SS_CRITICAL] < 0:
                out[SS_CRITICAL] = row[SW_AMPLITUDE]
                out[SS_CRITICAL_PERIOD] = T
        elif oc == SELF_LOOP and out[SS_LOOP_AMPLITUDE] < 0:
            out[SS_LOOP_AMPLITUDE] = row[SW_AMPLITUDE]
            out[SS_LOOP_L] = row[SW_L]
            out[SS_LOOP_N_E] = row[SW_N_E]
        elif oc == ILL_DEFINED and out[SS_ILL_AMPLITUDE] < 0:
            out[SS_ILL_AMPLITUDE] = row[SW_AMPLITUDE]
        elif oc == NOT_CONVERGED:
            out[SS_UNCONVERGED] += 1
    last = rows.shape[0] - 1
    if last >= 0 and rows[last, SW_OUTCOME] == ORBIT and rows[last, SW_NEXT] >= INF:
        out[SS_SATURATION] = rows[last, SW_AMPLITUDE]
    periods_met(rows, out)


@jit(borrow=True)
def periods_met(rows, out):
    """Fill one system's period mask, largest transient, orbit and self-loop counts
    (``SWEEP_SUMMARY_COLUMNS``) from the rows of its ``sweep``: a drive stopped by a
    self-loop counts as a self-loop, never as a period."""
    mask = np.int64(0)
    out[SS_LARGEST_TRANSIENT] = -1
    out[SS_ORBITS] = 0
    out[SS_LOOPS] = 0
    for r in range(rows.shape[0]):
        oc = rows[r, SW_OUTCOME]
        if oc == ORBIT:
            T = rows[r, SW_PERIOD]
            mask |= np.int64(1) << np.int64(min(T, PERIOD_MASK_OVERFLOW))
            out[SS_LARGEST_TRANSIENT] = max(out[SS_LARGEST_TRANSIENT], rows[r, SW_TRANSIENT])
            out[SS_ORBITS] += 1
        elif oc == SELF_LOOP:
            out[SS_LOOPS] += 1
    out[SS_PERIOD_MASK] = mask


@jit(borrow=True)
def fill_nested_legs(saturation, legs):
    """Write into ``legs`` (5, 2) the legs of the standard nested protocol (``nested_rpm``)
    for the saturation field A_s: up to A_s/2, down to −A_s/2, up to 0, down to −A_s/2, up
    to A_s/2."""
    half = saturation // 2
    for q in range(5):
        legs[q, 1] = 1 if q % 2 == 0 else -1
    legs[0, 0], legs[1, 0], legs[2, 0], legs[3, 0], legs[4, 0] = half, -half, 0, -half, half


@jit(borrow=True)
def nested_rpm(v, saturation, rule, w):
    """Return-point memory on the standard nested protocol, scaled by the saturation field
    A_s of the amplitude sweep (the smallest amplitude from which on both turning points
    saturate the system), on the ``SweepWork`` w of the system's sweep (``sweep_in``): from
    all −1 at H = −∞ up to H_1 = A_s/2, down to H_2 = −A_s/2, then the sub-loop up to 0 and
    back down to H_2, then up to H_1 again. 1 if the state back at H_2 is the one left
    there and the state back at H_1 the one left there, 0 if not, −1 if the drive stopped
    (a self-loop, a rule-0 race condition).

    The rise starts from the sweep's w.x0, the state the same rise reached at H = 0: a
    leg's next switching field depends on the state alone, and a leg to H makes the
    switches at H, so the rise to A_s/2 ≥ 0 passes H = 0 in that state."""
    st = w.st
    copy_spins(w.x0, st)
    states = w.states
    fill_nested_legs(saturation, w.legs)
    oc = path(st, v, w.legs, rule, w.ws, w.res, w.no_events, states, w.copy, w.summary)
    if oc != STABLE:
        return -1
    for i in range(states.shape[1]):
        if states[1, i] != states[3, i] or states[0, i] != states[4, i]:
            return 0
    return 1
