"""Inline twins: a kernel compiled a second time, to be inlined (numba IR) into the kernels
that call it, for the hot loops of the drive protocols (``protocols``, ``protocol_batches``).

A module of its own, not part of :mod:`hyst.kernels.jit`: every kernel's cache is stamped
with the sources of the modules its file imports, and only the protocols import this one.
"""

from __future__ import annotations

import types

from hyst.kernels.jit import borrows, jit


def inline_twin(kernel, **callees):
    """A twin of ``kernel`` that numba inlines (IR level) into every kernel that calls it,
    for a small kernel on a hot path (the original stays a call for its other callers, and
    the cached kernels of its module are not recompiled). Compiled from a copy of the
    function named ``<name>_inline`` (as ``jit.batch_kernel``'s serial twin), with the
    original's ``borrow`` (``jit.borrows``); ``callees`` replace the kernels of those names
    that it calls (their own inline twins, say)."""
    fn = kernel.py_func
    scope = {**fn.__globals__, **callees} if callees else fn.__globals__
    twin = types.FunctionType(
        fn.__code__, scope, fn.__name__ + "_inline", fn.__defaults__, fn.__closure__
    )
    twin.__qualname__ = fn.__qualname__ + "_inline"
    twin.__module__ = fn.__module__
    twin.__doc__ = f"``{fn.__name__}``, inlined into its callers."
    return jit(twin, inline=True, borrow=borrows(kernel))
