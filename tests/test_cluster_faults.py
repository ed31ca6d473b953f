"""Faults of the distributed engine, as users on a shared cluster meet them: a Dask worker
killed in the middle of a batch, a worker that runs out of memory, and a sampling job
cancelled by SLURM or stopped at its SLURM time limit. Each ends either with results
identical to an undisturbed run's or with one clear line and no partial file.

Point files are compared byte for byte: a point file is a pure function of its tallies
and attributes (:func:`hyst.studies.point_jobs.write_point` writes netCDF4 with fixed
compression, and netCDF-C stores no time stamps), so equal bytes mean the disturbed run
computed exactly what the undisturbed one did. Datasets of a pipeline run are compared
with ``xarray.testing.assert_identical`` (data and attributes), as the pipeline tests do.
"""

from __future__ import annotations

import copy
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import xarray as xr
import yaml
from dask_processes import DASK, dask_processes
from workflow_runs import REPO, slurm_available, snakemake, snakemake_cmd

from hyst.provenance.files import read_dataset
from hyst.sampling.chunks import SamplingFailed
from hyst.sampling.sampler import Point
from hyst.studies.base import Job
from hyst.studies.point_jobs import write_point
from hyst.studies.points import KIND, PointSpec

#: A point of 12 chunks of 10,000 systems (N = 12: enumerated transitions, about 0.5 s of
#: one core per chunk), so that a worker is killed with chunks running and queued.
MANY_CHUNKS = PointSpec(Point("random", "hysteron", "1", 12, 1.0), 120_000, ("transitions",), 7)


def run_points_job(specs, results: Path, scheduler_file: Path, log=None) -> dict:
    """Run one points job of ``specs`` on the cluster of ``scheduler_file``."""
    job = Job("points", "faults", {"points": [s.identity() for s in specs]})
    config = {"dask": {"scheduler_file": str(scheduler_file)}}
    return KIND.run(job, results, config=config, threads=1, log=log or (lambda line: None))


def leftovers(results: Path) -> list[str]:
    """Every file below ``results``, relative to it."""
    return sorted(str(p.relative_to(results)) for p in results.rglob("*") if p.is_file())


#: The pipeline tests' configuration with one study and no figure: one points job of four
#: points of 12 chunks each (N = 12, transitions), run under SLURM.
SLURM_CONFIG = {
    **yaml.safe_load((REPO / "config" / "test.yaml").read_text()),
    "batch": {"max_points": 4},
    "figures": {},
    "studies": {
        "cancelled": {
            "description": "random hysterons at N = 12, a job cancelled by scancel",
            "couplings": ["random"],
            "N": [12],
            "NJ0": [0.5, 1.0, 2.0, 4.0],
            "samples": 120_000,
            "observables": ["transitions"],
        }
    },
}


def slurm_job_id(log: Path, other_than=()) -> str | None:
    """The SLURM job id a job's log names (None before it does, or while it names only ids
    in ``other_than``)."""
    found = re.search(r"SLURM_JOB_ID=(\d+)", log.read_text()) if log.exists() else None
    return found.group(1) if found and found.group(1) not in other_than else None


def wait_for(condition, what: str, seconds: float = 300):
    """Poll ``condition()`` until it returns something true, and return that."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


#: One point of the cancelled study's kind: the job that hits its time limit.
TIME_LIMIT_CONFIG = {
    **SLURM_CONFIG,
    "studies": {
        "timed_out": {
            "description": "random hysterons at N = 12, a job stopped by its time limit",
            "couplings": ["random"],
            "N": [12],
            "NJ0": [1.0],
            "samples": 20_000,
            "observables": ["transitions"],
        }
    },
}


#: The one target of the time-limit runs: the study's dataset (no analysis, no manifest).
DATASET = "results/datasets/timed_out.nc"


def slurm_state(job_id: str) -> str:
    """The state slurmctld reports for ``job_id`` (finished jobs stay listed for MinJobAge)."""
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-j", job_id, "-o", "%T"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return out.stdout.strip()


@pytest.mark.slow
@pytest.mark.slurm
def test_a_job_stopped_at_its_slurm_time_limit_is_finished_by_the_same_command(tmp_path):
    """A sampling job submits its chunks to a Dask cluster whose workers never come (a busy
    queue) and waits until SLURM stops it at its one-minute time limit (state TIMEOUT). The
    run fails with the job named, leaves no partial file and no dataset; the same command
    run again, once a worker has joined, finishes the run without any cleaning by hand
    (`rerun-incomplete` in the profile), and its dataset is identical to that of an
    undisturbed local run."""
    if os.environ.get("HYST_NO_SLURM") == "1":
        pytest.skip("HYST_NO_SLURM=1: no local SLURM on this machine (scripts/start-slurm)")
    assert slurm_available(), "SLURM is not running: start it with `bash scripts/start-slurm`"
    work = tmp_path / "slurm"
    with dask_processes(tmp_path / "cluster", 0) as (sched, _pids, _procs):
        config = {**TIME_LIMIT_CONFIG, "dask": {"scheduler_file": str(sched)}}
        cmd = snakemake_cmd(work, config, profile="slurm")
        # a one-minute limit for the sampling job and no retry: the first attempt times out
        timed = [*cmd, "--set-resources", "job:runtime=1", "--retries", "0"]
        started = time.time()
        first = subprocess.run([*timed, DATASET], capture_output=True, text=True, timeout=600)
        waited = time.time() - started
        assert first.returncode != 0, first.stdout + first.stderr
        log = next((work / "results" / "logs" / "points").glob("*.log"))
        job_id = slurm_job_id(log)
        assert job_id and slurm_state(job_id) == "TIMEOUT", (job_id, slurm_state(job_id or "0"))
        results = work / "results"
        assert not (results / "datasets").exists()
        assert not [p for p in results.rglob("*") if p.name.endswith(".tmp")]
        assert not list((results / "points").rglob("*.nc"))
        # a worker joins; the same command (its own time limit again) finishes the run
        worker_log = open(tmp_path / "cluster" / "late-worker.log", "w")
        worker = subprocess.Popen(
            [DASK, "worker", "--scheduler-file", str(sched), "--nthreads", "1", "--no-dashboard"],
            stdout=worker_log,
            stderr=worker_log,
        )
        try:
            rerun = subprocess.run([*cmd, DATASET], capture_output=True, text=True, timeout=900)
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            worker_log.close()
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert slurm_job_id(log, (job_id,))  # a second SLURM job did the work
    local = tmp_path / "local"
    snakemake(local, copy.deepcopy(TIME_LIMIT_CONFIG), DATASET)
    xr.testing.assert_identical(
        read_dataset(results / "datasets" / "timed_out.nc"),
        read_dataset(local / "results" / "datasets" / "timed_out.nc"),
    )
    print(f"SLURM job {job_id} stopped at its time limit after {waited:.0f} s; the rerun finished")


@pytest.mark.slow
def test_killed_dask_worker_mid_batch_gives_the_undisturbed_point_file(tmp_path):
    """Three `dask worker` processes (no nanny: a killed worker stays dead, as a lost node
    does); after 3 of 12 chunks one of the workers running chunks is killed with SIGKILL.
    The scheduler hands its chunks to the two others; the point file is byte-identical to
    that of the same job run undisturbed on the same cluster."""
    from distributed import Client

    with dask_processes(tmp_path / "cluster", 3, "--no-nanny") as (sched, pids, _procs):
        quiet = run_points_job([MANY_CHUNKS], tmp_path / "quiet", sched)  # also warms them
        killed = {}
        lines = []
        with Client(scheduler_file=str(sched), timeout="60s") as watcher:

            def kill_one_busy_worker(line):
                lines.append(line)
                if line.startswith("chunk 3/") and not killed:
                    running = watcher.processing()
                    address = max(running, key=lambda a: len(running[a]))
                    killed.update(address=address, chunks=list(running[address]))
                    os.kill(pids[address], signal.SIGKILL)

            t0 = time.perf_counter()
            disturbed = run_points_job(
                [MANY_CHUNKS], tmp_path / "disturbed", sched, log=kill_one_busy_worker
            )
            seconds = time.perf_counter() - t0
            left = set(watcher.nthreads())
    assert killed["chunks"], "the killed worker had no chunk to lose"
    assert left == set(pids) - {killed["address"]}  # the worker is gone for good
    assert sum(line.startswith("chunk ") for line in lines) == 12  # each chunk counted once
    quiet_file, disturbed_file = Path(quiet["files"][0]), Path(disturbed["files"][0])
    assert disturbed_file.read_bytes() == quiet_file.read_bytes()
    scheduler_log = (tmp_path / "cluster" / "scheduler.log").read_text()
    assert f"Remove worker addr: {killed['address']}" in scheduler_log
    # a gathered chunk is released at once: the lost worker cost no recomputation of it
    assert "lose already computed task" not in scheduler_log
    print(f"killed {killed['address']} running {killed['chunks']}; the job took {seconds:.1f} s")


@pytest.mark.slow
def test_worker_out_of_memory_fails_in_one_line_and_leaves_only_complete_points(tmp_path):
    """Two `dask worker` processes whose nanny restarts them above 95 % of a 320 MB memory
    limit: a worker with the kernels loaded holds about 230 MB, and sampling a chunk at
    N = 512 (2^24 couplings) takes it to about 360 MB (both measured), so the chunk kills
    every worker that runs it. (Dask's pause at 80 % is turned off: it would stop a worker
    between chunks, not kill it, and the job would wait.) After Dask's allowed-failures
    the job stops with one line saying which chunk, why and what to change; the other
    point of the job is completed and written (identical to its undisturbed file), and
    nothing else: no file of the failed point, no temporary file."""
    small = PointSpec(Point("random", "hysteron", "1", 16, 1.0), 100, ("saturated_loop",), 7)
    big = PointSpec(Point("random", "hysteron", "1", 512, 1.0), 256, ("saturated_loop",), 7)
    results = tmp_path / "results"
    # sampled here first, the kernels are in numba's cache for the workers to load:
    # compiling them takes a worker above the limit, and the small point would fail too
    quiet = write_point(small.sample(), tmp_path / "quiet.nc")
    no_pause = {"DASK_DISTRIBUTED__WORKER__MEMORY__PAUSE": "False"}
    cluster = dask_processes(tmp_path / "cluster", 2, "--memory-limit", "320MB", env=no_pause)
    with cluster as (sched, *_):
        t0 = time.perf_counter()
        with pytest.raises(SamplingFailed) as failed:
            run_points_job([small, big], results, sched)
        seconds = time.perf_counter() - t0
    message = str(failed.value)
    assert "\n" not in message
    assert re.match(
        r"chunk \d of the point \(random couplings, hysteron spans, rule 1, N = 512, NJ0 = 1\) "
        r"killed every Dask worker that ran it \(4 workers, Dask's KilledWorker\), most often "
        r"because a worker ran out of memory: .* needs about 912\.0 MiB; the workers' memory "
        r"limits: 305\.2 MiB \(give them more",
        message,
    ), message
    assert leftovers(results) == [str(small.path(results).relative_to(results))]
    assert small.path(results).read_bytes() == quiet.read_bytes()
    restarts = sum(
        f.read_text().count("exceeded 95% memory budget")
        for f in (tmp_path / "cluster").glob("worker-*.log")
    )
    assert restarts >= 4
    print(f"{message}\n{restarts} worker restarts; failed after {seconds:.1f} s")


def test_a_chunk_out_of_memory_in_the_jobs_own_cluster_is_one_line_and_writes_nothing(
    tmp_path, monkeypatch
):
    """A chunk that raises MemoryError on a worker of the job's own LocalCluster (threads in
    the job's process: no nanny to restart them) stops the job with one line; the other
    chunks are cancelled and no file is written."""
    from hyst.sampling import chunks
    from hyst.sampling.tallies import Tally

    def chunk_task(job, chunk, size):
        if chunk == 1:
            raise MemoryError("Unable to allocate 128. MiB for an array with shape (16, 1048576)")
        return Tally()

    monkeypatch.setattr(chunks, "_chunk_task", chunk_task)
    spec = PointSpec(Point("random", "hysteron", "1", 1024, 1.0), 64, ("avalanche",), 7)
    results = tmp_path / "results"
    job = Job("points", "faults", {"points": [spec.identity()]})
    with pytest.raises(SamplingFailed) as failed:
        KIND.run(job, results, config={}, threads=2, log=lambda line: None)
    assert str(failed.value) == (
        "chunk 1 of the point (random couplings, hysteron spans, rule 1, N = 1024, NJ0 = 1) "
        "ran out of memory (MemoryError: Unable to allocate 128. MiB for an array with shape "
        "(16, 1048576)): a process sampling a chunk at N = 1024 needs about 912.0 MiB (raise "
        "resources.mem_mb or the workers' memory)"
    )
    assert leftovers(results) == []


def _one_point_fails_alone(tmp_path, threads: int, chunk: str) -> None:
    """A job of a point whose chunks fail (N = 64, and N = 128 below: ``_chunk_task``
    patched by the caller) and one that completes, on ``threads`` threads: the job stops
    with the failure's one line (the failed chunk matching ``chunk``), after the other
    point's file is written, the bytes of an undisturbed sampling; two failed points are
    counted in one line and leave no file."""
    fails = PointSpec(Point("random", "hysteron", "1", 64, 1.0), 64, ("avalanche",), 7)
    completes = PointSpec(Point("random", "hysteron", "1", 8, 1.0), 3000, ("avalanche",), 7)
    results = tmp_path / "results"
    lines = []
    job = Job("points", "faults", {"points": [fails.identity(), completes.identity()]})
    with pytest.raises(SamplingFailed) as failed_job:
        KIND.run(job, results, config={}, threads=threads, log=lines.append)
    message = str(failed_job.value)
    assert re.fullmatch(
        rf"chunk {chunk} of the point \(random couplings, hysteron spans, rule 1, N = 64, "
        r"NJ0 = 1\) ran out of memory \(MemoryError: Unable to allocate the chunk at N = 64\): "
        r"a process sampling a chunk at N = 64 needs about [0-9.]+ [KMG]iB \(raise "
        r"resources.mem_mb or the workers' memory\)",
        message,
    ), message
    assert leftovers(results) == [str(completes.path(results).relative_to(results))]
    assert any(line.endswith("; the job's 1 other unfinished points go on") for line in lines)
    quiet = write_point(completes.sample(), tmp_path / "quiet.nc")
    assert completes.path(results).read_bytes() == quiet.read_bytes()

    fails_too = PointSpec(Point("random", "hysteron", "1", 128, 1.0), 64, ("avalanche",), 7)
    job = Job("points", "faults", {"points": [s.identity() for s in (fails, fails_too)]})
    with pytest.raises(SamplingFailed) as failed_job:
        KIND.run(job, tmp_path / "two", config={}, threads=threads, log=lambda line: None)
    assert "\n" not in str(failed_job.value)
    assert str(failed_job.value).endswith(" (and 1 more of the job's points failed: see its log)")
    assert leftovers(tmp_path / "two") == []


def test_a_failed_point_lets_the_jobs_other_points_complete_and_be_written(tmp_path, monkeypatch):
    """A chunk that fails its point (here MemoryError, in the job's own LocalCluster) does
    not take the job's other points with it: they complete and their files are written,
    then the job stops with the first failure's line. The other points' chunks wait until
    the failure has happened, so without this the job would have cancelled them (the
    out-of-memory test above relied on the small point finishing first). A second failed
    point is counted in the same line."""
    from hyst.sampling import chunks

    the_real_task = chunks._chunk_task  # not hyst.sampling.sampler.sample_chunk's signature
    failed = tmp_path / "a point failed"  # a file: the task is pickled, a lock cannot be

    def chunk_task(job, chunk, size):
        if job.point.N in (64, 128):
            failed.touch()
            raise MemoryError(f"Unable to allocate the chunk at N = {job.point.N}")
        for _ in range(600):
            if failed.exists():
                return the_real_task(job, chunk, size)
            time.sleep(0.1)
        raise AssertionError("no point failed")

    monkeypatch.setattr(chunks, "_chunk_task", chunk_task)
    _one_point_fails_alone(tmp_path, 2, r"\d+")


def test_a_job_of_one_thread_samples_without_a_cluster_and_writes_the_same_files(tmp_path):
    """A job of one thread and no ``dask:`` cluster runs its chunks in its own thread
    (``sampling_client`` gives no client); its point files are byte for byte those of the
    same job on a LocalCluster of two threads, and its log has the same progress lines."""
    from hyst.sampling import cluster

    with cluster.sampling_client({}, 1) as c:
        assert c is None
    specs = [
        PointSpec(Point("random", "hysteron", "1", n, 1.0), samples, ("avalanche",), 7)
        for n, samples in ((8, 3000), (64, 40), (5, 200))
    ]
    job = Job("points", "inline", {"points": [s.identity() for s in specs]})
    logs = {}
    for threads in (1, 2):
        logs[threads] = []
        KIND.run(job, tmp_path / str(threads), config={}, threads=threads, log=logs[threads].append)
    for spec in specs:
        here, cluster_file = (spec.path(tmp_path / str(t)) for t in (1, 2))
        assert here.read_bytes() == cluster_file.read_bytes(), spec.point
    chunk_lines = [
        [line.split(" (")[0] for line in logs[t] if line.startswith("chunk ")] for t in (1, 2)
    ]
    assert sorted(chunk_lines[0]) == sorted(chunk_lines[1])
    assert len(chunk_lines[0]) >= len(specs)


def test_a_configured_cluster_is_used_by_a_job_of_one_thread(monkeypatch):
    """With ``dask:`` naming a cluster, a job of one thread still submits to it."""
    import contextlib

    from hyst.sampling import cluster

    asked = []

    def job_client(config, threads):
        asked.append((config["dask"], threads))
        return contextlib.nullcontext("a client")

    monkeypatch.setattr(cluster, "job_client", job_client)
    for dask in ({"scheduler_file": "scheduler.json"}, {"address": "tcp://host:8786"}):
        with cluster.sampling_client({"dask": dask}, 1) as c:
            assert c == "a client"
    assert asked == [({"scheduler_file": "scheduler.json"}, 1), ({"address": "tcp://host:8786"}, 1)]


def test_a_point_out_of_memory_in_a_job_of_one_thread_fails_alone_in_one_line(
    tmp_path, monkeypatch
):
    """Without a cluster (one thread) a chunk that runs out of memory fails its point with
    the line a cluster gives; the job's other points complete and are written (the same
    bytes as a job that never failed), then the job stops."""
    from hyst.sampling import chunks

    the_real_task = chunks._chunk_task

    def chunk_task(job, chunk, size):
        if job.point.N in (64, 128):
            raise MemoryError(f"Unable to allocate the chunk at N = {job.point.N}")
        return the_real_task(job, chunk, size)

    monkeypatch.setattr(chunks, "_chunk_task", chunk_task)
    _one_point_fails_alone(tmp_path, 1, "0")


def test_a_memory_error_without_a_message_still_gives_one_line():
    """A MemoryError without text (Python's own, when an allocation fails) still gives the
    one line, naming the error alone."""
    from hyst.sampling.chunks import failure_text

    line = failure_text(Point("random", "hysteron", "1", 64, 1.0), 3, MemoryError(), set())
    assert line.startswith("chunk 3 of the point (random couplings, hysteron spans, rule 1, ")
    assert "ran out of memory (MemoryError): a process sampling" in line and "\n" not in line


def test_a_killed_worker_message_names_the_memory_limits_the_job_saw():
    """The limits in a KilledWorker message are those of the workers the job saw, the job's
    start included: when the chunk fails, the workers it killed may all be restarting
    (their nannies), and none is connected. (Found under load: the message then said "no
    worker left" instead of the limit.)"""
    from distributed.scheduler import KilledWorker

    from hyst.sampling.chunks import failure_text

    point = Point("random", "hysteron", "1", 512, 1.0)
    err = KilledWorker("chunk-x", None, allowed_failures=3)
    head = (
        "chunk 3 of the point (random couplings, hysteron spans, rule 1, N = 512, NJ0 = 1) "
        "killed every Dask worker that ran it (4 workers, Dask's KilledWorker), most often "
        "because a worker ran out of memory: a process sampling a chunk at N = 512 needs about "
        "912.0 MiB; the workers' memory limits: "
    )
    tail = (
        " (give them more, e.g. dask worker --memory-limit or hyst cluster --memory, or see "
        "the workers' logs)"
    )
    assert failure_text(point, 3, err, {320_000_000}) == f"{head}305.2 MiB{tail}"
    assert failure_text(point, 3, err, {0, 320_000_000}) == f"{head}none, 305.2 MiB{tail}"
    assert failure_text(point, 3, err, set()) == f"{head}no worker seen{tail}"


@pytest.mark.slow
@pytest.mark.slurm
def test_scancel_mid_job_then_rerunning_the_same_command_gives_identical_datasets(tmp_path):
    """The points job is cancelled with scancel once it has written one of its four points,
    and its retry (the profile's ``retries: 1``) again once it has written one more: the
    run fails. The same command run again resubmits the job, which reuses the points
    written before the cancellations and samples the rest; the dataset is identical to that
    of an undisturbed local run."""
    if os.environ.get("HYST_NO_SLURM") == "1":
        pytest.skip("HYST_NO_SLURM=1: no local SLURM on this machine (scripts/start-slurm)")
    assert slurm_available(), "SLURM is not running: start it with `bash scripts/start-slurm`"
    work = tmp_path / "slurm"
    cmd = snakemake_cmd(work, SLURM_CONFIG, profile="slurm")
    run = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    logs, points = work / "results" / "logs" / "points", work / "results" / "points"
    cancelled, written = [], []
    try:
        for attempt in (1, 2):
            job_id = wait_for(
                lambda: next(
                    (i for f in logs.glob("*.log") if (i := slurm_job_id(f, cancelled))), None
                ),
                f"attempt {attempt} of the job to start under SLURM",
            )
            before = len(list(points.rglob("*.nc")))
            wait_for(
                lambda: len(list(points.rglob("*.nc"))) > before,  # noqa: B023 (called here)
                f"attempt {attempt} to write a point",
            )
            subprocess.run(["scancel", job_id], check=True, timeout=30)
            cancelled.append(job_id)
            written.append(len(list(points.rglob("*.nc"))))
        out, _ = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode != 0, out  # two cancellations: the job failed, and so did the run
    assert not (work / "results" / "datasets").exists()
    assert not [p for p in points.rglob("*") if p.name.endswith(".tmp")]
    rerun = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    log = next(logs.glob("*.log")).read_text()
    reused = int(re.search(r"4 points, (\d) reused", log).group(1))
    assert reused >= written[-1] >= 2
    assert slurm_job_id(next(logs.glob("*.log")), cancelled)  # a third SLURM job did it
    local = tmp_path / "local"
    snakemake(local, copy.deepcopy(SLURM_CONFIG))
    xr.testing.assert_identical(
        read_dataset(work / "results" / "datasets" / "cancelled.nc"),
        read_dataset(local / "results" / "datasets" / "cancelled.nc"),
    )
    print(f"cancelled SLURM jobs {cancelled} after {written} points; the rerun reused {reused}")


def test_a_jobs_own_cluster_never_pauses_when_its_process_is_large():
    """The job's in-process cluster has no memory limit: a worker in the caller's process
    would measure the whole process and pause for good (a hang) once the process held
    80 % of a limit, as a pytest process that had run other tests did with mem_mb = 1000."""
    import numpy as np

    from hyst.sampling.cluster import job_client

    ballast = np.ones(400 * 2**20 // 8)  # 400 MiB touched: the process is larger than 256 MB
    with job_client({"resources": {"mem_mb": 256}}, 1) as c:
        (worker,) = c.cluster.workers.values()  # in this process
        # no memory monitor that could pause it, and its system monitor has sampled the
        # process's memory twice since (a monitor, had there been one, would have looked)
        assert "memory_monitor" not in worker.periodic_callbacks
        start = worker.monitor.count
        wait_for(lambda: worker.monitor.count >= start + 2, "two samples of the process memory")
        assert worker.status.name == "running"
        assert c.submit(sum, [1, 2, 3]).result(timeout=30) == 6
    assert ballast.sum() == ballast.size
