"""Event-driven array kernels (any N) against the bitmask kernels, and drive facts."""

from pathlib import Path

import numpy as np
import pytest
from conftest import run_enumeration
from hypothesis import given
from hypothesis import strategies as st

from hyst.kernels import codes
from hyst.model import batch
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.relax import StateTables, relax_spins
from hyst.model.systems import RULES, Systems, quantize, state_to_spins
from hyst.reference import naive_drive

#: Hypothesis strategies of a random system of any ensemble, and a rule.
RANDOM_SYSTEM = dict(
    seed=st.integers(0, 2**32 - 1),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(list(SPAN_ENSEMBLES)),
    rule=st.sampled_from(list(RULES)),
)


@given(N=st.integers(2, 7), **RANDOM_SYSTEM)
def test_array_relaxation_matches_bitmask_relaxation(seed, N, couplings, spans, rule):
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, float(rng.uniform(0.1, 100)), 1, rng)
    tables = StateTables(sy)
    for _ in range(12):
        S = int(rng.integers(0, 1 << N))
        kind = rng.integers(3)
        if kind == 0:
            field = (0, 0)
        else:
            T = int(rng.integers(0, 1 << N))
            field = (int(tables.hplus[T]), 1) if kind == 1 else (int(tables.hminus[T]), -1)
            if abs(field[0]) >= 2**61:
                field = (int(rng.integers(-(2**41), 2**41)), int(rng.integers(-1, 2)))
        a = tables.relax(S, field, rule)
        b, _ = relax_spins(sy, state_to_spins(S, N), field, rule)
        assert (a.outcome, a.flips, a.steps, a.race_condition, a.ties, a.L, a.n_e) == (
            b.outcome,
            b.flips,
            b.steps,
            b.race_condition,
            b.ties,
            b.L,
            b.n_e,
        )
        if a.outcome != "self_loop":
            assert a.final_state == b.final_state
        else:
            assert b.final_state in a.cycle_states


@pytest.mark.parametrize("rule", list(RULES))
def test_avalanche_batch_matches_enumeration(rule, rng):
    N, n = 8, 600
    sy = sample_systems("random", "hysteron", N, 10.0, n, rng)
    spins = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
    starts = (spins > 0).astype(np.int64) @ (1 << np.arange(N))
    cols = run_enumeration(sy, rule=rule, starts=starts, what=codes.WHAT_AVALANCHE)
    av = batch.avalanche_batch(sy, spins, rule)
    assert np.array_equal(av["prepared"] == 1, cols["start_prepared"] == 1)
    assert np.array_equal(av["race_first_flip"], cols["race_first_flip"])
    assert np.array_equal(av["outcome"], cols["avalanche_outcome"])
    stable = av["outcome"] == codes.STABLE
    assert np.array_equal(av["size"][stable], cols["avalanche_size"][stable])


def _drive(sy, rng, rule="1", max_cycles=10_000):
    n, N = sy.h_plus.shape
    spins = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
    return batch.cyclic_drive_batch(sy, spins, rule, max_cycles)


@pytest.mark.parametrize("couplings", ["symmetric", "columns", "rows"])
@pytest.mark.parametrize("N", [7, 45])
def test_compact_coupling_forms_match_the_dense_matrices(couplings, N, rng):
    """The kernels read symmetric, constant-column and constant-row couplings from their
    compact forms; every output equals the generic dense path (transposed matrices) on
    the same systems, for every rule and at NJ0 across the crossover."""
    for NJ0 in (0.3, 3.0, 300.0):
        compact = sample_systems(couplings, "hysteron", N, NJ0, 40, rng)
        dense = Systems(compact.h_plus, compact.h_minus, compact.couplings)
        assert compact.form == couplings and dense.form == "dense"
        spins = np.where(rng.random((40, N)) < 0.5, -1, 1).astype(np.int8)
        for rule in RULES:
            outs = []
            for sy in (compact, dense):
                aval = batch.avalanche_batch(sy, spins, rule).array
                cyc, umax = batch.cyclic_drive_batch(sy, spins, rule, 1000)
                loop = batch.saturated_loop_batch(sy, rule, return_events=2)
                outs.append((aval, cyc.array, umax, loop.summary.array, loop.loops.array))
            for a, b in zip(*outs, strict=True):
                assert np.array_equal(a, b)


DRIVE_OUTCOMES = {0: "orbit", 1: "self_loop", 2: "ill_defined", 3: "not_converged"}
AVALANCHE_OUTCOMES = {0: "stable", 1: "self_loop", 2: "ill_defined"}


@given(N=st.integers(3, 24), **RANDOM_SYSTEM)
def test_drive_protocols_match_the_slow_reference(seed, N, couplings, spans, rule):
    """Avalanches and the cyclic drive (outcome, A, τ, T, U_max, flips) equal the from-scratch
    reference hyst.reference.naive_drive on random systems of every ensemble and rule."""
    rng = np.random.default_rng(seed)
    n = 4
    sy = sample_systems(couplings, spans, N, float(10 ** rng.uniform(-1, 2.5)), n, rng)
    spins = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
    hp, hm = sy.h_plus, sy.h_minus
    aval = batch.avalanche_batch(sy, spins, rule)
    out, umax = batch.cyclic_drive_batch(sy, spins, rule, 200)
    for k in range(n):
        c = sy.couplings[k]
        prepared, outcome, A = naive_drive.avalanche(hp[k], hm[k], c, spins[k], rule)
        assert (aval["prepared"][k] == 1) == prepared
        if prepared:
            assert AVALANCHE_OUTCOMES.get(int(aval["outcome"][k])) == outcome
            if outcome == "stable":
                assert aval["size"][k] == A
        ref = naive_drive.cyclic_drive(hp[k], hm[k], c, spins[k], rule, max_cycles=200)
        if ref[0] == "unprepared":
            assert out["prepared"][k] == 0
            continue
        assert DRIVE_OUTCOMES[int(out["outcome"][k])] == ref[0] and umax[k] == ref[3]
        assert out["flips"][k] == ref[4]  # every flip of the drive
        if ref[0] == "orbit":
            assert (out["transient"][k], out["period"][k]) == ref[1:3]


def test_constant_rows_can_have_a_period_two_orbit():
    """Beyond the paper ("T = 1 systematically" for constant rows): one system of the
    paper preset (rows, hysterons, N = 512, J0 = 0.01; 1 in 5,000 at that point) reaches
    a period-2 orbit after one cycle. The slow reference confirms it."""
    data = np.load(Path(__file__).parent / "data" / "rows_period_two.npz")
    sy = Systems(
        data["h_plus"][None], data["h_minus"][None], form="rows", packed=data["strengths"][None]
    )
    start = data["start"][None]
    out, umax = batch.cyclic_drive_batch(sy, start, "1", 100)
    assert out["outcome"][0] == codes.ORBIT and out["ties"][0] == 0
    assert (out["transient"][0], out["period"][0]) == (1, 2)
    ref = naive_drive.cyclic_drive(sy.h_plus[0], sy.h_minus[0], sy.couplings[0], start[0], "1")
    assert ref == ("orbit", 1, 2, umax[0], out["flips"][0])


def test_constant_columns_without_race_conditions_can_avalanche_beyond_two():
    """The paper states A <= 2 for constant columns when race conditions are not allowed
    (rule 0). A three-element counterexample: at H = H^+(S0) = 0.8, p flips up, which
    alone destabilises q (down), which alone destabilises r (up); one unstable element
    at every step, A = 3. d = (0.1, 1.0, 0.2), spans 0.2."""
    hp = quantize([[0.0, 1.2, 1.0]])
    sy = Systems(hp, hp - quantize(0.2), form="columns", packed=quantize([[0.1, 1.0, 0.2]]))
    S0 = 0b010  # p = 0 and r = 2 down, q = 1 up; stable for 0.7 < H < 0.8
    tables = StateTables(sy)
    assert tables.hminus[S0] < tables.hplus[S0]
    field = (int(tables.hplus[S0]), 1)
    r = tables.relax(S0, field, "0")
    assert (r.outcome, r.flips, r.final_state, r.race_condition) == ("stable", 3, 0b101, False)
    b, _ = relax_spins(sy, state_to_spins(S0, 3), field, "0")
    assert (b.outcome, b.flips) == ("stable", 3)


def test_preisach_limit_has_tau_at_most_one_and_period_one(rng):
    sy = sample_systems("random", "hysteron", 32, 1e-6, 300, rng)
    out, _ = _drive(sy, rng)
    assert np.all(out["outcome"] == codes.ORBIT)
    assert np.all(out["transient"] <= 1) and np.all(out["period"] == 1)
    assert out["transient"].mean() > 0.5  # most systems change during the first cycle


@pytest.mark.parametrize("couplings", ["columns", "rows", "symmetric"])
def test_self_loop_free_drive_never_self_loops(couplings, rng):
    sy = sample_systems(couplings, "hysteron", 64, 30.0, 100, rng)
    out, umax = _drive(sy, rng)
    assert np.all(out["prepared"] == 1) and np.all(out["outcome"] == codes.ORBIT)
    assert np.all(umax > 0)
    if couplings == "columns":  # no scrambling: every orbit has the period of the drive
        assert np.all(out["period"] == 1)


def test_drive_detects_longer_periods(rng):
    """Symmetric couplings at intermediate J0 produce multiperiodic orbits (T > 1)."""
    sy = sample_systems("symmetric", "hysteron", 128, 10.0, 300, rng)
    out, _ = _drive(sy, rng)
    assert np.all(out["outcome"] == codes.ORBIT)
    assert (out["period"] > 1).any()


def test_drive_reports_self_loops_and_cycle_limit(rng):
    sy = sample_systems("random", "spin", 16, 50.0, 200, rng)
    out, _ = _drive(sy, rng)
    assert (out["outcome"] == codes.SELF_LOOP).any()  # reported, not hidden
    out, _ = _drive(sample_systems("symmetric", "hysteron", 64, 1.0, 200, rng), rng, max_cycles=1)
    assert (out["outcome"] == codes.NOT_CONVERGED).any()


def test_large_n_relaxation_with_hash_table_growth():
    """N = 1024 avalanches run with exact cycle detection through table growth."""
    rng = np.random.default_rng(2)
    sy = sample_systems("symmetric", "hysteron", 1024, 100.0, 4, rng)
    spins = np.where(rng.random((4, 1024)) < 0.5, -1, 1).astype(np.int8)
    out = batch.avalanche_batch(sy, spins, "1")
    assert np.all(out["prepared"] == 1) and np.all(out["outcome"] == codes.STABLE)
    assert np.all(out["preparation_flips"] > 64)  # the preparation needed many flips


def test_embedded_two_spin_loop_detected_exactly_at_large_n():
    """The two-spin gap loop (c12 = −c21 = 0.6, Δh = 0.5) embedded among 38 frozen
    elements: at H = 0.2 (inside the gap) rule 1 cycles through 4 states of 2 elements."""
    N = 40
    c = np.zeros((N, N))
    c[0, 1], c[1, 0] = 0.6, -0.6
    mid = np.r_[0.0, 0.5, np.full(N - 2, 5.0)]
    sy = Systems.from_floats(mid, mid, c)
    H = Systems.from_floats([0.2], [0.2], [[0.0]]).h_plus[0, 0]
    r, _ = relax_spins(sy, -np.ones(N, np.int8), (int(H), 0), "1")
    assert (r.outcome, r.L, r.n_e) == ("self_loop", 4, 2)
    r, _ = relax_spins(sy, -np.ones(N, np.int8), (int(H) * 4, 0), "1")  # H = 0.8: no gap
    assert r.outcome == "stable"


def test_self_loop_free_guard_raises_on_a_self_loop_count():
    from hyst.sampling.sampler import Point, check_self_loop_free
    from hyst.sampling.tallies import Tally

    tally = Tally()
    tally.add_count("samples", 10)
    tally.add_count("avalanche_self_loop_probability", 0)
    check_self_loop_free(Point("columns", "hysteron", "1", 32, 1.0), tally)
    tally.add_count("avalanche_self_loop_probability", 1)
    with pytest.raises(RuntimeError, match="self-loop-free ensemble"):
        check_self_loop_free(Point("columns", "hysteron", "1", 32, 1.0), tally)
    rows = Tally()
    rows.add_hist("avalanche_size_hist", [0, 5, 3])
    check_self_loop_free(Point("rows", "hysteron", "1", 32, 1.0), rows)
    rows.add_hist("avalanche_size_hist", [0, 0, 0, 1])
    with pytest.raises(RuntimeError, match="avalanches_longer_than_2"):
        check_self_loop_free(Point("rows", "hysteron", "1", 32, 1.0), rows)
    cols = Tally()
    cols.add_hist("period_hist", [0, 7])
    check_self_loop_free(Point("columns", "hysteron", "1", 32, 1.0), cols)
    cols.add_hist("period_hist", [0, 0, 1])
    with pytest.raises(RuntimeError, match="periods_other_than_1"):
        check_self_loop_free(Point("columns", "hysteron", "1", 32, 1.0), cols)
    check_self_loop_free(Point("rows", "hysteron", "1", 32, 1.0), cols)  # rows: T = 2 occurs
    prep = Tally()
    prep.add_count("samples", 10)
    prep.add_count("drive_trials", 10)
    check_self_loop_free(Point("rows", "hysteron", "1", 32, 1.0), prep)
    prep.add_count("prepared_starts", 9)  # one preparation did not reach a stable S0
    with pytest.raises(RuntimeError, match="unprepared"):
        check_self_loop_free(Point("rows", "hysteron", "1", 32, 1.0), prep)
    check_self_loop_free(Point("columns", "hysteron", "2", 32, 1.0), tally)  # rule 2: L = 2
    check_self_loop_free(Point("random", "hysteron", "1", 32, 1.0), tally)


@given(N=st.integers(2, 40), small=st.booleans(), **RANDOM_SYSTEM)
def test_relax_event_equals_relax_along_a_drive(seed, N, small, couplings, spans, rule):
    """``relax_event`` (the drives' shortcut: the switching element is known, one scan
    fewer) gives exactly what ``relax`` gives, event by event along both saturated
    branches; small integer parameters make switching-field ties common (those events
    take ``relax``)."""
    from hyst.kernels.relaxation import (
        init_fields,
        next_down,
        next_up,
        relax,
        relax_event,
        system_state,
        system_view,
        transpose_buffer,
        up_mask,
    )

    rng = np.random.default_rng(seed)
    if small:
        mid = rng.integers(-3, 4, (1, N))
        half = rng.integers(-1, 3, (1, N))
        c = rng.integers(-3, 4, (1, N, N))
        c[:, np.arange(N), np.arange(N)] = 0
        sy = Systems(mid + half, mid - half, c.astype(np.int64))
    else:
        sy = sample_systems(couplings, spans, N, float(rng.uniform(0.1, 100)), 1, rng)
    operands = sy.kernel_batch()
    form = operands.form
    code = RULES[rule]
    hp, hm = sy.h_plus[0], sy.h_minus[0]
    s, neg, f, res, ws = system_state(N)
    ct, dk = system_view(0, operands, transpose_buffer(form, N))
    events = ties = 0
    for direction in (1, -1):
        s[:] = -direction
        up_mask(s, neg)
        init_fields(s, f, form, ct, dk)
        for _ in range(4 * N):
            Hc, crit, tie = (next_up if direction > 0 else next_down)(
                neg, f, hp if direction > 0 else hm
            )
            if crit < 0:
                break
            ties += tie
            state = (s.copy(), neg.copy(), f.copy())
            oc = relax(s, neg, f, Hc, direction, code, hp, hm, form, ct, dk, ws, res)
            if tie:
                if oc != codes.STABLE:
                    break
                continue
            s2, neg2, f2 = state
            res2 = np.zeros_like(res)
            oc2 = relax_event(
                crit, s2, neg2, f2, Hc, direction, code, hp, hm, form, ct, dk, ws, res2
            )
            assert oc2 == oc and np.array_equal(res2, res)
            assert np.array_equal(s2, s) and np.array_equal(f2, f) and np.array_equal(neg2, neg)
            events += 1
            if oc != codes.STABLE:
                break
    assert events + ties > 0  # something was compared, or every switching field was tied


@given(N=st.integers(2, 48), n=st.integers(1, 6), **RANDOM_SYSTEM)
def test_fused_avalanche_and_cyclic_drive_equal_the_separate_kernels(
    seed, N, n, couplings, spans, rule
):
    """One preparation for both protocols (the sampler's path when a point asks for both)
    gives exactly the avalanche and cyclic-drive outputs of the two separate kernels, on
    both the serial and the parallel kernels, whichever the coupling form (dense, dense
    transposed, symmetric, constant columns or rows)."""
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, float(rng.uniform(0.01, 100)), n, rng)
    starts = np.where(rng.random((n, N)) < 0.5, -1, 1).astype(np.int8)
    for parallel in (False, True):
        av, cy, umax = batch.avalanche_cyclic_batch(sy, starts, rule, 1000, parallel=parallel)
        av_ref = batch.avalanche_batch(sy, starts, rule, parallel=parallel)
        cy_ref, umax_ref = batch.cyclic_drive_batch(sy, starts, rule, 1000, parallel=parallel)
        assert np.array_equal(av.array, av_ref.array)
        assert np.array_equal(cy.array, cy_ref.array)
        assert np.array_equal(umax, umax_ref)
