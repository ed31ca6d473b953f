"""``hyst compile``: after it, sampling compiles nothing (every kernel a sampling job runs
loads from numba's on-disk cache), whatever the ensemble, rule, N and thread mode."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Samples points unlike the ones ``hyst compile`` draws (other N, every group, records,
#: both thread modes) and prints the cache misses (compilations) of every kernel.
PROBE = """
import importlib, json, pkgutil
from numba.core.dispatcher import Dispatcher
import hyst.kernels
from hyst.catalogue import GROUPS
from hyst.sampling.sampler import Point, SamplingJob, sample_chunk

for couplings, spans, rule, N in [("random", "hysteron", "1", 9), ("columns", "spin", "1p", 13),
                                  ("weak", "equal", "2", 5), ("rows", "hysteron", "0", 7)]:
    for parallel in (False, True):
        job = SamplingJob(Point(couplings, spans, rule, N, 3.0), 10, tuple(GROUPS), 7, {"l4": 3})
        sample_chunk(job, 1, 5, parallel=parallel)
misses = {}
for info in pkgutil.iter_modules(hyst.kernels.__path__):
    module = importlib.import_module(f"hyst.kernels.{info.name}")
    for value in vars(module).values():
        for kernel in (value, getattr(value, "serial", None)):
            if isinstance(kernel, Dispatcher) and sum(kernel.stats.cache_misses.values()):
                misses[kernel.py_func.__qualname__] = sum(kernel.stats.cache_misses.values())
print(json.dumps(misses))
"""


def test_after_hyst_compile_sampling_compiles_nothing():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NUMBA_CACHE_DIR", None)  # the in-tree cache, the one the jobs use
    done = subprocess.run(
        [sys.executable, "-m", "hyst", "compile"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "hyst compile: done in" in done.stdout
    probe = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(probe.stdout.splitlines()[-1]) == {}
