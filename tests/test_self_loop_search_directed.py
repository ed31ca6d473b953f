"""The self-loop search with direction-dependent couplings c^+ ≠ c^− agrees system by system
with the enumeration of all 2^N states (group ``transitions``), for every rule and the
flip-time rule, ensembles at several α and tie-heavy integer systems, at N ≤ 10; with
c^+ = c^− held as a pair it is the plain search, column for column."""

from dataclasses import replace

import numpy as np
import pytest
from conftest import run_enumeration
from hypothesis import given, settings
from hypothesis import strategies as st
from test_self_loop_search import CAPS, search_self_loops

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import sample_systems
from hyst.model.systems import RULES, Systems
from hyst.pipeline.config import ConfigError, validate
from hyst.sampling.sampler import Point, sample_point

#: (N, systems per (α, N·J0)): weak couplings keep loop-free systems (the complete search
#: runs to its end), strong ones many loops.
SIZES = ((2, 6), (3, 6), (4, 6), (5, 5), (6, 5), (8, 3), (10, 2))
ALPHAS = (0.1, 0.5, 1.0)
NJ0S = (0.02, 0.1, 0.5, 3.0, 30.0)


def check_directed(sy: Systems, rule, flip_times=None) -> tuple[int, int]:
    """Assert per-system equality of the search (every cap) with the enumeration; returns
    (systems, systems with a self-loop)."""
    assert sy.directed
    kw = {} if flip_times is None else {"flip_times": flip_times}
    starts = np.zeros(sy.samples, np.int64)
    ref = batch.enumerate_batch(sy, starts, rule, codes.WHAT_TRANSITIONS, **kw).columns
    n_ps = run_enumeration(sy, what=codes.WHAT_ZERO_FIELD)["n_potentially_stable"]
    loop = (ref["n_self_loop_transitions"] > 0).astype(np.int64)
    free = loop == 0
    for cap in CAPS:
        got = search_self_loops(sy, rule, reachable_cap=cap, **kw)
        bad = np.flatnonzero(got["self_loop"] != loop)
        assert bad.size == 0, f"rule {rule}, cap {cap}: systems {bad[:10]} disagree"
        # loop-free: every potentially stable state met once, every transition relaxed once
        assert np.array_equal(got["walks"][free], ref["n_transitions"][free])
        assert np.array_equal(got["ties"][free], ref["ties"][free])
        assert np.array_equal(got["potentially_stable_searched"][free], n_ps[free])
        assert np.all((got["found_by"] > 0) == (loop == 1))
    return sy.samples, int(loop.sum())


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("couplings", ["random", "symmetric"])
def test_ensembles_match_enumeration(couplings, rule):
    rng = np.random.default_rng([44, ["random", "symmetric"].index(couplings), RULES[rule]])
    systems = loops = 0
    for N, n in SIZES:
        for alpha in ALPHAS:
            for NJ0 in NJ0S:
                spans = ("hysteron", "spin")[N % 2]
                sy = sample_systems(couplings, spans, N, NJ0, n, rng, direction_asymmetry=alpha)
                a, b = check_directed(sy, rule)
                systems += a
                loops += b
    assert systems == 15 * sum(n for _, n in SIZES)
    assert 0.2 * systems < loops < 0.95 * systems  # loop-free systems and loops both seen


def tie_heavy_directed(rng, n, N) -> Systems:
    """Integer thresholds and couplings from a handful of values (unit 2^−2): equal margins,
    H^−(S) = H^+(S) and zero or negative spans and effective spans are frequent."""
    unit = 2**38
    mid = rng.integers(-3, 4, (n, N))
    half = rng.integers(-1, 3, (n, N))
    cp, cm = rng.integers(-2, 3, (2, n, N, N))
    idx = np.arange(N)
    cp[:, idx, idx] = 0
    cm[:, idx, idx] = 0
    same = rng.random(n) < 0.2  # some rows of c^− equal to c^+: mixed pairs
    cm[same, 0] = cp[same, 0]
    return Systems(
        (mid + half) * unit,
        (mid - half) * unit,
        np.ascontiguousarray(cp * unit),
        couplings_minus=np.ascontiguousarray(cm * unit),
    )


@pytest.mark.parametrize("rule", list(RULES))
def test_tie_heavy_systems_match_enumeration(rule):
    rng = np.random.default_rng([45, RULES[rule]])
    loops = ties = 0
    for N, n in ((2, 150), (3, 150), (4, 120), (5, 100), (6, 80), (8, 40), (10, 10)):
        sy = tie_heavy_directed(rng, n, N)
        _, found = check_directed(sy, rule)
        loops += found
        zero = run_enumeration(sy, rule=rule, what=codes.WHAT_ZERO_FIELD)
        ties += int((zero["potentially_stable_ties"] > 0).sum())
    assert loops > 100 and ties > 100


def test_flip_time_rule_matches_enumeration():
    rng = np.random.default_rng(46)
    for N in (2, 3, 4, 6, 8):
        for alpha in (0.3, 1.0):
            sy = sample_systems("random", "hysteron", N, 0.3, 30, rng, direction_asymmetry=alpha)
            tau = rng.integers(1, 4, (sy.samples, N)).astype(np.int64)  # equal ratios often
            check_directed(sy, "tau", flip_times=tau)
        check_directed(tie_heavy_directed(rng, 40, N), "tau", flip_times=tau[:1])


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 12),
    NJ0=st.sampled_from([0.05, 0.5, 3.0, 30.0]),
    couplings=st.sampled_from(["random", "symmetric", "weak", "ferro", "columns"]),
    rule=st.sampled_from(list(RULES)),
    cap=st.sampled_from(CAPS),
)
def test_equal_pair_is_the_plain_search(seed, N, NJ0, couplings, rule, cap):
    """c^+ = c^− held as a pair runs the direction-dependent search; every column (the
    search nodes and the phase that found the loop included) is the plain search's."""
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, "hysteron", N, NJ0, 12, rng)
    c = np.ascontiguousarray(sy.couplings)
    twin = Systems(sy.h_plus, sy.h_minus, c.copy(), couplings_minus=c.copy())
    assert twin.directed and twin.kernel_batch().form == codes.FORM_DIRECTED
    plain = search_self_loops(sy, rule, reachable_cap=cap)
    directed = search_self_loops(twin, rule, reachable_cap=cap)
    for name in codes.SEARCH_COLUMNS:
        assert np.array_equal(plain[name], directed[name]), name


def test_beyond_enumeration_runs_and_is_consistent():
    """N = 14 and 20 (beyond the tests' enumeration): the phases agree (cap 0 and the
    default find the same systems) and a system with a single-element loop is found."""
    rng = np.random.default_rng(47)
    for N in (14, 20):
        sy = sample_systems("random", "hysteron", N, 0.3, 20, rng, direction_asymmetry=0.5)
        a = search_self_loops(sy, "1", reachable_cap=0)
        b = search_self_loops(sy, "1")
        assert np.array_equal(a["self_loop"], b["self_loop"])
        assert 0 < a["self_loop"].sum()


def test_points_with_direction_asymmetry_take_the_search():
    """A sweep point with α > 0 runs group any_self_loop: at N = 8 its P_sl count is the
    enumeration's (group transitions) on the same systems; at N = 12 it finds more
    self-loops at α = 1 than at α = 0, and it runs at N = 24, beyond the enumeration."""
    point = Point("random", "hysteron", "1", 8, 1.0, direction_asymmetry=0.5)
    search = sample_point(point, 200, 3, ["any_self_loop"])
    enum = sample_point(point, 200, 3, ["transitions"])
    key = "self_loop_probability"
    assert search.counts[key] == enum.counts[key] and 0 < search.counts[key] < 200
    counts = [
        sample_point(replace(point, N=12, direction_asymmetry=a), 100, 3, ["any_self_loop"]).counts[
            key
        ]
        for a in (0.0, 1.0)
    ]
    assert counts[0] < counts[1]
    beyond = replace(point, N=24, NJ0=0.3)  # beyond the enumeration's N <= 18
    assert 0 < sample_point(beyond, 40, 3, ["any_self_loop"]).counts[key] < 40


def points_config(observables, N=12):
    """A configuration with one points study with α > 0 asking for ``observables``."""
    study = {"couplings": ["random"], "N": [N], "NJ0": [1.0], "samples": 10}
    study |= {"direction_asymmetry": [0, 0.5], "observables": observables}
    return {"studies": {"s": study}, "figures": {}}


def test_config_takes_the_search_and_the_float64_twin_with_direction_asymmetry():
    validate(points_config(["any_self_loop", "float64"]), check_paths=False)
    validate(points_config(["any_self_loop"], N=24), check_paths=False)  # beyond enumeration
    bad = points_config(["any_self_loop"])
    bad["studies"]["s"]["couplings"] = ["ferro"]
    with pytest.raises(ConfigError) as err:
        validate(bad, check_paths=False)
    assert "\n" not in str(err.value) and "direction_asymmetry: values > 0 need" in str(err.value)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 8),
    alpha=st.sampled_from([0.3, 1.0]),
    couplings=st.sampled_from(["random", "symmetric"]),
    spans=st.sampled_from(["spin", "hysteron"]),
    rule=st.sampled_from(list(RULES)),
)
def test_float64_twin_on_exact_parameters_equals_the_exact_transitions(
    seed, N, alpha, couplings, spans, rule
):
    """Quantised c^+ and c^− are exact in float64, so the twin relaxes exactly the
    enumeration's transitions, the same ones ending in a self-loop; a just-flipped element
    that is unstable has a negative effective span (unstable in exact arithmetic too)."""
    rng = np.random.default_rng(seed)
    NJ0 = float(10 ** rng.uniform(-1, 2.5))
    sy = sample_systems(couplings, spans, N, NJ0, 20, rng, direction_asymmetry=alpha)
    hp, hm, c = sy.to_floats()
    cm = sy.couplings_minus * 2.0**-40
    twin = batch.float64_transitions_batch(sy, hp, hm, c, rule, couplings_minus=cm)
    exact = run_enumeration(sy, rule=rule, what=codes.WHAT_TRANSITIONS)
    assert np.array_equal(twin["transitions"], exact["n_transitions"])
    assert np.array_equal(twin["self_loop_transitions"], exact["n_self_loop_transitions"])
    assert np.all(twin["just_flipped_unstable"] <= twin["transitions"])


def test_float64_twin_refuses_a_missing_or_extra_c_minus():
    rng = np.random.default_rng(48)
    sy = sample_systems("random", "hysteron", 3, 1.0, 2, rng, direction_asymmetry=0.5)
    hp, hm, c = sy.to_floats()
    with pytest.raises(ValueError, match="^couplings_minus: the systems .direction-dependent"):
        batch.float64_transitions_batch(sy, hp, hm, c, "1")
    plain = sample_systems("random", "hysteron", 3, 1.0, 2, rng)
    with pytest.raises(ValueError, match="^couplings_minus: the systems .paper couplings"):
        batch.float64_transitions_batch(plain, hp, hm, c, "1", couplings_minus=c)


def test_float64_group_with_direction_asymmetry():
    """The group float64 at α > 0: hysterons agree with the exact P_sl whatever the
    round-off (spans far from the thresholds), as in the paper's model."""
    point = Point("random", "hysteron", "1", 6, 10.0, direction_asymmetry=0.5)
    counts = sample_point(point, 300, 4, ["transitions", "float64"]).counts
    assert counts["self_loop_probability_float64"] == counts["self_loop_probability"]
    assert counts["float64_transitions"] > 0
