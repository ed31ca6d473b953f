"""The one decorator helper (``hyst.kernels.jit``): a batch kernel's parallel and serial
compilations come from one definition and never share numba's on-disk cache entries."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

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


def _run(folder: Path, order: str) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="2")
    env["PYTHONPATH"] = os.pathsep.join([str(folder), str(Path(__file__).parents[1])])
    env.pop("NUMBA_CACHE_DIR", None)  # the in-tree cache, as the kernels use it
    out = subprocess.run(
        [sys.executable, str(folder / "probe.py"), order],
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
