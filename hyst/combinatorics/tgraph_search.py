"""The exact census of realizable t-graphs by depth-first search with pruning: t-graphs are
built transition by transition and a branch is cut as soon as its design inequalities close
a cycle (:mod:`hyst.kernels.tgraph_census`). Rule 0, every state with a
transition stable somewhere (the peer's definitions).

- ``scaffold_census``: the candidates of one scaffold (the transitions with the fewest
  avalanches first); scaffolds are independent, the unit of work of the ``tgraphs`` study;
- ``graph_census(n, reduced=True)``: the Garden-of-Eden-reduced t-graphs, grown from the
  all-down state (a state joins when a transition ends in it), with any critical hysteron
  and any avalanche (``free_avalanches``): two transitions through one state that flip
  different hysterons next contradict each other's inequalities, so the scaffold's
  consistency needs no bookkeeping; ``reduced=False``: the full t-graphs the same way, a
  check of the scaffolds' total.

>>> [scaffold_census(s).graphs for s in scaffolds(2)], graph_census(2).graphs
([17, 18], 13)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from hyst.combinatorics.tgraphs import avalanches, main_loop_up, paths, scaffold_n, scaffolds
from hyst.kernels import tgraph_census
from hyst.model import design_order
from hyst.model.general import TGraph, Transition

__all__ = ["graph_census", "scaffold_census", "scaffolds"]


@dataclass(frozen=True)
class Census:
    """``graphs`` realizable t-graphs of ``candidates`` (None where not counted);
    ``branches`` tried and ``pruned`` by the search; ``kept``: the first graphs, as TGraph,
    and ``orders``: their closed design orders ((kept, N) bitmasks, ``below`` of
    :mod:`hyst.kernels.tgraph_census`)."""

    candidates: int | None
    graphs: int
    branches: int
    pruned: int
    kept: list = field(default_factory=list, repr=False)
    orders: np.ndarray | None = field(default=None, repr=False)


def _flat(options):
    """(edge_first, edges) of a list of inequality lists."""
    edge_first = np.cumsum([0] + [len(o) for o in options]).astype(np.int64)
    edges = np.array([e for o in options for e in o], np.int64).reshape(-1, 2)
    return edge_first, edges


def scaffold_census(scaffold: dict, keep: int | None = 0, pick=None) -> Census:
    """The realizable candidates of ``scaffold`` (the first ``keep`` of them kept; None:
    all, counted first; ``pick``: only those of these indices, in this order)."""
    if keep is None:
        keep = scaffold_census(scaffold).graphs
    n = scaffold_n(scaffold)
    base = [
        p for (S, d), k in scaffold.items() for p in design_order.scaffold_pairs(n, S, d, k, True)
    ]
    trees = sorted(([(key, p) for p in avalanches(scaffold, *key)] for key in scaffold), key=len)
    opt_first = np.cumsum([0] + [len(t) for t in trees]).astype(np.int64)
    options = [o for t in trees for o in t]
    edge_first, edges = _flat([design_order.avalanche_pairs(n, p) for _key, p in options])
    N = n << n
    out = np.zeros(3, np.int64)
    leaves = np.zeros((keep, len(trees)), np.int64)
    closures = np.zeros((keep, N), np.int64)
    ok = tgraph_census.census(
        N, np.array(base, np.int64).reshape(-1, 2), opt_first, edge_first, edges,
        np.zeros((len(trees) + 1, N), np.int64), np.zeros(len(trees), np.int64), out, leaves,
        closures,
    )  # fmt: skip
    found = int(out[0]) if ok else 0
    rows = np.arange(min(keep, found)) if pick is None else np.asarray(pick, np.int64)
    kept = [
        TGraph(n, {options[o][0]: Transition(options[o][1], "stable") for o in leaves[r]})
        for r in rows
    ]
    found_kept = closures[rows]
    return Census(
        math.prod(len(t) for t in trees), found, int(out[1]), int(out[2]), kept, found_kept
    )


def free_avalanches(n: int, S: int, d: int) -> list:
    """Every rule-0 avalanche path of the transition (S, d) with any critical hysteron and any
    next flip (the up flips of the main loop's fixed boundary excepted), without a state met
    again."""
    fixed = main_loop_up(n)

    def flips(B, direction):
        if direction > 0 and B in fixed:
            return [fixed[B]]
        return [i for i in range(n) if ((B >> i) & 1) == (direction < 0)]

    return paths(S, d, flips)


def graph_census(n: int, reduced: bool = True, keep: int | None = 0) -> Census:
    """The realizable Garden-of-Eden-reduced t-graphs of n hysterons (distinct reduced
    graphs, as the peer counts 13 for n = 2), or with ``reduced`` False the full ones (the
    first ``keep`` kept; None: all, counted first)."""
    if keep is None:
        keep = graph_census(n, reduced).graphs
    opt_first, finals, options, keys = [0], [], [], []
    for S in range(1 << n):
        for d in (1, -1):
            can = (S != (1 << n) - 1 or d < 0) and (S != 0 or d > 0)
            paths = free_avalanches(n, S, d) if can else []
            for p in paths:
                k = (p[0] ^ p[1]).bit_length() - 1
                pairs = design_order.scaffold_pairs(n, S, d, k, True)
                options.append(pairs + design_order.avalanche_pairs(n, p))
                finals.append(p[-1])
                keys.append(((S, d), p))
            opt_first.append(opt_first[-1] + len(paths))
    edge_first, edges = _flat(options)
    N = n << n
    depth = 2 << n
    out = np.zeros(3, np.int64)
    reach, pending = np.zeros(depth + 1, np.int64), np.zeros(depth + 1, np.int64)
    reach[0] = 1 if reduced else (1 << (1 << n)) - 1
    # every transition but the all-up state's up and the all-down state's down ones
    pending[0] = 1 if reduced else ((1 << depth) - 1) & ~(1 << (depth - 2)) & ~2
    leaves = np.full((keep, depth), -1, np.int64)
    closures = np.zeros((keep, N), np.int64)
    tgraph_census.reduced_census(
        N, n, np.array(opt_first, np.int64), np.array(finals, np.int64), edge_first, edges,
        np.zeros((depth + 1, N), np.int64), reach, pending, np.zeros(depth + 1, np.int64), out,
        leaves, closures,
    )  # fmt: skip
    kept = [
        TGraph(n, {keys[o][0]: Transition(keys[o][1], "stable") for o in row if o >= 0})
        for row in leaves[: min(keep, int(out[0]))]
    ]
    return Census(None, int(out[0]), int(out[1]), int(out[2]), kept, closures[: len(kept)])


def linear_extensions(orders: np.ndarray, no_simple: bool = False) -> list[int]:
    """The linear extensions (total orders) of each closed design order (rows of bitmasks,
    as ``Census.orders``), with simple self-loops forbidden if asked (U_i^+(S) >
    U_i^−(S + i) added; 0 where that closes a cycle): each a graph's statistical weight."""
    out = []
    for row in np.asarray(orders, np.int64):
        below = row.copy()
        N = below.shape[0]
        n = next(m for m in range(1, 7) if m << m == N)
        ok = True
        for S in range(1 << n) if no_simple else ():
            for i in range(n):
                if ok and not (S >> i) & 1:
                    ok = tgraph_census.add_edge(below, S * n + i, (S | 1 << i) * n + i, N)
        if not ok:
            out.append(0)
            continue
        hi, lo = tgraph_census.linear_extensions(np.ascontiguousarray(below), N)
        out.append(int(hi) * 2**62 + int(lo))
    return out
