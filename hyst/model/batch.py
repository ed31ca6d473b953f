"""Batch kernel calls with named outputs: the one gateway to the threaded batch kernels.

Every caller in the package (the sampler's passes, the study kinds, the drive protocols)
runs the numba batch kernels (``jit.batch_kernel``: on all
threads, or their ``.serial`` twins) through the wrappers of this module, which build the
kernels' work arrays once, and reads their outputs by name (:mod:`hyst.kernels.codes`),
never by position; no other module of the package chooses a batch kernel's threads
(``jit.on_threads``), except :mod:`hyst.model.systems`, which lays out a batch's couplings
densely (``dense_couplings``, serial below a size). The networks' scans and chains (the
kernels of bilinear elements) have their gateway beside this one,
:mod:`hyst.model.network_batch`, whose wrappers join the same :data:`GATEWAYS`: a module
of its own, so that a change to those kernels recomputes the networks' results and no
sampled point. ``parallel=True`` runs a kernel on
all numba threads (``prange``); ``parallel=False`` keeps it on the calling thread (for
thread pools such as Dask workers). Both give identical results.

Each wrapper names the kernel(s) it runs with :func:`runs` (``wrapper.kernels``: the kernel
functions themselves), and :data:`GATEWAYS` lists the wrappers, so that a reader, an IDE and
the figure-to-kernel page of the documentation (:mod:`hyst.pipeline.kernel_map`) go from a
kernel pass to its kernel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from hyst.kernels import (
    addressing,
    codes,
    drive,
    first_loops,
    protocol_batches,
    roundoff,
    self_loop_search,
    self_loop_search_directed,
    state_table,
)
from hyst.kernels import protocols as drive_protocols
from hyst.kernels.jit import on_threads
from hyst.kernels.operands import EnumerationArrays, SaturatedLoopArrays, SystemBatch
from hyst.model.flip_times import kernel_rule
from hyst.model.systems import MAX_THRESHOLD, QUANTUM, QUANTUM_BITS, Systems, rule_code

#: Distinct L = 4 self-loops of two elements recorded per system (the count is always exact).
L4_PER_SYSTEM = 16
#: Saturated loop: transitions that did not end stable recorded per system (the counts are
#: exact; the loop-length histograms and the L = 4 records are built from the recorded ones,
#: the rest is counted as ``saturated_loop_unrecorded``). 128 (13 KiB per system) is about
#: three times the most a system meets in the study that uses it (at most 44 in 128 systems of
#: random spins at N = 1024, N J0 = 10; 17 for hysterons); the datasets were made with it.
LOOP_RECORDS_PER_SYSTEM = 128
#: Default limit on the cycles of a cyclic drive before it is reported as not converged.
MAX_CYCLES = 100_000

#: The wrappers of this module by name: the gateway to every threaded batch kernel.
GATEWAYS: dict[str, Callable] = {}


def runs(*kernels: Callable) -> Callable:
    """Declare the numba kernel(s) a wrapper of this module runs: ``wrapper.kernels`` holds
    the kernel functions (of :mod:`hyst.kernels`), and the wrapper joins :data:`GATEWAYS`."""

    def declare(wrapper: Callable) -> Callable:
        wrapper.kernels = kernels
        GATEWAYS[wrapper.__name__] = wrapper
        return wrapper

    return declare


@functools.cache
def _column_index(names: tuple[str, ...]) -> dict[str, int]:
    """Where each name of ``names`` is (``Columns``; built once per tuple of names)."""
    return {name: k for k, name in enumerate(names)}


class Columns:
    """A 2-D (or 3-D) integer kernel output read by column name: ``out["outcome"]``."""

    def __init__(self, array: np.ndarray, names: tuple[str, ...]):
        if array.shape[-1] != len(names):
            raise ValueError(f"Columns: {array.shape[-1]} columns for {len(names)} names")
        self.array = array
        self.names = names
        self._index = _column_index(names)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.array[..., self._index[name]]

    def __contains__(self, name: str) -> bool:
        return name in self._index


@dataclass
class EnumerationOutput:
    """Outputs of ``state_table.enumerate_observables`` for a batch of n systems.

    columns: per-sample integers (``codes.ENUMERATION_COLUMNS``); gap_fraction: f_G per
    sample; loop_length_hist / loop_elements_hist: distinct self-loops met in the P_sl
    transitions by length L and element count n_e (summed over the batch); l4_state,
    l4_mask, l4_count: the first ``L4_PER_SYSTEM`` distinct L = 4 loops of two elements of
    each system (smallest bitmask of the cycle, flipping elements) and how many there were.
    """

    columns: Columns
    gap_fraction: np.ndarray
    loop_length_hist: np.ndarray
    loop_elements_hist: np.ndarray
    l4_state: np.ndarray
    l4_mask: np.ndarray
    l4_count: np.ndarray


@runs(state_table.enumerate_observables)
def enumerate_batch(
    systems: Systems,
    starts,
    rule,
    what: int = codes.WHAT_ALL,
    *,
    parallel: bool = True,
    l4_per_system: int = L4_PER_SYSTEM,
    flip_times=None,
) -> EnumerationOutput:
    """Run the enumeration kernel (all 2^N states) on a batch of small systems.

    ``starts``: (n,) random start bitmasks; ``what``: bitmask of ``codes.WHAT_*`` groups;
    ``flip_times``: quantised flip times ((N,), (1, N) or (n, N) int64,
    :mod:`hyst.model.flip_times`), needed by the flip-time rule ``"tau"`` only.
    """
    n, N = systems.h_plus.shape
    code, tau = kernel_rule(rule, flip_times, n, N)
    blocks = max(1, min(n, numba.get_num_threads())) if parallel else 1
    out = EnumerationArrays(
        np.zeros((n, len(codes.ENUMERATION_COLUMNS)), np.int64),
        np.zeros(n),
        np.zeros((blocks, (1 << N) + 1), np.int64),
        np.zeros((blocks, N + 1), np.int64),
        np.zeros((n, l4_per_system), np.int64),
        np.zeros((n, l4_per_system), np.int64),
        np.zeros(n, np.int64),
    )
    kernel = on_threads(state_table.enumerate_observables, parallel)
    kernel(
        systems.kernel_batch(dense=True),
        np.asarray(starts, np.int64),
        code,
        int(what),
        out,
        tau,
    )
    return EnumerationOutput(
        Columns(out.columns, codes.ENUMERATION_COLUMNS),
        out.gap_fraction,
        out.loop_lengths.sum(axis=0),
        out.loop_elements.sum(axis=0),
        out.l4_state,
        out.l4_mask,
        out.l4_count,
    )


@runs(drive.avalanche_batch)
def avalanche_batch(systems: Systems, start_spins, rule, *, parallel: bool = True) -> Columns:
    """Avalanches from prepared stable states (any N): ``codes.AVALANCHE_COLUMNS`` per sample.

    ``start_spins``: (n, N) int8 ±1 random starts, relaxed at H = 0 under rule 1 to S0.
    """
    n = systems.samples
    out = np.zeros((n, len(codes.AVALANCHE_COLUMNS)), np.int64)
    kernel = on_threads(drive.avalanche_batch, parallel)
    kernel(systems.kernel_batch(), np.asarray(start_spins, np.int8), rule_code(rule), out)
    return Columns(out, codes.AVALANCHE_COLUMNS)


@runs(drive.cyclic_drive_batch)
def cyclic_drive_batch(
    systems: Systems, start_spins, rule, max_cycles: int, *, parallel: bool = True
) -> tuple[Columns, np.ndarray]:
    """Cyclic drive between 0 and U_max (any N): (``codes.CYCLIC_COLUMNS`` per sample,
    U_max per sample in quanta)."""
    n = systems.samples
    out = np.zeros((n, len(codes.CYCLIC_COLUMNS)), np.int64)
    umax = np.zeros(n, np.int64)
    kernel = on_threads(drive.cyclic_drive_batch, parallel)
    spins = np.asarray(start_spins, np.int8)
    kernel(systems.kernel_batch(), spins, rule_code(rule), int(max_cycles), out, umax)
    return Columns(out, codes.CYCLIC_COLUMNS), umax


@runs(drive.avalanche_cyclic_batch)
def avalanche_cyclic_batch(
    systems: Systems, start_spins, rule, max_cycles: int, *, parallel: bool = True
) -> tuple[Columns, Columns, np.ndarray]:
    """``avalanche_batch`` and ``cyclic_drive_batch`` of the same systems in one kernel pass
    (each system's couplings viewed and its start prepared once): (avalanche columns,
    cyclic columns, U_max), equal to the two calls' outputs."""
    n = systems.samples
    av = np.zeros((n, len(codes.AVALANCHE_COLUMNS)), np.int64)
    cy = np.zeros((n, len(codes.CYCLIC_COLUMNS)), np.int64)
    umax = np.zeros(n, np.int64)
    kernel = on_threads(drive.avalanche_cyclic_batch, parallel)
    spins = np.asarray(start_spins, np.int8)
    kernel(systems.kernel_batch(), spins, rule_code(rule), int(max_cycles), av, cy, umax)
    return Columns(av, codes.AVALANCHE_COLUMNS), Columns(cy, codes.CYCLIC_COLUMNS), umax


@dataclass
class SaturatedLoopOutput:
    """Outputs of ``drive.saturated_loop_batch`` for a batch of n systems.

    summary: per-system counts (``codes.SATURATED_COLUMNS``); loops: (n, K) records of the
    transitions that did not end stable (``codes.LOOP_COLUMNS``), of which the first
    ``recorded[k]`` of system k are filled.
    """

    summary: Columns
    loops: Columns
    recorded: np.ndarray


@runs(drive.saturated_loop_batch)
def saturated_loop_batch(
    systems: Systems,
    rule,
    *,
    return_events: int = 1,
    max_loops: int = 8,
    records_per_system: int = LOOP_RECORDS_PER_SYSTEM,
    parallel: bool = True,
) -> SaturatedLoopOutput:
    """Transitions out of the stable states along the saturated hysteresis loop and the
    returns from its turning points (any N; protocol: ``drive.saturated_loop_batch``)."""
    n = systems.samples
    out = SaturatedLoopArrays(
        np.zeros((n, len(codes.SATURATED_COLUMNS)), np.int64),
        np.zeros((n, records_per_system, len(codes.LOOP_COLUMNS)), np.int64),
        np.zeros(n, np.int64),
    )
    kernel = on_threads(drive.saturated_loop_batch, parallel)
    kernel(systems.kernel_batch(), rule_code(rule), int(return_events), int(max_loops), out)
    return SaturatedLoopOutput(
        Columns(out.summary, codes.SATURATED_COLUMNS),
        Columns(out.records, codes.LOOP_COLUMNS),
        out.recorded,
    )


@runs(first_loops.first_loops_batch)
def first_loops_batch(systems: Systems, rule, *, parallel: bool = True) -> Columns:
    """The first self-loop of each main branch of the saturated loop (any N):
    ``codes.MECH_LOOP_COLUMNS`` per system and branch (n, 2), the mapped counterpart of the
    serial chains' mechanical simulation (``first_loops.first_loops_batch``)."""
    out = np.zeros((systems.samples, 2, len(codes.MECH_LOOP_COLUMNS)), np.int64)
    kernel = on_threads(first_loops.first_loops_batch, parallel)
    kernel(systems.kernel_batch(), rule_code(rule), out)
    return Columns(out, codes.MECH_LOOP_COLUMNS)


@runs(self_loop_search.any_self_loop_batch, self_loop_search_directed.any_self_loop_directed_batch)
def any_self_loop_batch(
    systems: Systems,
    rule,
    *,
    parallel: bool = True,
    reachable_cap: int = codes.SEARCH_REACHABLE_CAP,
    flip_times=None,
) -> Columns:
    """P_sl alone without the 2^N state table (N ≤ ``codes.SEARCH_BITMASK_MAX_N``):
    ``codes.SEARCH_COLUMNS`` per sample.

    ``self_loop`` is 1 iff some transition out of some potentially stable state ends in
    a self-loop, exactly as the enumeration's ``n_self_loop_transitions > 0`` (rule 0: a
    transition that meets a race condition is ill-defined, not a self-loop); ``found_by``
    says which phase found it (``codes.FOUND_*``); for a loop-free system
    ``potentially_stable_searched``, ``walks`` and ``ties`` equal the enumeration's
    ``n_potentially_stable``, ``n_transitions`` and transition ties. ``reachable_cap``
    bounds the first phase's queue (0 skips it; every value gives the same answers).
    ``flip_times``: quantised flip times ((N,), (1, N) or (n, N) int64), needed by the
    flip-time rule ``"tau"`` only. Direction-dependent couplings run
    ``self_loop_search_directed`` (the same search with the bounds of both matrices).
    """
    N = systems.N
    if not 2 <= N <= codes.SEARCH_BITMASK_MAX_N:
        raise ValueError(
            f"N: {N} is not allowed for the self-loop search (2 <= N <= "
            f"{codes.SEARCH_BITMASK_MAX_N})"
        )
    if not isinstance(reachable_cap, int | np.integer) or reachable_cap < 0:
        raise ValueError(f"reachable_cap: {reachable_cap!r} is not allowed (an integer >= 0)")
    out = np.zeros((systems.samples, len(codes.SEARCH_COLUMNS)), np.int64)
    if systems.directed:
        kernel = on_threads(self_loop_search_directed.any_self_loop_directed_batch, parallel)
    else:
        kernel = on_threads(self_loop_search.any_self_loop_batch, parallel)
    blocks = min(systems.samples, 8 * 64) if parallel else 1
    code, tau = kernel_rule(rule, flip_times, systems.samples, N)
    kernel(systems.kernel_batch(dense=True), code, int(reachable_cap), blocks, out, tau)
    return Columns(out, codes.SEARCH_COLUMNS)


def search_workspace_bytes(N: int, reachable_cap: int = codes.SEARCH_REACHABLE_CAP) -> int:
    """Memory of one worker thread's self-loop search workspace, in bytes:
    8 (4 N² + 9 N + 12) for the couplings, the search stack and the fields, plus the
    reachable search's hash table (3 words per slot, a power of two ≥ 2 cap slots) and
    queue (cap words). 76 KiB at N = 24 with the default cap, whatever the system."""
    table = 3 * int(self_loop_search.table_size(reachable_cap)) + max(int(reachable_cap), 1)
    return 8 * (4 * N * N + 9 * N + 12) + 8 * table


@runs(roundoff.float64_transitions_batch)
def float64_transitions_batch(
    systems: Systems,
    h_plus,
    h_minus,
    couplings,
    rule,
    *,
    parallel: bool = True,
    couplings_minus=None,
) -> Columns:
    """The P_sl transitions in float64 (``hyst.kernels.roundoff``): the potentially stable
    states come from the exact ``systems``, the transitions are computed from the float64
    parameters ``h_plus``, ``h_minus``, ``couplings`` (n, N[, N]) and, for direction-
    dependent ``systems``, ``couplings_minus`` (c^−, (n, N, N); ``couplings`` is then c^+).
    ``codes.FLOAT64_COLUMNS`` per sample."""
    if systems.directed != (couplings_minus is not None):
        kind, want = ("direction-dependent", "need") if systems.directed else ("paper", "take no")
        raise ValueError(f"couplings_minus: the systems ({kind} couplings) {want} float64 c^-")
    if couplings_minus is not None:
        couplings = np.concatenate((couplings, couplings_minus), axis=1)
    n = systems.samples
    out = np.zeros((n, len(codes.FLOAT64_COLUMNS)), np.int64)
    kernel = on_threads(roundoff.float64_transitions_batch, parallel)
    floats = SystemBatch(
        np.ascontiguousarray(h_plus, np.float64),
        np.ascontiguousarray(h_minus, np.float64),
        codes.FORM_DENSE,
        np.ascontiguousarray(couplings, np.float64),
        np.zeros((n, 0)),
    )
    kernel(systems.kernel_batch(dense=True), floats, rule_code(rule), out)
    return Columns(out, codes.FLOAT64_COLUMNS)


def work_blocks(samples: int, parallel: bool) -> int:
    """The blocks of systems of a kernel that allocates its work arrays once per block:
    one per numba thread (at most one per system), one on the calling thread."""
    return max(1, min(samples, numba.get_num_threads())) if parallel else 1


@runs(protocol_batches.sweep_batch)
def amplitude_sweep_batch(
    systems: Systems,
    rule="1",
    max_cycles: int = MAX_CYCLES,
    first_only: bool = False,
    *,
    parallel: bool = True,
) -> Columns:
    """The amplitude sweep of every system of a batch (any N), summarised per system
    (``hyst.kernels.protocols.SWEEP_SUMMARY_COLUMNS``: critical amplitude and period,
    largest period, the first self-loop, the saturation field, return-point memory on the
    standard nested protocol ``hyst.kernels.sweep_summaries.nested_rpm``)."""
    out = np.zeros((systems.samples, len(drive_protocols.SWEEP_SUMMARY_COLUMNS)), np.int64)
    kernel = on_threads(protocol_batches.sweep_batch, parallel)
    code, first = rule_code(rule), bool(first_only)
    blocks = work_blocks(systems.samples, parallel)
    kernel(systems.kernel_batch(), code, int(max_cycles), first, blocks, out)
    return Columns(out, drive_protocols.SWEEP_SUMMARY_COLUMNS)


@runs(protocol_batches.sweep_system)
def amplitude_sweep_one(
    h_plus: np.ndarray,
    h_minus: np.ndarray,
    couplings: np.ndarray,
    rule: int,
    max_cycles: int = MAX_CYCLES,
    first_only: bool = False,
    nested: bool = True,
) -> tuple[Columns, np.ndarray]:
    """The amplitude sweep of one system given as plain quantised arrays (int64, C-contiguous:
    h_plus, h_minus (N,), couplings (N, N), zero diagonal, already checked against
    overflow as ``Systems`` checks; ``rule`` a kernel rule code), on the calling thread:
    the summary row (1, ``SWEEP_SUMMARY_COLUMNS``) of ``amplitude_sweep_batch``, the
    return-point memory on the nested protocol only with ``nested`` (else −1), and the
    rows ``hyst.kernels.protocols.SWEEP_COLUMNS`` of the amplitudes driven. No
    ``Systems`` and no ``SystemBatch`` are built: the single-system path of the public
    API, a few µs of dispatch instead of tens."""
    out = np.empty((1, len(drive_protocols.SWEEP_SUMMARY_COLUMNS)), np.int64)
    rows = protocol_batches.sweep_system(
        h_plus, h_minus, couplings, rule, max_cycles, first_only, nested, out[0]
    )
    return Columns(out, drive_protocols.SWEEP_SUMMARY_COLUMNS), rows


@runs(protocol_batches.sweep_fields)
def amplitude_sweep_fields(
    h_plus: np.ndarray,
    h_minus: np.ndarray,
    couplings: np.ndarray,
    rule: int,
    max_cycles: int = MAX_CYCLES,
    first_only: bool = False,
) -> Columns | None:
    """The amplitude sweep of one system given in field units (float64, C-contiguous:
    h_plus, h_minus (N,), couplings (N, N)), checked and quantised in the kernel exactly as
    ``Systems.from`` the public API's arrays (``hyst.api.batch``): the summary row (1,
    ``SWEEP_SUMMARY_COLUMNS``) of ``amplitude_sweep_batch``, or None where a check fails
    (a value not finite or too large, a self-coupling, thresholds that could overflow):
    the caller then checks the arrays itself and names what failed."""
    out = np.empty((1, len(drive_protocols.SWEEP_SUMMARY_COLUMNS)), np.int64)
    limit = MAX_THRESHOLD * QUANTUM / h_plus.shape[0]
    if not protocol_batches.sweep_fields(
        h_plus, h_minus, couplings, limit, 2.0**QUANTUM_BITS, MAX_THRESHOLD, rule, max_cycles,
        first_only, out[0],
    ):  # fmt: skip
        return None
    return Columns(out, drive_protocols.SWEEP_SUMMARY_COLUMNS)


@runs(protocol_batches.symmetric_batch)
def symmetric_drive_batch(
    systems: Systems,
    amplitudes,
    rule="1",
    max_cycles: int = MAX_CYCLES,
    *,
    parallel: bool = True,
) -> Columns:
    """The symmetric drive ±A from saturation (as ``hyst.model.protocols.symmetric_drive``)
    of every system k of a batch at amplitudes[k] (int quanta, ≥ 0; one value for all),
    summarised per system (``hyst.kernels.protocols.DRIVE_COLUMNS``: outcome, τ, T, the
    self-loop that stopped it, ...)."""
    amps = np.broadcast_to(np.asarray(amplitudes, np.int64), (systems.samples,)).copy()
    if (amps < 0).any():
        raise ValueError(f"amplitude: {int(amps.min())} is negative (A >= 0)")
    out = np.zeros((systems.samples, len(drive_protocols.DRIVE_COLUMNS)), np.int64)
    kernel = on_threads(protocol_batches.symmetric_batch, parallel)
    blocks = work_blocks(systems.samples, parallel)
    kernel(systems.kernel_batch(), amps, rule_code(rule), int(max_cycles), blocks, out)
    return Columns(out, drive_protocols.DRIVE_COLUMNS)


@runs(addressing.address_batch)
def address_batch(
    systems: Systems, rule="1", reachable: bool = True, *, parallel: bool = True
) -> Columns:
    """Addressability of every system of a batch (N ≤ 64): per system
    ``hyst.kernels.addressing.ADDRESS_COLUMNS``: the number of stable states addressable in
    one drive cycle from saturation (up to H1, down to H2) and, with ``reachable`` and
    N ≤ ``hyst.kernels.addressing.REACHABLE_MAX_N``, the number reachable by any field
    history (else −1)."""
    if systems.N > addressing.ADDRESSABLE_MAX_N:
        raise ValueError(
            f"N: {systems.N} is not allowed (addressability: N <= {addressing.ADDRESSABLE_MAX_N})"
        )
    out = np.zeros((systems.samples, len(addressing.ADDRESS_COLUMNS)), np.int64)
    kernel = on_threads(addressing.address_batch, parallel)
    kernel(systems.kernel_batch(), rule_code(rule), bool(reachable), out)
    return Columns(out, addressing.ADDRESS_COLUMNS)
