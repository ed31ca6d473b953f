"""Slow, obviously-correct reference of addressability (``hyst.kernels.addressing``).

- one drive cycle: every turning field H1 of the up leg from all −1 and every turning field
  H2 of the leg back down is tried. The up leg compares H1 only with up switching fields
  H^+(S) and the down leg H2 only with down switching fields H^−(S), so the candidates are
  the H^+(S) (H^−(S)) of all 2^N states and one value below them all; the state at H1
  itself (the field not moved back) counts as H2 = H1. A cycle whose legs meet a
  transition that does not end stable ends nowhere and is left out.
- any field history: a breadth-first search from all −1 over the stable states, the up and
  down transitions of each relaxed from scratch.

Conventions of :mod:`hyst.reference.naive_drive` (integer parameters, fields recomputed
as ``c @ s``); states are returned as bitmasks (bit i set where s_i = +1).
"""

from __future__ import annotations

import numpy as np

from hyst.reference.naive_drive import _down_field, _up_field, relax_cycle
from hyst.reference.naive_protocols import leg


def _mask(s) -> int:
    return int(sum(1 << i for i, v in enumerate(s) if v > 0))


def _spins(mask: int, N: int) -> np.ndarray:
    return np.array([1 if (mask >> i) & 1 else -1 for i in range(N)], np.int64)


def _candidates(hp, hm, c):
    """Turning fields to try: (for H1, for H2)."""
    N = len(hp)
    up, down = set(), set()
    for S in range(1 << N):
        s = _spins(S, N)
        u, d = _up_field(hp, c, s), _down_field(hm, c, s)
        if u is not None:
            up.add(u)
        if d is not None:
            down.add(d)
    below = min(up | down | {0}) - 1
    return sorted(up | {below}), sorted(down | {below})


def one_cycle(hp, hm, c, rule):
    """(addressable bitmasks, stopped): the sorted distinct stable states at the end of one
    drive cycle from saturation, and whether some cycle met a transition that did not end
    stable."""
    hp, hm, c = (np.asarray(a, np.int64) for a in (hp, hm, c))
    N = len(hp)
    ups, downs = _candidates(hp, hm, c)
    found, stopped, tops = set(), False, set()
    for H1 in ups:
        s = np.full(N, -1, np.int64)
        outcome, _H, _L = leg(hp, hm, c, s, H1, 1, rule)
        if outcome != "stable":
            stopped = True
            continue
        found.add(_mask(s))
        if _mask(s) in tops:  # a leg reads only the state and its turning field:
            continue  # this state's down legs were driven already
        tops.add(_mask(s))
        for H2 in downs:
            r = s.copy()
            outcome, _H, _L = leg(hp, hm, c, r, H2, -1, rule)
            if outcome != "stable":
                stopped = True
                continue
            found.add(_mask(r))
    return sorted(found), stopped


def reachable(hp, hm, c, rule):
    """(reachable bitmasks, transitions that did not end stable): the sorted stable states
    reachable from all −1 by any field history, and the count of the up and down transitions
    out of them that did not end stable."""
    hp, hm, c = (np.asarray(a, np.int64) for a in (hp, hm, c))
    N = len(hp)
    seen, queue, stopped = {0}, [0], 0
    while queue:
        S = queue.pop(0)
        for direction in (1, -1):
            s = _spins(S, N)
            H = _up_field(hp, c, s) if direction > 0 else _down_field(hm, c, s)
            if H is None:
                continue
            outcome, _cycle = relax_cycle(hp, hm, c, s, H, direction, rule)
            if outcome != "stable":
                stopped += 1
                continue
            m = _mask(s)
            if m not in seen:
                seen.add(m)
                queue.append(m)
    return sorted(seen), stopped
