"""Exact counts of the total orders of the general model's switching fields that give a
well-defined t-graph, by dynamic programming over the sets of fields below the driving field
(rules 0 and 2, whose avalanches depend on the order of the fields alone).

Raise U through a total order of the N = n·2^n fields: the fields below U form a set X, and
every transition of the t-graph is triggered, and fully resolved, when one field joins X:

- the up transition of state A when its lowest U^+(A), field (A, k), joins X (no other up
  field of A in X yet); the driving field is U_k^+(A) + 0⁺, so the fields below it are X with
  (A, k);
- the down transition of A when its highest U^−(A) joins X (every other down field of A in X
  already); the driving field is U_k^−(A) − 0⁺, the fields below it X without (A, k).

In each state B of the avalanche, with x the bits of B's own fields in the set below, the
unstable hysterons are ``x XOR B`` (a down hysteron whose U^+(B) is below U, an up one whose
U^−(B) is above it): rule 0 flips the one unstable hysteron (a race fails), rule 2 all of them;
a state met again is a self-loop (fails). A has a stability interval iff at its up trigger all
its down fields are below and at its down trigger none of its up fields is. So the number of
good total orders is the number of paths ∅ → all fields in the lattice of subsets whose every
step passes these checks: a pass over the subsets by size (a subset's
predecessors are smaller), kept layer by layer (the sets of k fields that good orders reach:
242,886 sets in all for n = 3, rule 0), counts in two int64 limbs (base 2^62; 24! < 2^80).

Definitions (``DEFINITIONS`` of :mod:`hyst.combinatorics.tgraph_orders`): 0 every
transition of every state well defined and every state stable somewhere (the peer's); 1 every
transition well defined; 2 the transitions of the states with a stability interval well
defined.
``no_simple``: only the orders with U_i^+(S) > U_i^−(S + i) for every S and i.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import RULE_0
from hyst.kernels.jit import jit

LIMB = np.int64(2**62)
ALL_STATES_STABLE, ALL_TRANSITIONS, STABLE_STATES = 0, 1, 2


@jit(borrow=True)
def avalanche_ok(X, n, A, k, rule):
    """Whether the transition of A whose critical hysteron is k ends in a stable state, with
    X the set of fields below the driving field (bit S·n + i: U_i(S) is below)."""
    full = (1 << n) - 1
    seen = np.int64(1) << A
    B = A ^ (1 << k)
    while True:
        if (seen >> B) & 1:
            return False
        seen |= np.int64(1) << B
        u = ((X >> (B * n)) ^ B) & full
        if u == 0:
            return True
        if u & (u - 1):
            if rule == RULE_0:
                return False
            B = B ^ u
        else:
            B = B ^ u


@jit(borrow=True)
def step_ok(X, f, n, rule, definition, no_simple, want):
    """Whether field f may join the set X of fields below (f not in X): the transitions it
    triggers pass (see the module docstring). want[S, e]: the critical hysteron state S
    must have in direction e (0 up, 1 down), −1 for any (a given scaffold's orders)."""
    full = (1 << n) - 1
    A = f // n
    k = f % n
    mine = (X >> (A * n)) & full
    bit = 1 << k
    if (A >> k) & 1 == 0:  # an up field U_k^+(A)
        if no_simple and ((X >> ((A | bit) * n + k)) & 1) == 0:
            return False  # U_k^-(A + k) must lie below U_k^+(A)
        if mine & ~A & full & ~bit:
            return True  # not the lowest up field of A: no transition
        if want[A, 0] >= 0 and want[A, 0] != k:
            return False
        stable = (mine & A) == A
        if not stable:
            if definition == ALL_STATES_STABLE:
                return False
            if definition == STABLE_STATES:
                return True
        return avalanche_ok(X | (np.int64(1) << f), n, A, k, rule)
    # a down field U_k^-(A)
    if (mine & A & ~bit) != (A & ~bit):
        return True  # not the highest down field of A: no transition
    if want[A, 1] >= 0 and want[A, 1] != k:
        return False
    stable = (mine & ~A & full) == 0
    if not stable:
        if definition == ALL_STATES_STABLE:
            return False
        if definition == STABLE_STATES:
            return True
    return avalanche_ok(X, n, A, k, rule)


@jit(borrow=False)
def merge_layer(out_keys, out_from, lo, hi):
    """The next layer of a count over sets: the distinct ``out_keys`` (sorted), each with the
    sum of the counts (lo, hi limbs) of the sets ``out_from`` it grew from."""
    t = out_keys.shape[0]
    order = np.argsort(out_keys, kind="mergesort")
    new_keys = np.empty(t, np.int64)
    new_lo = np.zeros(t, np.int64)
    new_hi = np.zeros(t, np.int64)
    u = -1
    for r in range(t):
        key = out_keys[order[r]]
        j = out_from[order[r]]
        if u < 0 or key != new_keys[u]:
            u += 1
            new_keys[u] = key
        s = new_lo[u] + lo[j]
        carry = s >= LIMB
        new_lo[u] = s - LIMB if carry else s
        new_hi[u] += hi[j] + carry
    return new_keys[: u + 1].copy(), new_lo[: u + 1].copy(), new_hi[: u + 1].copy()


@jit(borrow=True)
def may_join(X, f, n, rule, definition, no_simple, want, below):
    """Whether element f may join the set X: with an order ``below`` given (closed
    bitmasks), when everything below f is in X (a linear extension); else ``step_ok``."""
    if below.shape[0] > 0:
        return (below[f] & ~X) == 0
    return step_ok(X, f, n, rule, definition, no_simple, want)


@jit(borrow=False)
def count_layers(n, rule, definition, no_simple, want, below, sizes, cap):
    """The number of good total orders, (hi, lo) with count = hi·2^62 + lo, layer by layer:
    the sets of k fields below U that a good order reaches (sorted int64 bit patterns, so
    N ≤ 63: n ≤ 3) with the number of good orderings of each; each step adds one field.
    With a closed order ``below`` (N bitmasks; empty: none) its linear extensions instead.
    sizes[k]: the sets reached with k fields (N + 1 entries). (−1, −1) when a layer would
    hold more than ``cap`` sets (sizes then hold the layers so far)."""
    N = below.shape[0] if below.shape[0] > 0 else n << n
    keys = np.zeros(1, np.int64)
    lo = np.ones(1, np.int64)
    hi = np.zeros(1, np.int64)
    sizes[0] = 1
    for k in range(N):
        m = keys.shape[0]
        if m * (N - k) > cap:
            return np.int64(-1), np.int64(-1)
        out_keys = np.empty(m * (N - k), np.int64)
        out_from = np.empty(m * (N - k), np.int64)
        t = 0
        for j in range(m):
            X = keys[j]
            for f in range(N):
                if (X >> f) & 1 == 0 and may_join(
                    X, f, n, rule, definition, no_simple, want, below
                ):
                    out_keys[t] = X | (np.int64(1) << f)
                    out_from[t] = j
                    t += 1
        if t == 0:
            return np.int64(0), np.int64(0)
        keys, lo, hi = merge_layer(out_keys[:t], out_from[:t], lo, hi)
        sizes[k + 1] = keys.shape[0]
    return hi[0], lo[0]
