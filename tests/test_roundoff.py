"""The float64 twin of the P_sl transitions (hyst.kernels.roundoff): exact where float64 is
exact, and the round-off mechanism behind the paper's 99.8 % for spins."""

import numpy as np
from conftest import run_enumeration
from hypothesis import given
from hypothesis import strategies as st

from hyst.model import batch
from hyst.model.ensembles import sample_systems
from hyst.model.systems import RULES
from hyst.sampling.passes import generic_floats
from hyst.sampling.sampler import Point, draw_chunk, sample_point


@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 8),
    couplings=st.sampled_from(["random", "weak", "symmetric", "columns"]),
    spans=st.sampled_from(["spin", "hysteron", "equal"]),
    rule=st.sampled_from(list(RULES)),
)
def test_twin_on_exactly_representable_parameters_equals_the_exact_transitions(
    seed, N, couplings, spans, rule
):
    """Quantised parameters are exact in float64 (multiples of 2^-40, sums far below
    2^53 quanta), so the twin relaxes exactly the enumeration's P_sl transitions: the same
    transitions, the same ones end in a self-loop."""
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, float(10 ** rng.uniform(-1, 2.5)), 20, rng)
    hp, hm, c = sy.to_floats()
    twin = batch.float64_transitions_batch(sy, hp, hm, c, rule)
    exact = run_enumeration(sy, rule=rule)
    assert np.array_equal(twin["transitions"], exact["n_transitions"])
    assert np.array_equal(twin["self_loop_transitions"], exact["n_self_loop_transitions"])
    assert twin["just_flipped_unstable"].sum() == 0


def test_round_off_turns_spin_transitions_into_self_loops():
    """With generic float64 parameters a just-flipped spin looks unstable in a large part
    of the transitions (its threshold equals the field exactly), which raises P_sl; spans
    > 0 keep it away from its threshold, so hysterons are unaffected."""
    groups = ["transitions", "float64"]
    c = sample_point(Point("random", "spin", "1", 8, 100.0), 3000, 2, groups).counts
    assert 0.3 < c["float64_just_flipped_unstable"] / c["float64_transitions"] < 0.7
    assert c["self_loop_probability_float64"] > c["self_loop_probability"] + 30
    point = Point("random", "hysteron", "1", 8, 100.0)
    hyst = sample_point(point, 3000, 2, groups).counts
    assert hyst["float64_just_flipped_unstable"] == 0
    assert hyst["self_loop_probability_float64"] == hyst["self_loop_probability"]
    spin_point = Point("random", "spin", "1", 8, 100.0)
    systems, _starts = draw_chunk(spin_point, 2, 0, 50)
    hp, hm, c = generic_floats(spin_point, 2, 0, systems)
    assert np.all(np.abs(hp - systems.to_floats()[0]) < 2.0**-40) and np.array_equal(hp, hm)
    assert np.all(np.diagonal(c, axis1=1, axis2=2) == 0) and np.any(hp != systems.to_floats()[0])
