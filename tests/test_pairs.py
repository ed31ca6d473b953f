"""N = 2 pairs in the (c12, c21) plane against the Supplemental's analytic conditions."""

import numpy as np
import pytest

from hyst.pairs import pairs_dataset


@pytest.mark.parametrize("sigma", [0.0, 0.5, 2.0])
def test_l4_self_loops_exactly_where_the_supplemental_conditions_hold(sigma):
    """Equal spans σ, Δh^c = 1: an L = 4 self-loop occurs iff c12 c21 < 0,
    |c12 − c21| > Δh^c + σ, |c12| > σ/2 and |c21| > σ/2 (σ = 0: the spin result)."""
    ds = pairs_dataset([sigma], 1.0, 2.0, 20000, seed=5).sel(sigma=sigma)
    c12, c21, loop = ds.c12.values, ds.c21.values, ds.self_loop.values == 1
    expected = (
        (c12 * c21 < 0)
        & (np.abs(c12 - c21) > 1.0 + sigma)
        & (np.abs(c12) > sigma / 2)
        & (np.abs(c21) > sigma / 2)
    )
    assert loop.sum() > 500
    assert np.array_equal(loop, expected)


def test_pairs_dataset_is_reproducible_and_keyed_by_span():
    a = pairs_dataset([0.0, 0.5], 1.0, 2.0, 300, seed=1)
    b = pairs_dataset([0.5], 1.0, 2.0, 300, seed=1)
    assert np.array_equal(a.c12.sel(sigma=0.5).values, b.c12.sel(sigma=0.5).values)
    assert not np.array_equal(a.c12.sel(sigma=0.0).values, a.c12.sel(sigma=0.5).values)
