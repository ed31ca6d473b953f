"""Kernels that build structured coupling matrices in place (no I/O)."""

from __future__ import annotations

from numba import prange

from hyst._numba import jit


@jit(parallel=True)
def mirror_upper(c):
    """c[:, i, j] = c[:, j, i] for i > j and c[:, i, i] = 0 (a symmetric matrix from its
    upper triangle), tiled so that large N stays cache friendly."""
    n, N, _ = c.shape
    tile = 32
    for k in prange(n):
        for ib in range(0, N, tile):
            for jb in range(0, ib + 1, tile):
                for i in range(ib, min(ib + tile, N)):
                    for j in range(jb, min(jb + tile, i)):
                        c[k, i, j] = c[k, j, i]
        for i in range(N):
            c[k, i, i] = 0
