"""Drive protocols of one system (hyst.model.protocols, hyst.kernels.protocols) against the
slow reference hyst.reference.naive_protocols, and their properties."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyst.kernels import codes
from hyst.kernels import protocols as kp
from hyst.model import protocols
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import RULES, Systems
from hyst.reference import naive_protocols as naive

RANDOM_SYSTEM = dict(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 6),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(list(SPAN_ENSEMBLES)),
    rule=st.sampled_from(list(RULES)),
)


def _draw(seed, N, couplings, spans):
    rng = np.random.default_rng(seed)
    NJ0 = float(10 ** rng.uniform(-1, 2))
    sy = sample_systems(couplings, spans, N, NJ0, 1, rng)
    hp, hm, c = (np.asarray(a[0], np.int64) for a in (sy.h_plus, sy.h_minus, sy.couplings))
    return rng, sy, (hp, hm, c)


@settings(max_examples=60, deadline=None)
@given(**RANDOM_SYSTEM)
def test_a_path_of_turning_fields_matches_the_reference(seed, N, couplings, spans, rule):
    """Turning fields drawn among the thresholds of all states (so that thresholds exactly
    at a turning field are met) and between them."""
    rng, sy, (hp, hm, c) = _draw(seed, N, couplings, spans)
    amps = np.array(naive.distinct_amplitudes(hp, hm, c), np.int64)
    picks = rng.choice(np.concatenate([amps, -amps, amps + 1, -amps - 1, [0]]), size=6)
    start = int(rng.choice([-1, 1]))
    d = protocols.drive(sy, picks, rule, start=start)
    dirs = protocols.turning_directions(picks, start)
    outcome, states, L = naive.path(hp, hm, c, list(zip(picks, dirs, strict=True)), rule, start)
    assert d.outcome == outcome
    assert np.array_equal(d.states, np.array(states))
    assert (d.loop.L if d.loop is not None and outcome == "self_loop" else 0) == L
    if d.loop is not None and d.outcome == "self_loop":
        assert d.loop.n_e >= 2 and (d.loop.exit - d.loop.field) * d.loop.direction > 0
    # the event log: fields monotone within each leg, magnetisation as the states say
    if d.events.shape[0]:
        last = d.events[-1]
        assert last[kp.EV_M] == int(d.states[last[kp.EV_LEG]].sum())


@settings(max_examples=40, deadline=None)
@given(**RANDOM_SYSTEM)
def test_symmetric_drive_and_sweep_match_the_reference(seed, N, couplings, spans, rule):
    """At every distinct amplitude (and 0): outcome, τ, T and the states x_k as the
    reference; the sweep's amplitudes are distinct amplitudes, and its period at each
    distinct amplitude is the drive's."""
    _rng, sy, (hp, hm, c) = _draw(seed, N, couplings, spans)
    amps = protocols.distinct_amplitudes(sy)
    assert amps.tolist() == naive.distinct_amplitudes(hp, hm, c)
    sweep = protocols.amplitude_sweep(sy, rule, first_only=False)
    assert set(sweep.amplitudes[1:].tolist()) <= set(amps.tolist())
    if sweep.preamble != "done":  # the rise from saturation to H = 0 stopped
        assert sweep.amplitudes.size == 0
        assert protocols.symmetric_drive(sy, 0, rule).outcome == sweep.preamble
        return
    assert sweep.amplitudes[0] == 0 and np.all(np.diff(sweep.amplitudes) > 0)
    for A in [0, *amps.tolist()]:
        d = protocols.symmetric_drive(sy, A, rule)
        outcome, tau, T, xs = naive.symmetric(hp, hm, c, A, rule)
        assert d.outcome == outcome, A
        if outcome == "orbit":
            assert (d.transient, d.period) == (tau, T)
            assert np.array_equal(d.states, np.array(xs))
            assert sweep.period_at(A) == T
        else:
            assert sweep.period_at(A) == -1
        if outcome == "orbit" and A in sweep.amplitudes:
            assert sweep.transients[sweep.amplitudes.tolist().index(A)] == tau
    multi = [A for A in [0, *amps.tolist()] if sweep.period_at(A) > 1]
    first = protocols.amplitude_sweep(sy, rule)
    assert first.critical_amplitude == (multi[0] if multi else None)
    assert first.critical_period == (sweep.period_at(multi[0]) if multi else 1)


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
def test_sweep_batch_summarises_the_sweeps(rule):
    """Each system's summary against its sweep, and return-point memory against the nested
    protocol driven from saturation (the batch starts it from the sweep's state at H = 0).
    Rule 0 at weaker couplings, where fewer drives stop at a race condition."""
    rng = np.random.default_rng(7)
    sy = sample_systems("random", "hysteron", 6, 1.0 if rule == "0" else 8.0, 40, rng)
    out = protocols.sweep_batch(sy, rule)
    serial = protocols.sweep_batch(sy, rule, parallel=False)
    assert np.array_equal(out.array, serial.array)
    held = 0
    for k in range(sy.samples):
        s = protocols.amplitude_sweep(sy, rule, first_only=False, index=k)
        row = dict(zip(kp.SWEEP_SUMMARY_COLUMNS, out.array[k].tolist(), strict=True))
        assert row["amplitudes"] == len(s.amplitudes)
        assert row["critical_amplitude"] == (
            -1 if s.critical_amplitude is None else s.critical_amplitude
        )
        loops = [q for q, o in enumerate(s.outcomes) if o == "self_loop"]
        assert row["loop_amplitude"] == (s.amplitudes[loops[0]] if loops else -1)
        if not (s.outcomes and s.outcomes[-1] == "orbit"):
            assert row["saturation_field"] == codes.INF and row["rpm"] == -1
            continue
        saturation = row["saturation_field"]
        assert saturation == s.amplitudes[-1] and s.periods[-1] == 1  # saturated turning points
        half = saturation // 2
        d = protocols.drive(sy, [half, -half, 0, -half, half], rule, index=k)
        if d.outcome != "done":
            assert row["rpm"] == -1
            continue
        holds = np.array_equal(d.states[1], d.states[3]) and np.array_equal(
            d.states[0], d.states[4]
        )
        assert row["rpm"] == int(holds)
        held += holds
    assert held > 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), N=st.integers(2, 8), rule=st.sampled_from(["1", "1p", "2"]))
def test_return_point_memory_holds_with_ferromagnetic_couplings(seed, N, rule):
    """c_ij >= 0 and h^+ >= h^-: avalanches are monotone and no state passes another
    (Sethna et al. 1993), so every nested sub-loop returns to the state it left, under
    every rule that decides a race condition."""
    rng, sy, (hp, hm, c) = _draw(seed, N, "ferro", "hysteron")
    amps = np.array(naive.distinct_amplitudes(hp, hm, c), np.int64)
    H2, H1 = sorted(rng.choice(amps, 2) * rng.choice([-1, 1], 2))
    H3 = int(rng.integers(H2, H1 + 1))
    r = protocols.return_point_memory(sy, [H1, H2], H3, rule)
    assert r.holds is True
    assert np.array_equal(r.left, r.returned)


def test_return_point_memory_fails_where_a_sub_loop_changes_the_state():
    """h^+ = (0.05, 0.3), h^- = (-0.45, 0.1), c_12 = -0.9, c_21 = -0.2: driven up to 0.5 the
    state is (+1, +1); down to 0, element 1 switches at H_1^- = 0.45, after which element 2
    sits at H_2^- = -0.1 and H_1^+ = 0.95: back at 0.5 the state is (-1, +1). A sub-loop
    that turns above 0.45 changes nothing."""
    sy = Systems.from_floats([0.05, 0.3], [-0.45, 0.1], [[0, -0.9], [-0.2, 0]])
    q = 2**40
    r = protocols.return_point_memory(sy, [q // 2], 0)
    assert r.holds is False
    assert r.left.tolist() == [1, 1] and r.returned.tolist() == [-1, 1]
    assert protocols.return_point_memory(sy, [q // 2], int(0.46 * q)).holds is True


def test_asymmetric_drive_and_bad_input():
    rng = np.random.default_rng(3)
    sy = sample_systems("random", "hysteron", 5, 3.0, 1, rng)
    q = 2**40
    d = protocols.asymmetric_drive(sy, -q // 4, q)
    assert d.outcome in ("orbit", "self_loop")
    cyc = protocols.cyclic_drive(sy, [q, -q // 4], preamble=[-q // 4])
    assert (cyc.outcome, cyc.transient, cyc.period) == (d.outcome, d.transient, d.period)
    sym = protocols.symmetric_drive(sy, q // 2)
    gen = protocols.cyclic_drive(sy, [q // 2, -q // 2, 0], preamble=[0])
    assert np.array_equal(sym.states, gen.states) and np.array_equal(sym.events, gen.events)
    with pytest.raises(ValueError, match="h_max"):
        protocols.asymmetric_drive(sy, q, -q)
    with pytest.raises(ValueError, match="amplitude"):
        protocols.symmetric_drive(sy, -1)
    with pytest.raises(ValueError, match="start"):
        protocols.drive(sy, [0], start=0)
    with pytest.raises(ValueError, match="sub_field"):
        protocols.return_point_memory(sy, [q], 2 * q)


def test_group_multiperiodic_tallies_the_amplitude_sweeps():
    """The sampler's pass for group multiperiodic: its probabilities equal a direct count
    over the same systems (drawn as the sampler draws its chunk)."""
    from hyst.sampling.sampler import Point, draw_chunk, sample_point
    from hyst.sampling.tallies import tally_to_dataset

    point = Point("weak", "hysteron", "1", 8, 10.0)
    tally = sample_point(point, 600, 3, ["multiperiodic"])
    ds = tally_to_dataset(tally, ["multiperiodic"])
    sy, _spins = draw_chunk(point, 3, 0, 600)
    cols = protocols.sweep_batch(sy, "1", parallel=False)
    crit = cols["critical_amplitude"]
    assert int(ds["multiperiodic_probability_count"]) == int((crit >= 0).sum()) > 0
    assert int(ds["multiperiodic_probability_trials"]) == 600
    assert int(ds["multiperiodic_period_hist"].sum()) == int((crit >= 0).sum())
    assert int(ds["multiperiodic_period_hist"][:2].sum()) == 0  # T > 1 only
    rpm_trials = int((cols["rpm"] >= 0).sum())
    assert int(ds["return_point_memory_probability_trials"]) == rpm_trials > 0
    assert 0 < float(ds["critical_amplitude_relative"]) < 1
    assert "transient" not in ds  # nothing of the other groups


def test_each_thread_drives_with_a_relaxation_workspace_of_its_own():
    """The relaxation workspace a drive uses (its revisit table, written as an avalanche
    runs, without the GIL) is one per thread and N: kept across the drives of a thread,
    never the one another thread uses. (Shared between threads, two relaxations at once
    wrote into one table: their results changed, or a relaxation never ended.)"""
    import threading

    mine = protocols._workspace(12)
    assert protocols._workspace(12) is mine and protocols._workspace(13) is not mine
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(protocols._workspace(12)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine
    assert all(a is not b for a, b in zip(theirs[0], mine, strict=True))


def test_drives_on_many_threads_at_once_give_the_drives_of_one_thread():
    """The drives of one system share its view and each thread's relaxation workspace,
    and the kernels run without the GIL: drives of systems of 64 elements (long avalanches,
    self-loops among them) on eight threads at once give exactly what the same drives give
    one after the other."""
    from concurrent.futures import ThreadPoolExecutor

    from hyst.model.systems import QUANTUM

    rng = np.random.default_rng(11)
    systems = sample_systems("random", "hysteron", 64, 3.0, 4, rng)
    jobs = [(k, int(a * QUANTUM)) for k in range(4) for a in np.linspace(0.1, 3.0, 40)]

    def run(job):
        d = protocols.symmetric_drive(systems, job[1], "1", index=job[0])
        return d.outcome, d.transient, d.period, d.flips, d.states.tobytes(), d.events.tobytes()

    alone = [run(job) for job in jobs]
    assert {r[0] for r in alone} == {"orbit", "self_loop"}
    with ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            assert list(pool.map(run, jobs)) == alone


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(3, 10),
    couplings=st.sampled_from(["columns", "rows", "random", "symmetric", "tied"]),
    spans=st.sampled_from(["hysteron", "spin"]),
    rule=st.sampled_from(list(RULES)),
)
def test_the_sweep_continuing_kept_legs_is_each_amplitudes_drive_run_afresh(
    seed, N, couplings, spans, rule
):
    """The sweep continues a leg of the last amplitude's drive that started from the same
    state (``memo_leg``): at strong couplings, where the column and row forms meet many
    amplitudes with long legs, and on a coarse grid of parameters, where switching fields
    tie, every amplitude's outcome, τ, T and self-loop are those of the symmetric drive run
    afresh there, and the sweep's ties those of all these drives (each of which rises from
    saturation anew: the sweep rises once)."""
    import hyst

    rng = np.random.default_rng(seed)
    if couplings == "tied":  # thresholds and couplings on a grid of quarters
        mid, half = rng.integers(-2, 3, N) / 4, rng.integers(0, 3, N) / 4
        c = rng.integers(-1, 2, (N, N)) / 4 * (1 - np.eye(N)) * rng.integers(1, 4)
        sy = hyst.System(mid + half, mid - half, c).systems
    else:
        sy = sample_systems(couplings, spans, N, float(10 ** rng.uniform(0, 2)), 1, rng)
    sweep = protocols.amplitude_sweep(sy, rule, first_only=False)
    rise = protocols.drive(sy, [0], rule)
    if sweep.preamble != "done":
        assert sweep.amplitudes.size == 0 and sweep.ties == rise.ties
        return
    ties = rise.ties
    for q, A in enumerate(sweep.amplitudes.tolist()):
        d = protocols.symmetric_drive(sy, A, rule)
        assert d.outcome == sweep.outcomes[q], A
        assert (d.transient, d.period) == (sweep.transients[q], sweep.periods[q]), A
        assert (d.loop.L if d.loop is not None else 0) == sweep.loops[q], A
        ties += d.ties - rise.ties
    assert sweep.ties == ties
