"""Transitions of the general hysteron model (Teunisse & van Hecke 2025): each state S has its
own switching fields U_i^±(S), with no pairwise structure. Only ``@jit`` functions over plain
int64 arrays live here; :mod:`hyst.model.general` is their Python face.

Conventions. A state is a bitmask, bit i set ⇔ hysteron i is up (s_i = 1). ``U[S, i]`` is
U_i^+(S) when s_i = 0 (hysteron i flips up once the driving field U exceeds it) and U_i^−(S)
when s_i = 1 (it flips down once U falls below it): n·2^n switching fields, any integers.

A transition from S in direction d (+1 up, −1 down) starts with the scaffold's flip: the
critical hysteron k of S (the lowest U_i^+(S) of the down hysterons for d = +1, the highest
U_i^−(S) of the up ones for d = −1), at the field Hc = U[S, k] held fixed, meaning
Hc + d·0⁺ (the convention of :mod:`hyst.kernels.rules`). In every later state B, hysteron i
has the doubled instability margin

    s_i = 0:  m_i = 2 (Hc − U_i^+(B)) + d,      s_i = 1:  m_i = 2 (U_i^−(B) − Hc) − d,

and is unstable iff m_i > 0: exactly the pairwise model's margin with H_i^±(S) replaced by
U_i^±(S). The rule (``rules.tally``/``rules.choose``, the one definition of rules 0, 1, 1′
and 2) picks the next flip; the avalanche ends in a stable state (``STABLE``), in a state it
visited before (``SELF_LOOP``: detected exactly, by stamping the visited states), or at a race
condition under rule 0 (``ILL_DEFINED``). The first flip is the scaffold's even when S has no
stability interval (max U^−(S) > min U^+(S)): the definition of the t-graph (and of the peer
code's ``make_graph``); whether S is stable anywhere is reported apart (``stable_somewhere``).
"""

from __future__ import annotations

import numpy as np

from hyst.kernels import rules
from hyst.kernels.codes import ILL_DEFINED, RULE_0, RULE_2, SELF_LOOP, STABLE
from hyst.kernels.jit import jit

#: Columns of ``order_statistics`` (one row per set of switching fields).
ORDER_COLUMNS = (
    "unstable_states",  # states with no stability interval: max U^-(S) >= min U^+(S)
    "bad_all",  # transitions of all states that are not STABLE (self-loop or race)
    "self_loops_all",  # ... of them self-loops
    "bad_stable",  # transitions of states with a stability interval that are not STABLE
    "bad_reachable",  # transitions of states reachable from the all-down state, not STABLE
    "reachable",  # states reachable from the all-down state (itself included)
    "simple_self_loop_pairs",  # pairs U_i^+(S) > U_i^-(S + i): an immediate flip back
    "ties",  # equal fields met (scaffold or margins)
)
(
    O_UNSTABLE_STATES,
    O_BAD_ALL,
    O_SELF_LOOPS_ALL,
    O_BAD_STABLE,
    O_BAD_REACHABLE,
    O_REACHABLE,
    O_SIMPLE_PAIRS,
    O_TIES,
) = range(len(ORDER_COLUMNS))


@jit(borrow=True)
def critical(U, n, S, d):
    """(k, ties): the scaffold's critical hysteron of state S in direction d (+1: the down
    hysteron with the lowest U^+(S); −1: the up one with the highest U^−(S)); k = −1 if none
    can flip that way; equal extremes pick the lowest index and count one tie."""
    k = -1
    tie = 0
    for i in range(n):
        up = (S >> i) & 1
        if (d > 0 and up == 0) or (d < 0 and up == 1):
            if k < 0:
                k = i
                tie = 0
            else:
                better = U[S, i] < U[S, k] if d > 0 else U[S, i] > U[S, k]
                if better:
                    k = i
                    tie = 0
                elif U[S, i] == U[S, k]:
                    tie = 1
    return k, tie


@jit(borrow=True)
def stable_somewhere(U, n, S):
    """Whether state S has a stability interval, max U^−(S) < min U^+(S) (the all-down and
    the all-up states always have one)."""
    hi = -(2**62)
    lo = 2**62
    for i in range(n):
        if (S >> i) & 1:
            hi = max(hi, U[S, i])
        else:
            lo = min(lo, U[S, i])
    return hi < lo


@jit(borrow=True)
def transition(U, n, S, d, rule, path, stamp, wid):
    """The transition from S in direction d under ``rule`` (a ``codes.RULE_*``): returns
    (outcome, states, race, ties). ``path[:states]`` are the states visited, S first; after a
    self-loop the last one is the state met again. ``stamp`` (2^n int64) marks visited states
    with ``wid``, which the caller makes new for each transition. outcome −1: S cannot flip
    in direction d (all up for d = +1, all down for d = −1)."""
    k, ties = critical(U, n, S, d)
    if k < 0:
        return np.int64(-1), np.int64(0), np.int64(0), np.int64(ties)
    Hc = U[S, k]
    path[0] = S
    stamp[S] = wid
    B = S ^ (1 << k)
    length = 1
    race = 0
    while True:
        path[length] = B
        length += 1
        if stamp[B] == wid:
            return np.int64(SELF_LOOP), np.int64(length), np.int64(race), np.int64(ties)
        stamp[B] = wid
        acc = rules.start(rule)
        for i in range(n):
            if (B >> i) & 1:
                m = 2 * (U[B, i] - Hc) - d
            else:
                m = 2 * (Hc - U[B, i]) + d
            acc = rules.tally(acc, i, m, rule)
        n_u, chosen, zeros = rules.choose(rule, acc)
        ties += zeros
        if n_u == 0:
            return np.int64(STABLE), np.int64(length), np.int64(race), np.int64(ties)
        if n_u > 1:
            race = 1
            if rule == RULE_0:
                return np.int64(ILL_DEFINED), np.int64(length), np.int64(race), np.int64(ties)
        if rule == RULE_2 and n_u > 1:
            B = B ^ rules.unstable(acc)
        else:
            B = B ^ (1 << chosen)


@jit(borrow=True)
def tgraph(U, n, rule, outcome, states, paths, stamp):
    """Every transition of the switching fields U under ``rule``: for state S and direction
    index e (0 up, 1 down), outcome[S, e], states[S, e] and paths[S, e, :states] as
    ``transition`` returns them (outcome −1 where S cannot flip that way). Returns the ties
    met. stamp: 2^n int64 work array (any content)."""
    stamp[:] = -1
    ties = 0
    wid = 0
    for S in range(1 << n):
        for e in range(2):
            oc, ln, _race, t = transition(U, n, S, 1 - 2 * e, rule, paths[S, e], stamp, wid)
            wid += 1
            outcome[S, e] = oc
            states[S, e] = ln
            ties += t
    return ties


@jit(borrow=True)
def order_statistics(U, n, rule, out, outcome, states, paths, stamp, queue):
    """One row of ``ORDER_COLUMNS`` (in ``out``) for the switching fields U under ``rule``.
    Work arrays: outcome, states (2^n, 2), paths (2^n, 2, 2^n + 1), stamp and queue (2^n)."""
    ns = 1 << n
    ties = tgraph(U, n, rule, outcome, states, paths, stamp)
    unstable = 0
    bad_all = 0
    loops = 0
    bad_stable = 0
    for S in range(ns):
        ok_state = stable_somewhere(U, n, S)
        unstable += not ok_state
        for e in range(2):
            oc = outcome[S, e]
            if oc > STABLE:
                bad_all += 1
                loops += oc == SELF_LOOP
                bad_stable += ok_state
    # states reachable from the all-down state through well-defined transitions
    stamp[:] = 0
    queue[0] = 0
    stamp[0] = 1
    head = 0
    tail = 1
    bad_reach = 0
    while head < tail:
        S = queue[head]
        head += 1
        for e in range(2):
            oc = outcome[S, e]
            if oc == STABLE:
                F = paths[S, e, states[S, e] - 1]
                if stamp[F] == 0:
                    stamp[F] = 1
                    queue[tail] = F
                    tail += 1
            elif oc > STABLE:
                bad_reach += 1
    pairs = 0
    for S in range(ns):
        for i in range(n):
            if (S >> i) & 1 == 0 and U[S, i] < U[S | (1 << i), i]:
                pairs += 1
    out[O_UNSTABLE_STATES] = unstable
    out[O_BAD_ALL] = bad_all
    out[O_SELF_LOOPS_ALL] = loops
    out[O_BAD_STABLE] = bad_stable
    out[O_BAD_REACHABLE] = bad_reach
    out[O_REACHABLE] = tail
    out[O_SIMPLE_PAIRS] = pairs
    out[O_TIES] = ties


@jit(borrow=True)
def order_batch(U, n, rule, out, outcome, states, paths, stamp, queue):
    """``order_statistics`` of every set of switching fields U[k] (k = 0 … m − 1) into
    out[k]."""
    for k in range(U.shape[0]):
        order_statistics(U[k], n, rule, out[k], outcome, states, paths, stamp, queue)
