"""The P_sl-only search agrees per system with full enumeration (``transitions``).

Every coupling ensemble, span ensemble and rule at N <= 14 (most systems at
small N), tie-heavy integer systems, the pure-Python reference at tiny N,
exact symmetries (hypothesis) and systems beyond enumeration.
"""

import numpy as np
import pytest
from conftest import run_enumeration
from hypothesis import given
from hypothesis import strategies as st

from hyst.kernels import codes
from hyst.model.batch import any_self_loop_batch
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import RULES, Systems
from hyst.reference import naive

#: (N, systems per span ensemble) per (couplings, rule): 2,544 systems per case.
SIZES = ((2, 150), (3, 150), (4, 150), (5, 120), (6, 120), (8, 100), (10, 40), (12, 28), (14, 12))
NJ0S = (0.05, 0.5, 3.0, 20.0, 100.0)
#: Caps of the reachable search: 0 (complete search only), tiny (partial), default.
CAPS = (0, 3, codes.SEARCH_REACHABLE_CAP)


def search_self_loops(systems: Systems, rule, **kw) -> dict:
    """Per-system columns of the self-loop search (name -> array)."""
    cols = any_self_loop_batch(systems, rule, **kw)
    return {name: cols[name] for name in codes.SEARCH_COLUMNS}


def check_against_enumeration(sy: Systems, rule, caps=CAPS) -> dict:
    """Assert per-system equality with enumeration for every cap; return the columns."""
    ref = run_enumeration(sy, rule=rule, what=codes.WHAT_TRANSITIONS)
    zero = run_enumeration(sy, rule=rule, what=codes.WHAT_ZERO_FIELD)
    n_ps = zero["n_potentially_stable"]
    ref["potentially_stable_ties"] = zero["potentially_stable_ties"]  # H^-(S) = H^+(S)
    loop = (ref["n_self_loop_transitions"] > 0).astype(np.int64)
    for cap in caps:
        got = search_self_loops(sy, rule, reachable_cap=cap)
        bad = np.flatnonzero(got["self_loop"] != loop)
        assert bad.size == 0, f"rule {rule}, cap {cap}: systems {bad[:10]} disagree"
        free = loop == 0
        # loop-free: the complete search met every potentially stable state and relaxed
        # every transition exactly once, meeting exactly the enumeration's ties
        assert np.array_equal(got["potentially_stable_searched"][free], n_ps[free])
        assert np.array_equal(got["walks"][free], ref["n_transitions"][free])
        assert np.array_equal(got["ties"][free], ref["ties"][free])
        assert np.all((got["found_by"] > 0) == (loop == 1))
        if cap == 0:
            assert np.all(got["reachable_states"] == 0)
            assert np.all(got["found_by"] != codes.FOUND_REACHABLE)
    return ref


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("couplings", list(COUPLING_ENSEMBLES))
def test_every_ensemble_matches_enumeration(couplings, rule):
    rng = np.random.default_rng([7, list(COUPLING_ENSEMBLES).index(couplings), RULES[rule]])
    loops = 0
    for N, n in SIZES:
        for spans in SPAN_ENSEMBLES:
            for NJ0 in NJ0S:
                sy = sample_systems(couplings, spans, N, NJ0, n // len(NJ0S), rng)
                ref = check_against_enumeration(sy, rule)
                loops += int((ref["n_self_loop_transitions"] > 0).sum())
    if couplings == "random" or (rule == "2" and couplings != "ferro"):
        assert loops > 100  # the comparison saw many self-loops, not only loop-free systems


def tie_heavy_systems(N: int, n: int, rng) -> Systems:
    """Integer parameters from a handful of values (unit 2^-2): thresholds, margins and
    state thresholds coincide often; spans may be zero or negative."""
    unit = 2**38
    mid = rng.integers(-3, 4, (n, N))
    half = rng.integers(-1, 3, (n, N))
    c = rng.integers(-2, 3, (n, N, N))
    idx = np.arange(N)
    c[:, idx, idx] = 0
    return Systems((mid + half) * unit, (mid - half) * unit, np.ascontiguousarray(c * unit))


@pytest.mark.parametrize("rule", list(RULES))
def test_tie_heavy_integer_systems_match_enumeration(rule):
    rng = np.random.default_rng([11, RULES[rule]])
    ties = ps_ties = loops = 0
    for N, n in ((2, 400), (3, 400), (4, 400), (5, 300), (6, 300), (8, 200), (10, 60), (12, 20)):
        sy = tie_heavy_systems(N, n, rng)
        ref = check_against_enumeration(sy, rule)
        ties += int((ref["ties"] > 0).sum())
        ps_ties += int((ref["potentially_stable_ties"] > 0).sum())
        loops += int((ref["n_self_loop_transitions"] > 0).sum())
    # ties and self-loops were really exercised (equal winning margins exist under the
    # single-flip rules 1 and 1p only; states with H^-(S) = H^+(S) under every rule)
    assert ps_ties > 1000 and loops > 100
    assert ties > 300 or rule in ("0", "2")


@pytest.mark.parametrize("rule", list(RULES))
def test_tiny_tie_heavy_systems_match_the_pure_python_reference(rule):
    rng = np.random.default_rng([13, RULES[rule]])
    for N in (2, 3, 4):
        sy = tie_heavy_systems(N, 40, rng)
        got = search_self_loops(sy, rule)
        for k in range(sy.samples):
            hp, hm, c = sy.h_plus[k].tolist(), sy.h_minus[k].tolist(), sy.couplings[k].tolist()
            ref = naive.system_observables(hp, hm, c, rule, 0)
            assert got["self_loop"][k] == (ref["n_self_loop_transitions"] > 0)


def test_sixteen_elements_match_enumeration():
    rng = np.random.default_rng(17)
    for rule in RULES:
        for spans in SPAN_ENSEMBLES:
            sy = sample_systems("random", spans, 16, float(rng.choice([1.0, 10.0, 100.0])), 4, rng)
            check_against_enumeration(sy, rule, caps=(0, codes.SEARCH_REACHABLE_CAP))


def mirrored(sy: Systems) -> Systems:
    """s -> −s, H -> −H: h'^± = −h^∓, same couplings (thresholds H'^±(~S) = −H^∓(S))."""
    return Systems(-sy.h_minus, -sy.h_plus, sy.couplings.copy())


def permuted(sy: Systems, perm) -> Systems:
    c = sy.couplings[:, perm][:, :, perm]
    return Systems(sy.h_plus[:, perm], sy.h_minus[:, perm], np.ascontiguousarray(c))


system_strategy = dict(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 11),
    NJ0=st.floats(0.01, 1000.0),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(list(SPAN_ENSEMBLES)),
    rule=st.sampled_from(list(RULES)),
    ties=st.booleans(),
)


def draw(seed, N, NJ0, couplings, spans, ties, n=8):
    rng = np.random.default_rng(seed)
    if ties:
        return tie_heavy_systems(N, n, rng), rng
    return sample_systems(couplings, spans, N, NJ0, n, rng), rng


@given(**system_strategy)
def test_property_matches_enumeration(seed, N, NJ0, couplings, spans, rule, ties):
    sy, _ = draw(seed, N, NJ0, couplings, spans, ties)
    check_against_enumeration(sy, rule)


@given(**system_strategy)
def test_property_exact_symmetries(seed, N, NJ0, couplings, spans, rule, ties):
    """Mirror symmetry (exact, ties included), scaling every parameter by 3 (the same
    search, node for node), relabelling the elements (when no tie was met)."""
    sy, rng = draw(seed, N, NJ0, couplings, spans, ties)
    got = search_self_loops(sy, rule)
    assert np.array_equal(search_self_loops(mirrored(sy), rule)["self_loop"], got["self_loop"])
    scaled = Systems(3 * sy.h_plus, 3 * sy.h_minus, 3 * sy.couplings)
    again = search_self_loops(scaled, rule)
    for name in codes.SEARCH_COLUMNS:
        assert np.array_equal(again[name], got[name]), name
    perm = rng.permutation(N)
    other = search_self_loops(permuted(sy, perm), rule)
    clean = got["ties"] == 0  # no tie met: the loop found (or the proof) does not
    assert np.array_equal(other["self_loop"][clean], got["self_loop"][clean])


@pytest.mark.parametrize("spans", list(SPAN_ENSEMBLES))
def test_beyond_enumeration_every_phase_agrees(spans):
    """N = 20 and 24: the answer does not depend on how much the first phase did, and
    is mirror symmetric; loop-free systems are proven by the complete search."""
    rng = np.random.default_rng([19, list(SPAN_ENSEMBLES).index(spans)])
    for N, NJ0 in ((20, 3.0), (24, 100.0)):
        sy = sample_systems("random", spans, N, NJ0, 12, rng)
        answers = [search_self_loops(sy, "1", reachable_cap=cap) for cap in CAPS]
        for a in answers[1:]:
            assert np.array_equal(a["self_loop"], answers[0]["self_loop"])
        assert np.array_equal(
            search_self_loops(mirrored(sy), "1")["self_loop"], answers[0]["self_loop"]
        )
        complete = answers[0]
        assert np.all(complete["found_by"][complete["self_loop"] == 1] == codes.FOUND_COMPLETE)


def test_serial_and_parallel_batches_agree():
    rng = np.random.default_rng(23)
    sy = sample_systems("random", "hysteron", 12, 10.0, 300, rng)
    a = search_self_loops(sy, "1", parallel=True)
    b = search_self_loops(sy, "1", parallel=False)
    for name in codes.SEARCH_COLUMNS:
        assert np.array_equal(a[name], b[name]), name
