"""N = 2 pairs in the (c12, c21) plane against the Supplemental's analytic conditions."""

import numpy as np
import pytest

from hyst.model.two_elements import l4_condition
from hyst.studies.pairs import sample_span


@pytest.mark.parametrize("sigma", [0.0, 0.5, 2.0])
def test_l4_self_loops_exactly_where_the_supplemental_conditions_hold(sigma):
    """Equal spans σ, Δh^c = 1: an L = 4 self-loop occurs iff c12 c21 < 0,
    |c12 − c21| > Δh^c + σ, |c12| > σ/2 and |c21| > σ/2 (σ = 0: the spin result)."""
    ds = sample_span(sigma, 1.0, 2.0, 20000, seed=5)
    c12, c21, loop = ds.c12.values, ds.c21.values, ds.self_loop.values == 1
    expected = (
        (c12 * c21 < 0)
        & (np.abs(c12 - c21) > 1.0 + sigma)
        & (np.abs(c12) > sigma / 2)
        & (np.abs(c21) > sigma / 2)
    )
    assert loop.sum() > 500
    assert np.array_equal(loop, expected)
    assert np.array_equal(l4_condition(c12, c21, sigma, 1.0), expected)


def test_pairs_are_reproducible_and_keyed_by_span():
    a = sample_span(0.5, 1.0, 2.0, 300, seed=1)
    b = sample_span(0.5, 1.0, 2.0, 300, seed=1)
    assert np.array_equal(a.c12.values, b.c12.values)
    assert not np.array_equal(sample_span(0.0, 1.0, 2.0, 300, seed=1).c12.values, a.c12.values)
