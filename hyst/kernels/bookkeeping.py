"""The bookkeeping of a relaxation at fixed field: one definition, inlined into every kernel
that relaxes a state (``state_table.walk``, ``relaxation.relax``, ``columns.relax``,
``mechanics.relax``).

At a fixed field (Hc, eps), meaning Hc + eps·0⁺ (or a fixed drive of a chain), a
relaxation repeats one step: it scans the current state for its unstable elements (the
rule's answer of :mod:`hyst.kernels.rules`: n_u unstable elements, the ties met) and either
stops or flips. How a kernel holds its state (a bitmask and a table of all 2^N states,
int8 spins with their local fields, the sorted keys of constant columns, a chain's phases)
and how it recognises a state it has visited before (per-state stamps, the trajectory of
bitmasks, a Zobrist hash table confirmed by flip parities) are its own; what it counts,
and when it stops, is here:

- ``verdict``: a scanned state with no unstable element ends the relaxation ``STABLE``;
  under rule 0 a race condition (n_u > 1) ends it ``ILL_DEFINED``; otherwise the rule's
  choice flips (``MOVED``) (``mechanics.step`` writes the same two tests out: called
  there, the chains ran 10 % slower);
- the record ``book`` = (steps, flips, race, ties), started by ``begin``: every scanned
  state adds its ties (``scanned``); race = 1 once a state after the first step has
  several unstable elements (the first state's own n_u is the start of the transition,
  not a race between flips it set off); every step adds one step and the elements it
  flipped (``moved``: one, or all the unstable ones under rule 2, so that steps and flips
  differ only under rule 2);
- a step that returns to a state first reached after ``earlier`` steps closes a self-loop
  (``SELF_LOOP``) of L = steps − earlier states (``loop_length``), in which n_e distinct
  elements flip (``elements_flipping``: the bits set in the XOR of consecutive states);
- ``record`` writes (flips, steps, race, ties, L, n_e), the columns
  ``codes.RELAXATION_RECORD`` that every relaxation's output row begins with.

The record is a tuple of int64 carried through the kernel's loop: inlined, it costs
nothing more than the four local variables each kernel kept before.
"""

from __future__ import annotations

import numpy as np

from hyst.kernels.codes import (
    ILL_DEFINED,
    MOVED,
    RECORD_FLIPS,
    RECORD_L,
    RECORD_N_E,
    RECORD_RACE,
    RECORD_STEPS,
    RECORD_TIES,
    RULE_0,
    STABLE,
)
from hyst.kernels.jit import jit


@jit(inline=True)
def begin(ties):
    """The record (steps, flips, race, ties) of a relaxation that has not stepped yet, with
    ``ties`` met before its first scan (0, or those of a scan its caller made)."""
    return np.int64(0), np.int64(0), np.int64(0), np.int64(ties)


@jit(inline=True)
def verdict(rule, n_u):
    """What a scanned state with n_u unstable elements does under ``rule``: ``STABLE`` (none:
    the relaxation ends), ``ILL_DEFINED`` (rule 0 with a race condition: it ends) or
    ``MOVED`` (the rule's choice flips)."""
    if n_u == 0:
        return STABLE
    if rule == RULE_0 and n_u > 1:
        return ILL_DEFINED
    return MOVED


@jit(inline=True)
def scanned(book, n_u, ties):
    """The record after the scan of the current state (n_u unstable elements, ``ties``):
    ties added, race set when a state after the first step has several unstable
    elements."""
    steps, flips, race, total = book
    if steps > 0 and n_u > 1:
        race = np.int64(1)
    return steps, flips, race, total + ties


@jit(inline=True)
def moved(book, n_flipped):
    """The record after a step that flipped ``n_flipped`` elements."""
    steps, flips, race, ties = book
    return steps + 1, flips + n_flipped, race, ties


@jit(inline=True)
def loop_length(book, earlier):
    """L of the self-loop closed by the step just made: it returned to the state first
    reached after ``earlier`` steps."""
    return book[0] - earlier


@jit(inline=True)
def elements_flipping(flip_mask):
    """n_e, the distinct elements flipping in a self-loop: the set bits of ``flip_mask``, the
    OR over the cycle of the XOR of consecutive bitmask states (bit i: element i, N ≤ 64)."""
    bits = np.uint64(flip_mask)
    n = np.int64(0)
    while bits:
        n += 1
        bits &= bits - np.uint64(1)
    return n


@jit(inline=True)
def record(out, book, L, n_e):
    """Write the record and the self-loop's L and n_e (0 unless the outcome is ``SELF_LOOP``)
    into the columns ``codes.RELAXATION_RECORD`` of the output row ``out``."""
    steps, flips, race, ties = book
    out[RECORD_FLIPS] = flips
    out[RECORD_STEPS] = steps
    out[RECORD_RACE] = race
    out[RECORD_TIES] = ties
    out[RECORD_L] = L
    out[RECORD_N_E] = n_e
