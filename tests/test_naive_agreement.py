"""The numba kernels agree exactly with the pure-Python reference ``naive.py``."""

import numpy as np
import pytest
from conftest import run_enumeration

from hyst.kernels import codes
from hyst.model.ensembles import COUPLING_ENSEMBLES, sample_systems
from hyst.model.relax import StateTables, relax_spins
from hyst.model.systems import RULES, Systems, state_to_spins
from hyst.reference import naive

OUTCOME = {"stable": 0, "self_loop": 1, "ill_defined": 2}


def _lists(sy, k):
    return (sy.h_plus[k].tolist(), sy.h_minus[k].tolist(), sy.couplings[k].tolist())


def _compare_system(cols, k, sy, rule, start, check_ties):
    hp, hm, c = _lists(sy, k)
    ref = naive.system_observables(hp, hm, c, rule, start)
    got = {name: int(cols[name][k]) for name in codes.ENUMERATION_COLUMNS}
    assert got["n_potentially_stable"] == ref["n_potentially_stable"]
    assert got["potentially_stable_ties"] == ref["ps_ties"]
    assert got["n_stable_at_zero"] == ref["n_stable_at_zero"]
    assert got["zero_ties"] == ref["zero_ties"]
    assert cols["gap_fraction"][k] == pytest.approx(float(ref["gap_fraction"]), abs=1e-12)
    assert got["self_loop_at_zero_any"] == ref["self_loop_at_zero_any"]
    r0 = ref["start_relax"]
    assert got["random_start_outcome"] == OUTCOME[r0["outcome"]]
    assert got["random_start_length"] == r0["L"]
    assert got["n_transitions"] == ref["n_transitions"]
    assert got["n_self_loop_transitions"] == ref["n_self_loop_transitions"]
    assert got["n_ill_defined_transitions"] == ref["n_ill_defined_transitions"]
    assert got["n_distinct_loops"] == len(ref["loops"])
    assert got["start_prepared"] == (ref["S0"] is not None)
    if ref["race_condition_first_flip"] is None:
        assert got["race_first_flip"] == -1
    else:
        assert got["race_first_flip"] == int(ref["race_condition_first_flip"])
    if ref["avalanche"] is None:
        assert got["avalanche_outcome"] == -1
    else:
        assert got["avalanche_outcome"] == OUTCOME[ref["avalanche"]["outcome"]]
        assert got["avalanche_size"] == (
            ref["avalanche_size"] if ref["avalanche_size"] is not None else -1
        )
    if check_ties:
        assert (got["ties"] > 0) == _naive_has_ties(ref, hp, hm, c, rule)
    return ref


def _naive_has_ties(ref, hp, hm, c, rule):
    walks = [ref["start_relax"]]
    for S in range(1 << len(hp)):
        up, dn = naive.state_thresholds(hp, hm, c, S)
        if dn < up:
            for r in (
                naive.up_transition((hp, hm, c), S, rule),
                naive.down_transition((hp, hm, c), S, rule),
            ):
                if r is not None:
                    walks.append(r)
    if ref["avalanche"] is not None:
        walks.append(ref["avalanche"])
    return any(w["ties"] for w in walks) or bool(ref["first_flip_ties"])


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("couplings", list(COUPLING_ENSEMBLES))
def test_ensembles_match_naive(rule, couplings, rng):
    for N in (2, 3, 4, 5):
        spans = ("hysteron", "spin", "equal")[N % 3]
        sy = sample_systems(couplings, spans, N, float(rng.choice([0.3, 3.0, 30.0])), 12, rng)
        starts = rng.integers(0, 1 << N, 12)
        cols = run_enumeration(sy, rule=rule, starts=starts)
        hist_L = np.zeros_like(cols["hist_L"])
        hist_ne = np.zeros_like(cols["hist_ne"])
        for k in range(sy.samples):
            ref = _compare_system(cols, k, sy, rule, int(starts[k]), check_ties=True)
            for _states, L, n_e in ref["loops"]:
                hist_L[L] += 1
                hist_ne[n_e] += 1
        assert np.array_equal(hist_L, cols["hist_L"])
        assert np.array_equal(hist_ne, cols["hist_ne"])


@pytest.mark.parametrize("rule", list(RULES))
def test_negative_spans_and_small_integers_match_naive(rule, rng):
    """Small integer parameters make exact ties frequent; negative spans give L = 2 loops."""
    n, N = 60, 4
    mid = rng.integers(-3, 4, (n, N))
    half = rng.integers(-1, 3, (n, N))
    c = rng.integers(-3, 4, (n, N, N))
    c[:, np.arange(N), np.arange(N)] = 0
    sy = Systems(mid + half, mid - half, c.astype(np.int64))
    starts = rng.integers(0, 1 << N, n)
    cols = run_enumeration(sy, rule=rule, starts=starts)
    tied = 0
    for k in range(n):
        _compare_system(cols, k, sy, rule, int(starts[k]), check_ties=True)
        tied += cols["ties"][k] > 0
    assert tied > 5  # the tie paths were exercised


@pytest.mark.parametrize("rule", list(RULES))
def test_relaxations_match_naive_from_every_state(rule, rng):
    """Every state, fields at random thresholds and at 0: bitmask and array kernels vs naive."""
    for N in (3, 5, 6):
        sy = sample_systems("random", "hysteron", N, 20.0, 3, rng)
        for k in range(sy.samples):
            tables = StateTables(sy, k)
            system = _lists(sy, k)
            for S in range(1 << N):
                T = int(rng.integers(0, 1 << N))
                for field in ((0, 0), (int(tables.hplus[T]), 1), (int(tables.hminus[T]), -1)):
                    if abs(field[0]) >= 2**61:
                        continue
                    ref = naive.relax(system, S, field, rule)
                    got = tables.relax(S, field, rule)
                    assert got.outcome == ref["outcome"]
                    assert (got.flips, got.steps, got.L, got.n_e) == (
                        ref["flips"],
                        ref["steps"],
                        ref["L"],
                        ref["n_e"],
                    )
                    assert got.race_condition == ref["race_condition"]
                    assert got.cycle_states == tuple(ref["cycle_states"])
                    if got.outcome != "self_loop":
                        assert got.final_state == ref["final_state"]
                    arr, _ = relax_spins(sy, state_to_spins(S, N), field, rule, index=k)
                    assert (arr.outcome, arr.flips, arr.L, arr.n_e) == (
                        got.outcome,
                        got.flips,
                        got.L,
                        got.n_e,
                    )


@pytest.mark.parametrize("rule", list(RULES))
def test_ties_reported_per_relaxation_like_naive(rule, rng):
    """Small integers: every relaxation reports a tie exactly when the reference meets one."""
    n, N = 25, 4
    mid = rng.integers(-3, 4, (n, N))
    half = rng.integers(0, 2, (n, N))
    c = rng.integers(-2, 3, (n, N, N))
    c[:, np.arange(N), np.arange(N)] = 0
    sy = Systems(mid + half, mid - half, c.astype(np.int64))
    seen = 0
    for k in range(n):
        tables = StateTables(sy, k)
        system = _lists(sy, k)
        for S in range(1 << N):
            for field in ((0, 0), (int(rng.integers(-4, 5)), 1), (int(rng.integers(-4, 5)), -1)):
                ref = naive.relax(system, S, field, rule)
                got = tables.relax(S, field, rule)
                assert (got.ties > 0) == (ref["ties"] > 0), (k, S, field)
                assert got.outcome == ref["outcome"] and got.flips == ref["flips"]
                seen += got.ties > 0
    assert seen > 50


def test_distinct_loops_counted_exactly_beyond_64_per_system():
    """Constant columns under rule 2 at large coupling meet 70–100 distinct L = 2 loops per
    system at N = 8: each is counted once, like the reference (the kernel once kept only
    the first 64 loops and counted every later repeat as new)."""
    rng = np.random.default_rng(3)
    sy = sample_systems("columns", "hysteron", 8, 100.0, 40, rng)
    cols = run_enumeration(sy, rule="2", starts=np.zeros(40, np.int64))
    hist_L = np.zeros_like(cols["hist_L"])
    for k in range(sy.samples):
        hp, hm, c = _lists(sy, k)
        ref = naive.system_observables(hp, hm, c, "2", 0)
        assert cols["n_distinct_loops"][k] == len(ref["loops"])
        for _states, L, _n_e in ref["loops"]:
            hist_L[L] += 1
    assert np.array_equal(hist_L, cols["hist_L"])
    assert (cols["n_distinct_loops"] > 64).sum() >= 5
