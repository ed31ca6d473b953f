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


def _relax(hp, hm, c, s, Hc, eps, rule):
    """Relax s in place; returns (outcome, flips, cycle): outcome 'stable', 'self_loop' or
    'ill_defined' (rules '0', '1', '1p', '2'); for a self-loop ``cycle`` is the list of its
    L states from the first repeated one (s is left there), else None."""
    states = [s.copy()]
    seen = {s.tobytes(): 0}
    flips = 0
    while True:
        m = margins(hp, hm, c, s, Hc, eps)
        unstable = np.nonzero(m > 0)[0]
        if unstable.size == 0:
            return "stable", flips, None
        if rule == "0" and unstable.size > 1:
            return "ill_defined", flips, None
        if rule == "2":
            s[unstable] *= -1
            flips += unstable.size
        else:
            mu = m[unstable]
            s[unstable[np.argmax(mu) if rule in ("0", "1") else np.argmin(mu)]] *= -1
            flips += 1
        first = seen.get(s.tobytes())
        if first is not None:
            return "self_loop", flips, states[first:]
        seen[s.tobytes()] = len(states)
        states.append(s.copy())


def relax(hp, hm, c, s, Hc, eps, rule):
    """Relax s in place; returns (outcome, flips) (see :func:`_relax`)."""
    outcome, flips, _ = _relax(hp, hm, c, s, Hc, eps, rule)
    return outcome, flips


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


def relax_cycle(hp, hm, c, s, Hc, eps, rule):
    """Relax s in place like :func:`relax`; returns (outcome, cycle) where for a self-loop
    ``cycle`` is the list of its L states from the first repeated one (s is left there)."""
    outcome, _, cycle = _relax(hp, hm, c, s, Hc, eps, rule)
    return outcome, cycle


def _cycle_elements(cycle):
    """Elements flipping in a cycle, in the order they flip from its first state."""
    order = []
    for t, x in enumerate(cycle):
        y = cycle[(t + 1) % len(cycle)]
        for j in np.nonzero(x != y)[0]:
            if j not in order:
                order.append(int(j))
    return order


def saturated_loop(hp, hm, c, rule, return_events, max_loops):
    """The protocol of ``hyst.kernels.drive.saturated_loop_batch``, from scratch.

    Returns (summary, records): summary counts as ``codes.SATURATED_COLUMNS`` (a dict),
    records a list of dicts (source, event, field, outcome, L, n_e, e1, e2, c_kl, c_lk,
    h2_k, h2_l, rest) of every transition that did not end stable, in order; ``rest`` is
    the frozen elements' state of an n_e = 2 self-loop (a tuple), else None."""
    hp, hm, c = (np.asarray(a, dtype=np.int64) for a in (hp, hm, c))
    N = hp.size
    names = ("events", "returns", "loops_branch", "loops_return", "ill_branch", "ill_return")
    summary = dict.fromkeys((*names, "skips", "l4", "loops", "saturated"), 0)
    records = []

    def record(source, event, H, outcome, s, cycle):
        summary["loops"] += 1
        row = dict(
            source=source,
            event=event,
            field=H,
            outcome=outcome,
            L=0,
            n_e=0,
            e1=-1,
            e2=-1,
            c_kl=0,
            c_lk=0,
            h2_k=0,
            h2_l=0,
            rest=None,
        )
        if outcome == "self_loop":
            order = _cycle_elements(cycle)
            row.update(L=len(cycle), n_e=len(order))
            row["e1"] = order[0] if order else -1
            row["e2"] = order[1] if len(order) > 1 else -1
            if len(cycle) == 4 and len(order) == 2:
                summary["l4"] += 1
            if len(order) == 2:
                k, l = order
                f = c @ s
                row.update(c_kl=int(c[k, l]), c_lk=int(c[l, k]))
                row["h2_k"] = int(hp[k] + hm[k] - 2 * (f[k] - c[k, l] * s[l]))
                row["h2_l"] = int(hp[l] + hm[l] - 2 * (f[l] - c[l, k] * s[k]))
                row["rest"] = tuple(int(v) for i, v in enumerate(s) if i not in (k, l))
        records.append(row)

    for direction, source in ((1, 0), (-1, 1)):
        s = np.full(N, -direction, dtype=np.int64)
        event, loops, stable, H = 0, 0, True, None
        while True:
            if stable:
                H = _up_field(hp, c, s) if direction > 0 else _down_field(hm, c, s)
                if H is None:
                    summary["saturated"] += 1
                    break
                if event > 0:  # the return from this turning point
                    r = s.copy()
                    for _ in range(return_events):
                        Hr = _down_field(hm, c, r) if direction > 0 else _up_field(hp, c, r)
                        if Hr is None:
                            break
                        outcome, cycle = relax_cycle(hp, hm, c, r, Hr, -direction, rule)
                        summary["returns"] += 1
                        if outcome != "stable":
                            key = "loops_return" if outcome == "self_loop" else "ill_return"
                            summary[key] += 1
                            record(source + 2, event, Hr, outcome, r, cycle)
                            break
            outcome, cycle = relax_cycle(hp, hm, c, s, H, direction, rule)
            summary["events"] += 1
            if outcome == "stable":
                event, stable = event + 1, True
                continue
            summary["loops_branch" if outcome == "self_loop" else "ill_branch"] += 1
            record(source, event, H, outcome, s, cycle)
            if outcome != "self_loop" or loops == max_loops:
                break
            loops += 1
            summary["skips"] += 1
            # where the loop breaks up: its first step against the drive, at that threshold
            best, at = None, 0
            for t, x in enumerate(cycle):
                y = cycle[(t + 1) % len(cycle)]
                f = c @ x
                for j in np.nonzero(x != y)[0]:
                    if direction > 0 and x[j] > 0 and (best is None or hm[j] - f[j] < best):
                        best, at = int(hm[j] - f[j]), t
                    if direction < 0 and x[j] < 0 and (best is None or hp[j] - f[j] > best):
                        best, at = int(hp[j] - f[j]), t
            s[:] = cycle[at]
            H, stable = best, False
    return summary, records
