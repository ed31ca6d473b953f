"""The general hysteron model of Teunisse & van Hecke (R. Soc. Open Sci. 2025, "Transition
graphs of interacting hysterons"): switching fields per state, scaffold, avalanches under
rules 0, 1, 1′ and 2, the transition graph (t-graph), and the pairwise model as a special case.

n hysterons s_i ∈ {0, 1}; a state S is a bitmask (bit i set ⇔ s_i = 1, hysteron i + 1 of
the paper). Each state has its own n switching fields: U_i^+(S) for a down hysteron (it flips
up once the driving field U exceeds it), U_i^−(S) for an up one (it flips down once U falls
below it); n·2^n numbers in all, held as the int64 array ``values[S, i]`` (field units of the
caller's choosing: only comparisons and the margins of :mod:`hyst.kernels.tgraphs` are used).
Field f = S·n + i names U_i^±(S) in design inequalities (:mod:`hyst.model.design_order`).

A transition from S in direction d = +1 (up) or −1 (down) starts with the scaffold's flip, the
critical hysteron (lowest U^+(S), highest U^−(S)), at U = U_k^±(S) held fixed; then the
avalanche runs by the rule until a stable state, a self-loop (a state met again) or, under
rule 0, a race condition (see :mod:`hyst.kernels.tgraphs`). The t-graph is the set of these
transitions for every state and direction. It is *well defined* when every transition ends in
a stable state; the peer's count of well-defined parameter space also asks every state to have
a stability interval (``all_states_stable``).

The pairwise model of hyst (s = ±1, thresholds h_i^± − Σ_j c_ij s_j) is the special case
``from_pairwise``: its t-graph is the one the state tables give for the same system.

>>> f = SwitchingFields.from_rows(2, {"00": [7, 6], "01": [4, 2], "10": [3, 8], "11": [1, 5]})
>>> g = resolve(f, rule="0")
>>> g.well_defined, f.all_states_stable()
(True, True)
>>> [(label(S, 2), "+" if d > 0 else "-", t.flips) for (S, d), t in sorted(g.items())]
... # doctest: +NORMALIZE_WHITESPACE
[('00', '+', (2, 1)), ('10', '-', (1,)), ('10', '+', (2,)), ('01', '-', (2,)),
 ('01', '+', (1, 2)), ('11', '-', (2,))]

(flips are hysteron numbers 1 … n: from 00 hysteron 2 flips up, then 1, into 11.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.kernels import tgraphs as kernels
from hyst.kernels.codes import ILL_DEFINED, SELF_LOOP, STABLE
from hyst.model.systems import rule_code

OUTCOMES = {STABLE: "stable", SELF_LOOP: "self_loop", ILL_DEFINED: "race", -1: "none"}


def label(S: int, n: int) -> str:
    """The paper's label of state S: s_1 s_2 … s_n (e.g. '01': hysteron 2 up)."""
    return "".join(str((S >> i) & 1) for i in range(n))


def parse_label(text: str) -> int:
    """The state of a label s_1 … s_n ('01' → 2)."""
    if not text or set(text) - {"0", "1"}:
        raise ValueError(f"state: {text!r} is not a string of 0s and 1s")
    return sum(1 << i for i, c in enumerate(text) if c == "1")


def field_label(f: int, n: int) -> str:
    """The name of field f = S·n + i: U_{i+1}^±(s_1 … s_n)."""
    S, i = divmod(f, n)
    return f"U_{i + 1}^{'-' if (S >> i) & 1 else '+'}({label(S, n)})"


@dataclass(frozen=True)
class SwitchingFields:
    """The n·2^n switching fields of one general-model system.

    Attributes
    ----------
    n : int
        Number of hysterons.
    values : numpy.ndarray
        int64, shape (2^n, n): ``values[S, i]`` is U_{i+1}^+(S) where hysteron i + 1 is
        down in state S (bit i of S clear), U_{i+1}^−(S) where it is up (any units).
    """

    n: int
    values: np.ndarray

    def __post_init__(self):
        v = np.ascontiguousarray(self.values, dtype=np.int64)
        if v.shape != (1 << self.n, self.n):
            raise ValueError(f"switching fields: shape {v.shape}, expected {(1 << self.n, self.n)}")
        object.__setattr__(self, "values", v)

    @classmethod
    def from_rows(cls, n: int, rows: dict) -> SwitchingFields:
        """From one row of fields per state.

        Parameters
        ----------
        n : int
            Number of hysterons.
        rows : dict
            {label s_1 … s_n (0 down, 1 up): [U_1(S), …, U_n(S)]} for every state.
        """
        values = np.zeros((1 << n, n), np.int64)
        seen = set()
        for text, row in rows.items():
            S = parse_label(text)
            if len(text) != n or len(row) != n:
                raise ValueError(f"switching fields: state {text!r} needs {n} labels and fields")
            values[S] = row
            seen.add(S)
        if len(seen) != 1 << n:
            raise ValueError(f"switching fields: {len(seen)} states given, {1 << n} needed")
        return cls(n, values)

    @classmethod
    def from_order(cls, n: int, order) -> SwitchingFields:
        """The fields of a total order: U_f is the rank 1 … n·2^n of field f.

        Parameters
        ----------
        n : int
            Number of hysterons.
        order : sequence of int
            The field indices f = S·n + i from the lowest field to the highest.
        """
        values = np.zeros(n << n, np.int64)
        values[np.asarray(order, np.int64)] = np.arange(1, (n << n) + 1)
        return cls(n, values.reshape(1 << n, n))

    @classmethod
    def from_pairwise(cls, h_plus, h_minus, couplings, couplings_minus=None) -> SwitchingFields:
        """The pairwise model as a general one: U_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j with
        s_j = ±1 (hyst's convention), exactly in int64 (the parameters' units); with
        ``couplings_minus``, direction-dependent couplings: U_i^+ with c^+ = ``couplings``,
        U_i^− with c^− = ``couplings_minus``.

        Parameters
        ----------
        h_plus : array_like of int
            Bare up thresholds h_i^+, n numbers.
        h_minus : array_like of int
            Bare down thresholds h_i^−, n numbers.
        couplings : array_like of int
            Couplings c_ij, n × n (the diagonal is ignored).
        couplings_minus : array_like of int, optional
            c^−_ij of the down thresholds, n × n (default: ``couplings``).
        """
        hp = np.asarray(h_plus, np.int64)
        hm = np.asarray(h_minus, np.int64)
        c = np.asarray(couplings, np.int64)
        cm = c if couplings_minus is None else np.asarray(couplings_minus, np.int64)
        n = hp.shape[0]
        c = c - np.diag(np.diag(c))
        cm = cm - np.diag(np.diag(cm))
        S = np.arange(1 << n)
        bits = (S[:, None] >> np.arange(n)[None, :]) & 1
        spins = 2 * bits - 1
        local = spins @ c.T  # local[S, i] = Σ_j c_ij s_j
        local_minus = spins @ cm.T
        return cls(n, np.where(bits == 1, hm[None, :] - local_minus, hp[None, :] - local))

    def stable_somewhere(self, S: int) -> bool:
        """Whether a state has a stability interval, max U^−(S) < min U^+(S).

        Parameters
        ----------
        S : int
            The state (bitmask, bit i set ⇔ hysteron i + 1 up).
        """
        return bool(kernels.stable_somewhere(self.values, self.n, S))

    def all_states_stable(self) -> bool:
        """Whether every state has a stability interval."""
        return all(self.stable_somewhere(S) for S in range(1 << self.n))

    def scaffold(self) -> dict:
        """{(S, d): k}: the critical hysteron (0-based) of each state and direction it can
        flip in; ``ValueError`` on equal critical fields (a marginal scaffold)."""
        out = {}
        for S in range(1 << self.n):
            for d in (1, -1):
                k, tie = kernels.critical(self.values, self.n, S, d)
                if tie:
                    raise ValueError(f"switching fields: marginal scaffold at {label(S, self.n)}")
                if k >= 0:
                    out[(S, d)] = int(k)
        return out


@dataclass(frozen=True)
class Transition:
    """One transition: ``path`` the states visited from ``path[0]`` (the last is the state
    met again after a self-loop), ``outcome`` 'stable', 'self_loop' or 'race' (rule 0)."""

    path: tuple
    outcome: str

    @property
    def flips(self) -> tuple:
        """Hysteron numbers (1 … n) flipped at each step; a step of several flips (rule 2)
        is a tuple of them."""
        out = []
        for a, b in zip(self.path, self.path[1:], strict=False):
            x = a ^ b
            ones = tuple(i + 1 for i in range(x.bit_length()) if (x >> i) & 1)
            out.append(ones[0] if len(ones) == 1 else ones)
        return tuple(out)

    @property
    def final(self) -> int:
        """The state the transition ends in (stable outcome only)."""
        return self.path[-1]


class TGraph(dict):
    """The t-graph: {(S, d): Transition} for each state S and direction d = ±1 it can flip
    in (absent keys: transitions removed, e.g. by ``goe_reduced``).

    Parameters
    ----------
    n : int
        Number of hysterons.
    transitions : mapping or iterable of pairs, default ()
        {(S, d): Transition}: ``Transition.path`` the states visited from S (the last the
        state met again after a self-loop), ``Transition.outcome`` 'stable', 'self_loop'
        or 'race' (rule 0).
    """

    def __init__(self, n: int, transitions=()):
        super().__init__(transitions)
        self.n = n

    @property
    def well_defined(self) -> bool:
        """Every transition ends in a stable state."""
        return all(t.outcome == "stable" for t in self.values())

    def key(self) -> tuple:
        """A hashable identity: the sorted (S, d, path) of every transition."""
        return tuple(sorted((S, d, t.path) for (S, d), t in self.items()))

    def edges(self) -> list:
        """(S, final state) of the well-defined transitions."""
        return [(S, t.final) for (S, _d), t in self.items() if t.outcome == "stable"]


def resolve(fields: SwitchingFields, rule="0") -> TGraph:
    """The t-graph of ``fields`` under ``rule`` ('0', '1', '1p', '2'): every state's up and
    down transition, its avalanche resolved by the rule, self-loops detected exactly."""
    n = fields.n
    ns = 1 << n
    outcome = np.empty((ns, 2), np.int64)
    states = np.empty((ns, 2), np.int64)
    paths = np.empty((ns, 2, ns + 1), np.int64)
    kernels.tgraph(
        fields.values, n, rule_code(rule), outcome, states, paths, np.empty(ns, np.int64)
    )
    graph = TGraph(n)
    for S in range(ns):
        for e, d in enumerate((1, -1)):
            if outcome[S, e] >= 0:
                path = tuple(int(x) for x in paths[S, e, : states[S, e]])
                graph[(S, d)] = Transition(path, OUTCOMES[int(outcome[S, e])])
    return graph


def goe_reduced(graph: TGraph) -> TGraph:
    """The t-graph without its Garden-of-Eden states: only the transitions of the states
    reachable from the all-down state (itself included) along well-defined transitions
    (networkx descendants, as ``remove_goe`` of hysteron-tgraphs).

    Parameters
    ----------
    graph : TGraph
        The t-graph.
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_node(0)
    g.add_edges_from(graph.edges())
    keep = nx.descendants(g, 0) | {0}
    return TGraph(graph.n, {(S, d): t for (S, d), t in graph.items() if S in keep})


def order_columns() -> tuple:
    """The columns of ``order_statistics`` (names of :data:`hyst.kernels.tgraphs.ORDER_COLUMNS`)."""
    return kernels.ORDER_COLUMNS


def order_statistics(values: np.ndarray, n: int, rule="0") -> np.ndarray:
    """``kernels.ORDER_COLUMNS`` of each set of switching fields values[k] (m, 2^n, n): the
    counts from which every share of well-defined parameter space is read."""
    v = np.ascontiguousarray(values, np.int64)
    ns = 1 << n
    out = np.zeros((v.shape[0], len(kernels.ORDER_COLUMNS)), np.int64)
    kernels.order_batch(
        v,
        n,
        rule_code(rule),
        out,
        np.empty((ns, 2), np.int64),
        np.empty((ns, 2), np.int64),
        np.empty((ns, 2, ns + 1), np.int64),
        np.empty(ns, np.int64),
        np.empty(ns, np.int64),
    )
    return out
