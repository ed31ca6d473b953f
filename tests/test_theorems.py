"""Ensemble theorems of the paper as property tests (hypothesis)."""

import numpy as np
from conftest import run_enumeration
from hypothesis import given
from hypothesis import strategies as st

from hyst.model.ensembles import sample_systems
from hyst.model.relax import StateTables
from hyst.model.systems import INF

seeds = st.integers(0, 2**32 - 1)
Ns = st.integers(2, 8)
NJ0s = st.floats(0.01, 1000.0)
spans = st.sampled_from(["hysteron", "spin", "equal"])
single_flip = st.sampled_from(["0", "1", "1p"])


@given(
    seed=seeds,
    N=Ns,
    NJ0=NJ0s,
    spans=spans,
    rule=single_flip,
    couplings=st.sampled_from(["symmetric", "ferro", "columns", "rows"]),
)
def test_self_loop_free_ensembles_never_self_loop(seed, N, NJ0, spans, rule, couplings):
    """No transition out of a stable state ends in a self-loop (Appendices A–D).

    The proofs for ferro, constant columns and constant rows concern avalanches
    triggered from a stable state; only the Lyapunov argument for symmetric
    couplings covers relaxation from *any* state (checked via the H = 0 map).
    """
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, NJ0, 30, rng)
    starts = rng.integers(0, 1 << N, 30)
    cols = run_enumeration(sy, rule=rule, starts=starts)
    assert cols["n_self_loop_transitions"].sum() == 0
    assert np.all(cols["avalanche_outcome"] != 1)
    if couplings == "symmetric":
        assert cols["self_loop_at_zero_any"].sum() == 0
        assert np.all(cols["random_start_outcome"] != 1)


def test_ferro_relaxation_from_an_arbitrary_unstable_state_can_cycle():
    """Beyond the paper's theorem: from a state with several unstable elements of both
    signs, rule 1' can cycle at H = 0 even with c_ij >= 0 (found by the property test
    above; both kernels agree). Every state of such a cycle has a race condition.
    (System 0 of this draw is such an example under sampling version 4.)"""
    rng = np.random.default_rng(31)
    sy = sample_systems("ferro", "spin", 6, 2.0, 30, rng)
    tables = StateTables(sy, 0)
    loops = [tables.relax(S, (0, 0), "1p") for S in range(64)]
    loops = [r for r in loops if r.outcome == "self_loop"]
    assert loops and all(r.race_condition for r in loops)
    assert {r.L for r in loops} == {6}


def _transitions(tables):
    """(state, field) of every transition out of every potentially stable state."""
    for S in range(1 << tables.N):
        if tables.hminus[S] < tables.hplus[S]:
            if tables.hplus[S] < INF:
                yield S, (int(tables.hplus[S]), 1)
            if tables.hminus[S] > -INF:
                yield S, (int(tables.hminus[S]), -1)


def _trajectory(tables, S, field, rule, limit=10_000):
    states = [S]
    for _ in range(limit):
        S2, code = tables.step(states[-1], field, rule)
        if code != 1:
            return states
        states.append(S2)
    raise AssertionError("trajectory did not settle")


def _two_V(hp, hm, c, S, field):
    """2V(S) at H = Hc + eps 0⁺ as (value, coefficient of 0⁺), exact integers.

    V = −Σ_i [s_i (H − h_i^±) + ½ Σ_j c_ij s_i s_j], with h_i^+ for s_i = −1 and
    h_i^− for s_i = +1 (Eq. 2 of the paper)."""
    Hc, eps = field
    N = len(hp)
    s = [1 if (S >> i) & 1 else -1 for i in range(N)]
    val = 0
    for i in range(N):
        h = int(hm[i]) if s[i] > 0 else int(hp[i])
        val -= 2 * s[i] * (Hc - h) + sum(int(c[i, j]) * s[i] * s[j] for j in range(N))
    return val, -2 * eps * sum(s)


@given(seed=seeds, N=st.integers(2, 6), NJ0=NJ0s, spans=spans, rule=single_flip)
def test_symmetric_interactions_strictly_decrease_V(seed, N, NJ0, spans, rule):
    rng = np.random.default_rng(seed)
    sy = sample_systems("symmetric", spans, N, NJ0, 1, rng)
    tables = StateTables(sy)
    hp, hm, c = sy.h_plus[0], sy.h_minus[0], sy.couplings[0]
    fields = list(_transitions(tables))
    fields += [(int(rng.integers(0, 1 << N)), (0, 0)) for _ in range(4)]
    for S, field in fields:
        traj = _trajectory(tables, S, field, rule)
        Vs = [_two_V(hp, hm, c, x, field) for x in traj]
        assert all(b < a for a, b in zip(Vs, Vs[1:], strict=False)), (traj, Vs)


@given(seed=seeds, N=Ns, NJ0=NJ0s, spans=spans, rule=st.sampled_from(["0", "1", "1p", "2"]))
def test_ferromagnetic_avalanches_are_monotonic(seed, N, NJ0, spans, rule):
    rng = np.random.default_rng(seed)
    sy = sample_systems("ferro", spans, N, NJ0, 1, rng)
    tables = StateTables(sy)
    for S, field in _transitions(tables):
        m = [bin(x).count("1") for x in _trajectory(tables, S, field, rule)]
        steps = np.diff(m)
        assert np.all(steps > 0) or np.all(steps < 0)
        assert np.all(np.sign(steps) == field[1])


@given(seed=seeds, N=Ns, NJ0=NJ0s, spans=spans, rule=single_flip)
def test_constant_rows_avalanches_have_at_most_two_flips(seed, N, NJ0, spans, rule):
    rng = np.random.default_rng(seed)
    sy = sample_systems("rows", spans, N, NJ0, 1, rng)
    tables = StateTables(sy)
    for S, field in _transitions(tables):
        r = tables.relax(S, field, rule)
        assert r.outcome in ("stable", "ill_defined")
        assert r.flips <= 2
        if r.flips == 2:  # one up and one down: the magnetisation is unchanged
            assert bin(r.final_state).count("1") == bin(S).count("1")


def test_theorem_tests_can_fail():
    """The same checks on random couplings do find self-loops and rising V."""
    rng = np.random.default_rng(5)
    sy = sample_systems("random", "hysteron", 6, 50.0, 200, rng)
    assert run_enumeration(sy)["n_self_loop_transitions"].sum() > 0
    sy = sample_systems("random", "spin", 4, 50.0, 50, rng)
    increased = False
    for k in range(sy.samples):
        tables = StateTables(sy, k)
        hp, hm, c = sy.h_plus[k], sy.h_minus[k], sy.couplings[k]
        for S, field in _transitions(tables):
            x, prev = S, _two_V(hp, hm, c, S, field)
            for _ in range(16):
                x, code = tables.step(x, field, "1")
                if code != 1:
                    break
                V = _two_V(hp, hm, c, x, field)
                increased |= V >= prev
                prev = V
    assert increased


@given(
    seed=seeds,
    N=Ns,
    NJ0=NJ0s,
    spans=spans,
    couplings=st.sampled_from(["symmetric", "ferro", "columns", "rows"]),
)
def test_rule_two_loops_of_well_behaved_ensembles_have_length_two(seed, N, NJ0, spans, couplings):
    """Supplemental, rule 2: symmetric, constant-column and constant-row couplings self-loop
    with L = 2 only; ferromagnetic couplings never self-loop in transitions out of stable
    states (every flip goes along the drive). The guard checks the same on every batch."""
    from hyst.sampling.sampler import Point, check_self_loop_free
    from hyst.sampling.tallies import Tally

    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, NJ0, 30, rng)
    cols = run_enumeration(sy, rule="2", starts=rng.integers(0, 1 << N, 30))
    hist = cols["hist_L"]
    if couplings == "ferro":
        assert cols["n_self_loop_transitions"].sum() == 0
    else:
        assert hist.sum() == hist[2]
    tally = Tally()
    tally.add_hist("self_loop_length_hist", hist)
    tally.add_count("self_loop_probability", int((cols["n_self_loop_transitions"] > 0).sum()))
    check_self_loop_free(Point(couplings, spans, "2", N, NJ0), tally)


def test_rule_two_guard_stops_a_batch_that_contradicts_the_paper():
    import pytest

    from hyst.sampling.sampler import Point, check_self_loop_free
    from hyst.sampling.tallies import Tally

    tally = Tally()
    tally.add_hist("self_loop_length_hist", [0, 0, 5])
    tally.add_count("self_loop_probability", 5)
    check_self_loop_free(Point("rows", "hysteron", "2", 8, 1.0), tally)
    with pytest.raises(RuntimeError, match="ferro"):
        check_self_loop_free(Point("ferro", "hysteron", "2", 8, 1.0), tally)
    tally.add_hist("saturated_loop_length_hist", [0, 0, 1, 0, 1])
    with pytest.raises(RuntimeError, match=r"saturated_loop_length_hist \(L != 2\)"):
        check_self_loop_free(Point("symmetric", "hysteron", "2", 8, 1.0), tally)
    check_self_loop_free(Point("random", "hysteron", "2", 8, 1.0), tally)
