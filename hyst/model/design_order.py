"""Design inequalities of a general-model t-graph as a partial order on its switching fields,
and the number of total orders (linear extensions) that realize it: the graph's statistical
weight (Teunisse & van Hecke 2025, sections 2 and 4).

A t-graph (:class:`hyst.model.general.TGraph`) occurs for a set of switching fields iff a set
of strict comparisons U_a > U_b between its fields holds (field f = S·n + i names U_i^±(S)):

- scaffold: the critical hysteron k of each transition's start state A is the extreme one
  (U_i^+(A) > U_k^+(A) for the other down hysterons i of an up transition, U_k^−(A) > U_i^−(A)
  for the other up ones of a down transition);
- stability (``stable=True``, the peer's choice): A has a stability interval, max U^−(A) <
  min U^+(A), for every state that has a transition in the graph;
- at the driving field U = U_k^±(A) (held fixed), in each intermediate state B the hysterons
  that flip next (one under rule 0, all the unstable ones under rule 2) are unstable and all
  others are stable: U > U_i^+(B) or U_i^+(B) > U, U_i^−(B) > U or U > U_i^−(B);
- the final state of a transition that is no self-loop is stable at U.

These are the inequalities of the peer code's ``make_design_inequalities`` (rule 0, no
race resolution): re-derived here from the definitions, for rules 0 and 2, where the outcome
depends only on the order of the fields. Under rules 1 and 1′ a race between an up and a down
flip compares the margins U − U_i^+(B) and U_j^−(B) − U, a sum of fields and not an order:
those t-graphs have no partial order (``ValueError``).

The order is a networkx DiGraph on the fields with an edge a → b for U_a > U_b; a t-graph is
realizable in the general model iff it is acyclic (``realizable``). Its transitive closure
and reduction are networkx's. ``count_linear_extensions`` counts total orders by dynamic
programming over the down-sets (Peczarski's method, as the peer).

>>> from hyst.model.general import SwitchingFields, resolve
>>> g = resolve(SwitchingFields.from_rows(2, {"00": [7, 6], "01": [4, 2], "10": [3, 8],
...                                          "11": [1, 5]}))
>>> order = design_order(g)
>>> realizable(order), count_linear_extensions(order)
(True, 18)
"""

from __future__ import annotations

import networkx as nx

from hyst.model.general import TGraph

RULES_WITH_ORDER = ("0", "2")


def _comparisons(graph: TGraph, stable: bool):
    """The pairs (a, b), U_a > U_b, of the design inequalities of ``graph``."""
    n = graph.n
    pairs = []
    f = lambda S, i: S * n + i  # noqa: E731 - the field index of U_i(S)

    def at_field(B, A, k, d, flipping):
        # every hysteron of B at U = U_k(A): flipping ones unstable, the others stable
        for i in range(n):
            up = (B >> i) & 1
            unstable = (flipping >> i) & 1
            if up != unstable:  # U > U_i^+(B) (down, flips) or U > U_i^-(B) (up, stays)
                pairs.append((f(A, k), f(B, i)))
            else:
                pairs.append((f(B, i), f(A, k)))

    for (A, d), t in graph.items():
        k = (t.path[0] ^ t.path[1]).bit_length() - 1
        for i in range(n):
            if i == k:
                continue
            same = ((A >> i) & 1) == ((A >> k) & 1)
            if same:  # the critical one is the extreme of its kind
                pairs.append((f(A, i), f(A, k)) if d > 0 else (f(A, k), f(A, i)))
            elif stable:  # A has a stability interval: U^+ above U^-
                pairs.append((f(A, k), f(A, i)) if d > 0 else (f(A, i), f(A, k)))
        for B, C in zip(t.path[1:-1], t.path[2:], strict=True):
            at_field(B, A, k, d, B ^ C)
        if t.outcome == "stable":
            at_field(t.path[-1], A, k, d, 0)
        elif t.outcome != "self_loop":
            raise ValueError(f"design inequalities: a transition ends in a {t.outcome}")
    return pairs


def design_order(graph: TGraph, stable: bool = True, rule: str = "0") -> nx.DiGraph:
    """The design inequalities of ``graph`` under ``rule`` ('0' or '2'): a DiGraph on the
    n·2^n fields (all of them nodes) with an edge a → b for each U_a > U_b (not closed; a
    cycle means the graph cannot occur). ``stable``: ask every state with a transition in
    the graph for a stability interval (the peer's definition)."""
    if str(rule) not in RULES_WITH_ORDER:
        raise ValueError(
            f"rule: {rule!r} has no design partial order (races between up and down flips "
            f"compare sums of fields); rules with one: {', '.join(RULES_WITH_ORDER)}"
        )
    for t in graph.values():
        steps = [(a ^ b).bit_count() for a, b in zip(t.path, t.path[1:], strict=False)]
        if str(rule) == "0" and max(steps, default=1) > 1:
            raise ValueError("design inequalities: rule 0 flips one hysteron at a time")
    order = nx.DiGraph()
    order.add_nodes_from(range(graph.n << graph.n))
    order.add_edges_from(_comparisons(graph, stable))
    return order


def add_no_simple_self_loops(order: nx.DiGraph, n: int) -> nx.DiGraph:
    """``order`` with simple self-loops forbidden: U_i^+(S) > U_i^−(S + i) for every state S
    with s_i = 0 (after an up flip of i, i does not flip straight back; n·2^(n−1) pairs)."""
    out = order.copy()
    for S in range(1 << n):
        for i in range(n):
            if not (S >> i) & 1:
                out.add_edge(S * n + i, (S | 1 << i) * n + i)
    return out


def realizable(order: nx.DiGraph) -> bool:
    """Whether the design inequalities have a solution: the order is acyclic."""
    return nx.is_directed_acyclic_graph(order)


def closure(order: nx.DiGraph) -> nx.DiGraph:
    """The transitive closure (every implied U_a > U_b) of an acyclic order."""
    return nx.transitive_closure_dag(order)


def reduction(order: nx.DiGraph) -> nx.DiGraph:
    """The transitive reduction (the fewest inequalities with the same closure): the
    minimal list of design inequalities."""
    return nx.transitive_reduction(order)


def count_linear_extensions(order: nx.DiGraph) -> int:
    """The number of total orders of the fields that satisfy ``order`` (0 if it has a
    cycle), exactly (Python integers): dynamic programming over the down-sets, growing each
    from the bottom by an element whose lower elements are all in it."""
    if not realizable(order):
        return 0
    nodes = list(order.nodes)
    index = {v: j for j, v in enumerate(nodes)}
    below = [0] * len(nodes)  # bitmask of the elements that must lie below each
    for a, b in order.edges:
        below[index[a]] |= 1 << index[b]
    counts = {0: 1}
    for _ in nodes:
        grown: dict = {}
        for ideal, c in counts.items():
            for j in range(len(nodes)):
                if not (ideal >> j) & 1 and below[j] & ~ideal == 0:
                    key = ideal | 1 << j
                    grown[key] = grown.get(key, 0) + c
        counts = grown
    return sum(counts.values())
