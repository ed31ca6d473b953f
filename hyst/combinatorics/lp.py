"""Feasibility of homogeneous strict inequalities by linear programming (scipy HiGHS).

A problem is (strict, weak, fixes): find x with strict·x > 0, weak·x ≥ 0 and
sign rows x_col·sign ≥ 0 (``fixes``: column -> ±1). The rows are homogeneous,
so "> 0" can be written "≥ 1". The elastic LP

    min t   s.t.   strict·x + t ≥ 1,   weak·x ≥ 0,   sign·x ≥ 0,   t ≥ 0

is always feasible and bounded; its optimum is t = 0 (a point x) or t = 1 (no
point: scaling any x with t < 1 would give t = 0). At t = 1 the row duals y ≥ 0
satisfy y^T [strict; weak; sign] = 0 with Σ_strict y = 1: a Farkas certificate
of infeasibility, checked here numerically (``CERTIFICATE_TOLERANCE``) and
exactly in rational arithmetic by ``certificate_is_exact``.

``solve_many`` stacks several independent problems block-diagonally into one
``scipy.optimize.linprog(method="highs")`` call (each block keeps its own t):
the answers are those of the separate LPs, at a fraction of the per-call
overhead. If a stacked LP does not return an optimum, its problems are solved
one by one.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

#: A Farkas residual |A^T y|_max above this (for Σ y = 1) rejects a certificate.
CERTIFICATE_TOLERANCE = 1e-7
#: At most this many problems, and about this many rows, per linprog call (larger
#: stacks solve slower per problem).
STACK = 20
STACK_ROWS = 1200


@dataclass
class LPAnswer:
    """One elastic LP: ``feasible`` with the point x, or the certificate y; ``ok`` is
    False when HiGHS failed or the certificate did not check (then ``message``)."""

    feasible: bool
    ok: bool
    x: np.ndarray | None
    y: np.ndarray | None
    residual: float
    message: str


def sign_rows(nvar: int, fixes: dict) -> np.ndarray:
    """Rows x_col·sign ≥ 0 for the fixed columns (in column order)."""
    rows = np.zeros((len(fixes), nvar), np.int64)
    for r, (col, sign) in enumerate(sorted(fixes.items())):
        rows[r, col] = sign
    return rows


def _block(strict, weak, fixes):
    """(A_ub, b_ub) of one elastic LP over (x, t)."""
    nvar = strict.shape[1]
    homog = np.vstack([weak, sign_rows(nvar, fixes or {})])
    m = strict.shape[0]
    a_ub = np.zeros((m + homog.shape[0], nvar + 1))
    a_ub[:m, :nvar] = -strict
    a_ub[:m, nvar] = -1.0
    a_ub[m:, :nvar] = -homog
    b_ub = np.zeros(m + homog.shape[0])
    b_ub[:m] = -1.0
    return a_ub, b_ub, homog


def _answer(strict, homog, x, t, y) -> LPAnswer:
    if t < 0.5:
        return LPAnswer(True, True, x, None, 0.0, "")
    m = strict.shape[0]
    full = np.vstack([strict, homog]).astype(np.float64)
    total = float(y[:m].sum())
    residual = float(np.abs(full.T @ y).max()) / max(total, 1e-300)
    ok = bool(y.min() >= -1e-9 and total > 0.5 and residual <= CERTIFICATE_TOLERANCE)
    message = "" if ok else f"certificate rejected: min y {y.min():.3g}, sum {total:.3g}"
    return LPAnswer(False, ok, None, y, residual, message)


def solve(strict: np.ndarray, weak: np.ndarray, fixes: dict | None = None) -> LPAnswer:
    """The elastic LP of one problem."""
    a_ub, b_ub, homog = _block(strict, weak, fixes)
    nvar = strict.shape[1]
    cost = np.zeros(nvar + 1)
    cost[nvar] = 1.0
    bounds = [(None, None)] * nvar + [(0, None)]
    from scipy.optimize import linprog  # here: the workflow imports this module to plan

    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return LPAnswer(False, False, None, None, np.inf, f"status {res.status}: {res.message}")
    y = -np.asarray(res.ineqlin.marginals, dtype=np.float64)
    return _answer(strict, homog, res.x[:nvar].copy(), float(res.x[nvar]), y)


def solve_many(problems: list) -> list[LPAnswer]:
    """Answers of several problems (strict, weak, fixes), stacked in order into calls of
    at most ``STACK`` problems and about ``STACK_ROWS`` rows."""
    out: list[LPAnswer] = []
    stack: list = []
    rows = 0
    for problem in problems:
        stack.append(problem)
        rows += problem[0].shape[0]
        if len(stack) == STACK or rows >= STACK_ROWS:
            out += _solve_stack(stack)
            stack, rows = [], 0
    if stack:
        out += _solve_stack(stack)
    return out


def _solve_stack(problems) -> list[LPAnswer]:
    from scipy import sparse  # here: the workflow imports this module to plan
    from scipy.optimize import linprog

    if len(problems) == 1:
        return [solve(*problems[0])]
    blocks, rhs, costs, bounds, homogs = [], [], [], [], []
    for strict, weak, fixes in problems:
        a_ub, b_ub, homog = _block(strict, weak, fixes)
        blocks.append(sparse.csr_matrix(a_ub))
        rhs.append(b_ub)
        homogs.append(homog)
        nvar = strict.shape[1]
        cost = np.zeros(nvar + 1)
        cost[nvar] = 1.0
        costs.append(cost)
        bounds += [(None, None)] * nvar + [(0, None)]
    res = linprog(
        np.concatenate(costs),
        A_ub=sparse.block_diag(blocks, format="csr"),
        b_ub=np.concatenate(rhs),
        bounds=bounds,
        method="highs",
    )
    if res.status != 0:
        return [solve(*p) for p in problems]
    duals = -np.asarray(res.ineqlin.marginals, dtype=np.float64)
    out, col, row = [], 0, 0
    for (strict, _weak, _fixes), homog, b in zip(problems, homogs, rhs, strict=True):
        nvar = strict.shape[1]
        x = res.x[col : col + nvar].copy()
        t = float(res.x[col + nvar])
        out.append(_answer(strict, homog, x, t, duals[row : row + b.shape[0]]))
        col += nvar + 1
        row += b.shape[0]
    return out


def certificate_is_exact(strict: np.ndarray, weak: np.ndarray, y: np.ndarray, fixes=None) -> bool:
    """True iff y, read as small rationals, is an exact Farkas certificate:
    y ≥ 0, Σ_strict y > 0 and y^T [strict; weak; signs] = 0 in rational arithmetic."""
    full = np.vstack([strict, weak, sign_rows(strict.shape[1], fixes or {})])
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    if not scale > 0 or y.shape[0] != full.shape[0]:
        return False
    yq = [Fraction(float(v) / scale).limit_denominator(10**6) for v in y]
    if min(yq) < 0 or sum(yq[: strict.shape[0]]) <= 0:
        return False
    support = [(k, q) for k, q in enumerate(yq) if q]
    for col in range(full.shape[1]):
        if sum(q * int(full[k, col]) for k, q in support) != 0:
            return False
    return True
