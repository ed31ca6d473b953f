"""One place for numba options: every kernel is compiled with these."""

from __future__ import annotations

import numba

#: Options shared by every kernel: on-disk cache, GIL released, numpy error model.
NUMBA_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)


def jit(fn=None, *, parallel: bool = False, inline: bool = False):
    """``numba.njit`` with the project's options.

    ``parallel`` enables ``prange``; ``inline`` inlines a small hot helper into
    its callers at the numba IR level (no per-call array reference counting).
    """

    def wrap(f):
        extra = {"inline": "always"} if inline else {}
        return numba.njit(parallel=parallel, **NUMBA_OPTIONS, **extra)(f)

    return wrap(fn) if fn is not None else wrap
