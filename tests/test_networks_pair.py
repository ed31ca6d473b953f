"""Two serial elements: the drive-range scan, the Supplemental's conditions, the exact
conditions, and every disagreement between them pinned to the race condition."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyst.model.systems import quantize
from hyst.networks.elements import SerialChains
from hyst.networks.mechanics import drive_range_attractors
from hyst.networks.pair import (
    FAMILIES,
    exact_conditions,
    l4_race_conditions,
    paper_conditions,
    w_gap,
)
from hyst.networks.scan import cell_centres, disagreement, scan_cells, scan_plane, symmetric_line

#: The Supplemental's panels (x1, x2) = ((x_1^−, x_1^+), (x_2^−, x_2^+)) and Fig. 3d.
PANELS = {
    "fig3d": ((-1, 1), (0.2, 0.4)),
    "a1": ((-1, 1), (0.5, 0.75)),
    "a2": ((-1, 1), (0.5, 1.5)),
    "a3": ((-1, 1), (0.5, 2.0)),
    "b1": ((-1, 1), (-0.125, 0.125)),
    "b2": ((-1, 1), (0.5, 0.75)),
    "b3": ((-1, 1), (1.075, 1.325)),
    "c1": ((-1, 1), (0.575, 0.675)),
    "c2": ((-1, 1), (0.5, 0.75)),
    "c3": ((-1, 1), (0.2, 1.05)),
    "d1": ((-0.6, 0.6), (0.5, 0.75)),
    "d2": ((-0.8, 0.8), (0.5, 0.75)),
    "d3": ((-1, 1), (0.5, 0.75)),
    "spin05": ((0, 0), (0.5, 0.5)),
    "spin1": ((0, 0), (1, 1)),
    "spin2": ((0, 0), (2, 2)),
}
GRID = cell_centres(-3.0, 3.0, 120)

params = st.tuples(st.floats(-1, 1), st.floats(0, 2), st.floats(-1, 1), st.floats(0, 2)).map(
    lambda t: ((t[0] - t[1] / 2, t[0] + t[1] / 2), (t[2] - t[3] / 2, t[2] + t[3] / 2))
)


def _q(x1, x2, d1, d2):
    return [quantize(v) for v in (x1[0], x1[1], x2[0], x2[1], d1, d2)]


@given(xs=params, seed=st.integers(0, 2**32 - 1), coarse=st.booleans())
@settings(max_examples=60)
def test_exact_conditions_equal_the_mechanical_drive_range_scan(xs, seed, coarse):
    """Cell by cell, every family, on random elements (and a 1/8 grid with exact ties)."""
    x1, x2 = xs
    rng = np.random.default_rng(seed)
    if coarse:
        x1, x2 = (tuple(np.round(np.asarray(x) * 8) / 8) for x in (x1, x2))
        d1, d2 = (rng.integers(-32, 33, 64) / 8 for _ in range(2))
    else:
        d1, d2 = rng.uniform(-4, 4, (2, 64))
    cells = scan_cells(x1, x2, d1, d2)
    exact = exact_conditions(*_q(x1, x2, d1, d2))
    for k, name in enumerate(FAMILIES):
        assert np.array_equal(cells["attractor"][:, k], exact[name]), name
    assert not np.any(cells["in_graph"] & ~cells["attractor"])
    assert not np.any(cells["other_cycle"])


@pytest.mark.parametrize(
    "x1, x2",
    [
        ((-1, 1), (0.5, 0.75)),
        ((-0.5, 0.5), (0.0, 1.0)),
        ((0, 0), (0.5, 0.5)),
        ((-1, 0.5), (-0.25, 0.25)),
    ],
)
def test_exact_conditions_equal_the_scan_on_a_grid_with_ties(x1, x2):
    """Every (d1, d2) on the 1/8 grid of [−3, 3]²: thresholds of elements moving the same
    way coincide on whole lines of cells (rule 1 then flips the lower index)."""
    g = np.arange(-24, 25) / 8
    D1, D2 = np.meshgrid(g, g, indexing="ij")
    cells = scan_cells(x1, x2, D1.ravel(), D2.ravel())
    exact = exact_conditions(*_q(x1, x2, D1.ravel(), D2.ravel()))
    for k, name in enumerate(FAMILIES):
        assert np.array_equal(cells["attractor"][:, k], exact[name]), name
    assert cells["ties"].sum() > 0


@given(xs=params, seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60)
def test_paper_conditions_against_the_exact_ones(xs, seed):
    """The Supplemental's L = 2 conditions are exact; its L = 4 conditions are necessary,
    and exact once the four midpoint race inequalities R1–R4 are added."""
    d1, d2 = np.random.default_rng(seed).uniform(-4, 4, (2, 256))
    args = _q(*xs, d1, d2)
    paper, exact = paper_conditions(*args), exact_conditions(*args)
    races = l4_race_conditions(*args)
    for name in ("SL1", "SL2", "SL3", "SL4"):
        assert np.array_equal(paper[name], exact[name])
    for name in ("SL5", "SL6"):
        assert not np.any(exact[name] & ~paper[name])
        assert np.array_equal(exact[name], paper[name] & np.logical_and.reduce(races[name]))


def test_disagreement_fraction_on_the_papers_panels():
    """Paper conditions vs the scan on every panel: the only disagreements are L = 4 cells
    that the Supplemental's conditions accept and the scan does not, each one failing a
    race inequality R1–R4 (the race condition in the unconditionally unstable (+−) or
    (−+)). Counts on a 120 × 120 grid of [−3, 3]²."""
    counts = {}
    for name, (x1, x2) in PANELS.items():
        ds = scan_plane(x1, x2, GRID, GRID)
        assert disagreement(ds, "exact")[1] == 0
        diff = ds.paper != ds.attractor
        assert not diff.sel(family=["SL1", "SL2", "SL3", "SL4"]).any()
        D1, D2 = np.meshgrid(GRID, GRID, indexing="ij")
        races = l4_race_conditions(*_q(x1, x2, D1, D2))
        for fam in ("SL5", "SL6"):
            bad = diff.sel(family=fam).values
            assert np.all(ds.paper.sel(family=fam).values[bad])
            assert not np.any(np.logical_and.reduce(races[fam])[bad])
        counts[name] = disagreement(ds)[1]
    assert counts["fig3d"] == 0 and counts["a1"] == 0  # Fig. 3d and the summary panel
    assert counts["a2"] > 0 and counts["c3"] > 0 and counts["d1"] > 0
    assert all(counts[f"spin{v}"] == 0 for v in ("05", "1", "2"))


def test_a_disagreement_cell_pinned():
    """Panel (a) middle, x_2^+ = 1.5, at (d1, d2) = (−2.75, −0.5): the Supplemental's three
    inequalities and σ_1^0 > σ_2^0 hold, yet no L = 4 loop exists at any drive. In (+−)
    both elements are unstable (a race condition); rule 1 flips element 2 (on to (++))
    only above mp(+−) = x_2^+ + x_1^− = 0.5, but (++) moves on to (−+) only below
    H_1^−(++) = 2 x_1^− − d1 + d2 = 0.25 < 0.5: R1 fails. Below 0.5, (+−) falls back to
    (−−) instead (the L = 2 loop SL1 of the strongly active element 1)."""
    x1, x2, d1, d2 = (-1, 1), (0.5, 1.5), -2.75, -0.5
    args = _q(x1, x2, d1, d2)
    assert paper_conditions(*args)["SL5"]
    assert not exact_conditions(*args)["SL5"]
    r1, r2, r3, r4 = l4_race_conditions(*args)["SL5"]
    assert not r1 and r2 and r3 and r4
    chain = SerialChains.from_floats([x1[0], x2[0]], [x1[1], x2[1]], [d1, d2])
    found = {c for _lo, _hi, cycles in drive_range_attractors(chain) for c, _L, _n in cycles}
    assert (0, 1) in found and not any(len(c) == 4 for c in found)
    assert not scan_cells(x1, x2, [d1], [d2])["attractor"][0, 4]


def test_spin_like_elements_have_no_l4_loops():
    """Spin-like elements: mp(+−) = x_2^c + x_1^c = mp(−+), so the most unstable element of
    (+−) and (−+) changes at the same drive and L = 4 loops never occur (Supplemental)."""
    rng = np.random.default_rng(4)
    for _ in range(20):
        c1, c2 = rng.uniform(-1, 1, 2)
        d1, d2 = rng.uniform(-4, 4, (2, 400))
        cells = scan_cells((c1, c1), (c2, c2), d1, d2)
        assert not cells["attractor"][:, 4:].any()
        assert cells["attractor"][:, :4].any()


def test_spin_like_mixed_and_passive():
    """Passive pairs never self-loop; a mixed spin-like pair only has loops of its active
    element (SL1/SL2 for d1 < 0 < d2, SL3/SL4 for d2 < 0 < d1)."""
    ds = scan_plane((0, 0), (1, 1), GRID, GRID)
    D1, D2 = np.meshgrid(GRID, GRID, indexing="ij")
    att = ds.attractor.values
    assert not att[(D1 > 0) & (D2 > 0)].any()
    assert not att[(D1 < 0) & (D2 > 0)][:, 2:].any()
    assert not att[(D2 < 0) & (D1 > 0)][:, :2].any()
    assert att[(D1 < -0.5) & (D2 > 0)][:, 0].any()


@pytest.mark.parametrize("x1, x2", [((-1, 1), (0.5, 0.75)), ((-1, 1), (0.2, 0.4))])
def test_symmetric_elements(x1, x2):
    """d1 = d2 = d maps to symmetric couplings c_ij = −d: no self-loop while
    d >= −min σ_i^0 (however active), self-loops as soon as a span is negative
    (Supplemental, "The case of symmetric elements": d = −1, −0.5 loop, d = 0.1 not)."""
    d = cell_centres(-3.0, 1.0, 256)
    ds = symmetric_line(x1, x2, d)
    threshold = -min(x1[1] - x1[0], x2[1] - x2[0])
    loops = ds.attractor.any("family").values
    assert not loops[d >= threshold].any()
    assert loops[d < threshold].all()
    assert np.array_equal(ds.in_graph.any("family").values, loops)
    paper_d = symmetric_line(x1, x2, [-1.0, -0.5, 0.1]).attractor.any("family").values
    assert paper_d.tolist() == [True, threshold > -0.5, False]


def test_w_gap_and_the_l4_region():
    """SL5 needs d1 < W = min(x_2^− − x_1^+, x_1^− − x_2^+): nowhere above it."""
    x1, x2 = (-1, 1), (0.5, 0.75)
    ds = scan_plane(x1, x2, GRID, GRID)
    W = float(w_gap(*x1, *x2))
    assert W == -1.75
    assert not ds.attractor.sel(family="SL5").values[GRID >= W].any()
    assert ds.attractor.sel(family="SL5").values[GRID < W].any()


def test_cells_are_independent():
    x1, x2 = (-1, 1), (0.2, 0.4)
    ds = scan_plane(x1, x2, GRID, GRID)
    rows = slice(37, 61)
    D1, D2 = np.meshgrid(GRID[rows], GRID, indexing="ij")
    part = scan_cells(x1, x2, D1.ravel(), D2.ravel())
    assert np.array_equal(
        part["attractor"].reshape(ds.attractor[rows].shape), ds.attractor.values[rows]
    )
    assert np.array_equal(part["ties"].reshape(D1.shape), ds.ties.values[rows])


def test_family_codes_match_the_cycles():
    """The kernel's family code of each cell equals the cycles found interval by interval."""
    states = {
        "SL1": (0, 1),
        "SL2": (2, 3),
        "SL3": (0, 2),
        "SL4": (1, 3),
        "SL5": (0, 1, 3, 2),
        "SL6": (0, 2, 3, 1),
    }
    rng = np.random.default_rng(9)
    for _ in range(40):
        xc = rng.uniform(-1, 1, 2)
        s0 = rng.uniform(0, 2, 2)
        d = rng.uniform(-3, 3, 2)
        chain = SerialChains.from_floats(xc - s0 / 2, xc + s0 / 2, d)
        found = {c for _lo, _hi, cycles in drive_range_attractors(chain) for c, _L, _n in cycles}
        cells = scan_cells(
            (xc[0] - s0[0] / 2, xc[0] + s0[0] / 2),
            (xc[1] - s0[1] / 2, xc[1] + s0[1] / 2),
            [d[0]],
            [d[1]],
        )
        names = {f for k, f in enumerate(FAMILIES) if cells["attractor"][0, k]}
        assert {states[f] for f in names} == found


def _hysteron_families(hp, hm, c12, c21):
    """Families met by the hysteron dynamics (``hyst.model.relax``) inside every open field
    interval between critical fields (doubled system: crossings are integers)."""
    from hyst.model.relax import StateTables
    from hyst.model.systems import Systems

    sy = Systems(
        2 * np.array([hp], np.int64),
        2 * np.array([hm], np.int64),
        2 * np.array([[[0, c12], [c21, 0]]], np.int64),
    )
    tables = StateTables(sy)
    crit = set()
    for S in range(4):
        s = [1 if (S >> i) & 1 else -1 for i in range(2)]
        T = [(hm[i] if s[i] > 0 else hp[i]) - (c12 if i == 0 else c21) * s[1 - i] for i in range(2)]
        crit |= {2 * T[0], 2 * T[1]}
        if s[0] != s[1]:
            crit.add(T[0] + T[1])
    crit = sorted(crit)
    codes = {
        (0, 1): "SL1",
        (2, 3): "SL2",
        (0, 2): "SL3",
        (1, 3): "SL4",
        (0, 1, 3, 2): "SL5",
        (0, 2, 3, 1): "SL6",
    }
    found = set()
    for field in [(crit[0], -1)] + [(c, 1) for c in crit]:
        for S in range(4):
            r = tables.relax(S, field, "1")
            if r.outcome == "self_loop":
                found.add(codes[r.cycle_states])
    return found


@given(seed=st.integers(0, 2**32 - 1), coarse=st.booleans())
@settings(max_examples=150)
def test_hysteron_pair_conditions_equal_the_hysteron_dynamics(seed, coarse):
    """Any two hysterons (negative spans included), against hyst.model.relax at one field
    inside every interval of constant dynamics."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-16, 17, 6) if coarse else rng.integers(-(2**40), 2**40, 6)
    hp, hm, c12, c21 = [int(v[0]), int(v[1])], [int(v[2]), int(v[3])], int(v[4]), int(v[5])
    from hyst.networks.pair import hysteron_pair_conditions

    cond = hysteron_pair_conditions(hp[0], hm[0], hp[1], hm[1], c12, c21)
    assert {f for f in FAMILIES if cond[f]} == _hysteron_families(hp, hm, c12, c21)
