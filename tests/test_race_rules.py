"""The race rules settled by speed (the flip-time rule) and at random (random order): exact
comparisons, rule 1 bit for bit with equal flip times, agreement system by system with the
slow references of ``hyst.reference.naive_races`` on random small systems, tie-heavy ones
included, and bad values refused with one line."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hyst
from hyst.kernels import codes, rules
from hyst.model import batch
from hyst.model.flip_times import (
    flip_times_for,
    quantize_flip_times,
    race_rule_code,
    unit_flip_times,
)
from hyst.model.random_order import PROBABILITY_TOLERANCE, random_order_analysis
from hyst.model.systems import Systems
from hyst.model.transition_graph import transition_graph
from hyst.reference import naive_races

BIG = 2**63 - 1


@given(st.integers(0, BIG), st.integers(0, BIG), st.integers(0, BIG), st.integers(0, BIG))
@settings(max_examples=400, deadline=None)
def test_product_order_is_exact(a, b, c, d):
    """The 128-bit comparison of a·b with c·d is the comparison of Python's exact ints."""
    want = (a * b > c * d) - (a * b < c * d)
    assert rules.product_order.py_func(a, b, c, d) == want
    assert rules.product_order(a, b, c, d) == want


def test_product_order_near_ties():
    """Products that differ by one in the lowest bit, and equal ones, compile and compare
    exactly (no float rounding)."""
    a, b = 3 * 2**61 + 7, 2**62 - 3
    for c, d, want in ((a, b, 0), (b, a, 0), (a, b - 1, 1), (a + 1, b, -1)):
        assert rules.product_order(a, b, c, d) == want


def brute_choice(m, tau):
    """(n_u, chosen, ties) of the flip-time rule over margins m and flip times tau by
    Fractions: the largest m_i/τ_i of the positive margins, lowest index, one tie when
    shared, plus the zero margins."""
    unstable = [i for i in range(len(m)) if m[i] > 0]
    zeros = sum(x == 0 for x in m)
    if not unstable:
        return 0, -1, zeros
    best = max(Fraction(m[i], tau[i]) for i in unstable)
    winners = [i for i in unstable if Fraction(m[i], tau[i]) == best]
    return len(unstable), winners[0], zeros + (len(winners) > 1)


def scan_margins(m, tau):
    """``rules.scan_tau`` (compiled) on the all-down state whose doubled margins are m (even):
    h^+ = 0, H = 0, f_i = m_i / 2."""
    N = len(m)
    f = np.array([x // 2 for x in m], np.int64)
    zero = np.zeros(N, np.int64)
    got = rules.scan_tau(0, f, zero, zero, 0, 0, np.array(tau, np.int64))
    return tuple(int(x) for x in got)


def test_scan_tau_decides_ratios_closer_than_float64():
    """Ratios 2^−100 apart, that float64 cannot tell, are ordered exactly; exactly equal ones
    flip the lowest index and count a tie."""
    big = 2**51
    assert scan_margins([big + 2, big], [big, big - 2]) == (2, 1, 0)
    assert scan_margins([big, big + 2], [big - 2, big]) == (2, 0, 0)
    assert scan_margins([-4, 3 * big, big], [1, 3 * 2**40, 2**40]) == (2, 1, 1)


@given(
    st.lists(st.tuples(st.integers(-3, 3), st.integers(1, 4)), min_size=1, max_size=8),
    st.integers(0, 2**11),
    st.integers(1, 2**40),
)
@settings(max_examples=400, deadline=None)
def test_scan_tau_is_tally_tau_and_the_fractions(pairs, scale, tau_scale):
    """The two-pass scan (float64 cross products, exact pass near the top) gives what the
    exact one-pass tally and plain Fractions give, on tie-heavy margins scaled up to 2^52
    and flip times scaled up to 2^42."""
    m = [2 * a * (scale * 2**40 + 1) for a, _t in pairs]
    tau = [t * tau_scale for _a, t in pairs]
    want = brute_choice(m, tau)
    assert scan_margins(m, tau) == want
    acc = rules.start_tau()
    for i, (x, t) in enumerate(zip(m, tau, strict=True)):
        acc = rules.tally_tau(acc, i, x, t)
    assert tuple(int(v) for v in rules.choose_tau(acc)) == want


def integer_systems(rng, n, N, span, couple):
    """n systems of N elements with integer parameters in small ranges (tie-heavy when the
    ranges are small): h^+ in [−span, span], h^− = h^+ − [0, span], c in [−couple, couple]."""
    hp = rng.integers(-span, span + 1, (n, N))
    hm = hp - rng.integers(0, span + 1, (n, N))
    c = rng.integers(-couple, couple + 1, (n, N, N))
    for i in range(N):
        c[:, i, i] = 0
    return Systems(hp.astype(np.int64), hm.astype(np.int64), c.astype(np.int64))


def graph_rows(g):
    return [
        (t.source, t.field, t.outcome, t.target, t.flips, t.L, t.n_e, t.cycle, t.race_condition)
        for t in g.transitions
    ]


@given(
    st.integers(2, 6),
    st.integers(0, 2**32 - 1),
    st.sampled_from([(2, 1), (3, 2), (40, 25), (10**6, 3 * 10**5)]),
    st.integers(1, 2**40),
)
@settings(max_examples=150, deadline=None)
def test_equal_flip_times_are_rule_1(N, seed, ranges, tau):
    """With equal flip times the flip-time rule is rule 1, bit for bit: every transition of
    the graph (ties included), the enumeration's columns and histograms and the self-loop
    search's columns."""
    rng = np.random.default_rng(seed)
    sy = integer_systems(rng, 3, N, *ranges)
    equal = np.full(N, tau, np.int64)
    for k in range(sy.samples):
        g1 = transition_graph(sy, k, "1")
        gt = transition_graph(sy, k, "tau", equal)
        assert graph_rows(g1) == graph_rows(gt)
        assert [t.tie for t in g1.transitions] == [t.tie for t in gt.transitions]
    starts = rng.integers(0, 1 << N, sy.samples)
    e1 = batch.enumerate_batch(sy, starts, "1", parallel=False)
    et = batch.enumerate_batch(sy, starts, "tau", parallel=False, flip_times=equal)
    assert np.array_equal(e1.columns.array, et.columns.array)
    assert np.array_equal(e1.loop_length_hist, et.loop_length_hist)
    s1 = batch.any_self_loop_batch(sy, "1", parallel=False)
    st_ = batch.any_self_loop_batch(sy, "tau", parallel=False, flip_times=equal)
    assert np.array_equal(s1.array, st_.array)


def test_unit_flip_times_leave_rule_1_untouched(rng):
    """The other rules ignore the flip times: rule 1 with any flip times is rule 1."""
    sy = integer_systems(rng, 20, 5, 3, 2)
    starts = rng.integers(0, 32, 20)
    plain = batch.enumerate_batch(sy, starts, "1", parallel=False)
    other = batch.enumerate_batch(
        sy, starts, "1", parallel=False, flip_times=rng.integers(1, 9, (20, 5))
    )
    assert np.array_equal(plain.columns.array, other.columns.array)
    assert unit_flip_times(5).shape == (1, 5)


def reference_rows(system, tau):
    rows = []
    for S, field, r in naive_races.tau_transitions(system, tau):
        target = r["final_state"] if r["outcome"] == "stable" else -1
        rows.append(
            (
                S,
                field,
                r["outcome"],
                target,
                r["flips"],
                r["L"],
                r["n_e"],
                tuple(r["cycle_states"]),
                r["race_condition"],
                r["ties"] > 0,
            )
        )
    return rows


@pytest.mark.parametrize(
    "ranges, flip_range",
    [((2, 1), 3), ((3, 2), 4), ((40, 25), 50), ((10**6, 3 * 10**5), 10**9)],
    ids=["ties", "tie_heavy", "few_ties", "generic"],
)
def test_flip_time_rule_matches_the_reference(ranges, flip_range, rng):
    """Every transition of the flip-time rule's graph equals the reference's, system by
    system (outcome, end state, flips, L, n_e, cycle, race condition, tie), and the
    enumeration and the self-loop search count its self-loops as the graph does: 600
    systems of N = 2 … 6 per parameter range (2,400 in all)."""
    checked = 0
    for N in (2, 3, 4, 5, 6):
        sy = integer_systems(rng, 120, N, *ranges)
        tau = rng.integers(1, flip_range + 1, (120, N)).astype(np.int64)
        starts = rng.integers(0, 1 << N, 120)
        enum = batch.enumerate_batch(sy, starts, "tau", parallel=False, flip_times=tau)
        search = batch.any_self_loop_batch(sy, "tau", parallel=False, flip_times=tau)
        for k in range(sy.samples):
            system = (sy.h_plus[k].tolist(), sy.h_minus[k].tolist(), sy.couplings[k].tolist())
            want = reference_rows(system, tau[k].tolist())
            g = transition_graph(sy, k, "tau", tau[k])
            got = [(*row, t.tie) for row, t in zip(graph_rows(g), g.transitions, strict=True)]
            assert got == want, (N, k)
            loops = sum(r[2] == "self_loop" for r in want)
            assert enum.columns["n_self_loop_transitions"][k] == loops
            assert enum.columns["n_transitions"][k] == len(want)
            assert search["self_loop"][k] == (loops > 0)
            checked += 1
    assert checked == 600


def test_wide_flip_time_spread_is_a_priority_order():
    """Flip times 10^6 apart: the fastest unstable element flips first whatever the margins
    (element 1 here, though element 0 is far beyond its threshold)."""
    sy = Systems.from_floats([0.0, 0.5], [-1.0, -0.5], [[0, 0], [0, 0]])
    # at H = 1 both down elements are unstable: margins 2 (element 0) and 1 (element 1)
    fast_second = quantize_flip_times([1.0, 1e-6], 2)
    graph = transition_graph(sy, 0, "tau", fast_second)
    up_from_0 = next(t for t in graph.transitions if t.source == 0 and t.direction == 1)
    assert up_from_0.target == 1  # only element 0 is unstable at its own threshold
    from hyst.model.relax import StateTables

    tables = StateTables(sy, 0, fast_second)
    field = (int(round(1.0 * 2**40)), 0)
    assert tables.step(0, field, "tau")[0] == 2  # element 1 flips first
    assert tables.step(0, field, "1")[0] == 1  # rule 1: the larger margin


@pytest.mark.parametrize(
    "ranges", [(2, 1), (3, 2), (10**6, 3 * 10**5)], ids=["ties", "tie_heavy", "generic"]
)
def test_random_order_matches_the_exact_reference(ranges, rng):
    """Random order: the end states, their probabilities (within PROBABILITY_TOLERANCE of the
    exact fractions) and the trap probability of every transition, and whether it can be
    trapped (exactly), agree with the reference's Gauss–Jordan solution over Fractions: 400
    systems of N = 2 … 6 per parameter range."""
    checked = 0
    for N in (2, 3, 4, 5, 6):
        sy = integer_systems(rng, 80, N, *ranges)
        for k in range(sy.samples):
            system = (sy.h_plus[k].tolist(), sy.h_minus[k].tolist(), sy.couplings[k].tolist())
            want = naive_races.random_order_system(system)
            got = random_order_analysis(sy, k).transitions
            assert len(got) == len(want)
            for t, (S, field, ends, trap) in zip(got, want, strict=True):
                assert (t.source, t.field) == (S, field)
                assert set(t.ends) == set(ends)
                for X, p in ends.items():
                    assert abs(t.ends[X] - float(p)) < PROBABILITY_TOLERANCE
                assert abs(t.trap_probability - float(trap)) < PROBABILITY_TOLERANCE
                assert t.trappable == (trap > 0)
            checked += 1
    assert checked == 400


def test_random_order_of_a_two_element_self_loop():
    """The antisymmetric pair whose rule-1 L = 4 self-loop holds at H = 0: its transitions
    into the loop meet one unstable element at a time, so random order is trapped with
    probability 1; the other two settle."""
    a = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]]).random_order()
    assert [t.trap_probability for t in a.transitions] == [1.0, 0.0, 1.0, 0.0]
    assert a.trappable and a.trappable_transitions == 2
    assert [t.reachable_states for t in a.transitions] == [4, 2, 4, 2]
    assert a.mean_trap_probability == 0.5 and a.max_trap_probability == 1.0


def test_reference_solver_is_exact():
    """The reference's elimination solves a small rational system exactly."""
    m = [[Fraction(2), Fraction(1)], [Fraction(1), Fraction(3)]]
    x = naive_races.solve(m, [[Fraction(1)], [Fraction(2)]])
    assert x == [[Fraction(1, 5)], [Fraction(3, 5)]]


def test_flip_time_api_and_drawn_flip_times():
    """System(flip_times=...), with_flip_times and with_flip_time_spread: drawn flip times
    depend only on (N, decades, seed) and lie in [1, 10^decades]; spread 0 gives rule 1."""
    sy = hyst.System(
        [0.1, 0.3, 0.2], [-0.1, 0.1, 0.0], [[0, 0.5, 0.1], [-0.5, 0, 0.2], [0.3, -0.2, 0]]
    )
    a = flip_times_for(3, 2.5, seed=7)
    assert np.array_equal(a, flip_times_for(3, 2.5, seed=7))
    assert not np.array_equal(a, flip_times_for(3, 2.5, seed=8))
    taus = sy.with_flip_time_spread(2.5, seed=7).flip_times
    assert np.all((taus >= 1) & (taus <= 10**2.5))
    zero = sy.with_flip_time_spread(0)
    assert graph_rows(zero.transition_graph("tau")) == graph_rows(sy.transition_graph("1"))
    given_ = hyst.System(sy.h_plus, sy.h_minus, sy.couplings, flip_times=[1, 2, 3])
    assert given_.transition_graph("tau").rule == "tau"
    assert np.allclose(given_.flip_times, [1, 2, 3])
    assert given_.self_loops("tau") == sy.with_flip_times([1, 2, 3]).self_loops("tau")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda sy: sy.with_flip_times([1.0, 0.0]), "flip_times: 0.0 is not allowed"),
        (lambda sy: sy.with_flip_times([1.0, -2.0]), "flip_times: -2.0 is not allowed"),
        (lambda sy: sy.with_flip_times([1.0]), "flip_times: 1 values given"),
        (lambda sy: sy.with_flip_times([1.0, float("nan")]), "flip_times: nan"),
        (lambda sy: sy.with_flip_time_spread(-1), "flip_time_decades: -1 is not allowed"),
        (lambda sy: sy.with_flip_time_spread(7), "flip_time_decades: 7 is not allowed"),
        (lambda sy: sy.transition_graph("tau"), "rule: 'tau' needs flip_times"),
        (lambda sy: sy.transition_graph("fast"), "rule: 'fast' is not one of"),
        (lambda sy: sy.drive([0.5], rule="tau"), "rule: 'tau' is not one of"),
    ],
)
def test_bad_values_are_refused_with_one_line(call, message):
    sy = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
    with pytest.raises(ValueError) as err:
        call(sy)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_rule_codes():
    """The flip-time rule has a code of its own; the configured rules are unchanged."""
    assert race_rule_code("tau") == codes.RULE_TAU
    assert "tau" not in codes.RULE_CODES
    with pytest.raises(ValueError, match="needs flip_times"):
        batch.enumerate_batch(
            Systems.from_floats([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]]), [0], "tau"
        )


# ---- the races study kind, the configuration and the command line -----------------------------

RACES = {
    "kind": "races",
    "couplings": ["random"],
    "N": [3, 4],
    "NJ0": [1.0, 10.0],
    "flip_time_decades": [0, 3],
    "samples": 40,
    "random_order_samples": 10,
}


def races_config(**changes):
    study = {**RACES, **changes}
    return {
        "studies": {"r": study},
        "figures": {
            "spread": {"type": "flip_time_spread", "studies": ["r"]},
            "traps": {"type": "random_order_traps", "studies": ["r"]},
        },
    }


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"flip_time_decades": [-1]}, "studies.r.flip_time_decades[0]: -1"),
        ({"flip_time_decades": [7]}, "studies.r.flip_time_decades[0]: 7"),
        ({"N": [12]}, "studies.r.random_order_samples: random order needs N <= 10"),
        ({"random_order_samples": -1}, "studies.r.random_order_samples: -1"),
        ({"rule": ["tau"]}, "studies.r"),
    ],
)
def test_a_bad_races_study_is_refused_with_one_line(changes, message):
    from hyst.pipeline.config import validate

    with pytest.raises(ValueError) as err:
        validate(races_config(**changes), check_paths=False)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_the_flip_time_rule_is_not_a_rule_of_the_points_studies():
    """A points study cannot ask for rule tau (its sampler draws no flip times): one line."""
    from hyst.pipeline.config import validate

    cfg = {
        "studies": {
            "s": {"couplings": ["random"], "N": [3], "NJ0": [1.0], "samples": 5, "rule": ["tau"]}
        },
        "figures": {},
    }
    with pytest.raises(ValueError) as err:
        validate(cfg, check_paths=False)
    assert str(err.value).startswith("studies.s.rule[0]: 'tau'"), str(err.value)
    assert "\n" not in str(err.value)


def test_random_order_needs_random_order_samples_for_its_figure():
    from hyst.pipeline.config import validate

    with pytest.raises(ValueError, match="figures.traps.studies"):
        validate(races_config(random_order_samples=0), check_paths=False)


def test_races_study_runs_collects_and_depends_only_on_the_seed(tmp_path):
    """Jobs, run and collect of a races study: the dataset's axes; spread 0 equals the rule-1
    enumeration of the same systems; the random-order counts are consistent; the same seed
    gives the same data, another seed other data."""
    from hyst.pipeline.config import validate
    from hyst.studies import KINDS

    cfg = validate(races_config(), check_paths=False)
    kind = KINDS["races"]
    study = cfg["studies"]["r"]

    def dataset(seed, folder):
        jobs, needs = kind.jobs({"r": study}, {**cfg, "seed": seed})
        # one job for the one (couplings, spans) ensemble, a result file per point
        assert len(jobs) == 1 and needs["r"] == list(jobs)
        (job,) = jobs.values()
        assert len(kind.units(job, folder)) == 4
        for job in jobs.values():
            kind.run(job, folder, config=cfg, threads=1, log=lambda *_a: None)
        return kind.collect("r", study, {"seed": seed}, folder)

    ds = dataset(1, tmp_path / "a")
    assert dict(ds.sizes) == {"couplings": 1, "spans": 1, "N": 2, "NJ0": 2, "flip_time_decades": 2}
    assert ds.self_loop_probability.dims[-1] == "flip_time_decades"
    # P_RC is decided before any rule acts: the same at every spread
    rc = ds.race_condition_probability.values
    assert np.array_equal(rc[..., 0], rc[..., 1])
    n = ds.random_order_systems.values
    assert np.all(n == 10)
    assert np.all(ds.random_order_trappable_and_self_loop <= ds.random_order_trappable)
    assert np.all(ds.random_order_trappable_and_self_loop <= ds.random_order_rule1_self_loop)
    # spread 0 is rule 1 on the same systems: the sampled P_sl equals rule 1's
    from hyst.model import seeds
    from hyst.model.ensembles import sample_systems
    from hyst.studies.races import _identity

    identity = _identity("random", "hysteron", 4, 10.0)
    rng = seeds.generator(1, identity)
    systems = sample_systems("random", "hysteron", 4, 10.0, 40, rng)
    starts = rng.integers(0, 16, 40)
    rule1 = batch.enumerate_batch(systems, starts, "1", parallel=False)
    psl = np.mean(rule1.columns["n_self_loop_transitions"] > 0)
    assert ds.self_loop_probability.sel(N=4, NJ0=10.0, flip_time_decades=0).item() == psl
    again = dataset(1, tmp_path / "b")
    assert again.identical(ds)
    other = dataset(2, tmp_path / "c")
    assert not np.array_equal(other.self_loop_probability.values, ds.self_loop_probability.values)


SYSTEM = [
    "system",
    "--couplings",
    "random",
    "--N",
    "3",
    "--NJ0",
    "4",
    "--samples",
    "10",
    "--index",
    "0",
]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--rule", "tau"], "--rule: tau needs --flip-times or --flip-time-decades"),
        (["--rule", "tau", "--flip-times", "1,0,2"], "--flip-times: 0.0 is not allowed"),
        (["--rule", "tau", "--flip-times", "1,2"], "--flip-times: 2 values given"),
        (["--rule", "tau", "--flip-times", "1,x,2"], "--flip-times: '1,x,2' is not a list"),
        (["--rule", "tau", "--flip-time-decades", "-1"], "--flip-time-decades: -1.0 is not"),
        (["--rule", "fastest"], "argument --rule: invalid choice: 'fastest'"),
        (
            ["--rule", "tau", "--flip-times", "1,2,3", "--symmetric", "0.5"],
            "--rule: tau is computed for the transition graph only",
        ),
    ],
)
def test_a_bad_flip_time_command_line_gets_one_line(capsys, options, message):
    from hyst.cli.main import main

    try:
        code = main(SYSTEM + options)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_the_command_line_prints_the_flip_time_graph_and_random_order(capsys):
    from hyst.cli.main import main

    assert main(SYSTEM + ["--rule", "tau", "--flip-time-decades", "3", "--random-order"]) == 0
    out = capsys.readouterr().out
    assert "rule tau" in out and "random order" in out and "trap probability" in out
