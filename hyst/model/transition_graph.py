"""The transition graph of one hysteron system (exact, any rule, N ≤ 18).

Nodes are the *potentially stable* states S, those with H^−(S) < H^+(S): S is
stable for H in that open range (field units). From each, two transitions:

- up:   raise H to H^+(S) + 0⁺ and relax (none when S is all up),
- down: lower H to H^−(S) − 0⁺ and relax (none when S is all down),

under the race-condition rule. A transition ends in a stable state, in a
self-loop (a cycle of unstable states at that field: its length L, the number
n_e of elements that flip in it, and its states), or, under rule 0, is
ill-defined. States with H^−(S) = H^+(S) exactly are degenerate (stable at a
single field only): they are listed, not used. Everything is exact int64
(``hyst.model.systems``); ``field_value`` and ``stability_ranges`` give field units.

>>> from hyst.model.systems import Systems
>>> g = transition_graph(Systems.from_floats([0.5, 1.0], [-0.5, 0.0], [[0, 0.2], [0.2, 0]]))
>>> [(t.source, t.direction, t.outcome, t.target) for t in g.transitions][:3]
[(0, 1, 'stable', 1), (1, 1, 'stable', 3), (1, -1, 'stable', 0)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.model.flip_times import RACE_RULE_NAMES
from hyst.model.relax import StateTables
from hyst.model.systems import INF, QUANTUM, Systems

#: Largest N whose transition graph is built (2^N states are tabulated).
GRAPH_MAX_N = 18


@dataclass(frozen=True)
class Transition:
    """One transition out of a potentially stable state: the avalanche that starts where the
    field H passes the state's threshold H^+(S) (up) or H^−(S) (down).

    Attributes
    ----------
    source : int
        The start state, a bitmask (bit i set ⇔ s_i = +1).
    direction : int
        +1 up, −1 down.
    field : tuple of int
        (Hc, eps): H = Hc + eps·0⁺, Hc in quanta of 2**-40 field units
        (:attr:`field_value` in field units).
    outcome : str
        'stable', 'self_loop' or 'ill_defined' (a race condition under rule 0).
    target : int
        The stable end state (−1 otherwise).
    flips : int
        Element flips of the avalanche.
    L : int
        The self-loop's length (0: none).
    n_e : int
        The number of elements flipping in the self-loop (0: none).
    cycle : tuple of int
        The self-loop's states in dynamical order from the smallest bitmask (() otherwise).
    race_condition : bool
        A state after the first flip had several unstable elements (the rule chose).
    tie : bool
        An exactly zero margin or equal winning margins was met (resolved by the lowest
        index).
    """

    source: int
    direction: int
    field: tuple[int, int]
    outcome: str
    target: int
    flips: int
    L: int
    n_e: int
    cycle: tuple[int, ...]
    race_condition: bool
    tie: bool

    @classmethod
    def after(cls, source: int, field: tuple[int, int], r, cycle, tie: bool) -> Transition:
        """The transition from ``source`` at ``field`` whose relaxation is ``r``.

        Parameters
        ----------
        source : int
            The start state (bitmask).
        field : tuple of int
            (Hc, eps) in quanta, eps = +1 up, −1 down.
        r : relaxation
            Its outcome, final_state, flips, L, n_e and race_condition.
        cycle : tuple of int
            The self-loop's states (() where it ended stable).
        tie : bool
            Whether a tie was met.
        """
        return cls(
            source=source,
            direction=field[1],
            field=field,
            outcome=r.outcome,
            target=r.final_state if r.outcome == "stable" else -1,
            flips=r.flips,
            L=r.L,
            n_e=r.n_e,
            cycle=cycle,
            race_condition=r.race_condition,
            tie=tie,
        )

    @property
    def field_value(self) -> float:
        """The switching field H_c in field units."""
        return self.field[0] * QUANTUM


@dataclass(frozen=True)
class TransitionGraph:
    """Potentially stable states with their exact (H^−, H^+) and all their transitions (what
    :meth:`hyst.System.transition_graph` returns).

    Attributes
    ----------
    N : int
        Number of elements.
    rule : str
        The race-condition rule ('0', '1', '1p', '2' or 'tau', the flip-time rule).
    states : tuple of int
        The potentially stable states (H^−(S) < H^+(S)), bitmasks, increasing.
    h_minus : tuple of int
        H^−(S) of each, in quanta of 2**-40 field units (:attr:`stability_ranges` in
        field units).
    h_plus : tuple of int
        H^+(S) of each, in quanta.
    transitions : tuple of Transition
        Every up and down transition out of them.
    degenerate_states : tuple of int
        States with H^−(S) = H^+(S) exactly (stable at one field only; not used).
    """

    N: int
    rule: str
    states: tuple[int, ...]
    h_minus: tuple[int, ...]
    h_plus: tuple[int, ...]
    transitions: tuple[Transition, ...]
    degenerate_states: tuple[int, ...]

    @property
    def stability_ranges(self) -> np.ndarray:
        """(H^−(S), H^+(S)) per potentially stable state, field units (±inf at saturation)."""
        out = np.array([self.h_minus, self.h_plus], dtype=float).T.reshape(-1, 2) * QUANTUM
        out[np.array(self.h_plus, dtype=np.int64).reshape(-1) >= INF, 1] = np.inf
        out[np.array(self.h_minus, dtype=np.int64).reshape(-1) <= -INF, 0] = -np.inf
        return out

    @property
    def self_loops(self) -> tuple[tuple[tuple[int, ...], int, int], ...]:
        """Distinct self-loops met: (cycle states, L, n_e), sorted."""
        loops = {(t.cycle, t.L, t.n_e) for t in self.transitions if t.outcome == "self_loop"}
        return tuple(sorted(loops))

    @property
    def ties(self) -> int:
        """Transitions that met a tie, plus degenerate states."""
        return sum(t.tie for t in self.transitions) + len(self.degenerate_states)

    def edges(self) -> list[tuple[int, int, int]]:
        """(source, target, direction) of the transitions that end in a stable state."""
        return [(t.source, t.target, t.direction) for t in self.transitions if t.target >= 0]


def check_graph_size(N: int) -> None:
    """Reject an N whose 2^N states are too many to tabulate (one line)."""
    if N > GRAPH_MAX_N:
        raise ValueError(f"N: {N} is too large for a transition graph (N <= {GRAPH_MAX_N})")


def graph_from_ranges(N: int, code: int, lower, upper, transition) -> TransitionGraph:
    """The transition graph of one system from the stability range (lower[S], upper[S]) of
    each of its 2^N states (int64 quanta, ±INF at saturation) and ``transition(S, field)``,
    the :class:`Transition` out of S at field = (Hc, eps) (eps = +1 up, −1 down)."""
    stable = np.flatnonzero(lower < upper)
    transitions = [
        transition(S, (int(edge), direction))
        for S in stable.tolist()
        for direction, edge, saturated in (
            (1, upper[S], upper[S] >= INF),
            (-1, lower[S], lower[S] <= -INF),
        )
        if not saturated
    ]
    return TransitionGraph(
        N=N,
        rule=RACE_RULE_NAMES[code],
        states=tuple(stable.tolist()),
        h_minus=tuple(int(v) for v in lower[stable]),
        h_plus=tuple(int(v) for v in upper[stable]),
        transitions=tuple(transitions),
        degenerate_states=tuple(np.flatnonzero(lower == upper).tolist()),
    )


def transition_graph(
    systems: Systems, index: int = 0, rule="1", flip_times=None
) -> TransitionGraph:
    """The transition graph of system ``index`` of ``systems`` under ``rule``; the flip-time
    rule ``"tau"`` needs the system's quantised ``flip_times`` ((N,) int64,
    :mod:`hyst.model.flip_times`)."""
    check_graph_size(systems.N)
    tables = StateTables(systems, index, flip_times)
    code = tables.code(rule)

    def transition(S, field):
        r = tables.relax(S, field, code)
        return Transition.after(S, field, r, cycle=tuple(r.cycle_states), tie=r.ties > 0)

    return graph_from_ranges(systems.N, code, tables.hminus, tables.hplus, transition)
