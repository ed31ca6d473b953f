"""Kernels that build coupling matrices from their compact forms (no I/O).

Form codes of :mod:`hyst.kernels.codes`: FORM_SYMMETRIC (row-major packed upper
triangle), FORM_COLUMNS (c_ij = −d_j), FORM_ROWS (c_ij = −d_i).
"""

from __future__ import annotations

from numba import prange

from hyst.kernels.codes import FORM_COLUMNS, FORM_SYMMETRIC
from hyst.kernels.jit import batch_kernel, jit


@jit(inline=True)
def add_row(f, ct, j, k):
    """f_i += k c_ij for every i: row j of ct[j, i] = c_ij, scaled by k (k = ±1 adds element
    j's contribution to the local fields, k = ±2 flips it)."""
    row = ct[j]
    for i in range(f.shape[0]):
        f[i] += k * row[i]


@jit
def upper_offset(i, N):
    """Position of c_{i,i+1} in the row-major packed upper triangle (then c_ij at +j−i−1)."""
    return i * (N - 1) - (i * (i - 1)) // 2


@jit
def dense_from_packed(form, packed, out):
    """Fill out (N, N) with the couplings of one system in the given compact form."""
    N = out.shape[0]
    if form == FORM_SYMMETRIC:
        for i in range(N):
            base = upper_offset(i, N) - i - 1
            out[i, i] = 0
            for j in range(i + 1, N):
                out[i, j] = packed[base + j]
        # mirror the upper triangle tile by tile. Rows of a 2^k-wide matrix lie a multiple
        # of 4 KiB apart, so one column of a tile falls into a single L1 set: 8 rows (the
        # associativity) per tile, not 32 (2.2 -> 1.1 ms at N = 1024, 0.47 -> 0.27 ms at 512)
        tile = 8
        for ib in range(0, N, tile):
            for jb in range(0, ib + 1, tile):
                for i in range(ib, min(ib + tile, N)):
                    for j in range(jb, min(jb + tile, i)):
                        out[i, j] = out[j, i]
    elif form == FORM_COLUMNS:
        for i in range(N):
            for j in range(N):
                out[i, j] = -packed[j]
            out[i, i] = 0
    else:
        for i in range(N):
            for j in range(N):
                out[i, j] = -packed[i]
            out[i, i] = 0


@batch_kernel
def dense_couplings(form, packed, c):
    """c[k] = the dense couplings of system k (see ``dense_from_packed``); ``.serial`` on the
    calling thread only."""
    for k in prange(c.shape[0]):
        dense_from_packed(form, packed[k], c[k])
