"""Slow, obviously-correct reference implementation of the hysteron model.

This module is the *oracle* against which the fast numba kernels of ``hyst``
are tested.  It deliberately uses nothing but plain Python ints, lists, dicts
and sets (no numpy, no numba) and it favours clarity over speed.  It is meant
for N <= 8 (it enumerates all 2^N states).

Conventions (these are normative; the kernels must match them exactly)
----------------------------------------------------------------------
* A *system* is ``(hp, hm, c)``: ``hp[i] = h_i^+``, ``hm[i] = h_i^-`` (``hm[i]``
  may exceed ``hp[i]``: negative spans are allowed), ``c[i][j] = c_ij`` with
  ``c[i][i] == 0``.  All entries are Python ints (the caller has quantised the
  real parameters to integer multiples of 2^-40).  ``N = len(hp)``.
* A *state* is an int bitmask: bit i set <=> s_i = +1, clear <=> s_i = -1.
* Element thresholds in state S::

      Hp_i(S) = hp[i] - sum_{j != i} c[i][j] * s_j
      Hm_i(S) = hm[i] - sum_{j != i} c[i][j] * s_j

* State thresholds: ``Hplus(S) = min_{i: s_i=-1} Hp_i(S)`` and
  ``Hminus(S) = max_{i: s_i=+1} Hm_i(S)``.  When the set is empty the value is
  the float ``INF = float('inf')`` (resp. ``-INF``).  Python compares ints and
  float infinities correctly, so ``Hminus < Hplus`` etc. just work; use
  ``is_finite(x)`` to test finiteness.
* A *field* is a pair ``(Hc, eps)``: ``H = Hc + eps * 0+`` with Hc an int and
  eps in {+1, 0, -1}.  The doubled instability margin of element i is::

      s_i = -1:  m_i = 2*(Hc - Hp_i(S)) + eps
      s_i = +1:  m_i = 2*(Hm_i(S) - Hc) - eps

  Element i is unstable iff m_i > 0.  m_i == 0 (only possible with eps == 0)
  is a *tie*: counted in ``ties`` and the element is treated as stable.
* Rules (ids): 0 = "rule 0" (more than one unstable element -> ill-defined),
  1 = "rule 1" (flip the unstable element with the LARGEST margin),
  2 = "rule 1p" (flip the unstable element with the SMALLEST margin),
  3 = "rule 2" (flip ALL unstable elements simultaneously, one step).
  For rules 1 and 1p, if several unstable elements share the winning margin,
  one tie is counted and the lowest index is flipped.

Direction-dependent couplings (Paulsen, arXiv 2409.07726): ``c`` may be a
:class:`Directed` pair ``(plus, minus)`` of matrices, and then::

      Hp_i(S) = hp[i] - sum_{j != i} plus[i][j] * s_j
      Hm_i(S) = hm[i] - sum_{j != i} minus[i][j] * s_j

Every function below reads the thresholds through :func:`thresholds`, so the
pair changes nothing else.  ``Directed(c, c)`` is the paper's model.

Tie counting in :func:`relax` (documented choice): every time a state is
*evaluated* (each state of the trajectory, including the start state, but not
the repeated state that closes a self-loop, which is not re-evaluated) each
element with m_i == 0 adds 1 to ``ties``; in addition, for rules 1/1p, each
step whose winning margin is shared by >= 2 unstable elements adds 1.
"""

from fractions import Fraction
from typing import NamedTuple

INF = float("inf")

RULE0 = 0
RULE1 = 1
RULE1P = 2
RULE2 = 3

RULE_NAMES = {RULE0: "rule 0", RULE1: "rule 1", RULE1P: "rule 1p", RULE2: "rule 2"}

_RULE_ALIASES = {
    "rule0": RULE0,
    "rule 0": RULE0,
    "0": RULE0,
    "rule1": RULE1,
    "rule 1": RULE1,
    "1": RULE1,
    "rule1p": RULE1P,
    "rule 1p": RULE1P,
    "1p": RULE1P,
    "rule2": RULE2,
    "rule 2": RULE2,
    "2": RULE2,
}


def rule_id(rule):
    """Normalise a rule given as an int id (0..3) or a name ('rule 1p', ...)."""
    if isinstance(rule, str):
        key = rule.strip().lower()
        if key not in _RULE_ALIASES:
            raise ValueError(f"unknown rule {rule!r}")
        return _RULE_ALIASES[key]
    if rule not in RULE_NAMES:
        raise ValueError(f"unknown rule id {rule!r}")
    return rule


def is_finite(x):
    """Whether a field value is finite (not the ±∞ that stands for no threshold)."""
    return x != INF and x != -INF


def spin(S, i):
    """s_i in state S: +1 if bit i set, else -1."""
    return 1 if (S >> i) & 1 else -1


def popcount(x):
    """The number of set bits of ``x``: the elements with s_i = +1 in a state bitmask."""
    return bin(x).count("1")


def _interaction_field(c, S, i):
    """sum_{j != i} c[i][j] * s_j."""
    total = 0
    for j in range(len(c)):
        if j != i:
            total += c[i][j] * spin(S, j)
    return total


class Directed(NamedTuple):
    """Direction-dependent couplings: ``plus[i][j] = c^+_ij`` enter the up thresholds
    Hp_i, ``minus[i][j] = c^-_ij`` the down thresholds Hm_i (zero diagonals)."""

    plus: list
    minus: list


def thresholds(hp, hm, c, S):
    """Per-element thresholds in state S: returns (Hp, Hm), two lists of ints
    with Hp[i] = Hp_i(S), Hm[i] = Hm_i(S) (defined for every element,
    whatever its spin).  ``c`` is one matrix or a :class:`Directed` pair."""
    c_plus, c_minus = (c.plus, c.minus) if isinstance(c, Directed) else (c, c)
    n = len(hp)
    Hp = []
    Hm = []
    for i in range(n):
        Hp.append(hp[i] - _interaction_field(c_plus, S, i))
        Hm.append(hm[i] - _interaction_field(c_minus, S, i))
    return Hp, Hm


def state_thresholds(hp, hm, c, S):
    """(Hplus(S), Hminus(S)).  Hplus = +INF if no element is down, Hminus =
    -INF if no element is up (INF = float('inf')); otherwise Python ints."""
    Hp, Hm = thresholds(hp, hm, c, S)
    hplus = INF
    hminus = -INF
    for i in range(len(hp)):
        if spin(S, i) == -1:
            if Hp[i] < hplus:
                hplus = Hp[i]
        else:
            if Hm[i] > hminus:
                hminus = Hm[i]
    return hplus, hminus


def critical_element(hp, hm, c, S, direction):
    """Element that flips first when S is driven past its threshold.

    direction=+1: argmin of Hp_i(S) over s_i = -1; direction=-1: argmax of
    Hm_i(S) over s_i = +1.  Lowest index on equal values.  Returns
    (index, n_tied) where n_tied is the number of elements sharing the extreme
    value (1 = no tie); (None, 0) if there is no candidate."""
    Hp, Hm = thresholds(hp, hm, c, S)
    best = None
    n_tied = 0
    for i in range(len(hp)):
        if direction > 0:
            if spin(S, i) != -1:
                continue
            v = Hp[i]
            better = best is None or v < Hp[best]
            equal = best is not None and v == Hp[best]
        else:
            if spin(S, i) != 1:
                continue
            v = Hm[i]
            better = best is None or v > Hm[best]
            equal = best is not None and v == Hm[best]
        if better:
            best = i
            n_tied = 1
        elif equal:
            n_tied += 1
    return best, n_tied


def margins(hp, hm, c, S, field):
    """List of doubled instability margins m_i of every element of S at
    field (Hc, eps)."""
    Hc, eps = field
    Hp, Hm = thresholds(hp, hm, c, S)
    m = []
    for i in range(len(hp)):
        if spin(S, i) == -1:
            m.append(2 * (Hc - Hp[i]) + eps)
        else:
            m.append(2 * (Hm[i] - Hc) - eps)
    return m


def unstable_elements(hp, hm, c, S, field):
    """Indices i with m_i > 0 (increasing order)."""
    return [i for i, mi in enumerate(margins(hp, hm, c, S, field)) if mi > 0]


def n_unstable(hp, hm, c, S, field):
    """The number of unstable elements (margin m_i > 0) of state S at field (Hc, eps)."""
    return len(unstable_elements(hp, hm, c, S, field))


def is_stable(hp, hm, c, S, field):
    """Whether state S is stable at field (Hc, eps): no element has a positive margin."""
    return n_unstable(hp, hm, c, S, field) == 0


def step(hp, hm, c, S, field, rule):
    """One step of the dynamics from S at `field` under `rule`.

    Returns a dict with keys
      kind: 'stable' (no unstable element), 'ill_defined' (rule 0 with
            n_u > 1) or 'step';
      next_state: the new state (== S unless kind == 'step');
      flipped: list of flipped element indices;
      n_u: number of unstable elements of S;
      zero_margin_ties: number of elements with m_i == 0;
      winner_tie: True iff rule 1/1p and the winning margin was shared.
    """
    rule = rule_id(rule)
    m = margins(hp, hm, c, S, field)
    unstable = [i for i in range(len(m)) if m[i] > 0]
    zero_ties = sum(1 for mi in m if mi == 0)
    out = {
        "kind": "step",
        "next_state": S,
        "flipped": [],
        "n_u": len(unstable),
        "zero_margin_ties": zero_ties,
        "winner_tie": False,
    }
    if not unstable:
        out["kind"] = "stable"
        return out
    if rule == RULE0:
        if len(unstable) > 1:
            out["kind"] = "ill_defined"
            return out
        flipped = [unstable[0]]
    elif rule == RULE1 or rule == RULE1P:
        if rule == RULE1:
            target = max(m[i] for i in unstable)
        else:
            target = min(m[i] for i in unstable)
        winners = [i for i in unstable if m[i] == target]  # increasing index
        out["winner_tie"] = len(winners) > 1
        flipped = [winners[0]]
    else:  # RULE2: all unstable elements at once
        flipped = list(unstable)
    nxt = S
    for i in flipped:
        nxt ^= 1 << i
    out["next_state"] = nxt
    out["flipped"] = flipped
    return out


def relax(system, S, field, rule):
    """Relax state S at fixed field (Hc, eps) under `rule`.

    `system` is the tuple (hp, hm, c).  Returns a dict with keys
      outcome: 'stable' | 'self_loop' | 'ill_defined'
      final_state: stable state / state where ill-definedness was found /
                   first repeated state (self_loop)
      flips: single-element flips performed (rule 2 counts every element
             flipped in a step)
      steps: number of state transitions performed
      race_condition: True iff some state visited after the first step
                      (i.e. reached by >= 1 step) had n_u > 1
      ties: see module docstring
      L: cycle length (self_loop) else 0
      n_e: distinct elements flipping within the cycle (self_loop) else 0
      cycle_states: the L cycle states starting at the smallest bitmask, in
                    dynamical order (self_loop) else []
    Cycle detection is exact (visited-state dictionary), never a cap.
    """
    hp, hm, c = system
    rule = rule_id(rule)
    visited = {S: 0}  # state -> position in path
    path = [S]
    flips = 0
    steps = 0
    ties = 0
    race = False
    cur = S
    while True:
        st = step(hp, hm, c, cur, field, rule)
        ties += st["zero_margin_ties"]
        if st["winner_tie"]:
            ties += 1
        if steps >= 1 and st["n_u"] > 1:
            race = True
        if st["kind"] == "stable" or st["kind"] == "ill_defined":
            return {
                "outcome": "stable" if st["kind"] == "stable" else "ill_defined",
                "final_state": cur,
                "flips": flips,
                "steps": steps,
                "race_condition": race,
                "ties": ties,
                "L": 0,
                "n_e": 0,
                "cycle_states": [],
            }
        nxt = st["next_state"]
        flips += len(st["flipped"])
        steps += 1
        if nxt in visited:
            cycle = path[visited[nxt] :]
            L = len(cycle)
            changed = 0
            for k in range(L):
                changed |= cycle[k] ^ cycle[(k + 1) % L]
            start = cycle.index(min(cycle))
            cycle_states = cycle[start:] + cycle[:start]
            return {
                "outcome": "self_loop",
                "final_state": nxt,
                "flips": flips,
                "steps": steps,
                "race_condition": race,
                "ties": ties,
                "L": L,
                "n_e": popcount(changed),
                "cycle_states": cycle_states,
            }
        visited[nxt] = len(path)
        path.append(nxt)
        cur = nxt


def up_transition(system, S, rule):
    """relax(S, (Hplus(S), +1), rule); None if Hplus(S) is infinite."""
    hp, hm, c = system
    hplus, _ = state_thresholds(hp, hm, c, S)
    if not is_finite(hplus):
        return None
    return relax(system, S, (hplus, +1), rule)


def down_transition(system, S, rule):
    """relax(S, (Hminus(S), -1), rule); None if Hminus(S) is infinite."""
    hp, hm, c = system
    _, hminus = state_thresholds(hp, hm, c, S)
    if not is_finite(hminus):
        return None
    return relax(system, S, (hminus, -1), rule)


def gap_fraction(hp, hm, c):
    """Fraction of [a, b] (a = Hplus(all -1), b = Hminus(all +1)) not covered
    by the union of the closed stability intervals [Hminus(S), Hplus(S)] of the
    potentially stable states; 0.0 if a >= b.  Exact (Fraction) then float."""
    n = len(hp)
    a, _ = state_thresholds(hp, hm, c, 0)
    _, b = state_thresholds(hp, hm, c, (1 << n) - 1)
    if a >= b:
        return 0.0
    intervals = []
    for S in range(1 << n):
        hplus, hminus = state_thresholds(hp, hm, c, S)
        if not hminus < hplus:
            continue
        lo = max(hminus, a)
        hi = min(hplus, b)
        if lo <= hi:
            intervals.append((lo, hi))
    intervals.sort()
    covered = 0
    cur_lo = None
    cur_hi = None
    for lo, hi in intervals:
        if cur_lo is None:
            cur_lo, cur_hi = lo, hi
        elif lo <= cur_hi:
            if hi > cur_hi:
                cur_hi = hi
        else:
            covered += cur_hi - cur_lo
            cur_lo, cur_hi = lo, hi
    if cur_lo is not None:
        covered += cur_hi - cur_lo
    return float(Fraction(b - a - covered, b - a))


def system_observables(hp, hm, c, rule, start_state):
    """All per-system observables (see the project brief).  Returned keys:

    n_potentially_stable, ps_ties (states with Hminus == Hplus),
    n_stable_at_zero, zero_ties (states with Hminus <= 0 <= Hplus but not
    Hminus < 0 < Hplus, i.e. 0 exactly on a threshold), gap_at_zero,
    gap_fraction, self_loop_at_zero_any, self_loop_at_zero_random_start,
    n_transitions, n_self_loop_transitions, n_ill_defined_transitions,
    self_loop_any_field, loops (set of (tuple(cycle_states), L, n_e)),
    start_relax (the relax dict from start_state at (0, 0) under the rule),
    prepared (the rule-1 relaxation of start_state at (0, 0)),
    S0 (its stable state or None), first_flip_critical (element or None),
    first_flip_ties (1 if the critical element of S0 was tied, else 0; None
    if not applicable), first_state (S0 with the critical element flipped, or
    None), race_condition_first_flip, avalanche (relax dict or None),
    avalanche_size.
    """
    rule = rule_id(rule)
    system = (hp, hm, c)
    n = len(hp)
    n_states = 1 << n

    thr = [state_thresholds(hp, hm, c, S) for S in range(n_states)]

    n_ps = 0
    ps_ties = 0
    n_zero = 0
    zero_ties = 0
    for S in range(n_states):
        hplus, hminus = thr[S]
        if hminus < hplus:
            n_ps += 1
        elif hminus == hplus:
            ps_ties += 1
        if hminus < 0 < hplus:
            n_zero += 1
        elif hminus <= 0 <= hplus:
            # stable only if equality counted: 0 sits exactly on a threshold
            zero_ties += 1

    zero_field = (0, 0)
    self_loop_any_zero = False
    for S in range(n_states):
        if relax(system, S, zero_field, rule)["outcome"] == "self_loop":
            self_loop_any_zero = True
            break

    r0 = relax(system, start_state, zero_field, rule)

    n_tr = 0
    n_sl = 0
    n_ill = 0
    loops = set()
    for S in range(n_states):
        hplus, hminus = thr[S]
        if not hminus < hplus:
            continue
        results = []
        if is_finite(hplus):
            results.append(relax(system, S, (hplus, +1), rule))
        if is_finite(hminus):
            results.append(relax(system, S, (hminus, -1), rule))
        for r in results:
            n_tr += 1
            if r["outcome"] == "self_loop":
                n_sl += 1
                loops.add((tuple(r["cycle_states"]), r["L"], r["n_e"]))
            elif r["outcome"] == "ill_defined":
                n_ill += 1

    out = {
        "n_potentially_stable": n_ps,
        "ps_ties": ps_ties,
        "n_stable_at_zero": n_zero,
        "zero_ties": zero_ties,
        "gap_at_zero": n_zero == 0,
        "gap_fraction": gap_fraction(hp, hm, c),
        "self_loop_at_zero_any": self_loop_any_zero,
        "self_loop_at_zero_random_start": r0["outcome"] == "self_loop",
        "n_transitions": n_tr,
        "n_self_loop_transitions": n_sl,
        "n_ill_defined_transitions": n_ill,
        "self_loop_any_field": n_sl > 0,
        "loops": loops,
        "start_relax": r0,
        "S0": None,
        "first_flip_critical": None,
        "first_flip_ties": None,
        "first_state": None,
        "race_condition_first_flip": None,
        "avalanche": None,
        "avalanche_size": None,
    }

    # S0 is prepared with rule 1 (most unstable first) whatever the rule under study
    prep = relax(system, start_state, zero_field, 1)
    out["prepared"] = prep
    if prep["outcome"] == "stable":
        S0 = prep["final_state"]
        out["S0"] = S0
        hplus0, _ = thr[S0]
        if is_finite(hplus0):
            k, n_tied = critical_element(hp, hm, c, S0, +1)
            first = S0 | (1 << k)
            field = (hplus0, +1)
            out["first_flip_critical"] = k
            out["first_flip_ties"] = 1 if n_tied > 1 else 0
            out["first_state"] = first
            out["race_condition_first_flip"] = n_unstable(hp, hm, c, first, field) > 1
            av = relax(system, S0, field, rule)
            out["avalanche"] = av
            out["avalanche_size"] = av["flips"] if av["outcome"] == "stable" else None
    return out
