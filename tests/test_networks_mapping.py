"""Bilinear elements and the exact mapping of serial chains to hysterons."""

from fractions import Fraction

import numpy as np
import pytest
from conftest import run_enumeration
from hypothesis import given, settings
from hypothesis import strategies as st
from network_draws import chains, draw_chain

from hyst.model.systems import QUANTUM
from hyst.networks.elements import (
    SerialChains,
    force_control_gap,
    spring_ratio,
)
from hyst.networks.mapping import (
    chain_mapping,
    chain_parameters,
    negative_span_threshold,
    spring_thresholds,
    two_element_mapping,
)
from hyst.networks.mechanics import ChainMechanics

ints = st.integers(-(2**44), 2**44)


@given(x1c=ints, s1=st.integers(0, 2**44), x2c=ints, s2=st.integers(0, 2**44), d1=ints, d2=ints)
def test_chain_mapping_reduces_to_the_two_element_mapping(x1c, s1, x2c, s2, d1, d2):
    chain = SerialChains(
        np.array([[x1c - s1, x2c - s2]], np.int64),
        np.array([[x1c + s1, x2c + s2]], np.int64),
        np.array([[d1, d2]], np.int64),
    )
    sy = chain_mapping(chain)
    m = two_element_mapping(x1c - s1, x1c + s1, d1, x2c - s2, x2c + s2, d2)
    assert sy.h_plus[0].tolist() == [m["h1_plus"], m["h2_plus"]]
    assert sy.h_minus[0].tolist() == [m["h1_minus"], m["h2_minus"]]
    c = sy.couplings[0]
    assert (c[0, 1], c[1, 0]) == (m["c12"], m["c21"])
    assert (sy.h_plus - sy.h_minus)[0].tolist() == [m["sigma1"], m["sigma2"]]


@given(draw=chains(min_N=1, max_N=9, springs=True))
@settings(max_examples=60)
def test_mapped_thresholds_are_the_mechanical_switching_drives(draw):
    """H_i^±(S) of the mapping = the drive W = pU at which force balance puts element i
    on its threshold, in every phase state (the mapping is exact in int64)."""
    chain, _ = draw
    sy = chain_mapping(chain)
    mech = ChainMechanics(chain)
    hp, hm, c = sy.h_plus[0], sy.h_minus[0], sy.couplings[0]
    for S in range(1 << chain.N):
        s = np.where((S >> np.arange(chain.N)) & 1, 1, -1)
        local = c @ s
        up = min((hp[i] - local[i] for i in range(chain.N) if s[i] < 0), default=None)
        down = max((hm[i] - local[i] for i in range(chain.N) if s[i] > 0), default=None)
        w_down, w_up = mech.switching_drives(S)
        if up is not None:
            assert up == w_up
        if down is not None:
            assert down == w_down


@pytest.mark.parametrize("k", [1, 2, "1/3", "5/2"])
def test_one_element_and_a_spring(k):
    """U_1^± = [(k+1) x^± ± d]/k and σ_1 = [(k+1)σ^0 + 2d]/k; the span is negative iff
    d < −(k+1)σ^0/2 (Supplemental, "One element in series with a spring")."""
    p, q = spring_ratio(k)
    for d in (-2.0, -1.25, -0.5, 0.5, 1.0):
        chain = SerialChains.from_floats([-0.5], [0.75], [d], spring=k)
        sy = chain_mapping(chain)
        up, down, sigma = spring_thresholds(-0.5, 0.75, d, k)
        exact = (
            Fraction(int(v)) * Fraction(QUANTUM) / p for v in (sy.h_plus[0, 0], sy.h_minus[0, 0])
        )
        assert tuple(exact) == (up, down)
        assert (sigma < 0) == (d < -(Fraction(p, q) + 1) * Fraction(1.25) / 2)
        assert np.isclose(negative_span_threshold(chain)[0, 0], -(p / q + 1) * 1.25 / 2)


def test_one_element_and_a_spring_self_loops_exactly_when_its_span_is_negative():
    """Mechanically: an L = 2 oscillation of the element (Fig. 3e) iff σ_1 < 0."""
    from hyst.networks.mechanics import mechanical_transition_graph

    for k in (1, 2):
        for d in np.arange(-2.5, 1.0, 0.125):
            chain = SerialChains.from_floats([-0.5], [0.5], [d], spring=k)
            g = mechanical_transition_graph(chain)
            sigma = float(spring_thresholds(-0.5, 0.5, d, k)[2])
            assert (len(g.self_loops) > 0) == (sigma < 0), (k, d)
            if sigma < 0:
                assert g.self_loops == (((0, 1), 2, 1),)


def test_constant_columns_and_the_ensembles():
    """c_ij = −p d_j (constant columns); passive: every c_ij <= 0 and every span >= 0;
    equal jumps: symmetric; one active and one passive element: c_ij c_ji < 0."""
    rng = np.random.default_rng(0)
    for kind in ("passive", "active", "mixed"):
        chain = draw_chain(rng, 6, kind, "hysteretic", spring=2)
        sy = chain_mapping(chain)
        c = sy.couplings[0]
        off = ~np.eye(6, dtype=bool)
        columns = np.broadcast_to(-2 * chain.d[0], (6, 6))  # c_ij = −p d_j, p = 2
        assert np.array_equal(c[off], columns[off]) and np.all(np.diag(c) == 0)
        if kind == "passive":
            assert np.all(c[off] < 0) and np.all(sy.h_plus >= sy.h_minus)
        if kind == "active":
            assert np.all(c[off] > 0)
        if kind == "mixed":
            prod = c * c.T
            assert np.any(prod[off] < 0)
    equal = SerialChains.from_floats([-1, 0, 0.2], [1, 0.5, 0.4], [-0.3, -0.3, -0.3])
    c = chain_mapping(equal).couplings[0]
    assert np.array_equal(c, c.T)


@given(draw=chains(max_N=8), rule=st.sampled_from(["0", "1", "1p"]))
@settings(max_examples=60)
def test_self_loop_free_chains(draw, rule):
    """Passive chains map to constant columns and never self-loop; chains whose elements
    all have the same sign of d and spans >= 0 (passive, or weakly active: the ferro
    ensemble) never self-loop either, under every single-flip rule."""
    chain, _ = draw
    sy = chain_mapping(chain)
    same_sign = np.all(chain.d > 0) or np.all(chain.d < 0)
    spans_ok = np.all(sy.h_plus >= sy.h_minus)
    cols = run_enumeration(sy, rule=rule)
    if same_sign and spans_ok:
        assert cols["n_self_loop_transitions"].sum() == 0


def test_self_loop_free_chains_can_fail():
    """A mixed chain self-loops with both spans >= 0 (the L = 4 loop at Fig. 3d's red
    dot), and so does an all-active chain once a span is negative."""
    mixed = SerialChains.from_floats([-1, 0.2], [1, 0.4], [-1.8, 0.6])
    sy = chain_mapping(mixed)
    assert np.all(sy.h_plus >= sy.h_minus)
    assert run_enumeration(sy)["n_self_loop_transitions"].sum() > 0
    strongly_active = SerialChains.from_floats([-1, 0.2], [1, 0.4], [-2.5, -0.1])
    assert run_enumeration(chain_mapping(strongly_active))["n_self_loop_transitions"].sum() > 0


def test_errors_name_the_option():
    with pytest.raises(ValueError, match="spring: 1.5 is a float"):
        spring_ratio(1.5)
    with pytest.raises(ValueError, match="spring: -1 is not allowed"):
        spring_ratio(-1)
    with pytest.raises(ValueError, match="x_plus: element"):
        SerialChains.from_floats([0.5], [0.2], [1.0])
    with pytest.raises(ValueError, match="overflow"):
        chain_parameters(SerialChains.from_floats([-1e4] * 40, [1e4] * 40, [1e4] * 40))


def test_elements():
    chain = SerialChains.from_floats([-1, -1, -1, -1], [1, 1, 1, 1], [-2.0, -0.5, 0.5, 1.0])
    assert chain.passive[0].tolist() == [False, False, True, True]
    assert np.allclose(chain.dissipated_energy[0], [-4.0, -1.0, 1.0, 2.0])
    # force control: no stable branch iff d < −σ^0/2 (Supplemental, left panel)
    assert force_control_gap(-1, 1, -2.0) == (-1.0, 1.0)
    assert force_control_gap(-1, 1, -0.5) is None
