"""Sampling one sweep point: draw systems, run the kernels, tally every observable.

A *point* is (couplings, spans, rule, N, NJ0). Its samples are split into
chunks of ``chunk_size(N)`` systems; chunk k draws from a generator keyed by
the base seed, the point's *ensemble identity* (couplings, spans, N, NJ0: the
rule is not part of it, so every rule sees the same systems) and k
(:mod:`hyst.model.seeds`). Chunk results are integer counts, float sums and
histograms merged in chunk order, so a point's result depends only on its
parameters, its sample count and the seed, never on how chunks are scheduled.

Each kernel call is decoded into named per-sample arrays (the field names of
:mod:`hyst.catalogue`); the catalogue says which observables each decoded call
yields and :class:`hyst.sampling.tallies.Tally` tallies them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hyst.catalogue import ENUMERATION_MAX_N, GROUPS
from hyst.kernels import codes
from hyst.model import batch, seeds
from hyst.model.ensembles import COUPLING_ENSEMBLES, SELF_LOOP_FREE, SPAN_ENSEMBLES, sample_systems
from hyst.model.systems import QUANTUM, QUANTUM_BITS, RULES, Systems
from hyst.sampling.malloc import keep_large_buffers
from hyst.sampling.tallies import Tally

#: Largest number of systems per chunk (small N); chunks hold at most ~2^24 couplings.
MAX_CHUNK_SIZE = 10_000
#: Cyclic drive: cycles after which a sample is reported as not converged.
MAX_DRIVE_CYCLES = 100_000
#: Groups served by the enumeration kernel (the others run event by event, any N).
ENUMERATION_GROUPS = ("transitions", "zero_field")
#: Saturated loop: transitions driven back from every turning point of the main branches,
#: and self-loops a main branch drives through before it ends at the next one
#: (``hyst.kernels.drive.saturated_loop_batch``).
SATURATED_RETURN_EVENTS = 2
SATURATED_MAX_LOOPS = 8
#: Saturated loop: transitions that did not end stable recorded per system (counts are exact).
SATURATED_RECORDS = 128


def chunk_size(N: int) -> int:
    """Systems per chunk of a point with N elements: a fixed function of N (it is part of
    every point's provenance: changing it changes the random streams)."""
    return int(min(MAX_CHUNK_SIZE, max(16, 2**24 // (N * N))))


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
        return seeds.digest(self.canonical(), 16)


def chunk_generator(point: Point, seed: int, chunk: int) -> np.random.Generator:
    """Generator of chunk ``chunk`` of a point (independent of every other chunk)."""
    return seeds.generator(seed, point.ensemble_identity(), chunk)


def chunk_bounds(samples: int, size: int) -> list[tuple[int, int]]:
    """[(chunk index, chunk size)] covering ``samples`` samples in chunks of ``size``."""
    return [(k, min(size, samples - k * size)) for k in range(-(-samples // size))]


def resolve_groups(point: Point, groups=None) -> tuple[str, ...]:
    """Observable groups to compute for a point (default "all": every default group that
    supports its N), in catalogue order."""
    if groups is None or groups == "all":
        groups = [g.name for g in GROUPS.values() if g.default and g.allows(point.N)]
    groups = tuple(groups)
    for name in groups:
        if name not in GROUPS:
            raise ValueError(f"observables: {name!r} is not one of {', '.join(GROUPS)}")
        group = GROUPS[name]
        if not group.allows(point.N):
            raise ValueError(
                f"observables: {name!r} needs N <= {group.max_N} (N = {point.N}): "
                f"{group.description}"
            )
    return tuple(g for g in GROUPS if g in groups)


def draw_chunk(point: Point, seed: int, chunk: int, size: int) -> tuple[Systems, np.ndarray]:
    """The systems of chunk ``chunk`` of a point and their random start states (int8 ±1)."""
    rng = chunk_generator(point, seed, chunk)
    systems = sample_systems(point.couplings, point.spans, point.N, point.NJ0, size, rng)
    start_spins = np.where(rng.random((size, point.N)) < 0.5, -1, 1).astype(np.int8)
    return systems, start_spins


def record_salt(point: Point, seed: int) -> int:
    """Salt of the bottom-k keys of a point's records (:mod:`hyst.sampling.tallies`): a function
    of the point's identity (rule included) and the base seed only."""
    return seeds.record_salt(seed, {"records": point.canonical()})


def sample_chunk(
    point: Point,
    seed: int,
    chunk: int,
    size: int,
    groups,
    parallel: bool = True,
    records: dict | None = None,
) -> Tally:
    """Draw chunk ``chunk`` (``size`` systems) of a point and tally its observables.

    ``parallel`` runs the kernels on all numba threads; ``False`` keeps them on
    the calling thread (for thread pools such as Dask workers). Same result.
    ``records``: records to keep per point, by name (``{"l4": 2000}``; default none),
    as the seeded bottom-k sample of :mod:`hyst.sampling.tallies`.
    """
    keep_large_buffers()
    systems, start_spins = draw_chunk(point, seed, chunk, size)
    N = point.N
    offset = chunk * chunk_size(N)
    caps = {k: int(v) for k, v in (records or {}).items() if int(v) > 0}
    tally = Tally(record_caps=caps, record_salt=record_salt(point, seed))
    tally.add_count("samples", size)

    enumerated = [g for g in ENUMERATION_GROUPS if g in groups]
    if enumerated and "avalanche" in groups and N <= ENUMERATION_MAX_N:
        enumerated.append("avalanche")
    if "transitions" in enumerated and "any_self_loop" in groups:
        enumerated.append("any_self_loop")  # the transitions give the same P_sl per system
    if enumerated:
        what = 0
        for g, bit in (
            ("transitions", codes.WHAT_TRANSITIONS),
            ("zero_field", codes.WHAT_ZERO_FIELD),
            ("avalanche", codes.WHAT_AVALANCHE),
        ):
            if g in enumerated:
                what |= bit
        starts = (start_spins > 0).astype(np.int64) @ (np.int64(1) << np.arange(N, dtype=np.int64))
        out = batch.enumerate_batch(systems, starts, point.rule, what, parallel=parallel)
        decoded = decode_enumeration(
            out, systems, offset, records=bool(caps) and "transitions" in enumerated
        )
        tally.add_measured(decoded, enumerated)
    if "any_self_loop" in groups and "any_self_loop" not in enumerated:
        cols = batch.any_self_loop_batch(systems, point.rule, parallel=parallel)
        tally.add_measured(decode_self_loop_search(cols), ["any_self_loop"])
    driven = [g for g in ("avalanche", "cyclic") if g in groups and g not in enumerated]
    if driven == ["avalanche", "cyclic"]:  # one preparation per system for both
        av, cy, umax = batch.avalanche_cyclic_batch(
            systems, start_spins, point.rule, MAX_DRIVE_CYCLES, parallel=parallel
        )
    elif driven == ["avalanche"]:
        av = batch.avalanche_batch(systems, start_spins, point.rule, parallel=parallel)
    elif driven == ["cyclic"]:
        cy, umax = batch.cyclic_drive_batch(
            systems, start_spins, point.rule, MAX_DRIVE_CYCLES, parallel=parallel
        )
    if "avalanche" in driven:
        tally.add_measured(decode_avalanche(av), ["avalanche"])
    if "cyclic" in driven:
        tally.add_measured(decode_cyclic(cy, umax), ["cyclic"])
    if "saturated_loop" in groups:
        out = batch.saturated_loop_batch(
            systems,
            point.rule,
            return_events=SATURATED_RETURN_EVENTS,
            max_loops=SATURATED_MAX_LOOPS,
            records_per_system=SATURATED_RECORDS,
            parallel=parallel,
        )
        decoded = decode_saturated_loop(out, systems, offset, records=bool(caps))
        tally.add_measured(decoded, ["saturated_loop"])
    if "float64" in groups:
        hp, hm, c = generic_floats(point, seed, chunk, systems)
        cols = batch.float64_transitions_batch(
            systems, hp, hm, c, point.rule, parallel=parallel
        )
        tally.add_measured({f"float64_{n}": cols[n] for n in cols.names}, ["float64"])
    return tally


def generic_floats(point: Point, seed: int, chunk: int, systems: Systems):
    """Float64 parameters of a chunk's systems as a floating-point code would draw them:
    the exact (quantised) midpoints and couplings plus independent uniform offsets of at
    most half a quantum, so their float64 sums round like generic numbers; the spans are
    kept exactly (spins keep h^+ = h^−) and c_ii = 0. Seeded by the point and the chunk."""
    rng = seeds.generator(seed, {**point.ensemble_identity(), "purpose": "float64"}, chunk)
    hp, hm, c = systems.to_floats()
    n, N = hp.shape
    shift = rng.uniform(-0.5, 0.5, (n, N)) * QUANTUM
    noise = rng.uniform(-0.5, 0.5, (n, N, N)) * QUANTUM
    noise[:, np.arange(N), np.arange(N)] = 0.0
    return hp + shift, hm + shift, c + noise


# ---- decoding kernel calls into the catalogue's named fields -----------------------------------


def decode_enumeration(
    out: batch.EnumerationOutput, systems: Systems, offset: int, records: bool = True
) -> dict:
    """Named fields of one enumeration call (every column, and the avalanche fields);
    ``records``: also the L = 4 records (only meaningful when it computed the transitions)."""
    cols = out.columns
    d = {name: cols[name] for name in cols.names}
    K = out.l4_state.shape[1]
    if records:
        table = l4_records(systems, out.l4_state, out.l4_mask, out.l4_count)
        table["system"] = table["system"] + offset
        d["l4_records"] = table
    d.update(
        N=systems.N,
        gap_fraction=out.gap_fraction,
        loop_length_hist=out.loop_length_hist,
        loop_elements_hist=out.loop_elements_hist,
        l4_count=out.l4_count,
        l4_recorded=np.minimum(out.l4_count, K),
        avalanche_prepared=cols["start_prepared"] == 1,
        avalanche_outcome=cols["avalanche_outcome"],
        avalanche_size=cols["avalanche_size"],
    )
    return d


def decode_self_loop_search(cols: batch.Columns) -> dict:
    """Named fields of one self-loop search call (group any_self_loop)."""
    return {
        "search_self_loop": cols["self_loop"],
        "search_found_by": cols["found_by"],
        "search_walks": cols["walks"],
        "search_nodes": cols["search_nodes"],
        "search_ties": cols["ties"],
    }


def decode_avalanche(cols: batch.Columns) -> dict:
    """Named fields of one event-driven avalanche call."""
    return {
        "avalanche_prepared": cols["prepared"] == 1,
        "race_first_flip": cols["race_first_flip"],
        "avalanche_outcome": cols["outcome"],
        "avalanche_size": cols["size"],
        "ties": cols["ties"],
    }


def decode_cyclic(cols: batch.Columns, umax: np.ndarray) -> dict:
    """Named fields of one cyclic-drive call."""
    return {
        "drive_prepared": cols["prepared"] == 1,
        "drive_outcome": cols["outcome"],
        "transient": cols["transient"],
        "period": cols["period"],
        "drive_ties": cols["ties"],
        "drive_amplitude": umax * 2.0**-QUANTUM_BITS,
    }


def decode_saturated_loop(
    out: batch.SaturatedLoopOutput, systems: Systems, offset: int, records: bool = True
) -> dict:
    """Named fields of one saturated-loop call: the per-system counts (``saturated_<column>``
    of ``codes.SATURATED_COLUMNS``), the recorded loops (``saturated_records``: source, L,
    n_e of every recorded transition that ended in a self-loop) and the records of the
    distinct L = 4 self-loops of two elements (a loop met again, from another state or
    field, is recorded once: same elements and same frozen state); ``records``: whether to
    build those records (the counts are always there)."""
    d = {f"saturated_{name}": out.summary[name] for name in out.summary.names}
    d["saturated_records_total"] = int(out.recorded.sum())
    rec = out.loops
    filled = np.arange(rec.array.shape[1])[None, :] < out.recorded[:, None]
    s, q = np.nonzero(filled & (rec["outcome"] == codes.SELF_LOOP))
    d["saturated_records"] = {name: rec[name][s, q] for name in ("source", "L", "n_e")}
    l4 = (rec["L"][s, q] == 4) & (rec["n_e"][s, q] == 2)
    s, q = s[l4], q[l4]
    k, l = rec["e1"][s, q], rec["e2"][s, q]
    identity = np.column_stack([s, np.minimum(k, l), np.maximum(k, l), rec["rest_hash"][s, q]])
    _, first = np.unique(identity, axis=0, return_index=True)
    first = np.sort(first)
    s, q, k, l = s[first], q[first], k[first], l[first]
    d["l4_count"] = out.summary["l4"]
    d["l4_recorded"] = np.bincount(s, minlength=systems.samples)
    if not records:
        return d
    hp, hm = systems.h_plus, systems.h_minus
    source = rec["source"][s, q]
    d["l4_records"] = {
        "system": s + offset,
        "branch": source % 2,
        "returning": source // 2,
        "loop_number": q,
        "c_kl": rec["c_kl"][s, q] * QUANTUM,
        "c_lk": rec["c_lk"][s, q] * QUANTUM,
        "h_tilde_k": rec["h2_k"][s, q] * (QUANTUM / 2),
        "h_tilde_l": rec["h2_l"][s, q] * (QUANTUM / 2),
        "sigma_k": (hp[s, k] - hm[s, k]) * QUANTUM,
        "sigma_l": (hp[s, l] - hm[s, l]) * QUANTUM,
    }
    return d


def l4_records(systems: Systems, l4_state, l4_mask, l4_count) -> dict:
    """Recorded L = 4 loops of two elements k < l: the system, the loop's index among the
    system's recorded loops, (c_kl, c_lk), spans, and midpoints rescaled by the frozen
    elements, h̃_i^c = h_i^c − Σ_{j≠k,l} c_ij s_j (field units)."""
    hp, hm, c = systems.to_floats()
    N = systems.N
    K = l4_state.shape[1]
    valid = np.arange(K)[None, :] < np.minimum(l4_count, K)[:, None]
    s, q = np.nonzero(valid)
    mask = l4_mask[s, q]
    state = l4_state[s, q]
    bits = (mask[:, None] >> np.arange(N)) & 1
    two = bits.sum(axis=1) == 2
    s, q, mask, state, bits = s[two], q[two], mask[two], state[two], bits[two]
    k = np.argmax(bits, axis=1)
    l = N - 1 - np.argmax(bits[:, ::-1], axis=1)
    spins = np.where((state[:, None] >> np.arange(N)) & 1, 1.0, -1.0) * (1 - bits)
    mid = 0.5 * (hp + hm)
    field = np.einsum("rij,rj->ri", c[s], spins)
    rows = np.arange(s.size)
    return {
        "system": s,
        "loop_number": q,
        "c_kl": c[s, k, l],
        "c_lk": c[s, l, k],
        "h_tilde_k": mid[s, k] - field[rows, k],
        "h_tilde_l": mid[s, l] - field[rows, l],
        "sigma_k": hp[s, k] - hm[s, k],
        "sigma_l": hp[s, l] - hm[s, l],
    }


# ---- the guard of the strictly self-loop-free ensembles --------------------------------------


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

    Under rule 2 (every unstable element flips at once) see :func:`rule_two_problems`.
    """
    if point.couplings not in SELF_LOOP_FREE:
        return
    if point.rule == "2":
        bad = rule_two_problems(point, tally)
        if bad:
            raise RuntimeError(f"rule-2 statement violated in the ensemble {point}: {bad}")
        return
    keys = [
        "avalanche_self_loop_probability",
        "drive_self_loop_probability",
        "saturated_loop_probability",
        "saturated_loop_any_probability",
        "self_loop_probability",
    ]
    if point.couplings == "symmetric":
        keys.append("self_loop_probability_at_zero")
    bad = {k: tally.counts[k] for k in keys if tally.counts.get(k, 0)}
    # the preparation (rule 1 from a random state at H = 0) always reaches a stable S0
    # in these ensembles (paper, large-N protocol); a start that did not is a self-loop
    trials = tally.counts.get("samples", 0)
    for key in ("prepared_starts", "drive_self_loop_probability_trials"):
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


#: Rule 2 in the self-loop-free ensembles: every self-loop length histogram of transitions
#: out of stable states holds L = 2 loops only (ferromagnetic couplings: none at all).
RULE_TWO_LENGTH_HISTS = ("self_loop_length_hist", "saturated_loop_length_hist")
RULE_TWO_PROBABILITIES = (
    "self_loop_probability",
    "avalanche_self_loop_probability",
    "drive_self_loop_probability",
    "saturated_loop_any_probability",
)


def rule_two_problems(point: Point, tally: Tally) -> dict:
    """What contradicts the Supplemental's rule-2 statements in a tally of a self-loop-free
    ensemble (an empty dict if nothing does).

    Ferromagnetic couplings: no self-loop in any transition out of a stable state (every
    flip goes along the drive, so the magnetisation is monotonic; the paper finds none).
    Symmetric, constant-column and constant-row couplings: "all self-loops have size
    L = 2" (the 2-cycles of parallel updates).
    """
    bad = {}
    if point.couplings == "ferro":
        for key in RULE_TWO_PROBABILITIES:
            if tally.counts.get(key, 0):
                bad[key] = tally.counts[key]
        return bad
    for key in RULE_TWO_LENGTH_HISTS:
        hist = tally.hists.get(key)
        if hist is not None:
            other = int(hist.sum()) - int(hist[2] if hist.size > 2 else 0)
            if other:
                bad[f"{key} (L != 2)"] = other
    return bad


def sample_point(
    point: Point,
    samples: int,
    seed: int,
    groups=None,
    chunks: list[int] | None = None,
    progress: Callable[[int, int, int, float], None] | None = None,
    records: dict | None = None,
) -> Tally:
    """Tally ``samples`` systems of ``point`` (all chunks, or only ``chunks``), in chunk order;
    ``records``: records kept per point by name (see :func:`sample_chunk`)."""
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
        total.merge(sample_chunk(point, seed, k, size, groups, records=records))
        done += size
        if progress is not None:
            progress(i + 1, len(bounds), done, done / max(time.perf_counter() - t0, 1e-9))
    return total
