"""Random serial chains with a fraction φ of active elements."""

import numpy as np
import pytest

from hyst.networks import chains
from hyst.networks.mapping import chain_mapping


def test_chunks_are_reproducible_and_keyed_by_what_they_are():
    a = chains.sample_chunk(0.5, 6, seed=3, chunk=1, size=40)
    b = chains.sample_chunk(0.5, 6, seed=3, chunk=1, size=40)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    ident = chains.point_identity(0.5, 6)
    draws = [
        chains.sample_chains(0.5, 6, 40, chains.chunk_generator(ident, 3, k)).d for k in (1, 2)
    ]
    assert not np.array_equal(*draws)
    other_point = chains.sample_chains(
        0.5, 7, 40, chains.chunk_generator(chains.point_identity(0.5, 7), 3, 1)
    ).d
    assert not np.array_equal(draws[0], other_point[:, :6])
    # a point is the merge of its chunks, whatever else is computed beside it
    point = chains.sample_point(0.5, 6, samples=2 * chains.CHUNK_SIZE + 10, seed=3, checks=0)
    parts = [chains.sample_chunk(0.5, 6, 3, k, n, checks=0) for k, n in chains.chunks(1010)]
    merged = chains.merge(parts)
    assert all(np.array_equal(point[k], merged[k]) for k in point)


def test_sampled_chains_follow_their_distributions():
    rng = chains.chunk_generator(chains.point_identity(0.25, 16), 1, 0)
    ch = chains.sample_chains(0.25, 16, 4000, rng, d_max=1.0, sigma0_max=0.5)
    x = ch.to_floats()
    assert np.all(x[1] >= x[0]) and np.all(np.abs(0.5 * (x[0] + x[1])) <= 1.0)
    assert 0.24 < (ch.d < 0).mean() < 0.26
    assert np.abs(x[2]).max() <= 1.0 and (x[1] - x[0]).max() <= 0.5
    assert abs(np.abs(x[2]).mean() - 0.5) < 0.01


def test_passive_chains_never_self_loop():
    """φ = 0: the constant-columns ensemble (strictly self-loop free)."""
    for N in (2, 5, 12):
        t = chains.sample_point(0.0, N, 300, seed=2)
        assert t["self_loop_probability"] == 0 and t["saturated_loop_probability"] == 0
        assert t["negative_span_probability"] == 0 and t["cross_checked"] > 0


@pytest.mark.parametrize("N, d_max", [(2, 0.25), (3, 1.0), (8, 0.25), (8, 1.0), (40, 1.0)])
def test_negative_span_probability_matches_its_formula(N, d_max):
    """Both branches of p_N (a sigma0_max below and above d_max)."""
    phi = 0.5
    t = chains.sample_point(phi, N, 20000, seed=5, d_max=d_max, checks=0)
    p = chains.negative_span_probability(phi, N, d_max)
    est = t["negative_span_probability"] / t["samples"]
    assert abs(est - p) < 4 * np.sqrt(p * (1 - p) / t["samples"]) + 1e-3


def test_negative_spans_self_loop_on_the_saturated_loop_when_first():
    """A chain with a strongly active element: its mapped span is negative and the
    element oscillates (L = 2, n_e = 1) once the drive reaches it."""
    from hyst.networks.elements import SerialChains

    ch = SerialChains.from_floats([-0.1, 0.5, 0.9], [0.1, 0.6, 1.0], [-0.5, 0.2, 0.3])
    sy = chain_mapping(ch)
    assert sy.h_plus[0, 0] < sy.h_minus[0, 0]
    from hyst.networks.mechanics import saturated_loop

    out = saturated_loop(ch)
    assert (out["outcome"][0, 0], out["L"][0, 0], out["n_e"][0, 0]) == (1, 2, 1)


def test_dataset_and_errors():
    ds = chains.chains_dataset([0.0, 1.0], [2, 20], samples=50, seed=1, checks=2)
    assert ds.self_loop_probability.sel(phi=0.0, N=2) == 0
    assert np.isnan(ds.self_loop_probability.sel(N=20)).all()
    assert (ds.cross_checked == 2).all()
    assert ds.attrs["chunk_size"] == chains.CHUNK_SIZE
    with pytest.raises(ValueError, match="phi: 1.5 is not allowed"):
        chains.check_point(1.5, 4)
    with pytest.raises(ValueError, match="N: 65 is not allowed"):
        chains.check_point(0.5, 65)
    with pytest.raises(ValueError, match="d_max: 0 is not allowed"):
        chains.check_point(0.5, 4, d_max=0)


def test_tallies_round_trip_and_assemble():
    t = chains.sample_point(0.5, 5, 80, seed=4, checks=1)
    back = chains.tally_from_dataset(chains.tally_dataset(t))
    assert back.keys() == t.keys() and all(np.array_equal(back[k], t[k]) for k in t)
    ds = chains.assemble(
        {(0.5, 5): back}, [0.5], [5], {"samples": 80, "seed": 4, "d_max": 1.0, "sigma0_max": 0.5}
    )
    assert float(ds.self_loop_probability[0, 0]) == t["self_loop_probability"] / 80
