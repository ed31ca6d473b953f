"""Hand-checkable facts about the reference implementation hyst.reference.naive."""

import random

import pytest

from hyst.reference import naive as nv

R = 10**6  # large integer ranges: exact ties are (practically) impossible


def _random_system(rng, n, span="hyst", J=3):
    hp = [rng.randint(-R, R) for _ in range(n)]
    if span == "spins":
        hm = list(hp)
    elif span == "hyst":
        hm = [x - rng.randint(0, R) for x in hp]
    else:  # negative spans allowed
        hm = [x - rng.randint(-R, R) for x in hp]
    c = [[0 if i == j else rng.randint(-J * R, J * R) for j in range(n)] for i in range(n)]
    return hp, hm, c


# ---------------------------------------------------------------- thresholds


def test_thresholds_by_hand():
    hp, hm = [1, 2, 3], [-1, -2, -3]
    c = [[0, 10, 100], [1000, 0, 10000], [7, 70, 0]]
    S = 0b101  # s0=+1, s1=-1, s2=+1
    Hp, Hm = nv.thresholds(hp, hm, c, S)
    # sum_j c_ij s_j: i=0: -10+100=90; i=1: 1000+10000=11000; i=2: 7-70=-63
    assert Hp == [1 - 90, 2 - 11000, 3 + 63]
    assert Hm == [-1 - 90, -2 - 11000, -3 + 63]
    hplus, hminus = nv.state_thresholds(hp, hm, c, S)
    assert hplus == 2 - 11000  # only element 1 is down
    assert hminus == max(-1 - 90, -3 + 63)
    assert nv.state_thresholds(hp, hm, c, 0)[1] == -nv.INF
    assert nv.state_thresholds(hp, hm, c, 0b111)[0] == nv.INF


def test_margins_and_ties():
    # single element exactly at its threshold: tie at eps=0, unstable at +0
    sys1 = ([0], [-5], [[0]])
    r = nv.relax(sys1, 0, (0, 0), 1)
    assert r["outcome"] == "stable" and r["ties"] == 1 and r["flips"] == 0
    r = nv.relax(sys1, 0, (0, +1), 1)
    assert r["outcome"] == "stable" and r["final_state"] == 1 and r["flips"] == 1
    assert r["ties"] == 0
    assert nv.margins(*sys1, 0, (3, -1)) == [2 * 3 - 1]
    assert nv.margins(*sys1, 1, (3, -1)) == [2 * (-5 - 3) + 1]


# ---------------------------------------------------------------- dynamics


RACE3 = ([0, 10, 10], [-100, -100, -100], [[0, 0, 0], [20, 0, -20], [30, -30, 0]])


def test_race_condition_rules_by_hand():
    # From all-down at H = 0+ element 0 flips; then element 1 (margin 61) and
    # element 2 (margin 101) are both unstable; flipping either stabilises the
    # other.
    assert nv.state_thresholds(*RACE3[:3], 0) == (0, -nv.INF)
    assert nv.margins(*RACE3, 0b001, (0, 1))[1:] == [61, 101]
    r0 = nv.relax(RACE3, 0, (0, 1), 0)
    assert (r0["outcome"], r0["final_state"], r0["flips"]) == ("ill_defined", 0b001, 1)
    r1 = nv.relax(RACE3, 0, (0, 1), 1)
    assert (r1["outcome"], r1["final_state"], r1["flips"], r1["steps"]) == ("stable", 0b101, 2, 2)
    r1p = nv.relax(RACE3, 0, (0, 1), 2)
    assert (r1p["outcome"], r1p["final_state"], r1p["flips"]) == ("stable", 0b011, 2)
    r2 = nv.relax(RACE3, 0, (0, 1), 3)
    assert (r2["outcome"], r2["final_state"], r2["flips"], r2["steps"]) == ("stable", 0b111, 3, 2)
    for r in (r0, r1, r1p, r2):
        assert r["race_condition"] and r["ties"] == 0
    # rule names are accepted too
    assert nv.relax(RACE3, 0, (0, 1), "rule 1p") == r1p


def test_l4_self_loop_by_hand():
    # spins h = (0, 1), c12 = 3, c21 = -3: from (--) at H^+ = -2 the system
    # cycles (--) -> (-+) -> (++) -> (+-) -> (--)
    system = ([0, 1], [0, 1], [[0, 3], [-3, 0]])
    assert nv.state_thresholds(*system, 0) == (-2, -nv.INF)
    r = nv.relax(system, 0, (-2, 1), 1)
    assert r["outcome"] == "self_loop"
    assert r["L"] == 4 and r["n_e"] == 2
    assert r["cycle_states"] == [0, 0b10, 0b11, 0b01]
    assert r["final_state"] == 0 and r["flips"] == 4 and r["steps"] == 4
    assert not r["race_condition"]


def test_negative_span_gives_L2():
    system = ([0, 100], [10, 100], [[0, 0], [0, 0]])
    r = nv.relax(system, 0, (0, 1), 1)
    assert r["outcome"] == "self_loop" and r["L"] == 2 and r["n_e"] == 1
    assert r["cycle_states"] == [0, 1]


def test_gap_fraction_by_hand():
    # spins h=(0,0), c12=1, c21=-3: a=-3, b=3, (+-) stable on [1,3],
    # (-+) on [-3,-1]; uncovered (-1, 1): 2/6
    assert nv.gap_fraction([0, 0], [0, 0], [[0, 1], [-3, 0]]) == pytest.approx(1 / 3)
    # c12=3, c21=-1: a=-1, b=1, neither mixed state potentially stable
    assert nv.gap_fraction([0, 0], [0, 0], [[0, 3], [-1, 0]]) == 1.0
    # no interactions: no gap
    assert nv.gap_fraction([0, 5], [0, 5], [[0, 0], [0, 0]]) == 0.0


# ---------------------------------------------------------------- statistics


def test_two_spins_l4_criterion():
    """N=2 spins: an L=4 self-loop is found by the P_sl procedure iff
    c12*c21 < 0 and |c12 - c21| > |h2 - h1| (paper, Sec. 'Self-loops of size
    L=4'); for N=2 spins this is also exactly when a gap exists."""
    rng = random.Random(20240611)
    n_loop = 0
    n_checked = 0
    while n_checked < 400:
        h1, h2 = rng.randint(-R, R), rng.randint(-R, R)
        c12, c21 = rng.randint(-2 * R, 2 * R), rng.randint(-2 * R, 2 * R)
        if c12 == 0 or c21 == 0 or abs(c12 - c21) == abs(h2 - h1):
            continue  # measure-zero boundary cases
        n_checked += 1
        hp = [h1, h2]
        c = [[0, c12], [c21, 0]]
        predicted = c12 * c21 < 0 and abs(c12 - c21) > abs(h2 - h1)
        for rule in (0, 1, 2, 3):
            o = nv.system_observables(hp, list(hp), c, rule, rng.randrange(4))
            assert o["ps_ties"] == 0
            found = any(L == 4 for _, L, _ in o["loops"])
            assert found == predicted, (hp, c, rule, o["loops"])
            assert o["self_loop_any_field"] == predicted
            assert (o["gap_fraction"] > 0) == predicted
            if predicted:
                # a single loop through all four states, starting at (--)
                assert len(o["loops"]) == 1
                ((cyc, L, n_e),) = o["loops"]
                assert L == 4 and n_e == 2 and cyc[0] == 0 and sorted(cyc) == [0, 1, 2, 3]
        n_loop += predicted
    assert 50 < n_loop < 350  # both classes well represented


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_uncoupled_spins_have_n_plus_1_stable_states(n):
    rng = random.Random(n)
    for _ in range(20):
        h = rng.sample(range(-R, R), n)  # distinct
        c = [[0] * n for _ in range(n)]
        o = nv.system_observables(h, list(h), c, 1, rng.randrange(1 << n))
        assert o["n_potentially_stable"] == n + 1
        assert o["ps_ties"] == 0
        assert o["gap_fraction"] == 0.0
        assert not o["self_loop_any_field"] and not o["self_loop_at_zero_any"]
        # every transition is a single flip
        assert o["avalanche_size"] in (None, 1)


def test_single_flip_rules_never_give_L2_with_nonnegative_spans():
    rng = random.Random(7)
    n_loops = 0
    for _ in range(120):
        n = rng.randint(2, 5)
        hp, hm, c = _random_system(rng, n, span=rng.choice(["hyst", "spins"]))
        for rule in (0, 1, 2):
            o = nv.system_observables(hp, hm, c, rule, rng.randrange(1 << n))
            for cyc, L, n_e in o["loops"]:
                n_loops += 1
                assert L != 2
                assert L % 2 == 0 and L >= 4  # each element flips an even number of times
                assert 2**n_e >= L and n_e <= L // 2
                assert len(cyc) == L and cyc[0] == min(cyc)
    assert n_loops > 20


def test_observables_consistency():
    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(2, 5)
        hp, hm, c = _random_system(rng, n, span=rng.choice(["hyst", "spins", "neg"]))
        start = rng.randrange(1 << n)
        o = nv.system_observables(hp, hm, c, 1, start)
        assert o["gap_at_zero"] == (o["n_stable_at_zero"] == 0)
        assert 0.0 <= o["gap_fraction"] <= 1.0
        assert o["n_self_loop_transitions"] >= len(o["loops"])
        assert o["n_ill_defined_transitions"] == 0  # rule 1 is never ill-defined
        if o["self_loop_at_zero_random_start"]:
            assert o["self_loop_at_zero_any"]
        # the all-down and all-up states are always potentially stable
        assert o["n_potentially_stable"] >= 2
        # at H = 0 a state is stable iff relax leaves it unchanged
        stable0 = [S for S in range(1 << n) if nv.is_stable(hp, hm, c, S, (0, 0))]
        assert len(stable0) == o["n_stable_at_zero"] + o["zero_ties"]
        if o["S0"] is not None and o["avalanche"] is not None:
            av = o["avalanche"]
            assert o["first_state"] == o["S0"] | (1 << o["first_flip_critical"])
            if av["outcome"] == "stable":
                assert o["avalanche_size"] == av["flips"] >= 1
                # race condition in the first flipped state implies race in avalanche
                if o["race_condition_first_flip"]:
                    assert av["race_condition"]
