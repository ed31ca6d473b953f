"""A faster copy of a callee's IR where numba inlines a kernel (``jit(inline=True)``): the
same IR, copied once per inlining instead of once per block.

numba inlines a kernel marked ``inline="always"`` at the IR level
(``numba.core.inline_closurecall.InlineWorker.inline_ir``). Before it splices the callee
into its caller it copies the callee's IR twice (one copy to mutate, one to return), and
it copies each block with its own ``copy.deepcopy`` call. Every variable of a block refers
to the function's scope, and the scope holds every variable of the function, so each
block's copy copies the whole scope again: a copy costs blocks × variables. The kernels
that inline the rules and the relaxation step (``state_table.walk``, ``transitions``,
the drive protocols) have hundreds of blocks and thousands of variables after inlining:
on a first run, copying them took about two thirds of the time numba spent on those kernels
(``transitions`` and ``walk_once`` about 20 s of CPU each), most of it in ``deepcopy``.

:func:`install` makes the copies of one inlining share one ``deepcopy`` memo, so that the
scope and each variable are copied once per copy of the IR, not once per block. Only the
untyped inlining of ``jit(inline=True)`` kernels, which hyst's kernels use, shares its copies;
the typed inlining of numba's own overloads (``arg_typs`` given), whose copied blocks then
go through SSA reconstruction and type inference, keeps numba's own copies. The blocks
numba builds are the same: the same statements and the same variable names, in the same
order; the copied blocks now share one copy of the callee's scope, as the callee's own
blocks do, where each had an equal copy of its own. numba gives every inlined variable a
new variable of the caller's scope (``InlineWorker.inline_ir``, step 2), so no copy of the
callee's scope survives into the caller either way. What the kernels compute, and their
machine code, do not change (``tests/test_jit.py``).

numba compiles under one global lock, so one inlining runs at a time in a process.
Where numba's module does not copy with ``copy.deepcopy`` (another numba version),
:func:`install` changes nothing. ``hyst.kernels.jit`` installs it when numba first inlines
(:func:`install_before_inlining`).
"""

from __future__ import annotations

import copy
import functools
import importlib
import sys

from numba.core import untyped_passes

#: numba's module that inlines (imported by numba when it first compiles or loads a kernel)
INLINER = "numba.core.inline_closurecall"


class _SharedMemo:
    """The ``copy`` module as one inlining sees it: ``deepcopy`` with one memo for every
    object copied during the inlining (its two copies of the callee's IR). The memo maps
    the id of each object copied to its copy; the second copy is made from the first, whose
    objects are new, so it shares nothing with the first."""

    def __init__(self):
        self._memo: dict = {}

    def deepcopy(self, x, memo=None):
        """``copy.deepcopy(x)`` with the inlining's memo (a ``memo`` given is ignored: numba
        passes none)."""
        return copy.deepcopy(x, self._memo)

    def __getattr__(self, name):
        """The ``copy`` module's other functions, unchanged."""
        return getattr(copy, name)


def _one_memo_per_inlining(inline_ir):
    """``InlineWorker.inline_ir`` with its IR copies sharing one memo."""

    @functools.wraps(inline_ir)
    def inline_ir_sharing_copies(
        self, caller_ir, block, i, callee_ir, callee_freevars, arg_typs=None
    ):
        arguments = (caller_ir, block, i, callee_ir, callee_freevars)
        if arg_typs is not None:  # typed inlining (numba's own overloads): its own copies
            return inline_ir(self, *arguments, arg_typs=arg_typs)
        module = sys.modules[INLINER]
        module.copy = _SharedMemo()
        try:
            return inline_ir(self, *arguments)
        finally:
            module.copy = copy

    inline_ir_sharing_copies.hyst_shared_copies = True
    return inline_ir_sharing_copies


def installed() -> bool:
    """Whether numba's inlining copies with one memo per inlining in this process."""
    module = sys.modules.get(INLINER)
    inline_ir = module.InlineWorker.inline_ir if module is not None else None
    return getattr(inline_ir, "hyst_shared_copies", False)


def install() -> bool:
    """Make numba's inlining copy a callee's IR with one memo per inlining (once per process;
    nothing where numba's inliner does not copy with ``copy.deepcopy``). Returns
    :func:`installed`."""
    module = importlib.import_module(INLINER)
    if not installed() and getattr(module, "copy", None) is copy:
        module.InlineWorker.inline_ir = _one_memo_per_inlining(module.InlineWorker.inline_ir)
    return installed()


def install_before_inlining() -> None:
    """:func:`install` when numba first inlines in this process (its ``InlineInlinables``
    pass), not at import: importing numba's inliner takes 50 ms that a process which never
    compiles (``hyst --help``) need not spend."""
    if INLINER in sys.modules:
        install()
        return
    inline_pass = untyped_passes.InlineInlinables
    run_pass = inline_pass.run_pass

    def install_then_run_pass(self, state):
        inline_pass.run_pass = run_pass
        install()
        return run_pass(self, state)

    inline_pass.run_pass = install_then_run_pass
