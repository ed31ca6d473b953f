"""Realizability of fundamental loops: design inequalities, LP, certificates, re-simulation."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hyst.combinatorics import design, lp, realize
from hyst.combinatorics import structures as S
from hyst.combinatorics.tables import PAPER_MR, PAPER_MW
from hyst.model.ensembles import sample_systems
from hyst.reference import naive

_REPS: dict = {}


def reps(cell):
    if cell not in _REPS:
        _REPS[cell] = S.representatives(*cell)
    return _REPS[cell]


SMALL = sorted(c for c in PAPER_MR if c[0] <= 4)


@pytest.mark.parametrize("cell", SMALL)
def test_paper_realizability_counts(cell):
    out = [realize.classify(loop, ("R", "W+")) for loop in reps(cell)]
    counts = {k: Counter(o[k].status for o in out) for k in ("R", "W+")}
    # every answer checked: no failure of any kind
    assert set(counts["R"]) | set(counts["W+"]) <= {"feasible", "infeasible"}
    assert counts["R"]["feasible"] == PAPER_MR[cell]
    assert counts["W+"]["feasible"] == PAPER_MW[cell]


@pytest.mark.slow
def test_paper_realizability_five_elements():
    out = [realize.classify(loop, ("R", "W+")) for loop in reps((5, 10))]
    assert sum(o["R"].status == "feasible" for o in out) == PAPER_MR[(5, 10)] == 796
    assert sum(o["W+"].status == "feasible" for o in out) == PAPER_MW[(5, 10)] == 376


def test_other_variants_of_the_small_cells():
    # positive spans cut M_R(4, 10) from 114 to 104; any spans lift M_W(4, 10) from 4 to 40
    out = [realize.classify(loop, ("R+", "W")) for loop in reps((4, 10))]
    assert sum(o["R+"].status == "feasible" for o in out) == 104
    assert sum(o["W"].status == "feasible" for o in out) == 40


@pytest.mark.parametrize("cell,every", [((3, 6), 1), ((4, 10), 2), ((4, 14), 8)])
def test_compact_form_agrees_with_h_eliminated(cell, every):
    for loop in reps(cell)[::every]:
        for weak, spans in [(False, "any"), (True, "positive")]:
            a = realize.realize(loop, weak=weak, spans=spans, eliminate=True).status
            b = realize.realize(loop, weak=weak, spans=spans, eliminate=False).status
            assert a == b


@st.composite
def any_loop(draw):
    cell = draw(st.sampled_from([(2, 4), (3, 6), (3, 8), (4, 10), (4, 14), (5, 10)]))
    pool = reps(cell)
    return pool[draw(st.integers(0, len(pool) - 1))]


@given(any_loop(), st.sampled_from(sorted(design.MODES)))
def test_design_kernel_matches_the_plain_reference(loop, mode):
    a = design.design_system(loop, mode)
    b = design.reference_system(loop, mode)
    for name in ("lower2", "upper2", "selection", "weak"):
        assert sorted(map(tuple, getattr(a, name))) == sorted(map(tuple, getattr(b, name)))


def test_threshold_rows_evaluate_the_model():
    rng = np.random.default_rng(3)
    n = 4
    hp, hm = rng.integers(-50, 50, n), rng.integers(-50, 50, n)
    c = rng.integers(-30, 30, (n, n))
    np.fill_diagonal(c, 0)
    x = design.variables(hp, hm, c)
    assert all(
        np.array_equal(a, b) for a, b in zip(design.parameters(n, x), (hp, hm, c), strict=True)
    )
    for state in range(2**n):
        Hp, Hm = naive.thresholds(hp.tolist(), hm.tolist(), c.tolist(), state)
        for i in range(n):
            assert design.threshold_form(n, i, True, state) @ x == Hp[i]
            assert design.threshold_form(n, i, False, state) @ x == Hm[i]


# --- loops found by simulating random systems -------------------------------------------


def _system_loops(systems, index):
    """Self-loops met by the up/down transitions of every potentially stable state
    (the naive oracle, rule 1), with the transition field."""
    hp = systems.h_plus[index].tolist()
    hm = systems.h_minus[index].tolist()
    c = systems.couplings[index].tolist()
    found = {}
    for state in range(2 ** len(hp)):
        up, down = naive.state_thresholds(hp, hm, c, state)
        if not down < up:
            continue
        for field in ((up, +1), (down, -1)):
            if not naive.is_finite(field[0]):
                continue
            out = naive.relax((hp, hm, c), state, field, "1")
            if out["outcome"] == "self_loop":
                found.setdefault(tuple(out["cycle_states"]), field)
    return (hp, hm, c), found


def _conservative_holds(system, states, field):
    """No loop element is unstable in the direction opposite to its loop step's flip."""
    hp, hm, c = system
    L = len(states)
    active = 0
    for k in range(L):
        active |= states[k] ^ states[(k + 1) % L]
    for k in range(L):
        flip = states[k] ^ states[(k + 1) % L]
        going_up = not states[k] & flip
        m = naive.margins(hp, hm, c, states[k], field)
        for i in range(len(hp)):
            if (active >> i) & 1 and m[i] > 0 and bool((states[k] >> i) & 1) == going_up:
                return False
    return True


def _check_simulated_loops(couplings, weak, trials, rng):
    seen = Counter()
    for N in (2, 3, 4, 5):
        systems = sample_systems(couplings, "hysteron", N, 3.0 * N, trials, rng)
        for index in range(trials):
            system, found = _system_loops(systems, index)
            for states, field in found.items():
                loop = S.canonical(S.loop_from_states(states))
                modes = ["rule1"] + (
                    ["conservative"] if _conservative_holds(system, states, field) else []
                )
                for mode in modes:
                    res = realize.realize(loop, weak=weak, mode=mode, spans="positive")
                    assert res.status == "feasible", (states, mode, res.message)
                    _resimulate_with_oracle(loop, res)
                    seen[(loop.n_e, loop.L, mode)] += 1
    return seen


def _resimulate_with_oracle(loop, res):
    """The certificate (integer point and field) gives the loop under the naive oracle."""
    hp, hm, c = (a.tolist() for a in design.parameters(loop.n_e, res.point))
    out = naive.relax((hp, hm, c), loop.start, (res.field2 // 2, +1), "1")
    assert out["outcome"] == "self_loop" and out["ties"] == 0
    assert S.canonical(S.loop_from_states(out["cycle_states"])) == loop
    assert set(out["cycle_states"]) == set(loop.states())


def test_loops_of_random_systems_are_feasible():
    seen = _check_simulated_loops("random", False, 60, np.random.default_rng(11))
    # the search met loops of several sizes, including non-conservative ones
    assert sum(seen.values()) > 50
    assert {ne for ne, _L, _m in seen} >= {2, 3}
    assert any(m == "conservative" for *_x, m in seen)


def test_loops_of_weakly_asymmetric_systems_are_weak_feasible():
    seen = _check_simulated_loops("weak", True, 60, np.random.default_rng(12))
    assert sum(seen.values()) > 5
    assert all(L > 4 for _ne, L, _m in seen)  # weak asymmetry has no L = 4 loop


# --- infeasible loops and their certificates ---------------------------------------------


def test_longest_loops_of_three_elements_are_not_realizable():
    for loop in reps((3, 8)):
        res = realize.realize(loop)
        assert res.status == "infeasible" and res.residual < 1e-9
        strict, weak = realize.lp_rows(design.design_system(loop))
        assert lp.certificate_is_exact(strict, weak, res.certificate)


def test_weak_asymmetry_excludes_the_square_loop():
    (loop,) = reps((2, 4))
    assert realize.realize(loop).status == "feasible"
    res = realize.realize(loop, weak=True, spans="positive")
    assert res.status == "infeasible" and res.leaves == 2  # both sign patterns refuted


def test_certificate_check_rejects_a_wrong_certificate():
    (loop, _) = reps((3, 8))
    system = design.design_system(loop)
    strict, weak = realize.lp_rows(system)
    res = realize.realize(loop)
    bad = res.certificate.copy()
    k = int(np.argmax(bad))
    bad[k] *= 2
    assert not lp.certificate_is_exact(strict, weak, bad)
    assert lp.certificate_is_exact(strict, weak, res.certificate)
    # -y also sums the rows to zero, but negative multipliers prove nothing
    assert not lp.certificate_is_exact(strict, weak, -res.certificate)


def test_a_failed_simulation_is_reported(monkeypatch):
    """A point that does not give the loop is reported as a failure, never dropped."""
    (loop,) = reps((2, 4))
    real = realize.simulate

    def wrong_start(lp, system, q):
        return real(S.Loop(lp.start ^ 1, lp.flips), system, q)

    monkeypatch.setattr(realize, "simulate", wrong_start)
    assert realize.realize(loop).status == "failed_simulation"


def test_variants_share_the_root_lp():
    loop = reps((3, 8))[0]
    out = realize.classify(loop, ("R", "R+", "W", "W+"))
    assert {k: v.status for k, v in out.items()} == dict.fromkeys(out, "infeasible")
    assert out["R"].lps == 1 and all(out[k].lps == 0 for k in ("R+", "W", "W+"))
    with pytest.raises(ValueError, match="variant"):
        realize.classify(loop, ("M",))


# --- the field range of a loop in a given system -----------------------------------------


def _even_beyond(two_h: int, side: int) -> int:
    """The even integer nearest to two_h strictly on one side (+1 above, −1 below)."""
    return two_h + side if two_h % 2 else two_h + 2 * side


def test_field_range_of_loops_in_random_systems():
    from hyst.model.relax import StateTables

    rng = np.random.default_rng(5)
    checked = 0
    for N in (2, 3, 4, 5):
        systems = sample_systems("random", "hysteron", N, 3.0 * N, 30, rng)
        for index in range(30):
            tables = StateTables(systems, index)
            params = (systems.h_plus[index], systems.h_minus[index], systems.couplings[index])
            for state in range(2**N):
                if not tables.hminus[state] < tables.hplus[state]:
                    continue
                for field in ((int(tables.hplus[state]), 1), (int(tables.hminus[state]), -1)):
                    if abs(field[0]) >= 2**60:
                        continue
                    rel = tables.relax(state, field, "1")
                    if rel.outcome != "self_loop":
                        continue
                    lo, hi = design.field_range(*params, rel.cycle_states)
                    assert lo < 2 * field[0] + field[1] * 0.5 < hi
                    # exact fields (eps = 0, 2H even) just inside and just outside both ends
                    probes = [(_even_beyond(lo, -1), False), (_even_beyond(hi, 1), False)]
                    if _even_beyond(lo, 1) < hi:
                        probes += [(_even_beyond(lo, 1), True), (_even_beyond(hi, -1), True)]
                    for two_h, inside in probes:
                        again = tables.relax(rel.cycle_states[0], (two_h // 2, 0), "1")
                        same = (
                            again.outcome == "self_loop" and again.cycle_states == rel.cycle_states
                        )
                        assert same == inside, (lo, hi, two_h)
                    checked += 1
    assert checked > 40


def test_field_range_is_none_for_a_cycle_that_never_occurs():
    # two uncoupled hysterons: no self-loop at any field
    hp, hm, c = np.array([10, 20]), np.array([-10, -20]), np.zeros((2, 2), np.int64)
    assert design.field_range(hp, hm, c, [0, 1, 3, 2]) is None


def test_stacked_lps_answer_like_single_lps():
    loops = reps((4, 10))[::3] + reps((3, 8))
    problems = []
    for k, loop in enumerate(loops):
        strict, weak = realize.lp_rows(design.design_system(loop), eliminate=k % 2 == 0)
        fixes = {design.coupling_index(loop.n_e, 0, 1): 1} if k % 3 == 0 else {}
        problems.append((strict, weak, fixes))
    stacked = lp.solve_many(problems)
    single = [lp.solve(*p) for p in problems]
    assert [a.feasible for a in stacked] == [a.feasible for a in single]
    assert 0 < sum(a.feasible for a in stacked) < len(problems)
    for (strict, weak, fixes), a in zip(problems, stacked, strict=True):
        assert a.ok
        if a.feasible:
            assert (strict @ a.x).min() > 0.99
        else:
            assert lp.certificate_is_exact(strict, weak, a.y, fixes)


def test_many_loops_at_once_answer_like_one_by_one():
    loops = reps((4, 12))[::5]
    together = realize.classify_many(loops, ("R", "W+"))
    again = realize.classify_many(loops, ("R", "W+"))
    for a, b in zip(together, again, strict=True):  # the same stacking: the same everything
        assert [(v.status, v.lps, v.field2) for v in a.values()] == [
            (v.status, v.lps, v.field2) for v in b.values()
        ]
    alone = [realize.classify(loop, ("R", "W+")) for loop in loops]
    for a, b in zip(together, alone, strict=True):
        # the answers are exact; which witness point (hence the branching) HiGHS returns
        # may depend on the stacking
        assert {k: v.status for k, v in a.items()} == {k: v.status for k, v in b.items()}
