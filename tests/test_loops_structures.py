"""Fundamental self-loop structures: the paper's counts, brute force, Burnside, chunks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hyst.combinatorics import structures as S
from hyst.combinatorics.tables import PAPER_M

SMALL_CELLS = [(2, 4), (3, 6), (3, 8), (4, 8), (4, 10)]


@pytest.mark.parametrize("cell", sorted(c for c in PAPER_M if c != (5, 32)))
def test_counts_of_the_paper(cell):
    assert S.count_loops(*cell) == PAPER_M[cell]


@pytest.mark.slow
def test_longest_loops_of_five_elements():
    # M(5, 32) = directed Hamiltonian cycles of Q5 mod relabeling: 2 * 906,545,760 / 5!
    assert S.count_loops(5, 32) == PAPER_M[(5, 32)] == 2 * 906_545_760 // 120


def test_longest_loops_are_directed_hamiltonian_cycles_mod_relabeling():
    # Q4 has 1344 undirected Hamiltonian cycles; relabelings act freely on them
    assert S.count_loops(4, 16) == 2 * 1344 // math.factorial(4)
    assert S.count_loops(3, 8) == 2 * 6 // math.factorial(3)


def test_supplemental_worked_example():
    # (2,1,0,2,0,1) from (+1,-1,-1) and (2,1,0,1,2,0) from (-1,+1,-1) are one loop; the
    # second ranks lower ("010210120" < "100210102") and is the representative
    a = S.Loop(0b001, (2, 1, 0, 2, 0, 1))
    b = S.Loop(0b010, (2, 1, 0, 1, 2, 0))
    assert S.canonical(a) == S.canonical(b) == b
    assert b in S.representatives(3, 6)
    # 24 loops of length 6 from one state: 8 * 24 = 192 rooted loops, 32 directed cycles
    classes = S.brute_force_classes(3, 6)
    rooted = sum(len(c) for c in classes)
    assert rooted == 192 and sum(1 for c in classes for x in c if x.start == 0) == 24


@pytest.mark.parametrize("cell", SMALL_CELLS + [pytest.param((4, 12), marks=pytest.mark.slow)])
def test_representatives_against_brute_force_classes(cell):
    """Every rooted loop lies in the class of exactly one representative, and the
    representatives lie in pairwise different classes."""
    reps = S.representatives(*cell)
    classes = S.brute_force_classes(*cell)
    assert len(set(reps)) == len(reps) == len(classes) == S.count_loops(*cell)
    for cls in classes:
        inside = [r for r in reps if r in cls]
        assert len(inside) == 1
        # the slow canonical form of every member is that representative
        assert {S.canonical(x) for x in cls} == {inside[0]}
    for r in reps:
        assert S.is_valid_loop(r)
        assert S.canonical(r) == r


@pytest.mark.parametrize("cell", [(n, L) for n in (2, 3, 4) for L in S.cell_lengths(n)])
def test_burnside_count_small(cell):
    assert S.burnside_count(*cell) == S.count_loops(*cell)


@pytest.mark.parametrize("L", [10, 12, 14, 16, 18])
def test_burnside_count_five_elements(L):
    value, details = S.burnside_count(5, L, details=True)
    assert value == S.count_loops(5, L)
    # some cells have loops with a relabeling symmetry: Burnside's correction matters
    if L in (16, 18):
        assert any(fixed for _size, fixed in details["fixed_by_class"].values())


def test_symmetric_loops_are_counted():
    # (4, 8) contains loops fixed by a relabeling; the plain orbit count |X|/|G| is not M
    value, details = S.burnside_count(4, 8, details=True)
    free = 2**4 * details["rooted_from_zero_rgs"] / 8
    assert value == 56 and free != 56


@pytest.mark.parametrize("cell,depth", [((4, 12), 1), ((4, 12), 3), ((5, 12), 4), ((4, 16), 6)])
def test_chunks_merge_to_the_whole_cell(cell, depth):
    whole = S.enumerate_cell(*cell, depth=0)
    chunks = S.cell_chunks(*cell, depth=depth)
    assert len(chunks) > 1
    merged = S.merge_chunks([S.enumerate_chunk(c) for c in chunks], cell[1])
    assert merged.count == whole.count
    a = sorted(zip(merged.starts.tolist(), map(tuple, merged.flips.tolist()), strict=True))
    b = sorted(zip(whole.starts.tolist(), map(tuple, whole.flips.tolist()), strict=True))
    assert a == b
    assert len(set(a)) == len(a)
    # counting only gives the same numbers chunk by chunk
    assert [S.enumerate_chunk(c, store=False).count for c in chunks] == [
        S.enumerate_chunk(c).count for c in chunks
    ]


def test_invalid_prefix_is_an_empty_chunk():
    assert S.enumerate_chunk(S.Chunk(4, 10, 0, (2, 3))).count == 0  # labels not in first-flip order
    assert S.enumerate_chunk(S.Chunk(4, 10, 0, (3, 3))).count == 0  # revisits the start


def test_cell_checks():
    for bad in [(1, 4), (3, 5), (3, 10), (2, 2), (7, 14)]:
        with pytest.raises(ValueError):
            S.check_cell(*bad)


@st.composite
def rooted_loops(draw):
    cell = draw(st.sampled_from(SMALL_CELLS + [(5, 10), (4, 14)]))
    reps = _reps(cell)
    loop = reps[draw(st.integers(0, len(reps) - 1))]
    perm = draw(st.permutations(range(cell[0])))
    t = draw(st.integers(0, cell[1] - 1))
    extra = draw(st.integers(0, 2))  # spectator elements that never flip
    return loop, S.relabel(S.shift(loop, t), dict(enumerate(perm))), extra


_CACHE: dict = {}


def _reps(cell):
    if cell not in _CACHE:
        _CACHE[cell] = S.representatives(*cell)
    return _CACHE[cell]


@given(rooted_loops())
def test_canonical_form_is_invariant(case):
    loop, moved, extra = case
    # spread the labels among spectators that never flip (as in a larger system)
    n = loop.n_e
    spread = {e: e * (extra + 1) for e in range(n)}
    spectators = sum(1 << (e * (extra + 1) + 1) for e in range(n) if extra)
    big = S.relabel(moved, spread)
    big = S.Loop(big.start | spectators, big.flips)
    assert S.canonical(moved) == S.canonical(big) == loop
    assert S.canonical(S.loop_from_states(moved.states())) == loop


def test_loop_from_states_rejects_non_neighbours():
    with pytest.raises(ValueError):
        S.loop_from_states([0, 3, 1])


def test_representatives_are_stored_as_small_arrays():
    res = S.enumerate_cell(4, 10)
    assert res.flips.dtype == np.int8 and res.flips.shape == (176, 10)
    assert res.starts.dtype == np.int64
