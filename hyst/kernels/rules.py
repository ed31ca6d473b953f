"""The race-condition rules: which unstable element flips next. One definition, inlined into
every kernel that relaxes a state (``state_table``, ``self_loop_search``, ``relaxation``,
``mechanics``, ``roundoff``).

At the field (Hc, eps), meaning Hc + eps·0⁺, element i of state S has the instability
margin (doubled, so that it stays an integer with eps = ±1)

    s_i = −1:  m_i = 2 (Hc − H_i^+(S)) + eps,      s_i = +1:  m_i = 2 (H_i^−(S) − Hc) − eps,

with H_i^±(S) = h_i^± − f_i and f_i = Σ_j c_ij s_j (``margin``). Element i is unstable iff
m_i > 0; m_i = 0 (exactly at its threshold, only possible with eps = 0) is stable and counted
as a tie. With n_u > 1 unstable elements the state has a race condition, which the rule
resolves (the paper's Supplemental Material, "Role of the race condition rules"):

- rule 0: a race condition makes the transition ill-defined; otherwise the one unstable
  element flips;
- rule 1: the most unstable element flips (largest margin);
- rule 1′ (``RULE_1P``): the least unstable element flips (smallest positive margin);
- rule 2: every unstable element flips at once.

Equal winning margins under rules 1 and 1′ flip the lowest index and count one tie. The
ties of a state that moves are its zero margins plus that one; what a stable state reports
is the caller's convention (the state table and the chains report 1 if any margin is 0, the
event-driven kernels the number of zero margins).

A kernel computes the margins its own way (from a state table, from local fields, in
float64), stores them in a work array ``m`` of length N and feeds them to ``tally`` in the
same loop; ``choose`` then answers from the tally, with a second pass over ``m`` only when
several elements are unstable. The first pass is branch free (counts, a largest and a
smallest positive margin, the last unstable index): it vectorises. ``unstable_mask`` and
``unstable_list`` give the elements that rule 2 flips.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import OFFSET, RULE_0, RULE_1, RULE_1P, RULE_2
from hyst.kernels.jit import jit


@jit(inline=True)
def margin(ng, f_i, hp_i, hm_i, Hc, eps):
    """Instability margin m_i (doubled) of one element with local field f_i and bare
    thresholds hp_i, hm_i at (Hc, eps); ``ng`` is −1 (all bits set) if s_i = +1, else 0.
    Branch free: s_i = −1 gives 2 (Hc − hp_i + f_i) + eps, s_i = +1 its negation
    2 (hm_i − f_i − Hc) − eps with hm_i in place of hp_i."""
    thr = (hp_i & ~ng) | (hm_i & ng)
    x = 2 * (Hc - thr + f_i) + eps
    return (x ^ ng) - ng


@jit(inline=True)
def start(zero):
    """The empty tally (unstable count, zero margins, largest margin, smallest positive
    margin, last unstable index) of margins of the type of ``zero`` (np.int64(0) or 0.0);
    ``OFFSET`` lies above every margin."""
    return np.int64(0), np.int64(0), zero, zero + OFFSET, np.int64(-1)


@jit(inline=True)
def tally(acc, i, m):
    """Add element i with margin m to the tally ``acc`` (``start``)."""
    n_u, zeros, top, low, last = acc
    pos = m > 0
    return (
        n_u + pos,
        zeros + (m == 0),
        max(top, m),
        min(low, m if pos else low),
        max(last, i if pos else np.int64(-1)),
    )


@jit(inline=True)
def choose(m, rule, acc):
    """The rule's answer from the tally ``acc`` of the margins m: (n_u, chosen, ties).

    chosen: the element that flips under rules 1 and 1′, and under rule 0 with one unstable
    element (−1 when none is unstable, and under rules 0 and 2 with several: rule 0 is then
    ill-defined, rule 2 flips them all). ties: zero margins, plus one when the winning margin
    of rule 1 or 1′ is shared (the lowest index flips)."""
    n_u, zeros, top, low, last = acc
    if n_u == 0:
        return n_u, np.int64(-1), zeros
    if n_u == 1:  # the choice; no other margin can equal it, so no tie
        return n_u, last, zeros
    if rule == RULE_0 or rule == RULE_2:
        return n_u, np.int64(-1), zeros
    best = low if rule == RULE_1P else top
    N = m.shape[0]
    chosen = np.int64(N)
    count = 0
    for i in range(N):  # the first index with the winning margin, and how many have it
        hit = m[i] == best
        chosen = min(chosen, i if hit else N)
        count += hit
    if count > 1 and (rule == RULE_1 or rule == RULE_1P):
        zeros += 1
    return n_u, chosen, zeros


@jit(inline=True)
def unstable_mask(m):
    """Bitmask of the unstable elements (m_i > 0) of N ≤ 63 elements."""
    mask = np.int64(0)
    for i in range(m.shape[0]):
        mask |= np.int64(m[i] > 0) << i
    return mask


@jit(inline=True)
def unstable_list(m):
    """Overwrite the margins m with the unstable elements' indices, in order (m[:n_u]); in
    place, as m[i] is read before any index is written over it."""
    n = 0
    for i in range(m.shape[0]):
        if m[i] > 0:
            m[n] = i
            n += 1
    return n
