"""The direct mechanical simulation: against the rational reference, and the core check
that its transition graph equals the mapped hysteron system's exactly."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from network_draws import KINDS, SPANS, chains, draw_chain

from hyst.kernels import codes
from hyst.model import batch as kernel_calls
from hyst.model.systems import QUANTUM, RULES
from hyst.model.transition_graph import transition_graph
from hyst.networks.elements import SerialChains
from hyst.networks.mapping import chain_mapping
from hyst.networks.mechanics import (
    ChainMechanics,
    drive_range_attractors,
    mechanical_transition_graph,
    saturated_loop,
)
from hyst.reference import naive_mechanics as naive

COMPARED = {"graphs": 0}


def _naive_chain(chains, k=0):
    """The chain as exact Fractions (displacement units) for ``naive_mechanics``."""
    q = Fraction(2**40)
    xm, xp, d = (
        [Fraction(int(v)) / q for v in a[k]] for a in (chains.x_minus, chains.x_plus, chains.d)
    )
    return xm, xp, d, chains.spring


def _as_rows(graph, p):
    """The kernel graph in the reference's row format (drives as U = W/p, Fractions)."""
    return [
        (
            t.source,
            t.direction,
            Fraction(t.field[0], p) / 2**40,
            t.outcome,
            t.target,
            t.L,
            t.n_e,
            t.cycle,
            t.race_condition,
            t.tie,
        )
        for t in graph.transitions
    ]


@pytest.mark.parametrize("rule", list(RULES))
@given(draw=chains(max_N=5, springs=True))
@settings(max_examples=25)
def test_mechanical_graph_matches_rational_reference(rule, draw):
    chain, _ = draw
    g = mechanical_transition_graph(chain, rule=rule)
    assert _as_rows(g, chain.ratio[0]) == naive.transition_graph(_naive_chain(chain), rule)


@given(draw=chains(max_N=5, springs=True), data=st.data())
@settings(max_examples=40)
def test_relaxation_from_any_state_matches_rational_reference(draw, data):
    """Every phase state (also unstable ones, with race conditions) at drives on and
    between switching points, under every rule."""
    chain, _ = draw
    mech = ChainMechanics(chain)
    p = chain.ratio[0]
    ref = _naive_chain(chain)
    N = chain.N
    drives = sorted({w for S in range(1 << N) for w in mech.switching_drives(S) if abs(w) < 2**60})
    for _ in range(6):
        W = data.draw(st.sampled_from(drives)) + data.draw(st.sampled_from([-3, 0, 1]))
        eps = data.draw(st.sampled_from([-1, 0, 1]))
        rule = data.draw(st.sampled_from(list(RULES)))
        S = data.draw(st.integers(0, (1 << N) - 1))
        got = mech.relax(S, (W, eps), rule)
        exp = naive.relax(ref, S, (Fraction(W, p) / 2**40, eps), rule)
        assert (got.outcome, got.final_state, got.flips, got.race_condition, got.tie) == (
            exp["outcome"],
            exp["final_state"],
            exp["flips"],
            exp["race"],
            exp["tie"],
        )
        assert (got.L, got.n_e, got.cycle) == (exp["L"], exp["n_e"], exp["cycle"])


def test_positions_satisfy_force_balance():
    chain = SerialChains.from_floats([-1, 0.2, 0.5], [1, 0.4, 0.5], [0.5, -1.5, 2.0], spring=2)
    mech = ChainMechanics(chain)
    W = int(0.7 / QUANTUM)  # W = p U with p = 2: U = 0.35
    for S in range(8):
        x = mech.positions(S, W)
        s = np.where((S >> np.arange(3)) & 1, 1, -1)
        f = x - chain.to_floats()[2][0] * s
        assert np.allclose(f, f[0]) and np.isclose(mech.force(S, W), f[0])
        assert np.isclose(x.sum() + f[0] / 2, 0.35)  # spring k = 2 stretches f/k


@pytest.mark.parametrize("rule", list(RULES))
@given(draw=chains(max_N=8))
@settings(max_examples=150)
def test_core_check_mechanical_graph_equals_mapped_hysteron_graph(rule, draw):
    """The core check: same states, switching fields, transitions, end states,
    self-loops with L, n_e and their states, race conditions and ties."""
    chain, _ = draw
    mech = mechanical_transition_graph(chain, rule=rule)
    mapped = transition_graph(chain_mapping(chain), rule=rule)
    assert mech == mapped
    COMPARED["graphs"] += 1


@pytest.mark.parametrize("spans", SPANS)
@pytest.mark.parametrize("kind", KINDS)
def test_core_check_seeded_draws_of_every_kind(kind, spans):
    """N = 2 and chains up to N = 8, every kind and span type, both grids: 160 draws per
    (kind, spans), counted in the report; self-loops must occur among the active ones."""
    rng = np.random.default_rng([7, KINDS.index(kind), SPANS.index(spans)])
    loops = 0
    for n in range(160):
        N = 2 if n % 2 == 0 else int(rng.integers(3, 9))
        chain = draw_chain(rng, N, kind, spans, coarse=bool(n % 4 == 1))
        mech = mechanical_transition_graph(chain)
        assert mech == transition_graph(chain_mapping(chain))
        loops += len(mech.self_loops) > 0
        COMPARED["graphs"] += 1
    if kind == "passive":
        assert loops == 0
    elif kind == "mixed":
        assert loops > 0


def test_core_check_can_fail():
    """A wrong sign in the mapping (c_ij = +d_j) or a wrong field scale changes the
    mapped graph: the equality above is not vacuous."""
    rng = np.random.default_rng(3)
    differ = 0
    for _ in range(20):
        chain = draw_chain(rng, 3, "mixed", "hysteretic")
        mapped = chain_mapping(chain)
        wrong = type(mapped)(mapped.h_plus, mapped.h_minus, form="columns", packed=-mapped.packed)
        differ += mechanical_transition_graph(chain) != transition_graph(wrong)
    assert differ >= 15


@given(draw=chains(min_N=2, max_N=12, springs=True), rule=st.sampled_from(["0", "1", "1p", "2"]))
@settings(max_examples=60)
def test_saturated_loop_mechanics_equals_drive_kernel_on_the_mapping(draw, rule):
    chain, _ = draw
    sy = chain_mapping(chain)
    out = kernel_calls.first_loops_batch(sy, rule, parallel=False)
    mech = saturated_loop(chain, rule)
    for name in codes.MECH_LOOP_COLUMNS:
        assert np.array_equal(mech[name], out[name]), name


def test_saturated_loop_of_large_chains_equals_drive_kernel():
    """N = 20 … 64 (beyond the graphs): mixed, hysteretic chains, every branch equal."""
    rng = np.random.default_rng(11)
    loops = 0
    for N in (20, 33, 48, 64):
        batch = [draw_chain(rng, N, "mixed", "hysteretic") for _ in range(25)]
        chain = SerialChains(
            *(np.concatenate([getattr(b, a) for b in batch]) for a in ("x_minus", "x_plus", "d"))
        )
        sy = chain_mapping(chain)
        out = kernel_calls.first_loops_batch(sy, "1", parallel=False)
        mech = saturated_loop(chain, "1")
        for name in codes.MECH_LOOP_COLUMNS:
            assert np.array_equal(mech[name], out[name]), name
        loops += int((out["outcome"] == codes.SELF_LOOP).sum())
    assert loops > 0


def test_sweep_follows_the_transition_graph():
    chain = SerialChains.from_floats([-1, 0.2], [1, 0.4], [0.5, 0.3])  # passive
    mech = ChainMechanics(chain)
    big = int(10 / QUANTUM)
    events = mech.sweep(0, [big, -big])
    graph = {(t.source, t.direction): t for t in mechanical_transition_graph(chain).transitions}
    state = 0
    for Wc, direction, end, outcome in events:
        t = graph[(state, direction)]
        assert (t.field[0], t.target, t.outcome) == (Wc, end, outcome)
        state = end
    assert state == 0 and len(events) == 4  # up through (+-) to (++), and back


def test_drive_range_attractors_of_the_l4_example():
    """The red-dot chain of Fig. 3d: SL5 (−−)→(+−)→(++)→(−+) on one drive interval."""
    chain = SerialChains.from_floats([-1, 0.2], [1, 0.4], [-1.8, 0.6])
    found = {c for _lo, _hi, cycles in drive_range_attractors(chain) for c in cycles}
    assert found == {((0, 1, 3, 2), 4, 2)}


@pytest.fixture(scope="module", autouse=True)
def _report_count():
    yield
    print(f"\n[networks] mechanical vs mapped transition graphs compared: {COMPARED['graphs']}")
