"""Sampling one sweep point: every per-system observable, with statistics.

A *point* is (couplings, spans, rule, N, NJ0). Its samples are split into
chunks of ``chunk_size(N)`` systems; chunk k draws from a generator seeded by
``SeedSequence`` keyed by the base seed, the point's *ensemble identity*
(couplings, spans, N, NJ0: the rule is not part of it, so every rule sees the
same systems) and k. Chunk results are integer counts, float sums and
histograms merged in chunk order, so a point's result depends only on its
parameters, its sample count and the seed, never on how chunks are scheduled.

Observables (name: meaning; kind)
    potentially_stable_fraction   P_s: fraction of the 2^N states with H^-(S) < H^+(S); mean
    potentially_stable_over_spins P_s·2^N/(N+1) (1 for spins); mean
    gap_probability_at_zero       P_g^0: no state stable at H = 0; probability
    gap_fraction                  f_G: fraction of [H^+(−…−), H^−(+…+)] in no stability range; mean
    self_loop_probability_at_zero P_sl^0: the H = 0 dynamics has a cycle reachable from
                                  some of the 2^N states (Supplemental definition); probability
    self_loop_probability_at_zero_random_start
                                  P_sl^0 main-text variant: relaxing one random state at H = 0
                                  ends in a self-loop; probability
    self_loop_probability         P_sl: some transition out of a potentially stable state
                                  (H → H^±(S) ± 0⁺) ends in a self-loop; probability
    ill_defined_probability       some transition met a race condition under rule 0; probability
    self_loop_probability_well_defined
                                  P_sl among systems with no ill-defined transition (rule 0's
                                  "discard the instance"); probability
    race_in_transitions_probability
                                  some P_sl transition met a race condition; probability
    race_condition_probability    P_RC: from S0 stable at H = 0, raise H to H^+(S0): more than
                                  one element unstable after the first flip; probability
    avalanche_size                A: flips of that avalanche (stable outcomes); mean + histogram
    avalanche_self_loop_probability
                                  that avalanche ends in a self-loop; probability
    transient, period             τ and T of the cyclic drive; mean + histograms
    drive_self_loop_probability   the cyclic drive met a self-loop; probability
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numba
import numpy as np

from hyst.ensembles import COUPLING_ENSEMBLES, SPAN_ENSEMBLES, sample_systems
from hyst.kernels import drive, enumeration
from hyst.model import QUANTUM, QUANTUM_BITS, RULES, rule_code

#: Largest number of systems per chunk (small N); chunks hold at most ~2^24 couplings.
MAX_CHUNK_SIZE = 10_000


def chunk_size(N: int) -> int:
    """Systems per chunk of a point with N elements: a fixed function of N (it is part of
    every point's provenance: changing it changes the random streams)."""
    return int(min(MAX_CHUNK_SIZE, max(16, 2**24 // (N * N))))


#: Largest N for which the 2^N states are enumerated.
ENUMERATION_MAX_N = 18
#: Distinct L = 4 self-loops recorded per system (the count is always exact).
L4_PER_SYSTEM = 16
#: Cyclic drive: cycles after which a sample is reported as not converged.
MAX_DRIVE_CYCLES = 100_000

GROUPS = ("transitions", "zero_field", "avalanche", "cyclic", "saturated_loop")
GROUP_DESCRIPTIONS = {
    "transitions": "P_sl and self-loop sizes (enumerates 2^N states)",
    "zero_field": "P_s, P_g^0, f_G, P_sl^0 (enumerates 2^N states)",
    "avalanche": "P_RC and avalanche sizes A from a stable state at H = 0",
    "cyclic": "cyclic drive between 0 and U_max: transient tau and period T",
    "saturated_loop": "self-loops met driving the saturated hysteresis loop event by event "
    "(any N; L = 4 records for the scatter figures); not part of 'all'",
}
#: Groups computed by default ("all"): the saturated loop is requested explicitly.
DEFAULT_GROUPS = ("transitions", "zero_field", "avalanche", "cyclic")
ENUMERATION_GROUPS = ("transitions", "zero_field")


@dataclass(frozen=True)
class Point:
    """One sweep point: an ensemble (couplings, spans, N, NJ0) and a race-condition rule."""

    couplings: str
    spans: str
    rule: str
    N: int
    NJ0: float

    def __post_init__(self):
        if self.couplings not in COUPLING_ENSEMBLES:
            raise ValueError(
                f"couplings: {self.couplings!r} is not one of {', '.join(COUPLING_ENSEMBLES)}"
            )
        if self.spans not in SPAN_ENSEMBLES:
            raise ValueError(f"spans: {self.spans!r} is not one of {', '.join(SPAN_ENSEMBLES)}")
        if str(self.rule) not in RULES:
            raise ValueError(f"rule: {self.rule!r} is not one of {', '.join(RULES)}")
        object.__setattr__(self, "rule", str(self.rule))
        if not isinstance(self.N, int | np.integer) or self.N < 2:
            raise ValueError(f"N: {self.N!r} is not allowed (an integer >= 2)")
        object.__setattr__(self, "N", int(self.N))
        if not (isinstance(self.NJ0, int | float) and math.isfinite(self.NJ0) and self.NJ0 > 0):
            raise ValueError(f"NJ0: {self.NJ0!r} is not allowed (a finite number > 0)")
        object.__setattr__(self, "NJ0", float(self.NJ0))

    @property
    def J0(self) -> float:
        return self.NJ0 / self.N

    def ensemble_identity(self) -> dict:
        """What the sampled systems depend on (not the rule)."""
        return {
            "couplings": self.couplings,
            "spans": self.spans,
            "N": self.N,
            "NJ0": repr(self.NJ0),
        }

    def canonical(self) -> dict:
        return {**self.ensemble_identity(), "rule": self.rule}

    def key(self) -> str:
        """Stable hash of the point's canonical parameters (hex)."""
        blob = json.dumps(self.canonical(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def seed_sequence(point: Point, seed: int) -> np.random.SeedSequence:
    """Root SeedSequence of a point, keyed by the base seed and its ensemble identity."""
    blob = json.dumps(point.ensemble_identity(), sort_keys=True).encode()
    words = np.frombuffer(hashlib.sha256(blob).digest(), dtype=np.uint32)
    return np.random.SeedSequence([int(seed), *map(int, words)])


def chunk_generator(point: Point, seed: int, chunk: int) -> np.random.Generator:
    """Generator of chunk ``chunk`` of a point (independent of every other chunk)."""
    root = seed_sequence(point, seed)
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence(root.entropy, spawn_key=(chunk,)))
    )


def chunk_bounds(samples: int, size: int) -> list[tuple[int, int]]:
    """[(chunk index, chunk size)] covering ``samples`` samples in chunks of ``size``."""
    return [(k, min(size, samples - k * size)) for k in range(-(-samples // size))]


def resolve_groups(point: Point, groups=None) -> tuple[str, ...]:
    """Observable groups to compute for a point (default: all that apply to its N)."""
    if groups is None or groups == "all":
        groups = DEFAULT_GROUPS if point.N <= ENUMERATION_MAX_N else ("avalanche", "cyclic")
    groups = tuple(groups)
    for g in groups:
        if g not in GROUPS:
            raise ValueError(f"observables: {g!r} is not one of {', '.join(GROUPS)}")
        if g in ENUMERATION_GROUPS and point.N > ENUMERATION_MAX_N:
            raise ValueError(
                f"observables: {g!r} enumerates 2^N states and needs N <= "
                f"{ENUMERATION_MAX_N} (N = {point.N})"
            )
    return tuple(g for g in GROUPS if g in groups)


@dataclass
class Tally:
    """Mergeable sufficient statistics of a point (counts, sums, histograms)."""

    counts: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    hists: dict = field(default_factory=dict)
    records: dict = field(default_factory=dict)

    def add_count(self, name, value):
        self.counts[name] = self.counts.get(name, 0) + int(value)

    def add_sum(self, name, values):
        values = np.asarray(values, dtype=np.float64)
        n, s, s2 = self.sums.get(name, (0, 0.0, 0.0))
        self.sums[name] = (n + values.size, s + float(values.sum()), s2 + float((values**2).sum()))

    def add_hist(self, name, counts):
        counts = np.asarray(counts, dtype=np.int64)
        old = self.hists.get(name)
        if old is None:
            self.hists[name] = counts.copy()
            return
        n = max(old.size, counts.size)
        new = np.zeros(n, np.int64)
        new[: old.size] += old
        new[: counts.size] += counts
        self.hists[name] = new

    def add_records(self, name, table: dict):
        old = self.records.get(name)
        if old is None:
            self.records[name] = {k: np.asarray(v) for k, v in table.items()}
        else:
            self.records[name] = {
                k: np.concatenate([old[k], np.asarray(v)]) for k, v in table.items()
            }

    def merge(self, other: Tally):
        for k, v in other.counts.items():
            self.add_count(k, v)
        for k, (n, s, s2) in other.sums.items():
            n0, s0, s20 = self.sums.get(k, (0, 0.0, 0.0))
            self.sums[k] = (n0 + n, s0 + s, s20 + s2)
        for k, v in other.hists.items():
            self.add_hist(k, v)
        for k, v in other.records.items():
            self.add_records(k, v)


def _threads() -> int:
    return numba.get_num_threads()


def sample_chunk(
    point: Point, seed: int, chunk: int, size: int, groups, parallel: bool = True
) -> Tally:
    """Draw chunk ``chunk`` (``size`` systems) of a point and tally its observables.

    ``parallel`` runs the kernels on all numba threads; ``False`` keeps them on
    the calling thread (for thread pools such as Dask workers). Same result.
    """
    rng = chunk_generator(point, seed, chunk)
    N = point.N
    systems = sample_systems(point.couplings, point.spans, N, point.NJ0, size, rng)
    start_spins = np.where(rng.random((size, N)) < 0.5, -1, 1).astype(np.int8)
    rule = rule_code(point.rule)
    tally = Tally()
    tally.add_count("samples", size)
    hp, hm = systems.h_plus, systems.h_minus

    what = 0
    if "transitions" in groups:
        what |= enumeration.WHAT_TRANSITIONS
    if "zero_field" in groups:
        what |= enumeration.WHAT_ZERO_FIELD
    if "avalanche" in groups and N <= ENUMERATION_MAX_N and what:
        what |= enumeration.WHAT_AVALANCHE
    if what:
        starts = (start_spins > 0).astype(np.int64) @ (np.int64(1) << np.arange(N, dtype=np.int64))
        _tally_enumeration(tally, systems, starts, rule, what, chunk * chunk_size(N), parallel)
    if "avalanche" in groups and not (what & enumeration.WHAT_AVALANCHE):
        out = np.zeros((size, 8), np.int64)
        kernel = drive.avalanche_batch if parallel else drive.avalanche_batch_serial
        kernel(hp, hm, *systems.kernel_operands(), start_spins, rule, out)
        _tally_avalanche(
            tally, prepared=out[:, 0] == 1, race_first=out[:, 3], outcome=out[:, 1], size=out[:, 2]
        )
        tally.add_count("ties", out[:, 4].sum())
        tally.add_count("samples_with_ties", (out[:, 4] > 0).sum())
    if "saturated_loop" in groups:
        out = np.zeros((size, 2, len(drive.LOOP_COLUMNS)), np.int64)
        kernel = drive.saturated_loop_batch if parallel else drive.saturated_loop_batch_serial
        kernel(hp, hm, *systems.kernel_operands(), rule, out)
        _tally_saturated_loop(tally, systems, out, chunk * chunk_size(N))
    if "cyclic" in groups:
        out = np.zeros((size, 7), np.int64)
        umax = np.zeros(size, np.int64)
        kernel = drive.cyclic_drive_batch if parallel else drive.cyclic_drive_batch_serial
        kernel(hp, hm, *systems.kernel_operands(), start_spins, rule, MAX_DRIVE_CYCLES, out, umax)
        _tally_cyclic(tally, out, umax)
    return tally


def _tally_enumeration(tally, systems, starts, rule, what, offset=0, parallel=True):
    n, N = systems.h_plus.shape
    blocks = max(1, min(n, _threads())) if parallel else 1
    out = np.zeros((n, enumeration.NCOL), np.int64)
    gapf = np.zeros(n)
    hist_L = np.zeros((blocks, (1 << N) + 1), np.int64)
    hist_ne = np.zeros((blocks, N + 1), np.int64)
    l4_state = np.zeros((n, L4_PER_SYSTEM), np.int64)
    l4_mask = np.zeros((n, L4_PER_SYSTEM), np.int64)
    l4_count = np.zeros(n, np.int64)
    kernel = (
        enumeration.enumerate_observables if parallel else enumeration.enumerate_observables_serial
    )
    kernel(
        systems.h_plus,
        systems.h_minus,
        systems.couplings,
        starts,
        rule,
        what,
        out,
        gapf,
        hist_L,
        hist_ne,
        l4_state,
        l4_mask,
        l4_count,
    )
    col = {name: out[:, k] for k, name in enumerate(enumeration.COLUMNS)}
    tally.add_count("ties", col["ties"].sum())
    tally.add_count("samples_with_ties", (col["ties"] > 0).sum())
    if what & enumeration.WHAT_ZERO_FIELD:
        ps = col["n_potentially_stable"].astype(np.float64)
        tally.add_sum("potentially_stable_fraction", ps / 2.0**N)
        tally.add_sum("potentially_stable_over_spins", ps / (N + 1))
        tally.add_count("potentially_stable_ties", col["potentially_stable_ties"].sum())
        tally.add_count("gap_probability_at_zero", (col["n_stable_at_zero"] == 0).sum())
        tally.add_count("zero_field_ties", (col["zero_ties"] > 0).sum())
        tally.add_sum("gap_fraction", gapf)
        tally.add_count("self_loop_probability_at_zero", col["self_loop_at_zero_any"].sum())
        outcome = col["random_start_outcome"]
        tally.add_count("self_loop_probability_at_zero_random_start", (outcome == 1).sum())
        tally.add_count("random_start_ill_defined", (outcome == 2).sum())
        loops = col["random_start_length"][outcome == 1]
        tally.add_hist("random_start_loop_length_hist", np.bincount(loops, minlength=1))
    if what & enumeration.WHAT_TRANSITIONS:
        sl = col["n_self_loop_transitions"] > 0
        ill = col["n_ill_defined_transitions"] > 0
        tally.add_count("self_loop_probability", sl.sum())
        tally.add_count("ill_defined_probability", ill.sum())
        tally.add_count("well_defined_systems", (~ill).sum())
        tally.add_count("self_loop_well_defined", (sl & ~ill).sum())
        tally.add_count("race_in_transitions_probability", col["race_in_transitions"].sum())
        tally.add_count("transitions", col["n_transitions"].sum())
        tally.add_count("self_loop_transitions", col["n_self_loop_transitions"].sum())
        tally.add_count("ill_defined_transitions", col["n_ill_defined_transitions"].sum())
        tally.add_count("distinct_self_loops", col["n_distinct_loops"].sum())
        tally.add_hist("self_loop_length_hist", hist_L.sum(axis=0))
        tally.add_hist("self_loop_elements_hist", hist_ne.sum(axis=0))
        tally.add_count("l4_loops", l4_count.sum())
        tally.add_count("l4_loops_recorded", np.minimum(l4_count, L4_PER_SYSTEM).sum())
        records = _l4_records(systems, l4_state, l4_mask, l4_count)
        records["system"] = records["system"] + offset
        tally.add_records("l4", records)
    if what & enumeration.WHAT_AVALANCHE:
        _tally_avalanche(
            tally,
            prepared=col["start_prepared"] == 1,
            race_first=col["race_first_flip"],
            outcome=col["avalanche_outcome"],
            size=col["avalanche_size"],
        )


def _tally_avalanche(tally, prepared, race_first, outcome, size):
    tally.add_count("prepared_starts", prepared.sum())
    defined = race_first >= 0
    tally.add_count("race_condition_trials", defined.sum())
    tally.add_count("race_condition_probability", (race_first == 1).sum())
    tally.add_count("avalanche_trials", (outcome >= 0).sum())
    tally.add_count("avalanche_self_loop_probability", (outcome == 1).sum())
    tally.add_count("avalanche_ill_defined", (outcome == 2).sum())
    stable = outcome == 0
    tally.add_sum("avalanche_size", size[stable])
    tally.add_hist("avalanche_size_hist", np.bincount(size[stable], minlength=1))


def _tally_cyclic(tally, out, umax):
    prepared = out[:, 0] == 1
    outcome = out[:, 1]
    orbit = outcome == drive.ORBIT
    tally.add_count("drive_trials", prepared.sum())
    tally.add_count("drive_self_loop_probability", (outcome == 1).sum())
    tally.add_count("drive_ill_defined", (outcome == 2).sum())
    tally.add_count("drive_not_converged", (outcome == drive.NOT_CONVERGED).sum())
    tally.add_count("ties", out[:, 6].sum())
    tally.add_sum("transient", out[orbit, 2])
    tally.add_sum("period", out[orbit, 3])
    tally.add_sum("drive_amplitude", umax[prepared] * 2.0**-QUANTUM_BITS)
    tally.add_hist("transient_hist", np.bincount(out[orbit, 2], minlength=1))
    tally.add_hist("period_hist", np.bincount(out[orbit, 3], minlength=2))


def _tally_saturated_loop(tally, systems, out, offset):
    outcome, L, n_e = out[:, :, 0], out[:, :, 1], out[:, :, 2]
    loop = outcome == 1
    tally.add_count("saturated_loop_probability", loop.any(axis=1).sum())
    tally.add_count("saturated_loop_ill_defined", (outcome == 2).any(axis=1).sum())
    tally.add_count("saturated_loop_events", out[:, :, 9].sum())
    tally.add_hist("saturated_loop_length_hist", np.bincount(L[loop], minlength=1))
    s, b = np.nonzero(loop & (n_e == 2) & (L == 4))
    rows = out[s, b]
    k, l = rows[:, 3], rows[:, 4]
    hp, hm = systems.h_plus, systems.h_minus
    tally.add_count("l4_loops", s.size)
    tally.add_count("l4_loops_recorded", s.size)
    tally.add_records(
        "l4",
        {
            "system": s + offset,
            "branch": b,
            "c_kl": rows[:, 5] * QUANTUM,
            "c_lk": rows[:, 6] * QUANTUM,
            "h_tilde_k": rows[:, 7] * (QUANTUM / 2),
            "h_tilde_l": rows[:, 8] * (QUANTUM / 2),
            "sigma_k": (hp[s, k] - hm[s, k]) * QUANTUM,
            "sigma_l": (hp[s, l] - hm[s, l]) * QUANTUM,
        },
    )


def _l4_records(systems, l4_state, l4_mask, l4_count) -> dict:
    """Recorded L = 4 loops of two elements k < l: (c_kl, c_lk), spans, and midpoints
    rescaled by the frozen elements, h̃_i^c = h_i^c − Σ_{j≠k,l} c_ij s_j."""
    hp, hm, c = systems.to_floats()
    N = systems.N
    K = l4_state.shape[1]
    valid = np.arange(K)[None, :] < np.minimum(l4_count, K)[:, None]
    s, q = np.nonzero(valid)
    mask = l4_mask[s, q]
    state = l4_state[s, q]
    bits = (mask[:, None] >> np.arange(N)) & 1
    two = bits.sum(axis=1) == 2
    s, mask, state, bits = s[two], mask[two], state[two], bits[two]
    k = np.argmax(bits, axis=1)
    l = N - 1 - np.argmax(bits[:, ::-1], axis=1)
    spins = np.where((state[:, None] >> np.arange(N)) & 1, 1.0, -1.0) * (1 - bits)
    mid = 0.5 * (hp + hm)
    field = np.einsum("rij,rj->ri", c[s], spins)
    rows = np.arange(s.size)
    return {
        "system": s,
        "c_kl": c[s, k, l],
        "c_lk": c[s, l, k],
        "h_tilde_k": mid[s, k] - field[rows, k],
        "h_tilde_l": mid[s, l] - field[rows, l],
        "sigma_k": hp[s, k] - hm[s, k],
        "sigma_l": hp[s, l] - hm[s, l],
    }


def check_self_loop_free(point: Point, tally: Tally):
    """Raise if a strictly self-loop-free ensemble produced a self-loop (or, for
    constant rows, an avalanche of more than two flips; for constant columns, a
    cyclic-drive orbit whose period is not the drive's).

    Symmetric, ferromagnetic, constant-columns and constant-rows couplings
    cannot self-loop in transitions out of stable states under single-flip
    rules (0, 1, 1'); symmetric couplings cannot self-loop from any state
    (Lyapunov function), and the rule-1 preparation of S0 from a random state
    reaches a stable state in all four (the paper's large-N protocol; none of
    945,000 test preparations failed). Such counts are recorded in every
    dataset; here a nonzero count stops the run.
    """
    from hyst.ensembles import SELF_LOOP_FREE

    if point.couplings not in SELF_LOOP_FREE or point.rule == "2":
        return
    keys = [
        "avalanche_self_loop_probability",
        "drive_self_loop_probability",
        "saturated_loop_probability",
        "self_loop_probability",
    ]
    if point.couplings == "symmetric":
        keys.append("self_loop_probability_at_zero")
    bad = {k: tally.counts[k] for k in keys if tally.counts.get(k, 0)}
    # the preparation (rule 1 from a random state at H = 0) always reaches a stable S0
    # in these ensembles (paper, large-N protocol); a start that did not is a self-loop
    trials = tally.counts.get("samples", 0)
    for key in ("prepared_starts", "drive_trials"):
        if key in tally.counts and tally.counts[key] != trials:
            bad[f"unprepared ({key})"] = trials - tally.counts[key]
    hist = tally.hists.get("avalanche_size_hist")
    if point.couplings == "rows" and hist is not None and hist[3:].sum():
        bad["avalanches_longer_than_2"] = int(hist[3:].sum())  # Appendix D: A <= 2
    periods = tally.hists.get("period_hist")
    if point.couplings == "columns" and periods is not None and periods[2:].sum():
        bad["periods_other_than_1"] = int(periods[2:].sum())  # no scrambling: T = 1
    if bad:
        raise RuntimeError(f"theorem violated in the self-loop-free ensemble {point}: {bad}")


def sample_point(
    point: Point,
    samples: int,
    seed: int,
    groups=None,
    chunks: list[int] | None = None,
    progress: Callable[[int, int, int, float], None] | None = None,
) -> Tally:
    """Tally ``samples`` systems of ``point`` (all chunks, or only ``chunks``), in chunk order."""
    if not isinstance(samples, int | np.integer) or samples < 1:
        raise ValueError(f"samples: {samples!r} is not allowed (an integer >= 1)")
    groups = resolve_groups(point, groups)
    bounds = chunk_bounds(int(samples), chunk_size(point.N))
    if chunks is not None:
        bounds = [bounds[k] for k in chunks]
    total = Tally()
    t0 = time.perf_counter()
    done = 0
    for i, (k, size) in enumerate(bounds):
        total.merge(sample_chunk(point, seed, k, size, groups))
        done += size
        if progress is not None:
            progress(i + 1, len(bounds), done, done / max(time.perf_counter() - t0, 1e-9))
    return total
