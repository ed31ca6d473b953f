"""``hyst.model.transition_graph.transition_graph`` against the pure-Python reference
``naive.py``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyst.model.ensembles import COUPLING_ENSEMBLES, sample_systems
from hyst.model.systems import INF, RULES, Systems
from hyst.model.transition_graph import TransitionGraph, transition_graph
from hyst.reference import naive


def _reference(sy, k, rule):
    hp, hm, c = (a[k].tolist() for a in (sy.h_plus, sy.h_minus, sy.couplings))
    states, rows = [], []
    for S in range(1 << sy.N):
        up, down = naive.state_thresholds(hp, hm, c, S)
        if not down < up:
            continue
        states.append((S, down, up))
        for direction, r in (
            (1, naive.up_transition((hp, hm, c), S, rule)),
            (-1, naive.down_transition((hp, hm, c), S, rule)),
        ):
            if r is None:
                continue
            rows.append(
                (
                    S,
                    direction,
                    up if direction > 0 else down,
                    r["outcome"],
                    r["final_state"] if r["outcome"] == "stable" else -1,
                    r["flips"],
                    r["L"],
                    r["n_e"],
                    tuple(r["cycle_states"]),
                    r["race_condition"],
                    r["ties"] > 0,
                )
            )
    return states, rows


@given(
    seed=st.integers(0, 2**32 - 1),
    N=st.integers(2, 6),
    couplings=st.sampled_from(list(COUPLING_ENSEMBLES)),
    spans=st.sampled_from(["hysteron", "spin", "equal"]),
    NJ0=st.sampled_from([0.3, 3.0, 30.0]),
    rule=st.sampled_from(list(RULES)),
)
@settings(max_examples=80)
def test_graph_matches_naive(seed, N, couplings, spans, NJ0, rule):
    sy = sample_systems(couplings, spans, N, NJ0, 1, np.random.default_rng(seed))
    g = transition_graph(sy, rule=rule)
    states, rows = _reference(sy, 0, rule)
    inf = lambda v, s: float(s) * float("inf") if abs(v) >= INF else v  # noqa: E731
    assert [
        (S, inf(lo, -1), inf(hi, 1))
        for S, lo, hi in zip(g.states, g.h_minus, g.h_plus, strict=True)
    ] == states
    got = [
        (
            t.source,
            t.direction,
            t.field[0],
            t.outcome,
            t.target,
            t.flips,
            t.L,
            t.n_e,
            t.cycle,
            t.race_condition,
            t.tie,
        )
        for t in g.transitions
    ]
    assert got == rows
    assert all(t.field[1] == t.direction for t in g.transitions)


def test_graph_of_a_known_l4_pair():
    """Two spins with c12 c21 < 0 and |Δc| > |Δh^c| (main text): an L = 4 self-loop."""
    sy = Systems.from_floats([0.0, 0.1], [0.0, 0.1], [[0, 0.5], [-0.5, 0]])
    g = transition_graph(sy)
    assert g.self_loops == (((0, 1, 3, 2), 4, 2),) or g.self_loops == (((0, 2, 3, 1), 4, 2),)
    assert isinstance(g, TransitionGraph) and g.ties == 0
    ranges = g.stability_ranges
    assert ranges.shape == (len(g.states), 2) and np.all(ranges[:, 0] < ranges[:, 1])
    assert ranges[0, 0] == -np.inf and ranges[-1, 1] == np.inf


def test_degenerate_states_and_ties_are_reported():
    sy = Systems.from_floats([0.5, 0.5], [0.5, 0.5], [[0, 0.0], [0.0, 0]])  # equal spins
    g = transition_graph(sy)
    assert g.ties > 0
    assert any(t.tie for t in g.transitions)
    assert {1, 2} <= set(g.degenerate_states)


def test_graph_refuses_large_n():
    sy = sample_systems("random", "spin", 19, 1.0, 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="N: 19"):
        transition_graph(sy)


def test_module_doctest():
    import doctest

    import hyst.model.transition_graph

    assert doctest.testmod(hyst.model.transition_graph).failed == 0
