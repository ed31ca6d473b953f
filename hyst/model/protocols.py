"""Drive protocols for one system: thin wrappers over :mod:`hyst.kernels.protocols`.

Fields are integers in units of the quantum (``hyst.model.systems.quantize``). A drive
starts from a saturated state (all −1 at H = −∞, or all +1 at H = +∞) and follows a list of
turning fields; each leg reaches its turning field t on the far side (t + 0⁺ going up,
t − 0⁺ going down), so that a threshold exactly at t switches, and every transition is
relaxed under the rule. A transition that does not end stable stops the drive and is
reported (``SelfLoop``), never raised.

Two elements with antisymmetric couplings c_12 = −c_21 = 0.5 (bare thresholds 0.1, 0.3 up
and −0.1, 0.1 down): driven up from saturation, element 2 switches at H = −0.2 and the pair
is trapped in an L = 4 self-loop through all four states, which persists until H reaches
0.4, where the down step of element 1 can no longer happen:

>>> from hyst.model.systems import Systems, quantize
>>> sy = Systems.from_floats([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
>>> d = drive(sy, quantize([1.0, -1.0]))
>>> d.outcome, d.loop.L, d.loop.n_e, round(d.loop.field * 2**-40, 6), round(d.loop.exit * 2**-40, 6)
('self_loop', 4, 2, -0.2, 0.4)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from hyst.kernels import codes
from hyst.kernels import drive_paths as kd
from hyst.kernels import protocols as kp
from hyst.kernels.relaxation import (
    Spins,
    init_fields,
    relax,
    up_mask,
    workspace,
)
from hyst.model.batch import MAX_CYCLES, amplitude_sweep_one
from hyst.model.batch import amplitude_sweep_batch as sweep_batch  # noqa: F401 (hyst.api)
from hyst.model.batch import symmetric_drive_batch as symmetric_batch  # noqa: F401 (hyst.api)
from hyst.model.relax import StateTables
from hyst.model.systems import Systems, rule_code

#: Outcome names of a drive that stopped or did not converge.
STOPPED = {
    codes.SELF_LOOP: "self_loop",
    codes.ILL_DEFINED: "ill_defined",
    codes.NOT_CONVERGED: "not_converged",
}


def outcome_name(code: int, cyclic: bool) -> str:
    """The name of a drive's outcome code: ``done`` (a path) or ``orbit`` (a cyclic drive)
    for code 0 (``codes.STABLE`` = ``codes.ORBIT``), else ``STOPPED``."""
    if code == codes.STABLE:
        return "orbit" if cyclic else "done"
    return STOPPED[int(code)]


@dataclass(frozen=True)
class SelfLoop:
    """The transition that stopped a drive: a self-loop of L states in which n_e elements
    flip (e1, e2 the first two), met at the switching field ``field`` (the event at
    field ± 0⁺ in ``direction``); it persists while the drive goes on up to ``exit``, where
    its first step against the drive breaks (±INF: never). For a rule-0 race condition
    (``ill_defined``) only field and direction are set."""

    outcome: str
    field: int
    direction: int
    L: int
    n_e: int
    e1: int
    e2: int
    exit: int


@dataclass(frozen=True)
class Drive:
    """A drive of one system.

    outcome: ``done`` (a path driven to its end), ``orbit`` (a cyclic drive reached a
    periodic orbit), ``self_loop`` or ``ill_defined`` (stopped: ``loop``),
    ``not_converged`` (no repeat within max_cycles).
    states: int8 (n, N): the state after each leg of a path (the last row is where the drive
    stopped), or x_0, x_1, … of a cyclic drive (x_0 after the preamble, x_k after cycle k;
    the orbit is x_τ … x_{τ+T−1}).
    events: int64 (n, len(``hyst.kernels.protocols.EVENT_COLUMNS``)): every switching
    event (leg, field, direction, element, flips, outcome, magnetisation after it).
    transient τ, period T, cycles (cyclic drives; −1 / 0 otherwise), flips, ties.
    legs: int64 (legs started, 2): the turning field and direction (+1 up, −1 down) of each
    leg started, numbered as the events' ``leg`` (preamble, then cycle after cycle).
    preamble_legs: the legs before the first state x_0 of a cyclic drive (0 for a path);
    cycle_legs: the legs of one cycle (0 for a path).
    """

    outcome: str
    states: np.ndarray
    events: np.ndarray
    flips: int
    ties: int
    loop: SelfLoop | None = None
    transient: int = -1
    period: int = -1
    cycles: int = 0
    legs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    preamble_legs: int = 0
    cycle_legs: int = 0


def is_state(start) -> bool:
    """Whether a drive's ``start`` is a state (N spins ±1, placed at H = 0) rather than a
    saturation sign (−1: all −1 at H = −∞; +1: all +1 at H = +∞)."""
    return np.ndim(start) > 0


def turning_directions(fields, start=-1) -> np.ndarray:
    """The direction of each leg through the turning ``fields`` from saturation ``start``
    (−1: from H = −∞, +1: from +∞) or from a given state at H = 0 (``start`` its spins):
    up to a field above the previous one, down to one below it, and reversed at a repeated
    field (a turning point in place; from a state at H = 0, a first field 0 is driven up)."""
    dirs = np.empty(len(fields), np.int64)
    if is_state(start):
        at, direction = 0, -1
    else:
        at, direction = start * int(codes.INF), -start
    for q, t in enumerate(fields):
        t = int(t)
        direction = (1 if t > at else -1) if t != at else -direction
        dirs[q] = direction
        at = t
    return dirs


#: The relaxation workspaces of this thread, by N (:func:`_workspace`).
_WORKSPACES = threading.local()


def _workspace(N: int):
    """The relaxation workspace (``hyst.kernels.relaxation.workspace``) of N-element
    systems, one per thread and N, shared by the drives of that thread: every relaxation
    leaves it as it found it (its revisit table empty), and a drive of one system on one
    thread is the only one using it (a drive's fixed cost, a third of a short drive's time,
    was mostly building it and the system's view anew)."""
    by_n = getattr(_WORKSPACES, "by_n", None)
    if by_n is None:
        by_n = _WORKSPACES.by_n = {}
    ws = by_n.get(N)
    if ws is None:
        ws = by_n[N] = workspace(N)
    return ws


class _One:
    """One system's view and work arrays for the protocol kernels."""

    def __init__(self, systems: Systems, index: int):
        self.N = N = systems.N
        self.v = systems.kernel_view_of(index)
        self.ws = _workspace(N)
        self.res = np.zeros(len(codes.RELAX_COLUMNS), np.int64)
        self.st = Spins(np.empty(N, np.int8), np.empty(N, np.int64), np.empty(N, np.int64))
        self.copy = Spins(np.empty(N, np.int8), np.empty(N, np.int64), np.empty(N, np.int64))
        self.summary = np.zeros(len(kp.DRIVE_COLUMNS), np.int64)

    def saturate(self, start: int):
        if start not in (-1, 1):
            raise ValueError(f"start: {start!r} is not -1 or +1 (the saturated state)")
        kp.saturate(self.st, self.v, np.int8(start))

    def begin(self, start, rule: int) -> int:
        """Put the system in its start: saturated (``start`` −1 or +1), or the given state
        (N spins ±1) relaxed at H = 0 under ``rule`` (a state stable there stays as it is).
        Returns that relaxation's outcome (STABLE, or SELF_LOOP / ILL_DEFINED: the drive
        stops before its first leg, ``stopped_at_start``)."""
        if not is_state(start):
            self.saturate(start)
            return codes.STABLE
        spins = start_state(start, self.N)
        s, neg, f = self.st
        s[:] = spins
        up_mask(s, neg)
        v = self.v
        init_fields(s, f, v.form, v.ct, v.d)
        return int(
            relax(s, neg, f, 0, 0, rule, v.h_plus, v.h_minus, v.form, v.ct, v.d, self.ws, self.res)
        )

    def stopped_at_start(self, oc: int):
        """The summary of a drive whose start state did not relax to a stable one at
        H = 0: the self-loop (or race condition) met there, at field 0."""
        sm, res = self.summary, self.res
        kp.start_summary(sm)
        sm[kp.DR_OUTCOME] = oc
        sm[kp.DR_L] = res[codes.RECORD_L]
        sm[kp.DR_N_E] = res[codes.RECORD_N_E]
        sm[kp.DR_E1] = res[codes.RELAX_E1]
        sm[kp.DR_E2] = res[codes.RELAX_E2]
        sm[kp.DR_LOOP_FIELD] = 0
        sm[kp.DR_LOOP_DIRECTION] = 0

    def result(self, oc, states, events, legs, cyclic: bool, preamble_legs: int = 0) -> Drive:
        """The ``Drive`` of the last run; ``legs``: the rows (field, direction, …) of the
        path, or of the preamble followed by one cycle, repeated as the drive ran."""
        sm = dict(zip(kp.DRIVE_COLUMNS, self.summary.tolist(), strict=True))
        started = np.asarray(legs, np.int64)[:, :2]
        if sm["legs"] > started.shape[0]:
            cycle = started[preamble_legs:]
            repeats = -(-(sm["legs"] - preamble_legs) // cycle.shape[0])
            started = np.concatenate([started[:preamble_legs], np.tile(cycle, (repeats, 1))])
        loop = None
        if oc in (codes.SELF_LOOP, codes.ILL_DEFINED):
            keys = ("loop_field", "loop_direction", "L", "n_e", "e1", "e2", "loop_exit")
            loop = SelfLoop(STOPPED[oc], *(sm[k] for k in keys))
        return Drive(
            outcome_name(oc, cyclic),
            states,
            events[: sm["events"]],
            sm["flips"],
            sm["ties"],
            loop,
            sm["transient"],
            sm["period"],
            sm["cycles"],
            started[: sm["legs"]].copy(),
            preamble_legs,
            legs.shape[0] - preamble_legs if cyclic else 0,
        )


def start_state(start, N: int) -> np.ndarray:
    """A given start state as int8 spins ±1; one line naming ``start`` where it is not N
    spins ±1."""
    spins = np.asarray(start)
    if spins.shape != (N,) or not np.all(np.isin(spins, (-1, 1))):
        raise ValueError(f"start: {spins.tolist()!r} is not a state of {N} spins +-1")
    return spins.astype(np.int8)


def _legs(fields, directions) -> np.ndarray:
    return np.stack([np.asarray(fields, np.int64), np.asarray(directions, np.int64)], axis=1)


def _run(once, capacity: int = 256):
    """Run ``once(events)`` with an event log large enough for every event."""
    while True:
        events = np.zeros((capacity, len(kp.EVENT_COLUMNS)), np.int64)
        out = once(events)
        if out.events.shape[0] < capacity or out.events.shape[0] == 0:
            return out
        capacity *= 4


def drive(systems: Systems, fields, rule="1", start=-1, index: int = 0) -> Drive:
    """Drive system ``index`` from saturation ``start`` (or from the state ``start``, N
    spins ±1 relaxed at H = 0) through the turning ``fields`` (int, quanta; directions by
    ``turning_directions``)."""
    one = _One(systems, index)
    fields = np.asarray(fields, np.int64).reshape(-1)
    legs = _legs(fields, turning_directions(fields, start))
    r = rule_code(rule)

    def once(events):
        states = np.zeros((len(fields), one.N), np.int8)
        oc = one.begin(start, r)
        if oc != codes.STABLE:
            one.stopped_at_start(oc)
            return one.result(oc, states[:0], events, legs, cyclic=False)
        oc = kd.path(one.st, one.v, legs, r, one.ws, one.res, events, states, one.copy, one.summary)
        done = int(one.summary[kp.DR_LEGS])
        return one.result(oc, states[:done], events, legs, cyclic=False)

    return _run(once)


def cyclic_drive(
    systems: Systems,
    cycle,
    preamble=(),
    rule="1",
    start=-1,
    max_cycles: int = MAX_CYCLES,
    index: int = 0,
) -> Drive:
    """Drive system ``index`` from saturation ``start`` (or from the state ``start`` at
    H = 0) through the turning fields of
    ``preamble``, then through those of ``cycle`` again and again until the state at the
    end of a cycle repeats (``Drive.transient``, ``Drive.period``). Directions as in
    ``turning_directions`` over preamble + cycle, the cycle's first leg coming from its
    last field."""
    one = _One(systems, index)
    pre = np.asarray(preamble, np.int64).reshape(-1)
    cyc = np.asarray(cycle, np.int64).reshape(-1)
    if cyc.size == 0:
        raise ValueError("cycle: no turning field")
    dirs = turning_directions(np.concatenate([pre, cyc, cyc[:1]]), start)
    pre_legs = _legs(pre, dirs[: pre.size])
    cyc_dirs = np.concatenate([dirs[-1:], dirs[pre.size + 1 : pre.size + cyc.size]])
    cyc_legs = np.concatenate([_legs(cyc, cyc_dirs), np.zeros((cyc.size, 1), np.int64)], 1)
    return _cycles(one, pre_legs, cyc_legs, rule, start, max_cycles)


def _cycles(one: _One, pre_legs, cyc_legs, rule, start, max_cycles) -> Drive:
    r = rule_code(rule)

    def once(events):
        snaps = np.empty((16, one.N), np.int8)
        hashes = np.empty(16, np.uint64)
        oc = one.begin(start, r)
        if oc != codes.STABLE:
            one.stopped_at_start(oc)
            legs = np.concatenate([pre_legs[:, :2], cyc_legs[:, :2]])
            return one.result(oc, snaps[:0].copy(), events, legs, True, pre_legs.shape[0])
        snaps, _h, n = kd.cycles(
            one.st,
            one.v,
            pre_legs,
            cyc_legs,
            r,
            int(max_cycles),
            one.ws,
            one.res,
            events,
            one.copy,
            one.summary,
            snaps,
            hashes,
        )
        oc = int(one.summary[kp.DR_OUTCOME])
        legs = np.concatenate([pre_legs[:, :2], cyc_legs[:, :2]])
        return one.result(oc, snaps[:n].copy(), events, legs, True, pre_legs.shape[0])

    return _run(once)


def symmetric_drive(
    systems: Systems,
    amplitude: int,
    rule="1",
    max_cycles: int = MAX_CYCLES,
    index: int = 0,
    start=-1,
) -> Drive:
    """The symmetric cyclic drive of amplitude A ≥ 0 (the protocol of Keim & Paulsen's
    ``hysteron``): from all −1 at H = −∞ up to 0 (x_0; from all +1 at H = +∞ down to 0
    with ``start`` +1; or the state ``start`` relaxed at H = 0), then 0 → +A → −A → 0
    repeated; x_k is the state at H = 0 (reached from below) after cycle k."""
    A = int(amplitude)
    if A < 0:
        raise ValueError(f"amplitude: {A} is negative (A >= 0)")
    one = _One(systems, index)
    return _cycles(one, _to_zero(start), kp.symmetric_cycle(A), rule, start, max_cycles)


def _to_zero(start) -> np.ndarray:
    """The preamble legs from a start to H = 0: none from a state (placed at H = 0), else
    up from −∞ or down from +∞."""
    if is_state(start):
        return np.zeros((0, 2), np.int64)
    return np.array([[0, -int(start)]], np.int64)


def asymmetric_drive(
    systems: Systems,
    h_min: int,
    h_max: int,
    rule="1",
    max_cycles: int = MAX_CYCLES,
    index: int = 0,
    start=-1,
) -> Drive:
    """Cyclic drive between H_min and H_max ≥ H_min: from all −1 at H = −∞ up to H_min
    (x_0; from all +1 at H = +∞ down to H_min with ``start`` +1; from the state ``start``
    at H = 0 to H_min), then H_min → H_max → H_min repeated; x_k is the state at H_min
    after cycle k (the hysteron latch of Lindeman, Jalowiec & Keim 2024 is its memory)."""
    lo, hi = int(h_min), int(h_max)
    if hi < lo:
        raise ValueError(f"h_max: {hi} is below h_min {lo} (h_max >= h_min)")
    one = _One(systems, index)
    pre = np.array([[lo, int(turning_directions([lo], start)[0])]], np.int64)
    cyc = np.array([[hi, 1, 0], [lo, -1, 0]], np.int64)
    return _cycles(one, pre, cyc, rule, start, max_cycles)


def distinct_amplitudes(systems: Systems, index: int = 0) -> np.ndarray:
    """The sorted distinct finite |H^±(S)| over all 2^N states S (N ≤ 24): the symmetric
    drive compares its turning fields ±A only with these, so its response is the same for
    every A from one of them up to the next (each is the lower, included end of such an
    interval; below the first, nothing switches at the turning points)."""
    t = StateTables(systems, index)
    values = np.abs(np.concatenate([t.hplus, t.hminus]))
    return np.unique(values[values < codes.INF])


@dataclass(frozen=True)
class Sweep:
    """The amplitude sweep of one system (``hyst.kernels.protocols.sweep``).

    amplitudes: the amplitudes where the response can change, increasing from 0; the
    response at amplitudes[q] is that of every amplitude up to next_amplitudes[q] (INF: all
    larger ones); outcomes, transients, periods, loops (L of a self-loop, else 0): per
    amplitude. critical_amplitude: the smallest
    amplitude with period T > 1 (None: none), critical_period its T; preamble: the outcome
    of the rise from saturation to H = 0 (``done``, or ``self_loop``: no amplitude driven);
    ties: tied switching fields and ties met in the relaxations of all the drives.
    """

    amplitudes: np.ndarray
    next_amplitudes: np.ndarray
    outcomes: tuple
    transients: np.ndarray
    periods: np.ndarray
    loops: np.ndarray
    critical_amplitude: int | None
    critical_period: int
    preamble: str
    ties: int

    def period_at(self, amplitude) -> int:
        """The period T at any amplitude ≥ 0 (−1 where the drive did not reach an orbit,
        or beyond the amplitudes swept)."""
        q = int(np.searchsorted(self.amplitudes, amplitude, side="right")) - 1
        if q < 0 or amplitude >= self.next_amplitudes[q] or self.outcomes[q] != "orbit":
            return -1
        return int(self.periods[q])


def amplitude_sweep(
    systems: Systems,
    rule="1",
    first_only: bool = True,
    max_cycles: int = MAX_CYCLES,
    index: int = 0,
    start=-1,
) -> Sweep:
    """The symmetric drive at every amplitude where its response can change, from A = 0 up,
    until the first period T > 1 (``first_only``) or through all of them; from negative
    saturation (``start`` −1), positive saturation (+1, driven down to H = 0 first) or the
    state ``start`` relaxed at H = 0."""
    r = rule_code(rule)
    if is_state(start) or start != -1:
        one = _One(systems, index)
        rows, pre, ties = _sweep_from(one, start, r, int(max_cycles), bool(first_only))
    elif systems.form == "dense" and not systems.directed:
        # the plain-array entry: no view and work arrays built here (tens of µs at N = 3)
        hp, hm, c = (
            np.ascontiguousarray(a[index])
            for a in (systems.h_plus, systems.h_minus, systems.couplings)
        )
        summary, rows = amplitude_sweep_one(
            hp, hm, c, r, int(max_cycles), bool(first_only), nested=False
        )
        pre, ties = int(summary["preamble"][0]), int(summary["ties"][0])
    else:
        one = _One(systems, index)
        rows, pre, ties = kp.sweep(one.v, r, int(max_cycles), bool(first_only), one.summary)
    col = {name: rows[:, q] for q, name in enumerate(kp.SWEEP_COLUMNS)}
    outcomes = tuple(outcome_name(int(oc), cyclic=True) for oc in col["outcome"])
    multi = np.nonzero((col["outcome"] == kp.ORBIT) & (col["period"] > 1))[0]
    critical = int(col["amplitude"][multi[0]]) if multi.size else None
    return Sweep(
        col["amplitude"].copy(),
        col["next_amplitude"].copy(),
        outcomes,
        col["transient"].copy(),
        col["period"].copy(),
        col["L"].copy(),
        critical,
        int(col["period"][multi[0]]) if multi.size else 1,
        outcome_name(int(pre), cyclic=False),
        int(ties),
    )


def _sweep_from(one: _One, start, rule: int, max_cycles: int, first_only: bool):
    """(rows, the preparation's outcome, ties) of the amplitude sweep from ``start`` (as
    ``kp.sweep`` returns them): the start brought to H = 0, then ``kp.sweep_from``."""
    oc = one.begin(start, rule)
    empty = np.zeros((0, len(kp.SWEEP_COLUMNS)), np.int64)
    if oc != codes.STABLE:
        return empty, oc, 0
    kp.start_summary(one.summary)
    events = np.zeros((0, len(kp.EVENT_COLUMNS)), np.int64)
    states = np.zeros((0, one.N), np.int8)
    pre = _to_zero(start)
    oc = kd.path(one.st, one.v, pre, rule, one.ws, one.res, events, states, one.copy, one.summary)
    ties = int(one.summary[kp.DR_TIES])
    if oc != codes.STABLE:
        return empty, oc, ties
    rows, ties = kp.sweep_from(one.st, one.v, rule, max_cycles, first_only, one.summary, ties)
    return rows, codes.STABLE, ties


@dataclass(frozen=True)
class ReturnPoint:
    """Return-point memory at one turning point: the state ``left`` at the last turning
    field of the path, the state ``returned`` after the sub-loop back to it, and whether
    they are equal (None if the drive stopped first: ``drive.loop``)."""

    holds: bool | None
    left: np.ndarray
    returned: np.ndarray
    drive: Drive


def return_point_memory(
    systems: Systems, fields, sub_field: int, rule="1", start=-1, index: int = 0
) -> ReturnPoint:
    """Drive from saturation (or from the state ``start`` at H = 0) through the turning
    ``fields`` to their last one H_k (state
    S_k), then to ``sub_field`` on the side H_k was reached from (the sub-loop) and back to
    H_k: return-point memory holds if the state is S_k again."""
    fields = [int(x) for x in np.asarray(fields, np.int64).reshape(-1)]
    if not fields:
        raise ValueError("fields: no turning field")
    last_dir = int(turning_directions(fields, start)[-1])
    sub = int(sub_field)
    if (sub - fields[-1]) * last_dir > 0:
        raise ValueError(
            f"sub_field: {sub} is beyond the turning field {fields[-1]} "
            "(a sub-loop turns back from it)"
        )
    d = drive(systems, [*fields, sub, fields[-1]], rule, start, index)
    k = len(fields) - 1
    left = d.states[k] if d.states.shape[0] > k else np.zeros(0, np.int8)
    if d.outcome != "done":
        return ReturnPoint(None, left, d.states[-1], d)
    return ReturnPoint(bool(np.array_equal(d.states[k], d.states[-1])), left, d.states[-1], d)
