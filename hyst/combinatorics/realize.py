"""Realizability of a fundamental loop: linear programming and re-simulation.

``realize(loop, weak=False, mode="conservative")`` decides whether the design
inequalities of :mod:`hyst.combinatorics.design` have a solution (M_R), or one with weak
asymmetry c_ij·c_ji ≥ 0 for every pair (M_W), with scipy's HiGHS, and checks the
answer both ways:

- feasible: the LP point is scaled to the integer grid of ``hyst.model.systems.QUANTUM``
  (margin 1 becomes 2^20 quanta, far above the rounding error), every design row
  is re-evaluated in exact integer arithmetic, and the system is relaxed with the
  core kernels (``hyst.model.relax.StateTables``, rule 1) at a field H inside the
  window: the result must be a self-loop through exactly the loop's states in the
  loop's order (and its canonical form the loop itself);
- infeasible: the LP is the elastic form min t, A x + t ≥ 1, t ≥ 0, whose optimum
  is 0 (feasible) or 1 (infeasible, the rows being homogeneous); then the row
  duals y ≥ 0 are a Farkas certificate A^T y = 0, Σ y = 1, checked numerically
  (and exactly, in rational arithmetic, by ``lp.certificate_is_exact``); see
  :mod:`hyst.combinatorics.lp`.

Weak asymmetry is the union over sign patterns of the pairs (both couplings of a
pair ≥ 0, or both ≤ 0), each pattern a polyhedron. It is decided exactly by
branching: solve with the pairs fixed so far; if infeasible, prune (certificate);
if the solution already satisfies c_ij·c_ji ≥ 0 for every free pair, done;
otherwise branch on a violated pair. Every sign pattern is covered, so a loop is
declared W-infeasible only when every leaf is infeasible. ``≥ 0`` and the
ensemble's ``> 0`` give the same answer: the design rows are strict (an open
set), so a solution on a face c_ij = 0 can be moved into the open orthant.

A check that fails is never hidden: the status says what failed.

``realize_many`` decides a whole list of loops together: one branching state per
loop, and the pending LPs of all loops stacked into few linprog calls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.combinatorics import design, lp
from hyst.combinatorics.structures import Loop, canonical, loop_from_states
from hyst.model.relax import StateTables
from hyst.model.systems import Systems

#: Scale of the LP margin on the integer grid (quanta per unit margin).
GRID_SCALE = 2**20
#: Largest parameter magnitude on the grid (thresholds stay far below int64 limits).
GRID_LIMIT = 2**52
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
class Realizability:
    """Outcome of the realizability check of one loop.

    status: a key of ``STATUS``; lps: LPs solved; point: the integer parameters
    (h^+, h^−, c in quanta, in the design's column order) when feasible;
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

    @property
    def code(self) -> int:
        """The integer code of the status (``STATUS``), as the cell files store it."""
        return STATUS[self.status]

    @property
    def support(self) -> int:
        """Rows the Farkas certificate combines (0 without one)."""
        if self.certificate is None:
            return 0
        y = np.asarray(self.certificate)
        return int((y > 1e-9 * max(float(y.max()), 1e-300)).sum())


def lp_rows(system: design.DesignSystem, eliminate: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(strict, weak) rows the LP solves: H eliminated (the Supplemental's form) or the
    compact form with 2H as the last variable (same feasible parameters)."""
    if eliminate:
        return system.strict, system.weak
    return system.compact()


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


class _Search:
    """Branching state of one loop: pending sign patterns, LPs, refuted leaves."""

    def __init__(self, loop, system, rows, weak):
        self.loop, self.system, self.rows, self.weak = loop, system, rows, weak
        self.pairs = design.coupling_pairs(loop.n_e) if weak else []
        self.stack: list[dict] = [{}]
        self.lps = 0
        self.leaves = 0
        self.certificate = None
        self.residual = 0.0
        self.result: Realizability | None = None

    def take(self, fixes: dict, ans: lp.LPAnswer) -> None:
        """Use the answer of the LP with sign pattern ``fixes``."""
        self.lps += 1
        if not ans.ok:
            status = "lp_error" if ans.y is None else "failed_certificate"
            self.result = Realizability(
                status,
                self.lps,
                certificate=ans.y,
                residual=ans.residual,
                leaves=self.leaves,
                message=ans.message,
            )
            return
        if not ans.feasible:
            self.leaves += 1
            if self.certificate is None:
                self.certificate = ans.y
            self.residual = max(self.residual, ans.residual)
            if not self.stack:
                self.result = Realizability(
                    "infeasible",
                    self.lps,
                    certificate=self.certificate,
                    residual=self.residual,
                    leaves=self.leaves,
                )
            return
        x = ans.x
        scale = float(np.max(np.abs(x)))
        violated = [
            (min(abs(x[a]), abs(x[b])), a, b)
            for a, b in self.pairs
            if a not in fixes and x[a] * x[b] < 0 and min(abs(x[a]), abs(x[b])) > 1e-12 * scale
        ]
        if not violated:
            self.result = _confirm(
                self.loop, self.system, x, self.lps, self.leaves, fixes, self.weak
            )
            return
        _, a, b = max(violated)
        likelier = 1 if x[a] + x[b] >= 0 else -1
        for sign in (-likelier, likelier):  # the likelier sign is popped first
            self.stack.append({**fixes, a: sign, b: sign})


def realize_many(
    loops: list[Loop],
    weak: bool = False,
    mode: str = "conservative",
    spans: str = "any",
    eliminate: bool = True,
) -> list[Realizability]:
    """Decide and check the realizability of every loop (M_R; with ``weak``, M_W).

    ``mode`` and ``spans`` as in :mod:`hyst.combinatorics.design`; ``eliminate`` solves the
    Supplemental's H-eliminated rows (else the equivalent compact form). The loops'
    LPs are stacked (``lp.solve_many``); each loop's answer is that of its own LPs."""
    searches = []
    for loop in loops:
        system = design.design_system(loop, mode, spans)
        searches.append(_Search(loop, system, lp_rows(system, eliminate), weak))
    while True:
        pending = [s for s in searches if s.result is None]
        if not pending:
            break
        nodes = [s.stack.pop() for s in pending]
        answers = lp.solve_many([(*s.rows, fixes) for s, fixes in zip(pending, nodes, strict=True)])
        for s, fixes, ans in zip(pending, nodes, answers, strict=True):
            s.take(fixes, ans)
    return [s.result for s in searches]


def realize(
    loop: Loop,
    weak: bool = False,
    mode: str = "conservative",
    spans: str = "any",
    eliminate: bool = True,
) -> Realizability:
    """Decide and check the realizability of one loop (see ``realize_many``)."""
    return realize_many([loop], weak, mode, spans, eliminate)[0]


#: Realizability variants: name -> (weak asymmetry, spans). The paper's M_R is "R" and
#: its M_W is "W+" (see hyst.combinatorics.tables).
VARIANTS = {
    "R": (False, "any"),
    "R+": (False, "positive"),
    "W": (True, "any"),
    "W+": (True, "positive"),
}


def classify_many(
    loops: list[Loop], variants=("R", "W+"), mode: str = "conservative", eliminate: bool = True
) -> list[dict[str, Realizability]]:
    """Realizability of every loop under several variants, sharing work: every variant
    adds rows to "R" (weak asymmetry, positive spans), so where "R" is infeasible so is
    every other variant, with the same certificate (no further LP)."""
    for name in variants:
        if name not in VARIANTS:
            raise ValueError(f"variant: {name!r} is not one of {', '.join(VARIANTS)}")
    base = realize_many(loops, mode=mode, eliminate=eliminate)
    out: list[dict] = [{} for _ in loops]
    open_ = [k for k, r in enumerate(base) if r.status != "infeasible"]
    for name in variants:
        weak, spans = VARIANTS[name]
        if name == "R":
            for k, r in enumerate(base):
                out[k][name] = r
            continue
        for k, r in enumerate(base):
            if r.status == "infeasible":
                out[k][name] = Realizability(
                    "infeasible",
                    0,
                    certificate=r.certificate,
                    residual=r.residual,
                    leaves=0,
                    message="implied by R",
                )
        answers = realize_many([loops[k] for k in open_], weak, mode, spans, eliminate)
        for k, r in zip(open_, answers, strict=True):
            out[k][name] = r
    return [{name: o[name] for name in variants} for o in out]


def classify(
    loop: Loop, variants=("R", "W+"), mode: str = "conservative", eliminate: bool = True
) -> dict[str, Realizability]:
    """Realizability of one loop under several variants (see ``classify_many``)."""
    return classify_many([loop], variants, mode, eliminate)[0]
