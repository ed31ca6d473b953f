"""The self-loops of one system's transition graph, with the range of the drive H where
each is a cycle of the dynamics.

A self-loop is a cycle of unstable states that the dynamics at fixed H runs round forever
(its length L, the number n_e of elements that flip in it). Its field range is exact: under
rule 1 by the design inequalities of :func:`hyst.combinatorics.design.field_range`, under
rule 0 by the stability bounds of its states (:func:`rule0_range`); it is not computed for
rules 1' and 2.
"""

from __future__ import annotations

from dataclasses import dataclass

from hyst.combinatorics import design
from hyst.model.relax import StateTables
from hyst.model.systems import QUANTUM_BITS, Systems, shortest_field
from hyst.model.transition_graph import TransitionGraph


@dataclass(frozen=True)
class SelfLoop:
    """A self-loop of a transition graph: a cycle of unstable states that the dynamics at
    fixed field H runs round forever (what :meth:`hyst.System.self_loops` returns).

    Attributes
    ----------
    cycle : tuple of int
        Its states in dynamical order, starting from the smallest bitmask (bit i set
        ⇔ s_i = +1).
    L : int
        Its length, the number of states (and of element flips) of one turn.
    n_e : int
        The number of distinct elements that flip in it.
    range2 : tuple of int or None
        The open range (2 H_low, 2 H_high) of twice the field where it is a cycle of the
        dynamics, in quanta of 2**-40 field units (None: not computed for this rule);
        :meth:`field_range` gives it in field units.
    entries : tuple of (int, int, int)
        The transitions that end in it, as (source state, direction ±1, the state of the
        cycle where the avalanche enters it).
    """

    cycle: tuple[int, ...]
    L: int
    n_e: int
    range2: tuple[int, int] | None
    entries: tuple[tuple[int, int, int], ...]  # (source, direction, entry state)

    def field_range(self) -> tuple[float, float] | None:
        """(H_low, H_high), the open range of H (field units) where the self-loop is a cycle
        of the dynamics; None where it is not computed (rules 1' and 2)."""
        if self.range2 is None:
            return None
        bits = QUANTUM_BITS + 1  # the ends are multiples of half a quantum (2H is exact)
        return (shortest_field(self.range2[0], bits), shortest_field(self.range2[1], bits))


def rule0_range(systems: Systems, cycle) -> tuple[int, int] | None:
    """Open range of 2H where every state of the cycle has exactly its own element
    unstable (rule 0: a second unstable element makes the step ill-defined)."""
    tables = StateTables(systems)
    lo, hi = -(2**62), 2**62
    N = systems.N
    for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        e = (a ^ b).bit_length() - 1
        fields = tables.F[a]
        for i in range(N):
            up = 2 * int(systems.h_plus[0, i] - fields[i])
            down = 2 * int(systems.h_minus[0, i] - fields[i])
            if (a >> i) & 1:  # up element: stable iff H >= H_i^-, unstable iff H < H_i^-
                hi, lo = (min(hi, down), lo) if i == e else (hi, max(lo, down))
            else:  # down element: unstable iff H > H_i^+
                lo, hi = (max(lo, up), hi) if i == e else (lo, min(hi, up))
    return (lo, hi) if lo < hi else None


def rule1_range(systems: Systems, cycle) -> tuple[int, int] | None:
    """Open range of 2H where the cycle is a cycle of the rule-1 dynamics, from the state
    table (any couplings, direction-dependent ones included): in each state its flipping
    element e is unstable and more unstable than every other element (an equal margin
    only with a higher index). Margins are linear in 2H: an element of e's orientation
    differs from e by a constant, one of the other orientation bounds 2H."""
    tables = StateTables(systems)
    lo, hi = -(2**62), 2**62
    for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        e = (a ^ b).bit_length() - 1
        F = tables.F[a]
        # the element's threshold in its own direction: H_i^+ if down, H_i^− if up
        own = [
            int((systems.h_minus if (a >> i) & 1 else systems.h_plus)[0, i] - F[i])
            for i in range(systems.N)
        ]
        e_up = (a >> e) & 1
        if e_up:
            hi = min(hi, 2 * own[e])  # m_e = 2H_e^− − 2H > 0
        else:
            lo = max(lo, 2 * own[e])  # m_e = 2H − 2H_e^+ > 0
        for i in range(systems.N):
            if i == e:
                continue
            if ((a >> i) & 1) == e_up:  # same orientation: m_e − m_i = ±2 (own_i − own_e)
                gap = (own[i] - own[e]) if not e_up else (own[e] - own[i])
                if gap < 0 or (gap == 0 and i < e):
                    return None
            elif e_up:  # e up, i down: m_e − m_i = 2H_e^− + 2H_i^+ − 4H > 0
                hi = min(hi, own[e] + own[i])
            else:  # e down, i up: m_e − m_i = 4H − 2H_e^+ − 2H_i^− > 0
                lo = max(lo, own[e] + own[i])
    return (lo, hi) if lo < hi else None


def self_loops(graph: TransitionGraph, systems: Systems, flip_times=None) -> list[SelfLoop]:
    """Every distinct self-loop of the graph with its field range and entries (the graph's
    quantised ``flip_times`` under the flip-time rule)."""
    tables = StateTables(systems, 0, flip_times)
    out = []
    for cycle, L, n_e in graph.self_loops:
        if graph.rule == "1" and systems.directed:
            rng = rule1_range(systems, list(cycle))
        elif graph.rule == "1":
            rng = design.field_range(
                systems.h_plus[0], systems.h_minus[0], systems.couplings[0], cycle
            )
        elif graph.rule == "0":
            rng = rule0_range(systems, list(cycle))
        else:
            rng = None
        entries = []
        for t in graph.transitions:
            if t.outcome == "self_loop" and t.cycle == cycle:
                state = t.source
                while state not in cycle:
                    state, _code = tables.step(state, t.field, graph.rule)
                entries.append((t.source, t.direction, state))
        out.append(SelfLoop(tuple(cycle), L, n_e, rng, tuple(entries)))
    return out
