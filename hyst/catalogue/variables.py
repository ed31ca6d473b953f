"""What every variable and coordinate of the datasets means: CF attributes generated from the
catalogue, for every dataset kind (points, pairs, networks, loops, and their analyses).

:func:`describe` gives each variable and coordinate ``long_name`` and ``description`` (and
``units`` where one applies) and the dataset CF ``Conventions``; :func:`undescribed` names
what still lacks them. The points datasets' variables come from the observables
(:data:`hyst.catalogue.OBSERVABLES`): an observable NAME and the variables derived from it
(``NAME_count``, ``NAME_trials``, ``NAME_stderr``, ``NAME_sum``, ``NAME_sumsq``, its
histogram's bins, its records' columns). Every other variable is declared once in
:data:`VARIABLES`. The pipeline describes the files it writes as datasets
(``results/datasets``, ``results/analysis``) when it writes them: this module is not imported
by :mod:`hyst.catalogue`, so a change to a description rewrites those files and recomputes no
sampled result.
"""

from __future__ import annotations

from dataclasses import dataclass

import xarray as xr

from hyst.catalogue import COUNT, HISTOGRAM, MEAN, OBSERVABLES, PROBABILITY, RECORDS

#: The CF conventions the datasets follow (attributes long_name, units; Conventions).
CONVENTIONS = "CF-1.10"
#: Units of a dimensionless number (CF and UDUNITS: "1").
DIMENSIONLESS = "1"
#: Units of fields (H, thresholds h_i^±, couplings c_ij, N J0): the model's fields are
#: dimensionless, measured in the unit the paper uses (:data:`FIELD_UNIT`), so "1".
FIELD = DIMENSIONLESS
#: What the unit of the field is, as every dataset states it (attribute ``field_unit``).
FIELD_UNIT = (
    "fields (H, thresholds h_i^+ and h_i^-, couplings c_ij, J0 and N J0) are dimensionless, "
    "in units of the half-width of the midpoint distribution h_i^c ~ U[-1, 1], as in the paper"
)


@dataclass(frozen=True)
class Variable:
    """A dataset variable or coordinate: its name, a short ``long_name``, a ``description``
    (definition, how it is measured), ``units`` ("" where none applies) and ``symbol``."""

    long_name: str
    description: str
    units: str = ""
    symbol: str = ""

    def attrs(self) -> dict:
        """The variable's netCDF attributes: long_name, description, and units and symbol where
        set."""
        out = {"long_name": self.long_name, "description": self.description}
        if self.units:
            out["units"] = self.units
        if self.symbol:
            out["symbol"] = self.symbol
        return out


def _field(text: str) -> Variable:
    return Variable(text, text, FIELD)


def _number(text: str, description: str = "") -> Variable:
    return Variable(text, description or text, DIMENSIONLESS)


def _label(text: str, description: str = "") -> Variable:
    return Variable(text, description or text)


#: Every variable and coordinate that is not an observable of a sampled point, by name.
VARIABLES: dict[str, Variable] = {
    # ---- the axes of a points dataset --------------------------------------------------------
    "couplings": _label(
        "coupling ensemble", "how the couplings c_ij are drawn (hyst.model.ensembles)"
    ),
    "spans": _label("span ensemble", "how the spans sigma_i = h_i^+ - h_i^- are drawn"),
    "rule": _label(
        "race-condition rule",
        "which unstable element flips when several are unstable: 0 ill-defined, 1 most "
        "unstable, 1p least unstable, 2 all at once",
    ),
    "N": _number("number of elements N", "number of hysterons (binary elements) of a system"),
    "NJ0": Variable(
        "coupling strength N J0",
        "N times the coupling scale J0 (couplings drawn in [-J0, J0])",
        FIELD,
        "N J0",
    ),
    "J0": Variable("coupling scale J0", "couplings c_ij are drawn in [-J0, J0]", FIELD, "J0"),
    "direction_asymmetry": _number(
        "direction asymmetry alpha",
        "direction-dependent couplings: the up thresholds take the couplings drawn, c+, the "
        "down thresholds c- = sqrt(1 - alpha^2) c+ + alpha c' with c' an independent draw of "
        "the same ensemble (0: the paper's model, c- = c+; 1: independent)",
    ),
    # ---- study kind pairs: N = 2 systems in the (c12, c21) plane ------------------------------
    "sigma": _field(
        "span sigma = h^+ - h^- (pairs: of both elements; networks: of each mapped element)"
    ),
    "pair": _number("pair index", "index of a sampled pair within its span"),
    "c12": _field("coupling c_12 (pairs: drawn in [-c_max, c_max]; networks: c_12 = -d_2)"),
    "c21": _field("coupling c_21 (pairs: drawn in [-c_max, c_max]; networks: c_21 = -d_1)"),
    "self_loop": _number(
        "pair self-loops",
        "1 if the pair has an L = 4 self-loop (some transition ends in it, rule 1), else 0",
    ),
    # ---- study kind networks, part planes: two bilinear elements in series, H = U ----------
    "panel": _label("panel", "a panel of the paper: the elements' x_i^- and x_i^+ fixed"),
    "d1": _field("jump d_1 of element 1 (d < 0: active)"),
    "d2": _field("jump d_2 of element 2 (d < 0: active)"),
    "element": _number("element", "element of the pair (1 or 2)"),
    "family": _label("self-loop family", "the self-loop families SL1-SL6 of two elements"),
    "x1_minus": _field("x_1^-: lower switching point of element 1"),
    "x1_plus": _field("x_1^+: upper switching point of element 1"),
    "x2_minus": _field("x_2^-: lower switching point of element 2"),
    "x2_plus": _field("x_2^+: upper switching point of element 2"),
    "h_plus": _field("mapped bare up threshold h_i^+ = 2 x_i^+ + d_i"),
    "h_minus": _field("mapped bare down threshold h_i^- = 2 x_i^- - d_i"),
    "attractor": _label(
        "family met by the dynamics",
        "the family's self-loop is met by a transition of the "
        "mapped system (mechanical scan, rule 1)",
    ),
    "in_graph": _label("family in the graph", "the family's cycle is in the transition graph"),
    "paper": _label("Supplemental's condition", "the Supplemental's condition of the family holds"),
    "exact": _label(
        "exact condition",
        "the exact condition of the family holds (Supplemental "
        "and the race inequalities R1-R4 for L = 4)",
    ),
    "other_cycle": _label("another cycle", "a self-loop outside the families SL1-SL6 is met"),
    "behaviour": _number(
        "Fig. 3d class",
        "1 (i) passive, 2 (ii) strongly active (a negative mapped span), "
        "3 (iii) weakly active without, 4 (iv) with an L = 4 self-loop",
    ),
    "intervals": _number("field intervals", "stability intervals of the cell's scan"),
    # ---- study kind networks, part chains: random serial chains of bilinear elements --------
    "phi": _number("active fraction phi", "probability that an element of a chain is active"),
    "active_fraction": _number(
        "active elements", "fraction of the sampled chains' elements that are active"
    ),
    "cross_checked": _number(
        "mechanically re-simulated chains",
        "chains whose mapped hysteron dynamics was "
        "checked against a mechanical simulation of the chain",
    ),
    "negative_span_probability": _number(
        "P(negative span)", "fraction of chains with an element whose mapped span is negative"
    ),
    "negative_span_probability_stderr": _number(
        "standard error of P(negative span)", "binomial standard error of negative_span_probability"
    ),
    "negative_span_probability_exact": _number(
        "P(negative span), exact",
        "exact probability 1 - (1 - phi p_N)^N that some active element maps to a negative span",
    ),
    "self_loop_probability_nonnegative_spans": _number(
        "P_sl (spans >= 0)", "P_sl among the chains whose mapped spans are all >= 0"
    ),
    "self_loop_probability_nonnegative_spans_stderr": _number(
        "standard error of P_sl (spans >= 0)",
        "binomial standard error of self_loop_probability_nonnegative_spans",
    ),
    "self_loop_L": _number(
        "self-loops by length", "chains' self-loops met in the P_sl transitions, by length L"
    ),
    "self_loop_n_e": _number(
        "self-loops by elements", "chains' self-loops met in the P_sl transitions, by n_e"
    ),
    "saturated_loop_L": _number(
        "saturated-loop self-loops by length",
        "transitions of the saturated loop ending in a self-loop, by its length L",
    ),
    "saturated_loop_n_e": _number(
        "saturated-loop self-loops by elements",
        "transitions of the saturated loop ending in a self-loop, by its n_e",
    ),
    # ---- study kind loops: fundamental self-loops per cell (n_e, L) ---------------------------
    "loop": _number(
        "stored loop", "one stored representative loop (cells of at most store_max loops)"
    ),
    "step": _number("step of a loop", "position along a loop's L steps"),
    "M": _number(
        "M",
        "fundamental self-loops of n_e elements and length L, up to relabelling "
        "and time shift (enumeration; -1: not computed)",
    ),
    "M_burnside": _number("M (Burnside)", "M counted by Burnside's lemma (-1: not computed)"),
    "M_paper": _number("M (paper)", "the paper's M (-1: not in the paper)"),
    "M_R_paper": _number("M_R (paper)", "the paper's M_R (-1: not in the paper)"),
    "M_W_paper": _number("M_W (paper)", "the paper's M_W (-1: not in the paper)"),
    "loop_n_e": _number("n_e of the loop", "elements flipping in the stored loop"),
    "loop_L": _number("L of the loop", "length (states) of the stored loop"),
    "loop_start": _number("start state", "bitmask of the loop's first state"),
    "loop_flips": _number("flips", "element flipped at each step (-1: beyond L)"),
    # ---- study kind tgraphs: t-graphs of the general model (switching fields per state) -----
    "n": _number("hysterons n", "number of hysterons of the exact census"),
    "n_sampled": _number("hysterons n (sampled)", "number of hysterons of the sampled shares"),
    "definition": _label(
        "well-defined t-graph: definition",
        "all_states_stable: every transition ends in a stable state and every state has a "
        "stability interval (Teunisse & van Hecke's); all_transitions: every transition, "
        "stability not asked (make_graph of hysteron-tgraphs); stable_states: the transitions "
        "of states with a stability interval; reachable: the transitions of the states "
        "reachable from the all-down state (the Garden-of-Eden-reduced graph)",
    ),
    "simple_self_loops": _label(
        "simple self-loops",
        "allowed, or forbidden: only total orders with U_i^+(S) > U_i^-(S + i) for all S, i",
    ),
    "sampled_what": _label(
        "what a sample counts",
        "a definition of a well-defined t-graph, or self_loop / race (some transition ends "
        "in a self-loop / a rule-0 race condition), ties (equal fields met)",
    ),
    "scaffolds": _number("scaffolds", "scaffolds up to relabelling the hysterons"),
    "candidates": _number(
        "candidate t-graphs", "rule-0 avalanche combinations of all scaffolds (no self-loop)"
    ),
    "realizable": _number(
        "realizable t-graphs", "candidates whose design inequalities are consistent"
    ),
    "goe_realizable": _number(
        "realizable reduced t-graphs", "distinct realizable Garden-of-Eden-reduced t-graphs"
    ),
    "branches": _number("search branches", "options tried by the census's depth-first search"),
    "pruned": _number("pruned branches", "branches cut for a cycle in the design order"),
    "pairwise_full": _number(
        "pairwise-realizable t-graphs",
        "of the pairwise_full_of realizable t-graphs tested (all for n = 2, a uniform "
        "sample for n = 3), those pairwise hysterons realize (LP, re-resolved)",
    ),
    "pairwise_full_of": _number("t-graphs tested", "realizable t-graphs given to the pairwise LP"),
    "pairwise_goe": _number(
        "pairwise-realizable reduced t-graphs",
        "Garden-of-Eden-reduced t-graphs pairwise hysterons realize (-1: not tested)",
    ),
    "directed_pairwise_full": _number(
        "t-graphs realizable with direction-dependent couplings",
        "of the same pairwise_full_of t-graphs, those pairwise hysterons with direction-"
        "dependent couplings (c+ != c-) realize (LP, re-resolved)",
    ),
    "directed_pairwise_goe": _number(
        "reduced t-graphs realizable with direction-dependent couplings",
        "Garden-of-Eden-reduced t-graphs pairwise hysterons with direction-dependent "
        "couplings realize (-1: not tested)",
    ),
    "weight_full": _label(
        "summed weight of the t-graphs",
        "sum of the linear extensions of every realizable t-graph (decimal; -1: not "
        "computed); equals orders_good for all_states_stable, rule 0",
    ),
    "orders_good": _label(
        "well-defined total orders",
        "total orders of the switching fields, up to relabelling, with a well-defined "
        "t-graph (decimal; empty: not counted exactly)",
    ),
    "orders_total": _label(
        "total orders",
        "total orders up to relabelling ((n 2^n)!/n!, over 2^(n 2^(n-1)) "
        "when simple self-loops are forbidden; decimal)",
    ),
    "share_exact": _number("share (exact)", "orders_good / orders_total (NaN: not counted)"),
    "sampled": _number(
        "samples counted",
        "random sets of switching fields (of the attribute samples) that count, by what",
    ),
    # ---- coordinates of an analysis dataset (hyst.analysis) -----------------------------------
    "collapse_a_grid": _number(
        "collapse exponent a (grid)",
        "trial exponents a of the collapse of the curves versus "
        "N^a J0 (collapse_q: its quality at each a)",
    ),
    # ---- study kind races: the flip-time rule and random order --------------------------------
    "flip_time_decades": _number(
        "flip-time spread D (decades)",
        "flip times tau_i = 10^(D u_i), u_i uniform in [0, 1), one u_i per element drawn once "
        "per system; the unstable element with the largest margin / tau_i flips first (D = 0: "
        "rule 1)",
    ),
    "random_order_systems": _number(
        "systems relaxed under random order",
        "the first systems of the point, every transition out of every potentially stable "
        "state relaxed with each unstable element equally likely to flip next",
    ),
    "random_order_trappable": _number(
        "systems random order can trap",
        "of random_order_systems: those with a transition that can end in a trap (a closed "
        "set of unstable states, reached with probability > 0; decided exactly)",
    ),
    "random_order_trap_probability": _number(
        "mean trap probability",
        "the probability of never settling, averaged over each system's transitions and then "
        "over random_order_systems (absorbing Markov chain, float64, within 1e-9)",
    ),
    "random_order_max_trap_probability": _number(
        "mean largest trap probability",
        "each system's largest trap probability of a transition, averaged over "
        "random_order_systems",
    ),
    "random_order_rule1_self_loop": _number(
        "systems with a rule-1 self-loop",
        "of random_order_systems: those where some transition ends in a self-loop under rule 1 "
        "(P_sl's definition)",
    ),
    "random_order_trappable_and_self_loop": _number(
        "trappable systems with a rule-1 self-loop",
        "of random_order_systems: those random order can trap that also have a rule-1 self-loop",
    ),
}

#: The columns of the records of :data:`hyst.catalogue.OBSERVABLES` (kind records), by
#: column name: what one record's column holds.
RECORD_COLUMNS: dict[str, Variable] = {
    "system": _number("sample index", "index of the system within its point (0-based)"),
    "branch": _number(
        "branch", "where the loop was met: 0 the enumeration, 1 the up branch, -1 down"
    ),
    "returning": _number("on a return", "1 if met on a return from a turning point, else 0"),
    "loop_number": _number("loop index", "index of the loop within its system"),
    "c_kl": _field("coupling c_kl of the loop's two elements k < l"),
    "c_lk": _field("coupling c_lk of the loop's two elements k < l"),
    "h_tilde_k": Variable(
        "rescaled midpoint of element k",
        "midpoint of k's thresholds in the loop's state, rescaled",
        FIELD,
    ),
    "h_tilde_l": Variable(
        "rescaled midpoint of element l",
        "midpoint of l's thresholds in the loop's state, rescaled",
        FIELD,
    ),
    "sigma_k": _field("span sigma_k = h_k^+ - h_k^- of element k"),
    "sigma_l": _field("span sigma_l = h_l^+ - h_l^- of element l"),
}


#: The realizability variants of a loops dataset (dataset name: what realizes the loops).
REALIZABILITY = {
    "M_R": "pairwise interactions, spans of either sign",
    "M_W": "weak asymmetry c_ij c_ji >= 0 and spans h^+ >= h^-",
    "M_R_positive_spans": "pairwise interactions, spans h^+ >= h^-",
    "M_W_any_spans": "weak asymmetry c_ij c_ji >= 0, spans of either sign",
}


def _realizability() -> dict[str, Variable]:
    out = {}
    for name, how in REALIZABILITY.items():
        out[name] = _number(
            name,
            f"fundamental self-loops realizable with {how} (linear "
            "programs, re-simulated; -1: not checked)",
        )
        out[f"{name}_failed"] = _number(
            f"{name} failures",
            f"loops whose check for {name} failed (rounding, simulation, certificate, LP)",
        )
        out[f"{name}_lps"] = _number(f"{name} LPs", f"linear programs solved for {name}")
        out[f"loop_status_{name}"] = _number(
            f"status ({name})",
            "1 feasible, 0 infeasible, -1..-4 a failed check, -9 not "
            "checked (the dataset's status_codes attribute)",
        )
        out[f"loop_lps_{name}"] = _number(f"LPs ({name})", "linear programs of this loop")
        out[f"loop_support_{name}"] = _number(
            f"certificate size ({name})", "size of the loop's LP certificate (support)"
        )
    return out


def _units(o) -> str:
    """The CF units of an observable's variables: every observable of the model is a
    dimensionless number (a probability, a fraction, a count, a mean of counts, a field)."""
    return DIMENSIONLESS


def _what(o) -> str:
    """An observable's description, with what it counts where its catalogue entry says
    (e.g. "in flips"): CF units are "1", the thing counted is said in words."""
    counted = o.units and o.kind != PROBABILITY and o.units not in ("probability", "field units")
    return f"{o.description} (in {o.units})" if counted else o.description


def _observable_variables() -> dict[str, Variable]:
    """The variables a points dataset derives from each observable of the catalogue."""
    out: dict[str, Variable] = {}
    for o in OBSERVABLES:
        name, what, sym = o.name, _what(o), o.symbol or o.name
        units = _units(o)
        if o.kind in (PROBABILITY, MEAN):
            estimate = "probability" if o.kind == PROBABILITY else "mean"
            out[name] = Variable(f"{sym} ({estimate})", what, units, sym)
            out[f"{name}_trials"] = _number(
                f"trials of {sym}", f"samples that count as trials of {sym}: {what}"
            )
            error = (
                "binomial standard error sqrt(p(1-p)/n)"
                if o.kind == PROBABILITY
                else "standard error of the mean"
            )
            out[f"{name}_stderr"] = Variable(
                f"standard error of {sym}", f"{error} of {sym}: {what}", units
            )
        if o.kind == PROBABILITY:
            out[f"{name}_count"] = _number(
                f"events of {sym}", f"samples where the event of {sym} occurred: {what}"
            )
        if o.kind == MEAN:
            out[f"{name}_sum"] = Variable(f"sum of {sym}", f"sum over the trials: {what}", units)
            out[f"{name}_sumsq"] = Variable(
                f"sum of squares of {sym}", f"sum of squares over the trials: {what}", units
            )
        if o.kind == HISTOGRAM:
            out[name] = Variable(f"histogram of {o.dim}", what, DIMENSIONLESS)
        if o.kind == COUNT:
            out[name] = _number(name.replace("_", " "), what)
        if o.kind == RECORDS:
            for column, v in RECORD_COLUMNS.items():
                if column in o.record_dtypes:
                    out[f"{name}_{column}"] = Variable(
                        v.long_name, f"{v.description} (records {name}: {what})", v.units
                    )
    return out


def _dimensions() -> dict[str, Variable]:
    """Coordinates of histogram bins and record dimensions."""
    out = {}
    for o in OBSERVABLES:
        if o.kind == HISTOGRAM:
            text = f"the value of {o.dim} a bin counts ({o.description})"
            out[o.dim] = _number(f"{o.dim} (bin)", text)
        elif o.kind == RECORDS:
            out[o.dim] = _number(f"{o.name} record", f"one record of {o.name}: {o.description}")
    return out


#: Every name a dataset may hold: observables, their derived variables, the table above.
ALL: dict[str, Variable] = {
    **_dimensions(),
    **_observable_variables(),
    **_realizability(),
    **VARIABLES,
}


def variable(name: str) -> Variable | None:
    """What the variable or coordinate ``name`` is (None: not declared)."""
    if name in ALL:
        return ALL[name]
    for o in OBSERVABLES:  # a record's index into an axis: <records>_<axis>_index
        prefix = f"{o.name}_"
        if o.kind == RECORDS and name.startswith(prefix) and name.endswith("_index"):
            axis = name[len(prefix) : -len("_index")]
            if axis in VARIABLES:
                return _number(
                    f"index into {axis}",
                    f"index of the record's point along {axis} (into the coordinate {axis})",
                )
    return None


def describe(ds: xr.Dataset) -> xr.Dataset:
    """Give every variable and coordinate of ``ds`` that is declared its attributes
    (``long_name``, ``description``, ``units`` where one applies: the catalogue's, over
    any the variable has; its other attributes are kept), and the dataset
    ``Conventions``; returns ``ds`` (changed in place)."""
    for name, var in ds.variables.items():  # the variables themselves, no DataArray built
        v = variable(str(name))
        if v is not None:
            var.attrs = {**var.attrs, **v.attrs()}
    ds.attrs["Conventions"] = CONVENTIONS
    ds.attrs["field_unit"] = FIELD_UNIT
    return ds


def describe_single(ds: xr.Dataset, long_names: dict[str, str] | None = None) -> xr.Dataset:
    """CF attributes of a dataset about single systems (what :class:`hyst.System`, the batch
    drives and ``hyst system`` return): ``long_names`` for the variables named there (each
    variable keeps a long_name it has), every number in units "1" (the model's fields,
    counts and magnetisations are dimensionless; the field's unit is stated once, as
    ``field_unit``), and ``Conventions``. Returns ``ds`` (changed in place)."""
    for name, var in ds.variables.items():
        if long_names and name in long_names:
            var.attrs.setdefault("long_name", long_names[name])
        if var.dtype.kind in "iuf":
            var.attrs["units"] = DIMENSIONLESS
    ds.attrs["Conventions"] = CONVENTIONS
    ds.attrs["field_unit"] = FIELD_UNIT
    return ds


def undescribed(ds: xr.Dataset) -> list[str]:
    """The variables and coordinates of ``ds`` without ``long_name`` or ``description``."""
    return sorted(
        str(n)
        for n, var in ds.variables.items()
        if not {"long_name", "description"} <= set(var.attrs)
    )


__all__ = [
    "CONVENTIONS",
    "VARIABLES",
    "Variable",
    "describe",
    "describe_single",
    "undescribed",
    "variable",
]
