"""The census of realizable t-graphs of one scaffold: depth-first search over its transitions,
one avalanche of each at a time, pruning every branch whose design inequalities are already
inconsistent (a cycle in the order of the switching fields).

The order is kept transitively closed as bitmasks: ``below[a]`` holds every field b with
U_a > U_b (N = n·2^n ≤ 63 fields). Adding U_a > U_b closes a cycle iff a is below b (or
a = b); otherwise every field at or above a gets b and everything below b. Each level of the
search copies the N words of the level above, so a branch costs O(N) per inequality.

The options are given flat: transition t has the options ``opt_first[t] … opt_first[t + 1] −
1``; option o has the inequalities ``edge_first[o] … edge_first[o + 1] − 1`` of ``edges``
(rows a, b: U_a > U_b). ``base`` are the scaffold's own inequalities (applied first).
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.jit import jit
from hyst.kernels.tgraph_orders import count_layers


@jit(borrow=True)
def add_edge(below, a, b, N):
    """Add U_a > U_b to the closed order ``below`` (N fields); False if it closes a cycle."""
    if a == b or (below[b] >> a) & 1:
        return False
    if (below[a] >> b) & 1:
        return True
    new = below[b] | (np.int64(1) << b)
    for x in range(N):
        if x == a or (below[x] >> a) & 1:
            below[x] |= new
    return True


@jit(borrow=True)
def add_option(below, o, edge_first, edges, N):
    """Add the inequalities of option o; False at the first cycle."""
    for e in range(edge_first[o], edge_first[o + 1]):
        if not add_edge(below, edges[e, 0], edges[e, 1], N):
            return False
    return True


@jit(borrow=True)
def census(N, base, opt_first, edge_first, edges, levels, choice, out, leaves, closures):
    """Count the option combinations (one per transition) whose inequalities together with
    ``base`` are acyclic. levels: (T + 1, N) int64 work array; choice: (T,) int64.
    out[0]: realizable combinations, out[1]: branches tried (options added), out[2]: the
    branches pruned; the first ``leaves.shape[0]`` realizable combinations (their option
    of each transition) go to ``leaves`` (T columns), their closed orders to ``closures``
    (as many rows, N columns). Returns False if ``base`` alone has a cycle."""
    T = opt_first.shape[0] - 1
    levels[0, :] = 0
    for e in range(base.shape[0]):
        if not add_edge(levels[0], base[e, 0], base[e, 1], N):
            return False
    out[0] = 0
    out[1] = 0
    out[2] = 0
    if T == 0:
        out[0] = 1
        return True
    depth = 0
    choice[0] = opt_first[0]
    while depth >= 0:
        if choice[depth] >= opt_first[depth + 1]:
            depth -= 1
            if depth >= 0:
                choice[depth] += 1
            continue
        for x in range(N):
            levels[depth + 1, x] = levels[depth, x]
        out[1] += 1
        ok = add_option(levels[depth + 1], choice[depth], edge_first, edges, N)
        if not ok:
            out[2] += 1
            choice[depth] += 1
        elif depth == T - 1:
            if out[0] < leaves.shape[0]:
                for x in range(T):
                    leaves[out[0], x] = choice[x]
                for x in range(N):
                    closures[out[0], x] = levels[depth + 1, x]
            out[0] += 1
            choice[depth] += 1
        else:
            depth += 1
            choice[depth] = opt_first[depth]
    return True


@jit(borrow=True)
def reduced_census(
    N,
    n,
    opt_first,
    opt_final,
    edge_first,
    edges,
    levels,
    reach,
    pending,
    choice,
    out,
    leaves,
    closures,
):
    """Count the realizable Garden-of-Eden-reduced t-graphs: the transitions of the states
    reachable from the all-down state only, grown from it: a state joins when a transition
    ends in it, and its transitions (index 2·S for up, 2·S + 1 for down) are then pending;
    the lowest pending transition is chosen next. Transition t has the options
    ``opt_first[t] … opt_first[t + 1] − 1`` (all its avalanches with any critical hysteron,
    scaffold inequalities included), option o ends in state ``opt_final[o]``. Work arrays:
    levels (depth + 1, N), reach, pending, choice (depth + 1), with reach[0] and pending[0]
    the start (the all-down state and its up transition: 1 and 1; every state and every
    transition: the full t-graphs without a scaffold given). out[0]: graphs, out[1]:
    branches tried, out[2]: pruned; the options of the first ``leaves.shape[0]`` graphs go
    to ``leaves`` (−1 after the last), their closed orders to ``closures``."""
    full = (1 << n) - 1
    levels[0, :] = 0
    out[0] = 0
    out[1] = 0
    out[2] = 0
    depth = 0
    t = 0
    while not (pending[0] >> t) & 1:
        t += 1
    choice[0] = opt_first[t]
    while depth >= 0:
        p = pending[depth]
        t = 0
        while not (p >> t) & 1:
            t += 1
        if choice[depth] >= opt_first[t + 1]:
            depth -= 1
            if depth >= 0:
                choice[depth] += 1
            continue
        o = choice[depth]
        for x in range(N):
            levels[depth + 1, x] = levels[depth, x]
        out[1] += 1
        if not add_option(levels[depth + 1], o, edge_first, edges, N):
            out[2] += 1
            choice[depth] += 1
            continue
        F = opt_final[o]
        r = reach[depth]
        q = p & ~(np.int64(1) << t)
        if not (r >> F) & 1:
            r |= np.int64(1) << F
            if F != full:
                q |= np.int64(1) << (2 * F)
            if F != 0:
                q |= np.int64(1) << (2 * F + 1)
        if q == 0:
            if out[0] < leaves.shape[0]:
                for x in range(leaves.shape[1]):
                    leaves[out[0], x] = choice[x] if x <= depth else -1
                for x in range(N):
                    closures[out[0], x] = levels[depth + 1, x]
            out[0] += 1
            choice[depth] += 1
            continue
        depth += 1
        reach[depth] = r
        pending[depth] = q
        t = 0
        while not (q >> t) & 1:
            t += 1
        choice[depth] = opt_first[t]
    return out[0]


def linear_extensions(below, N):
    """(hi, lo): the number hi·2^62 + lo of linear extensions of the closed order ``below``
    (N ≤ 63 elements, ``below[j]`` the bitmask of the elements below j), by dynamic
    programming over its down-sets (``tgraph_orders.count_layers``): element j may join a
    down-set that holds everything below it."""
    return count_layers(
        0, 0, 0, False, np.zeros((1, 2), np.int64), below, np.zeros(N + 1, np.int64), 2**62
    )
