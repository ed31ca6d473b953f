"""The CUDA target: whether it can run here, and CUDA device functions made from the CPU
kernels' own definitions.

The CUDA kernels (:mod:`hyst.kernels.cuda_state_table`, :mod:`hyst.kernels.cuda_self_loops`)
decide which element flips next, count a relaxation and relax the self-loop search with the
*same* Python functions as the CPU kernels (:mod:`hyst.kernels.rules`,
:mod:`hyst.kernels.bookkeeping`, ``state_table.step``, the search of
:mod:`hyst.kernels.self_loop_search`): :func:`device_twins` compiles each one's Python source
a second time, for the CUDA target (``numba.cuda.jit(device=True)``), with the functions it
calls replaced by their own twins. No rule is written twice, so the CUDA backend cannot
drift from the CPU's definitions.

numba-cuda is an optional dependency (``pip install 'hyst[cuda]'``); this module imports it
only when a twin is made. Its simulator (the environment variable ``NUMBA_ENABLE_CUDASIM=1``,
read when ``numba.cuda`` is first imported) runs the same kernels on the CPU with CUDA's
thread and block semantics: the tests prove the kernels there.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import types


def cuda_problem() -> str | None:
    """None when CUDA kernels can run in this process (an NVIDIA GPU with its driver, or
    numba's CUDA simulator); otherwise why not, in a few words."""
    try:
        from numba import cuda
    except ImportError:  # pragma: no cover - numba-cuda missing and numba without its own
        return "numba-cuda is not installed (pip install 'hyst[cuda]')"
    if simulated():
        return None
    try:
        if cuda.is_available():
            return None
    except Exception as exc:  # pragma: no cover - a broken driver
        return f"the CUDA driver failed ({type(exc).__name__}: {exc})"
    return "no CUDA GPU is available here and NUMBA_ENABLE_CUDASIM is not set"


def simulated() -> bool:
    """Whether numba's CUDA target is its simulator (``NUMBA_ENABLE_CUDASIM=1`` when
    ``numba.cuda`` was imported)."""
    try:
        from numba.cuda.core import config
    except ImportError:  # numba's own (deprecated) CUDA target, without numba-cuda
        from numba import config
    return bool(getattr(config, "ENABLE_CUDASIM", os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"))


@contextlib.contextmanager
def simulator_pace():
    """While a kernel runs in the simulator: a short thread switch interval. The simulator
    runs a block's threads as Python threads, released at each barrier by a polling thread;
    with Python's default interval (5 ms) every barrier costs milliseconds. Nothing changes
    on a GPU."""
    if not simulated():
        yield
        return
    before = sys.getswitchinterval()
    sys.setswitchinterval(5e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def device_twins(module, names, kernels=(), **replaced) -> types.ModuleType:
    """CUDA device functions compiled from the Python source of ``module``'s kernels
    ``names`` (and CUDA kernels from its functions ``kernels``): a module object holding one
    twin per name.

    Each twin is the kernel's own function (``py_func``: the same code object) with a
    globals dictionary of its own, in which the twins made here replace the kernels of the
    same names and ``replaced`` replaces any other global (a module of twins for a module
    the code calls through, e.g. ``rules=...``). A twin therefore calls twins only, and
    numba compiles it for the CUDA target."""
    from numba import cuda

    scope = dict(vars(module))
    scope.update(replaced)
    made = {}
    for name in names:
        f = getattr(module, name)
        f = getattr(f, "py_func", f)
        twin = types.FunctionType(f.__code__, scope, f.__name__, f.__defaults__, f.__closure__)
        twin.__qualname__ = f.__qualname__
        # the simulator's wrapper of a device function only swaps its fake ``cuda`` module
        # into the function's globals: one that uses no CUDA API runs as it is (a
        # simulated relaxation then runs several times faster)
        plain = simulated() and not _uses_cuda(f.__code__, scope)
        made[name] = twin if plain else cuda.jit(device=True)(twin)
    scope.update(made)
    for name in kernels:
        f = getattr(module, name)
        made[name] = cuda.jit(types.FunctionType(f.__code__, scope, f.__name__))
    holder = types.ModuleType(f"{module.__name__}.cuda_twins")
    holder.__dict__.update(made)
    return holder


def _uses_cuda(code, scope) -> bool:
    """Whether ``code`` (or a function nested in it) reads a global that is ``numba.cuda``."""
    from numba import cuda

    stack = [code]
    while stack:
        c = stack.pop()
        if any(scope.get(name) is cuda for name in c.co_names):
            return True
        stack += [k for k in c.co_consts if hasattr(k, "co_names")]
    return False


@functools.cache
def rule_twins() -> tuple[types.ModuleType, types.ModuleType]:
    """The device twins of :mod:`hyst.kernels.rules` (the next-flip choice) and of
    :mod:`hyst.kernels.bookkeeping` (what a relaxation counts)."""
    from hyst.kernels import bookkeeping, rules

    rules_cuda = device_twins(
        rules,
        (
            "margin",
            "resolve",
            "start",
            "tally",
            "choose",
            "unstable",
            # the flip-time rule's choice: part of ``state_table.step`` and of the search,
            # compiled with them (the CUDA backend runs rules 0, 1, 1' and 2 only)
            "wide_product",
            "product_order",
            "start_tau",
            "tally_tau",
            "choose_tau",
            "scan_tau",
        ),
    )
    book_cuda = device_twins(
        bookkeeping,
        ("begin", "verdict", "scanned", "moved", "loop_length", "elements_flipping"),
    )
    return rules_cuda, book_cuda
