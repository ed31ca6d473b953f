"""The direct mechanical simulation of serial chains (it never uses the mapping).

Impose the total displacement U; force balance gives every element's position
for its current phase (``hyst.kernels.mechanics``); an element whose position
has left its branch is unstable; several unstable elements are resolved by the
hysteron model's rules (rule 1: the one furthest past its threshold in x
first); limit cycles are revisited phase states at fixed U.

Drives are reported as W = p U in int64 quanta (k = p/q the series spring;
W = U without one), which keeps the quasistatic drive through every switching
point exact: W^±(S), the drives at which phase state S stops being stable, are
integers, and "just above W^+(S)" is the symbolic W^+(S) + 0⁺.

The transition graph built here is the mechanical counterpart of
``hyst.model.transition_graph.transition_graph`` (same dataclasses, fields in W units): the
tests check that the two are equal on random chains.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyst.kernels import codes
from hyst.kernels import mechanics as kern
from hyst.model.batch import Columns
from hyst.model.network_batch import chain_loops_batch
from hyst.model.systems import INF, OUTCOME_NAMES, QUANTUM, rule_code
from hyst.model.transition_graph import (
    Transition,
    TransitionGraph,
    check_graph_size,
    graph_from_ranges,
)
from hyst.networks.elements import SerialChains

#: Largest N of the mechanical simulation (phase states are uint64 bitmasks).
MECHANICS_MAX_N = 64


@dataclass(frozen=True)
class MechanicalRelaxation:
    """A relaxation at fixed drive: outcome ('stable', 'self_loop', 'ill_defined'),
    final phase state (bitmask; the first revisited state of a limit cycle), flips,
    steps, race_condition, tie, and for a limit cycle L, n_e and its phase states in
    dynamical order from the smallest bitmask."""

    outcome: str
    final_state: int
    flips: int
    steps: int
    race_condition: bool
    tie: bool
    L: int = 0
    n_e: int = 0
    cycle: tuple[int, ...] = ()


class ChainMechanics:
    """Force balance of one chain of a ``SerialChains`` batch (exact int64)."""

    def __init__(self, chains: SerialChains, index: int = 0):
        if chains.N > MECHANICS_MAX_N:
            raise ValueError(f"N: {chains.N} is too large (N <= {MECHANICS_MAX_N})")
        self.N = chains.N
        self.p, q = chains.ratio
        self.D = self.p * self.N + q
        self.xm = np.ascontiguousarray(chains.x_minus[index])
        self.xp = np.ascontiguousarray(chains.x_plus[index])
        self.d = np.ascontiguousarray(chains.d[index])
        self._traj = np.empty(64, np.uint64)
        self._out = np.zeros(len(codes.MECH_RELAX_COLUMNS), np.int64)

    def positions(self, state: int, W: int) -> np.ndarray:
        """Element positions x_i (float displacement units) in phase state ``state`` at W."""
        s = np.empty(self.N, np.int8)
        kern.set_phases(np.uint64(state), s)
        X = np.empty(self.N, np.int64)
        kern.scaled_positions(s, int(W), self.p, self.D, self.d, X)
        return X * QUANTUM / self.D

    def force(self, state: int, W: int) -> float:
        """The force carried by the chain (float) in phase state ``state`` at W."""
        s = np.where((int(state) >> np.arange(self.N)) & 1, 1, -1)
        return (int(W) - self.p * int(np.dot(self.d, s))) * QUANTUM / self.D

    def switching_drives(self, state: int) -> tuple[int, int]:
        """(W^−(S), W^+(S)) of a phase state (±INF when saturated)."""
        s = np.empty(self.N, np.int8)
        kern.set_phases(np.uint64(state), s)
        dn, up = kern.switching_drives(
            s, self.p, self.D, self.xm, self.xp, self.d, np.empty(self.N, np.int64)
        )
        return int(dn), int(up)

    def relax(self, state: int, drive: tuple[int, int], rule="1") -> MechanicalRelaxation:
        """Relax phase state ``state`` at the drive (Wc, eps) under ``rule``."""
        out = self._out
        oc, final, self._traj = kern.relax_mask(
            np.uint64(state),
            int(drive[0]),
            int(drive[1]),
            rule_code(rule),
            self.p,
            self.D,
            self.xm,
            self.xp,
            self.d,
            self._traj,
            out,
        )
        res = Columns(out, codes.MECH_RELAX_COLUMNS)
        flips, steps, race, ties, L, n_e, start = (int(res[c]) for c in codes.MECH_RELAX_COLUMNS)
        cycle: tuple[int, ...] = ()
        if oc == codes.SELF_LOOP:
            states = [int(v) for v in self._traj[start : start + L]]
            k = states.index(min(states))
            cycle = tuple(states[k:] + states[:k])
        return MechanicalRelaxation(
            OUTCOME_NAMES[int(oc)], int(final), flips, steps, bool(race), ties > 0, L, n_e, cycle
        )

    def sweep(self, state: int, targets, rule="1") -> list[tuple[int, int, int, str]]:
        """Quasistatic drive from a stable phase state through every switching point.

        ``targets`` are successive turning drives W (int quanta). Returns the events
        (Wc, direction, end state or −1, outcome); the sweep stops at a limit cycle or
        an ill-defined transition (the drive cannot be continued quasistatically).
        """
        events = []
        W = None
        for target in targets:
            target = int(target)
            direction = 1 if W is None or target > W else -1
            while True:
                dn, up = self.switching_drives(state)
                Wc = up if direction > 0 else dn
                if abs(Wc) >= INF or (Wc > target if direction > 0 else Wc < target):
                    break
                r = self.relax(state, (Wc, direction), rule)
                events.append(
                    (Wc, direction, r.final_state if r.outcome == "stable" else -1, r.outcome)
                )
                if r.outcome != "stable":
                    return events
                state = r.final_state
            W = target
        return events


def mechanical_transition_graph(chains: SerialChains, index: int = 0, rule="1") -> TransitionGraph:
    """The transition graph of chain ``index`` from force balance alone (fields in W = pU).

    Phase states with W^−(S) < W^+(S) are mechanically potentially stable; from each,
    the drive goes just above W^+(S) (up) and just below W^−(S) (down) and the chain
    relaxes at that fixed drive.
    """
    check_graph_size(chains.N)
    code = rule_code(rule)
    mech = ChainMechanics(chains, index)
    wminus = np.empty(1 << chains.N, np.int64)
    wplus = np.empty(1 << chains.N, np.int64)
    kern.all_switching_drives(mech.xm, mech.xp, mech.d, mech.p, mech.D, wminus, wplus)

    def transition(S, field):
        r = mech.relax(S, field, code)
        return Transition.after(S, field, r, cycle=r.cycle, tie=r.tie)

    return graph_from_ranges(chains.N, code, wminus, wplus, transition)


def saturated_loop(chains: SerialChains, rule="1", parallel: bool = False) -> Columns:
    """``codes.MECH_LOOP_COLUMNS`` (outcome, L, n_e, events) per chain and branch (0: up
    from all −1, 1: down from all +1), driven event by event; a branch stops at its first
    limit cycle (``hyst.model.batch.first_loops_batch`` is the mapped counterpart)."""
    if chains.N > MECHANICS_MAX_N:
        raise ValueError(f"N: {chains.N} is too large (N <= {MECHANICS_MAX_N})")
    p, q = chains.ratio
    D = p * chains.N + q
    return chain_loops_batch(chains.x_minus, chains.x_plus, chains.d, p, D, rule, parallel=parallel)


def drive_range_attractors(chains: SerialChains, index: int = 0, rule="1"):
    """The limit cycles of the fixed-drive dynamics on every open interval of the drive.

    Returns [(W_low, W_high, cycles)], W in units of W/2 (= p U / 2, quanta; ±INF at
    the ends), cycles the distinct (cycle states, L, n_e) reached from any phase
    state at a drive inside (W_low, W_high). Small N only (every state, every interval).
    """
    mech = ChainMechanics(chains, index)
    N = mech.N
    if N > 10:
        raise ValueError(f"N: {N} is too large for a drive-range scan (N <= 10)")
    buf = np.empty((1 << N) * (N + N * N // 4 + 1), np.int64)
    n = kern.critical_drives(mech.xm, mech.xp, mech.d, mech.p, mech.D, buf)
    crit = buf[:n].tolist()
    doubled = SerialChains(
        2 * chains.x_minus[[index]],
        2 * chains.x_plus[[index]],
        2 * chains.d[[index]],
        chains.spring,
    )
    dmech = ChainMechanics(doubled)
    bounds = [-int(INF), *crit, int(INF)]
    result = []
    for k in range(len(bounds) - 1):
        drive = (crit[0], -1) if k == 0 else (bounds[k], 1)
        cycles = set()
        for S in range(1 << N):
            r = dmech.relax(S, drive, rule)
            if r.outcome == "self_loop":
                cycles.add((r.cycle, r.L, r.n_e))
        result.append((bounds[k], bounds[k + 1], tuple(sorted(cycles))))
    return result
