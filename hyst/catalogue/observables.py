"""The table of observables: each one declared once (see :mod:`hyst.catalogue`)."""

from __future__ import annotations

import numpy as np

from hyst.catalogue.declarations import (
    COUNT,
    HISTOGRAM,
    MEAN,
    PROBABILITY,
    RECORDS,
    Observable,
    PaperSlope,
    PaperValue,
    Scaling,
)
from hyst.kernels.codes import (
    FOUND_REACHABLE,
    ILL_DEFINED,
    NOT_CONVERGED,
    ORBIT,
    SELF_LOOP,
    SOURCE_RETURN_UP,
    STABLE,
)

# ---- measuring helpers ------------------------------------------------------------------------


def _bincount(values, minlength=1) -> np.ndarray:
    return np.bincount(np.asarray(values, np.int64), minlength=minlength)


def _summed(*keys):
    """Count: the sum over the samples of whichever of ``keys`` the decoded call provides."""

    def measure(d):
        present = [k for k in keys if k in d]
        return int(sum(int(np.sum(d[k])) for k in present)) if present else None

    return measure


def _stable_avalanche(d):
    return d["avalanche_outcome"] == STABLE


def _orbit(d):
    return d["drive_outcome"] == ORBIT


def _some_self_loop(d):
    """Some transition out of a potentially stable state self-loops: from the enumeration
    when it ran (group transitions), else from the self-loop search (any_self_loop)."""
    if "n_self_loop_transitions" in d:
        return d["n_self_loop_transitions"] > 0
    return d["search_self_loop"] == 1


# ---- paper facts --------------------------------------------------------------------------------

_FIG2 = "Fig. 2 (randomly coupled hysterons, sigma ~ U[0, 0.5])"
_SPINS = "Supplemental, randomly coupled spins"
_WEAK = "Supplemental, weak asymmetry"
_RC = "Supplemental, statistics of race conditions"
_RULES = "Supplemental, race-condition rules (rule 0: the ill-defined instances discarded)"


def _slopes(random_hysteron, spin=None, weak=None) -> tuple[PaperSlope, ...]:
    out = [PaperSlope(random_hysteron, "random", "hysteron", source=_FIG2)]
    if spin is not None:
        out.append(PaperSlope(spin, "random", "spin", source=_SPINS))
    if weak is not None:
        out.append(PaperSlope(weak, "weak", "hysteron", source=_WEAK))
    return tuple(out)


def _psl_values() -> tuple[PaperValue, ...]:
    text = "Supplemental: self-loops at N = 10, N J0 = 10^2"
    return (
        PaperValue(
            0.998, "random", "spin", "1", 10, 100.0, f"{text} (spins)", explanation="roundoff"
        ),
        PaperValue(0.985, "random", "hysteron", "1", 10, 100.0, f"{text} (hysterons)"),
        PaperValue(0.983, "random", "equal", "1", 10, 100.0, f"{text} (equal spans)"),
        PaperValue(
            0.14,
            "weak",
            "hysteron",
            "1",
            10,
            100.0,
            "main text: weak asymmetry",
            approximate=True,
            explanation="weak_plateau",
        ),
    )


# ---- the catalogue ------------------------------------------------------------------------------

_TRANSITIONS, _ZERO, _AVALANCHE, _CYCLIC, _SATURATED, _ANY, _FLOAT64 = (
    "transitions",
    "zero_field",
    "avalanche",
    "cyclic",
    "saturated_loop",
    "any_self_loop",
    "float64",
)

OBSERVABLES: tuple[Observable, ...] = (
    # ---- zero_field: the dynamics at H = 0 and the stability ranges --------------------------
    Observable(
        "potentially_stable_fraction",
        MEAN,
        (_ZERO,),
        "P_s: fraction of the 2^N states that are potentially stable, H^-(S) < H^+(S)",
        lambda d: d["n_potentially_stable"].astype(np.float64) / 2.0 ** d["N"],
        symbol="P_s",
        label=r"$P_s$",
        units="fraction of the 2^N states",
    ),
    Observable(
        "potentially_stable_over_spins",
        MEAN,
        (_ZERO,),
        "P_s 2^N/(N+1): potentially stable states per the N + 1 of binary spins",
        lambda d: d["n_potentially_stable"].astype(np.float64) / (d["N"] + 1),
        symbol="P_s 2^N/(N+1)",
        label=r"$P_s\,2^N/(N+1)$",
        units="states per (N + 1)",
        scaling=Scaling(power_law=False, collapse_max_value=None),
    ),
    Observable(
        "potentially_stable_count_hist",
        HISTOGRAM,
        (_ZERO,),
        "systems by their number of potentially stable states (H^-(S) < H^+(S))",
        lambda d: _bincount(d["n_potentially_stable"]),
        dim="n_potentially_stable",
        units="systems",
    ),
    Observable(
        "gap_probability_at_zero",
        PROBABILITY,
        (_ZERO,),
        "P_g^0: no state is stable at H = 0 (a gap at zero field)",
        lambda d: d["n_stable_at_zero"] == 0,
        symbol="P_g^0",
        label=r"$P_g^0$",
        units="probability",
        scaling=Scaling(),
        paper_slopes=_slopes(4, spin=2, weak=5),
    ),
    Observable(
        "gap_fraction",
        MEAN,
        (_ZERO,),
        "f_G: fraction of [H^+(-...-), H^-(+...+)] covered by no state's stability range "
        "(0 when the saturated ranges overlap)",
        lambda d: d["gap_fraction"],
        symbol="f_G",
        label=r"$f_G$",
        units="fraction of [H+(-...-), H-(+...+)]",
        scaling=Scaling(),
        paper_slopes=_slopes(4, spin=2, weak=4),
    ),
    Observable(
        "self_loop_probability_at_zero",
        PROBABILITY,
        (_ZERO,),
        "P_sl^0 (Supplemental definition): the H = 0 dynamics has a cycle reachable from some "
        "of the 2^N states",
        lambda d: d["self_loop_at_zero_any"] == 1,
        symbol="P_sl^0",
        label=r"$P_{sl}^0$",
        units="probability",
        scaling=Scaling(),
        paper_slopes=_slopes(4, spin=2, weak=5),
    ),
    Observable(
        "self_loop_probability_at_zero_random_start",
        PROBABILITY,
        (_ZERO,),
        "P_sl^0 (main-text variant): relaxing one uniformly random state at H = 0 ends in a "
        "self-loop",
        lambda d: d["random_start_outcome"] == SELF_LOOP,
        symbol="P_sl^0 (random start)",
        label=r"$P_{sl}^0$ (random start)",
        units="probability",
        scaling=Scaling(),
        paper_slopes=_slopes(4, spin=2, weak=5),
    ),
    Observable(
        "random_start_loop_length_hist",
        HISTOGRAM,
        (_ZERO,),
        "lengths L of the self-loops reached from the random start at H = 0",
        lambda d: _bincount(d["random_start_length"][d["random_start_outcome"] == SELF_LOOP]),
        dim="L_random_start",
        units="systems",
    ),
    # ---- transitions: P_sl ---------------------------------------------------------------------
    Observable(
        "self_loop_probability",
        PROBABILITY,
        (_TRANSITIONS, _ANY),
        "P_sl: from some potentially stable S, the transition at H^+(S) + 0+ or H^-(S) - 0+ "
        "ends in a self-loop",
        _some_self_loop,
        symbol="P_sl",
        label=r"$P_{sl}$",
        units="probability",
        scaling=Scaling(),
        paper_slopes=(
            *_slopes(3, spin=2 / 3, weak=4),
            PaperSlope(4, "symmetric", rule="2", source="Supplemental, well-behaved, rule 2"),
            PaperSlope(4, "columns", rule="2", source="Supplemental, well-behaved, rule 2"),
            PaperSlope(4, "rows", rule="2", source="Supplemental, well-behaved, rule 2"),
        ),
        paper_values=_psl_values(),
    ),
    Observable(
        "ill_defined_probability",
        PROBABILITY,
        (_TRANSITIONS,),
        "some transition met a race condition under rule 0 (the instance is ill-defined)",
        lambda d: d["n_ill_defined_transitions"] > 0,
        symbol="P_ill",
        label=r"$P_{\mathrm{ill}}$",
        units="probability",
    ),
    Observable(
        "self_loop_probability_well_defined",
        PROBABILITY,
        (_TRANSITIONS,),
        "P_sl among the systems with no ill-defined transition (rule 0 discards the others)",
        lambda d: (d["n_self_loop_transitions"] > 0) & (d["n_ill_defined_transitions"] == 0),
        trials=lambda d: d["n_ill_defined_transitions"] == 0,
        symbol="P_sl (well-defined)",
        label=r"$P_{sl}$ (well-defined)",
        units="probability",
        scaling=Scaling(),
        paper_slopes=(PaperSlope(3, "random", "hysteron", "0", source=_RULES),),
    ),
    Observable(
        "race_in_transitions_probability",
        PROBABILITY,
        (_TRANSITIONS,),
        "some P_sl transition met a race condition (several unstable elements after a flip)",
        lambda d: d["race_in_transitions"] == 1,
        symbol="P_RC (transitions)",
        label=r"$P_{\mathrm{RC}}$ (transitions)",
        units="probability",
    ),
    Observable(
        "self_loop_length_hist",
        HISTOGRAM,
        (_TRANSITIONS,),
        "distinct self-loops met in the P_sl transitions, by length L (states in the cycle)",
        lambda d: d["loop_length_hist"],
        dim="L",
        units="self-loops",
    ),
    Observable(
        "self_loop_elements_hist",
        HISTOGRAM,
        (_TRANSITIONS,),
        "distinct self-loops met in the P_sl transitions, by number n_e of flipping elements",
        lambda d: d["loop_elements_hist"],
        dim="n_e",
        units="self-loops",
    ),
    # ---- avalanche: P_RC and A -------------------------------------------------------------------
    Observable(
        "race_condition_probability",
        PROBABILITY,
        (_AVALANCHE,),
        "P_RC: from S0 stable at H = 0, raise H to H^+(S0): more than one element is unstable "
        "after the first flip",
        lambda d: d["race_first_flip"] == 1,
        trials=lambda d: d["race_first_flip"] >= 0,
        symbol="P_RC",
        label=r"$P_{\mathrm{RC}}$",
        units="probability",
        scaling=Scaling(),
        paper_slopes=(
            PaperSlope(2, "random", "hysteron", source=_RC),
            PaperSlope(2, "random", "spin", source=_RC),
            PaperSlope(2, "random", "equal", source=_RC),
        ),
    ),
    Observable(
        "avalanche_self_loop_probability",
        PROBABILITY,
        (_AVALANCHE,),
        "the avalanche at H^+(S0) + 0+ ends in a self-loop",
        lambda d: d["avalanche_outcome"] == SELF_LOOP,
        trials=lambda d: d["avalanche_outcome"] >= 0,
        symbol="P_sl (avalanche)",
        label=r"$P_{sl}$ (avalanche)",
        units="probability",
    ),
    Observable(
        "avalanche_size",
        MEAN,
        (_AVALANCHE,),
        "A: flips of the avalanche at H^+(S0) + 0+ (avalanches that end stable)",
        lambda d: d["avalanche_size"][_stable_avalanche(d)],
        symbol="<A>",
        label=r"$\langle A \rangle$",
        units="flips",
    ),
    Observable(
        "avalanche_size_hist",
        HISTOGRAM,
        (_AVALANCHE,),
        "distribution of the avalanche sizes A (avalanches that end stable)",
        lambda d: _bincount(d["avalanche_size"][_stable_avalanche(d)]),
        dim="A",
        units="avalanches",
    ),
    # ---- cyclic drive ----------------------------------------------------------------------------
    Observable(
        "drive_self_loop_probability",
        PROBABILITY,
        (_CYCLIC,),
        "the cyclic drive between 0 and U_max met a self-loop",
        lambda d: d["drive_outcome"] == SELF_LOOP,
        trials=lambda d: d["drive_prepared"],
        symbol="P_sl (drive)",
        label=r"$P_{sl}$ (drive)",
        units="probability",
    ),
    Observable(
        "transient",
        MEAN,
        (_CYCLIC,),
        "tau: drive cycles before the response becomes periodic",
        lambda d: d["transient"][_orbit(d)],
        symbol="<tau>",
        label=r"$\langle \tau \rangle$",
        units="drive cycles",
    ),
    Observable(
        "period",
        MEAN,
        (_CYCLIC,),
        "T: period of the periodic response, in drive cycles",
        lambda d: d["period"][_orbit(d)],
        symbol="<T>",
        label=r"$\langle T \rangle$",
        units="drive cycles",
    ),
    Observable(
        "drive_amplitude",
        MEAN,
        (_CYCLIC,),
        "U_max: the first-cycle field where the magnetisation reaches N/2",
        lambda d: d["drive_amplitude"][d["drive_prepared"]],
        symbol="U_max",
        label=r"$U_{\max}$",
        units="field units",
    ),
    Observable(
        "transient_hist",
        HISTOGRAM,
        (_CYCLIC,),
        "distribution of the transients tau",
        lambda d: _bincount(d["transient"][_orbit(d)]),
        dim="tau",
        units="systems",
    ),
    Observable(
        "period_hist",
        HISTOGRAM,
        (_CYCLIC,),
        "distribution of the periods T",
        lambda d: _bincount(d["period"][_orbit(d)], minlength=2),
        dim="T",
        units="systems",
    ),
    # ---- saturated loop (hyst.kernels.drive.saturated_loop_batch: main branches, returns) --------
    Observable(
        "saturated_loop_probability",
        PROBABILITY,
        (_SATURATED,),
        "a transition of the saturated loop's two main branches ends in a self-loop",
        lambda d: d["saturated_loops_branch"] > 0,
        symbol="P_sl (saturated loop)",
        label=r"$P_{sl}$ (saturated loop)",
        units="probability",
    ),
    Observable(
        "saturated_loop_any_probability",
        PROBABILITY,
        (_SATURATED,),
        "a transition of the main branches or of the returns from their turning points ends "
        "in a self-loop",
        lambda d: (d["saturated_loops_branch"] + d["saturated_loops_return"]) > 0,
        symbol="P_sl (saturated loop and returns)",
        label=r"$P_{sl}$ (loop and returns)",
        units="probability",
    ),
    Observable(
        "saturated_loop_length_hist",
        HISTOGRAM,
        (_SATURATED,),
        "recorded transitions of the saturated loop and its returns that end in a self-loop, "
        "by the loop's length L",
        lambda d: _bincount(d["saturated_records"]["L"]),
        dim="L_saturated",
        units="transitions",
    ),
    Observable(
        "saturated_loop_return_length_hist",
        HISTOGRAM,
        (_SATURATED,),
        "recorded return transitions (from the main branches' turning points) that end in a "
        "self-loop, by the loop's length L",
        lambda d: _bincount(
            d["saturated_records"]["L"][d["saturated_records"]["source"] >= SOURCE_RETURN_UP]
        ),
        dim="L_saturated_return",
        units="transitions",
    ),
    # ---- float64 twin of the P_sl transitions (hyst.kernels.roundoff) ---------------------------
    Observable(
        "self_loop_probability_float64",
        PROBABILITY,
        (_FLOAT64,),
        "P_sl with the transitions computed in float64 from generic parameters (a transition "
        "whose avalanche revisits a state, the start state included, is a self-loop)",
        lambda d: d["float64_self_loop_transitions"] > 0,
        symbol="P_sl (float64)",
        label=r"$P_{sl}$ (float64)",
        units="probability",
    ),
    Observable(
        "float64_transitions",
        COUNT,
        (_FLOAT64,),
        "transitions relaxed in float64",
        lambda d: int(d["float64_transitions"].sum()),
    ),
    Observable(
        "float64_self_loop_transitions",
        COUNT,
        (_FLOAT64,),
        "float64 transitions that revisited a state",
        lambda d: int(d["float64_self_loop_transitions"].sum()),
    ),
    Observable(
        "float64_just_flipped_unstable",
        COUNT,
        (_FLOAT64,),
        "float64 transitions whose first flipped element looked unstable right after its flip "
        "(in exact arithmetic a spin sits exactly at its threshold there)",
        lambda d: int(d["float64_just_flipped_unstable"].sum()),
    ),
    # ---- records ---------------------------------------------------------------------------
    Observable(
        "l4",
        RECORDS,
        (_TRANSITIONS, _SATURATED),
        "L = 4 self-loops of two elements k < l: system index, c_kl, c_lk, spans and midpoints "
        "rescaled by the frozen elements h~_i = h_i^c - sum_{j != k,l} c_ij s_j (saturated "
        "loop: the distinct loops met at any H, with the branch and whether a return from a "
        "turning point met it; loop_number, the loop's index among its system's recorded "
        "loops). Stored only when a study asks (`records: {l4: k}`): at most k per "
        "point, the seeded bottom-k sample of hyst.sampling.tallies. c_kl, c_lk, "
        "sigma_k and sigma_l are float32 (7 significant digits: they place points in a "
        "scatter plot, and the exact "
        "quantised values are reproduced by re-sampling the point with its seed and system "
        "index); the midpoints h~ stay float64 because the rescaled plane divides by their "
        "difference",
        lambda d: d.get("l4_records"),
        dim="l4_loop",
        units="field units",
        record_key=("system", "branch", "loop_number"),
        record_dtypes={
            "system": "int64",
            "branch": "int8",
            "returning": "int8",
            "loop_number": "int32",
            "c_kl": "float32",
            "c_lk": "float32",
            "h_tilde_k": "float64",
            "h_tilde_l": "float64",
            "sigma_k": "float32",
            "sigma_l": "float32",
        },
    ),
    # ---- diagnostic counts ---------------------------------------------------------------------
    Observable(
        "samples",
        COUNT,
        (),
        "systems sampled (counted once per chunk by the sampler, whatever the groups)",
        lambda d: None,
    ),
    Observable(
        "ties",
        COUNT,
        (_TRANSITIONS, _ZERO, _AVALANCHE, _CYCLIC, _ANY),
        "ties met (exactly equal winning instabilities or thresholds exactly at the field; the "
        "lowest index flips; any_self_loop: in the relaxations its search performed)",
        _summed("ties", "drive_ties", "search_ties"),
    ),
    Observable(
        "samples_with_ties",
        COUNT,
        (_TRANSITIONS, _ZERO, _AVALANCHE),
        "systems that met a tie in the enumeration or the avalanche",
        lambda d: int((d["ties"] > 0).sum()) if "ties" in d else None,
    ),
    Observable(
        "potentially_stable_ties",
        COUNT,
        (_ZERO,),
        "states with H^-(S) = H^+(S) exactly",
        lambda d: int(d["potentially_stable_ties"].sum()),
    ),
    Observable(
        "zero_field_ties",
        COUNT,
        (_ZERO,),
        "systems with a threshold exactly at H = 0",
        lambda d: int((d["zero_ties"] > 0).sum()),
    ),
    Observable(
        "random_start_ill_defined",
        COUNT,
        (_ZERO,),
        "random starts whose relaxation at H = 0 met a race condition under rule 0",
        lambda d: int((d["random_start_outcome"] == ILL_DEFINED).sum()),
    ),
    Observable(
        "transitions",
        COUNT,
        (_TRANSITIONS,),
        "transitions relaxed for P_sl",
        lambda d: int(d["n_transitions"].sum()),
    ),
    Observable(
        "self_loop_transitions",
        COUNT,
        (_TRANSITIONS,),
        "P_sl transitions that end in a self-loop",
        lambda d: int(d["n_self_loop_transitions"].sum()),
    ),
    Observable(
        "ill_defined_transitions",
        COUNT,
        (_TRANSITIONS,),
        "P_sl transitions that are ill-defined (rule 0)",
        lambda d: int(d["n_ill_defined_transitions"].sum()),
    ),
    Observable(
        "distinct_self_loops",
        COUNT,
        (_TRANSITIONS,),
        "distinct self-loops met in the P_sl transitions",
        lambda d: int(d["n_distinct_loops"].sum()),
    ),
    Observable(
        "l4_loops",
        COUNT,
        (_TRANSITIONS, _SATURATED),
        "L = 4 self-loops of two elements met: distinct loops (enumeration), transitions "
        "ending in one (saturated loop); exact",
        lambda d: int(d["l4_count"].sum()),
    ),
    Observable(
        "l4_loops_recorded",
        COUNT,
        (_TRANSITIONS, _SATURATED),
        "distinct L = 4 self-loops of two elements recorded by the kernels (enumeration: at "
        "most L4_PER_SYSTEM per system), offered to the record sample",
        lambda d: int(d["l4_recorded"].sum()),
    ),
    Observable(
        "self_loops_found_by_reachable_search",
        COUNT,
        (_ANY,),
        "systems whose self-loop the search found from the saturated states (breadth first "
        "over stable end states), before any complete search",
        lambda d: (
            int((d["search_found_by"] == FOUND_REACHABLE).sum()) if "search_found_by" in d else None
        ),
    ),
    Observable(
        "self_loop_search_nodes",
        COUNT,
        (_ANY,),
        "nodes of the complete searches of the potentially stable states (the cost of "
        "proving systems loop-free)",
        lambda d: int(d["search_nodes"].sum()) if "search_nodes" in d else None,
    ),
    Observable(
        "prepared_starts",
        COUNT,
        (_AVALANCHE,),
        "random starts whose rule-1 relaxation at H = 0 reached a stable S0",
        lambda d: int(d["avalanche_prepared"].sum()),
    ),
    Observable(
        "avalanche_ill_defined",
        COUNT,
        (_AVALANCHE,),
        "avalanches that met a race condition under rule 0",
        lambda d: int((d["avalanche_outcome"] == ILL_DEFINED).sum()),
    ),
    Observable(
        "drive_ill_defined",
        COUNT,
        (_CYCLIC,),
        "cyclic drives that met a race condition under rule 0",
        lambda d: int((d["drive_outcome"] == ILL_DEFINED).sum()),
    ),
    Observable(
        "drive_not_converged",
        COUNT,
        (_CYCLIC,),
        "cyclic drives with no periodic orbit within the cycle limit",
        lambda d: int((d["drive_outcome"] == NOT_CONVERGED).sum()),
    ),
    Observable(
        "saturated_loop_ill_defined",
        COUNT,
        (_SATURATED,),
        "systems whose saturated loop or returns met an ill-defined transition (rule 0)",
        lambda d: int(((d["saturated_ill_branch"] + d["saturated_ill_return"]) > 0).sum()),
    ),
    Observable(
        "saturated_loop_events",
        COUNT,
        (_SATURATED,),
        "transitions relaxed along the saturated loop's two main branches",
        lambda d: int(d["saturated_events"].sum()),
    ),
    Observable(
        "saturated_loop_returns",
        COUNT,
        (_SATURATED,),
        "transitions relaxed on the returns from the main branches' turning points",
        lambda d: int(d["saturated_returns"].sum()),
    ),
    Observable(
        "saturated_loop_self_loops",
        COUNT,
        (_SATURATED,),
        "transitions of the main branches and returns that end in a self-loop (exact)",
        lambda d: int((d["saturated_loops_branch"] + d["saturated_loops_return"]).sum()),
    ),
    Observable(
        "saturated_loop_return_self_loops",
        COUNT,
        (_SATURATED,),
        "return transitions that end in a self-loop (exact)",
        lambda d: int(d["saturated_loops_return"].sum()),
    ),
    Observable(
        "saturated_loop_driven_through",
        COUNT,
        (_SATURATED,),
        "self-loops a main branch drove through (resuming where the loop breaks up)",
        lambda d: int(d["saturated_skips"].sum()),
    ),
    Observable(
        "saturated_loop_saturated_branches",
        COUNT,
        (_SATURATED,),
        "main branches that reached the saturated state (two per system at most)",
        lambda d: int(d["saturated_saturated"].sum()),
    ),
    Observable(
        "saturated_loop_unrecorded",
        COUNT,
        (_SATURATED,),
        "transitions that did not end stable beyond the per-system record limit (not in the "
        "length histograms)",
        lambda d: int(d["saturated_loops"].sum() - d["saturated_records_total"]),
    ),
)
