"""Slow, obviously-correct reference of the drive protocols of one system
(``hyst.kernels.protocols``): local fields recomputed as ``c @ s`` at every step, every
relaxation by :func:`hyst.reference.naive_drive.relax_cycle`, revisits found by comparing
whole states, the distinct amplitudes from all 2^N states one by one.

A leg goes to a turning field t in a direction (+1 up, −1 down) and reaches it on the far
side (t ± 0⁺): every switching field H^±(S) of the current state up to t (down to t) is an
event, relaxed at (H, direction). Conventions of :mod:`hyst.reference.naive_drive`.
"""

from __future__ import annotations

import numpy as np

from hyst.reference.naive_drive import _down_field, _up_field, relax_cycle


def leg(hp, hm, c, s, target, direction, rule):
    """One leg; s is driven in place. Returns (outcome, field of the last event or None,
    L of a self-loop or 0)."""
    last = None
    while True:
        H = _up_field(hp, c, s) if direction > 0 else _down_field(hm, c, s)
        if H is None or (H > target if direction > 0 else H < target):
            return "stable", last, 0
        last = H
        outcome, cycle = relax_cycle(hp, hm, c, s, H, direction, rule)
        if outcome != "stable":
            return outcome, H, len(cycle) if cycle is not None else 0


def path(hp, hm, c, legs, rule, start=-1):
    """Drive from saturation through ``legs`` ((field, direction) pairs). Returns
    (outcome 'done' or that of the stopping transition, states after each leg, L)."""
    s = np.full(len(hp), start, np.int64)
    states = []
    for target, direction in legs:
        outcome, _H, L = leg(hp, hm, c, s, target, direction, rule)
        states.append(s.copy())
        if outcome != "stable":
            return outcome, states, L
    return "done", states, 0


def symmetric(hp, hm, c, A, rule, max_cycles=10_000):
    """The symmetric cyclic drive of amplitude A from all −1: (outcome 'orbit' or that of
    the stopping transition, or 'not_converged'; τ; T; the states x_0, x_1, …)."""
    s = np.full(len(hp), -1, np.int64)
    outcome, _H, _L = leg(hp, hm, c, s, 0, 1, rule)
    if outcome != "stable":
        return outcome, None, None, []
    xs = [s.copy()]
    while True:
        for target, direction in ((A, 1), (-A, -1), (0, 1)):
            outcome, _H, _L = leg(hp, hm, c, s, target, direction, rule)
            if outcome != "stable":
                return outcome, None, None, xs
        for a, x in enumerate(xs):
            if np.array_equal(x, s):
                return "orbit", a, len(xs) - a, xs
        if len(xs) >= max_cycles:
            return "not_converged", None, None, xs
        xs.append(s.copy())


def distinct_amplitudes(hp, hm, c):
    """Sorted distinct finite |H^±(S)| over all 2^N states."""
    N = len(hp)
    values = set()
    for S in range(1 << N):
        s = np.where((S >> np.arange(N)) & 1, 1, -1).astype(np.int64)
        for H in (_up_field(hp, c, s), _down_field(hm, c, s)):
            if H is not None:
                values.add(abs(H))
    return sorted(values)
