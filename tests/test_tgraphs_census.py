"""The exact census of t-graphs by depth-first search with pruning (issue 30, item 3): the n = 2
numbers of the peer's walkthrough, and n = 3 checked two ways."""

import math

import numpy as np
import pytest

from hyst.combinatorics import tgraph_search, tgraphs
from hyst.model import design_order as do
from hyst.model.general import TGraph, Transition


def test_two_hysterons_by_search():
    per_scaffold = [tgraph_search.scaffold_census(s) for s in tgraphs.scaffolds(2)]
    assert [c.candidates for c in per_scaffold] == [36, 81]
    assert sum(c.graphs for c in per_scaffold) == 35
    assert all(c.candidates > c.branches > c.pruned > 0 for c in per_scaffold[1:])
    assert tgraph_search.graph_census(2).graphs == 13
    assert tgraph_search.graph_census(2, reduced=False).graphs == 35


def test_three_hysterons():
    """96 scaffolds, the peer's 4,725,217,377,852 candidates, 16,351,177 realizable t-graphs
    (all states stable, rule 0), 125,453 after Garden-of-Eden reduction."""
    census = [tgraph_search.scaffold_census(s) for s in tgraphs.scaffolds(3)]
    assert len(census) == 96
    assert sum(c.candidates for c in census) == 4_725_217_377_852
    assert sum(c.graphs for c in census) == 16_351_177
    assert tgraph_search.graph_census(3).graphs == 125_453


@pytest.mark.slow
def test_three_hysterons_without_scaffolds():
    """The same total when every transition takes any critical hysteron and any avalanche
    (the scaffold's consistency left to the inequalities): 36 s."""
    assert tgraph_search.graph_census(3, reduced=False).graphs == 16_351_177


def test_pruned_search_against_random_candidates():
    """The share of realizable candidates of one n = 3 scaffold, from 4,000 candidates drawn
    uniformly and tested one by one with networkx, agrees with the search's exact count."""
    scaffold = tgraphs.scaffolds(3)[0]
    census = tgraph_search.scaffold_census(scaffold)
    trees = {key: tgraphs.avalanches(scaffold, *key) for key in scaffold}
    rng = np.random.default_rng(3)
    draws, hits = 4_000, 0
    for _ in range(draws):
        g = TGraph(3)
        for key, tree in trees.items():
            g[key] = Transition(tree[rng.integers(len(tree))], "stable")
        hits += do.realizable(do.design_order(g))
    p = census.graphs / census.candidates
    assert census.candidates == math.prod(len(t) for t in trees.values())
    assert abs(hits - draws * p) <= 4 * math.sqrt(draws * p * (1 - p)) + 1


def test_weights_of_one_scaffolds_graphs_are_its_orders():
    """The 46,728 realizable t-graphs of n = 3 scaffold 54 weigh (linear extensions) exactly
    the total orders of that scaffold that the dynamic programming over sets of fields
    counts: the search and the order count agree graph by graph in sum."""
    scaffold = tgraphs.scaffolds(3)[54]
    census = tgraph_search.scaffold_census(scaffold, keep=None)
    assert census.graphs == len(census.kept) == 46_728
    weight = sum(tgraph_search.linear_extensions(census.orders))
    assert weight == tgraphs.exact_orders(3, scaffold=scaffold).good == 12_328_832_553_976_512
