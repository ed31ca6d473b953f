"""Processes that need the same kernel at the same moment compile it once: the others wait
for the compile lock (``hyst.kernels.jit.compile_lock``) and load it from numba's cache."""

import fcntl
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

KERNELS = """
from hyst.kernels.jit import jit


@jit
def inner(x):
    return 3 * x + 1


@jit
def outer(x):
    return inner(x) + inner(x + 1)
"""

#: Calls ``outer`` (which calls ``inner``) and prints its value with the cache statistics of
#: both kernels; with ``lock-path`` prints where ``outer``'s compile lock lives instead.
PROBE = """
import json
import sys

import hyst.kernels.jit as jit_module
from kernels import inner, outer

if sys.argv[1] == "lock-path":
    print(outer._cache._cache_file._index_path + ".lock")
    raise SystemExit
jit_module.LOCK_PATIENCE = float(sys.argv[2])
print("calling", flush=True)
value = outer(4)
print(json.dumps({
    "value": value,
    "misses": [sum(k.stats.cache_misses.values()) for k in (outer, inner)],
    "hits": [sum(k.stats.cache_hits.values()) for k in (outer, inner)],
}))
"""


def _env(folder: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), str(REPO)]))
    env["NUMBA_CACHE_DIR"] = str(folder / "cache")
    return env


def _start(folder: Path, patience: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(folder / "probe.py"), "call", str(patience)],
        env=_env(folder),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "calling"
    return proc


def _finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _folder(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "kernels.py").write_text(textwrap.dedent(KERNELS))
    (tmp_path / "probe.py").write_text(textwrap.dedent(PROBE))
    path = subprocess.run(
        [sys.executable, str(tmp_path / "probe.py"), "lock-path"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(path).parent.is_relative_to(tmp_path / "cache")
    return tmp_path, path


def test_processes_that_meet_at_a_kernel_compile_it_once(tmp_path):
    """Two processes call the same kernel on an empty cache while its compile lock is held
    (as a third process compiling it would hold it): neither compiles while it waits; once
    the lock is free one compiles the kernel and its callee, the other loads both from the
    cache. Without the lock both would compile both (two misses each)."""
    folder, lock_path = _folder(tmp_path)
    Path(lock_path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        first, second = _start(folder, 600), _start(folder, 600)
        time.sleep(3.0)  # both reach the lock (imports take about a second) and wait there
        assert first.poll() is None and second.poll() is None
        assert not list((folder / "cache").rglob("*.nbc"))  # nothing compiled meanwhile
    finally:
        os.close(fd)  # releases the lock
    results = [_finish(first), _finish(second)]
    assert [r["value"] for r in results] == [29, 29]
    misses = sorted(r["misses"] for r in results)
    assert misses == [[0, 0], [1, 1]]
    loaded = next(r for r in results if r["misses"] == [0, 0])
    assert loaded["hits"] == [1, 0]  # the callee is in the caller's machine code


def test_a_lock_held_past_the_patience_does_not_stop_the_compile(tmp_path):
    """A lock that is never released (a process stopped while it compiles) delays a kernel's
    compile by the patience, then the kernel compiles without it."""
    folder, lock_path = _folder(tmp_path)
    Path(lock_path).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        result = _finish(_start(folder, 0.5))
    finally:
        os.close(fd)
    assert result["value"] == 29
    assert result["misses"] == [1, 1]


def test_a_cache_that_takes_no_lock_file_compiles_as_before(tmp_path):
    """Where the lock file cannot be made (here its name is a folder), the kernel compiles
    without the lock, at once."""
    folder, lock_path = _folder(tmp_path)
    Path(lock_path).mkdir(parents=True)
    result = _finish(_start(folder, 600))
    assert result == {"value": 29, "misses": [1, 1], "hits": [0, 0]}
