"""Drives of one system along lists of turning fields, with an event log: ``path`` (the
legs of a list of turning fields, the state after each) and ``cycles`` (a preamble of legs,
then a cycle of legs repeated until the state at the end of a cycle repeats exactly). The
legs are those of :mod:`hyst.kernels.protocols` (``leg``), which drives the amplitude sweep
on them without an event log.

Only ``@jit`` functions over plain arrays live here; conventions as in
:mod:`hyst.kernels.protocols`.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import INF, NOT_CONVERGED, ORBIT, SELF_LOOP, STABLE
from hyst.kernels.jit import jit
from hyst.kernels.protocols import (
    DR_CYCLES,
    DR_LEGS,
    DR_NEXT_AMPLITUDE,
    DR_OUTCOME,
    DR_PERIOD,
    DR_TRANSIENT,
    earlier_visit,
    leg,
    loop_range,
    start_summary,
    state_hash,
)
from hyst.kernels.relaxation import grow


@jit(borrow=True, inline=True)
def run_legs(st, v, legs, q0, rule, ws, res, events, states, copy, summary):
    """Drive the ``Spins`` st along the rows of ``legs`` ((field, direction), or (field,
    direction, amplitude leg 0/1)), numbered from q0; with rows in ``states``, states[q]
    receives the state after leg q. Returns (outcome, smallest |stop field| of the
    amplitude legs): STABLE, or that of the transition that stopped the drive
    (``summary``; for a self-loop its exit field, ``loop_range``)."""
    nxt = INF
    for p in range(legs.shape[0]):
        q = q0 + p
        summary[DR_LEGS] = q + 1
        oc, stop = leg(st, v, q, legs[p, 0], legs[p, 1], rule, ws, res, events, summary)
        if states.shape[0] > 0:
            for i in range(st.s.shape[0]):
                states[q, i] = st.s[i]
        if oc != STABLE:
            if oc == SELF_LOOP:
                loop_range(st, v, rule, ws, copy, summary)
            return oc, nxt
        if legs.shape[1] > 2 and legs[p, 2] != 0:
            nxt = min(nxt, abs(stop))
    return STABLE, nxt


@jit(borrow=True)
def path(st, v, legs, rule, ws, res, events, states, copy, summary):
    """Drive the ``Spins`` st along the rows (field, direction) of ``legs``; states[q]
    receives the state after leg q (after the last leg started, if the drive stopped).
    Returns the outcome: STABLE, or that of the transition that stopped the drive
    (``summary``)."""
    start_summary(summary)
    oc, _nxt = run_legs(st, v, legs, 0, rule, ws, res, events, states, copy, summary)
    return oc


@jit
def cycles(st, v, preamble, cycle, rule, max_cycles, ws, res, events, copy, summary, snaps, hashes):
    """Drive the ``Spins`` st along the legs of ``preamble`` (rows (field, direction)), then
    repeat the legs of ``cycle`` (rows (field, direction, amplitude leg 0/1)) until the state
    x_b at the end of cycle b equals an earlier x_a (x_0: after the preamble; exact
    comparison): transient τ = a, period T = b − a in ``summary``, outcome ORBIT. A
    transition that does not end stable stops the drive (its outcome), and so does reaching
    ``max_cycles`` states x (NOT_CONVERGED). summary's next amplitude is the smallest |stop
    field| of the amplitude legs run. snaps, hashes: work arrays of the states x (grown when
    full); returns (snaps, hashes, number of states x stored), x_0 … in snaps."""
    if not cycles_start(st, v, preamble, rule, ws, res, events, copy, summary, snaps[:0]):
        return snaps, hashes, 0
    nsnap = 0
    while True:
        nsnap = cycles_from(
            st, v, cycle, preamble.shape[0], rule, max_cycles, ws, res, events, copy, summary,
            snaps, hashes, nsnap,
        )  # fmt: skip
        if nsnap >= 0:
            return snaps, hashes, nsnap
        nsnap = -1 - nsnap
        snaps, hashes = grown_visits(snaps, hashes, nsnap)


@jit
def grown_visits(snaps, hashes, n):
    """snaps and hashes of ``cycles`` twice as long, their first n entries kept."""
    bigger = np.empty((2 * snaps.shape[0], snaps.shape[1]), np.int8)
    bigger[:n] = snaps[:n]
    return bigger, grow(hashes, n)


@jit(borrow=True)
def cycles_start(st, v, preamble, rule, ws, res, events, copy, summary, none):
    """The start of ``cycles``: a fresh ``summary`` and the legs of ``preamble``; whether
    they ended stable (else the drive stopped there, ``summary``). none: an empty (0, N)
    int8 array."""
    start_summary(summary)
    oc, nxt = run_legs(st, v, preamble, 0, rule, ws, res, events, none, copy, summary)
    summary[DR_NEXT_AMPLITUDE] = nxt
    return oc == STABLE


@jit(borrow=True)
def cycles_from(
    st, v, cycle, q0, rule, max_cycles, ws, res, events, copy, summary, snaps, hashes, n
):
    """The cycles of ``cycles`` after its start (``cycles_start``; leg numbers from q0),
    with n states x stored in snaps and hashes: the number of states x stored when the drive
    ended (``summary``), or −1 − n when snaps is full with n (the drive paused: grow both
    and call again with n, the state st as it was left)."""
    keys = ws[0]
    none = snaps[:0]
    while True:
        h = state_hash(st.neg, keys)
        a = earlier_visit(snaps, hashes, n, st.s, h)
        if a >= 0:
            summary[DR_OUTCOME] = ORBIT
            summary[DR_TRANSIENT] = a
            summary[DR_PERIOD] = n - a
            return n
        if n >= max_cycles:
            summary[DR_OUTCOME] = NOT_CONVERGED
            return n
        if n >= snaps.shape[0]:
            return -1 - n
        for i in range(st.s.shape[0]):
            snaps[n, i] = st.s[i]
        hashes[n] = h
        n += 1
        q = q0 + summary[DR_CYCLES] * cycle.shape[0]
        oc, stop = run_legs(st, v, cycle, q, rule, ws, res, events, none, copy, summary)
        summary[DR_NEXT_AMPLITUDE] = min(summary[DR_NEXT_AMPLITUDE], stop)
        summary[DR_CYCLES] += 1
        if oc != STABLE:
            return n
