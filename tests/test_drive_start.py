"""Drives from any state (hyst.model.protocols, hyst.System): a given start state, placed at
H = 0 and relaxed there under the rule, then the protocol's legs, against the slow
reference of hyst.reference.naive_protocols driven from the same state."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hyst
from hyst.model import protocols
from hyst.model.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import RULES
from hyst.reference import naive_protocols as naive
from hyst.reference.naive_drive import relax_cycle

RANDOM_SYSTEM = dict(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 6),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(list(SPAN_ENSEMBLES)),
    rule=st.sampled_from(list(RULES)),
)


def _draw(seed, N, couplings, spans):
    rng = np.random.default_rng(seed)
    sy = sample_systems(couplings, spans, N, float(10 ** rng.uniform(-1, 2)), 1, rng)
    hp, hm, c = (np.asarray(a[0], np.int64) for a in (sy.h_plus, sy.h_minus, sy.couplings))
    start = rng.choice(np.array([-1, 1]), N)
    return rng, sy, (hp, hm, c), start


def _prepared(hp, hm, c, start, rule):
    """The reference's start: the state relaxed at H = 0 (None if it does not end stable)."""
    s = np.asarray(start, np.int64).copy()
    outcome, _cycle = relax_cycle(hp, hm, c, s, 0, 0, rule)
    return s if outcome == "stable" else None


@settings(max_examples=80, deadline=None)
@given(**RANDOM_SYSTEM)
def test_a_path_from_a_state_matches_the_reference(seed, N, couplings, spans, rule):
    rng, sy, (hp, hm, c), start = _draw(seed, N, couplings, spans)
    amps = np.array(naive.distinct_amplitudes(hp, hm, c), np.int64)
    picks = rng.choice(np.concatenate([amps, -amps, amps + 1, -amps - 1, [0]]), size=5)
    d = protocols.drive(sy, picks, rule, start=start)
    s = _prepared(hp, hm, c, start, rule)
    if s is None:
        assert d.outcome in ("self_loop", "ill_defined") and d.states.shape[0] == 0
        assert d.loop.field == 0
        return
    states, outcome = [], "done"
    for target, direction in zip(picks, protocols.turning_directions(picks, start), strict=True):
        result, _H, _L = naive.leg(hp, hm, c, s, int(target), int(direction), rule)
        states.append(s.copy())
        if result != "stable":
            outcome = result
            break
    assert d.outcome == outcome
    assert np.array_equal(d.states, np.array(states))


@settings(max_examples=60, deadline=None)
@given(**RANDOM_SYSTEM)
def test_symmetric_drive_and_sweep_from_a_state_match_the_reference(
    seed, N, couplings, spans, rule
):
    """From the state at H = 0, 0 -> +A -> -A -> 0 until x_k repeats: τ, T and the x_k as
    the reference at every distinct amplitude, and the sweep's period there the drive's."""
    _rng, sy, (hp, hm, c), start = _draw(seed, N, couplings, spans)
    sweep = protocols.amplitude_sweep(sy, rule, first_only=False, start=start)
    s0 = _prepared(hp, hm, c, start, rule)
    if s0 is None:
        assert sweep.amplitudes.size == 0 and sweep.preamble in ("self_loop", "ill_defined")
        return
    for A in [0, *naive.distinct_amplitudes(hp, hm, c)]:
        d = protocols.symmetric_drive(sy, A, rule, start=start)
        s, xs, outcome = s0.copy(), [s0.copy()], None
        while outcome is None:
            for target, direction in ((A, 1), (-A, -1), (0, 1)):
                result, _H, _L = naive.leg(hp, hm, c, s, target, direction, rule)
                if result != "stable":
                    outcome = result
                    break
            else:
                for a, x in enumerate(xs):
                    if np.array_equal(x, s):
                        outcome, tau, T = "orbit", a, len(xs) - a
                        break
                else:
                    xs.append(s.copy())
        assert d.outcome == outcome, A
        if outcome == "orbit":
            assert (d.transient, d.period) == (tau, T)
            assert np.array_equal(d.states, np.array(xs))
            assert sweep.period_at(A) == T
        else:
            assert sweep.period_at(A) == -1


def test_a_sweep_from_the_state_saturation_leaves_at_zero_is_the_saturated_sweep():
    """From x_0, the state the rise from negative saturation leaves at H = 0 (stable there),
    the sweep is the one from saturation, amplitude for amplitude; from positive saturation
    the saturating amplitude still gives T = 1."""
    rng = np.random.default_rng(11)
    sy = sample_systems("weak", "hysteron", 6, 10.0, 20, rng)
    for k in range(sy.samples):
        a = protocols.amplitude_sweep(sy, "1", first_only=False, index=k)
        x0 = protocols.symmetric_drive(sy, 0, "1", index=k).states[0]
        b = protocols.amplitude_sweep(sy, "1", first_only=False, index=k, start=x0)
        assert a.preamble == b.preamble == "done"
        for name in ("amplitudes", "periods", "transients", "next_amplitudes"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        d = protocols.symmetric_drive(sy, int(a.amplitudes[-1]), "1", index=k, start=1)
        assert d.outcome == "orbit" and d.period == 1  # saturating amplitude: T = 1


def test_system_drives_start_from_a_given_or_random_state():
    sy = hyst.System.from_ensemble("random", 5, 3.0, samples=10, index=2)
    a = sy.symmetric_drive(0.5, start="random", seed=7)
    b = sy.symmetric_drive(0.5, start="random", seed=7)
    assert a.attrs["start_state"] == b.attrs["start_state"]
    assert "from the state" in a.attrs["protocol"]
    spins = [1 if (a.attrs["start_state"] >> i) & 1 else -1 for i in range(5)]
    c = sy.symmetric_drive(0.5, start=spins)
    assert c.attrs["transient"] == a.attrs["transient"] and c.attrs["period"] == a.attrs["period"]
    for method, args in (
        (sy.drive, ([1.0, -1.0],)),
        (sy.cyclic_drive, ([1.0, -1.0],)),
        (sy.asymmetric_drive, (-0.5, 0.5)),
        (sy.amplitude_sweep, ()),
        (sy.return_point_memory, ([1.0, -1.0], 0.0)),
    ):
        ds = method(*args, start=spins)
        assert ds.attrs["start_state"] == a.attrs["start_state"], method.__name__
    assert "start_state" not in sy.drive([1.0]).attrs  # saturated: as before
    with pytest.raises(ValueError, match="start: "):
        sy.drive([1.0], start=[1, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="start: 'sideways'"):
        sy.drive([1.0], start="sideways")


def test_a_start_state_inside_a_self_loop_stops_the_drive_at_once():
    """The antisymmetric pair of the drive module: an L = 4 self-loop through all four
    states for H between -0.2 and 0.4, so every state at H = 0 relaxes into it."""
    sy = hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]])
    d = sy.drive([1.0], start=[1, -1])
    assert d.attrs["outcome"] == "self_loop" and d.attrs["self_loop_L"] == 4
    assert d.attrs["stop_field"] == 0.0


def test_a_random_start_needs_an_int_seed():
    """A random start is drawn from its seed alone: without one it is refused in one line."""
    sy = hyst.System.from_ensemble("random", 4, 3.0, samples=4, index=1)
    for seed in (None, 1.5, True):
        with pytest.raises(ValueError, match="seed: .* start='random'"):
            sy.drive([1.0, -1.0], start="random", seed=seed)


#: The system of ``test_system_drives_start_from_a_given_or_random_state`` on the command line.
CLI_SYSTEM = ["system", "--couplings", "random", "--N", "5", "--NJ0", "3", "--samples", "10"]
CLI_SYSTEM += ["--index", "2"]
#: Each drive protocol of ``hyst system``: its options, and the same drive from the API.
CLI_PROTOCOLS = [
    (["--drive", "1,-1"], lambda sy, **kw: sy.drive([1.0, -1.0], **kw)),
    (["--symmetric", "0.5"], lambda sy, **kw: sy.symmetric_drive(0.5, **kw)),
    (["--asymmetric=-0.5,0.5"], lambda sy, **kw: sy.asymmetric_drive(-0.5, 0.5, **kw)),
    (["--sweep"], lambda sy, **kw: sy.amplitude_sweep(**kw)),
    (
        ["--return-point", "1,-1", "--sub-field", "0"],
        lambda sy, **kw: sy.return_point_memory([1.0, -1.0], 0.0, **kw),
    ),
]


@pytest.mark.parametrize(
    "options, api", CLI_PROTOCOLS, ids=[o[0].split("=")[0][2:] for o, _api in CLI_PROTOCOLS]
)
def test_cli_start_takes_bits_signs_an_integer_or_a_seeded_random_state(options, api, capsys):
    """``hyst system --start`` for every drive protocol: the state 10110 (element 0 first),
    written as bits, as signs and as the integer of its bitmask (13), prints the drive the
    API gives from that state; 'random' with --start-seed the API's random start of that seed;
    'up' the drive from positive saturation."""
    from hyst.cli.drives import protocol_text
    from hyst.cli.main import main

    sy = hyst.System.from_ensemble("random", 5, 3.0, samples=10, index=2)

    def printed(*start):
        assert main([*CLI_SYSTEM, *options, *start]) == 0
        return capsys.readouterr().out

    expected = api(sy, start=[1, -1, 1, 1, -1])
    assert expected.attrs["start_state"] == 13
    assert "from the state 13 at H = 0" in expected.attrs["protocol"]
    for text in ("10110", "+-++-", "13"):
        assert protocol_text(expected) in printed("--start", text), text
    flipped = api(sy, start=[-1, 1, -1, -1, 1])  # its first sign a minus: --start=...
    assert protocol_text(flipped) in printed("--start=-+--+")
    assert protocol_text(flipped) in printed("--start", "01001")
    random = api(sy, start="random", seed=7)
    assert protocol_text(random) in printed("--start", "random", "--start-seed", "7")
    up = api(sy, start="up")
    assert protocol_text(up) in printed("--start", "up")
    assert protocol_text(up) != protocol_text(expected)
