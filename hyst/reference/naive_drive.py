"""Slow, obviously-correct reference of the event-driven protocols (any N).

The oracle for ``hyst.kernels.drive``: every local field is recomputed from
scratch as an exact int64 matrix product ``c @ s`` at every step (no
incremental updates, no compact coupling forms, no hashing: revisits are found
by comparing whole states). Conventions as in ``naive.py``: integer parameters,
fields (Hc, eps), doubled margins, ties treated as stable, lowest index on equal
winning margins.
"""

from __future__ import annotations

import numpy as np


def margins(hp, hm, c, s, Hc, eps):
    """Doubled instability margins m_i at field (Hc, eps); unstable iff m_i > 0."""
    f = c @ s
    return np.where(s < 0, 2 * (Hc - (hp - f)) + eps, 2 * ((hm - f) - Hc) - eps)


def relax(hp, hm, c, s, Hc, eps, rule):
    """Relax s in place; returns (outcome, flips) with outcome 'stable', 'self_loop' or
    'ill_defined'. Rules: '0', '1', '1p', '2'."""
    seen = {s.tobytes()}
    flips = 0
    while True:
        m = margins(hp, hm, c, s, Hc, eps)
        unstable = np.nonzero(m > 0)[0]
        if unstable.size == 0:
            return "stable", flips
        if rule == "0" and unstable.size > 1:
            return "ill_defined", flips
        if rule == "2":
            s[unstable] *= -1
            flips += unstable.size
        else:
            mu = m[unstable]
            pick = unstable[np.argmax(mu) if rule in ("0", "1") else np.argmin(mu)]
            s[pick] *= -1
            flips += 1
        if s.tobytes() in seen:
            return "self_loop", flips
        seen.add(s.tobytes())


def _up_field(hp, c, s):
    v = (hp - c @ s)[s < 0]
    return int(v.min()) if v.size else None


def _down_field(hm, c, s):
    v = (hm - c @ s)[s > 0]
    return int(v.max()) if v.size else None


def _arrays(hp, hm, c, start):
    return (np.asarray(a, dtype=np.int64) for a in (hp, hm, c, start))


def avalanche(hp, hm, c, start, rule):
    """Relax ``start`` at H = 0 under rule 1 to S0, then H -> H^+(S0) + 0⁺ under ``rule``.
    Returns (prepared, outcome, A) with outcome None if S0 has no up threshold."""
    hp, hm, c, s = _arrays(hp, hm, c, start)
    if relax(hp, hm, c, s, 0, 0, "1")[0] != "stable":
        return False, None, None
    H = _up_field(hp, c, s)
    if H is None:
        return True, None, None
    outcome, flips = relax(hp, hm, c, s, H, 1, rule)
    return True, outcome, flips


def cyclic_drive(hp, hm, c, start, rule, max_cycles=1000):
    """The cyclic drive of ``hyst.kernels.drive.cyclic_drive_batch``: returns
    (outcome, tau, T, U_max, flips) with outcome 'orbit', 'unprepared', 'self_loop',
    'ill_defined' or 'not_converged' (tau, T None unless 'orbit'); flips counts every
    flip after the preparation."""
    hp, hm, c, s = _arrays(hp, hm, c, start)
    N = s.size
    if relax(hp, hm, c, s, 0, 0, "1")[0] != "stable":
        return "unprepared", None, None, None, 0
    states = [s.copy()]
    Umax = 0
    flips = 0
    while 2 * s.sum() < N:  # first cycle: U_max is where m first reaches N/2
        H = _up_field(hp, c, s)
        if H is None:
            break
        outcome, n = relax(hp, hm, c, s, H, 1, rule)
        Umax, flips = H, flips + n
        if outcome != "stable":
            return outcome, None, None, Umax, flips

    def sweep(direction):
        nonlocal flips
        while True:
            if direction > 0:
                H = _up_field(hp, c, s)
                if H is None or H > Umax:
                    return "stable"
            else:
                H = _down_field(hm, c, s)
                if H is None or H <= 0:  # a threshold exactly at U = 0 is a tie: kept
                    return "stable"
            outcome, n = relax(hp, hm, c, s, H, direction, rule)
            flips += n
            if outcome != "stable":
                return outcome

    outcome = sweep(-1)
    while outcome == "stable":
        for a, x in enumerate(states):
            if np.array_equal(x, s):
                return "orbit", a, len(states) - a, Umax, flips
        if len(states) >= max_cycles:
            return "not_converged", None, None, Umax, flips
        states.append(s.copy())
        outcome = sweep(+1)
        if outcome == "stable":
            outcome = sweep(-1)
    return outcome, None, None, Umax, flips
