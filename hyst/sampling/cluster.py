"""The Dask clusters of the pipeline: every Dask client of hyst is built here.

By default a job of several threads starts an in-process ``LocalCluster``: one
worker with one thread per core (a sampling job of one thread runs its chunks
itself: :func:`sampling_client`). The kernels release the GIL (``nogil``) and run serially on
each worker thread, so threads compute in parallel without process start-up
or per-process numba loading. With ``scheduler_file`` or ``address`` (the
configuration's ``dask:``) a job submits to an existing cluster instead, which
``hyst cluster`` starts (:func:`standing_cluster`). Results are gathered and merged
in task order by their callers, so the outcome never depends on the cluster.
"""

from __future__ import annotations

import contextlib
import logging

from hyst.sampling.malloc import keep_large_buffers


@contextlib.contextmanager
def client(scheduler_file=None, address=None, threads: int = 1):
    """A ``distributed.Client``: to an existing cluster, or to a fresh LocalCluster."""
    from distributed import Client, LocalCluster

    if scheduler_file:
        with Client(scheduler_file=scheduler_file, timeout="60s") as c:
            yield c
        return
    if address:
        with Client(address, timeout="60s") as c:
            yield c
        return
    logging.getLogger("distributed").setLevel(logging.WARNING)
    keep_large_buffers()  # before the worker threads exist (they would get arenas of their own)
    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=threads,
            processes=False,
            # no memory limit: an in-process worker measures the memory of the whole
            # process it shares with its caller, and would pause for good (a hang) once
            # that process holds 80 % of a limit; the job's own memory is bounded where it
            # runs (Snakemake's resources.mem_mb, SLURM's --mem)
            memory_limit=0,
            dashboard_address=":0",  # the scheduler's HTTP server on a free port, never 8787
            scheduler_port=0,
            silence_logs=logging.WARNING,
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def job_client(config: dict, threads: int):
    """The client of one pipeline job: to the configuration's ``dask:`` cluster if it names
    one, else to an in-process LocalCluster of ``threads`` threads (the job's process: its
    memory is bounded where the job runs, by ``resources.mem_mb``)."""
    dask = config.get("dask", {})
    return client(dask.get("scheduler_file"), dask.get("address"), threads)


@contextlib.contextmanager
def sampling_client(config: dict, threads: int):
    """The client of a job that samples points (:func:`hyst.sampling.chunks.sample_points`):
    the configuration's ``dask:`` cluster if it names one, else an in-process LocalCluster
    of ``threads`` threads when ``threads`` > 1, else None: the chunks run in the job's own
    thread, as a cluster of one thread would run them, without its scheduler."""
    dask = config.get("dask", {})
    if threads <= 1 and not dask.get("scheduler_file") and not dask.get("address"):
        yield None
        return
    with job_client(config, threads) as c:
        yield c


@contextlib.contextmanager
def client_if_parallel(threads: int, config: dict | None = None):
    """:func:`job_client` when ``threads`` > 1, else None: the work runs in the calling
    thread (small pieces, for which a cluster costs more than it saves)."""
    if threads <= 1:
        yield None
        return
    with job_client(config or {}, threads) as c:
        yield c


@contextlib.contextmanager
def standing_cluster(
    where: str,
    scheduler_file,
    *,
    workers: int,
    cores: int = 1,
    memory: str = "4GB",
    walltime: str = "02:00:00",
    partition=None,
    account=None,
):
    """A cluster for the pipeline's jobs to share, its scheduler file written while it runs;
    yields its scheduler address. ``where``: ``local`` (``workers`` single-threaded worker
    processes on this machine) or ``slurm`` (``workers`` SLURM jobs of ``cores`` cores, one
    single-threaded worker per core, through dask-jobqueue)."""
    if where == "local":
        from distributed import LocalCluster

        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    else:
        from dask_jobqueue import SLURMCluster

        cluster = SLURMCluster(
            cores=cores,
            processes=cores,
            memory=memory,
            walltime=walltime,
            queue=partition,
            account=account,
        )
        cluster.scale(jobs=workers)
    with cluster, client(address=cluster.scheduler_address) as c:
        c.write_scheduler_file(str(scheduler_file))
        yield cluster.scheduler_address
