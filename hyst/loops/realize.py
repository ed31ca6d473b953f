"""Realizability of a fundamental loop: linear programming and re-simulation.

``realize(loop, weak=False, mode="conservative")`` decides whether the design
inequalities of :mod:`hyst.loops.design` have a solution (M_R), or one with weak
asymmetry c_ij·c_ji ≥ 0 for every pair (M_W), with scipy's HiGHS, and checks the
answer both ways:

- feasible: the LP point is scaled to the integer grid of ``hyst.model.QUANTUM``
  (margin 1 becomes 2^20 quanta, far above the rounding error), every design row
  is re-evaluated in exact integer arithmetic, and the system is relaxed with the
  core kernels (``hyst.dynamics.StateTables``, rule 1) at a field H inside the
  window: the result must be a self-loop through exactly the loop's states in the
  loop's order (and its canonical form the loop itself);
- infeasible: the LP is the elastic form min t, A x + t ≥ 1, t ≥ 0, whose optimum
  is 0 (feasible) or 1 (infeasible, the rows being homogeneous); then the row
  duals y ≥ 0 are a Farkas certificate A^T y = 0, Σ y = 1, checked numerically
  (and exactly, in rational arithmetic, by ``certificate_is_exact``).

Weak asymmetry is the union over sign patterns of the pairs (both couplings of a
pair ≥ 0, or both ≤ 0), each pattern a polyhedron. It is decided exactly by
branching: solve with the pairs fixed so far; if infeasible, prune (certificate);
if the solution already satisfies c_ij·c_ji ≥ 0 for every free pair, done;
otherwise branch on a violated pair. Every sign pattern is covered, so a loop is
declared W-infeasible only when every leaf is infeasible. ``≥ 0`` and the
ensemble's ``> 0`` give the same answer: the design rows are strict (an open
set), so a solution on a face c_ij = 0 can be moved into the open orthant.

A check that fails is never hidden: the status says what failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from hyst.dynamics import StateTables
from hyst.loops import design
from hyst.loops.structures import Loop, canonical, loop_from_states
from hyst.model import Systems

#: Scale of the LP margin on the integer grid (quanta per unit margin).
GRID_SCALE = 2**20
#: Largest parameter magnitude on the grid (thresholds stay far below int64 limits).
GRID_LIMIT = 2**52
#: A Farkas residual |A^T y| above this (for Σ y = 1) rejects a certificate.
CERTIFICATE_TOLERANCE = 1e-7
#: Status codes stored in datasets.
STATUS = {
    "feasible": 1,  # LP point found and re-simulated: the loop occurs
    "infeasible": 0,  # every LP infeasible, Farkas certificates checked
    "failed_rounding": -1,  # integer point violates a design row
    "failed_simulation": -2,  # the core dynamics does not give this loop at the point
    "failed_certificate": -3,  # an infeasibility certificate did not check
    "lp_error": -4,  # HiGHS did not return an optimum
}


@dataclass
class LPAnswer:
    """One elastic LP: ``feasible``, the point x (float) or the certificate y."""

    feasible: bool
    ok: bool
    x: np.ndarray | None
    y: np.ndarray | None
    residual: float
    message: str


@dataclass
class Realizability:
    """Outcome of the realizability check of one loop.

    status: a key of ``STATUS``; lps: LPs solved; point: the integer parameters
    (h^+, h^−, c in quanta, ``design.variable_names`` order) when feasible;
    field2: 2H (quanta) where the loop was re-simulated; certificate: the Farkas
    multipliers of the first infeasible leaf (float, rows of ``design.strict``
    then spans then sign rows); leaves: infeasible sign patterns (weak) or 1;
    message: what HiGHS or a failed check said.
    """

    status: str
    lps: int
    point: np.ndarray | None = None
    field2: int | None = None
    certificate: np.ndarray | None = None
    residual: float = 0.0
    leaves: int = 0
    message: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def code(self) -> int:
        return STATUS[self.status]


def _sign_rows(nvar: int, fixes: dict) -> np.ndarray:
    rows = np.zeros((len(fixes), nvar), np.int64)
    for r, (col, sign) in enumerate(sorted(fixes.items())):
        rows[r, col] = sign
    return rows


def lp_rows(system: design.DesignSystem, eliminate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(strict, weak) rows the LP solves: H eliminated (the Supplemental's form) or the
    compact form with 2H as the last variable (same feasible parameters)."""
    if eliminate:
        return system.strict, system.weak
    return system.compact()


def solve_elastic(strict: np.ndarray, weak: np.ndarray, fixes: dict | None = None) -> LPAnswer:
    """min t s.t. strict·x + t ≥ 1, weak·x ≥ 0, sign·x ≥ 0, t ≥ 0 (HiGHS).

    ``fixes``: column -> +1/−1, the sign rows (x_col ≥ 0 or ≤ 0). The optimum is 0
    (feasible: x) or 1 (infeasible: the row duals y are the Farkas certificate)."""
    nvar = strict.shape[1]
    homog = np.vstack([weak, _sign_rows(nvar, fixes or {})])
    m = strict.shape[0]
    a_ub = np.zeros((m + homog.shape[0], nvar + 1))
    a_ub[:m, :nvar] = -strict
    a_ub[:m, nvar] = -1.0
    a_ub[m:, :nvar] = -homog
    b_ub = np.zeros(m + homog.shape[0])
    b_ub[:m] = -1.0
    cost = np.zeros(nvar + 1)
    cost[nvar] = 1.0
    bounds = [(None, None)] * nvar + [(0, None)]
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return LPAnswer(False, False, None, None, np.inf, f"status {res.status}: {res.message}")
    if float(res.x[nvar]) < 0.5:
        return LPAnswer(True, True, res.x[:nvar].copy(), None, 0.0, "")
    y = -np.asarray(res.ineqlin.marginals, dtype=np.float64)
    full = np.vstack([strict, homog]).astype(np.float64)
    total = float(y[:m].sum())
    residual = float(np.abs(full.T @ y).max()) / max(total, 1e-300)
    ok = bool(y.min() >= -1e-9 and total > 0.5 and residual <= CERTIFICATE_TOLERANCE)
    msg = (
        ""
        if ok
        else (
            f"certificate rejected: min y {y.min():.3g}, sum {total:.3g}, residual {residual:.3g}"
        )
    )
    return LPAnswer(False, ok, None, y, residual, msg)


def certificate_is_exact(strict: np.ndarray, weak: np.ndarray, y: np.ndarray, fixes=None) -> bool:
    """True iff y, read as small rationals, is an exact Farkas certificate:
    y ≥ 0, Σ_strict y > 0 and y^T [strict; weak; signs] = 0 in rational arithmetic."""
    full = np.vstack([strict, weak, _sign_rows(strict.shape[1], fixes or {})])
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


def grid_point(x: np.ndarray) -> np.ndarray | None:
    """Scale an LP point (margin 1) to integer quanta (margin ~2^20); None if too large."""
    big = float(np.max(np.abs(x))) if x.size else 0.0
    if big * GRID_SCALE > GRID_LIMIT:
        return None
    return np.rint(x * GRID_SCALE).astype(np.int64)


def rows_hold(system: design.DesignSystem, q: np.ndarray, fixes: dict | None = None) -> bool:
    """Every design inequality at the integer parameters q, exactly: each lower bound on
    2H below each upper bound, selection rows > 0, spans and sign rows ≥ 0."""
    lo, hi = design.field_window(system, q)
    qo = q.astype(object)
    if not lo < hi or any(v <= 0 for v in system.selection.astype(object) @ qo):
        return False
    if any(v < 0 for v in system.weak.astype(object) @ qo):
        return False
    return all(sign * int(q[col]) >= 0 for col, sign in (fixes or {}).items())


def weakly_asymmetric(n: int, q: np.ndarray) -> bool:
    """c_ij·c_ji ≥ 0 for every pair, exactly."""
    return all(int(q[a]) * int(q[b]) >= 0 for a, b in design.coupling_pairs(n))


def simulate(loop: Loop, system: design.DesignSystem, q: np.ndarray) -> tuple[str, int, str]:
    """Relax the integer system q from the loop's start at a field inside its window
    (rule 1, exact): (status, 2H, message), status 'feasible' iff the core finds this
    very loop, without ties."""
    n = loop.n_e
    lo2, hi2 = design.field_window(system, q)
    hc = (lo2 + hi2) // 4  # H = hc + 0⁺: no margin is ever exactly zero
    if not lo2 < 2 * hc < hi2:
        return "failed_simulation", 2 * hc, f"field window too narrow: 2H in ({lo2}, {hi2})"
    hp, hm, c = design.parameters(n, q)
    systems = Systems(
        hp[None].astype(np.int64), hm[None].astype(np.int64), c[None].astype(np.int64)
    )
    rel = StateTables(systems).relax(loop.start, (hc, 1), "1")
    if rel.outcome != "self_loop":
        return "failed_simulation", 2 * hc, f"relaxation ended {rel.outcome}"
    found = list(rel.cycle_states)
    states = list(loop.states())
    if len(found) != len(states) or states[0] not in found:
        return "failed_simulation", 2 * hc, f"another loop: L = {rel.L}, states {found}"
    k = found.index(states[0])
    if found[k:] + found[:k] != states:
        return "failed_simulation", 2 * hc, f"same states, another order: {found}"
    if canonical(loop_from_states(found)) != canonical(loop):
        return "failed_simulation", 2 * hc, "canonical forms differ"
    if rel.ties:
        return "failed_simulation", 2 * hc, f"{rel.ties} ties met"
    return "feasible", 2 * hc, ""


def _confirm(loop, system, x, lps, leaves, fixes, weak) -> Realizability:
    q = grid_point(x[: design.n_variables(loop.n_e)])
    if q is None:
        return Realizability("failed_rounding", lps, message="LP point too large for the grid")
    if not rows_hold(system, q, fixes) or (weak and not weakly_asymmetric(loop.n_e, q)):
        return Realizability(
            "failed_rounding",
            lps,
            point=q,
            leaves=leaves,
            message="integer point violates a design row",
        )
    status, field2, message = simulate(loop, system, q)
    return Realizability(status, lps, point=q, field2=field2, leaves=leaves, message=message)


def realize(
    loop: Loop,
    weak: bool = False,
    mode: str = "conservative",
    spans: str = "any",
    eliminate: bool = True,
    system: design.DesignSystem | None = None,
) -> Realizability:
    """Decide and check the realizability of ``loop`` (M_R; with ``weak``, M_W).

    ``mode`` and ``spans`` as in :mod:`hyst.loops.design`; ``eliminate`` solves the
    Supplemental's H-eliminated rows (else the equivalent compact form)."""
    if system is None:
        system = design.design_system(loop, mode, spans)
    strict, homog = lp_rows(system, eliminate)
    pairs = design.coupling_pairs(loop.n_e) if weak else []
    stack: list[dict] = [{}]
    lps = 0
    leaves = 0
    first_certificate = None
    residual = 0.0
    while stack:
        fixes = stack.pop()
        ans = solve_elastic(strict, homog, fixes)
        lps += 1
        if not ans.ok:
            status = "lp_error" if ans.y is None else "failed_certificate"
            return Realizability(
                status,
                lps,
                certificate=ans.y,
                residual=ans.residual,
                leaves=leaves,
                message=ans.message,
            )
        if not ans.feasible:
            leaves += 1
            if first_certificate is None:
                first_certificate = ans.y
            residual = max(residual, ans.residual)
            continue
        x = ans.x
        scale = float(np.max(np.abs(x)))
        violated = [
            (min(abs(x[a]), abs(x[b])), a, b)
            for a, b in pairs
            if a not in fixes and x[a] * x[b] < 0 and min(abs(x[a]), abs(x[b])) > 1e-12 * scale
        ]
        if not violated:
            return _confirm(loop, system, x, lps, leaves, fixes, weak)
        _, a, b = max(violated)
        likelier = 1 if x[a] + x[b] >= 0 else -1
        for sign in (-likelier, likelier):  # the likelier sign is popped first
            stack.append({**fixes, a: sign, b: sign})
    return Realizability(
        "infeasible", lps, certificate=first_certificate, residual=residual, leaves=leaves
    )


#: Realizability variants: name -> (weak asymmetry, spans). The paper's M_R is "R" and
#: its M_W is "W+" (see hyst.loops.tables).
VARIANTS = {
    "R": (False, "any"),
    "R+": (False, "positive"),
    "W": (True, "any"),
    "W+": (True, "positive"),
}


def classify(
    loop: Loop, variants=("R", "W+"), mode: str = "conservative", eliminate: bool = True
) -> dict[str, Realizability]:
    """Realizability of ``loop`` under several variants, sharing work: every variant
    adds rows to "R" (weak asymmetry, positive spans), so when "R" is infeasible so is
    every other variant, with the same certificate (no further LP)."""
    for name in variants:
        if name not in VARIANTS:
            raise ValueError(f"variant: {name!r} is not one of {', '.join(VARIANTS)}")
    base = realize(loop, mode=mode, eliminate=eliminate)
    out = {}
    for name in variants:
        weak, spans = VARIANTS[name]
        if name == "R":
            out[name] = base
        elif base.status == "infeasible":
            out[name] = Realizability(
                "infeasible",
                0,
                certificate=base.certificate,
                residual=base.residual,
                leaves=0,
                message="implied by R",
            )
        else:
            out[name] = realize(loop, weak=weak, mode=mode, spans=spans, eliminate=eliminate)
    return out
