"""Drive protocols for one system of any size: the field H follows a list of turning fields,
exactly on the int64 grid, every transition relaxed by the event-driven kernels of
:mod:`hyst.kernels.relaxation` under any rule.

Only ``@jit`` functions over plain arrays live here; conventions as in
:mod:`hyst.model.systems` (integer fields, units of the quantum).

A *leg* moves H monotonically in a stated direction to a turning field t, which it reaches
on the far side: H = t + 0⁺ going up, t − 0⁺ going down. Every switching field met on the
way, thresholds exactly at t included, is an event: H jumps to it (± 0⁺ in the direction of
the leg) and the state relaxes there. A leg whose turning field lies behind it does nothing.
A transition that does not end stable (a self-loop; a race condition under rule 0) stops the
drive: its field, direction, L and n_e are kept, and for a self-loop the field H* where the
drive breaks it up (``drive._loop_exit``): the loop persists for H between the two.

- ``path``, ``cycles`` (:mod:`hyst.kernels.drive_paths`, with an event log): the legs of a
  list of turning fields, the state after each; a preamble of legs, then a cycle of legs
  repeated until the state at the end of a cycle repeats exactly (x_b = x_a: transient
  τ = a, period T = b − a);
- ``sweep``: the symmetric drive 0 → +A → −A → 0 from negative saturation at every amplitude
  where the response can change, in increasing order (see ``sweep``); ``sweep_batch`` its
  summary for a batch of systems.

A leg's *stop field* is the switching field beyond its turning field that ended it (±INF if
none): the response of a leg to t does not change while t stays below it (going up) or
above it (going down).

A leg's events depend on its start state alone, not on the field it starts from: a state
is stable where the leg starts, so its next switching field lies beyond. The sweep keeps
the legs of each amplitude's drive (``LegMemo``) and, where the same leg of the next
amplitude's drive starts from the same state, continues the kept one from the state it
ended in to the farther turning field (``memo_leg``): the same events, with the work of
those below the nearer turning field done once.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hyst.kernels import codes
from hyst.kernels.codes import (
    INF,
    NOT_CONVERGED,
    ORBIT,
    SELF_LOOP,
    STABLE,
    UNDEFINED,
)
from hyst.kernels.drive import _loop_exit
from hyst.kernels.inlining import inline_twin
from hyst.kernels.jit import jit
from hyst.kernels.relaxation import (
    Spins,
    earlier_visit,
    init_fields,
    next_switch,
    relax_event,
    state_hash,
    system_state,
    transpose_buffer,
    up_mask,
)

# The drive's per-event helpers of ``relaxation``, inlined into the legs and cycles below
# (a call per event and per state x cost more than their work at small N).
next_switch = inline_twin(next_switch)
state_hash = inline_twin(state_hash)
earlier_visit = inline_twin(earlier_visit)

#: Summary of a drive (one int64 row).
DRIVE_COLUMNS = (
    "outcome",  # STABLE (path done), ORBIT, NOT_CONVERGED, SELF_LOOP or ILL_DEFINED
    "legs",  # legs started (the last one is where a drive stopped)
    "events",  # switching events (avalanches)
    "flips",
    "ties",  # tied switching fields and ties met inside the relaxations
    "L",  # the self-loop that stopped the drive: length
    "n_e",  # ... elements flipping in it
    "e1",  # ... its first two flipping elements
    "e2",
    "loop_field",  # field where the stopping transition started (its event)
    "loop_direction",  # ... and the drive's direction there
    "loop_exit",  # H* where the drive breaks the self-loop up (±INF: never)
    "transient",  # cycles: τ
    "period",  # cycles: T
    "cycles",  # cycles run
    "next_amplitude",  # cycles: smallest |stop field| of the legs marked as amplitude legs
)
(
    DR_OUTCOME,
    DR_LEGS,
    DR_EVENTS,
    DR_FLIPS,
    DR_TIES,
    DR_L,
    DR_N_E,
    DR_E1,
    DR_E2,
    DR_LOOP_FIELD,
    DR_LOOP_DIRECTION,
    DR_LOOP_EXIT,
    DR_TRANSIENT,
    DR_PERIOD,
    DR_CYCLES,
    DR_NEXT_AMPLITUDE,
) = range(len(DRIVE_COLUMNS))

#: One switching event of a drive (a row of the event log).
EVENT_COLUMNS = (
    "leg",  # index of the leg (of the path; of preamble + cycles for ``cycles``)
    "field",  # switching field Hc (the event happens at Hc ± 0⁺)
    "direction",  # +1 up, −1 down
    "element",  # the element at its threshold (−1: tied with another)
    "flips",  # avalanche size
    "outcome",  # STABLE, SELF_LOOP or ILL_DEFINED
    "magnetisation",  # Σ s_i after the event
)
EV_LEG, EV_FIELD, EV_DIRECTION, EV_ELEMENT, EV_FLIPS, EV_OUTCOME, EV_M = range(len(EVENT_COLUMNS))

#: Per amplitude of ``sweep``: one int64 row.
SWEEP_COLUMNS = ("amplitude", "outcome", "transient", "period", "L", "n_e", "next_amplitude")
SW_AMPLITUDE, SW_OUTCOME, SW_TRANSIENT, SW_PERIOD, SW_L, SW_N_E, SW_NEXT = range(len(SWEEP_COLUMNS))

#: Summary of one system's sweep (``sweep_batch``).
SWEEP_SUMMARY_COLUMNS = (
    "preamble",  # outcome of the rise from saturation to H = 0 (STABLE, SELF_LOOP, ...)
    "amplitudes",  # amplitudes driven
    "critical_amplitude",  # smallest amplitude with T > 1 (−1: none)
    "critical_period",  # its T (0: none)
    "largest_period",  # largest T at any amplitude driven
    "loop_amplitude",  # smallest amplitude whose drive stopped at a self-loop (−1: none)
    "loop_L",  # its L
    "loop_n_e",  # its n_e
    "ill_amplitude",  # smallest amplitude stopped by an ill-defined transition (−1: none)
    "unconverged",  # amplitudes whose orbit was not found within max_cycles
    "saturation_field",  # the last amplitude of a full sweep, an orbit whose turning points
    # saturate the system (INF: the sweep stopped before it)
    "ties",  # ties met in all the drives
    "rpm",  # return-point memory on the standard nested protocol (``nested_rpm``): 1 holds,
    # 0 fails, −1 undefined (no saturation field, or the protocol met a self-loop)
    "period_mask",  # bit T set where some amplitude's drive reached an orbit of period T
    # (T = 1 … 62; bit 63 for any T > 62)
    "largest_transient",  # largest transient τ (cycles) of an orbit at any amplitude (−1: none)
    "orbits",  # amplitudes whose drive reached an orbit
    "loops",  # amplitudes whose drive stopped at a self-loop
)
(
    SS_PREAMBLE,
    SS_AMPLITUDES,
    SS_CRITICAL,
    SS_CRITICAL_PERIOD,
    SS_LARGEST_PERIOD,
    SS_LOOP_AMPLITUDE,
    SS_LOOP_L,
    SS_LOOP_N_E,
    SS_ILL_AMPLITUDE,
    SS_UNCONVERGED,
    SS_SATURATION,
    SS_TIES,
    SS_RPM,
    SS_PERIOD_MASK,
    SS_LARGEST_TRANSIENT,
    SS_ORBITS,
    SS_LOOPS,
) = range(len(SWEEP_SUMMARY_COLUMNS))
#: Bit of ``period_mask`` that stands for every period above 62.
PERIOD_MASK_OVERFLOW = 63


@jit(borrow=True, inline=True)
def leg(st, v, q, target, direction, rule, ws, res, events, summary):
    """Leg q: move H in ``direction`` to ``target`` (reached at target ± 0⁺), relaxing the
    ``Spins`` st of the ``SystemView`` v at every switching field met. Events are logged in
    ``events`` while it has room (``EVENT_COLUMNS``) and counted in ``summary``
    (``DRIVE_COLUMNS``). Returns (outcome, stop field): STABLE and the switching field beyond
    the target that ended the leg (±INF if none), or the outcome of the transition that did
    not end stable (a self-loop, whose state st is left at its first repeated state, or a
    rule-0 race condition) and the field of its event, recorded in ``summary``."""
    s, neg, f = st
    hp, hm, form, ct, d = v
    while True:
        Hc, crit, tie = next_switch(neg, f, hp, hm, direction)
        if crit < 0 or (Hc - target) * direction > 0:
            return STABLE, Hc
        known = -1 if tie else crit
        oc = relax_event(known, s, neg, f, Hc, direction, rule, hp, hm, form, ct, d, ws, res)
        n = summary[DR_EVENTS]
        if n < events.shape[0]:
            row = events[n]
            row[EV_LEG] = q
            row[EV_FIELD] = Hc
            row[EV_DIRECTION] = direction
            row[EV_ELEMENT] = known
            row[EV_FLIPS] = res[codes.RECORD_FLIPS]
            row[EV_OUTCOME] = oc
            m = 0
            for i in range(s.shape[0]):
                m += s[i]
            row[EV_M] = m
        summary[DR_EVENTS] = n + 1
        summary[DR_FLIPS] += res[codes.RECORD_FLIPS]
        summary[DR_TIES] += tie + res[codes.RECORD_TIES]
        if oc != STABLE:
            summary[DR_OUTCOME] = oc
            summary[DR_L] = res[codes.RECORD_L]
            summary[DR_N_E] = res[codes.RECORD_N_E]
            summary[DR_E1] = res[codes.RELAX_E1]
            summary[DR_E2] = res[codes.RELAX_E2]
            summary[DR_LOOP_FIELD] = Hc
            summary[DR_LOOP_DIRECTION] = direction
            return oc, Hc


@jit(borrow=True)
def loop_range(st, v, rule, ws, copy, summary):
    """After a drive stopped at a self-loop (``summary``): the field H* where the drive
    breaks it up, found on ``copy`` (``Spins`` work arrays; st is left alone)."""
    s, neg, f = st
    for i in range(s.shape[0]):
        copy.s[i] = s[i]
        copy.neg[i] = neg[i]
        copy.f[i] = f[i]
    direction = summary[DR_LOOP_DIRECTION]
    Hc = summary[DR_LOOP_FIELD]
    summary[DR_LOOP_EXIT] = _loop_exit(direction, summary[DR_L], copy, v, Hc, rule, ws[1])


@jit(borrow=True, inline=True)
def start_summary(summary):
    """The summary row of a drive before its first leg."""
    for q in range(summary.shape[0]):
        summary[q] = 0
    summary[DR_OUTCOME] = STABLE
    summary[DR_LOOP_FIELD] = UNDEFINED
    summary[DR_LOOP_EXIT] = UNDEFINED
    summary[DR_E1] = -1
    summary[DR_E2] = -1
    summary[DR_TRANSIENT] = UNDEFINED
    summary[DR_PERIOD] = UNDEFINED
    summary[DR_NEXT_AMPLITUDE] = INF


@jit(borrow=True)
def saturate(st, v, sign):
    """Set the ``Spins`` st to the saturated state s_i = sign and fill its local fields."""
    s, neg, f = st
    for i in range(s.shape[0]):
        s[i] = sign
    up_mask(s, neg)
    init_fields(s, f, v.form, v.ct, v.d)


@jit(borrow=True, inline=True)
def copy_spins(src, dst):
    """dst = src (``Spins``)."""
    for i in range(src.s.shape[0]):
        dst.s[i] = src.s[i]
        dst.neg[i] = src.neg[i]
        dst.f[i] = src.f[i]


@jit(borrow=True, inline=True)
def fill_symmetric_cycle(A, cycle):
    """Write into ``cycle`` (3, 3) the legs of one cycle of the symmetric drive of
    amplitude A: up to +A, down to −A (both amplitude legs), up to 0."""
    cycle[0, 0], cycle[0, 1], cycle[0, 2] = A, 1, 1
    cycle[1, 0], cycle[1, 1], cycle[1, 2] = -A, -1, 1
    cycle[2, 0], cycle[2, 1], cycle[2, 2] = 0, 1, 0


#: Legs of an amplitude's drive that the next amplitude's drive may continue (``LegMemo``):
#: its first two cycles.
MEMO_LEGS = 6
#: Per leg of ``LegMemo.meta`` (int64): whether it is kept, its direction and turning
#: field, and the events, flips and ties it made.
MEMO_COLUMNS = ("kept", "direction", "target", "events", "flips", "ties")
MM_KEPT, MM_DIRECTION, MM_TARGET, MM_EVENTS, MM_FLIPS, MM_TIES = range(len(MEMO_COLUMNS))


class LegMemo(NamedTuple):
    """The legs q < ``MEMO_LEGS`` of the last drive of an amplitude sweep, by their number
    q in the drive (``memo_leg``): the state each started from (``start``, (K, N) int8),
    the state it ended in (``s``, ``neg``, ``f``: a ``Spins`` row each) and ``meta``
    (K, ``MEMO_COLUMNS``). Only legs that ended stable are kept."""

    start: np.ndarray
    s: np.ndarray
    neg: np.ndarray
    f: np.ndarray
    meta: np.ndarray


@jit
def leg_memo(N):
    """An empty ``LegMemo`` for systems of N elements."""
    K = MEMO_LEGS
    return LegMemo(
        np.empty((K, N), np.int8),
        np.empty((K, N), np.int8),
        np.empty((K, N), np.int64),
        np.empty((K, N), np.int64),
        np.zeros((K, len(MEMO_COLUMNS)), np.int64),
    )


@jit(borrow=True, inline=True)
def memo_leg(st, v, q, target, direction, rule, ws, res, events, summary, memo):
    """``leg`` q of a drive of the amplitude sweep, as ``leg`` would run it (the same
    state, outcome, stop field and counts in ``summary``), continued from the kept leg q
    of the last drive (``memo``) where that one started from the same state in the same
    direction and turned no further: its events up to its turning field are this leg's
    (they depend on the start state alone), and this leg goes on from the state it ended
    in. The leg, if it ends stable, is kept for the next drive. No event log: ``events``
    must be empty (0 rows)."""
    s, neg, f = st
    N = s.shape[0]
    if q >= memo.meta.shape[0]:
        return leg(st, v, q, target, direction, rule, ws, res, events, summary)
    m = memo.meta[q]
    e0, f0, t0 = summary[DR_EVENTS], summary[DR_FLIPS], summary[DR_TIES]
    same = m[MM_KEPT] != 0 and m[MM_DIRECTION] == direction
    same = same and (target - m[MM_TARGET]) * direction >= 0
    if same:
        for i in range(N):
            if memo.start[q, i] != s[i]:
                same = False
                break
    if same:  # the kept leg, then on from where it ended
        for i in range(N):
            s[i] = memo.s[q, i]
            neg[i] = memo.neg[q, i]
            f[i] = memo.f[q, i]
        summary[DR_EVENTS] += m[MM_EVENTS]
        summary[DR_FLIPS] += m[MM_FLIPS]
        summary[DR_TIES] += m[MM_TIES]
    else:
        for i in range(N):
            memo.start[q, i] = s[i]
    oc, stop = leg(st, v, q, target, direction, rule, ws, res, events, summary)
    if oc != STABLE:
        m[MM_KEPT] = 0
        return oc, stop
    m[MM_KEPT] = 1
    m[MM_DIRECTION] = direction
    m[MM_TARGET] = target
    m[MM_EVENTS] = summary[DR_EVENTS] - e0
    m[MM_FLIPS] = summary[DR_FLIPS] - f0
    m[MM_TIES] = summary[DR_TIES] - t0
    for i in range(N):
        memo.s[q, i] = s[i]
        memo.neg[q, i] = neg[i]
        memo.f[q, i] = f[i]
    return oc, stop


@jit(borrow=True, inline=True)
def sweep_cycles(st, v, rule, max_cycles, w, summary, snaps, hashes):
    """The symmetric drive of one amplitude of the sweep (the legs of ``w.cycle``) from
    the ``Spins`` st: ``drive_paths.cycles_from`` from its start (leg 0, no state x stored)
    with every leg run by ``memo_leg`` on ``w.memo`` and no event log. Returns as
    ``cycles_from``."""
    keys = w.ws[0]
    cycle = w.cycle
    n = 0
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
        q0 = summary[DR_CYCLES] * cycle.shape[0]
        oc = STABLE
        nxt = INF
        for p in range(cycle.shape[0]):
            q = q0 + p
            summary[DR_LEGS] = q + 1
            oc, stop = memo_leg(
                st, v, q, cycle[p, 0], cycle[p, 1], rule, w.ws, w.res, w.no_events, summary,
                w.memo,
            )  # fmt: skip
            if oc != STABLE:
                if oc == SELF_LOOP:
                    loop_range(st, v, rule, w.ws, w.copy, summary)
                break
            if cycle[p, 2] != 0:
                nxt = min(nxt, abs(stop))
        summary[DR_NEXT_AMPLITUDE] = min(summary[DR_NEXT_AMPLITUDE], nxt)
        summary[DR_CYCLES] += 1
        if oc != STABLE:
            return n


class SweepWork(NamedTuple):
    """Work arrays of the amplitude sweep, the nested protocol and the symmetric drive of
    one N-element system (``sweep_work``), reused from system to system of a batch: one set
    per block of systems, so that the compiled loop over the systems allocates nothing per
    system (a set filled anew costs more than the whole sweep of a small system).

    x0: the state at H = 0 after the rise from saturation; st: the driven state; copy:
    ``loop_range``'s; res, ws: a relaxation's result row and ``workspace``; buf: the
    ``system_view`` buffer of the batch's coupling form; summary (``DRIVE_COLUMNS``);
    cycle (3, 3): the legs of one symmetric cycle; legs (5, 2): those of the nested
    protocol, states (5, N) the state after each; rise (1, 2): the leg from H = −∞ to 0;
    no_events (0, ``EVENT_COLUMNS``): no event log; memo: the legs of the sweep's last
    drive (``LegMemo``, emptied where a sweep starts). Every array is written before it is
    read. The arrays that grow, the sweep's rows and the states x of a cyclic drive, go
    beside it (``sweep_rows``)."""

    x0: Spins
    st: Spins
    copy: Spins
    res: np.ndarray
    ws: tuple
    buf: np.ndarray
    summary: np.ndarray
    cycle: np.ndarray
    legs: np.ndarray
    states: np.ndarray
    rise: np.ndarray
    no_events: np.ndarray
    memo: LegMemo


@jit
def new_spins(N):
    """Uninitialised ``Spins`` of N elements."""
    return Spins(np.empty(N, np.int8), np.empty(N, np.int64), np.empty(N, np.int64))


@jit
def sweep_work(N, form):
    """A ``SweepWork`` for systems of N elements whose couplings have the kernel form
    ``form``."""
    s, neg, f, res, ws = system_state(N)
    rise = np.zeros((1, 2), np.int64)
    rise[0, 1] = 1  # from H = −∞ up to H = 0
    return SweepWork(
        new_spins(N),
        Spins(s, neg, f),
        new_spins(N),
        res,
        ws,
        transpose_buffer(form, N),
        np.empty(len(DRIVE_COLUMNS), np.int64),
        np.empty((3, 3), np.int64),
        np.empty((5, 2), np.int64),
        np.empty((5, N), np.int8),
        rise,
        np.empty((0, len(EVENT_COLUMNS)), np.int64),
        leg_memo(N),
    )


#: Initial capacity of a sweep's rows and of a cyclic drive's states x (``sweep_rows``).
ROWS, VISITS = 8, 16


@jit
def sweep_arrays(N):
    """Empty rows (``SWEEP_COLUMNS``) of a sweep, and snaps (N wide), hashes of the states
    x of its drives, at their initial capacity."""
    return (
        np.empty((ROWS, len(SWEEP_COLUMNS)), np.int64),
        np.empty((VISITS, N), np.int8),
        np.empty(VISITS, np.uint64),
    )


@jit
def symmetric_cycle(A):
    """The legs of one cycle of the symmetric drive of amplitude A: up to +A, down to −A
    (both amplitude legs), up to 0."""
    cycle = np.empty((3, 3), np.int64)
    fill_symmetric_cycle(A, cycle)
    return cycle


#: ``sweep_in``'s count of rows where its rows, or the snaps of a drive, are full.
ROWS_FULL, VISITS_FULL = -1, -2


@jit
def sweep(v, rule, max_cycles, first_only, summary):
    """The symmetric cyclic drive of the ``SystemView`` v at every amplitude where its
    response can change, in increasing order (``sweep_in`` with work arrays of its own).
    Returns the rows ``SWEEP_COLUMNS`` of the amplitudes driven, the preamble's outcome and
    the ties met in all drives."""
    N = v.h_plus.shape[0]
    rows, snaps, hashes = sweep_arrays(N)
    w = sweep_work(N, v.form)
    n, pre, ties, rows, snaps, hashes = sweep_rows(
        v, rule, max_cycles, first_only, summary, w, rows, snaps, hashes
    )
    return rows[:n], pre, ties


@jit
def grown_sweep(n, rows, snaps, hashes):
    """After ``sweep_in`` returned n = ``ROWS_FULL`` or ``VISITS_FULL``: (rows, snaps,
    hashes), the full ones twice as large (no content kept: the sweep starts again)."""
    if n == ROWS_FULL:
        rows = np.empty((2 * rows.shape[0], rows.shape[1]), np.int64)
    else:
        snaps = np.empty((2 * snaps.shape[0], snaps.shape[1]), np.int8)
        hashes = np.empty(2 * hashes.shape[0], np.uint64)
    return rows, snaps, hashes


@jit
def sweep_rows(v, rule, max_cycles, first_only, summary, w, rows, snaps, hashes):
    """``sweep_in`` on the ``SweepWork`` w, rows, snaps and hashes, run again on larger
    ones while they are too small: returns (the number of rows, the preamble's outcome,
    ties, rows, snaps, hashes), the arrays kept for the next system."""
    while True:
        n, pre, ties = sweep_in(v, rule, max_cycles, first_only, summary, w, rows, snaps, hashes)
        if n >= 0:
            return n, pre, ties, rows, snaps, hashes
        rows, snaps, hashes = grown_sweep(n, rows, snaps, hashes)


@jit(borrow=True)
def sweep_in(v, rule, max_cycles, first_only, summary, w, rows, snaps, hashes):
    """The symmetric cyclic drive of the ``SystemView`` v at every amplitude where its
    response can change, in increasing order, on the ``SweepWork`` w.

    The state all −1 is driven up to H = 0 (the preamble, independent of A: done once;
    x_0), then cycled 0 → +A → −A → 0 (``cycles``). The first amplitude is A = 0; the next
    is the smallest |stop field| of the ±A legs driven at the previous one. For every A'
    between two consecutive amplitudes every comparison of the drive with ±A' comes out as
    with ±A, so the drive is the same event for event: the amplitudes listed are all the
    amplitudes where the response changes (a subset of the |thresholds| of all states). A
    drive that stopped (self-loop, race condition under rule 0) counts its stop fields up
    to there, which larger amplitudes also reach. The sweep ends when no stop field is
    left (every larger amplitude gives the same drive: for an orbit, both turning points
    saturate the system from there on), or with ``first_only`` at the first orbit with
    T > 1. ``summary`` receives that of the last drive. Returns (the number n of rows
    ``SWEEP_COLUMNS`` of the amplitudes driven, filled in ``rows``, the preamble's outcome,
    the ties met in all drives); n = ``ROWS_FULL`` or ``VISITS_FULL`` where rows, or snaps
    and hashes (the states x of a drive), are too small (``sweep_rows``)."""
    x0 = w.x0
    saturate(x0, v, -1)
    start_summary(summary)
    oc, _stop = leg(x0, v, 0, 0, 1, rule, w.ws, w.res, w.no_events, summary)
    ties = summary[DR_TIES]
    if oc != STABLE:
        if oc == SELF_LOOP:
            loop_range(x0, v, rule, w.ws, w.copy, summary)
        return 0, oc, ties
    n, ties = sweep_from_in(
        x0, v, rule, max_cycles, first_only, summary, ties, w, rows, snaps, hashes
    )
    return n, STABLE, ties


@jit
def sweep_from(x0, v, rule, max_cycles, first_only, summary, ties):
    """The amplitude sweep of ``sweep`` from the ``Spins`` x0, the state at H = 0 (x0 is
    left alone): the symmetric drive 0 → +A → −A → 0 at every amplitude where the response
    can change, from A = 0 up. Returns (the rows ``SWEEP_COLUMNS``, ``ties`` plus the ties
    met in the drives)."""
    N = v.h_plus.shape[0]
    rows, snaps, hashes = sweep_arrays(N)
    w = sweep_work(N, v.form)
    while True:
        n, more = sweep_from_in(
            x0, v, rule, max_cycles, first_only, summary, ties, w, rows, snaps, hashes
        )
        if n >= 0:
            return rows[:n], more
        rows, snaps, hashes = grown_sweep(n, rows, snaps, hashes)


@jit(borrow=True)
def sweep_from_in(x0, v, rule, max_cycles, first_only, summary, ties, w, rows, snaps, hashes):
    """``sweep_from`` on the ``SweepWork`` w (x0 is not w.st), filling rows: returns (the
    number of rows, or ``ROWS_FULL`` / ``VISITS_FULL`` as ``sweep_in``, ``ties`` plus the
    ties met in the drives)."""
    st = w.st
    n = 0
    A = np.int64(0)
    kept = w.memo.meta
    for q in range(kept.shape[0]):  # no leg of another system's or start's sweep
        kept[q, MM_KEPT] = 0
    while True:
        copy_spins(x0, st)
        fill_symmetric_cycle(A, w.cycle)
        start_summary(summary)  # ``drive_paths.cycles_start`` without a preamble leg
        ns = sweep_cycles(st, v, rule, max_cycles, w, summary, snaps, hashes)
        if ns < 0:
            return VISITS_FULL, ties
        ties += summary[DR_TIES]
        if n >= rows.shape[0]:
            return ROWS_FULL, ties
        row = rows[n]
        row[SW_AMPLITUDE] = A
        row[SW_OUTCOME] = summary[DR_OUTCOME]
        row[SW_TRANSIENT] = summary[DR_TRANSIENT]
        row[SW_PERIOD] = summary[DR_PERIOD]
        row[SW_L] = summary[DR_L]
        row[SW_N_E] = summary[DR_N_E]
        row[SW_NEXT] = summary[DR_NEXT_AMPLITUDE]
        n += 1
        if first_only and summary[DR_OUTCOME] == ORBIT and summary[DR_PERIOD] > 1:
            return n, ties
        if summary[DR_NEXT_AMPLITUDE] >= INF:
            return n, ties
        A = summary[DR_NEXT_AMPLITUDE]
