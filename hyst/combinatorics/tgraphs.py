"""All t-graphs of the general model for small n (Teunisse & van Hecke 2025, section 3):
scaffolds, candidate graphs, realizability by linear programming with a realizing set of
switching fields on the integer grid, the Garden-of-Eden-reduced graphs and their weights.

Scaffolds are counted up to relabelling the hysterons as the peer does: the up boundary of
the main loop is fixed (from the all-down state hysteron n flips first, then n − 1, …, then 1),
which picks one of the n! relabellings of every scaffold; the other (S, d) take any critical
hysteron that can flip that way. A candidate t-graph (rule 0) gives each (S, d) one avalanche
of its scaffold's tree: after the first flip, each state B can continue with its own critical
up or down flip, or stop; a path that meets a state again (a self-loop) is no candidate.

Realizability (``realize``): the design inequalities U_a > U_b become rows U_a − U_b ≥ 1 of
the elastic LP of :mod:`hyst.combinatorics.lp` (HiGHS); a solution, shifted to start at 0 and
rounded, is checked in integers against every row and then re-resolved by the kernels: the
t-graph of the fields must be the graph (and every state with a transition stable). In the
general model every inequality compares two fields, so the LP is feasible iff the order is
acyclic; the check of both answers against each other is ``tests/test_tgraphs.py``'s.

>>> len(scaffolds(2)), [count_candidates(s) for s in scaffolds(2)]
(2, [36, 81])
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from hyst.combinatorics import lp
from hyst.kernels import tgraph_orders
from hyst.model import design_order
from hyst.model.general import SwitchingFields, TGraph, Transition, goe_reduced, resolve
from hyst.model.systems import rule_code


def main_loop_up(n: int) -> dict:
    """The fixed up boundary of the main loop: {state: critical hysteron} (0-based): from
    the all-down state hysteron n − 1 flips, then n − 2, …, 0."""
    out = {}
    S = 0
    for k in range(n - 1, -1, -1):
        out[S] = k
        S |= 1 << k
    return out


def scaffold_choices(n: int) -> dict:
    """{(S, d): critical hysterons allowed} of the scaffolds up to relabelling."""
    fixed = main_loop_up(n)
    out = {}
    for S in range(1 << n):
        for d in (1, -1):
            can = [i for i in range(n) if ((S >> i) & 1) == (d < 0)]
            if can:
                out[(S, d)] = [fixed[S]] if d > 0 and S in fixed else can
    return out


def scaffolds(n: int):
    """Every scaffold {(S, d): k} up to relabelling (2 for n = 2, 96 for n = 3)."""
    choices = scaffold_choices(n)
    keys = list(choices)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*choices.values())]


def count_scaffolds(n: int) -> int:
    """The number of scaffolds up to relabelling, Π_m m^(2·C(n, m)) / n! (m: the hysterons a
    state can flip in one direction)."""
    return math.prod(m ** (2 * math.comb(n, m)) for m in range(1, n + 1)) // math.factorial(n)


def avalanches(scaffold: dict, S: int, d: int) -> list:
    """The candidate paths (state tuples) of the transition (S, d) of ``scaffold`` under
    rule 0: each state after the first flip either is the end or flips its critical up or
    down hysteron next; paths that meet a state again are left out."""
    return paths(S, d, lambda B, e: [scaffold[(B, e)]] if (B, e) in scaffold else [])


def paths(S: int, d: int, flips) -> list:
    """Every avalanche path from S in direction d that meets no state again, sorted by
    length: the first flip any of ``flips(S, d)``, then in each state B either the end or
    one of ``flips(B, +1)`` (up) and ``flips(B, −1)`` (down)."""
    out = []
    stack = [(S, S ^ (1 << k)) for k in flips(S, d)]
    while stack:
        path = stack.pop()
        B = path[-1]
        if B in path[:-1]:
            continue
        out.append(path)
        for e in (1, -1):
            stack += [path + (B ^ (1 << i),) for i in flips(B, e)]
    return sorted(out, key=lambda p: (len(p), p))


def count_candidates(scaffold: dict) -> int:
    """The number of candidate t-graphs of a scaffold: the product of its trees' sizes."""
    return math.prod(len(avalanches(scaffold, S, d)) for (S, d) in scaffold)


def candidates(scaffold: dict):
    """Every candidate t-graph of ``scaffold`` (an iterator of TGraph)."""
    keys = list(scaffold)
    trees = [avalanches(scaffold, S, d) for (S, d) in keys]
    for combo in itertools.product(*trees):
        yield TGraph(
            scaffold_n(scaffold),
            {k: Transition(p, "stable") for k, p in zip(keys, combo, strict=True)},
        )


def scaffold_n(scaffold: dict) -> int:
    """The number of hysterons of a scaffold."""
    return (max(S for S, _d in scaffold) + 1).bit_length() - 1


@dataclass(frozen=True)
class Realization:
    """A t-graph's realizability in the general model by linear programming (what
    :func:`hyst.tgraphs.realize` returns).

    Attributes
    ----------
    feasible : bool
        The LP has a point (False: a Farkas certificate says it has none, checked).
    fields : SwitchingFields or None
        Switching fields on the integer grid that realize it (None: not feasible).
    rows_hold : bool
        Every design inequality holds for them in the integers.
    reproduces : bool
        Their t-graph under rule 0 is the graph, every state with a transition stable.
    """

    feasible: bool
    fields: SwitchingFields | None
    rows_hold: bool
    reproduces: bool


def realize(graph: TGraph, stable: bool = True) -> Realization:
    """Realizability of ``graph`` by an LP on its design inequalities, with the fields."""
    order = design_order.design_order(graph, stable=stable)
    n = graph.n
    nf = n << n
    edges = np.array(list(order.edges), np.int64).reshape(-1, 2)
    strict = np.zeros((edges.shape[0], nf), np.int64)
    strict[np.arange(edges.shape[0]), edges[:, 0]] += 1
    strict[np.arange(edges.shape[0]), edges[:, 1]] -= 1
    answer = lp.solve(strict, np.zeros((0, nf), np.int64))
    if not answer.feasible:
        if not answer.ok:
            raise RuntimeError(f"realize: the LP failed: {answer.message}")
        return Realization(False, None, False, False)
    x = np.rint(answer.x - answer.x.min()).astype(np.int64)
    fields = SwitchingFields(n, x.reshape(1 << n, n))
    rows_hold = bool(np.all(strict @ x >= 1))
    return Realization(True, fields, rows_hold, reproduces(graph, fields, stable))


def reproduces(graph: TGraph, fields: SwitchingFields, stable: bool = True) -> bool:
    """Whether the t-graph of ``fields`` (rule 0) has ``graph``'s transitions (and, with
    ``stable``, a stability interval in each of their start states)."""
    got = resolve(fields, "0")
    same = all(got.get(k) == t for k, t in graph.items())
    return same and (not stable or all(fields.stable_somewhere(S) for S, _d in graph))


@dataclass
class Census:
    """The exact census of all t-graphs of n hysterons under rule 0 (the peer's numbers):
    ``realizable`` the candidates with an acyclic order, ``weights`` their linear
    extensions (total orders up to relabelling), the same for the Garden-of-Eden-reduced
    graphs (distinct ones), and with simple self-loops forbidden."""

    n: int
    scaffolds: int
    candidates: list
    realizable: int
    goe_realizable: int
    orders_total: int
    orders_well_defined: int
    orders_goe: int
    orders_total_no_simple: int
    orders_no_simple: int
    orders_goe_no_simple: int


def _weights(graphs) -> tuple[int, int, int]:
    """(realizable graphs, their linear extensions, the same with simple self-loops
    forbidden) of some t-graphs."""
    count = weight = weight_ns = 0
    for g in graphs:
        order = design_order.design_order(g)
        if design_order.realizable(order):
            count += 1
            weight += design_order.count_linear_extensions(order)
            no_simple = design_order.add_no_simple_self_loops(order, g.n)
            weight_ns += design_order.count_linear_extensions(no_simple)
    return count, weight, weight_ns


def census_by_candidates(n: int) -> Census:
    """The census by testing every candidate (the peer's method; n = 2 only in practice)."""
    all_scaffolds = scaffolds(n)
    counts = [count_candidates(s) for s in all_scaffolds]
    reduced = {}
    for s in all_scaffolds:
        for g in candidates(s):
            r = goe_reduced(g)
            reduced.setdefault(r.key(), r)
    realizable, orders, orders_ns = _weights(g for s in all_scaffolds for g in candidates(s))
    goe, goe_orders, goe_ns = _weights(reduced.values())
    total = math.factorial(n << n) // math.factorial(n)
    return Census(
        n,
        len(all_scaffolds),
        counts,
        realizable,
        goe,
        total,
        orders,
        goe_orders,
        total >> (n << (n - 1)),
        orders_ns,
        goe_ns,
    )


#: Definitions of a well-defined t-graph whose orders ``exact_orders`` counts (the first
#: three of :data:`hyst.combinatorics.tgraph_orders.DEFINITIONS`; the reachable one is global).
EXACT_DEFINITIONS = {
    "all_states_stable": tgraph_orders.ALL_STATES_STABLE,
    "all_transitions": tgraph_orders.ALL_TRANSITIONS,
    "stable_states": tgraph_orders.STABLE_STATES,
}
#: The dynamic programming over sets of fields reaches too many sets beyond this n.
EXACT_MAX_N = 3


@dataclass(frozen=True)
class OrderCount:
    """The exact count of total orders of the n·2^n switching fields that give a
    well-defined t-graph (what :func:`hyst.tgraphs.exact_share` returns).

    Attributes
    ----------
    good : int
        The orders that give a well-defined t-graph, up to relabelling the hysterons
        (divided by n!).
    total : int
        All orders, up to relabelling (with simple self-loops forbidden only the orders
        without them: divided by 2^(n·2^(n−1)) as well).
    sets : int
        The sets of fields the dynamic programming reached.
    """

    good: int
    total: int
    sets: int

    @property
    def share(self) -> float:
        """good / total."""
        return self.good / self.total


def exact_orders(
    n: int, rule="0", definition="all_states_stable", no_simple=False, scaffold=None
) -> OrderCount:
    """The exact number of total orders that give a well-defined t-graph under rule '0' or
    '2' (:mod:`hyst.kernels.tgraph_orders`), n ≤ 3; with ``scaffold`` ({(S, d): k}) only the
    orders of that scaffold (then not divided by n!: a scaffold is one labelling)."""
    if not 1 <= n <= EXACT_MAX_N:
        raise ValueError(f"n: {n} is not allowed (exact counts of total orders for 1 <= n <= 3)")
    if str(rule) not in design_order.RULES_WITH_ORDER:
        raise ValueError(f"rule: {rule!r} is not allowed (exact counts for rules 0 and 2)")
    sizes = np.zeros((n << n) + 1, np.int64)
    want = np.full((1 << n, 2), -1, np.int64)
    for (S, d), k in (scaffold or {}).items():
        want[S, 0 if d > 0 else 1] = k
    hi, lo = tgraph_orders.count_layers(
        n, rule_code(rule), EXACT_DEFINITIONS[definition], bool(no_simple), want,
        np.zeros(0, np.int64), sizes, 2**62,
    )  # fmt: skip
    relabel = 1 if scaffold else math.factorial(n)
    total = math.factorial(n << n) // relabel
    if no_simple:
        total >>= n << (n - 1)
    return OrderCount((int(hi) * 2**62 + int(lo)) // relabel, total, int(sizes.sum()))
