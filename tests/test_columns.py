"""Constant-columns systems driven with sorted keys and bitsets (hyst.kernels.columns) equal
the generic event-driven kernels bit for bit: the same systems with their couplings written
out as a dense matrix c_ij = −d_j go through ``relaxation`` unchanged."""

import numpy as np
import pytest

from hyst.kernels import columns, drive, relaxation
from hyst.kernels.codes import (
    AVALANCHE_COLUMNS,
    CYCLIC_COLUMNS,
    FORM_COLUMNS,
    FORM_DENSE,
    RULE_0,
    RULE_1,
)
from hyst.kernels.operands import SystemBatch


def _systems(rng, n, N, scale):
    """n constant-columns systems; a small ``scale`` makes equal keys, equal margins and
    zero margins common."""
    centre = rng.integers(-scale, scale, (n, N))
    span = rng.integers(0, scale, (n, N))
    d = rng.integers(-scale, scale, (n, N)) * int(rng.choice([1, 3, 30]))
    starts = np.where(rng.random((n, N)) < 0.5, 1, -1).astype(np.int8)
    return centre + span, centre - span, d, starts


def _dense(d):
    n, N = d.shape
    c = np.repeat(-d[:, None, :], N, axis=1)
    c[:, np.arange(N), np.arange(N)] = 0
    return c


def _drives(hp, hm, form, c, d, starts, rule):
    n = hp.shape[0]
    systems = SystemBatch(hp, hm, form, c, d)
    av = np.zeros((n, len(AVALANCHE_COLUMNS)), np.int64)
    cy = np.zeros((n, len(CYCLIC_COLUMNS)), np.int64)
    umax = np.zeros(n, np.int64)
    drive.avalanche_cyclic_batch.serial(systems, starts, rule, 1000, av, cy, umax)
    av_alone = np.zeros_like(av)
    drive.avalanche_batch.serial(systems, starts, rule, av_alone)
    cy_alone, umax_alone = np.zeros_like(cy), np.zeros_like(umax)
    drive.cyclic_drive_batch.serial(systems, starts, rule, 1000, cy_alone, umax_alone)
    np.testing.assert_array_equal(av, av_alone)
    np.testing.assert_array_equal(cy, cy_alone)
    np.testing.assert_array_equal(umax, umax_alone)
    return av, cy, umax


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rule", [RULE_0, RULE_1])
def test_columns_drives_equal_the_generic_kernels(seed, rule):
    rng = np.random.default_rng(seed)
    for _ in range(15):
        N = int(rng.integers(2, 70))
        scale = int(rng.choice([3, 10, 1000, 2**30]))
        hp, hm, d, starts = _systems(rng, 12, N, scale)
        n = hp.shape[0]
        fast = _drives(hp, hm, FORM_COLUMNS, np.zeros((n, 0, 0), np.int64), d, starts, rule)
        dense = _drives(hp, hm, FORM_DENSE, _dense(d), np.zeros((n, 0), np.int64), starts, rule)
        for a, b in zip(fast, dense, strict=True):
            np.testing.assert_array_equal(a, b)


def test_ties_are_met_and_counted():
    """The comparison above is not vacuous: with small integers the preparation at H = 0
    meets zero margins and the drives meet equal switching fields."""
    rng = np.random.default_rng(1)
    hp, hm, d, starts = _systems(rng, 200, 8, 3)
    av, cy, _ = _drives(hp, hm, FORM_COLUMNS, np.zeros((200, 0, 0), np.int64), d, starts, RULE_1)
    assert (av[:, AVALANCHE_COLUMNS.index("ties")] > 0).sum() > 20
    assert (cy[:, CYCLIC_COLUMNS.index("ties")] > 0).sum() > 20


@pytest.mark.parametrize("bound", [1, 2, 5])
@pytest.mark.parametrize("rule", [RULE_0, RULE_1])
def test_a_long_relaxation_is_redone_by_the_generic_kernel(bound, rule):
    """Past ``bound`` steps the flips are undone and ``relaxation.relax`` takes over: the
    outcome, the result row and the final state are those of the generic kernel."""
    rng = np.random.default_rng(bound)
    empty = np.zeros((0, 0), np.int64)
    for _ in range(300):
        N = int(rng.integers(2, 30))
        hp, hm, d, starts = _systems(rng, 1, N, int(rng.choice([3, 1000])))
        hp, hm, d, s = hp[0], hm[0], d[0] * 20, starts[0]
        Hc = int(rng.integers(-40, 40))
        eps = int(rng.choice([-1, 0, 1]))
        cs = columns.columns_system(s, hp, hm, d)
        out = np.zeros(8, np.int64)
        oc = columns.relax(cs, Hc, eps, rule, hp, hm, d, np.empty(bound, np.int64), out)
        g_s = s.copy()
        neg, f = np.empty(N, np.int64), np.empty(N, np.int64)
        relaxation.up_mask(g_s, neg)
        relaxation.init_fields(g_s, f, FORM_COLUMNS, empty, d)
        g_out = np.zeros(8, np.int64)
        g_oc = relaxation.relax(
            g_s, neg, f, Hc, eps, rule, hp, hm, FORM_COLUMNS, empty, d,
            relaxation.workspace(N), g_out,
        )  # fmt: skip
        assert oc == g_oc
        np.testing.assert_array_equal(out, g_out)
        np.testing.assert_array_equal(cs[0], g_s)
        fresh = columns.columns_system(g_s, hp, hm, d)
        for a, b in zip(cs, fresh, strict=True):  # bitsets, D, Σ s_i and hash follow
            np.testing.assert_array_equal(a, b)
