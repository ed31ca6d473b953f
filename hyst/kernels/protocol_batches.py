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

import numpy as np
from numba import prange

from hyst.kernels.codes import FORM_DENSE, INF
from hyst.kernels.drive_paths import cycles, path
from hyst.kernels.inlining import inline_twin
from hyst.kernels.jit import batch_kernel, jit
from hyst.kernels.protocols import (
    SS_RPM,
    SS_SATURATION,
    fill_symmetric_cycle,
    grown_sweep,
    saturate,
    sweep_arrays,
    sweep_from_in,
    sweep_in,
    sweep_work,
)
from hyst.kernels.relaxation import SystemView, system_view, view_of
from hyst.kernels.sweep_summaries import fill_nested_legs, nested_rpm, periods_met, sweep_summary

#: The view of system k of a batch, inlined into the borrowing loop over the systems (no
#: reference counts on the views: ``jit(borrow=True)``).
view_in = inline_twin(view_of, system_view=inline_twin(system_view))
#: The sweep of one system and its nested protocol, inlined into that loop with the kernels
#: they call once per system: a call passes the ``SweepWork`` (two dozen arrays) by value.
saturate_inline = inline_twin(saturate)
sweep_in_inline = inline_twin(
    sweep_in,
    saturate=saturate_inline,
    sweep_from_in=inline_twin(sweep_from_in),
)
nested_rpm_inline = inline_twin(
    nested_rpm,
    path=inline_twin(path),
    fill_nested_legs=inline_twin(fill_nested_legs),
)
sweep_summary_inline = inline_twin(sweep_summary, periods_met=inline_twin(periods_met))


@jit(borrow=True)
def sweep_view(v, rule, max_cycles, first_only, nested, out, w, rows, snaps, hashes):
    """The sweep of the ``SystemView`` v on the ``SweepWork`` w, rows, snaps and hashes: out
    = ``SWEEP_SUMMARY_COLUMNS`` (return-point memory on the nested protocol with
    ``nested``, else −1). Returns the number of rows filled, or ``ROWS_FULL`` /
    ``VISITS_FULL`` where rows or snaps are too small (out then unfinished: grow them and
    call again)."""
    m, preamble, ties = sweep_in_inline(
        v, rule, max_cycles, first_only, w.summary, w, rows, snaps, hashes
    )
    if m < 0:
        return m
    sweep_summary_inline(rows[:m], preamble, ties, out)
    out[SS_RPM] = -1
    if nested and out[SS_SATURATION] < INF:
        out[SS_RPM] = nested_rpm_inline(v, out[SS_SATURATION], rule, w)
    return m


@jit(borrow=True)
def sweep_systems(k0, blocks, systems, rule, max_cycles, first_only, out, w, rows, snaps, hashes):
    """The systems k0, k0 + blocks, … of ``sweep_batch`` on the ``SweepWork`` w, rows,
    snaps and hashes: out[k] = ``SWEEP_SUMMARY_COLUMNS``. Returns (the number of systems,
    0) when all are done, or (k, ``ROWS_FULL`` / ``VISITS_FULL``) for the system k whose
    sweep needs larger rows or snaps (``sweep_block`` grows them and calls again from k)."""
    n = systems.h_plus.shape[0]
    for k in range(k0, n, blocks):
        v = view_in(k, systems, w.buf)
        m, preamble, ties = sweep_in_inline(
            v, rule, max_cycles, first_only, w.summary, w, rows, snaps, hashes
        )
        if m < 0:
            return k, m
        o = out[k]  # as ``sweep_view`` (inlined one level deep: a second level compiles longer)
        sweep_summary_inline(rows[:m], preamble, ties, o)
        o[SS_RPM] = -1
        if o[SS_SATURATION] < INF:
            o[SS_RPM] = nested_rpm_inline(v, o[SS_SATURATION], rule, w)
    return n, 0


@jit
def sweep_system(h_plus, h_minus, couplings, rule, max_cycles, first_only, nested, out):
    """The amplitude sweep of one system given as plain arrays: h_plus, h_minus int64 (N,)
    and couplings int64 (N, N), c[i, j] = c_ij, all C-contiguous (quanta). The entry for a
    single system: plain arrays of one dtype and layout are typed by numba's dispatcher at
    a fraction of the cost of a ``SystemBatch``; the sweep is ``sweep_view``, which
    ``sweep_batch``'s loop over systems repeats inline. Fills out = ``SWEEP_SUMMARY_COLUMNS``
    as ``sweep_batch`` does for the system (return-point memory on the nested protocol
    only with ``nested``; else −1) and returns the rows ``SWEEP_COLUMNS`` of the amplitudes
    driven (those of ``protocols.sweep``)."""
    N = h_plus.shape[0]
    w = sweep_work(N, FORM_DENSE)
    rows, snaps, hashes = sweep_arrays(N)
    ct = w.buf  # ct[j, i] = c_ij, as ``view_of`` lays out the dense form
    for i in range(N):
        for j in range(N):
            ct[j, i] = couplings[i, j]
    v = SystemView(h_plus, h_minus, np.int64(FORM_DENSE), ct, np.empty(0, np.int64))
    while True:
        n = sweep_view(v, rule, max_cycles, first_only, nested, out, w, rows, snaps, hashes)
        if n >= 0:
            break
        rows, snaps, hashes = grown_sweep(n, rows, snaps, hashes)
    return rows[:n]


@jit
def sweep_fields(
    h_plus, h_minus, couplings, limit, scale, max_threshold, rule, max_cycles, first_only, out
):
    """``sweep_system`` of one system given in field units (float64, C-contiguous: h_plus,
    h_minus (N,), couplings (N, N)), checked and quantised here as the public API checks
    and quantises a batch (``hyst.api.batch``, ``hyst.model.systems``): every value finite
    with |value| < limit, a zero diagonal, q = rint(value · scale) (scale = 1 / QUANTUM),
    and the bound of exact int64 thresholds max|h| + (N − 1) max|c| < max_threshold
    (quanta). Returns False, out untouched, where a check fails (the caller then names
    what failed), else True with out = ``SWEEP_SUMMARY_COLUMNS`` (return-point memory
    included)."""
    N = h_plus.shape[0]
    hp = np.empty(N, np.int64)
    hm = np.empty(N, np.int64)
    c = np.empty((N, N), np.int64)
    bound = np.int64(0)
    largest = np.int64(0)
    for i in range(N):
        a, b = h_plus[i], h_minus[i]
        if not (abs(a) < limit and abs(b) < limit) or couplings[i, i] != 0:
            return False
        hp[i] = np.int64(np.rint(a * scale))
        hm[i] = np.int64(np.rint(b * scale))
        bound = max(bound, abs(hp[i]), abs(hm[i]))
        for j in range(N):
            x = couplings[i, j]
            if not abs(x) < limit:
                return False
            c[i, j] = np.int64(np.rint(x * scale))
            largest = max(largest, abs(c[i, j]))
    if bound + (N - 1) * largest >= max_threshold:
        return False
    sweep_system(hp, hm, c, rule, max_cycles, first_only, True, out)
    return True


@jit
def sweep_block(b, blocks, systems, rule, max_cycles, first_only, out):
    """The systems b, b + blocks, … of ``sweep_batch`` on one set of work arrays, grown
    where a system's sweep needs them larger (``sweep_systems``: the loop over the systems
    runs without reference counts)."""
    N = systems.h_plus.shape[1]
    n = systems.h_plus.shape[0]
    w = sweep_work(N, systems.form)
    rows, snaps, hashes = sweep_arrays(N)
    k = b
    while k < n:
        k, full = sweep_systems(
            k, np.int64(blocks), systems, rule, max_cycles, first_only, out, w, rows, snaps,
            hashes,
        )  # fmt: skip
        if k < n:
            rows, snaps, hashes = grown_sweep(full, rows, snaps, hashes)


@batch_kernel
def sweep_batch(systems, rule, max_cycles, first_only, blocks, out):
    """``sweep`` of each system of a batch (``operands.SystemBatch``): out[k] =
    ``SWEEP_SUMMARY_COLUMNS``. With ``first_only`` the sweep stops at the first T > 1 (the
    loop, ill-defined and saturation columns then describe the amplitudes below it, and the
    return-point memory is undefined where it stopped before saturation). The systems are
    dealt in ``blocks`` interleaved blocks (to numba threads; the serial twin takes one),
    one set of work arrays each: the result does not depend on the split."""
    for b in prange(blocks):
        sweep_block(np.int64(b), blocks, systems, rule, max_cycles, first_only, out)


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
        symmetric_block(np.int64(b), blocks, systems, amplitudes, rule, max_cycles, out)
