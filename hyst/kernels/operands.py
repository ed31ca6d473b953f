"""Kernel operands in named groups: a batch kernel takes its systems as one ``SystemBatch``
and fills one group of output arrays, instead of a dozen positional arrays.

numba reads a namedtuple as a typed tuple: a field is read by name at compile time and
costs nothing at run time. The callers (``hyst.model.batch``) build each group once per
call, the systems from ``hyst.model.systems.Systems.kernel_batch``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SystemBatch(NamedTuple):
    """n systems of N elements as the kernels read them (units of ``QUANTUM``).

    h_plus, h_minus: (n, N) bare thresholds h_i^± (int64; float64 in the round-off
    twin's float group); form: how the couplings are held (``codes.FORM_*``);
    couplings: (n, N, N), c[k][i, j] = c_ij (FORM_DENSE) or c[k][j, i] = c_ij
    (FORM_DENSE_T, read in place), (n, 0, 0) for the compact forms; packed: (n, P) the
    compact couplings (FORM_SYMMETRIC, FORM_COLUMNS, FORM_ROWS), (n, 0) for the dense
    forms.
    """

    h_plus: np.ndarray
    h_minus: np.ndarray
    form: int
    couplings: np.ndarray
    packed: np.ndarray


class EnumerationArrays(NamedTuple):
    """Outputs of ``state_table.enumerate_observables`` for n systems.

    columns: (n, len(ENUMERATION_COLUMNS)) int64; gap_fraction: (n,) f_G;
    loop_lengths: (blocks, 2^N + 1) and loop_elements: (blocks, N + 1), distinct self-loops
    of the P_sl transitions by length L and element count n_e, per block of samples (sum
    over blocks for the totals); l4_state, l4_mask: (n, K) the first K distinct L = 4
    loops of two elements (cycle's smallest state, flipping elements); l4_count: (n,)
    how many there were.
    """

    columns: np.ndarray
    gap_fraction: np.ndarray
    loop_lengths: np.ndarray
    loop_elements: np.ndarray
    l4_state: np.ndarray
    l4_mask: np.ndarray
    l4_count: np.ndarray


class SaturatedLoopArrays(NamedTuple):
    """Outputs of ``drive.saturated_loop_batch`` for n systems: summary (n,
    len(SATURATED_COLUMNS)); records (n, K, len(LOOP_COLUMNS)) of the transitions that did
    not end stable, of which the first recorded[k] of system k are filled."""

    summary: np.ndarray
    records: np.ndarray
    recorded: np.ndarray
