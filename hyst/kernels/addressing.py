"""Addressability: the stable states a system can be put in from saturation, exactly, for
one system of at most 64 elements (states are bitmasks: bit i set where s_i = +1).

- *one drive cycle* (the protocol of designed multistable materials): from all −1 at
  H = −∞, H goes up to a turning field H1 (reached at H1 + 0⁺), then down to a second
  turning field H2 ≤ H1 (reached at H2 − 0⁺), and the stable state is read there. Only the
  switching fields matter, so the set over all pairs (H1, H2) is finite: the up branch from
  saturation passes through the stable states S_0 = all −1, S_1, …, S_K (S_k for H1 from
  the k-th switching event up to the next), and from each S_k the down branch passes
  through S_k and the states after its own switching events. The addressable set is the
  union of these down branches (``one_cycle``). A transition met on the way that does not
  end stable (a self-loop; a race condition under rule 0) ends its branch: no cycle
  through it ends in a stable state, and it is counted.
- *any field history*: the states reachable from all −1 in the transition graph (t-graph)
  of the stable states, each with its up transition (at H^+(S) + 0⁺) and its down
  transition (at H^−(S) − 0⁺) (``reachable``): a search over bitmasks, for N ≤
  ``REACHABLE_MAX_N``.

Every transition is the event-driven relaxation of :mod:`hyst.kernels.relaxation` under the
rule (ties included), on the exact int64 grid of :mod:`hyst.model.systems`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from hyst.kernels.codes import RECORD_TIES, STABLE
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.relaxation import (
    init_fields,
    next_switch,
    relax_event,
    system_state,
    transpose_buffer,
    up_mask,
    view_of,
)

#: Largest N of the addressable set (a state is an int64 bitmask).
ADDRESSABLE_MAX_N = 64
#: Largest N of the reachable set (a search over the 2^N states, one byte each).
REACHABLE_MAX_N = 24

#: Per system (``address_batch``): one int64 row.
ADDRESS_COLUMNS = (
    "addressable",  # distinct stable states at the end of one drive cycle from saturation
    "branch_states",  # stable states on the up branch from saturation (S_0 … S_K)
    "up_stopped",  # the up branch ended at a self-loop (1) or a race condition (2); 0: no
    "down_stopped",  # down branches (from S_0 … S_K) ended by a self-loop or race condition
    "reachable",  # stable states reachable from saturation by any field history (−1: N too large)
    "reachable_stopped",  # transitions out of reachable states that do not end stable
    "ties",  # tied switching fields and ties inside the relaxations of the one-cycle drives
)
(
    AD_ADDRESSABLE,
    AD_BRANCH_STATES,
    AD_UP_STOPPED,
    AD_DOWN_STOPPED,
    AD_REACHABLE,
    AD_REACHABLE_STOPPED,
    AD_TIES,
) = range(len(ADDRESS_COLUMNS))


@jit
def bitmask(s):
    """The state s (int8 ±1) as a bitmask: bit i set where s_i = +1."""
    m = np.int64(0)
    for i in range(s.shape[0]):
        if s[i] > 0:
            m |= np.int64(1) << np.int64(i)
    return m


@jit
def set_state(mask, v, s, neg, f):
    """Spins (s, neg, f) of the ``SystemView`` v set to the bitmask ``mask``."""
    for i in range(s.shape[0]):
        s[i] = 1 if (mask >> np.int64(i)) & np.int64(1) else -1
    up_mask(s, neg)
    init_fields(s, f, v.form, v.ct, v.d)


@jit
def _push(found, n, mask):
    """found[n] = mask, the array grown when full; returns (found, n + 1)."""
    if n >= found.shape[0]:
        grown = np.empty(2 * found.shape[0], np.int64)
        grown[:n] = found[:n]
        found = grown
    found[n] = mask
    return found, n + 1


@jit
def _event(s, neg, f, v, direction, rule, ws, res, count):
    """The next switching event of the state in ``direction``: (outcome, happened);
    count[0] += ties. happened is False where no element can switch that way."""
    Hc, crit, tie = next_switch(neg, f, v.h_plus, v.h_minus, direction)
    if crit < 0:
        return STABLE, False
    oc = relax_event(
        -1 if tie else crit,
        s,
        neg,
        f,
        Hc,
        direction,
        rule,
        v.h_plus,
        v.h_minus,
        v.form,
        v.ct,
        v.d,
        ws,
        res,
    )
    count[0] += tie + res[RECORD_TIES]
    return oc, True


@jit
def one_cycle(v, rule, out):
    """The states addressable in one drive cycle from saturation (module docstring) of the
    ``SystemView`` v: returns their sorted distinct bitmasks and fills out[AD_BRANCH_STATES,
    AD_UP_STOPPED, AD_DOWN_STOPPED, AD_TIES, AD_ADDRESSABLE]."""
    N = v.h_plus.shape[0]
    s, neg, f, res, ws = system_state(N)
    ds, dneg, df = np.empty(N, np.int8), np.empty(N, np.int64), np.empty(N, np.int64)
    count = np.zeros(1, np.int64)
    for i in range(N):
        s[i] = -1
    up_mask(s, neg)
    init_fields(s, f, v.form, v.ct, v.d)
    found = np.empty(64, np.int64)
    n = 0
    branch = 0
    up_stopped = 0
    down_stopped = 0
    while True:
        branch += 1  # S_k is stable: its down branch, on a copy
        for i in range(N):
            ds[i] = s[i]
            dneg[i] = neg[i]
            df[i] = f[i]
        found, n = _push(found, n, bitmask(ds))
        while True:
            oc, happened = _event(ds, dneg, df, v, -1, rule, ws, res, count)
            if not happened:
                break
            if oc != STABLE:
                down_stopped += 1
                break
            found, n = _push(found, n, bitmask(ds))
        oc, happened = _event(s, neg, f, v, 1, rule, ws, res, count)
        if not happened:
            break
        if oc != STABLE:
            up_stopped = oc
            break
    states = np.unique(found[:n])
    out[AD_ADDRESSABLE] = states.shape[0]
    out[AD_BRANCH_STATES] = branch
    out[AD_UP_STOPPED] = up_stopped
    out[AD_DOWN_STOPPED] = down_stopped
    out[AD_TIES] = count[0]
    return states


@jit
def reachable(v, rule, out):
    """The stable states reachable from all −1 by any field history: a breadth-first search
    of the t-graph of the ``SystemView`` v (N ≤ ``REACHABLE_MAX_N``). Returns their sorted
    bitmasks; out[AD_REACHABLE] = their number, out[AD_REACHABLE_STOPPED] = the transitions
    out of them that do not end stable."""
    N = v.h_plus.shape[0]
    s, neg, f, res, ws = system_state(N)
    count = np.zeros(1, np.int64)
    seen = np.zeros(np.int64(1) << np.int64(N), np.bool_)
    queue = np.empty(64, np.int64)
    queue[0] = 0
    seen[0] = True
    n = 1
    head = 0
    stopped = 0
    while head < n:
        mask = queue[head]
        head += 1
        for direction in (1, -1):
            set_state(mask, v, s, neg, f)
            oc, happened = _event(s, neg, f, v, direction, rule, ws, res, count)
            if not happened:
                continue
            if oc != STABLE:
                stopped += 1
                continue
            m = bitmask(s)
            if not seen[m]:
                seen[m] = True
                queue, n = _push(queue, n, m)
    out[AD_REACHABLE] = n
    out[AD_REACHABLE_STOPPED] = stopped
    return np.sort(queue[:n])


@jit
def address_one(k, systems, rule, with_reachable, out):
    """System k of ``address_batch``."""
    N = systems.h_plus.shape[1]
    v = view_of(k, systems, transpose_buffer(systems.form, N))
    o = out[k]
    one_cycle(v, rule, o)
    o[AD_REACHABLE] = -1
    o[AD_REACHABLE_STOPPED] = -1
    if with_reachable and N <= REACHABLE_MAX_N:
        reachable(v, rule, o)


@batch_kernel
def address_batch(systems, rule, with_reachable, out):
    """Addressability of each system of a batch (``operands.SystemBatch``, N ≤ 64): out[k] =
    ``ADDRESS_COLUMNS`` (the states addressable in one drive cycle from saturation and, with
    ``with_reachable`` and N ≤ ``REACHABLE_MAX_N``, those reachable by any field history)."""
    for k in prange(systems.h_plus.shape[0]):
        address_one(np.int64(k), systems, rule, with_reachable, out)
