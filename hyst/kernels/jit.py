"""One place for numba options: every kernel is compiled with these."""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import os
import time
import types
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows has no fcntl: kernels compile there without the lock
    fcntl = None

import numba
from numba.core import caching, errors, sigutils
from numba.core import types as numba_types
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NopythonTypeInference

from hyst.kernels import ir_copies

#: Options shared by every kernel: on-disk cache, GIL released, numpy error model.
NUMBA_OPTIONS = dict(cache=True, nogil=True, error_model="numpy", boundscheck=False)


#: The package's root folder: the kernels' sources, and the modules they import, live under it.
PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def _imported_files(path: Path) -> tuple[Path, ...]:
    """The files of the hyst modules that the module at ``path`` imports (``import hyst.x``,
    ``from hyst.x import y``; ``y`` too where it is a module), read from its source."""
    found = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "hyst" or not name.startswith("hyst."):
                continue
            base = PACKAGE.joinpath(*name.split(".")[1:])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file():
                    found.add(candidate)
    return tuple(sorted(found))


@functools.cache
def source_closure_digest(path: Path) -> str:
    """SHA-256 of the source of the module at ``path`` and of every hyst module it imports,
    transitively: what a kernel defined there may inline or call."""
    seen, todo = set(), [path]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(_imported_files(current))
    digest = hashlib.sha256()
    for file in sorted(seen):
        digest.update(str(file.relative_to(PACKAGE)).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


class _ClosureStamp:
    """A numba cache locator whose freshness stamp covers the hyst modules a kernel's file
    imports, transitively, not the file alone. numba's own stamp is the hash of the
    kernel's source file: a kernel that inlines or calls a kernel of another module (every
    relaxation inlines the rules of ``rules.py``) would load stale machine code from the
    cache after that other module changed, and compute what the old code computed."""

    def get_source_stamp(self):
        """numba's stamp of the file, and the digest of its imports' sources."""
        own = super().get_source_stamp()
        path = Path(self._py_file).resolve()
        if PACKAGE not in path.parents:
            return own
        return (own, source_closure_digest(path))


class _UserProvidedClosureLocator(_ClosureStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``'s locator, stamped by the source closure."""


class _InTreeClosureLocator(_ClosureStamp, caching.InTreeCacheLocator):
    """The ``__pycache__`` locator, stamped by the source closure."""


#: numba's list of locators, tried in order (``CacheImpl``; ``_CacheImpl`` before 0.61)
_LOCATORS = getattr(caching, "CacheImpl", getattr(caching, "_CacheImpl", None))._locator_classes
for _locator in (_InTreeClosureLocator, _UserProvidedClosureLocator):
    if _locator not in _LOCATORS:
        _LOCATORS.insert(0, _locator)

# numba's inlining of ``jit(inline=True)`` kernels copies the callee's IR once, not once per
# block (``ir_copies``): the same machine code; `hyst compile` took 30 % less CPU (benchmarks)
ir_copies.install_before_inlining()


def jit(fn=None, *, parallel: bool = False, inline: bool = False, borrow: bool = False):
    """``numba.njit`` with the project's options.

    ``parallel`` enables ``prange``; ``inline`` inlines a small hot helper into its callers
    at the numba IR level.

    ``borrow`` compiles a kernel that only borrows arrays without numba's reference counting
    (``_nrt=False``). numba counts references to every array a compiled function receives
    or binds, with atomic instructions, and a count cannot be pruned across a loop or a
    call: at N = 4 more than half of the enumeration's cycles went to them (8 arrays per
    relaxation, 15 per system, ``benchmarks/README.md``). A borrowing kernel reads and
    writes arrays (views and namedtuples of them included), calls other kernels of either
    kind, and returns scalars; it never allocates (numba refuses to compile that) and never
    returns an array (that would hand its caller a reference it did not count; numba
    allows returning an argument, so ``BorrowingCompiler`` refuses it when the kernel is
    typed). Work arrays come from the caller, allocated once per block of systems.

    Every kernel states the option, so that numba's inheritance of an unset option from
    the compiling caller never applies (a counted kernel first compiled from a borrowing
    one would otherwise compile without counts and fail to allocate).

    A kernel called from another kernel compiles for the types of its arguments, not for
    the values of constants among them (``Kernel``).
    """

    def wrap(f):
        extra = {"inline": "always"} if inline else {}
        extra["_nrt"] = not borrow
        if borrow:
            extra["pipeline_class"] = BorrowingCompiler
        kernel = numba.njit(parallel=parallel, **NUMBA_OPTIONS, **extra)(f)
        kernel.__class__ = Kernel  # numba's own dispatcher, one method changed
        return kernel

    return wrap(fn) if fn is not None else wrap


def unliteral(ty):
    """The numba type ``ty`` without the values of constants: ``Literal[int](0)`` becomes
    ``int64``, inside tuples and named tuples too."""
    if isinstance(ty, numba_types.BaseTuple):
        inner = tuple(unliteral(t) for t in ty.types)
        if inner == tuple(ty.types):
            return ty
        pyclass = getattr(ty, "instance_class", None)
        return numba_types.BaseTuple.from_types(inner, pyclass)
    return numba_types.unliteral(ty)


class Kernel(CPUDispatcher):
    """numba's CPU dispatcher, except that a call from another kernel compiles for the
    arguments' types, not for the values of constants among them.

    numba types a constant argument at a call site in compiled code as a literal
    (``relax(..., 0, 0, RULE_1, ...)`` passes ``Literal[int](0)``), and compiles the callee,
    and every kernel it passes the constant on to, once more for each such value: the
    relaxation loop was compiled 19 times, 85 of the 277 compiled signatures of a test run
    were such copies, and a fresh checkout spent most of its first minutes compiling them.
    A kernel whose body cannot be typed without the constant's value (a tuple indexed by
    an argument, say) still gets it: the literal types are tried when the plain ones fail,
    which is numba's own order for overloads ("prefer non-literal").
    """

    def compile(self, sig):
        """numba's compile (or load from the cache) of ``sig``, holding the kernel's compile
        lock (:func:`compile_lock`) when the signature is neither compiled nor loaded here."""
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        # numba's lock of this process first: one thread at a time here, as in numba's compile
        with global_compiler_lock, compile_lock(self):
            return super().compile(sig)

    def get_call_template(self, args, kws):
        """Type a call for the arguments' plain (non-literal) types first, and for the literal
        types only when the plain ones fail."""
        plain_args = tuple(unliteral(a) for a in args)
        plain_kws = {k: unliteral(v) for k, v in kws.items()}
        if plain_args != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain_args, plain_kws)
            except errors.TypingError:
                pass
        return super().get_call_template(args, kws)


#: The lock files of the kernels this process is compiling (a kernel that calls itself
#: compiles again while it holds its lock)
_HELD: set[str] = set()

#: How long a process waits for another's compile of a kernel before compiling it itself
#: (seconds): the longest compile of one kernel, its callees included, takes under a
#: minute; a process stopped while it holds a lock must not stop the others.
LOCK_PATIENCE = 600.0


@contextlib.contextmanager
def compile_lock(kernel):
    """Hold the inter-process lock of ``kernel``'s on-disk cache entry while it compiles.

    Processes that start on an empty cache at the same time (the two of ``hyst compile``,
    a run's parallel jobs, the workers of a Dask cluster, the test processes) each need the
    same kernels. Without the lock each compiled every kernel it met first, at the same
    moment as the others: ``hyst compile``'s two processes spent about a third more CPU
    time than one (242 CPU-s against 176-186). With it, a process that finds another
    compiling a kernel waits, then loads that kernel's machine code from the cache (numba
    looks there before compiling).

    The lock is an advisory ``flock`` on a file beside the kernel's cache index, released by
    the system if its holder dies; a kernel's compile takes the locks of the kernels it
    calls, which never call it (a kernel that calls itself holds its lock already), so no
    two processes wait on each other. Where no lock file can be made (no cache, a
    read-only folder, no ``fcntl``), or another process holds the lock for longer than
    :data:`LOCK_PATIENCE`, the kernel compiles without it: the lock saves work, and never
    changes what is compiled."""
    index = getattr(getattr(kernel._cache, "_cache_file", None), "_index_path", None)
    if fcntl is None or index is None:
        yield
        return
    path = index + ".lock"
    if path in _HELD:
        yield
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        _acquire(fd)
        _HELD.add(path)  # taken, or waited for long enough: this process compiles it
        yield
    finally:
        _HELD.discard(path)
        os.close(fd)  # releases the lock


def _acquire(fd: int) -> None:
    """Take the exclusive lock on ``fd``, or give up after :data:`LOCK_PATIENCE` seconds of
    waiting (or at once on a file system without locks)."""
    deadline = time.monotonic() + LOCK_PATIENCE
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                return
            time.sleep(pause)
            pause = min(2 * pause, 0.1)
        except OSError:
            return


def holds_array(ty) -> bool:
    """Whether the numba type ``ty`` is an array or a tuple that holds one."""
    if isinstance(ty, numba_types.Array):
        return True
    if isinstance(ty, numba_types.BaseTuple):
        return any(holds_array(t) for t in ty.types)
    return False


@register_pass(mutates_CFG=False, analysis_only=True)
class RefuseReturnedArrays(FunctionPass):
    """After type inference: a borrowing kernel whose return type holds an array is an
    error (its caller would own a reference that was never counted)."""

    _name = "hyst_refuse_returned_arrays"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        """Raise a typing error when the kernel's return type holds an array; change nothing."""
        if holds_array(state.return_type):
            raise numba.core.errors.NumbaTypeError(
                f"{state.func_id.func_qualname}: a borrowing kernel (jit(borrow=True)) "
                f"returns {state.return_type}; return scalars, or count references"
            )
        return False


class BorrowingCompiler(CompilerBase):
    """numba's nopython pipeline plus ``RefuseReturnedArrays``."""

    def define_pipelines(self):
        """The one pipeline: numba's nopython pipeline with ``RefuseReturnedArrays`` after type
        inference."""
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.add_pass_after(RefuseReturnedArrays, NopythonTypeInference)
        pm.finalize()
        return [pm]


def borrows(kernel) -> bool:
    """Whether ``kernel`` was compiled with ``jit(borrow=True)``."""
    return kernel.targetoptions.get("_nrt") is False


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

    ``prange``'s index is unsigned (``uint64``) where ``range``'s is ``int64``: a loop body
    hands it on as ``np.int64(k)``, so that the kernels it calls are compiled once for both
    twins, not once per index type (the parallel twins' compilation then costs about half
    of what it did: 52 CPU-s against 94, ``docs/benchmarks.md``).
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
