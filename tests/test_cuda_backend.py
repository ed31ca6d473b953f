"""The CUDA backend: its kernels equal the CPU's system by system (in numba's CUDA simulator),
a broken kernel is caught, and ``backend: cuda`` is refused in one line, before any work,
where it cannot run (configuration, ``hyst point``, ``hyst.sample_point``).

numba reads ``NUMBA_ENABLE_CUDASIM`` when ``numba.cuda`` is first imported, so the
simulated kernels run in a subprocess of their own (``tests/cuda_sim_checks.py``), once
per test session and pytest-xdist worker: a module fixture.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hyst
from hyst.model import cuda_batch
from hyst.pipeline.config import ConfigError, result_config, validate

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'hyst[cuda]')")


@pytest.fixture(scope="module")
def simulated():
    """The report of ``tests/cuda_sim_checks.py`` run in numba's CUDA simulator, and its
    wall time in seconds."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "cuda_sim_checks.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout), time.perf_counter() - t0


def test_the_enumeration_on_cuda_equals_the_cpu_system_by_system(simulated):
    report, _ = simulated
    checks = report["enumeration"]
    assert len(checks) == 16  # four ensembles (tie-heavy included) and four rules
    for name, check in checks.items():
        assert check["differ"] == 0, name
        assert check["systems"] >= 66, name
    # the comparison meets self-loops under every rule, ties included
    for rule in ("0", "1", "1p", "2"):
        assert checks[f"ties/{rule}"]["self_loop_transitions"] > 0
        assert checks[f"random-hysteron/{rule}"]["self_loop_transitions"] > 0


def test_the_self_loop_search_on_cuda_equals_the_cpu_system_by_system(simulated):
    report, _ = simulated
    checks = report["search"]
    assert len(checks) == 16
    for name, check in checks.items():
        assert check["differ"] == 0, name
        assert check["systems"] >= 200, name
        assert check["self_loops"] > 0, name


def test_a_wrong_reduction_in_the_kernel_is_caught(simulated):
    """The shared-memory reduction broken on purpose (its first level skipped): the
    system-by-system comparison finds the systems it breaks."""
    report, _ = simulated
    assert report["broken"]["systems"] == 16
    assert report["broken"]["differ"] > 0


def test_the_sampler_gives_the_same_tallies_on_both_backends(simulated):
    report, _ = simulated
    for groups, check in report["point"].items():
        assert check["same"], groups
        assert check["counts"] > 0


def test_the_cuda_passes_may_be_called_from_several_threads(simulated):
    """A Dask worker's threads share one GPU (and the simulator runs one kernel at a time)."""
    report, _ = simulated
    assert report["threads"] == {"calls": 4, "differ": 0}


# ---- refused where it cannot run --------------------------------------------------------------


@pytest.fixture
def no_gpu(monkeypatch):
    """This process as a machine without a GPU and without the simulator."""
    reason = "no CUDA GPU is available here and NUMBA_ENABLE_CUDASIM is not set"
    monkeypatch.setattr(cuda_batch, "cuda_problem", lambda: reason)
    return reason


def test_the_configuration_refuses_cuda_where_it_cannot_run(no_gpu, tmp_path):
    config = {
        "results": str(tmp_path),
        "backend": "cuda",
        "studies": {"s": {"couplings": ["random"], "N": [4], "NJ0": [10.0], "samples": 16}},
    }
    with pytest.raises(ConfigError) as err:
        validate(config)
    assert str(err.value) == f"backend: 'cuda' cannot run here ({no_gpu}); allowed here: cpu"
    config["backend"] = "gpu"
    with pytest.raises(ConfigError, match="backend") as err:
        validate(config)
    assert "\n" not in str(err.value)
    config["backend"] = "cpu"
    assert validate(config)["backend"] == "cpu"


def test_the_backend_determines_no_result(tmp_path):
    """An operational key: results and reruns do not depend on it."""
    config = {
        "results": str(tmp_path),
        "studies": {"s": {"couplings": ["random"], "N": [4], "NJ0": [10.0], "samples": 16}},
    }
    valid = validate(config)
    assert valid["backend"] == "cpu"
    assert "backend" not in result_config(valid)


def test_sample_point_refuses_cuda_before_any_work(no_gpu, monkeypatch):
    from hyst.sampling import sampler

    monkeypatch.setattr(sampler, "sample_job", lambda *a, **k: pytest.fail("sampled"))
    with pytest.raises(ValueError) as err:
        hyst.sample_point(couplings="random", N=4, NJ0=10.0, samples=8, backend="cuda")
    assert str(err.value) == f"backend: 'cuda' cannot run here ({no_gpu}); allowed here: cpu"
    with pytest.raises(ValueError, match=r"backend: 'gpu' is not one of cpu, cuda"):
        hyst.sample_point(couplings="random", N=4, NJ0=10.0, samples=8, backend="gpu")


def test_hyst_point_refuses_cuda_in_one_line_where_it_cannot_run(tmp_path):
    """A real process without the simulator (skipped on a machine with a GPU)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = str(ROOT)
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "from hyst.kernels.cuda_device import cuda_problem as p; print(p() is None)",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if probe.stdout.strip() == "True":
        pytest.skip("a CUDA GPU is available here")
    out = tmp_path / "p.nc"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "hyst",
            "point",
            "--couplings",
            "random",
            "--N",
            "4",
            "--NJ0",
            "10",
            "--samples",
            "8",
            "--backend",
            "cuda",
            "-o",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "--backend: 'cuda' cannot run here" in lines[0]
    assert "allowed here: cpu" in lines[0]
    assert not out.exists()


def test_the_kernels_compile_for_a_gpu(monkeypatch):
    """Both CUDA kernels compile to PTX for an H100 (compute capability 9.0) without a GPU,
    where the CUDA toolkit's compiler is installed (``pip install 'hyst[gpu]'``): the
    simulator runs the kernels' Python, this compiles them as a GPU would."""
    from types import SimpleNamespace

    from numba import cuda, types

    from hyst.kernels.cuda_device import simulated

    if simulated():
        pytest.skip("numba.cuda is the simulator in this process")
    try:
        from numba.cuda.cudadrv.nvvm import NVVM

        NVVM()
    except Exception as exc:  # noqa: BLE001 - any missing piece of the toolkit
        pytest.skip(f"no CUDA compiler (NVVM) here: {type(exc).__name__}")
    import numba.cuda.dispatcher as dispatcher

    from hyst.kernels import cuda_self_loops, cuda_state_table

    # a device function compiles for the current device's capability: name one
    monkeypatch.setattr(
        dispatcher, "get_current_device", lambda: SimpleNamespace(compute_capability=(9, 0))
    )
    a1, a2, a3 = (types.Array(types.int64, d, "C") for d in (1, 2, 3))
    flag, i64 = types.boolean, types.int64
    # ... the last argument: the flip times (N,) that the CPU's step and search take
    enumeration = (a2, a2, a3, flag, i64, a3, a2, a2, a2, a3, a2, a1, a1, a2, a2, a1)
    search = (a2, a2, a3, flag, i64, i64, a3, a3, a2, a3, a3) + (a2,) * 12 + (a1,)
    for build, signature in (
        (cuda_state_table.build, enumeration),
        (cuda_self_loops.build, search),
    ):
        try:
            ptx, _ = cuda.compile_ptx(build().py_func, signature, cc=(9, 0))
        except Exception as exc:  # a library of the toolkit missing (NVRTC): not our kernels
            if "DynamicLibNotFound" not in type(exc).__name__:
                raise
            pytest.skip(f"no CUDA runtime compiler here: {exc}")
        assert ".entry" in ptx


def test_a_points_job_samples_on_the_configured_backend(monkeypatch, tmp_path):
    """The job's configuration (``job_config``: read when the job runs, no part of its
    params) carries the backend to the sampled jobs; point files keep their identity."""
    import contextlib

    from hyst.sampling import chunks, cluster
    from hyst.sampling.sampler import Point
    from hyst.studies import KINDS
    from hyst.studies.base import Job
    from hyst.studies.points import PointSpec

    kind = KINDS["points"]
    assert kind.job_config({"backend": "cuda"}) == {"dask": {}, "backend": "cuda"}
    assert kind.job_config({}) == {"dask": {}, "backend": "cpu"}
    spec = PointSpec(Point("random", "hysteron", "1", 4, 10.0), 8, None, 1)
    sent = []
    monkeypatch.setattr(cuda_batch, "cuda_problem", lambda: None)
    monkeypatch.setattr(cluster, "job_client", lambda config, threads: contextlib.nullcontext())
    monkeypatch.setattr(chunks, "sample_points", lambda c, todo, **k: sent.extend(todo))
    job = Job("points", "j", {"points": [spec.identity()]})
    kind.run(job, tmp_path, config={"dask": {}, "backend": "cuda"}, threads=1, log=lambda _: 0)
    assert [s.backend for s in sent] == ["cuda"]
    assert sent[0].identity() == spec.identity() and sent[0].path(tmp_path) == spec.path(tmp_path)
