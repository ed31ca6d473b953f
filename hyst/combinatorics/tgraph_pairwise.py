"""Pairwise hysterons in the terms of the general model: which general-model
t-graphs pairwise interacting hysterons realize, with their parameters.

The pairwise model (hyst's, :mod:`hyst.model.systems`) has thresholds
U_i^±(S) = h_i^± − Σ_{j≠i} c_ij s_j with s_j = ±1: 2n + n(n − 1) parameters instead of the
general model's n·2^n fields (:meth:`hyst.model.general.SwitchingFields.from_pairwise`).
``to_pairwise`` reads the parameters back from switching fields that have this form.

A t-graph is pairwise realizable iff its design inequalities U_a > U_b, written in the
parameters, have a solution: an LP (the elastic form of :mod:`hyst.combinatorics.lp`, HiGHS;
an infeasible answer carries a checked Farkas certificate). A solution, scaled to the integer
grid (``GRID_SCALE`` quanta per unit of the smallest margin) and rounded, is checked in
integers against every inequality and by resolving its t-graph again (rule 0), as
:mod:`hyst.combinatorics.realize` does for self-loops.

>>> from hyst.combinatorics import tgraphs
>>> graphs = [g for s in tgraphs.scaffolds(2) for g in tgraphs.candidates(s)
...           if tgraphs.realize(g).feasible]
>>> sum(pairwise_realize(g).feasible for g in graphs), len(graphs)
(29, 35)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.combinatorics import lp
from hyst.combinatorics.tgraphs import reproduces
from hyst.model import design_order
from hyst.model.general import SwitchingFields, TGraph

#: Quanta per unit margin of the LP point on the integer grid.
GRID_SCALE = 2**20


def parameter_names(n: int, directed: bool = False) -> list[str]:
    """The LP's columns: h_1^+ … h_n^+, h_1^− … h_n^−, then c_ij (i ≠ j) row by row; with
    direction-dependent couplings (``directed``) c^+_ij row by row, then c^−_ij."""
    pairs = [f"c_{i + 1}{j + 1}" for i in range(n) for j in range(n) if i != j]
    if directed:
        pairs = [f"{c}^+" for c in pairs] + [f"{c}^-" for c in pairs]
    return [f"h_{i + 1}^+" for i in range(n)] + [f"h_{i + 1}^-" for i in range(n)] + pairs


def field_rows(n: int, directed: bool = False) -> np.ndarray:
    """(n·2^n, columns) int64: field f = S·n + i as a linear form of the parameters (an up
    element's field is its down threshold, with c^− where ``directed``; a down element's
    its up threshold, with c^+)."""
    cols = {name: k for k, name in enumerate(parameter_names(n, directed))}
    rows = np.zeros((n << n, len(cols)), np.int64)
    for S in range(1 << n):
        for i in range(n):
            up = (S >> i) & 1
            side = "-" if up else "+"
            rows[S * n + i, cols[f"h_{i + 1}^{side}"]] = 1
            for j in range(n):
                if j != i:
                    name = f"c_{i + 1}{j + 1}" + (f"^{side}" if directed else "")
                    rows[S * n + i, cols[name]] = -(2 * ((S >> j) & 1) - 1)
    return rows


def unpack(n: int, x, directed: bool = False) -> tuple[np.ndarray, ...]:
    """(h_plus, h_minus, couplings) from a vector in ``parameter_names`` order;
    (h_plus, h_minus, c_plus, c_minus) where ``directed``."""
    x = np.asarray(x)
    off = ~np.eye(n, dtype=bool)
    m = n * (n - 1)
    matrices = []
    for k in range(2 if directed else 1):
        c = np.zeros((n, n), x.dtype)
        c[off] = x[2 * n + k * m : 2 * n + (k + 1) * m]
        matrices.append(c)
    return (x[:n], x[n : 2 * n], *matrices)


def to_pairwise(fields: SwitchingFields):
    """(h_plus, h_minus, couplings) if ``fields`` are exactly pairwise (integers), else None:
    c_ij = (U_i(S) − U_i(S + j)) / 2 read at the all-down state, then every field checked."""
    n, U = fields.n, fields.values
    c = np.zeros((n, n), np.int64)
    for i in range(n):
        for j in range(n):
            if j != i:
                diff = int(U[0, i]) - int(U[1 << j, i])
                if diff % 2:
                    return None
                c[i, j] = diff // 2
    hp = np.array([U[0, i] - c[i].sum() for i in range(n)], np.int64)  # all s_j = −1
    hm = np.array([U[1 << i, i] - c[i].sum() for i in range(n)], np.int64)
    if not np.array_equal(SwitchingFields.from_pairwise(hp, hm, c).values, U):
        return None
    return hp, hm, c


@dataclass(frozen=True)
class PairwiseRealization:
    """Whether pairwise hysterons realize a t-graph, with their parameters (what
    :func:`hyst.tgraphs.pairwise_realize` returns).

    Attributes
    ----------
    feasible : bool
        Pairwise parameters exist.
    h_plus : numpy.ndarray or None
        Their bare up thresholds h_i^+ (int64, on the integer grid; None: not feasible).
    h_minus : numpy.ndarray or None
        Their bare down thresholds h_i^−.
    couplings : numpy.ndarray or None
        Their couplings c_ij (c^+_ij with direction-dependent couplings).
    rows_hold : bool
        Every design inequality holds in the integers.
    reproduces : bool
        The t-graph of the parameters, read as switching fields, is the graph.
    couplings_minus : numpy.ndarray or None
        c^−_ij of direction-dependent couplings (None for the paper's model).
    """

    feasible: bool
    h_plus: np.ndarray | None = None
    h_minus: np.ndarray | None = None
    couplings: np.ndarray | None = None
    rows_hold: bool = False
    reproduces: bool = False
    couplings_minus: np.ndarray | None = None


def strict_rows(graph: TGraph, stable: bool = True, directed: bool = False) -> np.ndarray:
    """The design inequalities of ``graph`` as rows r·x > 0 in the pairwise parameters."""
    rows = field_rows(graph.n, directed)
    edges = np.array(list(design_order.design_order(graph, stable).edges), np.int64)
    return rows[edges[:, 0]] - rows[edges[:, 1]]


def _check(graph: TGraph, strict: np.ndarray, answer: lp.LPAnswer, stable: bool, directed=False):
    if not answer.feasible:
        if not answer.ok:
            raise RuntimeError(f"pairwise LP: {answer.message}")
        return PairwiseRealization(False)
    x = np.rint(answer.x * GRID_SCALE).astype(np.int64)
    hp, hm, c, *minus = unpack(graph.n, x, directed)
    cm = minus[0] if minus else None
    fields = SwitchingFields.from_pairwise(hp, hm, c, cm)
    ok = bool(np.all(strict @ x > 0))
    return PairwiseRealization(True, hp, hm, c, ok, reproduces(graph, fields, stable), cm)


def span_rows(n: int, positive_spans: bool, directed: bool = False) -> np.ndarray:
    """Weak rows h_i^+ − h_i^− ≥ 0 (hysteretic elements) when ``positive_spans``."""
    width = 2 * n + n * (n - 1) * (2 if directed else 1)
    rows = np.zeros((n if positive_spans else 0, width), np.int64)
    for i in range(rows.shape[0]):
        rows[i, i], rows[i, n + i] = 1, -1
    return rows


def pairwise_realize(
    graph: TGraph, stable: bool = True, positive_spans: bool = False, directed: bool = False
):
    """Whether pairwise hysterons realize ``graph`` (rule 0), with their parameters (spans
    h_i^+ − h_i^− of any sign, as hyst allows, or positive ones); ``directed``: with
    direction-dependent couplings c^+ ≠ c^− allowed (twice the couplings)."""
    strict = strict_rows(graph, stable, directed)
    answer = lp.solve(strict, span_rows(graph.n, positive_spans, directed))
    return _check(graph, strict, answer, stable, directed)


def pairwise_realize_many(
    graphs, stable: bool = True, positive_spans: bool = False, directed: bool = False
) -> list:
    """``pairwise_realize`` of many graphs, their LPs stacked (``lp.solve_many``)."""
    stricts = [strict_rows(g, stable, directed) for g in graphs]
    answers = lp.solve_many(
        [
            (s, span_rows(g.n, positive_spans, directed), None)
            for g, s in zip(graphs, stricts, strict=True)
        ]
    )
    return [
        _check(g, s, a, stable, directed) for g, s, a in zip(graphs, stricts, answers, strict=True)
    ]
