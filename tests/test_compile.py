"""``hyst compile``: after it, sampling compiles nothing (every kernel a sampling job runs
loads from numba's on-disk cache), whatever the ensemble, rule, N and thread mode."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Samples points (CASES: couplings, spans, rule, N) with each selection of observable groups
#: of SELECTIONS, with records, in each thread mode of MODES (False: the serial twins, True:
#: on all numba threads), and prints the cache misses (compilations) of every kernel.
PROBE = """
import importlib, json, pkgutil
from numba.core.dispatcher import Dispatcher
import hyst.kernels
from hyst.catalogue import GROUPS
from hyst.sampling.sampler import Point, SamplingJob, sample_chunk

for couplings, spans, rule, N in CASES:
    for selected in SELECTIONS:
        for parallel in MODES:
            job = SamplingJob(Point(couplings, spans, rule, N, 3.0), 10, selected, 7, {"l4": 3})
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


def probe_code(
    cases, selections: str = "[tuple(GROUPS), ('avalanche', 'cyclic')]", modes=(False, True)
) -> str:
    """:data:`PROBE` for the points ``cases``, the ``selections`` of groups (Python) and the
    thread ``modes``: by default every group together, and avalanche with cyclic drive,
    which one fused kernel serves where no enumeration runs, in both modes."""
    code = PROBE.replace("CASES", repr(cases)).replace("SELECTIONS", selections)
    return code.replace("MODES", repr(tuple(modes)))


#: Points unlike the ones ``hyst compile`` draws: other N, ensembles and rules.
CASES = [("random", "hysteron", "1", 9), ("columns", "spin", "1p", 13), ("weak", "equal", "2", 5)]
CASES += [("rows", "hysteron", "0", 7)]


def test_after_hyst_compile_sampling_compiles_nothing():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NUMBA_CACHE_DIR", None)  # the in-tree cache, the one the jobs use
    done = subprocess.run(
        [sys.executable, "-m", "hyst", "compile"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "hyst compile: done in" in done.stdout
    probe = subprocess.run(
        [sys.executable, "-c", probe_code(CASES)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(probe.stdout.splitlines()[-1]) == {}


def test_the_selections_of_a_plan_are_the_groups_of_each_of_its_points():
    """What a run compiles ahead: every points study's groups as each of its sizes N resolves
    them (``"all"`` is every default group that supports N), once each; no other kind's."""
    from hyst.pipeline.config import load
    from hyst.sampling.sampler import Point, resolve_groups
    from hyst.studies import plan, sampler_selections

    config = load(REPO / "config" / "quick.yaml")
    expected = set()
    for study in config["studies"].values():
        if study.get("kind", "points") != "points":
            continue
        asked = None if study["observables"] == "all" else study["observables"]
        for N in study["N"]:
            point = Point(study["couplings"][0], study["spans"][0], study["rule"][0], N, 1.0)
            expected.add(resolve_groups(point, asked))
    found = sampler_selections(plan(config))
    assert sorted(found) == found and len(set(found)) == len(found)
    assert set(found) == expected
    # the quick preset's large sizes resolve "all" to the drive groups alone
    assert ("avalanche", "cyclic") in found and len(found) >= 8


OTHER_CASES = [("symmetric", "spin", "0", 11), ("rows", "equal", "2", 4)]


def test_hyst_compile_of_a_configuration_compiles_what_its_run_samples_with(tmp_path):
    """``hyst compile FILE`` compiles the kernels of the selections of observable groups
    that FILE's run samples with, and no other group's, as its jobs run them (the serial
    twins: a job's workers sample each chunk on one thread): here one study of group
    saturated_loop, into an empty cache; sampling that group at other points then compiles
    nothing."""
    config = {
        "seed": 1,
        "studies": {
            "loops_only": {
                "description": "the saturated loop alone",
                "couplings": ["random"],
                "spans": ["hysteron"],
                "N": [5],
                "NJ0": [1.0],
                "samples": 10,
                "observables": ["saturated_loop"],
            }
        },
    }
    file = tmp_path / "loops.yaml"
    file.write_text(json.dumps(config))
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-m", "hyst", "compile", str(file)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert f"the kernels {file}'s run samples with" in done.stdout
    cached = {p.name.split(".")[0] for p in cache.rglob("*.nbi")}
    assert "drive" in cached  # the saturated loop's kernels
    assert not cached & {"state_table", "addressing", "protocol_batches", "self_loop_search"}
    batch_kernels = {p.name.split("-")[0] for p in cache.rglob("*_batch*.nbi")}
    assert batch_kernels and all(name.endswith("_serial") for name in batch_kernels)
    probe = subprocess.run(
        [sys.executable, "-c", probe_code(OTHER_CASES, '[("saturated_loop",)]', [False])],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(probe.stdout.splitlines()[-1]) == {}


def test_hyst_compile_of_a_missing_configuration_is_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "hyst", "compile", "no/such/config.yaml"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "hyst compile: error: no/such/config.yaml: no such configuration file"
    ]


def test_the_compile_tasks_run_new_kernel_passes_first():
    """The order in which the compiling processes take a run's selections: each selection
    once; the first two share no kernel pass (the two processes compile apart); every
    selection that runs a pass no earlier one runs comes before every selection that
    does not (whose kernels are then mostly in the cache)."""
    from hyst.pipeline.config import load
    from hyst.sampling.passes import plan as passes_of
    from hyst.sampling.warm import every_selection, task_order
    from hyst.studies import plan, sampler_selections

    for selections in (
        sampler_selections(plan(load(REPO / "config" / "quick.yaml"))),
        every_selection(),
    ):
        order = task_order(selections + selections[:2])
        assert sorted(order) == sorted(set(selections))
        passes = [{kernel.name for kernel, _served in passes_of(s)} for s in order]
        if not passes[0] >= set().union(*passes):
            assert not passes[0] & passes[1]
        new = [bool(p - set().union(*passes[:k])) for k, p in enumerate(passes)]
        assert new == sorted(new, reverse=True)
