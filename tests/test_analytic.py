"""Analytic facts from the paper that the kernels must reproduce."""

import numpy as np
import pytest
from conftest import run_enumeration

from hyst.kernels import codes
from hyst.model.ensembles import sample_systems
from hyst.model.systems import Systems

ZERO = codes.WHAT_ZERO_FIELD
TRANS = codes.WHAT_TRANSITIONS


@pytest.mark.parametrize("N", [2, 3, 5, 8])
def test_uncoupled_spins_have_exactly_N_plus_1_potentially_stable_states(N, rng):
    """J0 -> 0: the spin states ordered by threshold; exactly N + 1 are potentially stable."""
    sy = sample_systems("random", "spin", N, 1e-7, 300, rng)
    cols = run_enumeration(sy, what=ZERO)
    assert np.all(cols["n_potentially_stable"] == N + 1)
    assert np.all(cols["potentially_stable_ties"] == 0)


@pytest.mark.parametrize("N,NJ0", [(4, 1.0), (6, 10.0), (8, 100.0)])
def test_spins_mean_potentially_stable_over_N_plus_1_is_one(N, NJ0, rng):
    """Ensemble mean of P_s 2^N / (N + 1) for spins is 1 at any coupling (within 4 s.e.)."""
    sy = sample_systems("random", "spin", N, NJ0, 4000, rng)
    ratio = run_enumeration(sy, what=ZERO)["n_potentially_stable"] / (N + 1)
    err = ratio.std(ddof=1) / np.sqrt(ratio.size)
    assert abs(ratio.mean() - 1) < 4 * err + 1e-12


def _two_element_systems(rng, n, sigma=0.0):
    h1, h2 = rng.uniform(-1, 1, (2, n))
    c12, c21 = rng.uniform(-2, 2, (2, n))
    hp = np.stack([h1 + sigma / 2, h2 + sigma / 2], axis=1)
    hm = np.stack([h1 - sigma / 2, h2 - sigma / 2], axis=1)
    c = np.zeros((n, 2, 2))
    c[:, 0, 1], c[:, 1, 0] = c12, c21
    return Systems.from_floats(hp, hm, c), h1, h2, c12, c21


@pytest.mark.parametrize("rule", ["0", "1", "1p"])
def test_two_spins_L4_self_loop_iff_opposite_signs_and_large_asymmetry(rule, rng):
    """N = 2 spins: an L = 4 self-loop occurs iff c12 c21 < 0 and |c12 − c21| > |h2 − h1|."""
    sy, h1, h2, c12, c21 = _two_element_systems(rng, 5000)
    cols = run_enumeration(sy, rule=rule, what=TRANS)
    hp, _, c = sy.to_floats()
    expected = (c[:, 0, 1] * c[:, 1, 0] < 0) & (
        np.abs(c[:, 0, 1] - c[:, 1, 0]) > np.abs(hp[:, 1] - hp[:, 0])
    )
    got = cols["n_self_loop_transitions"] > 0
    assert 0.1 < expected.mean() < 0.9  # both classes are well represented
    assert np.array_equal(got, expected)
    assert set(np.flatnonzero(cols["hist_L"])) <= {4}


def test_two_hysterons_equal_span_loop_region(rng):
    """N = 2, σ1 = σ2 = σ: L = 4 loops need c12 c21 < 0, |c_kl| > σ/2 and |Δc| > |Δh^c + σ|
    (necessary conditions from the Supplemental, checked on every instance found)."""
    sigma = 0.5
    sy, h1, h2, c12, c21 = _two_element_systems(rng, 20000, sigma)
    cols = run_enumeration(sy, what=TRANS)
    hp, hm, c = sy.to_floats()
    loop = cols["n_self_loop_transitions"] > 0
    assert loop.sum() > 100
    c12, c21 = c[loop, 0, 1], c[loop, 1, 0]
    dh = np.abs((hp[loop, 1] + hm[loop, 1]) / 2 - (hp[loop, 0] + hm[loop, 0]) / 2)
    assert np.all(c12 * c21 < 0)
    assert np.all(np.minimum(np.abs(c12), np.abs(c21)) > sigma / 2 - 1e-9)
    assert np.all(np.abs(c12 - c21) > dh + sigma - 1e-9)
    # ... and the loop disappears for all systems with weak asymmetry
    assert not np.any(loop & (c[:, 0, 1] * c[:, 1, 0] > 0))


@pytest.mark.parametrize("rule", ["0", "1", "1p"])
@pytest.mark.parametrize("spans", ["hysteron", "spin", "equal"])
def test_single_flip_rules_give_only_even_loops_of_length_at_least_4(rule, spans, rng):
    """σ_i ≥ 0 and one flip at a time: every element flips back, so L is even and L ≥ 4."""
    for N in (3, 5, 7):
        sy = sample_systems("random", spans, N, 30.0, 400, rng)
        cols = run_enumeration(sy, rule=rule)
        hist = cols["hist_L"]
        assert hist[4:].sum() > 0
        assert hist[:4].sum() == 0
        assert hist[1::2].sum() == 0
        # the H = 0 random-start loops too
        assert np.all(cols["random_start_length"] % 2 == 0)
        assert not np.any(cols["random_start_length"] == 2)


def test_rule2_allows_L2_loops(rng):
    sy = sample_systems("random", "hysteron", 6, 30.0, 500, rng)
    assert run_enumeration(sy, rule="2")["hist_L"][2] > 0


def test_L2_loop_under_rule1_needs_a_negative_span(rng):
    """One element with h^+ < h^−: at a field between them it flips forever (L = 2)."""
    sy = Systems.from_floats([[-0.2, 0.9]], [[0.2, 0.95]], [[0.0, 0.01], [0.02, 0.0]])
    # element 0 has a negative span: at H in (H^+, H^−) it is unstable in both states
    cols = run_enumeration(sy, what=TRANS)
    assert cols["hist_L"][2] >= 1
    # random systems with a few negative spans: every L = 2 loop flips a negative-span element
    n, N = 3000, 4
    mid = rng.uniform(-1, 1, (n, N))
    sigma = rng.uniform(-0.3, 0.5, (n, N))
    c = rng.uniform(-0.5, 0.5, (n, N, N))
    sy = Systems.from_floats(mid + sigma / 2, mid - sigma / 2, c)
    cols = run_enumeration(sy, what=TRANS, K=0)
    assert cols["hist_L"][2] > 0
    no_negative = np.all(sigma >= 0, axis=1)
    positive = run_enumeration(sy[no_negative], what=TRANS, K=0)
    assert positive["hist_L"][2] == 0


def test_gap_implies_no_stable_state_and_fraction_bounds(rng):
    sy = sample_systems("random", "hysteron", 6, 20.0, 2000, rng)
    cols = run_enumeration(sy, what=ZERO)
    g = cols["gap_fraction"]
    assert np.all((g >= 0) & (g <= 1))
    # N = 2: a self-loop at H = 0 needs all four states unstable, i.e. a gap at H = 0
    sy2 = sample_systems("random", "spin", 2, 10.0, 4000, rng)
    c2 = run_enumeration(sy2, what=ZERO)
    gap = c2["n_stable_at_zero"] == 0
    assert np.array_equal(gap, c2["self_loop_at_zero_any"] == 1)


def test_gap_fraction_of_a_hand_made_two_spin_gap():
    """Two spins, c12 = −c21 = c: the gap between the saturated states is |Δc| − |Δh^c|."""
    c = 0.6
    sy = Systems.from_floats([[0.0, 0.5]], [[0.0, 0.5]], [[0.0, c], [-c, 0.0]])
    cols = run_enumeration(sy, what=ZERO)
    a = 0.5 + (-c)  # H^+(−−) = min(h1 + c12, h2 + c21) = h2 + c21
    b = 0.5 - (-c)  # H^−(++) = max(h1 − c12, h2 − c21) = h2 − c21
    gap = abs(2 * c) - 0.5  # |Δc| − |Δh^c|
    assert cols["gap_fraction"][0] == pytest.approx(gap / (b - a), abs=1e-9)
    assert cols["n_stable_at_zero"][0] == 0  # H = 0 lies inside the gap (−0.1, 0.6)
