"""One place for numba options: every kernel is compiled with these."""

from __future__ import annotations

import types

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


def batch_kernel(fn):
    """A batch kernel from one definition, compiled twice: the returned dispatcher runs its
    ``prange`` loop on all numba threads, its ``.serial`` twin on the calling thread only
    (``prange`` runs as ``range``: for thread pools such as Dask workers). Both compute the
    same, bit for bit; a kernel whose work arrays depend on how the loop is split takes the
    number of blocks as an argument.

    The twin is compiled from a copy of ``fn`` named ``<name>_serial``. numba's on-disk
    cache names its files after a function's qualified name and keys the entries by the
    bytecode and the argument types, not by ``parallel``: compiled under one name, each
    compilation would load the other's machine code from a warm cache.
    """
    serial = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + "_serial", fn.__defaults__, fn.__closure__
    )
    serial.__qualname__ = fn.__qualname__ + "_serial"
    serial.__module__ = fn.__module__
    serial.__doc__ = f"``{fn.__name__}`` on the calling thread only (for thread pools)."
    kernel = jit(fn, parallel=True)
    kernel.serial = jit(serial)
    return kernel


def on_threads(kernel, parallel: bool):
    """A ``batch_kernel`` on all numba threads (``parallel``) or on the calling thread."""
    return kernel if parallel else kernel.serial
