"""The one decorator helper (``hyst.kernels.jit``): a batch kernel's parallel and serial
compilations come from one definition and never share numba's on-disk cache entries."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROBE = """
import json
import sys

import numba
import numpy as np
from numba import prange

from hyst.kernels.jit import batch_kernel, on_threads


@batch_kernel
def threads_used(out):
    for k in prange(out.shape[0]):
        out[k] = numba.get_thread_id()


def used(parallel):
    out = np.zeros(10_000, np.int64)
    on_threads(threads_used, parallel)(out)
    return sorted(set(out.tolist()))


numba.get_num_threads()  # launch the threads: a cached get_thread_id needs them
order = (False, True) if sys.argv[1] == "serial-first" else (True, False)
result = {str(p): used(p) for p in order}
result["hits"] = [
    sum(k.stats.cache_hits.values()) for k in (threads_used, threads_used.serial)
]
print(json.dumps(result))
"""


def _run(folder: Path, order: str, script: str = "probe.py") -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(Path(__file__).parents[1])])
    env.pop("NUMBA_CACHE_DIR", None)  # the in-tree cache, as the kernels use it
    out = subprocess.run(
        [sys.executable, str(folder / script), order],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_twins_compile_and_cache_apart(tmp_path):
    """Compiled in one order in a fresh process (cold cache), then loaded from the warm
    cache in the other order: the serial twin always runs on thread 0 alone, the parallel
    kernel on both threads, and the second process loads both from the cache."""
    (tmp_path / "probe.py").write_text(textwrap.dedent(PROBE))
    cold = _run(tmp_path, "parallel-first")
    warm = _run(tmp_path, "serial-first")
    for result in (cold, warm):
        assert result["False"] == [0]
        assert result["True"] == [0, 1]
    assert cold["hits"] == [0, 0]
    assert warm["hits"] == [1, 1]
    assert len(list((tmp_path / "__pycache__").glob("probe.threads_used*.nbi"))) == 2


# ---- the on-disk cache follows the modules a kernel imports ---------------------------------

CLOSURE_PROBE = """
import json
import sys
from pathlib import Path

import hyst
import hyst.kernels.jit as jit_module

package = Path(sys.argv[1])
jit_module.PACKAGE = package  # the probe's modules stand for the package's own
hyst.__path__.append(str(package))
from hyst.caller import twice

print(json.dumps({"value": twice(), "hits": sum(twice.stats.cache_hits.values())}))
"""

CALLER = """
from hyst.callee import value
from hyst.kernels.jit import jit


@jit
def twice():
    return 2 * value()
"""

CALLEE = """
from hyst.kernels.jit import jit


@jit(inline=True)
def value():
    return {value}
"""


def test_a_kernel_recompiles_when_a_module_it_inlines_changes(tmp_path):
    """A cached kernel that inlines a kernel of another module: loaded from the cache while
    nothing changes, compiled again (and computing the new value) once the other module
    changes. numba's own stamp covers the kernel's file alone and would load the stale
    machine code (2 instead of 10)."""
    package = tmp_path / "package"
    package.mkdir()
    (package / "caller.py").write_text(textwrap.dedent(CALLER))
    (package / "callee.py").write_text(textwrap.dedent(CALLEE).format(value=1))
    (tmp_path / "probe.py").write_text(textwrap.dedent(CLOSURE_PROBE))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[1]))
    env.pop("NUMBA_CACHE_DIR", None)

    def run():
        out = subprocess.run(
            [sys.executable, str(tmp_path / "probe.py"), str(package)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(out.stdout.splitlines()[-1])

    assert run() == {"value": 2, "hits": 0}
    assert run() == {"value": 2, "hits": 1}
    (package / "callee.py").write_text(textwrap.dedent(CALLEE).format(value=5))
    assert run() == {"value": 10, "hits": 0}
    assert run() == {"value": 10, "hits": 1}


def test_the_source_closure_covers_the_imports_and_nothing_else(tmp_path, monkeypatch):
    from hyst.kernels import jit

    monkeypatch.setattr(jit, "PACKAGE", tmp_path)
    (tmp_path / "kernels").mkdir()
    files = {
        "kernels/a.py": "from hyst.kernels.b import f\nimport numpy\n",
        "kernels/b.py": "from hyst.kernels import c\n",
        "kernels/c.py": "X = 1\n",
        "kernels/unrelated.py": "Y = 1\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    a = tmp_path / "kernels" / "a.py"
    assert [p.name for p in jit._imported_files(a)] == ["b.py"]

    def digest():
        jit.source_closure_digest.cache_clear()
        jit._imported_files.cache_clear()
        return jit.source_closure_digest(a)

    before = digest()
    (tmp_path / "kernels" / "unrelated.py").write_text("Y = 2\n")
    assert digest() == before
    (tmp_path / "kernels" / "c.py").write_text("X = 2\n")  # imported through b
    assert digest() != before


# ---- borrowing kernels (jit(borrow=True): no reference counts) ----------------------------


@pytest.fixture
def uncached(monkeypatch):
    """The project's options without the on-disk cache, for kernels defined in a test
    (machine code loaded from a cache cannot be inspected)."""
    from hyst.kernels import jit

    monkeypatch.setitem(jit.NUMBA_OPTIONS, "cache", False)


@pytest.mark.usefixtures("uncached")
def test_a_borrowing_kernel_counts_no_reference_and_computes_the_same():
    """The same loop over a namedtuple of arrays, counted and borrowing: equal results, and
    the borrowing kernel's machine code holds no reference count (the counted one does)."""
    from typing import NamedTuple

    import numpy as np

    from hyst.kernels.jit import jit

    class Pair(NamedTuple):
        a: np.ndarray
        b: np.ndarray

    def dot(p, out):
        total = 0
        for i in range(p.a.shape[0]):
            row = p.a[i]
            total += row[0] * p.b[i]
        out[0] = total
        return total

    counted, borrowing = jit(dot), jit(dot, borrow=True)
    p = Pair(np.arange(12, dtype=np.int64).reshape(6, 2), np.arange(6, dtype=np.int64))
    out = np.zeros(2, np.int64)
    assert counted(p, out) == borrowing(p, out) == int(p.a[:, 0] @ p.b)
    for kernel, counts in ((counted, True), (borrowing, False)):
        ir = kernel.inspect_llvm(kernel.signatures[0])
        assert ("NRT_incref" in ir or "NRT_decref" in ir) == counts


@pytest.mark.usefixtures("uncached")
def test_a_borrowing_kernel_that_returns_an_array_is_refused():
    """numba accepts returning an argument without reference counts; the borrowing pipeline
    refuses it, bare or in a tuple, with a message that names the kernel."""
    import numba
    import numpy as np

    from hyst.kernels.jit import jit

    def bare(a):
        return a

    def in_tuple(a):
        return a.shape[0], a

    for fn in (bare, in_tuple):
        with pytest.raises(numba.core.errors.TypingError, match=f"{fn.__name__}: a borrowing"):
            jit(fn, borrow=True)(np.zeros(3))
    assert jit(bare)(np.zeros(3)).shape == (3,)  # counted: fine


def test_every_kernel_states_whether_it_borrows():
    """Every kernel of hyst.kernels is compiled with the option set either way (numba
    otherwise inherits it from the caller that first compiles it), and the borrowing ones
    with the refusing pipeline; every one is a ``Kernel`` (one compilation per type)."""
    import importlib
    import pkgutil

    import hyst.kernels
    from hyst.kernels.jit import BorrowingCompiler, Kernel, borrows

    seen = borrowing = 0
    for info in pkgutil.iter_modules(hyst.kernels.__path__):
        module = importlib.import_module(f"hyst.kernels.{info.name}")
        for value in vars(module).values():
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if not hasattr(value, "targetoptions"):
                continue
            seen += 1
            assert "_nrt" in value.targetoptions, value.py_func.__qualname__
            assert isinstance(value, Kernel), value.py_func.__qualname__
            if borrows(value):
                borrowing += 1
                assert value._compiler.pipeline_class is BorrowingCompiler
    assert seen > 100 and borrowing >= 40


# ---- constants at call sites (Kernel: one compilation per argument type) -------------------


def _chain(decorate):
    """Three kernels, the outer one calling the middle one with constants (0, 1, −1, alone
    and in tuples) and with variables."""

    @decorate
    def step(x, pair):
        return x + pair[0] * pair[1]

    @decorate
    def inner(x, d, pair):
        return step(x, pair) * d

    @decorate
    def calls(y):
        return (
            inner(y, 1, (0, 1)) + inner(y, -1, (2, 3)) + inner(y, 0, (y, y)) + inner(y, y, (y, 1))
        )

    return step, inner, calls


@pytest.mark.usefixtures("uncached")
def test_a_kernel_called_with_constants_compiles_once_per_type():
    """Called with constants from another kernel, a kernel and the kernel it calls compile
    once, for int64; plain numba compiles them once per constant value. Same results as
    Python."""
    import numba

    from hyst.kernels.jit import Kernel, jit

    ours, plain = _chain(jit), _chain(numba.njit)
    python = _chain(lambda f: f)
    assert ours[2](5) == plain[2](5) == python[2](5) == 5 - 11 + 0 + 50
    assert all(isinstance(k, Kernel) for k in ours)
    assert [len(k.signatures) for k in ours] == [1, 1, 1]
    assert all("Literal" not in str(sig) for k in ours for sig in k.signatures)
    assert len(plain[1].signatures) == 4 and len(plain[0].signatures) == 4


@pytest.mark.usefixtures("uncached")
def test_a_kernel_that_needs_a_constant_still_gets_it():
    """A heterogeneous tuple can only be indexed by a constant: the plain int64 typing fails,
    and the kernel compiles for the literal value instead (numba's own order)."""
    from hyst.kernels.jit import jit

    @jit
    def pick(t, i):
        return t[i]

    @jit
    def use(a, b):
        return pick((a, b), 1) + pick((a, b), 0)

    assert use(1, 2.5) == 3.5
    assert sorted(str(sig[1]) for sig in pick.signatures) == ["Literal[int](0)", "Literal[int](1)"]


def test_unliteral_reaches_into_tuples():
    """Constants become their types inside tuples and named tuples; other types stay."""
    from typing import NamedTuple

    from numba.core import types

    from hyst.kernels.jit import unliteral

    class P(NamedTuple):
        a: int
        b: float

    lit = types.literal(3)
    assert unliteral(lit) == types.int64
    assert unliteral(types.Tuple((lit, types.float64))) == types.Tuple((types.int64, types.float64))
    assert unliteral(types.Tuple((lit, types.literal(4)))) == types.UniTuple(types.int64, 2)
    named = unliteral(types.NamedTuple((lit, types.float64), P))
    assert named == types.NamedTuple((types.int64, types.float64), P)
    assert unliteral(types.UniTuple(types.int64, 2)) == types.UniTuple(types.int64, 2)


def _probe_of_step():
    """A fresh, uncached kernel that inlines the relaxation step (which inlines the rules)."""
    import types

    import numba

    from hyst.kernels import state_table

    def probe(S, Hc, eps, rule, hp, hm, F, up, down, tau):
        return step(S, Hc, eps, rule, hp, hm, F, up, down, tau)  # noqa: F821 (the globals below)

    fn = types.FunctionType(probe.__code__, {"step": state_table.step}, "probe")
    return numba.njit(cache=False, nogil=True, _nrt=False)(fn)


def _step_arguments():
    import numpy as np

    N = 4
    rng = np.random.default_rng(7)
    F = rng.integers(-3, 4, (2**N, N))
    return (
        np.int64(5), np.int64(1), np.int64(1), np.int64(1),
        rng.integers(-5, 6, N), rng.integers(-5, 6, N), F,
        F.min(axis=1), F.max(axis=1), np.ones(N, np.int64),
    )  # fmt: skip


def test_inlining_compiles_to_the_same_machine_code_with_one_copy_of_the_callee(monkeypatch):
    """``ir_copies``: a kernel that inlines the relaxation step compiles to the same machine
    code with numba's own block-by-block copies of the callee's IR and with the copies of
    one inlining sharing one memo (installed by ``hyst.kernels.jit``); the shared copies copy
    the callee's variables once per copy of its IR, numba's own once per block (more than
    five times as many copies here)."""
    import re

    import numba
    from numba.core import ir
    from numba.core.inline_closurecall import InlineWorker

    from hyst.kernels import ir_copies, state_table

    numba.njit(lambda: 0)()  # numba's first inlining in this process installs the copies
    assert ir_copies.installed()
    shared = InlineWorker.inline_ir
    copied = []
    var_deepcopy = ir.Var.__deepcopy__

    def counting(self, memo):
        copied.append(self.name)
        return var_deepcopy(self, memo)

    monkeypatch.setattr(ir.Var, "__deepcopy__", counting)
    asm, copies = {}, {}
    for mode, inline_ir in (("numba", shared.__wrapped__), ("shared", shared)):
        monkeypatch.setattr(InlineWorker, "inline_ir", inline_ir)
        copied.clear()
        kernel = _probe_of_step()
        result = kernel(*_step_arguments())
        copies[mode] = len(copied)
        # the same code under another name: the kernel's unique id (B<n>v<id>) and the
        # lengths of the strings that hold it differ
        text = re.sub(r"B\d+v\d+", "B_v_", kernel.inspect_asm(kernel.signatures[0]))
        asm[mode] = [line for line in text.splitlines() if not line.startswith("\t.size")]
        assert result == state_table.step.py_func(*_step_arguments())
    assert asm["shared"] == asm["numba"]
    assert 5 * copies["shared"] < copies["numba"]


def test_the_shared_copies_are_installed_when_numba_first_inlines_not_at_import():
    """Importing the kernels leaves numba's inliner unimported (``hyst --help`` does not pay
    for it); the first compilation installs the shared copies, once."""
    probe = textwrap.dedent(
        """
        import sys

        import numba

        from hyst.kernels import ir_copies, jit

        before = ir_copies.INLINER in sys.modules
        numba.njit(lambda: 1)()
        wrapped = sys.modules[ir_copies.INLINER].InlineWorker.inline_ir
        print(before, ir_copies.installed(), hasattr(wrapped.__wrapped__, "__wrapped__"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True", "False"]


def _prange_index_handed_on_unsigned(tree) -> list[str]:
    """Calls in the ``prange`` loops of ``tree`` that pass the loop's index itself (unsigned
    in the parallel twin) as an argument, rather than ``np.int64(index)``."""
    import ast

    found = []
    for loop in ast.walk(tree):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.iter, ast.Call)
            and getattr(loop.iter.func, "id", None) == "prange"
            and isinstance(loop.target, ast.Name)
        ):
            continue
        index = loop.target.id
        for call in (n for stmt in loop.body for n in ast.walk(stmt)):
            if (
                isinstance(call, ast.Call)
                and ast.unparse(call.func) != "np.int64"
                and any(isinstance(a, ast.Name) and a.id == index for a in call.args)
            ):
                found.append(f"line {call.lineno}: {ast.unparse(call)}")
    return found


def test_a_prange_loop_hands_its_index_on_signed():
    """Every batch kernel's loop passes ``np.int64(k)`` to the kernels it calls: the two
    twins then share one compilation of everything below the loop. The check finds a bare
    index in a loop written for it."""
    import ast

    from hyst.kernels.jit import PACKAGE

    bare = ast.parse("for k in prange(n):\n    one(k, out)\n    two(np.int64(k), out[k])\n")
    assert _prange_index_handed_on_unsigned(bare) == ["line 2: one(k, out)"]
    found = {
        str(path.relative_to(PACKAGE)): calls
        for path in sorted((PACKAGE / "kernels").glob("*.py"))
        if (calls := _prange_index_handed_on_unsigned(ast.parse(path.read_text())))
    }
    assert found == {}


TWIN_PROBE = """
import json
import numba
import numpy as np
from numba import prange
from hyst.kernels.jit import batch_kernel, jit, on_threads


@jit
def one(k, out):
    out[k] = k


@batch_kernel
def signed(out):
    for k in prange(out.shape[0]):
        one(np.int64(k), out)


@batch_kernel
def unsigned(out):
    for k in prange(out.shape[0]):
        one(k, out)


kernel = signed if __import__("sys").argv[1] == "signed" else unsigned
for parallel in (False, True):
    on_threads(kernel, parallel)(np.zeros(8, np.int64))
print(json.dumps([str(s[0]) for s in one.signatures]))
"""


@pytest.mark.parametrize("index", ["signed", "unsigned"])
def test_both_twins_of_a_batch_kernel_compile_its_callee_once(index, tmp_path):
    """From an empty cache, the serial and the parallel twin of a batch kernel compile the
    kernel its loop calls under one signature when the loop hands it ``np.int64(k)``, and
    under two when it hands it prange's unsigned index as it is."""
    (tmp_path / "twin_probe.py").write_text(TWIN_PROBE)
    first_argument = _run(tmp_path, index, script="twin_probe.py")
    assert first_argument == (["int64"] if index == "signed" else ["int64", "uint64"])
