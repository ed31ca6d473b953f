"""Figure types: what each figure draws and what it needs from the studies that feed it.

A figure of the configuration (``figures: {name: {type, studies, params}}``)
binds a figure *type* to studies, one per :class:`Need` of the type, in order.
A need says which kind of study it takes and what its dataset must hold (the
swept coupling axis, the observable groups); the configuration is checked
against the needs before any job runs, so renaming a study without updating a
binding fails at once with one line. Drawing functions are imported only when
a figure is rendered (this module does not import matplotlib).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field

from hyst.plotting.figure_params import params_problem
from hyst.studies.needs import Need


@dataclass(frozen=True)
class FigureType:
    """A figure type: its drawing function ("module:function", called with one dataset per
    need, ``analysis=`` and the binding's params), a description and its needs."""

    name: str
    draw: str
    description: str
    needs: tuple[Need, ...]
    params: dict = field(default_factory=dict)

    @property
    def module(self) -> str:
        """The module of the drawing function (imported by name when a figure is drawn)."""
        return self.draw.split(":")[0]

    def function(self) -> Callable:
        """The drawing function of the figure type, imported from its ``module:function`` string."""
        return pkgutil.resolve_name(self.draw)


def _sweep_need(what: str, groups, sweep="NJ0", **kw) -> Need:
    return Need(what, sweep=sweep, groups=tuple(groups), **kw)


_PANELS = ("(a)", "(b)", "(c)")
_SWEEPS = "hyst.plotting.sweeps"
_LARGE = "hyst.plotting.large_systems"
_L4 = "hyst.plotting.l4"
_NETWORKS = "hyst.plotting.networks"
_PLANES = Need("a networks study with part: planes", kind="networks", groups=("planes",))
_CHAINS = Need("a networks study with part: chains", kind="networks", groups=("chains",))
_LOOPS = "hyst.plotting.loops"

FIGURE_TYPES: dict[str, FigureType] = {
    t.name: t
    for t in (
        FigureType(
            "gaps_and_self_loops",
            f"{_SWEEPS}:fig_gaps_and_self_loops",
            "Fig. 2 and its Supplemental replicas: P_g^0, f_G, P_sl^0, P_sl vs N J0, one curve "
            "per N, the paper's small-coupling slopes dashed, inset 1 - P_sl vs N; (c) shows "
            "P_sl^0 from any of the 2^N states (solid) and from one random start (dashed)",
            (
                _sweep_need(
                    "a points study over N and NJ0 with the zero_field and transitions groups",
                    ("zero_field", "transitions"),
                ),
            ),
        ),
        FigureType(
            "race_conditions",
            f"{_SWEEPS}:fig_race_conditions",
            "Supplemental: race-condition probability P_RC vs N J0, three panels (spins, "
            "hysterons, equal spans in the paper), slope 2",
            tuple(
                _sweep_need(
                    f"panel {p}: a points study over N and NJ0 with avalanches", ("avalanche",)
                )
                for p in _PANELS
            ),
        ),
        FigureType(
            "stable_states",
            f"{_SWEEPS}:fig_stable_states",
            "Supplemental: fraction of potentially stable states P_s 2^N/(N+1) vs N J0, three "
            "panels (spins, hysterons, equal spans in the paper)",
            tuple(
                _sweep_need(
                    f"panel {p}: a points study over N and NJ0 with zero_field", ("zero_field",)
                )
                for p in _PANELS
            ),
        ),
        FigureType(
            "gap_vs_self_loops",
            f"{_SWEEPS}:fig_gap_vs_self_loops",
            "Supplemental: P_sl^0 vs P_g^0 at H = 0 (one point per N J0, y = x dashed), three "
            "panels (spins, hysterons, equal spans in the paper); P_sl^0 from any of the 2^N "
            "states (filled, the Supplemental's definition) and from one random start (open)",
            tuple(
                _sweep_need(
                    f"panel {p}: a points study over N and NJ0 with zero_field", ("zero_field",)
                )
                for p in _PANELS
            ),
        ),
        FigureType(
            "rules",
            f"{_SWEEPS}:fig_rules",
            "Supplemental: race-condition rules: P_sl vs N J0 per rule (inset 1 - P_sl vs N; "
            "rule 0: among the well-defined instances, all instances dashed) and self-loop "
            "length distributions",
            (
                _sweep_need(
                    "a points study over rules, N and NJ0 with transitions", ("transitions",)
                ),
                Need(
                    "a points study with transitions for the length distributions",
                    groups=("transitions",),
                    optional=True,
                ),
            ),
        ),
        FigureType(
            "rule2_self_loops",
            f"{_SWEEPS}:fig_well_behaved_rule2",
            "Supplemental: well-behaved ensembles under rule 2: P_sl vs N J0 (inset 1 - P_sl "
            "vs N), one panel per coupling ensemble, and the self-loop length histograms "
            "(the paper: L = 2 only)",
            (_sweep_need("a points study over N and NJ0 with transitions", ("transitions",)),),
        ),
        FigureType(
            "self_loop_free_versus_n",
            f"{_SWEEPS}:fig_self_loop_free_versus_n",
            "Beyond the paper's N = 10: P_sl vs N J0 for larger N (one panel per span "
            "ensemble, the paper's slope dashed) and Fig. 2's inset extended: 1 - P_sl vs N at "
            "N J0 = 100 and 10 with exponential fits and their decay lengths xi",
            (
                _sweep_need(
                    "a points study over span ensembles, N and NJ0 with any_self_loop",
                    ("any_self_loop",),
                ),
            ),
        ),
        FigureType(
            "local_slopes",
            "hyst.plotting.slopes:fig_local_slopes",
            "Local slopes d ln P / d ln(N J0) versus N J0 per N, with each N's fit window, "
            "the pooled small-coupling exponent and the paper's slope: crossovers show as steps",
            (_sweep_need("a points study over N and NJ0", ()),),
        ),
        FigureType(
            "l4_pairs",
            f"{_L4}:fig_pairs_l4",
            "Supplemental: L = 4 self-loops of N = 2 elements in the (c12, c21) plane per span "
            "sigma, with the analytic region",
            (Need("a pairs study", kind="pairs"),),
        ),
        FigureType(
            "l4_large",
            f"{_L4}:fig_large_l4",
            "Supplemental: L = 4 self-loops in large systems in the rescaled (c_kl, c_lk)/Delta "
            "h~ plane, one panel per span ensemble, with the N = 2 spin region",
            (
                Need(
                    "a points study with the saturated_loop group storing l4 records",
                    groups=("saturated_loop",),
                    records=("l4",),
                ),
            ),
        ),
        FigureType(
            "networks_fig3",
            f"{_NETWORKS}:fig3_networks",
            "Main Fig. 3: (a, b) force-displacement curves of a passive and an active element, "
            "(c) the gap of an active element with a spring, (d) the two L = 4 loops; (e) the "
            "four classes of two serial elements in the (d1, d2) plane (passive region hatched, "
            "the outline of every L = 4 loop green, also inside class (ii)), (f) the L = 4 "
            "regions of two hysterons (sigma = 0 green, its edge at the spans of the red dot's "
            "elements red); in (e) and (f) the orange line d1 = d2 < 0 marks active elements "
            "that map to symmetric couplings c_ij. One legend below names every region, line "
            "and the red dot",
            (_PLANES,),
        ),
        FigureType(
            "bilinear_curves",
            f"{_NETWORKS}:fig_element_curves",
            "Supplemental: force-displacement curves for d_i = -2, -0.5, 0.5, 1 at x^-+ = -1, 1; "
            "the force range with no stable branch under force control shaded",
            (_PLANES,),
        ),
        FigureType(
            "spin_like_elements",
            f"{_NETWORKS}:fig_spin_like",
            "Supplemental: self-loop families of two spin-like elements in the (d1, d2) plane "
            "for x_2^c = 0.5, 1, 2 (scan filled, the Supplemental's conditions dashed), and the "
            "switching fields with the transition graphs at d_i = +-2",
            (_PLANES,),
        ),
        FigureType(
            "hysteretic_elements",
            f"{_NETWORKS}:fig_hysteretic",
            "Supplemental: self-loop families of two hysteretic elements, rows (a)-(d) varying "
            "x_2^+, x_2^c, sigma_2^0, sigma_1^0; the Supplemental's boundaries dashed, cells "
            "where they disagree with the scan hatched red",
            (_PLANES,),
        ),
        FigureType(
            "self_loop_conditions",
            f"{_NETWORKS}:fig_summary",
            "Supplemental summary: self-loop families for x_1^-+ = -1, 1, x_2^-+ = 0.5, 0.75 with "
            "the lines d_i = -sigma_i^0 and d_i = W of the analytic conditions",
            (_PLANES,),
        ),
        FigureType(
            "symmetric_elements",
            f"{_NETWORKS}:fig_symmetric",
            "Supplemental: symmetric elements d1 = d2 = d: self-loops along the diagonal and the "
            "switching fields with the transition graphs at d = -1, -0.5, 0.1",
            (_PLANES,),
        ),
        FigureType(
            "random_chains",
            f"{_NETWORKS}:fig_chains",
            "Beyond the paper: random serial chains, P_sl versus the active fraction phi for "
            "several N with the exact negative-span probability, P_g^0, and the share of "
            "self-loops with more than one flipping element",
            (_CHAINS,),
        ),
        FigureType(
            "avalanches_and_transients",
            f"{_LARGE}:fig_large_n",
            "Main Fig. 4: mean avalanche size <A> and transient <tau> vs N J0 for constant "
            "columns and symmetric couplings (rule 1), constant columns under the other rules "
            "(0: no race conditions, 1': least unstable first) and the max <A> vs N inset",
            (
                _sweep_need(
                    "a points study over N and J0 with avalanches and the cyclic drive",
                    ("avalanche", "cyclic"),
                    sweep="J0",
                ),
                *(
                    _sweep_need(
                        "a points study of constant columns over N and J0 with avalanches under "
                        "another rule",
                        ("avalanche",),
                        sweep="J0",
                        optional=True,
                    )
                    for _ in range(2)
                ),
            ),
        ),
        FigureType(
            "avalanche_distributions",
            f"{_LARGE}:fig_avalanche_distributions",
            "Supplemental: avalanche-size distributions at the largest N for every J0, and <A> "
            "vs N J0 (symmetric, constant columns, constant rows), max <A> vs N inset in (e)",
            (
                _sweep_need(
                    "a points study over J0 with avalanches (distributions)",
                    ("avalanche",),
                    sweep="J0",
                ),
                _sweep_need(
                    "a points study over N and J0 with avalanches", ("avalanche",), sweep="J0"
                ),
            ),
        ),
        FigureType(
            "tgraph_shares",
            "hyst.plotting.tgraphs:fig_tgraph_shares",
            "General-model t-graphs (Teunisse & van Hecke): the share of random switching "
            "fields with a well-defined t-graph versus n per race-condition rule, simple "
            "self-loops allowed and forbidden, next to the pairwise model's 1 - P_sl at "
            "N J0 = 100 versus N",
            (
                Need("a tgraphs study", kind="tgraphs"),
                _sweep_need(
                    "a points study over N and NJ0 (random couplings, hysterons, rule 1)",
                    (),
                    optional=True,
                ),
            ),
        ),
        FigureType(
            "multiperiodic_orbits",
            "hyst.plotting.multiperiodic:fig_multiperiodic",
            "Multiperiodic orbits versus N J0 per N: P(T > 1) of the symmetric cyclic drive "
            "+-A from saturation at some amplitude (Keim & Paulsen 2021, here in the paper's "
            "ensembles and rules) and P(a self-loop stops the drive first), one column per "
            "ensemble (random hysterons, random spins, symmetric, constant columns, constant "
            "rows)",
            (
                _sweep_need(
                    "a points study over ensembles, N and NJ0 with multiperiodic",
                    ("multiperiodic",),
                ),
            ),
        ),
        FigureType(
            "cyclic_drive",
            f"{_LARGE}:fig_cyclic_drive",
            "Supplemental: cyclic drive, transient <tau> and period <T> vs J0 (symmetric, "
            "constant columns, constant rows)",
            (
                _sweep_need(
                    "a points study over N and J0 with the cyclic drive", ("cyclic",), sweep="J0"
                ),
            ),
        ),
        FigureType(
            "fundamental_loops",
            f"{_LOOPS}:fig_fundamental_loops",
            "Supplemental: the fundamental self-loops of L = 4 and L = 6 and a sample of L = 8, "
            "states by magnetisation, up transitions blue, down red",
            (Need("a loops study storing the L = 4, 6 and 8 representatives", kind="loops"),),
        ),
        FigureType(
            "designed_addressability",
            "hyst.plotting.designed:fig_addressability",
            "What one drive cycle from saturation addresses: P(all 2^N states addressable) "
            "and the share of the 2^N states addressable in one cycle (and reachable by any "
            "field history) against N, one curve per N J0, one column per ensemble; 0 of n "
            "drawn as the upper bound 3/n",
            (
                _sweep_need(
                    "a points study over ensembles, N and NJ0 with addressability",
                    ("addressability",),
                ),
                _sweep_need(
                    "a points study of larger N with addressability",
                    ("addressability",),
                    optional=True,
                ),
            ),
        ),
        FigureType(
            "designed_periods",
            "hyst.plotting.designed:fig_periods",
            "Periods of the symmetric cyclic drive: P(T = k) at some amplitude against N J0 "
            "for several N, odd k marked",
            (
                _sweep_need("a points study over N and NJ0 with periods", ("periods",)),
                _sweep_need("a points study of larger N with periods", ("periods",), optional=True),
            ),
        ),
        FigureType(
            "designed_odd_periods_and_memory",
            "hyst.plotting.designed:fig_odd_periods_and_memory",
            "P(odd T >= 3) of the symmetric cyclic drive and return-point memory P_RPM "
            "against N at one N J0, one curve per ensemble; 0 of n drawn as the upper bound "
            "3/n",
            (
                _sweep_need(
                    "a points study over ensembles, N and NJ0 with periods and multiperiodic",
                    ("periods", "multiperiodic"),
                ),
                _sweep_need(
                    "a points study of larger N with periods and multiperiodic",
                    ("periods", "multiperiodic"),
                    optional=True,
                ),
            ),
        ),
        FigureType(
            "flip_time_spread",
            "hyst.plotting.races:fig_flip_time_spread",
            "Race conditions settled by speed: P_sl, P_RC over the transitions and P_RC of the "
            "first flip against the flip-time spread (decades) at one N J0, one curve per N; "
            "spread 0 is rule 1",
            (Need("a races study", kind="races", groups=("transitions", "avalanche")),),
        ),
        FigureType(
            "random_order_traps",
            "hyst.plotting.races:fig_random_order_traps",
            "Race conditions settled at random: the share of systems random order can trap "
            "against rule 1's P_sl, and the trap share with and without a rule-1 self-loop "
            "against N J0",
            (
                Need(
                    "a races study with random_order_samples > 0",
                    kind="races",
                    groups=("random_order",),
                ),
            ),
        ),
        FigureType(
            "self_loops_by_asymmetry",
            "hyst.plotting.direction_dependent:fig_self_loops_by_asymmetry",
            "Direction-dependent couplings: P_sl vs N J0, one curve per direction asymmetry "
            "alpha (0: the paper's model, 1: independent c+ and c-), one panel per couplings "
            "and spans, at one N (params N; default the largest)",
            (
                _sweep_need(
                    "a points study over N, direction_asymmetry and NJ0 with the transitions group",
                    ("transitions",),
                    axes=("direction_asymmetry",),
                ),
            ),
        ),
    )
}


def binding_problem(figure: str, binding: dict, studies: dict, kind_of) -> str | None:
    """One line saying what is wrong with a figure's binding (None if nothing is)."""
    ftype = FIGURE_TYPES[binding["type"]]
    problem = params_problem(figure, ftype.name, ftype.draw, binding.get("params", {}))
    if problem:
        return problem
    bound = binding["studies"]
    required = [n for n in ftype.needs if not n.optional]
    if not len(required) <= len(bound) <= len(ftype.needs):
        count = (
            str(len(required))
            if len(required) == len(ftype.needs)
            else f"{len(required)} to {len(ftype.needs)}"
        )
        wants = "; ".join(n.what for n in ftype.needs)
        return (
            f"figures.{figure}.studies: {bound!r} binds {len(bound)} studies; type "
            f"{ftype.name} needs {count} ({wants})"
        )
    for i, (name, need) in enumerate(zip(bound, ftype.needs, strict=False)):
        key = f"figures.{figure}.studies[{i}]"
        if name not in studies:
            return (
                f"{key}: {name!r} is not a study of this configuration "
                f"(studies: {', '.join(sorted(studies))})"
            )
        kind = kind_of(studies[name])
        problem = need.problem(name, studies[name], kind, kind.sweep(studies[name]))
        if problem:
            return f"{key}: {problem}"
    return None
