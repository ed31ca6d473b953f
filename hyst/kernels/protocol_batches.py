"""The drive protocols of :mod:`hyst.kernels.protocols` for a batch of systems: the
amplitude sweep and the symmetric drive of every system, in a compiled loop over the
systems on numba threads.

The systems are dealt in interleaved blocks, one block per thread, and each block
allocates its work arrays once (``protocols.SweepWork``, and the rows and states x that
grow, kept at the largest size a system of the block needed): at N = 3 a set of work
arrays allocated anew costs more than the whole sweep of a system. Every work array is
written before it is read, so the result does not depend on the split into blocks.
"""

from __future__ import annotations

from numba import prange

from hyst.kernels.codes import INF
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.protocols import (
    SS_RPM,
    SS_SATURATION,
    cycles,
    fill_symmetric_cycle,
    nested_rpm,
    saturate,
    sweep_arrays,
    sweep_rows,
    sweep_summary,
    sweep_work,
)
from hyst.kernels.relaxation import view_of


@jit
def sweep_one(k, systems, rule, max_cycles, first_only, out, w, rows, snaps, hashes):
    """System k of ``sweep_batch``, on the ``SweepWork`` w, rows, snaps and hashes (returned,
    grown where they were too small)."""
    v = view_of(k, systems, w.buf)
    n, preamble, ties, rows, snaps, hashes = sweep_rows(
        v, rule, max_cycles, first_only, w.summary, w, rows, snaps, hashes
    )
    o = out[k]
    sweep_summary(rows[:n], preamble, ties, o)
    o[SS_RPM] = -1
    if o[SS_SATURATION] < INF:
        o[SS_RPM] = nested_rpm(v, o[SS_SATURATION], rule, w)
    return rows, snaps, hashes


@jit
def sweep_block(b, blocks, systems, rule, max_cycles, first_only, out):
    """The systems b, b + blocks, … of ``sweep_batch`` on one set of work arrays."""
    N = systems.h_plus.shape[1]
    w = sweep_work(N, systems.form)
    rows, snaps, hashes = sweep_arrays(N)
    for k in range(b, systems.h_plus.shape[0], blocks):
        rows, snaps, hashes = sweep_one(
            k, systems, rule, max_cycles, first_only, out, w, rows, snaps, hashes
        )


@batch_kernel
def sweep_batch(systems, rule, max_cycles, first_only, blocks, out):
    """``sweep`` of each system of a batch (``operands.SystemBatch``): out[k] =
    ``SWEEP_SUMMARY_COLUMNS``. With ``first_only`` the sweep stops at the first T > 1 (the
    loop, ill-defined and saturation columns then describe the amplitudes below it, and the
    return-point memory is undefined where it stopped before saturation). The systems are
    dealt in ``blocks`` interleaved blocks (to numba threads; the serial twin takes one),
    one set of work arrays each: the result does not depend on the split."""
    for b in prange(blocks):
        sweep_block(b, blocks, systems, rule, max_cycles, first_only, out)


@jit
def symmetric_block(b, blocks, systems, amplitudes, rule, max_cycles, out):
    """The systems b, b + blocks, … of ``symmetric_batch`` on one set of work arrays: the
    symmetric drive of system k at amplitudes[k]."""
    N = systems.h_plus.shape[1]
    w = sweep_work(N, systems.form)
    _rows, snaps, hashes = sweep_arrays(N)
    st = w.st
    for k in range(b, systems.h_plus.shape[0], blocks):
        v = view_of(k, systems, w.buf)
        saturate(st, v, -1)
        fill_symmetric_cycle(amplitudes[k], w.cycle)
        snaps, hashes, _n = cycles(
            st, v, w.rise, w.cycle, rule, max_cycles, w.ws, w.res, w.no_events, w.copy, out[k],
            snaps, hashes,
        )  # fmt: skip


@batch_kernel
def symmetric_batch(systems, amplitudes, rule, max_cycles, blocks, out):
    """The symmetric cyclic drive (``cycles`` of ``symmetric_cycle``, after the rise from
    all −1 to H = 0) of each system k of a batch at its amplitude amplitudes[k]: out[k] =
    the drive's ``DRIVE_COLUMNS`` (outcome, τ, T, the self-loop that stopped it, ...),
    the systems dealt in ``blocks`` interleaved blocks as in ``sweep_batch``."""
    for b in prange(blocks):
        symmetric_block(b, blocks, systems, amplitudes, rule, max_cycles, out)
