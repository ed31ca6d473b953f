"""The race-condition rules (``hyst.kernels.rules``): both tallies give the answer of a plain
reading of the rules, ties included, on margins where equal and zero margins are common."""

import numba
import numpy as np
import pytest

from hyst.kernels import rules
from hyst.kernels.codes import RULE_0, RULE_1, RULE_1P, RULE_2


@numba.njit
def _one_pass(m, rule):
    acc = rules.start(rule)
    for i in range(m.shape[0]):
        acc = rules.tally(acc, i, m[i], rule)
    n_u, chosen, ties = rules.choose(rule, acc)
    return n_u, chosen, ties, rules.unstable(acc)


@numba.njit
def _wide(m, rule, buf):
    """The wide tally of an event-driven state whose margins are 2 m: every element down
    (neg = 0), f = m, h^+ = h^- = 0 at (0, 0)."""
    N = m.shape[0]
    neg, zero = np.zeros(N, np.int64), np.zeros(N, np.int64)
    acc = rules.start_wide()
    for i in range(N):
        acc = rules.tally_wide(acc, i, rules.margin(neg[i] != 0, m[i], zero[i], zero[i], 0, 0))
    n_u, chosen, ties = rules.choose_wide(rule, acc, neg, m, zero, zero, 0, 0)
    return n_u, chosen, ties, rules.unstable_list(neg, m, zero, zero, 0, 0, buf)


def _reference(m, rule):
    """(n_u, chosen, ties, unstable elements) read off the rules' definitions."""
    unstable = [i for i, x in enumerate(m) if x > 0]
    zeros = sum(1 for x in m if x == 0)
    if not unstable or (len(unstable) > 1 and rule in (RULE_0, RULE_2)):
        return len(unstable), -1, zeros, unstable
    pick = min if rule == RULE_1P else max
    best = pick(m[i] for i in unstable)
    winners = [i for i in unstable if m[i] == best]
    tie = len(winners) > 1 and rule in (RULE_1, RULE_1P)
    return len(unstable), winners[0], zeros + tie, unstable


@pytest.mark.parametrize("rule", [RULE_0, RULE_1, RULE_1P, RULE_2])
def test_both_tallies_follow_the_rules(rule):
    rng = np.random.default_rng(rule)
    seen = {"tie": 0, "race": 0, "zero": 0, "stable": 0}
    for _ in range(3000):
        N = int(rng.integers(1, 64))
        m = rng.integers(-3, 4, N).astype(np.int64)  # small values: equal and zero margins
        n_u, chosen, ties, unstable = _reference(m.tolist(), rule)
        a = _one_pass(m, rule)
        assert a[:3] == (n_u, chosen, ties)
        assert a[3] == sum(1 << i for i in unstable)
        buf = np.zeros(N, np.int64)
        b = _wide(m, rule, buf)
        assert b[:3] == (n_u, chosen, ties)
        assert b[3] == n_u and list(buf[:n_u]) == unstable
        seen["race"] += n_u > 1
        seen["stable"] += n_u == 0
        seen["zero"] += 0 in m
        seen["tie"] += ties > (m == 0).sum()
    assert min(seen.values()) > 50 or (rule in (RULE_0, RULE_2) and seen["tie"] == 0), seen


def test_float_margins_take_the_one_pass_tally():
    m = np.array([0.5, -1.0, 0.5, 0.25, 0.0])
    assert _one_pass(m, RULE_1)[:3] == (4 - 1, 0, 2)  # 0.5 twice: index 0, one tie; one zero
    assert _one_pass(m, RULE_1P)[:3] == (3, 3, 1)


def test_margin_is_the_doubled_distance_past_the_threshold():
    hp, hm, f, Hc = 7, -3, 2, 4
    assert rules.margin(False, f, hp, hm, Hc, 1) == 2 * (Hc - (hp - f)) + 1
    assert rules.margin(True, f, hp, hm, Hc, -1) == 2 * ((hm - f) - Hc) + 1
