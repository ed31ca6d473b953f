"""A float64 twin of the P_sl transitions: what floating-point round-off does to them.

In exact arithmetic a spin (σ_i = 0) that has just flipped sits exactly at its threshold:
after element k flips up at H = H_k^+(S), H_k^−(S') = H_k^+(S) = H, because its own spin
does not enter its local field. hyst resolves this exactly (the element is stable at
H + 0⁺). A floating-point code computes the same comparison with round-off, and the
just-flipped spin can look unstable, flip back and turn the transition into a self-loop.

The twin relaxes the transitions of :func:`hyst.kernels.state_table` out of every
potentially stable state (found exactly, from the quantised parameters) in float64, from
generic float64 parameters, as a typical floating-point implementation does: local fields
x_i = Σ_j c_ij s_j summed in index order, the transition field H = h_k^± − x_k of the
critical element k, instability margins (H + x_i) − h_i^+ for s_i = −1 and
h_i^− − (H + x_i) for s_i = +1 (unstable when > 0), the race-condition rule on those
margins, and a self-loop whenever the avalanche revisits a state, the start state included.
With direction-dependent couplings an element's local field is x_i^+ = Σ_j c^+_ij s_j
while it is down and x_i^− = Σ_j c^−_ij s_j while it is up; a just-flipped element with a
negative effective span h_k^+ − h_k^− − (x_k^+ − x_k^−) is then unstable in exact
arithmetic too, and ``just_flipped_unstable`` counts it beside the round-off.

Only ``@jit`` functions over plain arrays live here; output columns are
``codes.FLOAT64_COLUMNS``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst.kernels import rules
from hyst.kernels.codes import (
    F64_JUST_FLIPPED_UNSTABLE,
    F64_SELF_LOOP_TRANSITIONS,
    F64_TRANSITIONS,
    FORM_DENSE_T,
    RULE_0,
    RULE_2,
)
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.state_table import build_state_table


@jit
def _margins(s, H, hp, hm, c, m):
    """Float64 instability margins of every element at field H (unstable where > 0); c (N,
    N), or (2N, N) for direction-dependent couplings (c^+ over c^−: an up element reads
    row N + i)."""
    N = s.shape[0]
    minus = c.shape[0] - N  # 0, or N for direction-dependent couplings
    for i in range(N):
        r = i + minus if s[i] > 0 else i
        x = 0.0
        for j in range(N):
            x += c[r, j] * s[j]
        local = H + x
        m[i] = local - hp[i] if s[i] < 0 else hm[i] - local


@jit
def _code(s):
    code = 0
    for i in range(s.shape[0]):
        if s[i] > 0:
            code |= 1 << i
    return code


@jit
def _transition(S, direction, hp, hm, c, rule, s, m, stamp, mark, out):
    """One transition out of state S in float64; updates the output counters."""
    N = hp.shape[0]
    for i in range(N):
        s[i] = 1.0 if (S >> i) & 1 else -1.0
    H = np.inf if direction > 0 else -np.inf
    k = -1
    minus = c.shape[0] - N  # 0, or N for direction-dependent couplings (c^+ over c^−)
    for i in range(N):
        r = i + minus if s[i] > 0 else i
        x = 0.0
        for j in range(N):
            x += c[r, j] * s[j]
        if direction > 0 and s[i] < 0 and hp[i] - x < H:
            H = hp[i] - x
            k = i
        elif direction < 0 and s[i] > 0 and hm[i] - x > H:
            H = hm[i] - x
            k = i
    if k < 0:
        return
    out[F64_TRANSITIONS] += 1
    stamp[S] = mark
    s[k] = -s[k]
    first = True
    while True:
        code = _code(s)
        if stamp[code] == mark:
            out[F64_SELF_LOOP_TRANSITIONS] += 1
            return
        stamp[code] = mark
        _margins(s, H, hp, hm, c, m)
        if first and m[k] > 0:
            out[F64_JUST_FLIPPED_UNSTABLE] += 1
        first = False
        acc = rules.start(rule)
        for i in range(N):
            acc = rules.tally(acc, i, m[i], rule)
        n_u, chosen, _ties = rules.choose(rule, acc)
        if n_u == 0 or (rule == RULE_0 and n_u > 1):
            return
        if rule == RULE_2:
            for i in range(N):
                if m[i] > 0:
                    s[i] = -s[i]
        else:
            s[chosen] = -s[chosen]


@jit
def float64_transitions_one(k, exact, floats, rule, out):
    """System k of ``float64_transitions_batch``."""
    hp, hm, c = floats.h_plus[k], floats.h_minus[k], floats.couplings[k]
    N = hp.shape[0]
    n = 1 << N
    F = np.empty((n, N), np.int64)
    hplus = np.empty(n, np.int64)
    hminus = np.empty(n, np.int64)
    transposed = exact.form == FORM_DENSE_T
    hpq, hmq, cq = exact.h_plus[k], exact.h_minus[k], exact.couplings[k]
    build_state_table(hpq, hmq, cq, transposed, F, hplus, hminus)
    s = np.empty(N)
    m = np.empty(N)
    stamp = np.zeros(n, np.int64)
    o = out[k]
    for q in range(o.shape[0]):
        o[q] = 0
    mark = 0
    for S in range(n):
        if hminus[S] < hplus[S]:
            for direction in (1, -1):
                mark += 1
                _transition(S, direction, hp, hm, c, rule, s, m, stamp, mark, o)


@batch_kernel
def float64_transitions_batch(exact, floats, rule, out):
    """The P_sl transitions of a batch of systems in float64 (module docstring).

    exact: the quantised systems (``operands.SystemBatch``, a dense form or FORM_DIRECTED),
    which decide the potentially stable states; floats: the float64 parameters the
    transitions are computed with (``SystemBatch`` of float64 arrays, couplings (n, N, N), or
    (n, 2N, N), c^+ over c^−, for direction-dependent couplings: an element reads its field
    with c^+ while down and with c^− while up). out[k] = ``codes.FLOAT64_COLUMNS``.
    """
    for k in prange(floats.h_plus.shape[0]):
        float64_transitions_one(np.int64(k), exact, floats, rule, out)
