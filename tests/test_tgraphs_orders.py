"""The share of well-defined parameter space of the general model (issue 30, item 4): the exact
counts of total orders (dynamic programming over the sets of fields below U) against brute
force at n = 2, and the sampled shares against the exact ones at n = 2 and n = 3."""

import itertools

import numpy as np
import pytest

from hyst.combinatorics.tgraph_orders import DEFINITIONS, Share, sample_shares, well_defined
from hyst.combinatorics.tgraphs import EXACT_DEFINITIONS, exact_orders
from hyst.model.general import order_statistics


@pytest.fixture(scope="module")
def brute_force():
    """{(rule, no_simple): {definition: count}} over the 20,160 orders of n = 2 with the main
    loop's up boundary fixed."""
    perms = np.array(list(itertools.permutations(range(8))))
    values = np.zeros(perms.shape, np.int64)
    values[np.arange(len(perms))[:, None], perms] = np.arange(1, 9)
    values = values.reshape(-1, 4, 2)
    values = values[values[:, 0, 0] > values[:, 0, 1]]
    out = {}
    for rule in ("0", "2"):
        table = order_statistics(values, 2, rule)
        no_pairs = table[:, 6] == 0  # simple_self_loop_pairs
        for no_simple in (False, True):
            keep = no_pairs if no_simple else np.ones(len(table), bool)
            out[(rule, no_simple)] = {
                name: int((ok & keep).sum()) for name, ok in well_defined(table).items()
            }
    return out


@pytest.mark.parametrize("rule", ["0", "2"])
@pytest.mark.parametrize("no_simple", [False, True])
def test_exact_counts_of_two_hysterons_are_the_brute_force_ones(brute_force, rule, no_simple):
    for definition in EXACT_DEFINITIONS:
        c = exact_orders(2, rule, definition, no_simple)
        assert c.total == (1_260 if no_simple else 20_160)
        assert c.good == brute_force[(rule, no_simple)][definition]


def test_the_peer_numbers_and_the_difference_of_the_two_shares():
    """850 of 20,160 (4.22 %) ask every state for a stability interval; the peer's
    make_graph does not and succeeds on 1,224 (6.07 %): the 374 orders between have
    well-defined transitions from a state that is stable nowhere."""
    assert exact_orders(2, "0", "all_states_stable").good == 850
    assert exact_orders(2, "0", "all_transitions").good == 1_224
    assert exact_orders(2, "0", "all_states_stable", no_simple=True).good == 850
    three = exact_orders(3, "0", "all_states_stable")
    assert (three.good, three.total) == (2_338_869_951_234_123_040, 103_408_066_955_539_906_560_000)
    assert exact_orders(3, "0", "all_transitions").good == 8_640_265_230_280_264_212
    assert exact_orders(3, "0", "all_states_stable", no_simple=True).sets == 122_931


def test_exact_counts_refuse_what_they_cannot_count():
    with pytest.raises(ValueError, match="n: 4"):
        exact_orders(4)
    with pytest.raises(ValueError, match="rule: '1'"):
        exact_orders(2, "1")


def within(share: Share, exact: float, sigmas: float = 4.0) -> bool:
    return abs(share.value - exact) <= sigmas * np.sqrt(exact * (1 - exact) / share.m)


@pytest.mark.parametrize("no_simple", [False, True])
def test_sampled_shares_agree_with_the_exact_counts(no_simple):
    for n, samples in ((2, 100_000), (3, 300_000)):
        shares = sample_shares(n, samples, seed=7, no_simple=no_simple)
        for rule in ("0", "2"):
            assert shares[rule]["ties"].k == 0
            for definition in EXACT_DEFINITIONS:
                if n == 3 and not no_simple and (rule, definition) != ("0", "all_transitions"):
                    continue  # 1 to 20 s each to count exactly (the census study's job)
                exact = exact_orders(n, rule, definition, no_simple).share
                assert within(shares[rule][definition], exact), (n, rule, definition)
        assert set(shares["1"]) >= set(DEFINITIONS)


def test_samples_do_not_depend_on_their_chunks():
    a = sample_shares(2, 5_000, seed=1)
    b = sample_shares(2, 5_000, seed=1)
    assert a == b
    assert Share(0, 1000).text() == "< 0.37 % (95 % CL)"
    assert Share(850, 20_160).text() == "4.22 ± 0.14 %"
