"""Codes shared by the kernels and their callers: one place, no magic numbers.

The kernels read these module-level integers as compile-time constants; the
Python code above them (wrappers, sampler, tests) uses the same names to
address kernel outputs. Numba freezes the values into its on-disk cache of
each kernel module, so after changing a value here clear the cache
(``find hyst -name '*.nbi' -delete``).

Conventions (see :mod:`hyst.model.systems`): parameters are int64 multiples of the
quantum 2^-40; a field is ``(Hc, eps)`` meaning Hc + eps·0⁺.
"""

from __future__ import annotations

import numpy as np

#: Sentinel of an infinite threshold (H^+ of the all-up state, H^− of the all-down state).
INF = np.int64(2**61)
#: Larger than INF plus any threshold: pushes elements of the wrong sign out of a min/max.
OFFSET = np.int64(2**62)

# ---- outcomes of a relaxation ---------------------------------------------------------------
STABLE, SELF_LOOP, ILL_DEFINED = 0, 1, 2
#: Cyclic drive: a periodic orbit was reached / the cycle limit was hit first.
ORBIT, NOT_CONVERGED = 0, 3
#: An outcome that does not exist (e.g. no avalanche because the preparation failed).
UNDEFINED = -1
OUTCOME_NAMES = {STABLE: "stable", SELF_LOOP: "self_loop", ILL_DEFINED: "ill_defined"}
#: Code of one step of the dynamics that changed the state (``state_table.step``: STABLE,
#: MOVED or ILL_DEFINED).
MOVED = 1

# ---- race-condition rules -------------------------------------------------------------------
RULE_0, RULE_1, RULE_1P, RULE_2 = 0, 1, 2, 3
#: Rule names of the configuration and the command line -> kernel codes.
RULE_CODES = {"0": RULE_0, "1": RULE_1, "1p": RULE_1P, "2": RULE_2}
#: The flip-time rule: each element i has a flip time τ_i > 0 and, of the unstable elements,
#: the one with the largest margin / τ_i flips first (rule 1 when all τ_i are equal). It needs
#: the system's flip times, so it is a rule of the kernels that carry them
#: (``state_table``, ``self_loop_search``), not of every configured sweep.
RULE_TAU = 4
#: Rules that need per-element flip times -> kernel codes.
FLIP_TIME_RULE_CODES = {"tau": RULE_TAU}

# ---- how a batch stores its couplings (hyst.model.systems.COUPLING_FORMS) ----------------
FORM_DENSE, FORM_SYMMETRIC, FORM_COLUMNS, FORM_ROWS = 0, 1, 2, 3
FORM_CODES = {
    "dense": FORM_DENSE,
    "symmetric": FORM_SYMMETRIC,
    "columns": FORM_COLUMNS,
    "rows": FORM_ROWS,
}
#: Kernel-only layout of the dense form: c[k] holds the transpose, c[k][j, i] = c_ij (the
#: matrix the kernels read row by row), so no per-system transpose is needed. Chosen by
#: ``hyst.model.systems.Systems.kernel_batch`` when the dense couplings are a transposed view.
FORM_DENSE_T = 4
#: Direction-dependent couplings (H_i^±(S) = h_i^± − Σ_j c^±_ij s_j): c[k] (2N, N) stacks
#: c^+ (rows 0 … N−1, c[k][i, j] = c^+_ij) over c^− (rows N … 2N−1, c[k][N + i, j] = c^−_ij).
#: Kernel-only, chosen by ``hyst.model.systems.Systems.kernel_batch`` when c^+ ≠ c^− is held.
FORM_DIRECTED = 5

# ---- enumeration: groups of observables selected by the ``what`` bitmask -------------------
WHAT_TRANSITIONS = 1  # P_sl: every transition out of every potentially stable state
WHAT_ZERO_FIELD = 2  # P_s, P_g^0, f_G, P_sl^0 (the map at H = 0 and the random start)
WHAT_AVALANCHE = 4  # S0 preparation, P_RC and the avalanche A
WHAT_ALL = WHAT_TRANSITIONS | WHAT_ZERO_FIELD | WHAT_AVALANCHE

# ---- enumeration: per-sample integer output columns (``enumerate_observables``) -----------
ENUMERATION_COLUMNS = (
    "n_potentially_stable",  # states with H^-(S) < H^+(S)
    "potentially_stable_ties",  # states with H^-(S) == H^+(S)
    "n_stable_at_zero",  # states with H^-(S) < 0 < H^+(S)
    "zero_ties",  # states with a threshold exactly at H = 0
    "self_loop_at_zero_any",  # the H = 0 map has a cycle
    "random_start_outcome",  # relaxation of the random start at H = 0 under the rule
    "random_start_length",  # its cycle length L (0 unless self-loop)
    "n_transitions",  # up/down transitions from potentially stable states
    "n_self_loop_transitions",  # ... that end in a self-loop
    "n_ill_defined_transitions",  # ... that are ill-defined (rule 0)
    "race_in_transitions",  # some transition met a race condition
    "start_prepared",  # rule-1 relaxation of the random start reached a stable S0
    "race_first_flip",  # 1 if >1 unstable after the first flip from S0 (−1 undefined)
    "avalanche_outcome",  # outcome of raising H to H^+(S0) (−1 undefined)
    "avalanche_size",  # flips of that avalanche (−1 unless stable)
    "ties",  # ties met in all walks
    "n_distinct_loops",  # distinct self-loops met in the P_sl transitions
)
(
    E_N_POTENTIALLY_STABLE,
    E_POTENTIALLY_STABLE_TIES,
    E_N_STABLE_AT_ZERO,
    E_ZERO_TIES,
    E_SELF_LOOP_AT_ZERO_ANY,
    E_RANDOM_START_OUTCOME,
    E_RANDOM_START_LENGTH,
    E_N_TRANSITIONS,
    E_N_SELF_LOOP_TRANSITIONS,
    E_N_ILL_DEFINED_TRANSITIONS,
    E_RACE_IN_TRANSITIONS,
    E_START_PREPARED,
    E_RACE_FIRST_FLIP,
    E_AVALANCHE_OUTCOME,
    E_AVALANCHE_SIZE,
    E_TIES,
    E_N_DISTINCT_LOOPS,
) = range(len(ENUMERATION_COLUMNS))

# ---- one relaxation at fixed field: what every relaxing kernel records (``bookkeeping``) ------
#: The columns that begin the output row of every relaxation (``WALK_COLUMNS``,
#: ``RELAX_COLUMNS``, ``MECH_RELAX_COLUMNS``), written by ``bookkeeping.record`` and read
#: with the ``RECORD_*`` indices in each of them; each table's own columns follow.
RELAXATION_RECORD = (
    "flips",  # element flips (the avalanche size A when stable)
    "steps",  # dynamical steps (differ from flips only under rule 2)
    "race",  # a state after the first step had several unstable elements
    "ties",  # zero margins and shared winning margins met
    "L",  # self-loop length (0 unless self-loop)
    "n_e",  # elements flipping in the self-loop
)
(
    RECORD_FLIPS,
    RECORD_STEPS,
    RECORD_RACE,
    RECORD_TIES,
    RECORD_L,
    RECORD_N_E,
) = range(len(RELAXATION_RECORD))

# ---- enumeration: one walk (``state_table.walk``) --------------------------------------------
WALK_COLUMNS = RELAXATION_RECORD + (
    "final_state",  # stable state, first repeated state of a self-loop, or the ill-defined state
    "cycle_min",  # smallest bitmask in the cycle
    "cycle_sum",  # sum of a 64-bit hash of the cycle's edges (with cycle_min, L: identity)
    "flip_mask",  # bitmask of the elements flipping in the cycle
)
(
    WALK_FINAL_STATE,
    WALK_CYCLE_MIN,
    WALK_CYCLE_SUM,
    WALK_FLIP_MASK,
) = range(len(RELAXATION_RECORD), len(WALK_COLUMNS))

# ---- event-driven kernels: one relaxation (``relaxation.relax``) -----------------------------
RELAX_COLUMNS = RELAXATION_RECORD + ("e1", "e2")
(
    RELAX_E1,  # first element flipping in the self-loop (−1 if none)
    RELAX_E2,  # second one
) = range(len(RELAXATION_RECORD), len(RELAX_COLUMNS))

# ---- event-driven kernels: avalanche from a prepared stable state (``drive.avalanche_batch``)
AVALANCHE_COLUMNS = (
    "prepared",  # 1 if the rule-1 preparation reached a stable S0, −1 if it self-looped
    "outcome",  # outcome of the avalanche (−1 undefined)
    "size",  # A = flips (−1 undefined)
    "race_first_flip",  # 1 if >1 unstable after the first flip (−1 undefined)
    "ties",
    "preparation_flips",
    "L",  # self-loop length of the avalanche (0 unless self-loop)
    "n_e",
)
(
    AV_PREPARED,
    AV_OUTCOME,
    AV_SIZE,
    AV_RACE_FIRST_FLIP,
    AV_TIES,
    AV_PREPARATION_FLIPS,
    AV_L,
    AV_N_E,
) = range(len(AVALANCHE_COLUMNS))

# ---- event-driven kernels: cyclic drive (``drive.cyclic_drive_batch``) -----------------------
CYCLIC_COLUMNS = ("prepared", "outcome", "transient", "period", "cycles", "flips", "ties")
(
    CY_PREPARED,
    CY_OUTCOME,  # ORBIT, SELF_LOOP, ILL_DEFINED, NOT_CONVERGED (−1 undefined)
    CY_TRANSIENT,  # τ
    CY_PERIOD,  # T
    CY_CYCLES,
    CY_FLIPS,
    CY_TIES,
) = range(len(CYCLIC_COLUMNS))

# ---- event-driven kernels: the saturated loop with returns (``drive.saturated_loop_batch``) --
#: Where a transition of the saturated-loop protocol starts: a stable state of the up branch
#: (driven up) or of the down branch (driven down), or a return from a turning point on the
#: up branch (driven down) or on the down branch (driven up). branch = source % 2,
#: return = source // 2.
SOURCE_UP, SOURCE_DOWN, SOURCE_RETURN_UP, SOURCE_RETURN_DOWN = 0, 1, 2, 3
#: Per-system summary of the protocol.
SATURATED_COLUMNS = (
    "events",  # transitions relaxed on the two main branches
    "returns",  # transitions relaxed on the returns from turning points
    "loops_branch",  # main-branch transitions that ended in a self-loop
    "loops_return",  # return transitions that ended in a self-loop
    "ill_branch",  # main-branch transitions that were ill-defined (rule 0)
    "ill_return",  # return transitions that were ill-defined (rule 0)
    "skips",  # self-loops a main branch drove through (it resumes where the loop breaks)
    "l4",  # transitions that ended in an L = 4 self-loop of two elements
    "loops",  # transitions that ended in a self-loop or were ill-defined (all records)
    "saturated",  # main branches that reached the saturated state (0, 1 or 2)
)
(
    SAT_EVENTS,
    SAT_RETURNS,
    SAT_LOOPS_BRANCH,
    SAT_LOOPS_RETURN,
    SAT_ILL_BRANCH,
    SAT_ILL_RETURN,
    SAT_SKIPS,
    SAT_L4,
    SAT_LOOPS,
    SAT_SATURATED,
) = range(len(SATURATED_COLUMNS))
#: One record per transition that did not end stable (the first ``LOOP_RECORDS_PER_SYSTEM``).
LOOP_COLUMNS = (
    "source",  # SOURCE_* above
    "event",  # index of the stable state it started from on its branch (0: saturated state)
    "field",  # the switching field H_c of the transition (quanta; the drive adds ±0⁺)
    "outcome",  # SELF_LOOP or ILL_DEFINED
    "L",  # self-loop length (0 if ill-defined)
    "n_e",  # elements flipping in the self-loop
    "e1",  # k: first element flipping in the loop (−1 if none)
    "e2",  # l: second one
    "c_kl",  # n_e = 2: c_kl and c_lk (quanta)
    "c_lk",
    "h2_k",  # n_e = 2: 2 h̃_k in quanta (midpoint rescaled by the frozen elements)
    "h2_l",
    "rest_hash",  # n_e = 2: Zobrist hash of the frozen elements' state (the loop's identity)
)
(
    LOOP_SOURCE,
    LOOP_EVENT,
    LOOP_FIELD,
    LOOP_OUTCOME,
    LOOP_L,
    LOOP_N_E,
    LOOP_E1,
    LOOP_E2,
    LOOP_C_KL,
    LOOP_C_LK,
    LOOP_H2_K,
    LOOP_H2_L,
    LOOP_REST_HASH,
) = range(len(LOOP_COLUMNS))

# ---- mechanics of serial chains of bilinear elements (``mechanics``) -------------------------
#: One relaxation at fixed drive (``mechanics.relax``).
MECH_RELAX_COLUMNS = RELAXATION_RECORD + ("cycle_start",)
#: Index in the trajectory of the limit cycle's first state (−1 if none).
(MR_CYCLE_START,) = range(len(RELAXATION_RECORD), len(MECH_RELAX_COLUMNS))
#: One branch of the saturated loop (``mechanics.saturated_loop_batch``); L = n_e = −1 when
#: the branch saturates (as ``LOOP_COLUMNS``).
MECH_LOOP_COLUMNS = ("outcome", "L", "n_e", "events")
ML_OUTCOME, ML_L, ML_N_E, ML_EVENTS = range(len(MECH_LOOP_COLUMNS))
#: One cell of a (d1, d2) scan of two elements (``mechanics.pair_scan``): the self-loop
#: families met as attractors anywhere in the drive range and by the transition graph, as
#: bitmasks over ``PAIR_FAMILIES``, the drive intervals scanned and the ties met.
PAIR_CELL_COLUMNS = ("attractor_families", "graph_families", "intervals", "ties")
PC_ATTRACTOR, PC_GRAPH, PC_INTERVALS, PC_TIES = range(len(PAIR_CELL_COLUMNS))
#: Self-loop families of two elements (Supplemental SL1–SL6) and any other cycle.
PAIR_FAMILIES = ("SL1", "SL2", "SL3", "SL4", "SL5", "SL6", "other")
SL1, SL2, SL3, SL4, SL5, SL6, SL_OTHER = range(len(PAIR_FAMILIES))

# ---- self-loop search: P_sl alone without the state table (``self_loop_search``) ------------
#: States the reachable search queues at most (then the complete search takes over).
SEARCH_REACHABLE_CAP = 1024
#: Largest N of the search's int64 bitmask states.
SEARCH_BITMASK_MAX_N = 62
SEARCH_COLUMNS = (
    "self_loop",  # 1 if some transition out of a potentially stable state ends in a self-loop
    "found_by",  # FOUND_NONE, FOUND_REACHABLE or FOUND_COMPLETE
    "walks",  # transitions relaxed
    "reachable_states",  # stable states queued by the reachable search
    "search_nodes",  # nodes of the complete search (0 if it did not run)
    "potentially_stable_searched",  # potentially stable states it met (all, if loop-free)
    "ties",  # equal winning margins met in the relaxations performed
)
(
    SR_SELF_LOOP,
    SR_FOUND_BY,
    SR_WALKS,
    SR_REACHABLE_STATES,
    SR_SEARCH_NODES,
    SR_POTENTIALLY_STABLE_SEARCHED,
    SR_TIES,
) = range(len(SEARCH_COLUMNS))
#: Which phase of the search found the self-loop (none: the system is proven loop-free).
FOUND_NONE, FOUND_REACHABLE, FOUND_COMPLETE = 0, 1, 2
# ---- float64 twin of the P_sl transitions (``roundoff.float64_transitions_batch``) ----------
FLOAT64_COLUMNS = (
    "transitions",  # transitions out of potentially stable states relaxed in float64
    "self_loop_transitions",  # ... that revisited a state (the start state included)
    "just_flipped_unstable",  # ... whose first flipped element looked unstable right after
)
F64_TRANSITIONS, F64_SELF_LOOP_TRANSITIONS, F64_JUST_FLIPPED_UNSTABLE = range(len(FLOAT64_COLUMNS))
