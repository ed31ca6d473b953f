"""The sampler's table: which kernel pass computes each observable group, and how it is read.

A *kernel pass* is one batch-kernel call over a chunk of systems (:mod:`hyst.model.batch`)
and its decoder, which names the call's outputs as the fields the catalogue's ``measure``
functions read (:mod:`hyst.catalogue`, "Decoded kernel calls"). The chunk's
:class:`~hyst.sampling.tallies.Tally` then tallies every catalogue observable of the groups
the pass served (:meth:`~hyst.sampling.tallies.Tally.add_measured`): a group's tally is its
observables in the catalogue.

:data:`SOURCES` maps every observable group of :data:`hyst.catalogue.GROUPS` to the passes
that can compute it, first choice first. A source that *joins* other groups computes its
group only when its pass runs anyway for one of them, at no extra kernel pass: the
enumeration computes the avalanche beside the transitions or the zero-field dynamics, and
its transitions give the self-loop search's P_sl per system. :func:`plan` chooses the passes
of a chunk; they run in the order their first source appears in :data:`SOURCES`.

Adding a group: its observables in the catalogue, one entry in :data:`SOURCES`, and, when no
pass computes it yet, its kernel wrapper in :mod:`hyst.model.batch` and a
:class:`KernelPass` (call and decoder) here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hyst.catalogue import GROUPS, PROBABILITY, Observable, observables
from hyst.kernels import codes
from hyst.model import batch, seeds
from hyst.model.systems import QUANTUM, QUANTUM_BITS, Systems

#: Cyclic drive: cycles after which a sample is reported as not converged.
MAX_DRIVE_CYCLES = 100_000
#: Saturated loop: transitions driven back from every turning point of the main branches,
#: and self-loops a main branch drives through before it ends at the next one
#: (``hyst.kernels.drive.saturated_loop_batch``). Its records per system:
#: ``hyst.model.batch.LOOP_RECORDS_PER_SYSTEM``.
SATURATED_RETURN_EVENTS = 2
SATURATED_MAX_LOOPS = 8


@dataclass(frozen=True)
class Chunk:
    """A chunk of a point as the kernel passes read it.

    ``point``: the sweep point (:class:`hyst.sampling.sampler.Point`), ``seed`` its base
    seed and ``index`` the chunk's index (they key the float64 parameters); ``offset``: the
    point-wide index of the chunk's first system (record tables number systems within the
    point); ``systems`` and ``start_spins`` ((n, N) int8 ±1 random starts): what the chunk
    drew; ``records``: whether the point keeps records (decoders build record tables only
    then); ``parallel``: kernels on all numba threads, or on the calling thread only;
    ``backend``: where the enumeration and the self-loop search run ("cpu" or "cuda",
    :mod:`hyst.model.cuda_batch`; the same results).
    """

    point: object
    seed: int
    index: int
    offset: int
    systems: Systems
    start_spins: np.ndarray
    records: bool
    parallel: bool
    backend: str = "cpu"


@dataclass(frozen=True)
class KernelPass:
    """One batch-kernel call over a chunk: ``call(chunk, served)`` runs it for the groups
    ``served`` and returns its raw output; ``decode(output, chunk, served)`` returns the
    named fields the catalogue measures; ``kernels``: the wrappers of :mod:`hyst.model.batch`
    that ``call`` may run (each names its numba kernel: ``wrapper.kernels``), the function
    objects themselves, so that a reader goes from a group to its kernel
    (``tests/test_kernel_map.py`` checks them against ``call``'s code).

    ``one_call``: whether the call does the same work whichever of its groups it serves,
    that of its most costly one (the amplitude sweep gives multiperiodic and periods alike;
    the addressing call's reachability includes addressability), so that a point's
    estimate counts the most costly served group's rate once
    (:func:`hyst.sampling.cost.point_seconds`); otherwise each served group adds its own
    work (the enumeration's bits of ``what``, the drive's avalanche and cyclic parts)."""

    name: str
    call: Callable
    decode: Callable
    kernels: tuple[Callable, ...]
    one_call: bool = False


@dataclass(frozen=True)
class Source:
    """A pass that computes a group; with ``joins``, only when the pass runs anyway for one
    of those groups."""

    kernel: KernelPass
    joins: tuple[str, ...] = ()


# ---- the enumeration of all 2^N states (groups transitions, zero_field; avalanche joins) -------

#: The enumeration computes these groups when its ``what`` bitmask has their bit.
ENUMERATION_BITS = {
    "transitions": codes.WHAT_TRANSITIONS,
    "zero_field": codes.WHAT_ZERO_FIELD,
    "avalanche": codes.WHAT_AVALANCHE,
}


def call_enumeration(chunk: Chunk, served) -> batch.EnumerationOutput:
    """Run the enumeration of all 2^N states on a chunk's systems, from its random starts,
    computing the groups ``served`` asks for (their bits of ``what``)."""
    what = 0
    for group in served:
        what |= ENUMERATION_BITS.get(group, 0)
    bits = np.int64(1) << np.arange(chunk.point.N, dtype=np.int64)
    starts = (chunk.start_spins > 0).astype(np.int64) @ bits  # the random starts as bitmasks
    if chunk.backend == "cuda":
        from hyst.model import cuda_batch

        return cuda_batch.enumerate_batch(
            chunk.systems, starts, chunk.point.rule, what, parallel=chunk.parallel
        )
    return batch.enumerate_batch(
        chunk.systems, starts, chunk.point.rule, what, parallel=chunk.parallel
    )


def decode_enumeration(out: batch.EnumerationOutput, chunk: Chunk, served) -> dict:
    """Named fields of one enumeration call (every column, and the avalanche fields); the
    L = 4 records when the point keeps records and the call computed the transitions."""
    cols = out.columns
    d = {name: cols[name] for name in cols.names}
    K = out.l4_state.shape[1]
    if chunk.records and "transitions" in served:
        table = l4_records(chunk.systems, out.l4_state, out.l4_mask, out.l4_count)
        table["system"] = table["system"] + chunk.offset
        d["l4_records"] = table
    d.update(
        N=chunk.point.N,
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


# ---- the self-loop search (group any_self_loop) -------------------------------------------------


def call_self_loop_search(chunk: Chunk, _served) -> batch.Columns:
    """Run the self-loop search (group any_self_loop) on a chunk's systems under the
    point's rule."""
    if chunk.backend == "cuda":
        from hyst.model import cuda_batch

        return cuda_batch.any_self_loop_batch(chunk.systems, chunk.point.rule)
    return batch.any_self_loop_batch(chunk.systems, chunk.point.rule, parallel=chunk.parallel)


#: Decoded field -> column of ``codes.SEARCH_COLUMNS``.
SEARCH_FIELDS = {
    "search_self_loop": "self_loop",
    "search_found_by": "found_by",
    "search_walks": "walks",
    "search_nodes": "search_nodes",
    "search_ties": "ties",
}


def decode_self_loop_search(cols: batch.Columns, _chunk, _served) -> dict:
    """Named fields of one self-loop search call."""
    return _renamed(cols, SEARCH_FIELDS)


def _renamed(cols: batch.Columns, fields: dict) -> dict:
    """{field: cols[column]} for the (field, column) pairs of ``fields``."""
    return {field: cols[column] for field, column in fields.items()}


# ---- the event-driven drives from a prepared stable state (groups avalanche, cyclic) -----------


def call_drive(chunk: Chunk, served) -> tuple:
    """(avalanche columns or None, (cyclic columns, U_max) or None): both groups in one
    kernel pass (one preparation per system) when both are served."""
    args = (chunk.systems, chunk.start_spins, chunk.point.rule)
    if "avalanche" in served and "cyclic" in served:
        av, cy, umax = batch.avalanche_cyclic_batch(
            *args, MAX_DRIVE_CYCLES, parallel=chunk.parallel
        )
        return av, (cy, umax)
    if "avalanche" in served:
        return batch.avalanche_batch(*args, parallel=chunk.parallel), None
    return None, batch.cyclic_drive_batch(*args, MAX_DRIVE_CYCLES, parallel=chunk.parallel)


#: Decoded field -> column of ``codes.AVALANCHE_COLUMNS`` and of ``codes.CYCLIC_COLUMNS``.
AVALANCHE_FIELDS = {
    "race_first_flip": "race_first_flip",
    "avalanche_outcome": "outcome",
    "avalanche_size": "size",
    "ties": "ties",
}
CYCLIC_FIELDS = {
    "drive_outcome": "outcome",
    "transient": "transient",
    "period": "period",
    "drive_ties": "ties",
}


def decode_drive(out: tuple, _chunk, _served) -> dict:
    """Named fields of the avalanche and of the cyclic drive, as far as the pass ran them."""
    av, cyclic = out
    d = {}
    if av is not None:
        d.update(_renamed(av, AVALANCHE_FIELDS), avalanche_prepared=av["prepared"] == 1)
    if cyclic is not None:
        cy, umax = cyclic
        d.update(_renamed(cy, CYCLIC_FIELDS), drive_prepared=cy["prepared"] == 1)
        d["drive_amplitude"] = umax * 2.0**-QUANTUM_BITS
    return d


# ---- the saturated loop with returns (group saturated_loop) -------------------------------------


def call_saturated_loop(chunk: Chunk, _served) -> batch.SaturatedLoopOutput:
    """Run the saturated loop with returns (group saturated_loop) on a chunk's systems, keeping
    at most the configured return events and loops per system."""
    return batch.saturated_loop_batch(
        chunk.systems,
        chunk.point.rule,
        return_events=SATURATED_RETURN_EVENTS,
        max_loops=SATURATED_MAX_LOOPS,
        parallel=chunk.parallel,
    )


def decode_saturated_loop(out: batch.SaturatedLoopOutput, chunk: Chunk, _served) -> dict:
    """Named fields of one saturated-loop call: the per-system counts (``saturated_<column>``
    of ``codes.SATURATED_COLUMNS``), the recorded loops (``saturated_records``: source, L,
    n_e of every recorded transition that ended in a self-loop) and, when the point keeps
    records, the records of the distinct L = 4 self-loops of two elements (a loop met again,
    from another state or field, is recorded once: same elements and same frozen state)."""
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
    systems = chunk.systems
    d["l4_count"] = out.summary["l4"]
    d["l4_recorded"] = np.bincount(s, minlength=systems.samples)
    if not chunk.records:
        return d
    hp, hm = systems.h_plus, systems.h_minus
    source = rec["source"][s, q]
    d["l4_records"] = {
        "system": s + chunk.offset,
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


# ---- the amplitude sweep of the symmetric cyclic drive (group multiperiodic) ------------------


def call_amplitude_sweep(chunk: Chunk, _served) -> batch.Columns:
    """Run the amplitude sweep of the symmetric cyclic drive (group multiperiodic) on a chunk's
    systems, at most ``MAX_DRIVE_CYCLES`` drive cycles per amplitude."""
    return batch.amplitude_sweep_batch(
        chunk.systems, chunk.point.rule, MAX_DRIVE_CYCLES, parallel=chunk.parallel
    )


def decode_amplitude_sweep(cols: batch.Columns, _chunk, _served) -> dict:
    """Named fields of one amplitude-sweep call: ``mp_<column>`` of
    ``hyst.kernels.protocols.SWEEP_SUMMARY_COLUMNS``."""
    return {f"mp_{name}": cols[name] for name in cols.names}


# ---- the P_sl transitions in float64 (group float64) --------------------------------------------


def generic_floats(point, seed: int, chunk: int, systems: Systems):
    """Float64 parameters of a chunk's systems as a floating-point code would draw them:
    the exact (quantised) midpoints and couplings plus independent uniform offsets of at
    most half a quantum, so their float64 sums round like generic numbers; the spans are
    kept exactly (spins keep h^+ = h^−) and c_ii = 0. Seeded by the point (its ensemble
    identity) and the chunk."""
    rng = seeds.generator(seed, {**point.ensemble_identity(), "purpose": "float64"}, chunk)
    hp, hm, c = systems.to_floats()
    n, N = hp.shape
    shift = rng.uniform(-0.5, 0.5, (n, N)) * QUANTUM
    noise = rng.uniform(-0.5, 0.5, (n, N, N)) * QUANTUM
    noise[:, np.arange(N), np.arange(N)] = 0.0
    return hp + shift, hm + shift, c + noise


def generic_minus_floats(point, seed: int, chunk: int, systems: Systems) -> np.ndarray:
    """Float64 c^− of a chunk's direction-dependent systems as :func:`generic_floats` draws
    c^+: the exact c^− plus independent offsets of at most half a quantum (c_ii = 0), from a
    stream of their own (the paper's model draws nothing more)."""
    identity = {**point.ensemble_identity(), "purpose": "float64 c_minus"}
    rng = seeds.generator(seed, identity, chunk)
    n, N = systems.samples, systems.N
    noise = rng.uniform(-0.5, 0.5, (n, N, N)) * QUANTUM
    noise[:, np.arange(N), np.arange(N)] = 0.0
    return systems.couplings_minus * QUANTUM + noise


def call_float64(chunk: Chunk, _served) -> batch.Columns:
    """Run the pairwise P_sl transitions in float64 (group float64) on a chunk's systems, with
    the generic float parameters of :func:`generic_floats` (and :func:`generic_minus_floats`
    for direction-dependent couplings)."""
    hp, hm, c = generic_floats(chunk.point, chunk.seed, chunk.index, chunk.systems)
    minus = None
    if chunk.systems.directed:
        minus = generic_minus_floats(chunk.point, chunk.seed, chunk.index, chunk.systems)
    return batch.float64_transitions_batch(
        chunk.systems, hp, hm, c, chunk.point.rule, parallel=chunk.parallel, couplings_minus=minus
    )


def decode_float64(cols: batch.Columns, _chunk, _served) -> dict:
    """Named fields of one float64 call: ``float64_<column>`` of ``codes.FLOAT64_COLUMNS``."""
    return {f"float64_{name}": cols[name] for name in cols.names}


# ---- addressability (groups addressability, reachability) --------------------------------------


def call_addressing(chunk: Chunk, served) -> batch.Columns:
    """Run the addressability kernel on a chunk's systems under the point's rule: the states
    addressable in one drive cycle from saturation, and the reachable ones when group
    reachability is served."""
    return batch.address_batch(
        chunk.systems, chunk.point.rule, "reachability" in served, parallel=chunk.parallel
    )


def decode_addressing(cols: batch.Columns, chunk: Chunk, _served) -> dict:
    """Named fields of one addressability call: ``ad_<column>`` of
    ``hyst.kernels.addressing.ADDRESS_COLUMNS`` and ``N``."""
    d = {f"ad_{name}": cols[name] for name in cols.names}
    d["N"] = chunk.point.N
    return d


# ---- the table ----------------------------------------------------------------------------------

ENUMERATION = KernelPass(
    "enumeration", call_enumeration, decode_enumeration, (batch.enumerate_batch,)
)
SELF_LOOP_SEARCH = KernelPass(
    "self_loop_search",
    call_self_loop_search,
    decode_self_loop_search,
    (batch.any_self_loop_batch,),
)
DRIVE = KernelPass(
    "drive",
    call_drive,
    decode_drive,
    (batch.avalanche_cyclic_batch, batch.avalanche_batch, batch.cyclic_drive_batch),
)
SATURATED_LOOP = KernelPass(
    "saturated_loop", call_saturated_loop, decode_saturated_loop, (batch.saturated_loop_batch,)
)
FLOAT64 = KernelPass("float64", call_float64, decode_float64, (batch.float64_transitions_batch,))
AMPLITUDE_SWEEP = KernelPass(
    "amplitude_sweep",
    call_amplitude_sweep,
    decode_amplitude_sweep,
    (batch.amplitude_sweep_batch,),
    one_call=True,
)
ADDRESSING = KernelPass(
    "addressing", call_addressing, decode_addressing, (batch.address_batch,), one_call=True
)

#: Observable group -> the passes that can compute it, first choice first.
SOURCES: dict[str, tuple[Source, ...]] = {
    "transitions": (Source(ENUMERATION),),
    "zero_field": (Source(ENUMERATION),),
    # the transitions give the same P_sl per system as the search
    "any_self_loop": (Source(ENUMERATION, joins=("transitions",)), Source(SELF_LOOP_SEARCH)),
    "avalanche": (Source(ENUMERATION, joins=("transitions", "zero_field")), Source(DRIVE)),
    "cyclic": (Source(DRIVE),),
    "saturated_loop": (Source(SATURATED_LOOP),),
    "float64": (Source(FLOAT64),),
    "multiperiodic": (Source(AMPLITUDE_SWEEP),),
    "addressability": (Source(ADDRESSING),),
    "reachability": (Source(ADDRESSING),),
    "periods": (Source(AMPLITUDE_SWEEP),),
}
if set(SOURCES) != set(GROUPS):  # pragma: no cover - a declaration error
    raise RuntimeError(f"kernel passes for the groups {sorted(set(GROUPS) ^ set(SOURCES))}")
#: Passes in the order they run (the order their first source appears in SOURCES).
PASSES = tuple(dict.fromkeys(s.kernel for sources in SOURCES.values() for s in sources))


@functools.cache
def plan(groups: tuple[str, ...]) -> tuple[tuple[KernelPass, tuple[str, ...]], ...]:
    """The passes a chunk runs for ``groups`` (resolved, in catalogue order), each with the
    groups it serves, in :data:`PASSES` order."""
    served: dict[KernelPass, list[str]] = {}
    for group in groups:
        source = next(s for s in SOURCES[group] if not s.joins or set(s.joins) & set(groups))
        served.setdefault(source.kernel, []).append(group)
    return tuple((p, tuple(served[p])) for p in PASSES if p in served)


@functools.cache
def produced_by(served: tuple[str, ...]) -> tuple[Observable, ...]:
    """The catalogue's observables of the groups ``served`` (what a pass that served them
    tallies), in catalogue order."""
    return tuple(observables(groups=served))


def compute(chunk: Chunk, groups: tuple[str, ...]) -> list[tuple[Observable, object, object]]:
    """Run the kernel passes of ``groups`` on a chunk, decode each, and measure the catalogue's
    observables of the groups it served: [(observable, value, trials)] in pass order, for
    :meth:`hyst.sampling.tallies.Tally.add_measured` (``trials``: a probability's mask of
    the samples that count as trials, None for all samples or another kind)."""
    passes = plan(groups)
    outputs = [p.call(chunk, served) for p, served in passes]
    decoded = [
        (p.decode(out, chunk, served), served)
        for (p, served), out in zip(passes, outputs, strict=True)
    ]
    measured = []
    for fields, served in decoded:
        for o in produced_by(served):
            value = o.measure(fields)
            if value is not None:
                trials = o.trials(fields) if o.kind == PROBABILITY and o.trials else None
                measured.append((o, value, trials))
    return measured
