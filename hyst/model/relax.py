"""Relaxation of one system from one state: thin wrappers over the kernels.

Two elements with antisymmetric couplings c_12 = −c_21 = 0.5 are trapped at H = 0 in an
L = 4 self-loop through all four states (bitmasks, bit i set ⇔ s_i = +1):

>>> from hyst.model.systems import Systems
>>> sy = Systems.from_floats([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
>>> r = relax(sy, state=0, field=(0, 0), rule="1")
>>> r.outcome, r.L, r.cycle_states
('self_loop', 4, (0, 2, 3, 1))
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hyst.kernels import codes, relaxation, state_table
from hyst.model.flip_times import kernel_rule
from hyst.model.systems import OUTCOME_NAMES, Systems, rule_code


@dataclass(frozen=True)
class Relaxation:
    """Result of relaxing a system at a fixed field.

    outcome: 'stable', 'self_loop' or 'ill_defined' (rule 0 race condition).
    final_state: bitmask of the stable state (or of the first repeated state of
    a self-loop, or of the state where the rule-0 race condition was met).
    flips: element flips performed (the avalanche size A when stable).
    steps: dynamical steps (differs from flips only under rule 2).
    race_condition: a state after the first step had several unstable elements.
    ties: exactly equal instabilities or thresholds met (resolved by lowest index).
    L, n_e: self-loop length (states in the cycle) and number of elements that flip in it.
    cycle_states: the L states of the cycle, starting at the smallest bitmask.
    """

    outcome: str
    final_state: int
    flips: int
    steps: int
    race_condition: bool
    ties: int
    L: int = 0
    n_e: int = 0
    cycle_states: tuple = field(default=())

    @classmethod
    def read(cls, outcome, final_state: int, out, columns: tuple[str, ...], cycle=()):
        """The relaxation a kernel returned (``outcome`` code) and wrote into ``out``, whose
        entries ``columns`` names (flips, steps, race, ties, L, n_e among them)."""
        v = {name: int(x) for name, x in zip(columns, out, strict=True)}
        return cls(
            OUTCOME_NAMES[outcome],
            final_state,
            v["flips"],
            v["steps"],
            bool(v["race"]),
            v["ties"],
            v["L"],
            v["n_e"],
            cycle,
        )


class StateTables:
    """Threshold tables of all 2^N states of one system (Gray-code pass), with its quantised
    flip times (``flip_times``, (N,) int64, :mod:`hyst.model.flip_times`; equal ones when
    None), which the flip-time rule ``"tau"`` reads."""

    def __init__(self, systems: Systems, index: int = 0, flip_times=None):
        N = systems.N
        if N > 24:
            raise ValueError(f"N: {N} is too large to enumerate 2^N states (N <= 24)")
        n = 1 << N
        self.N = N
        self.hp, self.hm = systems.h_plus[index], systems.h_minus[index]
        self.table = state_table.StateTable(
            np.empty((n, N), np.int64),
            np.empty(n, np.int64),
            np.empty(n, np.int64),
            np.full(n, -1, np.int64),
            np.zeros(n, np.int64),
        )
        self.F, self.hplus, self.hminus = self.table[:3]
        # c^+ over c^− (2N, N) for direction-dependent couplings, c (N, N) otherwise
        c = systems.stacked_couplings()[index] if systems.directed else systems.couplings[index]
        state_table.build_state_table(self.hp, self.hm, c, False, self.F, self.hplus, self.hminus)
        self._wid = 0
        self.flip_times = flip_times
        self.tau = kernel_rule("1", flip_times, 1, N)[1][0]

    def code(self, rule) -> int:
        """The kernel code of ``rule``; the flip-time rule needs these tables' flip times."""
        return kernel_rule(rule, self.flip_times, 1, self.N)[0]

    def step(self, state: int, field: tuple[int, int], rule) -> tuple[int, int]:
        """One step from ``state``: (next_state, code), code ``codes.STABLE``, ``codes.MOVED``
        or ``codes.ILL_DEFINED``."""
        S2, _nu, _nf, _t, code = state_table.step(
            int(state),
            int(field[0]),
            int(field[1]),
            self.code(rule),
            self.hp,
            self.hm,
            *self.table[:3],
            self.tau,
        )
        return int(S2), int(code)

    def relax(self, state: int, field: tuple[int, int], rule) -> Relaxation:
        """Relax from ``state`` at ``field`` = (Hc, eps) under ``rule``."""
        self._wid += 1
        out = np.zeros(len(codes.WALK_COLUMNS), np.int64)
        r = self.code(rule)
        oc = state_table.walk(
            int(state),
            int(field[0]),
            int(field[1]),
            r,
            self.hp,
            self.hm,
            self.table,
            self._wid,
            out,
            self.tau,
        )
        cycle = ()
        if oc == codes.SELF_LOOP:
            x = int(out[codes.WALK_CYCLE_MIN])
            states = []
            for _ in range(int(out[codes.RECORD_L])):
                states.append(x)
                x, _code = self.step(x, field, r)
            cycle = tuple(states)
        return Relaxation.read(oc, int(out[codes.WALK_FINAL_STATE]), out, codes.WALK_COLUMNS, cycle)


def relax(systems: Systems, state: int, field: tuple[int, int], rule, index: int = 0):
    """Relax system ``index`` from bitmask ``state`` at ``field`` = (Hc, eps) (small N)."""
    return StateTables(systems, index).relax(state, field, rule)


def relax_spins(systems: Systems, spins, field: tuple[int, int], rule, index: int = 0):
    """Relax with the O(N)-per-flip array kernel (any N).

    Returns (Relaxation without cycle_states, final spins as int8 array).
    """
    N = systems.N
    s = np.asarray(spins, dtype=np.int8).copy()
    f = np.empty(N, np.int64)
    neg = np.empty(N, np.int64)
    relaxation.up_mask(s, neg)
    v = systems.kernel_view_of(index)
    form, ct, dk = v.form, v.ct, v.d
    relaxation.init_fields(s, f, form, ct, dk)
    out = np.zeros(len(codes.RELAX_COLUMNS), np.int64)
    oc = relaxation.relax(
        s,
        neg,
        f,
        int(field[0]),
        int(field[1]),
        rule_code(rule),
        systems.h_plus[index],
        systems.h_minus[index],
        form,
        ct,
        dk,
        relaxation.workspace(N),
        out,
    )
    final = int(sum(1 << i for i in range(N) if s[i] > 0)) if N <= 62 else -1
    return Relaxation.read(oc, final, out, codes.RELAX_COLUMNS), s
