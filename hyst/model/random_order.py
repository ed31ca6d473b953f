"""Race conditions settled at random: the random-order relaxation of one system.

Under random order each unstable element is equally likely to flip next (the sequential
random updates of zero-temperature hysteresis codes): at a fixed field a relaxation is a
Markov chain over the 2^N states whose absorbing states are the stable ones. From a state
that has just become unstable at a switching field (a transition out of a potentially
stable state, as in the transition graph), the chain ends in one of several stable states,
each with a probability, or never settles: it ends in a closed set of unstable states (a
*trap*, the random-order counterpart of a self-loop) with the remaining probability.

Exactness: which states are reachable, which can still reach a stable state and so whether
a transition can be trapped at all (``trappable``) are decided exactly, by searches over
the exact integer margins. The probabilities solve the absorbing chain restricted to the
states that can still settle, (I − Q) B = R, in float64 (``numpy.linalg.solve``); they agree
with the exact rational solution of :mod:`hyst.reference.naive_races` within
``PROBABILITY_TOLERANCE``. A trap is entered with a probability below 1 in general: the
chain may leave the states that lead into it.

>>> from hyst.model.systems import Systems
>>> sy = Systems.from_floats([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
>>> a = random_order_analysis(sy)
>>> a.trappable, [round(t.trap_probability, 3) for t in a.transitions]
(True, [1.0, 0.0, 1.0, 0.0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.model.relax import StateTables
from hyst.model.systems import INF, Systems
from hyst.model.transition_graph import check_graph_size

#: Largest difference between these float64 probabilities and the exact rational ones seen
#: on the reference systems is far below this; the tests hold them to it.
PROBABILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class RandomOrderTransition:
    """The random-order relaxation of one transition out of a potentially stable state.

    Attributes
    ----------
    source : int
        The start state (bitmask, bit i set ⇔ s_i = +1).
    direction : int
        +1 (field raised to H^+(S) + 0⁺) or −1 (lowered to H^−(S) − 0⁺).
    field : tuple of int
        (Hc, eps) in quanta of 2**-40 field units.
    ends : dict
        {stable end state: probability} (float64), the states the chain can settle in.
    trap_probability : float
        The probability of never settling, 1 − Σ ends.
    trappable : bool
        Whether a state that can reach no stable state is reachable (exact): then
        ``trap_probability`` > 0.
    reachable_states : int
        States the chain can visit, the start state and the stable ends included.
    """

    source: int
    direction: int
    field: tuple[int, int]
    ends: dict
    trap_probability: float
    trappable: bool
    reachable_states: int


@dataclass(frozen=True)
class RandomOrderAnalysis:
    """Every transition of one system under random order (what
    :meth:`hyst.System.random_order` returns).

    Attributes
    ----------
    N : int
        Number of elements.
    transitions : tuple of RandomOrderTransition
        Every up and down transition out of every potentially stable state, in the order of
        the transition graph.
    """

    N: int
    transitions: tuple[RandomOrderTransition, ...]

    @property
    def trappable(self) -> bool:
        """Whether some transition can end in a trap (a closed set of unstable states)."""
        return any(t.trappable for t in self.transitions)

    @property
    def mean_trap_probability(self) -> float:
        """The trap probability averaged over the transitions (0 if there are none)."""
        if not self.transitions:
            return 0.0
        return float(np.mean([t.trap_probability for t in self.transitions]))

    @property
    def max_trap_probability(self) -> float:
        """The largest trap probability of a transition (0 if there are none)."""
        return max((t.trap_probability for t in self.transitions), default=0.0)

    @property
    def trappable_transitions(self) -> int:
        """Transitions that can end in a trap."""
        return sum(t.trappable for t in self.transitions)


def unstable_masks(tables: StateTables, up: np.ndarray, field: tuple[int, int]) -> np.ndarray:
    """The bitmask of the unstable elements of every state at ``field`` (doubled margins > 0,
    exact int64), from ``up`` (2^N, N), the spins of every state as booleans."""
    Hc, eps = field
    F = tables.F
    m = np.where(up, 2 * (tables.hm - F - Hc) - eps, 2 * (Hc - tables.hp + F) + eps)
    return (m > 0) @ (np.int64(1) << np.arange(tables.N, dtype=np.int64))


def relax_random_order(
    tables: StateTables, S: int, field: tuple[int, int], direction: int, up: np.ndarray
):
    """The :class:`RandomOrderTransition` from S at ``field`` (``up``: the spins of every
    state, :func:`unstable_masks`)."""
    masks = unstable_masks(tables, up, field)
    bits = [1 << i for i in range(tables.N)]
    moves = {}
    todo = [S]
    while todo:
        X = todo.pop()
        if X in moves:
            continue
        mask = int(masks[X])
        moves[X] = [i for i, b in enumerate(bits) if mask & b]
        todo.extend(X ^ (1 << i) for i in moves[X])
    stable = sorted(X for X, u in moves.items() if not u)
    preds = {X: [] for X in moves}
    for X, u in moves.items():
        for i in u:
            preds[X ^ (1 << i)].append(X)
    settles = set(stable)
    todo = list(stable)
    while todo:
        for X in preds[todo.pop()]:
            if X not in settles:
                settles.add(X)
                todo.append(X)
    trappable = len(settles) < len(moves)
    ends: dict[int, float] = {}
    if S in settles:
        transient = sorted(X for X in settles if moves[X])
        row = {X: k for k, X in enumerate(transient)}
        col = {X: k for k, X in enumerate(stable)}
        a = np.eye(len(transient))
        r = np.zeros((len(transient), len(stable)))
        for X in transient:
            p = 1.0 / len(moves[X])
            for i in moves[X]:
                Y = X ^ (1 << i)
                if Y in row:
                    a[row[X], row[Y]] -= p
                elif Y in col:
                    r[row[X], col[Y]] += p
        b = np.linalg.solve(a, r)[row[S]]
        ends = {X: float(b[col[X]]) for X in stable if b[col[X]] > 0}
    trap = 0.0 if not trappable else max(0.0, 1.0 - sum(ends.values()))
    return RandomOrderTransition(S, direction, field, ends, trap, trappable, len(moves))


def random_order_analysis(systems: Systems, index: int = 0) -> RandomOrderAnalysis:
    """Every transition of system ``index`` of ``systems`` under random order."""
    check_graph_size(systems.N)
    tables = StateTables(systems, index)
    up = ((np.arange(1 << systems.N)[:, None] >> np.arange(systems.N)) & 1).astype(bool)
    out = []
    for S in np.flatnonzero(tables.hminus < tables.hplus).tolist():
        for direction, edge, saturated in (
            (1, tables.hplus[S], tables.hplus[S] >= INF),
            (-1, tables.hminus[S], tables.hminus[S] <= -INF),
        ):
            if not saturated:
                field = (int(edge), direction)
                out.append(relax_random_order(tables, S, field, direction, up))
    return RandomOrderAnalysis(systems.N, tuple(out))
