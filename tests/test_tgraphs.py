"""The general hysteron model's t-graphs (issue 30): every n = 2 number of Teunisse & van Hecke's
walkthrough (the peer code MargotHTeunisse/hysteron-tgraphs 2.0.0), by its definitions and by
brute force over all 8! total orders of the switching fields."""

import doctest
import itertools
import math
from collections import Counter

import numpy as np
import pytest

import hyst.combinatorics.tgraphs
import hyst.model.design_order
import hyst.model.general
from hyst.combinatorics import tgraphs
from hyst.model import design_order as do
from hyst.model.general import (
    SwitchingFields,
    TGraph,
    Transition,
    field_label,
    goe_reduced,
    order_columns,
    order_statistics,
    parse_label,
    resolve,
)
from hyst.model.relax import StateTables
from hyst.model.systems import Systems

N2_FIELDS = 8


def graph_of(n, transitions):
    """A t-graph from the peer's notation: [(state tuple s_1…s_n, flipped 0-based indices)]."""
    g = TGraph(n)
    for state, flipped in transitions:
        S = parse_label("".join(map(str, state)))
        path = [S]
        for i in flipped:
            path.append(path[-1] ^ (1 << i))
        d = -1 if (S >> flipped[0]) & 1 else 1
        g[(S, d)] = Transition(tuple(path), "stable")
    return g


#: The walkthrough's example graph (sections 2a and 4a).
EXAMPLE = [((0, 0), (1, 0)), ((0, 1), (0, 1)), ((0, 1), (1,)), ((1, 0), (0,)), ((1, 0), (1,)),
           ((1, 1), (1,))]  # fmt: skip

#: Its 23 design inequalities as the walkthrough prints them (the transitive closure).
EXAMPLE_INEQUALITIES = """
U_2^-(11) > U_1^+(01); U_1^+(01) > U_1^-(11); U_2^-(11) > U_2^-(01); U_2^+(00) > U_1^-(10);
U_2^+(10) > U_1^-(10); U_1^+(00) > U_1^-(10); U_2^+(10) > U_2^-(11); U_2^+(00) > U_2^-(11);
U_1^+(00) > U_2^-(11); U_2^+(00) > U_1^+(01); U_2^+(10) > U_1^+(01); U_1^+(01) > U_1^-(10);
U_1^+(00) > U_1^+(01); U_2^+(00) > U_2^-(01); U_2^+(10) > U_2^-(01); U_1^+(00) > U_2^-(01);
U_2^-(11) > U_1^-(11); U_1^+(01) > U_2^-(01); U_1^+(00) > U_2^+(00); U_2^-(11) > U_1^-(10);
U_2^+(00) > U_1^-(11); U_2^+(10) > U_1^-(11); U_1^+(00) > U_1^-(11)
"""


@pytest.mark.parametrize(
    "module", [hyst.model.general, hyst.model.design_order, hyst.combinatorics.tgraphs]
)
def test_module_doctests(module):
    assert doctest.testmod(module).failed == 0


def test_walkthrough_fields_give_its_scaffold_and_graph():
    """Section 1: U(00) = (7, 6), U(01) = (4, 2), U(10) = (3, 8), U(11) = (1, 5)."""
    f = SwitchingFields.from_rows(2, {"00": [7, 6], "01": [4, 2], "10": [3, 8], "11": [1, 5]})
    printed = {("00", 1): 2, ("01", 1): 1, ("01", -1): 2, ("10", 1): 2, ("10", -1): 1,
               ("11", -1): 2}  # fmt: skip
    assert f.scaffold() == {(parse_label(s), d): k - 1 for (s, d), k in printed.items()}
    g = resolve(f)
    assert g.well_defined and f.all_states_stable() and g.key() == graph_of(2, EXAMPLE).key()
    ranks = SwitchingFields.from_order(2, np.argsort(f.values.ravel()))
    assert np.array_equal(ranks.values, f.values)  # the fields are the ranks 1 … 8


def test_example_design_inequalities_and_weight():
    order = do.design_order(graph_of(2, EXAMPLE))
    closed = {f"{field_label(a, 2)} > {field_label(b, 2)}" for a, b in do.closure(order).edges}
    printed = {x.strip() for x in EXAMPLE_INEQUALITIES.replace("\n", " ").split(";")}
    assert closed == printed
    reduced = do.reduction(order)
    assert do.closure(reduced).edges == do.closure(order).edges
    assert len(reduced.edges) == 7
    weight = do.count_linear_extensions(order)
    assert weight == 18
    assert weight / math.factorial(N2_FIELDS) == pytest.approx(4.464285714285714e-4, rel=1e-12)


def test_impossible_combinations_of_figure_6():
    for transitions in (
        [((0, 0), (1,)), ((0, 1), (0, 1, 0))],
        [((1, 0), (0, 1)), ((0, 0), (1, 0))],
    ):
        order = do.design_order(graph_of(2, transitions))
        assert not do.realizable(order)
        assert do.count_linear_extensions(order) == 0


def test_scaffold_and_candidate_counts():
    assert [tgraphs.count_scaffolds(n) for n in (2, 3, 4, 5)] == [
        2, 96, 17_915_904, 798_699_998_426_557_317_120]  # fmt: skip
    assert len(tgraphs.scaffolds(2)) == 2 and len(tgraphs.scaffolds(3)) == 96
    sizes = [sorted(len(tgraphs.avalanches(s, S, d)) for (S, d) in s) for s in tgraphs.scaffolds(2)]
    assert sizes == [[1, 1, 2, 2, 3, 3], [1, 1, 3, 3, 3, 3]]  # the walkthrough's trees (3b)
    assert [tgraphs.count_candidates(s) for s in tgraphs.scaffolds(2)] == [36, 81]


def test_census_of_two_hysterons_by_candidates():
    """Sections 3c and 4b: 35 realizable graphs, 13 without Garden-of-Eden states; 850 of
    20,160 total orders well defined (1,977 on the reduced graphs); 850 of 1,260 with simple
    self-loops forbidden (1,224 on the reduced graphs)."""
    c = tgraphs.census_by_candidates(2)
    assert (c.scaffolds, c.candidates, c.realizable, c.goe_realizable) == (2, [36, 81], 35, 13)
    assert (c.orders_total, c.orders_well_defined, c.orders_goe) == (20_160, 850, 1_977)
    assert (c.orders_total_no_simple, c.orders_no_simple, c.orders_goe_no_simple) == (
        1_260, 850, 1_224)  # fmt: skip
    assert f"{100 * c.orders_well_defined / c.orders_total:.2f}" == "4.22"
    assert f"{100 * c.orders_goe / c.orders_total:.2f}" == "9.81"
    assert f"{100 * c.orders_no_simple / c.orders_total_no_simple:.2f}" == "67.46"


@pytest.fixture(scope="module")
def all_orders():
    """Every total order of the 8 fields of n = 2 as switching fields (ranks 1 … 8), and the
    mask of those with the main loop's up boundary fixed (U_1^+(00) > U_2^+(00))."""
    perms = np.array(list(itertools.permutations(range(N2_FIELDS))))
    values = np.zeros(perms.shape, np.int64)
    values[np.arange(len(perms))[:, None], perms] = np.arange(1, N2_FIELDS + 1)
    values = values.reshape(-1, 4, 2)
    return values, values[:, 0, 0] > values[:, 0, 1]


def test_brute_force_over_all_total_orders(all_orders):
    """Resolving every one of the 8! orders gives the census's numbers, and each realizable
    graph occurs for exactly as many orders as its design order has linear extensions."""
    values, fixed = all_orders
    stats = dict(zip(order_columns(), order_statistics(values, 2, "0").T, strict=True))
    assert stats["ties"].sum() == 0
    clean = stats["bad_all"] == 0
    all_stable = stats["unstable_states"] == 0
    no_simple = stats["simple_self_loop_pairs"] == 0
    goe = stats["bad_reachable"] == 0
    assert int((clean & all_stable)[fixed].sum()) == 850
    assert int(goe[fixed].sum()) == 1_977
    assert (int(no_simple[fixed].sum()), int((clean & all_stable & no_simple)[fixed].sum())) == (
        1_260, 850)  # fmt: skip
    assert int((goe & no_simple)[fixed].sum()) == 1_224
    # the peer's make_graph (every transition of every state, no stability asked) succeeds
    # on 1,224 of the 20,160 orders (6.07 %: run on all 8! orders with hysteron-tgraphs 2.0.0)
    assert int(clean[fixed].sum()) == 1_224
    # the relabelled half gives the same counts
    assert int((clean & all_stable)[~fixed].sum()) == 850
    weights, reduced = Counter(), Counter()
    for v in values[fixed & clean & all_stable]:
        weights[resolve(SwitchingFields(2, v)).key()] += 1
    for v in values[fixed & goe]:
        reduced[goe_reduced(resolve(SwitchingFields(2, v))).key()] += 1
    assert len(weights) == 35 and len(reduced) == 13
    for s in tgraphs.scaffolds(2):
        for g in tgraphs.candidates(s):
            order = do.design_order(g)
            assert weights.get(g.key(), 0) == do.count_linear_extensions(order)


def test_lp_realizes_exactly_the_acyclic_candidates():
    """The LP (HiGHS) finds integer fields for every realizable candidate, whose t-graph is
    the candidate; for the others it is infeasible."""
    found = 0
    for s in tgraphs.scaffolds(2):
        for g in tgraphs.candidates(s):
            r = tgraphs.realize(g)
            assert r.feasible == do.realizable(do.design_order(g))
            if r.feasible:
                found += 1
                assert r.rows_hold and r.reproduces
                assert r.fields.values.min() == 0
    assert found == 35


def test_rules_on_race_conditions():
    """From 00 (U up to U_2^+(00) = 1) hysteron 2 flips; in 01 both down hysteron 1 (U_1^+ = 0)
    and up hysteron 2 (U_2^- = 5) are unstable: rule 0 ill-defined, rule 1 flips the larger
    margin (hysteron 2: 5 − 1 > 1 − 0), rule 1' the smaller, rule 2 both."""
    f = SwitchingFields.from_rows(2, {"00": [2, 1], "01": [0, 5], "10": [-9, 9], "11": [-9, -9]})
    up = (0, 1)
    assert resolve(f, "0")[up].outcome == "race"
    assert resolve(f, "1")[up].path == (0, 2, 0)  # back to 00: a self-loop
    assert resolve(f, "1")[up].outcome == "self_loop"
    assert resolve(f, "1p")[up].path == (0, 2, 3)
    assert resolve(f, "2")[up].path == (0, 2, 1)
    with pytest.raises(ValueError, match="rule: '1'"):
        do.design_order(resolve(f, "1p"), rule="1")


@pytest.mark.parametrize("rule", ["0", "1", "1p", "2"])
def test_pairwise_systems_resolve_as_the_state_tables(rule):
    """A pairwise system read as switching fields has, from every potentially stable state,
    the transitions of hyst's state tables (same margins, same rules; wide ranges, so that
    no two critical fields tie: the general model's first flip is the scaffold's)."""
    rng = np.random.default_rng(30)
    seen = Counter()
    for n in (2, 3, 4):
        for _ in range(40):
            hp = rng.integers(-(10**6), 10**6, n)
            hm = hp - rng.integers(0, 10**6, n)
            c = rng.integers(-(10**6), 10**6, (n, n))
            np.fill_diagonal(c, 0)
            sy = Systems(hp[None], hm[None], c[None])
            tables = StateTables(sy)
            g = resolve(SwitchingFields.from_pairwise(hp, hm, c), rule)
            for (S, d), t in g.items():
                if not tables.hminus[S] < tables.hplus[S]:
                    continue
                field = (int(tables.hplus[S] if d > 0 else tables.hminus[S]), d)
                r = tables.relax(S, field, rule)
                expected = {"stable": "stable", "self_loop": "self_loop", "ill_defined": "race"}
                assert expected[r.outcome] == t.outcome
                seen[t.outcome] += 1
                if t.outcome == "stable":
                    assert r.final_state == t.final
                    assert r.flips == len(t.flips) or rule == "2"
    assert seen["stable"] > 0 and seen["self_loop"] > 0 and (rule != "0" or seen["race"] > 0)
