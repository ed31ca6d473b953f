"""``hyst.tgraphs``: transition graphs (t-graphs) of the general hysteron model, in which every
state S of n hysterons has its own switching fields U_i^±(S) (Teunisse & van Hecke, R. Soc.
Open Sci. 2025; the pairwise model of hyst is the special case U_i^±(S) = h_i^± −
Σ_j c_ij s_j). States are bitmasks (bit i set ⇔ hysteron i + 1 up) and labels s_1 … s_n.

>>> from hyst import tgraphs
>>> f = tgraphs.switching_fields({"00": [7, 6], "01": [4, 2], "10": [3, 8], "11": [1, 5]})
>>> g = tgraphs.tgraph(f)
>>> g.well_defined, tgraphs.linear_extensions(g), tgraphs.realize(g).reproduces
(True, 18, True)
"""

from __future__ import annotations

import xarray as xr

from hyst.combinatorics import tgraph_orders as orders
from hyst.combinatorics import tgraph_pairwise, tgraphs
from hyst.combinatorics.tgraph_pairwise import PairwiseRealization
from hyst.combinatorics.tgraphs import OrderCount, Realization
from hyst.model import design_order
from hyst.model.general import SwitchingFields, TGraph, field_label, goe_reduced, resolve
from hyst.studies import tgraphs as study

__all__ = [
    "OrderCount",
    "PairwiseRealization",
    "Realization",
    "SwitchingFields",
    "TGraph",
    "candidates",
    "census",
    "design_inequalities",
    "exact_share",
    "from_system",
    "goe_reduced",
    "linear_extensions",
    "pairwise_realize",
    "plot_shares",
    "realize",
    "sampled_share",
    "scaffolds",
    "switching_fields",
    "table",
    "tgraph",
]


def switching_fields(rows: dict) -> SwitchingFields:
    """Switching fields from {state label: [U_1(S), …, U_n(S)]} (integers, any units): U_i^+
    for a hysteron down in S, U_i^− for one up.

    Parameters
    ----------
    rows : dict
        {state label s_1 … s_n (0 down, 1 up): [U_1(S), …, U_n(S)]} for all 2^n states:
        U_i^+ where hysteron i is down in S, U_i^− where it is up (integers, any units).

    Examples
    --------
    >>> switching_fields({"0": [2], "1": [1]}).values.tolist()
    [[2], [1]]
    """
    n = len(next(iter(rows)))
    return SwitchingFields.from_rows(n, rows)


def from_system(system) -> SwitchingFields:
    """The switching fields of a pairwise :class:`hyst.System` (its parameters' integer
    quanta, exactly): U_i^±(S) = h_i^± − Σ_j c_ij s_j.

    Parameters
    ----------
    system : hyst.System
        A system of the pairwise model (direction-dependent couplings included:
        U_i^+ with c^+, U_i^− with c^−).

    Examples
    --------
    >>> import hyst
    >>> f = from_system(hyst.System([0.1, 0.3], [-0.1, 0.1], [[0, 0.5], [-0.5, 0]]))
    >>> tgraph(f, rule="1")[(0, 1)].outcome  # the L = 4 self-loop of this pair
    'self_loop'
    """
    sy = system.systems
    minus = sy.couplings_minus[0] if sy.directed else None
    return SwitchingFields.from_pairwise(sy.h_plus[0], sy.h_minus[0], sy.couplings[0], minus)


def tgraph(fields: SwitchingFields, rule: str = "0") -> TGraph:
    """The t-graph of ``fields`` under a race-condition rule ('0', '1', '1p', '2'):
    {(state, direction ±1): Transition(path, outcome)}, self-loops detected exactly.

    Parameters
    ----------
    fields : SwitchingFields
        The switching fields (:func:`switching_fields`, :func:`from_system`).
    rule : {"0", "1", "1p", "2"}, default "0"
        The race-condition rule.

    Examples
    --------
    >>> g = tgraph(switching_fields({"0": [2], "1": [1]}))
    >>> g[(0, 1)].path, g[(1, -1)].path
    ((0, 1), (1, 0))
    """
    return resolve(fields, rule)


def design_inequalities(graph: TGraph, reduced: bool = True) -> list[str]:
    """The design inequalities of a t-graph (rule 0, every state with a transition stable),
    as text: the transitive reduction (the fewest) or the closure (every implied one).

    Parameters
    ----------
    graph : TGraph
        A t-graph (:func:`tgraph`).
    reduced : bool, default True
        The transitive reduction (True) or the closure (False).

    Examples
    --------
    >>> design_inequalities(tgraph(switching_fields({"0": [2], "1": [1]})))
    ['U_1^+(0) > U_1^-(1)']
    """
    order = design_order.design_order(graph)
    order = design_order.reduction(order) if reduced else design_order.closure(order)
    return sorted(f"{field_label(a, graph.n)} > {field_label(b, graph.n)}" for a, b in order.edges)


def linear_extensions(graph: TGraph, no_simple_self_loops: bool = False) -> int:
    """The number of total orders of the n·2^n switching fields that give ``graph`` (its
    statistical weight; divide by (n·2^n)! for its probability), optionally with simple
    self-loops forbidden.

    Parameters
    ----------
    graph : TGraph
        A t-graph (:func:`tgraph`).
    no_simple_self_loops : bool, default False
        Forbid simple self-loops: ask U_i^+(S) > U_i^−(S + i) for every state S and
        hysteron i down in S (S + i: S with i up).

    Examples
    --------
    >>> linear_extensions(tgraph(switching_fields({"0": [2], "1": [1]})))
    1
    """
    order = design_order.design_order(graph)
    if no_simple_self_loops:
        order = design_order.add_no_simple_self_loops(order, graph.n)
    return design_order.count_linear_extensions(order)


def realize(graph: TGraph) -> Realization:
    """Realizability in the general model by LP, with integer switching fields checked by
    resolving their t-graph again.

    Parameters
    ----------
    graph : TGraph
        A t-graph (:func:`tgraph`).

    Examples
    --------
    >>> realize(tgraph(switching_fields({"0": [2], "1": [1]}))).fields.values.tolist()
    [[1], [0]]
    """
    return tgraphs.realize(graph)


def pairwise_realize(graph: TGraph, positive_spans: bool = False) -> PairwiseRealization:
    """Whether pairwise hysterons (h^±, c) realize ``graph``, with their parameters.

    Parameters
    ----------
    graph : TGraph
        A t-graph (:func:`tgraph`).
    positive_spans : bool, default False
        Ask for positive spans h_i^+ − h_i^− > 0 (default: spans of any sign).

    Examples
    --------
    >>> pairwise_realize(tgraph(switching_fields({"0": [2], "1": [1]}))).feasible
    True
    """
    return tgraph_pairwise.pairwise_realize(graph, positive_spans=positive_spans)


def scaffolds(n: int) -> list[dict]:
    """Every scaffold {(state, direction): critical hysteron (0-based)} of n hysterons, up
    to relabelling (the main loop's up boundary fixed).

    Parameters
    ----------
    n : int
        Number of hysterons.

    Examples
    --------
    >>> len(scaffolds(2)), len(scaffolds(3))
    (2, 96)
    """
    return tgraphs.scaffolds(n)


def candidates(scaffold: dict):
    """Every candidate t-graph of a scaffold (rule 0 avalanches without self-loops).

    Parameters
    ----------
    scaffold : dict
        {(state, direction): critical hysteron (0-based)}, one of :func:`scaffolds`.

    Examples
    --------
    >>> sum(realize(g).feasible for s in scaffolds(2) for g in candidates(s))
    35
    """
    return tgraphs.candidates(scaffold)


def exact_share(
    n: int, rule="0", definition="all_states_stable", no_simple_self_loops=False
) -> OrderCount:
    """The exact count of total orders (up to relabelling) that give a well-defined t-graph
    (n ≤ 3, rules 0 and 2): ``good``, ``total``, ``share``.

    Parameters
    ----------
    n : int
        Number of hysterons (n ≤ 3).
    rule : {"0", "2"}, default "0"
        The race-condition rule.
    definition : str, default "all_states_stable"
        What "well defined" asks: "all_states_stable" (every transition of every state
        ends in a stable state and every state has a stability interval,
        max U^−(S) < min U^+(S)), "all_transitions" (every transition of every state
        ends in a stable state), "stable_states" (the transitions of the states with a
        stability interval) or "reachable" (the transitions of the states reachable
        from the all-down state: the Garden-of-Eden-reduced graph).
    no_simple_self_loops : bool, default False
        Forbid simple self-loops: ask U_i^+(S) > U_i^−(S + i) for every state S and
        hysteron i down in S (S + i: S with i up).

    Examples
    --------
    >>> c = exact_share(2)
    >>> c.good, c.total, round(100 * c.share, 2)
    (850, 20160, 4.22)
    """
    return tgraphs.exact_orders(n, rule, definition, no_simple_self_loops)


def sampled_share(n: int, samples: int, rule="0", definition="all_states_stable", seed=0,
                  no_simple_self_loops=False) -> orders.Share:  # fmt: skip
    """The share of ``samples`` random sets of switching fields (a uniformly random total
    order) with a well-defined t-graph (definitions:
    ``hyst.combinatorics.tgraph_orders.DEFINITIONS``).

    Parameters
    ----------
    n : int
        Number of hysterons.
    samples : int
        Random sets of switching fields drawn.
    rule : {"0", "1", "1p", "2"}, default "0"
        The race-condition rule.
    definition : str, default "all_states_stable"
        What "well defined" asks: "all_states_stable" (every transition of every state
        ends in a stable state and every state has a stability interval,
        max U^−(S) < min U^+(S)), "all_transitions" (every transition of every state
        ends in a stable state), "stable_states" (the transitions of the states with a
        stability interval) or "reachable" (the transitions of the states reachable
        from the all-down state: the Garden-of-Eden-reduced graph).
    seed : int, default 0
        Base seed.
    no_simple_self_loops : bool, default False
        Forbid simple self-loops: ask U_i^+(S) > U_i^−(S + i) for every state S and
        hysteron i down in S (S + i: S with i up).

    Examples
    --------
    >>> s = sampled_share(2, 20_000, seed=1)
    >>> abs(s.value - 850 / 20160) < 4 * s.error
    True
    """
    return orders.sample_shares(n, samples, seed, no_simple_self_loops)[str(rule)][definition]


def census(
    n: int,
    samples: int = 20_000,
    seed: int = 0,
    pairwise_sample: int = 0,
    directed_pairwise: bool = False,
) -> xr.Dataset:
    """The census dataset of n hysterons (exact for n ≤ 3, sampled shares for any n), as
    the ``tgraphs`` study collects it.

    Parameters
    ----------
    n : int
        Number of hysterons.
    samples : int, default 20000
        Random sets of switching fields for the sampled shares.
    seed : int, default 0
        Base seed.
    pairwise_sample : int, default 0
        n = 3: test every reduced t-graph and this many full ones, drawn uniformly, for
        pairwise realizability by LP.
    directed_pairwise : bool, default False
        n ≤ 3: ask the same t-graphs of pairwise hysterons with direction-dependent couplings
        (c^+ ≠ c^−) too (``directed_pairwise_full``, ``directed_pairwise_goe``).

    Examples
    --------
    >>> ds = census(2, samples=1000)
    >>> int(ds.realizable.sel(n=2)), int(ds.goe_realizable.sel(n=2))
    (35, 13)
    """
    from hyst.catalogue.variables import describe

    if pairwise_sample and n != 3:
        raise ValueError(
            f"pairwise_sample: {pairwise_sample!r} is not allowed for n = {n} (it samples the "
            "full t-graphs of n = 3; n = 2 tests every one)"
        )
    exact = n <= tgraphs.EXACT_MAX_N
    if directed_pairwise and not exact:
        raise ValueError(
            f"directed_pairwise: True is not allowed for n = {n} (the pairwise census is exact, "
            f"n <= {tgraphs.EXACT_MAX_N})"
        )
    quiet = lambda _line: None  # noqa: E731
    records = []
    if exact:
        records = [
            study.census_record(
                n, pairwise_sample, False, seed, log=quiet, directed_pairwise=directed_pairwise
            )
        ]
    return describe(
        study.census_dataset(
            records, {n: study.sample_record(n, samples, seed, log=quiet)}, samples
        )
    )


def table(ds: xr.Dataset, fmt: str = "md") -> str:
    """The census table of a dataset of ``census`` (``fmt`` 'md' or 'tex').

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`census`.
    fmt : {"md", "tex"}, default "md"
        Markdown or LaTeX.

    Examples
    --------
    >>> print(table(census(2, samples=1000)).splitlines()[2])
    | scaffolds | 2 |
    """
    return study.census_tables(ds)[fmt]


def plot_shares(ds: xr.Dataset, points: xr.Dataset | None = None, **params):
    """The share of well-defined parameter space versus n, one curve per rule, next to the
    pairwise model's 1 − P_sl at large coupling when a points dataset (N, NJ0) is given
    (:func:`hyst.plotting.tgraphs.fig_tgraph_shares`); a matplotlib Figure.

    Parameters
    ----------
    ds : xarray.Dataset
        A dataset of :func:`census`.
    points : xarray.Dataset, optional
        A points dataset over (N, NJ0): the pairwise model's 1 − P_sl at large coupling.
    **params
        Keyword parameters of :func:`hyst.plotting.tgraphs.fig_tgraph_shares`.

    Examples
    --------
    >>> fig = plot_shares(census(2, samples=1000))
    >>> [ax.get_title(loc="left") for ax in fig.axes]
    ['(a) simple self-loops allowed', '(b) simple self-loops forbidden']
    """
    from hyst.plotting.tgraphs import fig_tgraph_shares

    return fig_tgraph_shares(ds, points, **params)
