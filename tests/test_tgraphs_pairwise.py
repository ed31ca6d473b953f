"""Pairwise hysterons as general-model switching fields (issue 30, item 2): the conversion both
ways, and which general-model t-graphs pairwise hysterons realize (29 of the 35 of n = 2)."""

import doctest

import numpy as np

import hyst.combinatorics.tgraph_pairwise
from hyst.combinatorics import tgraph_search, tgraphs
from hyst.combinatorics.tgraph_pairwise import (
    field_rows,
    pairwise_realize,
    pairwise_realize_many,
    parameter_names,
    to_pairwise,
    unpack,
)
from hyst.model.general import SwitchingFields, resolve


def test_module_doctest():
    assert doctest.testmod(hyst.combinatorics.tgraph_pairwise).failed == 0


def test_conversion_both_ways():
    rng = np.random.default_rng(2)
    for n in (2, 3, 4):
        hp = rng.integers(-100, 100, n)
        hm = rng.integers(-100, 100, n)
        c = rng.integers(-50, 50, (n, n))
        np.fill_diagonal(c, 0)
        f = SwitchingFields.from_pairwise(hp, hm, c)
        back = to_pairwise(f)
        assert back is not None
        assert all(np.array_equal(a, b) for a, b in zip(back, (hp, hm, c), strict=True))
        x = np.concatenate([hp, hm, c[~np.eye(n, dtype=bool)]])
        assert np.array_equal(field_rows(n) @ x, f.values.ravel())
        assert all(np.array_equal(a, b) for a, b in zip(unpack(n, x), (hp, hm, c), strict=True))
        assert len(parameter_names(n)) == 2 * n + n * (n - 1)
    general = SwitchingFields.from_rows(2, {"00": [7, 6], "01": [4, 2], "10": [3, 8], "11": [1, 5]})
    assert to_pairwise(general) is None


def test_pairwise_realizable_graphs_of_two_hysterons():
    """29 of the 35 realizable t-graphs (with positive spans as well), and all 13
    Garden-of-Eden-reduced ones; every realization is checked by resolving it again."""
    full = [g for s in tgraphs.scaffolds(2) for g in tgraph_search.scaffold_census(s, None).kept]
    reduced = tgraph_search.graph_census(2, keep=None).kept
    assert (len(full), len(reduced)) == (35, 13)
    for positive in (False, True):
        answers = pairwise_realize_many(full, positive_spans=positive)
        assert sum(a.feasible for a in answers) == 29
        assert all(a.rows_hold and a.reproduces for a in answers if a.feasible)
        if positive:
            assert all((a.h_plus >= a.h_minus).all() for a in answers if a.feasible)
    assert sum(a.feasible for a in pairwise_realize_many(reduced)) == 13
    one = pairwise_realize(full[0])
    assert one.feasible == pairwise_realize_many(full[:1])[0].feasible
    f = SwitchingFields.from_pairwise(one.h_plus, one.h_minus, one.couplings)
    assert all(resolve(f)[k] == t for k, t in full[0].items())
