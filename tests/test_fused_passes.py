"""The fused passes of the event-driven relaxation equal the calls they replace, bit for
bit: ``relaxation.flip_scan`` is ``flip`` then ``scan`` (fields, state and the scan's
answer), and ``next_up_down`` is ``next_up`` and ``next_down``. Small-integer parameters make
equal margins, zero margins and tied switching fields common, and the test checks that
they occur."""

import numpy as np
import pytest

from hyst.kernels import relaxation
from hyst.kernels.codes import (
    FORM_COLUMNS,
    FORM_DENSE_T,
    FORM_ROWS,
    RULE_0,
    RULE_1,
    RULE_1P,
    RULE_2,
)

RULES = (RULE_0, RULE_1, RULE_1P, RULE_2)


def _system(rng, N, form, scale):
    """(hp, hm, ct, d, s) of one system of ``form`` with parameters in [-scale, scale]."""
    centre = rng.integers(-scale, scale + 1, N)
    span = rng.integers(0, scale + 1, N)
    empty2, empty1 = np.empty((0, 0), np.int64), np.empty(0, np.int64)
    if form == FORM_DENSE_T:
        ct = rng.integers(-scale, scale + 1, (N, N))
        ct[np.arange(N), np.arange(N)] = 0
        d = empty1
    else:
        ct, d = empty2, rng.integers(-scale, scale + 1, N)
    s = np.where(rng.random(N) < 0.5, 1, -1).astype(np.int8)
    return centre + span, centre - span, ct, d, s


def _fields(s, form, ct, d):
    neg = np.empty(s.shape[0], np.int64)
    f = np.empty(s.shape[0], np.int64)
    relaxation.up_mask(s, neg)
    relaxation.init_fields(s, f, form, ct, d)
    return neg, f


@pytest.mark.parametrize("form", [FORM_DENSE_T, FORM_ROWS, FORM_COLUMNS])
def test_flip_scan_is_flip_then_scan(form):
    rng = np.random.default_rng(11 + form)
    seen = {"ties": 0, "several": 0, "one": 0, "none": 0}
    for _ in range(400):
        N = int(rng.integers(1, 40))
        scale = int(rng.choice([2, 5, 1000]))
        hp, hm, ct, d, s = _system(rng, N, form, scale)
        neg, f = _fields(s, form, ct, d)
        for _step in range(6):
            j = int(rng.integers(0, N))
            Hc = int(rng.integers(-3 * scale, 3 * scale + 1))
            eps = int(rng.choice([-1, 0, 1]))
            rule = int(rng.choice(RULES))
            s1, neg1, f1 = s.copy(), neg.copy(), f.copy()
            buf1 = np.zeros(N, np.int64)
            relaxation.flip(j, s1, neg1, f1, form, ct, d)
            want = relaxation.scan(neg1, f1, Hc, eps, rule, hp, hm, buf1)
            buf2 = np.zeros(N, np.int64)
            got = relaxation.flip_scan(j, s, neg, f, Hc, eps, rule, hp, hm, form, ct, d, buf2)
            assert tuple(got) == tuple(want)
            assert np.array_equal(s, s1) and np.array_equal(neg, neg1)
            assert np.array_equal(f, f1)
            if rule == RULE_2:
                assert np.array_equal(buf2[: got[0]], buf1[: want[0]])
            seen["ties"] += got[2] > 0
            n_u = got[0]
            seen["none" if n_u == 0 else "one" if n_u == 1 else "several"] += 1
            # the fields stay those of the state, recomputed from scratch
            assert np.array_equal(f, _fields(s, form, ct, d)[1])
    assert min(seen.values()) > 20, seen


@pytest.mark.parametrize("form", [FORM_DENSE_T, FORM_ROWS])
def test_next_up_down_is_next_up_and_next_down(form):
    rng = np.random.default_rng(5 + form)
    ties = saturated = 0
    for _ in range(1500):
        N = int(rng.integers(1, 30))
        hp, hm, ct, d, s = _system(rng, N, form, int(rng.choice([1, 3, 1000])))
        if rng.random() < 0.1:
            s[:] = rng.choice([-1, 1])  # all down or all up: one side has no element
        neg, f = _fields(s, form, ct, d)
        up, down = relaxation.next_up_down(neg, f, hp, hm)
        assert tuple(up) == tuple(relaxation.next_up(neg, f, hp))
        assert tuple(down) == tuple(relaxation.next_down(neg, f, hm))
        ties += up[2] + down[2]
        saturated += (up[1] < 0) + (down[1] < 0)
    assert ties > 20 and saturated > 20, (ties, saturated)
