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
- rule 2: every unstable element flips at once;
- the flip-time rule (``RULE_TAU``): element i has a flip time τ_i > 0 (an integer, the
  system's flip times quantised) and the unstable element with the largest m_i / τ_i flips
  (Jin & van Hecke, arXiv 2507.02387: the fastest snap wins the race). The ratios are
  compared exactly, m_i·τ_j against m_j·τ_i in 128-bit integer arithmetic
  (``product_order``); equal ratios flip the lowest index and count one tie, as rule 1's
  equal margins. With equal τ_i it is rule 1, bit for bit.

Equal winning margins under rules 1 and 1′ (equal winning ratios under the flip-time rule)
flip the lowest index and count one tie. The ties of a state that moves are its zero margins
plus that one; what a stable state reports is the caller's convention (the state table and
the chains report 1 if any margin is 0, the event-driven kernels the number of zero margins).
``resolve`` is that answer.

A kernel computes each element's margin its own way (from a state table, from local fields,
in float64) and feeds it, in index order, to one of two tallies with the same answer:

- ``start``/``tally``/``choose``: one scalar pass that keeps no margin and also collects
  the bitmask of the unstable elements (rule 2): the fastest for the few elements of the
  bitmask kernels (N ≤ 64);
- ``start_wide``/``tally_wide``/``choose_wide``: a branch-free pass (counts, the largest
  margin, the last unstable index) that vectorises over many elements, and a second pass
  only when several elements are unstable under rule 1 or 1′ (the event-driven kernels,
  any N); ``unstable_list`` lists the elements rule 2 flips.

Neither stores a margin, and the wide pass keeps to four reductions with no branch: a store
(aliasing), a fifth reduction or a test of the rule in the pass keep LLVM from vectorising
it (the drives' relaxation at N = 512 ran at 0.6 of the old speed), and a store made the
state table's step 8 % slower at N = 4.

``tests/test_rules.py`` checks the two against each other and against a plain reading of
the rules.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import OFFSET, RULE_0, RULE_1, RULE_1P, RULE_2, RULE_TAU
from hyst.kernels.jit import jit


@jit(inline=True)
def margin(up, f_i, hp_i, hm_i, Hc, eps):
    """Instability margin m_i (doubled) at (Hc, eps) of one element with local field f_i,
    bare thresholds hp_i, hm_i and s_i = +1 if ``up`` (else −1). Both signs are computed
    and one selected: branch free."""
    m_dn = 2 * (hm_i - f_i - Hc) - eps  # an up element, to flip down
    m_up = 2 * (Hc - hp_i + f_i) + eps  # a down element, to flip up
    return m_dn if up else m_up


@jit(inline=True)
def resolve(rule, n_u, chosen, tie, zeros):
    """The rule's answer (n_u, chosen, ties) from n_u unstable elements, the element with
    the winning margin (the lowest index among equal ones), whether another one has it
    (``tie``) and the zero margins. chosen is −1 when none is unstable, and under rules 0
    and 2 with several (rule 0 is then ill-defined, rule 2 flips them all); ties are the
    zero margins plus one for a shared winning margin of rule 1 or 1′."""
    if n_u == 0 or (n_u > 1 and (rule == RULE_0 or rule == RULE_2)):
        return n_u, np.int64(-1), zeros
    if tie and (rule == RULE_1 or rule == RULE_1P or rule == RULE_TAU):
        zeros += 1
    return n_u, chosen, zeros


@jit(inline=True)
def start(rule):
    """The empty tally of ``tally``: (unstable count, zero margins, winning margin so far,
    first and last index reaching it, bitmask of the unstable elements)."""
    best = OFFSET if rule == RULE_1P else -OFFSET
    return np.int64(0), np.int64(0), best, np.int64(-1), np.int64(-1), np.int64(0)


@jit(inline=True)
def tally(acc, i, m, rule):
    """Add element i with margin m to the tally ``acc`` of ``start`` (elements in index
    order; the bitmask holds elements 0 … 63)."""
    n_u, zeros, best, first, last, mask = acc
    pos = m > 0
    if rule == RULE_1P:  # the smallest positive margin
        v = m if pos else OFFSET
        first = i if v < best else first
        last = i if v <= best else last
        best = min(best, v)
    else:  # the largest margin
        first = i if m > best else first
        last = i if m >= best else last
        best = max(best, m)
    return n_u + pos, zeros + (m == 0), best, first, last, mask | (np.int64(pos) << i)


@jit(inline=True)
def choose(rule, acc):
    """The rule's answer (``resolve``) from the tally ``acc`` of ``tally``."""
    n_u, zeros, _best, first, last, _mask = acc
    return resolve(rule, n_u, first, first != last, zeros)


@jit(inline=True)
def unstable(acc):
    """The bitmask of the unstable elements in the tally ``acc`` of ``tally``."""
    return acc[5]


@jit(inline=True)
def start_wide():
    """The empty tally of ``tally_wide``: (unstable count, zero margins, largest margin,
    last unstable index)."""
    return np.int64(0), np.int64(0), np.int64(0), np.int64(-1)


@jit(inline=True)
def tally_wide(acc, i, m):
    """Add element i with margin m to the tally ``acc`` of ``start_wide``: four branch-free
    reductions in any order, so that a long pass vectorises (a fifth, or a branch on the
    rule, stops it)."""
    n_u, zeros, top, last = acc
    pos = m > 0
    return n_u + pos, zeros + (m == 0), max(top, m), max(last, i if pos else np.int64(-1))


@jit(inline=True)
def choose_wide(rule, acc, neg, f, hp, hm, Hc, eps):
    """The rule's answer (``resolve``) from the tally ``acc`` of ``tally_wide`` over the
    margins of the event-driven state (neg, f) at (Hc, eps). One unstable element is the
    choice (no other margin can equal it). With several, a second pass computes the
    margins again (a store of them in the first pass would stop it from vectorising): under
    rule 1 the first index with the largest margin and how many have it; under rule 1′
    ``tally``'s scalar pass."""
    n_u, zeros, top, last = acc
    if n_u <= 1 or rule == RULE_0 or rule == RULE_2:
        return resolve(rule, n_u, last, False, zeros)
    N = neg.shape[0]
    if rule == RULE_1P:
        t = start(rule)
        for i in range(N):
            t = tally(t, i, margin(neg[i] != 0, f[i], hp[i], hm[i], Hc, eps), rule)
        return resolve(rule, n_u, t[3], t[3] != t[4], zeros)
    chosen = np.int64(N)
    count = 0
    for i in range(N):
        hit = margin(neg[i] != 0, f[i], hp[i], hm[i], Hc, eps) == top
        chosen = min(chosen, i if hit else N)
        count += hit
    return resolve(rule, n_u, chosen, count > 1, zeros)


@jit(inline=True)
def unstable_list(neg, f, hp, hm, Hc, eps, buf):
    """The unstable elements of the event-driven state (neg, f) at (Hc, eps), in order, in
    buf[:n_u] (those rule 2 flips); returns n_u."""
    n = 0
    for i in range(neg.shape[0]):
        if margin(neg[i] != 0, f[i], hp[i], hm[i], Hc, eps) > 0:
            buf[n] = i
            n += 1
    return n


# ---- the flip-time rule ------------------------------------------------------------------------

#: The low 32 bits of a uint64, and the shift to the high ones (limbs of ``wide_product``).
LOW32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)


@jit(inline=True)
def wide_product(a, b):
    """The exact product a·b of two integers 0 ≤ a, b < 2^63 as (high, low) uint64 words
    (schoolbook multiplication over 32-bit limbs)."""
    x = np.uint64(a)
    y = np.uint64(b)
    x0 = x & LOW32
    x1 = x >> SHIFT32
    y0 = y & LOW32
    y1 = y >> SHIFT32
    p00 = x0 * y0
    p01 = x0 * y1
    p10 = x1 * y0
    mid = (p00 >> SHIFT32) + (p01 & LOW32) + (p10 & LOW32)
    high = x1 * y1 + (p01 >> SHIFT32) + (p10 >> SHIFT32) + (mid >> SHIFT32)
    low = (p00 & LOW32) | ((mid & LOW32) << SHIFT32)
    return high, low


#: Products in float64 further apart than this factor are ordered as their floats are: each
#: float product is within 3·2^−53 of the exact one (two conversions and one product).
SURELY_APART = 1.0 + 2.0**-48


@jit(inline=True)
def product_order(a, b, c, d):
    """The sign of a·b − c·d (−1, 0 or +1) for integers 0 ≤ a, b, c, d < 2^63, exactly: from
    the float64 products when they are surely apart, else from the 128-bit ones."""
    x = float(a) * float(b)
    y = float(c) * float(d)
    if x > y * SURELY_APART:
        return 1
    if y > x * SURELY_APART:
        return -1
    h1, l1 = wide_product(a, b)
    h2, l2 = wide_product(c, d)
    if h1 != h2:
        return 1 if h1 > h2 else -1
    if l1 != l2:
        return 1 if l1 > l2 else -1
    return 0


@jit(inline=True)
def start_tau():
    """The empty tally of ``tally_tau``: (unstable count, zero margins, winning margin and
    flip time so far (0, 1: any positive margin beats it), first and last index with the
    winning ratio, bitmask of the unstable elements)."""
    return (
        np.int64(0),
        np.int64(0),
        np.int64(0),
        np.int64(1),
        np.int64(-1),
        np.int64(-1),
        np.int64(0),
    )


@jit(inline=True)
def tally_tau(acc, i, m, tau_i):
    """Add element i with margin m and flip time tau_i > 0 to the tally ``acc`` of
    ``start_tau`` (elements in index order): the unstable element with the largest m / tau_i
    wins, ratios compared exactly (``product_order``)."""
    n_u, zeros, best_m, best_tau, first, last, mask = acc
    pos = m > 0
    if pos:
        order = product_order(m, best_tau, best_m, tau_i)
        if order > 0:
            first = i
            last = i
            best_m = m
            best_tau = tau_i
        elif order == 0:
            last = i
    return n_u + pos, zeros + (m == 0), best_m, best_tau, first, last, mask | (np.int64(pos) << i)


@jit(inline=True)
def choose_tau(acc):
    """The flip-time rule's answer (``resolve``) from the tally ``acc`` of ``tally_tau``."""
    n_u, zeros, _m, _tau, first, last, _mask = acc
    return resolve(RULE_TAU, n_u, first, first != last, zeros)


#: A ratio whose float64 cross product is below the largest's by more than this factor is
#: surely smaller exactly: each float product of two int64 is within 3·2^−53 of the exact one.
SURELY_BELOW = 1.0 - 2.0**-48


@jit(inline=True)
def scan_tau(S, f, hp, hm, Hc, eps, tau):
    """The flip-time rule's answer (n_u, chosen, ties) for the bitmask state S with local
    fields f at (Hc, eps) and flip times tau, as ``tally_tau`` over every element gives it,
    in one or two passes: one over the unstable elements comparing the ratios m_i/τ_i by
    float64 cross products (count, zero margins, the largest ratio, its first index and the
    second largest) and, only when the second largest is not surely below the largest,
    ``tally_tau``'s exact pass over the elements whose ratio is not surely below the largest
    (the exact winner is among them)."""
    N = hp.shape[0]
    n_u = np.int64(0)
    zeros = np.int64(0)
    top_m, top_t = 0.0, 1.0  # the largest ratio top_m / top_t so far
    sec_m, sec_t = 0.0, 1.0  # the second largest
    first = np.int64(-1)
    for i in range(N):
        m = margin((S >> i) & 1, f[i], hp[i], hm[i], Hc, eps)
        pos = m > 0
        n_u += pos
        zeros += m == 0
        fm = float(m) if pos else 0.0  # a stable element never beats a positive ratio
        ft = float(tau[i])
        # branch free (selects): a branch on the sign of m mispredicts at fields where about
        # half the elements are unstable, and made the H = 0 map three times slower
        better = fm * top_t > top_m * ft
        better2 = fm * sec_t > sec_m * ft
        sec_m = top_m if better else (fm if better2 else sec_m)
        sec_t = top_t if better else (ft if better2 else sec_t)
        top_m = fm if better else top_m
        top_t = ft if better else top_t
        first = i if better else first
    if n_u <= 1 or sec_m * top_t < top_m * sec_t * SURELY_BELOW:
        return resolve(RULE_TAU, n_u, first, False, zeros)
    acc = start_tau()
    for i in range(N):
        m = margin((S >> i) & 1, f[i], hp[i], hm[i], Hc, eps)
        if m > 0 and float(m) * top_t >= top_m * float(tau[i]) * SURELY_BELOW:
            acc = tally_tau(acc, i, m, tau[i])
    return resolve(RULE_TAU, n_u, acc[4], acc[4] != acc[5], zeros)
