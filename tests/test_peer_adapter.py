"""Cross-check of the reference implementation (hyst.reference.naive, rule 1) against
the independent PyPI package ``hysteron`` through the adapter hyst.reference.peer.

Expected correspondence for tie-free instances (large integer ranges):
  naive stable with flips <= 2N   -> peer returns the same final state
  naive stable with flips  > 2N   -> peer StabilityError (it gives up)
  naive self_loop                 -> peer StabilityError
"""

import random

import pytest

pytest.importorskip("hysteron")

from hyst.reference import naive as nv
from hyst.reference import peer

R = 10**6


def _random_system(rng, n, span, J):
    hp = [rng.randint(-R, R) for _ in range(n)]
    if span == "spins":
        hm = list(hp)
    elif span == "hyst":
        hm = [x - rng.randint(0, R) for x in hp]
    else:
        hm = [x - rng.randint(-R, R) for x in hp]
    jr = int(J * R)
    c = [[0 if i == j else rng.randint(-jr, jr) for j in range(n)] for i in range(n)]
    return hp, hm, c


def _expected(system, S, d):
    r = nv.up_transition(system, S, 1) if d > 0 else nv.down_transition(system, S, 1)
    if r is None:
        return None, None
    n = len(system[0])
    if r["outcome"] == "stable" and r["flips"] <= 2 * n:
        return r, r["final_state"]
    return r, peer.STABILITY_ERROR


# ------------------------------------------------------------- hand-made cases


@pytest.mark.parametrize("mode", ["stepwise", "evolve"])
def test_uncoupled_pair(mode):
    hp, hm, c = [5, 3], [-5, -3], [[0, 0], [0, 0]]
    assert peer.peer_avalanche(hp, hm, c, 0b00, +1, mode=mode) == 0b10  # lower h^+ first
    assert peer.peer_avalanche(hp, hm, c, 0b11, -1, mode=mode) == 0b01  # higher h^- first
    assert peer.critical_field(hp, hm, c, 0b00, +1) == 3
    assert peer.critical_field(hp, hm, c, 0b11, -1) == -3


def test_ferromagnetic_pair_avalanche():
    # Hp_1(--) = 13 < Hp_0(--) = 15; after element 1 flips, Hp_0 = -5 < 13
    assert peer.peer_avalanche([5, 3], [-5, -3], [[0, 10], [10, 0]], 0, +1) == 0b11


def test_two_spin_self_loop_is_stability_error():
    hp, c = [0, 1], [[0, 3], [-3, 0]]
    assert nv.up_transition((hp, hp, c), 0, 1)["outcome"] == "self_loop"
    assert peer.peer_avalanche(hp, hp, c, 0, +1) == peer.STABILITY_ERROR
    # (+-) is stable on [3, 4]: up -> (++) is stable, down -> self-loop
    assert peer.peer_avalanche(hp, hp, c, 0b01, +1) == 0b11
    assert peer.peer_avalanche(hp, hp, c, 0b01, -1) == peer.STABILITY_ERROR


def test_negative_span_flips_back():
    assert peer.peer_avalanche([0, 100], [10, 100], [[0, 0], [0, 0]], 0, +1) == peer.STABILITY_ERROR


def test_three_element_race_most_unstable_first():
    # element 0 triggers 1 (instability 30) and 2 (instability 50); the most
    # unstable (2) flips and stabilises 1: rule 1 -> 0b101 (rule 1p would give 0b011)
    system = ([0, 10, 10], [-100, -100, -100], [[0, 0, 0], [20, 0, -20], [30, -30, 0]])
    assert nv.relax(system, 0, (0, 1), 1)["final_state"] == 0b101
    for mode in ("stepwise", "evolve"):
        assert peer.peer_avalanche(*system, 0, +1, mode=mode) == 0b101


def test_degenerate_critical_element():
    # two identical uncoupled elements: exact tie for the first flip
    assert peer.peer_avalanche([1, 1], [0, 0], [[0, 0], [0, 0]], 0, +1) == peer.DEGENERACY_ERROR


def test_stepwise_guard_where_raw_evolve_event_would_hang():
    # small-integer instance with exact threshold coincidences: at the exact
    # critical field the peer's evolve_event ramp cycles forever; the guarded
    # stepwise mode reports StabilityError instead (naive: an L=8 self-loop).
    hp = [3, -2, 1, -3, -1, -3, -3]
    hm = [3, -4, -1, -3, -2, -5, -3]
    c = [
        [0, 0, 2, -3, 1, -2, 3],
        [0, 0, 0, 1, -2, -1, -2],
        [2, -2, 0, 3, 0, -1, -3],
        [0, 3, 1, 0, 2, -3, -2],
        [2, 2, 3, -1, 0, -3, 2],
        [-1, 2, 2, 1, 0, 0, 1],
        [3, 2, -2, -1, -1, 1, 0],
    ]
    r = nv.down_transition((hp, hm, c), 46, 1)
    assert r["outcome"] == "self_loop" and r["L"] == 8
    assert peer.peer_avalanche(hp, hm, c, 46, -1, scale=4.0) == peer.STABILITY_ERROR


# ------------------------------------------------------------- random instances


@pytest.mark.parametrize("span", ["hyst", "spins", "neg"])
def test_random_instances_agree_with_naive_rule1(span):
    rng = random.Random({"hyst": 1, "spins": 2, "neg": 3}[span])
    counts = {"stable": 0, "long": 0, "self_loop": 0}
    for k in range(80):
        n = rng.randint(2, 6)
        J = rng.choice([0.1, 0.5, 1, 3, 10])
        system = _random_system(rng, n, span, J)
        mode = "evolve" if k % 4 == 0 else "stepwise"
        scale = 4.0 if k % 2 else 1.0
        for S in range(1 << n):
            hplus, hminus = nv.state_thresholds(*system, S)
            if not hminus < hplus:
                continue
            for d in (+1, -1):
                r, want = _expected(system, S, d)
                if r is None:
                    continue
                assert r["ties"] == 0  # large ranges: no ties expected
                got = peer.peer_avalanche(*system, S, d, scale=scale, mode=mode)
                assert got == want, (system, S, d, r, got)
                if r["outcome"] == "self_loop":
                    counts["self_loop"] += 1
                elif want == peer.STABILITY_ERROR:
                    counts["long"] += 1
                else:
                    counts["stable"] += 1
    assert counts["stable"] > 100
    assert counts["self_loop"] > 10
