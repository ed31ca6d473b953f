"""Sampling points on a Dask client, chunk by chunk.

A point's work is a :class:`hyst.sampling.sampler.SamplingJob`, pickled to the workers with
each of its chunks. Every chunk of every point is one task
(:func:`hyst.sampling.sampler.sample_chunk`, serial: the worker threads run chunks side by
side); each point's chunk tallies are
merged in chunk order, so the outcome never depends on the cluster or the scheduling.
The client comes from :mod:`hyst.sampling.cluster`; without one (a job of one thread and no
cluster configured: :func:`hyst.sampling.cluster.sampling_client`) the chunks run in the
calling thread, in the same order and merged the same way, so the tallies are the same.

Faults of the cluster. A worker that dies (killed, its node lost) takes its running and
queued chunks with it; the scheduler gives them to the other workers (or to a worker that
joins later), and since a chunk's result depends only on its point, its index and the seed,
the tallies are those of an undisturbed run. A chunk whose result the client has gathered
is released at once, so a worker lost later does not make the scheduler recompute it. A
chunk that kills every worker that runs it (``distributed.scheduler.allowed-failures`` + 1
of them: Dask's ``KilledWorker``; most often a worker's memory limit), or that runs out of
memory, fails its point: the point's other chunks are cancelled, the job's other points
are completed (each handed over as soon as it is, so its file is written), and then the job
stops with :class:`SamplingFailed`, whose message is one line. Which points the job
leaves thus no longer depends on the order the chunks ran in. (Dask counts a worker's
death against every chunk the worker held, those queued behind the running one included:
a chunk that sat on allowed-failures + 1 workers that another chunk killed fails too, and
its point is counted among the failed ones.)
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hyst.model import seeds
from hyst.sampling.cost import bytes_text, chunk_bytes
from hyst.sampling.sampler import Point, SamplingJob, chunk_bounds, chunk_size, sample_chunk
from hyst.sampling.tallies import Tally


class SamplingFailed(RuntimeError):
    """A chunk the cluster could not compute; the message is one line for the user."""


def _chunk_task(job: SamplingJob, chunk: int, size: int) -> Tally:
    return sample_chunk(job, chunk, size, parallel=False)


def point_text(point: Point) -> str:
    """A point for a message: "random couplings, hysteron spans, rule 1, N = 512, NJ0 = 1"."""
    return (
        f"{point.couplings} couplings, {point.spans} spans, rule {point.rule}, "
        f"N = {point.N}, NJ0 = {point.NJ0:g}"
    )


def memory_limits(dask_client) -> set[int]:
    """The memory limits (bytes; 0: none) of the workers connected to the client now."""
    return {w.get("memory_limit") or 0 for w in dask_client.scheduler_info()["workers"].values()}


def failure_text(point: Point, chunk: int, err: BaseException, limits: set[int]) -> str:
    """One line saying which chunk failed, why, and what to change; ``limits``: the memory
    limits of the workers that the job saw (see :func:`memory_limits`)."""
    from distributed.scheduler import KilledWorker

    what = f"chunk {chunk} of the point ({point_text(point)})"
    need = (
        f"a process sampling a chunk at N = {point.N} needs about "
        f"{bytes_text(chunk_bytes(point.N))}"
    )
    if isinstance(err, KilledWorker):
        attempts = err.allowed_failures + 1  # the scheduler's allowed-failures, + 1
        have = ", ".join(bytes_text(m) if m else "none" for m in sorted(limits)) or "no worker seen"
        return (
            f"{what} killed every Dask worker that ran it ({attempts} workers, Dask's "
            f"KilledWorker), most often because a worker ran out of memory: {need}; the "
            f"workers' memory limits: {have} (give them more, e.g. dask worker "
            "--memory-limit or hyst cluster --memory, or see the workers' logs)"
        )
    detail = (str(err).splitlines() or [""])[0]
    error = f"{type(err).__name__}: {detail}" if detail else type(err).__name__
    return (
        f"{what} ran out of memory ({error}): "
        f"{need} (raise resources.mem_mb or the workers' memory)"
    )


def sample_points(
    dask_client,
    jobs: list[SamplingJob],
    log: Callable[[str], None] = print,
    point_done: Callable[[int, Tally], None] | None = None,
) -> list[Tally]:
    """Tally several points' :class:`~hyst.sampling.sampler.SamplingJob` on a Dask client
    (each sent to the workers as a plain ``SamplingJob``, whatever subclass it is).

    Every chunk of every point is submitted at once; each point's chunks are merged in chunk
    order, and ``point_done(j, tally)`` is called as soon as point ``j`` is complete (before
    the other points end: its result can be saved). Logs chunk progress with samples/s.
    A chunk the cluster cannot compute (see the module docstring) fails its point: its other
    chunks are cancelled, the other points are completed, and then :class:`SamplingFailed`
    is raised with the first failure's line. Any other exception cancels every chunk.

    ``dask_client`` None: every chunk runs in this thread (:func:`_sample_here`).
    """
    if dask_client is None:
        return _sample_here(jobs, log, point_done)
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    # the workers' memory limits, for a failure's message: those seen now, and those still
    # there when a chunk fails (at that moment the workers it killed may all be restarting)
    limits = memory_limits(dask_client)
    futures, owners = [], {}
    futures_of: list[list] = []  # per point, its chunks' futures in chunk order
    for j, job in enumerate(jobs):
        job = job.sampling_job()
        point = job.point
        tag = seeds.digest([job.samples, list(job.groups), dict(job.records)], 8)
        bounds = chunk_bounds(job.samples, chunk_size(point.N))
        futures_of.append([])
        for k, size in bounds:
            f = dask_client.submit(
                _chunk_task,
                job,
                k,
                size,
                key=f"chunk-{point.key()}-{job.seed}-{tag}-{k}",
                pure=False,
            )
            futures.append(f)
            futures_of[j].append(f)
            owners[f.key] = (j, k, size)
    total = len(futures)
    t0 = time.perf_counter()
    done = samples_done = 0
    results: dict[int, dict[int, Tally]] = {j: {} for j in range(len(jobs))}
    tallies: list[Tally | None] = [None] * len(jobs)
    failures: dict[int, str] = {}  # failed point -> its message, in the order they failed
    try:
        for fut in as_completed(futures):
            j, k, size = owners[fut.key]
            if j in failures:  # a chunk of a failed point, cancelled or finished after
                continue
            try:
                results[j][k] = fut.result()
            except (KilledWorker, MemoryError) as err:
                limits |= memory_limits(dask_client)
                failures[j] = failure_text(jobs[j].point, k, err, limits)
                dask_client.cancel(futures_of[j])
                results[j] = {}
                left = len(jobs) - len(failures) - sum(t is not None for t in tallies)
                log(_failed_line(failures[j], left))
                continue
            fut.release()  # gathered: a worker lost from now on costs no recomputation
            done += 1
            samples_done += size
            log(_progress_line(done, total, samples_done, t0))
            if len(results[j]) == len(futures_of[j]):
                tally = Tally()
                for chunk in range(len(futures_of[j])):
                    tally.merge(results[j][chunk])
                tallies[j], results[j] = tally, {}
                if point_done is not None:
                    point_done(j, tally)
    except BaseException:
        dask_client.cancel(futures)
        raise
    if failures:
        raise _job_failed(list(failures.values()))
    return tallies


def _progress_line(done: int, total: int, samples_done: int, t0: float) -> str:
    """The log line of a job's ``done``-th chunk of ``total``, with its samples per second."""
    rate = samples_done / max(time.perf_counter() - t0, 1e-9)
    return f"chunk {done}/{total} done ({samples_done} samples, {rate:,.0f} samples/s)"


def _failed_line(failure: str, left: int) -> str:
    """The log line of a failed point, and how many of the job's points go on."""
    return failure + (f"; the job's {left} other unfinished points go on" if left else "")


def _job_failed(failures: list[str]) -> SamplingFailed:
    """The job's one-line error: the first failure, and how many more points failed."""
    first, *more = failures
    also = f" (and {len(more)} more of the job's points failed: see its log)" if more else ""
    return SamplingFailed(first + also)


def _sample_here(
    jobs: list[SamplingJob],
    log: Callable[[str], None],
    point_done: Callable[[int, Tally], None] | None,
) -> list[Tally]:
    """:func:`sample_points` without a cluster: each point's chunks in this thread, one after
    the other, merged in chunk order (the tallies a cluster gives), ``point_done`` called as
    each point completes, the same progress lines. A chunk that runs out of memory fails its
    point; the job's other points are completed, then :class:`SamplingFailed` is raised.

    For a job of one thread this is the whole of the work: an in-process cluster of one
    worker thread would run the same chunks one after the other, and its scheduler and
    event loop cost about a fifth of the kernels' own CPU time (the quick preset's sampling
    jobs: 82 -> 69 CPU-s)."""
    total = sum(len(chunk_bounds(j.samples, chunk_size(j.point.N))) for j in jobs)
    t0 = time.perf_counter()
    done = samples_done = 0
    tallies: list[Tally | None] = [None] * len(jobs)
    failures: list[str] = []
    for j, spec in enumerate(jobs):
        job = spec.sampling_job()
        tally = Tally()
        for k, size in chunk_bounds(job.samples, chunk_size(job.point.N)):
            try:
                tally.merge(_chunk_task(job, k, size))
            except MemoryError as err:
                failures.append(failure_text(job.point, k, err, set()))
                log(_failed_line(failures[-1], len(jobs) - j - 1))
                tally = None
                break
            done += 1
            samples_done += size
            log(_progress_line(done, total, samples_done, t0))
        if tally is None:
            continue
        tallies[j] = tally
        if point_done is not None:
            point_done(j, tally)
    if failures:
        raise _job_failed(failures)
    return tallies
