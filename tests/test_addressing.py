"""Addressability (hyst.kernels.addressing, hyst.model.addressing) against the slow
reference hyst.reference.naive_addressing, and its properties."""

import numpy as np
import pytest

from hyst.kernels import addressing as ka
from hyst.model import batch
from hyst.model.addressing import addressability
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import RULES, Systems
from hyst.reference import naive_addressing as naive


def _tie_heavy(rng, N) -> Systems:
    """Small integer parameters: tied switching fields and margins are common."""
    mid = rng.integers(-3, 4, (1, N))
    half = rng.integers(0, 3, (1, N))
    c = rng.integers(-3, 4, (1, N, N))
    c[:, np.arange(N), np.arange(N)] = 0
    return Systems(mid + half, mid - half, c.astype(np.int64))


def _instances(count: int, seed: int):
    """(system, rule): N from 2 to 6, every ensemble, every rule, one in three tie-heavy."""
    rng = np.random.default_rng(seed)
    rules, couplings, spans = list(RULES), list(COUPLING_ENSEMBLES), list(SPAN_ENSEMBLES)
    for k in range(count):
        N = int(rng.integers(2, 7))
        rule = rules[k % len(rules)]
        if k % 3 == 0:
            sy = _tie_heavy(rng, N)
        else:
            NJ0 = float(10 ** rng.uniform(-1, 2))
            sy = sample_systems(
                couplings[rng.integers(len(couplings))],
                spans[rng.integers(len(spans))],
                N,
                NJ0,
                1,
                rng,
            )
        yield sy, rule


def _compare(count: int, seed: int) -> dict:
    tally = dict(systems=0, stopped=0, all_addressable=0, smaller=0, ties=0)
    for sy, rule in _instances(count, seed):
        hp, hm, c = (np.asarray(a[0], np.int64) for a in (sy.h_plus, sy.h_minus, sy.couplings))
        a = addressability(sy, rule)
        states, stopped = naive.one_cycle(hp, hm, c, rule)
        assert a.addressable.tolist() == states, (hp, hm, c, rule)
        assert (a.up_stopped is not None or a.down_stopped > 0) == stopped
        reach, reach_stopped = naive.reachable(hp, hm, c, rule)
        assert a.reachable.tolist() == reach, (hp, hm, c, rule)
        assert a.reachable_stopped == reach_stopped
        assert set(states) <= set(reach)
        tally["systems"] += 1
        tally["stopped"] += stopped
        tally["all_addressable"] += a.all_addressable
        tally["smaller"] += len(states) < len(reach)
        tally["ties"] += a.ties > 0
    return tally


def test_addressability_matches_the_reference_on_2400_small_systems():
    """Every rule, every ensemble, N = 2 … 6, tie-heavy instances among them: the
    addressable and reachable sets equal the reference's, state for state; the cases that
    make the comparison meaningful all occur."""
    tally = _compare(2400, seed=45)
    assert tally["systems"] == 2400
    for key in ("stopped", "all_addressable", "smaller", "ties"):
        assert tally[key] > 0, tally


def test_batch_kernel_counts_the_single_system_sets():
    rng = np.random.default_rng(3)
    sy = sample_systems("random", "hysteron", 7, 3.0, 60, rng)
    out = batch.address_batch(sy, "1")
    serial = batch.address_batch(sy, "1", parallel=False)
    assert np.array_equal(out.array, serial.array)
    for k in range(sy.samples):
        a = addressability(sy, "1", index=k)
        assert out["addressable"][k] == a.addressable.size
        assert out["reachable"][k] == a.reachable.size
        assert out["branch_states"][k] == a.branch_states


def test_non_interacting_hysterons_address_intervals_and_reach_every_state():
    """No couplings (the Preisach model), nested thresholds h_i^± = ±i: a cycle up to H1,
    down to H2 leaves up exactly the elements with −H2 < i <= H1 (one interval of indices):
    N(N+1)/2 + 1 states in one cycle, while histories of decreasing amplitude reach all
    2^N states."""
    N = 5
    hp = np.arange(1, N + 1, dtype=np.int64)[None] * 2**20
    sy = Systems(hp, -hp, np.zeros((1, N, N), np.int64))
    a = addressability(sy, "1")
    assert a.addressable.size == N * (N + 1) // 2 + 1 and a.branch_states == N + 1
    intervals = {sum(1 << i for i in range(m, k)) for k in range(N + 1) for m in range(k + 1)}
    assert set(a.addressable.tolist()) == intervals
    assert a.all_reachable and not a.all_addressable


def test_addressable_states_over_64_elements_are_refused():
    sy = sample_systems("random", "hysteron", 65, 1.0, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="N: 65"):
        addressability(sy)
    assert ka.ADDRESSABLE_MAX_N == 64


def test_groups_addressability_reachability_and_periods_tally_their_kernels():
    """The sampler's passes: the tallies equal a direct count over the same systems (drawn
    as the sampler draws its chunk); one amplitude sweep serves periods and multiperiodic."""
    from hyst.kernels import protocols as kp
    from hyst.sampling import passes
    from hyst.sampling.sampler import Point, draw_chunk, sample_point
    from hyst.sampling.tallies import tally_to_dataset

    groups = ["addressability", "reachability", "periods", "multiperiodic"]
    point = Point("weak", "hysteron", "1", 6, 10.0)
    ds = tally_to_dataset(sample_point(point, 400, 5, groups), groups)
    sy, _spins = draw_chunk(point, 5, 0, 400)
    ad = batch.address_batch(sy, "1", parallel=False)
    assert float(ds["addressable_count"]) == pytest.approx(ad["addressable"].mean())
    assert float(ds["reachable_count"]) == pytest.approx(ad["reachable"].mean())
    assert int(ds["all_addressable_probability_count"]) == int((ad["addressable"] == 64).sum())
    assert int(ds["addressable_count_hist"].sum()) == 400
    assert float(ds["addressable_share"]) == pytest.approx(ad["addressable"].mean() / 64)
    sw = batch.amplitude_sweep_batch(sy, "1", parallel=False)
    mask = sw["period_mask"]
    assert int(ds["period_2_probability_count"]) == int(((mask >> 2) & 1).sum()) > 0
    odd = int((mask & sum(1 << T for T in range(3, 63, 2)) != 0).sum())
    assert int(ds["odd_period_probability_count"]) == odd
    assert int(ds["period_1_probability_trials"]) == int((sw["amplitudes"] > 0).sum())
    assert int(ds["largest_transient_hist"].sum()) == int((sw["largest_transient"] >= 0).sum())
    assert int(ds["multiperiodic_probability_count"]) == int((sw["critical_amplitude"] >= 0).sum())
    sweeps = [p for p, _served in passes.plan(tuple(groups)) if p is passes.AMPLITUDE_SWEEP]
    assert len(sweeps) == 1
    assert kp.SWEEP_SUMMARY_COLUMNS[-4:] == ("period_mask", "largest_transient", "orbits", "loops")


def test_system_addressable_states_is_the_kernels_answer():
    import hyst

    sy = hyst.System.from_ensemble("columns", 5, 10.0, samples=50, index=7)
    a = sy.addressable_states()
    b = addressability(sy.systems, "1")
    assert np.array_equal(a.addressable, b.addressable)
    assert np.array_equal(a.reachable, b.reachable)
    assert sy.addressable_states(reachable=False).reachable is None
