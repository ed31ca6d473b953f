"""The saturated-loop protocol (``hyst.kernels.drive.saturated_loop_batch``): transitions out
of the stable states along the saturated hysteresis loop and on the returns from its turning
points, driven through self-loops; against the from-scratch reference and the Supplemental's
statements about L = 4 self-loops in large systems."""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import RULES, Systems
from hyst.reference import naive_drive
from hyst.sampling.sampler import Point, check_self_loop_free, sample_point

OUTCOMES = {codes.SELF_LOOP: "self_loop", codes.ILL_DEFINED: "ill_defined"}
COMPARED = ("source", "event", "field", "L", "n_e", "e1", "e2", "c_kl", "c_lk", "h2_k", "h2_l")


@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 20),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(list(SPAN_ENSEMBLES)),
    rule=st.sampled_from(list(RULES)),
    return_events=st.integers(0, 3),
    max_loops=st.integers(0, 4),
)
# two pairs of elements whose frozen rests both hash to 0 (all down): told apart by the pair
@example(
    seed=165438,
    N=5,
    couplings="random",
    spans="spin",
    rule="1p",
    return_events=0,
    max_loops=1,
)
def test_protocol_matches_the_slow_reference(
    seed, N, couplings, spans, rule, return_events, max_loops
):
    """Every count and every recorded transition (where it started, its field, outcome,
    loop length, elements, couplings and rescaled midpoints) equals the from-scratch
    reference; the loop identity (rest_hash) is equal exactly when the frozen state is."""
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, float(10 ** rng.uniform(-0.5, 2.5)), 3, rng)
    out = batch.saturated_loop_batch(
        sy, rule, return_events=return_events, max_loops=max_loops, records_per_system=400
    )
    for k in range(sy.samples):
        summary, records = naive_drive.saturated_loop(
            sy.h_plus[k], sy.h_minus[k], sy.couplings[k], rule, return_events, max_loops
        )
        assert {name: int(out.summary[name][k]) for name in codes.SATURATED_COLUMNS} == summary
        assert out.recorded[k] == len(records)
        identities = {}
        for q, ref in enumerate(records):
            row = {name: int(out.loops[name][k, q]) for name in COMPARED}
            assert row == {name: ref[name] for name in COMPARED}
            assert OUTCOMES[int(out.loops["outcome"][k, q])] == ref["outcome"]
            if ref["rest"] is not None:
                key = (min(ref["e1"], ref["e2"]), max(ref["e1"], ref["e2"]), ref["rest"])
                identities.setdefault(key, set()).add(int(out.loops["rest_hash"][k, q]))
        assert all(len(v) == 1 for v in identities.values())
        # loops are told apart by (elements, rest_hash): distinct frozen states of the same
        # two elements must hash differently (another pair may share a hash, e.g. 0 for an
        # all-down rest)
        for pair in {key[:2] for key in identities}:
            hashes = [h for key, v in identities.items() if key[:2] == pair for h in v]
            assert len(set(hashes)) == len(hashes)


def two_gapped_pairs() -> Systems:
    """Four spins in two uncoupled pairs, each an N = 2 system with a gap (c12 = −c21 = 1,
    Δh^c = 0.5): pair (0, 1) around H = −1, pair (2, 3) around H = +1."""
    c = np.zeros((4, 4))
    c[0, 1], c[1, 0], c[2, 3], c[3, 2] = 1.0, -1.0, 1.0, -1.0
    h = np.array([-1.25, -0.75, 0.75, 1.25])
    return Systems.from_floats(h[None], h[None], c[None])


@pytest.mark.parametrize("max_loops", [0, 1, 5])
def test_a_branch_drives_through_its_loops(max_loops):
    """Each branch meets the L = 4 loop of one pair, drives through it (the loop breaks up
    at the threshold of its first step against the drive), meets the other pair's loop and
    saturates; with max_loops = 0 it ends at its first loop."""
    sy = two_gapped_pairs()
    out = batch.saturated_loop_batch(sy, "1", return_events=1, max_loops=max_loops)
    branch = out.summary["loops_branch"][0]
    assert branch == (2 if max_loops == 0 else 4)
    assert out.summary["saturated"][0] == (2 if max_loops >= 2 else 0)  # 2 loops each
    loops = out.loops.array[0, : out.recorded[0]]
    main = loops[loops[:, codes.LOOP_SOURCE] < 2]
    assert set(main[:, codes.LOOP_L]) == {4} and set(main[:, codes.LOOP_N_E]) == {2}
    order = {
        branch: [{int(r[codes.LOOP_E1]), int(r[codes.LOOP_E2])} for r in main[main[:, 0] == branch]]
        for branch in (codes.SOURCE_UP, codes.SOURCE_DOWN)
    }
    low, high = {0, 1}, {2, 3}  # the up branch meets the low pair first, the down branch not
    assert order[codes.SOURCE_UP] == ([low, high] if max_loops else [low])
    assert order[codes.SOURCE_DOWN] == ([high, low] if max_loops else [high])


@pytest.mark.parametrize("spans", ["spin", "hysteron"])
def test_l4_records_lie_in_the_two_spin_region(spans):
    """Supplemental, large systems: every L = 4 self-loop met at any H (main branches and
    returns) involves two elements k, l with c_kl c_lk < 0 and |c_kl − c_lk| > |h̃_l − h̃_k|
    (the N = 2 spin condition with rescaled midpoints); rule 1 loops have even L >= 4."""
    tally = sample_point(
        Point("random", spans, "1", 64, 10.0), 300, 3, ["saturated_loop"], records={"l4": 10**6}
    )
    rec = tally.records["l4"]
    assert tally.counts["saturated_loop_probability"] > 100
    assert tally.counts["saturated_loop_return_self_loops"] > 20
    assert rec["c_kl"].size > 20 and rec["returning"].sum() > 5
    assert np.all(np.sign(rec["c_kl"]) * np.sign(rec["c_lk"]) < 0)
    assert np.all(np.abs(rec["c_kl"] - rec["c_lk"]) > np.abs(rec["h_tilde_l"] - rec["h_tilde_k"]))
    hist = tally.hists["saturated_loop_length_hist"]
    assert hist[4] >= rec["c_kl"].size and hist[1::2].sum() == 0 and hist[2] == 0
    assert tally.counts["saturated_loop_unrecorded"] == 0


def test_self_loop_free_ensembles_reach_saturation_on_every_branch():
    returns = 0
    for couplings in ("symmetric", "columns", "rows", "ferro"):
        point = Point(couplings, "hysteron", "1", 48, 30.0)
        tally = sample_point(point, 50, 1, ["saturated_loop"])
        assert tally.counts["saturated_loop_any_probability"] == 0
        assert tally.counts["saturated_loop_ill_defined"] == 0
        assert tally.counts["saturated_loop_saturated_branches"] == 2 * 50
        check_self_loop_free(point, tally)
        returns += tally.counts["saturated_loop_returns"]
    assert returns > 100


@pytest.mark.parametrize("couplings", ["random", "ferro", "weak"])
def test_kernels_read_either_coupling_layout(couplings):
    """Dense couplings drawn as a transposed view (the iid ensembles) are read in place
    (``FORM_DENSE_T``); the same couplings in C order take the transposing path. Every
    event-driven kernel gives identical outputs for both layouts."""
    rng = np.random.default_rng(5)
    sy = sample_systems(couplings, "hysteron", 12, 5.0, 20, rng)
    c = sy.couplings.copy()
    views = [Systems(sy.h_plus, sy.h_minus, c), Systems(sy.h_plus, sy.h_minus, c.copy())]
    views[0]._couplings = np.ascontiguousarray(c.transpose(0, 2, 1)).transpose(0, 2, 1)
    forms = [v.kernel_batch().form for v in views]
    assert forms == [codes.FORM_DENSE_T, codes.FORM_DENSE]
    starts = np.where(rng.random((20, 12)) < 0.5, -1, 1).astype(np.int8)
    results = []
    for v in views:
        sat = batch.saturated_loop_batch(v, "1", parallel=False)
        ava = batch.avalanche_batch(v, starts, "1", parallel=False)
        results.append((sat, ava))
    (sat0, ava0), (sat1, ava1) = results
    for name in ava0.names:
        np.testing.assert_array_equal(ava0[name], ava1[name])
    for a, b in ((sat0.summary, sat1.summary), (sat0.loops, sat1.loops)):
        for name in a.names:
            np.testing.assert_array_equal(a[name], b[name])
    np.testing.assert_array_equal(sat0.recorded, sat1.recorded)
    assert sat0.summary["loops"].sum() > 0 or couplings != "random"  # not a trivial check
    assert views[0].couplings.flags.c_contiguous
    np.testing.assert_array_equal(views[0].couplings, c)
