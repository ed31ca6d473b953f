"""Event-driven relaxation of one system of any size (int8 spin arrays, O(N) per flip).

Only ``@jit`` functions over plain arrays live here. Conventions as in
:mod:`hyst.model.systems`: integer parameters, fields ``(Hc, eps)``; rule, outcome,
coupling-form and output-column codes are the names of :mod:`hyst.kernels.codes`.

State s (int8 ±1) and local fields f_i = Σ_j c_ij s_j are updated together in
O(N) per flip. Cycle detection is exact: a 64-bit Zobrist hash of the state
locates candidate revisits in an open-addressing table, and a candidate is
confirmed only if every element flipped an even number of times since the
earlier visit (so a hash collision can never fake a self-loop). The table is
only set up once a relaxation takes a second step. What a relaxation counts (steps,
flips, race, ties) and when it stops are those of every relaxing kernel
(:mod:`hyst.kernels.bookkeeping`).

Couplings reach every kernel in an ``operands.SystemBatch`` (form, c = its couplings,
d = its packed couplings; ``hyst.model.systems.COUPLING_FORMS``):

- FORM_DENSE:     c[k] = c_ij (N, N); columns are read from a transposed copy
- FORM_DENSE_T:   c[k][j, i] = c_ij (N, N): already the transposed layout, read in place
- FORM_SYMMETRIC: d[k] = the packed upper triangle, unpacked per system (c = c^T)
- FORM_COLUMNS:   d[k] (N,), c_ij = −d_j for i ≠ j: no matrix at all
- FORM_ROWS:      d[k] (N,), c_ij = −d_i for i ≠ j: no matrix at all
- FORM_DIRECTED:  c[k] (2N, N), c^+ over c^− (direction-dependent couplings); ct (2N, N)
  holds both transposed, ct[j, i] = c^+_ij and ct[N + j, i] = c^−_ij, and f_i is the field
  the margin of element i reads in its state: Σ_j c^+_ij s_j while s_i = −1 (its up
  threshold), Σ_j c^−_ij s_j while s_i = +1 (its down threshold). Every scan and switching
  field then runs unchanged; a flip updates the others' fields from the row of their own
  side and recomputes the flipped element's in O(N) (``flip_directed``).

Per system the helpers take ``(form, ct, dk)`` with ct[j, i] = c_ij for the
matrix forms and dk the strengths of the columns and rows forms (the unused
one is an empty array). The drive protocols built on this relaxation
(avalanches, cyclic drive, saturated loop) are in :mod:`hyst.kernels.drive`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hyst.kernels import bookkeeping, rules
from hyst.kernels.codes import (
    FORM_COLUMNS,
    FORM_DENSE,
    FORM_DENSE_T,
    FORM_DIRECTED,
    FORM_ROWS,
    FORM_SYMMETRIC,
    INF,
    MOVED,
    RELAX_COLUMNS,
    RELAX_E1,
    RELAX_E2,
    RULE_2,
    SELF_LOOP,
    STABLE,
)
from hyst.kernels.dense_couplings import add_row, dense_from_packed
from hyst.kernels.jit import jit


@jit
def zobrist_keys(N):
    """Deterministic 64-bit keys per element (splitmix64)."""
    keys = np.empty(N, np.uint64)
    x = np.uint64(0x9E3779B97F4A7C15)
    for i in range(N):
        x += np.uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        keys[i] = z ^ (z >> np.uint64(31))
    return keys


@jit(borrow=True)
def init_fields(s, f, form, ct, d):
    """f_i = Σ_{j≠i} c_ij s_j; returns nothing."""
    N = s.shape[0]
    if form == FORM_COLUMNS:  # f_i = −(D − d_i s_i), D = Σ_j d_j s_j
        D = np.int64(0)
        for j in range(N):
            D += d[j] * s[j]
        for i in range(N):
            f[i] = d[i] * s[i] - D
    elif form == FORM_ROWS:  # f_i = −d_i (M − s_i), M = Σ_j s_j
        M = np.int64(0)
        for j in range(N):
            M += s[j]
        for i in range(N):
            f[i] = -d[i] * (M - s[i])
    elif form == FORM_DIRECTED:  # f_i = Σ_j c^±_ij s_j, the side of s_i
        for i in range(N):
            f[i] = own_field(i, s, ct)
    else:
        for i in range(N):
            f[i] = 0
        for j in range(N):
            add_row(f, ct, j, np.int64(1) if s[j] > 0 else np.int64(-1))


@jit(borrow=True)
def own_field(i, s, ct):
    """Σ_j c^±_ij s_j of element i of a FORM_DIRECTED system (ct (2N, N)): with c^+ while
    s_i = −1, with c^− while s_i = +1 (c_ii = 0)."""
    N = s.shape[0]
    base = N if s[i] > 0 else 0
    acc = np.int64(0)
    for j in range(N):
        acc += ct[base + j, i] * s[j]
    return acc


@jit(borrow=True)
def flip_directed(j, s, neg, f, ct):
    """The fields of a FORM_DIRECTED system after element j flipped (s and neg already
    flipped): every other element's field changes by 2 s_j c^±_ij (new s_j, the side of its
    own s_i); element j's field changes side and is recomputed (``own_field``). O(N),
    exact."""
    N = s.shape[0]
    two = np.int64(2) if s[j] > 0 else np.int64(-2)
    for i in range(N):  # c_jj = 0: f_j is unchanged here
        f[i] += two * (ct[N + j, i] if neg[i] != 0 else ct[j, i])
    f[j] = own_field(j, s, ct)


@jit(borrow=True)
def coupling(i, j, form, ct, d):
    """c_ij of one system (c^+_ij of direction-dependent couplings)."""
    if i == j:
        return np.int64(0)
    if form == FORM_COLUMNS:
        return -d[j]
    if form == FORM_ROWS:
        return -d[i]
    return ct[j, i]


@jit
def system_view(k, systems, buf):
    """(ct, dk) of system k of the ``operands.SystemBatch`` systems: ct[j, i] = c_ij for
    the matrix forms (the dense form is transposed into ``buf``, the symmetric one
    unpacked into it, the transposed dense layout used in place) and the strengths."""
    form, c, d = systems.form, systems.couplings, systems.packed
    if form == FORM_DENSE_T:
        return c[k], d[k]
    if form == FORM_SYMMETRIC:
        dense_from_packed(FORM_SYMMETRIC, d[k], buf)
        return buf, d[k]
    if form == FORM_DIRECTED:  # buf (2N, N): each of c^+, c^− transposed
        ck = c[k]
        N = ck.shape[1]
        for i in range(N):
            for j in range(N):
                buf[j, i] = ck[i, j]
                buf[N + j, i] = ck[N + i, j]
        return buf, d[k]
    if form != FORM_DENSE:
        return c[k], d[k]
    ck = c[k]
    N = ck.shape[0]
    tile = 8  # 8-row tiles, see ``dense_couplings.dense_from_packed`` (3.4 -> 2.4 ms at N = 1024)
    for ib in range(0, N, tile):
        for jb in range(0, N, tile):
            for i in range(ib, min(ib + tile, N)):
                for j in range(jb, min(jb + tile, N)):
                    buf[j, i] = ck[i, j]
    return buf, d[k]


class SystemView(NamedTuple):
    """One system as the event-driven kernels read it (``view_of``): bare thresholds
    h_plus, h_minus (N,), the coupling form, ct[j, i] = c_ij (N, N) for the matrix forms and
    d, the strengths of the columns and rows forms (the unused one empty). The hot loops
    take the fields one by one; the protocols pass the view and unpack it once."""

    h_plus: np.ndarray
    h_minus: np.ndarray
    form: int
    ct: np.ndarray
    d: np.ndarray


class Spins(NamedTuple):
    """A state of the event-driven relaxation: s (int8 ±1), neg (its int64 mirror, −1 where
    s_i = +1, ``up_mask``) and f, the local fields, updated together."""

    s: np.ndarray
    neg: np.ndarray
    f: np.ndarray


@jit
def view_of(k, systems, buf):
    """The ``SystemView`` of system k of ``systems`` (``system_view``: buf is its work
    array)."""
    ct, dk = system_view(k, systems, buf)
    return SystemView(systems.h_plus[k], systems.h_minus[k], systems.form, ct, dk)


@jit
def transpose_buffer(form, N):
    """Work array for ``system_view`` (empty for the columns and rows forms; (2N, N) for
    direction-dependent couplings)."""
    if form == FORM_DIRECTED:
        return np.empty((2 * N, N), np.int64)
    n = N if form == FORM_DENSE or form == FORM_SYMMETRIC else 0
    return np.empty((n, n), np.int64)


@jit(borrow=True)
def state_hash(neg, keys):
    """Zobrist hash of a state: XOR of the keys of the elements with s_i = +1 (branch free)."""
    h = np.uint64(0)
    for i in range(neg.shape[0]):
        h ^= keys[i] & np.uint64(neg[i])
    return h


@jit(borrow=True)
def up_mask(s, neg):
    """neg_i = −1 (all bits set) if s_i = +1 else 0: the int64 mirror of the state that
    keeps the scans below branch free and vectorised."""
    for i in range(s.shape[0]):
        neg[i] = -1 if s[i] > 0 else 0


@jit(borrow=True)
def flip(j, s, neg, f, form, ct, d):
    """Flip element j and update the local fields in O(N)."""
    s[j] = -s[j]
    neg[j] = ~neg[j]
    N = s.shape[0]
    if form == FORM_COLUMNS:  # Δf_i = c_ij Δs_j = −2 s_j d_j for every i ≠ j
        delta = 2 * s[j] * d[j]
        for i in range(N):
            f[i] -= delta
        f[j] += delta
    elif form == FORM_ROWS:  # Δf_i = −2 s_j d_i for i ≠ j
        if s[j] > 0:
            for i in range(N):
                f[i] -= 2 * d[i]
            f[j] += 2 * d[j]
        else:
            for i in range(N):
                f[i] += 2 * d[i]
            f[j] -= 2 * d[j]
    elif form == FORM_DIRECTED:
        flip_directed(j, s, neg, f, ct)
    else:  # Δf_i = 2 s_j c_ij, row j of ct (c_jj = 0)
        add_row(f, ct, j, np.int64(2) if s[j] > 0 else np.int64(-2))


#: Sentinel values above this bound are "no element" (real thresholds are below 2^59).
_NONE = np.int64(2**60)


@jit(inline=True)
def _up_key(ng, f_i, hp_i):
    """H_i^+ of one element with up mask ng, pushed up by INF if it is up (branch free)."""
    return hp_i - f_i + (ng & INF)


@jit(inline=True)
def _down_key(ng, f_i, hm_i):
    """H_i^− of one element with up mask ng, pushed down by INF if it is down."""
    return hm_i - f_i - (~ng & INF)


@jit(inline=True)
def _next_switch(neg, f, h, direction):
    """The next switching field in ``direction``: +1, (H^+(S), critical element, tie) over
    the elements with s_i = −1 (h = h^+), (INF, −1, False) if none; −1, (H^−(S), …) over
    those with s_i = +1 (h = h^−), (−INF, −1, False) if none.

    Branch free: H_i^+ = h_i^+ − f_i and −H_i^− = f_i − h_i^− are minimised alike, the
    elements on the other side pushed up by INF; then the first index attaining the
    minimum."""
    N = neg.shape[0]
    sgn = np.int64(direction)
    best = INF
    for i in range(N):
        side = neg[i] if direction > 0 else ~neg[i]
        best = min(best, sgn * (h[i] - f[i]) + (side & INF))
    if best >= _NONE:
        return sgn * INF, -1, False
    arg = N
    count = 0
    for i in range(N):  # the first index attaining the minimum, and how many do
        side = neg[i] if direction > 0 else ~neg[i]
        hit = sgn * (h[i] - f[i]) + (side & INF) == best
        arg = min(arg, i if hit else N)
        count += hit
    return sgn * best, arg, count > 1


@jit(borrow=True)
def next_up(neg, f, hp):
    """(H^+(S), critical element, tie) over elements with s_i = −1; (INF, −1) if none."""
    return _next_switch(neg, f, hp, 1)


@jit(borrow=True)
def next_down(neg, f, hm):
    """(H^−(S), critical element, tie) over elements with s_i = +1; (−INF, −1) if none."""
    return _next_switch(neg, f, hm, -1)


@jit(borrow=True)
def next_switch(neg, f, hp, hm, direction):
    """The next switching field going up (direction > 0: ``next_up``) or down
    (``next_down``): (field, critical element, tie)."""
    if direction > 0:
        return next_up(neg, f, hp)
    return next_down(neg, f, hm)


@jit(borrow=True)
def next_up_down(neg, f, hp, hm):
    """``next_up(neg, f, hp)`` and ``next_down(neg, f, hm)`` together, in two passes
    instead of four (a turning point of the saturated loop asks both)."""
    N = neg.shape[0]
    lo = INF
    hi = -INF
    for i in range(N):
        lo = min(lo, _up_key(neg[i], f[i], hp[i]))
        hi = max(hi, _down_key(neg[i], f[i], hm[i]))
    arg_u = N
    count_u = 0
    arg_d = N
    count_d = 0
    for i in range(N):
        hit_u = _up_key(neg[i], f[i], hp[i]) == lo
        arg_u = min(arg_u, i if hit_u else N)
        count_u += hit_u
        hit_d = _down_key(neg[i], f[i], hm[i]) == hi
        arg_d = min(arg_d, i if hit_d else N)
        count_d += hit_d
    up = (INF, -1, False) if lo >= _NONE else (lo, arg_u, count_u > 1)
    down = (-INF, -1, False) if hi <= -_NONE else (hi, arg_d, count_d > 1)
    return up, down


@jit(inline=True)
def _answer(neg, f, Hc, eps, rule, hp, hm, buf, acc):
    """``rules.choose_wide`` from the tally ``acc`` of the state (neg, f); under rule 2
    buf[:n_u] receives the unstable elements."""
    n_u, chosen, ties = rules.choose_wide(rule, acc, neg, f, hp, hm, Hc, eps)
    if rule == RULE_2:
        rules.unstable_list(neg, f, hp, hm, Hc, eps, buf)
    return n_u, chosen, ties


@jit(borrow=True)
def scan(neg, f, Hc, eps, rule, hp, hm, buf):
    """Unstable elements at (Hc, eps) and the rule's choice (:mod:`hyst.kernels.rules`):
    returns (n_u, chosen, ties); under rule 2 buf[:n_u] receives the unstable elements.
    One branch-free pass; a second one only when several elements are unstable (under
    rule 1 or 1′, or rule 2)."""
    acc = rules.start_wide()
    for i in range(neg.shape[0]):
        acc = rules.tally_wide(acc, i, rules.margin(neg[i] != 0, f[i], hp[i], hm[i], Hc, eps))
    return _answer(neg, f, Hc, eps, rule, hp, hm, buf, acc)


@jit(borrow=True)
def flip_scan(j, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, buf):
    """``flip(j, ...)`` then ``scan(...)`` at (Hc, eps), with the same result bit for bit.

    With a coupling matrix or constant rows, the field update and the scan's first pass
    are one loop over the elements (the relaxation's inner step: one O(N) pass instead of
    two). Constant columns and direction-dependent couplings: the two calls."""
    if form == FORM_COLUMNS or form == FORM_DIRECTED:
        flip(j, s, neg, f, form, ct, d)
        return scan(neg, f, Hc, eps, rule, hp, hm, buf)
    s[j] = -s[j]
    neg[j] = ~neg[j]
    # Δf_i = two · row_i for i ≠ j: 2 s_j c_ij (matrix, c_jj = 0) or −2 s_j d_i (rows),
    # with the new s_j; f_j is offset first so that the loop leaves it unchanged
    if form == FORM_ROWS:
        row = d
        two = np.int64(-2) if s[j] > 0 else np.int64(2)
    else:
        row = ct[j]
        two = np.int64(2) if s[j] > 0 else np.int64(-2)
    f[j] -= two * row[j]
    acc = rules.start_wide()
    for i in range(neg.shape[0]):
        fi = f[i] + two * row[i]
        f[i] = fi
        acc = rules.tally_wide(acc, i, rules.margin(neg[i] != 0, fi, hp[i], hm[i], Hc, eps))
    return _answer(neg, f, Hc, eps, rule, hp, hm, buf, acc)


@jit
def grow(a, n):
    """A copy of ``a`` twice as long, its first ``n`` entries kept (the rest uninitialised)."""
    b = np.empty(2 * a.shape[0], a.dtype)
    b[:n] = a[:n]
    return b


@jit(borrow=True)
def earlier_visit(snaps, hashes, n, s, h):
    """The index a < n of a stored state equal to s (its hash h compared first, then every
    spin), or −1: the exact revisit test of the cyclic drive's states at U = 0."""
    for a in range(n):
        if hashes[a] == h:
            same = True
            for i in range(s.shape[0]):
                if snaps[a, i] != s[i]:
                    same = False
                    break
            if same:
                return a
    return -1


@jit
def store_visit(snaps, hashes, n, s, h):
    """Store state s (hash h) at index n, doubling both arrays when full; returns them."""
    if n >= snaps.shape[0]:
        ns = np.empty((2 * n, s.shape[0]), np.int8)
        ns[:n] = snaps[:n]
        snaps = ns
        hashes = grow(hashes, n)
    snaps[n] = s
    hashes[n] = h
    return snaps, hashes


@jit(borrow=True)
def finish(out, book, L, n_e, e1, e2):
    """Fill a relaxation's result row out (``codes.RELAX_COLUMNS``): the record ``book`` of
    :mod:`hyst.kernels.bookkeeping` with the self-loop's L and n_e, then the first two
    elements flipping in the self-loop (−1 if none)."""
    bookkeeping.record(out, book, L, n_e)
    out[RELAX_E1] = e1
    out[RELAX_E2] = e2


#: Initial capacity of a workspace's revisit table (a power of two) and flip log.
_TABLE, _LOG = 64, 256


@jit
def workspace(N):
    """Scratch arrays of the relaxation of one N-element system, reused across calls:
    (Zobrist keys, rule-2 buffer, table keys, table steps (−1 = empty), flip log,
    step bounds, parity marks)."""
    return (
        zobrist_keys(N),
        np.empty(N, np.int64),
        np.zeros(_TABLE, np.uint64),
        np.full(_TABLE, -1, np.int64),
        np.empty(_LOG, np.int64),
        np.empty(_TABLE, np.int64),
        np.zeros(N, np.int8),
    )


@jit
def system_state(N):
    """Work arrays of one N-element system: spins s (int8), their int64 mirror neg,
    local fields f, a relaxation result row and a ``workspace``."""
    return (
        np.empty(N, np.int8),
        np.empty(N, np.int64),
        np.empty(N, np.int64),
        np.zeros(len(RELAX_COLUMNS), np.int64),
        workspace(N),
    )


@jit(borrow=True)
def relax(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out):
    """Relax (s, neg, f) in place at field (Hc, eps) under ``rule``; returns the outcome code
    (STABLE, SELF_LOOP or ILL_DEFINED).

    Each step scans the state's margins and flips the rule's choice (all unstable elements
    under rule 2), updating the local fields in O(N); the relaxation's record (steps, flips,
    race, ties), its end and its self-loops are :mod:`hyst.kernels.bookkeeping`'s. Fills
    out = ``codes.RELAX_COLUMNS``: flips, steps, race (a state after the first step had
    several unstable elements), ties, L (the cycle length in steps) and n_e (the distinct
    elements flipping in the cycle), e1, e2 (the first two elements flipping in the cycle,
    −1 if none). After a self-loop, (s, neg, f) are left at the first repeated state.
    ``ws`` is a ``workspace(N)``.

    Transitions of zero or one flip (most events of a drive) take no cycle detection;
    longer ones continue in ``_relax_walk``.
    """
    buf = ws[1]
    if rule == RULE_2:
        nothing = (np.int64(0), -1, np.int64(0))
        book = bookkeeping.begin(0)
        return _relax_walk(
            s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, -1, book, nothing
        )
    n_u, chosen, ties = scan(neg, f, Hc, eps, rule, hp, hm, buf)
    book = bookkeeping.scanned(bookkeeping.begin(0), n_u, ties)
    code = bookkeeping.verdict(rule, n_u)
    if code != MOVED:
        finish(out, book, 0, 0, -1, -1)
        return code
    return _relax_after(chosen, ties, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out)


@jit(borrow=True)
def relax_event(known, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out):
    """``relax`` of a drive event, one O(N) scan fewer when its first flip is ``known``.

    ``known`` >= 0 (the caller's promise): the state was stable at some field on the near
    side of Hc, and element ``known`` alone attains the switching field Hc = H^+(S)
    (eps = +1) or Hc = H^−(S) (eps = −1), i.e. ``next_up``/``next_down`` returned it
    without a tie. Then at (Hc, eps) it is the only unstable element and no margin is 0
    (margins are odd when eps ≠ 0), so the first scan of ``relax`` would find exactly
    (1, known, 0) under every rule, and the result is the same bit for bit.
    ``known`` = −1 (a tied switching field): the full ``relax``.
    """
    if known < 0:
        return relax(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out)
    return _relax_after(known, 0, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out)


@jit(borrow=True)
def _relax_after(chosen, ties, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out):
    """The relaxation from its first flip (of ``chosen``, with ``ties`` met before it)."""
    n_u, second, t = flip_scan(chosen, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws[1])
    book = bookkeeping.moved(bookkeeping.begin(ties), 1)
    if n_u == 0:
        finish(out, bookkeeping.scanned(book, n_u, t), 0, 0, -1, -1)
        return STABLE
    scanned = (n_u, second, t)
    return _relax_walk(
        s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, chosen, book, scanned
    )


@jit
def _relax_walk(s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, ws, out, first, book, scanned):
    """The general relaxation loop with exact cycle detection, from the record ``book``
    (:mod:`hyst.kernels.bookkeeping`). ``first`` >= 0: one single flip (of that element)
    was already made (``book`` counts it) and ``scanned`` is the scan of the state it led
    to; ``first`` = −1: nothing was, ``book`` holds no step.

    A revisit is found by a 64-bit Zobrist hash of the state in an open-addressing table
    (state hash -> the step that first reached it), and confirmed only if every element
    flipped an even number of times since that step (the flip log, bounded per step), so a
    hash collision can never fake a self-loop."""
    keys, buf, tkeys, tstep, log, bound, par = ws
    e1 = -1
    e2 = -1
    nlog = 0
    # the hash relative to the start state (XOR of the keys of the elements flipped an odd
    # number of times since): revisits within this relaxation are all it must tell apart,
    # and it saves the O(N) hash of the start state
    h = np.uint64(0)
    L = 0
    n_e = 0
    outcome = STABLE
    nent = 0
    mask = np.uint64(tkeys.shape[0] - 1)
    if first >= 0:  # the start state and step 1
        h0 = h ^ keys[first]
        slot = np.int64(h0 & mask)
        tkeys[slot] = h0
        tstep[slot] = 0
        nent = 1
        log[0] = first
        bound[0] = 0
        nlog = 1
    slot = np.int64(h & mask)
    while tstep[slot] >= 0:
        slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
    tkeys[slot] = h
    tstep[slot] = book[0]
    nent += 1
    n_u, chosen, t = scanned  # the scan of the current state, when ``have``
    have = first >= 0
    while True:
        if not have:
            n_u, chosen, t = scan(neg, f, Hc, eps, rule, hp, hm, buf)
        have = False
        book = bookkeeping.scanned(book, n_u, t)
        code = bookkeeping.verdict(rule, n_u)
        if code != MOVED:
            outcome = code
            break
        steps = book[0]
        if steps >= bound.shape[0]:
            bound = grow(bound, steps)
        bound[steps] = nlog
        if rule == RULE_2:
            for q in range(n_u):
                j = buf[q]
                flip(j, s, neg, f, form, ct, d)
                h ^= keys[j]
                if nlog >= log.shape[0]:
                    log = grow(log, nlog)
                log[nlog] = j
                nlog += 1
            nf = n_u
        else:
            j = chosen  # flipped, and the new state scanned in the same pass
            n_u, chosen, t = flip_scan(j, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, buf)
            have = True
            h ^= keys[j]
            if nlog >= log.shape[0]:
                log = grow(log, nlog)
            log[nlog] = j
            nlog += 1
            nf = 1
        book = bookkeeping.moved(book, nf)
        steps = book[0]
        # look the new state up
        mask = np.uint64(tkeys.shape[0] - 1)
        slot = np.int64(h & mask)
        found = -1
        while tstep[slot] >= 0:
            if tkeys[slot] == h:
                # candidate revisit: confirm exactly by flip parity since that step
                t0 = tstep[slot]
                for q in range(bound[t0], nlog):
                    par[log[q]] ^= 1
                ok = True
                for q in range(bound[t0], nlog):
                    if par[log[q]]:
                        ok = False
                    par[log[q]] = 0
                if ok:
                    found = t0
                    break
            slot = np.int64((np.uint64(slot) + np.uint64(1)) & mask)
        if found >= 0:
            outcome = SELF_LOOP
            L = bookkeeping.loop_length(book, found)
            for q in range(bound[found], nlog):  # distinct elements, in order
                if not par[log[q]]:
                    par[log[q]] = 1
                    if n_e == 0:
                        e1 = log[q]
                    elif n_e == 1:
                        e2 = log[q]
                    n_e += 1
            for q in range(bound[found], nlog):
                par[log[q]] = 0
            break
        tkeys[slot] = h
        tstep[slot] = steps
        nent += 1
        if 2 * nent > tkeys.shape[0]:  # rehash into a table twice as large (this call only)
            ncap = 2 * tkeys.shape[0]
            nk = np.zeros(ncap, np.uint64)
            ns = np.full(ncap, -1, np.int64)
            nm = np.uint64(ncap - 1)
            for q in range(tkeys.shape[0]):
                if tstep[q] >= 0:
                    p = np.int64(tkeys[q] & nm)
                    while ns[p] >= 0:
                        p = np.int64((np.uint64(p) + np.uint64(1)) & nm)
                    nk[p] = tkeys[q]
                    ns[p] = tstep[q]
            if tkeys.shape[0] == ws[2].shape[0]:
                ws[3][:] = -1  # leave the workspace's own table empty
            tkeys = nk
            tstep = ns
    if tkeys.shape[0] == ws[2].shape[0]:
        tstep[:] = -1
    finish(out, book, L, n_e, e1, e2)
    return outcome
