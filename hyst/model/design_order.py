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


def scaffold_pairs(n: int, A: int, d: int, k: int, stable: bool) -> list:
    """The pairs (a, b), U_a > U_b, that make k the critical hysteron of state A in direction
    d (and, with ``stable``, give A a stability interval)."""
    pairs = []
    for i in range(n):
        if i == k:
            continue
        if ((A >> i) & 1) == ((A >> k) & 1):  # the critical one is the extreme of its kind
            pairs.append((A * n + i, A * n + k) if d > 0 else (A * n + k, A * n + i))
        elif stable:  # U^+ above U^-
            pairs.append((A * n + k, A * n + i) if d > 0 else (A * n + i, A * n + k))
    return pairs


def avalanche_pairs(n: int, path: tuple, outcome: str = "stable") -> list:
    """The pairs (a, b), U_a > U_b, of the avalanche ``path`` at the driving field U_k(A) of
    its first flip: in each later state the hysterons that flip next are unstable and the
    others stable; the final state (``outcome`` 'stable') is stable."""
    A = path[0]
    k = (A ^ path[1]).bit_length() - 1
    fk = A * n + k
    pairs = []

    def at_field(B, flipping):
        for i in range(n):
            # U > U_i^+(B) (down, flips) or U > U_i^-(B) (up, stays); else the reverse
            below = ((B >> i) & 1) != ((flipping >> i) & 1)
            pairs.append((fk, B * n + i) if below else (B * n + i, fk))

    for B, C in zip(path[1:-1], path[2:], strict=True):
        at_field(B, B ^ C)
    if outcome == "stable":
        at_field(path[-1], 0)
    elif outcome != "self_loop":
        raise ValueError(f"design inequalities: a transition ends in a {outcome}")
    return pairs


def _comparisons(graph: TGraph, stable: bool):
    """The pairs (a, b), U_a > U_b, of the design inequalities of ``graph``."""
    pairs = []
    for (A, d), t in graph.items():
        k = (t.path[0] ^ t.path[1]).bit_length() - 1
        pairs += scaffold_pairs(graph.n, A, d, k, stable)
        pairs += avalanche_pairs(graph.n, t.path, t.outcome)
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
