"""Running sampling chunks on a Dask cluster.

By default a job starts an in-process ``LocalCluster``: one worker with one
thread per core. The kernels release the GIL (``nogil``) and run serially on
each worker thread, so threads compute in parallel without process start-up
or per-process numba loading. With ``scheduler_file`` or ``address`` a job
submits to an existing cluster instead. Chunk results are gathered and merged in chunk
order, so the outcome never depends on the cluster.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable

from hyst.model import seeds
from hyst.sampling.malloc import keep_large_buffers
from hyst.sampling.sampler import Point, chunk_bounds, chunk_size, sample_chunk
from hyst.sampling.tallies import Tally


def _chunk_task(point: Point, seed: int, chunk: int, size: int, groups, records=None) -> Tally:
    return sample_chunk(point, seed, chunk, size, groups, parallel=False, records=records)


@contextlib.contextmanager
def client(scheduler_file=None, address=None, threads: int = 1, mem_mb: int = 4000):
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
            memory_limit=f"{max(mem_mb, 256)}MB",
            dashboard_address=":0",  # the scheduler's HTTP server on a free port, never 8787
            scheduler_port=0,
            silence_logs=logging.WARNING,
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def sample_points(
    dask_client,
    jobs: list[tuple],
    log: Callable[[str], None] = print,
) -> list[Tally]:
    """Tally several (point, samples, seed, groups[, records]) on a Dask client (records:
    records kept per point by name, see :func:`hyst.sampling.sampler.sample_chunk`).

    Every chunk of every point is submitted at once; each point's chunks are
    merged in chunk order. Logs chunk progress with samples/s.
    """
    from distributed import as_completed

    futures, owners = [], {}
    for j, (point, samples, seed, groups, *rest) in enumerate(jobs):
        records = rest[0] if rest else None
        tag = seeds.digest([samples, list(groups), records or {}], 8)
        for k, size in chunk_bounds(samples, chunk_size(point.N)):
            f = dask_client.submit(
                _chunk_task,
                point,
                seed,
                k,
                size,
                groups,
                records,
                key=f"chunk-{point.key()}-{seed}-{tag}-{k}",
                pure=False,
            )
            futures.append(f)
            owners[f.key] = (j, k, size)
    total = len(futures)
    t0 = time.perf_counter()
    done = samples_done = 0
    results: dict[tuple[int, int], Tally] = {}
    for fut in as_completed(futures):
        j, k, size = owners[fut.key]
        results[(j, k)] = fut.result()
        done += 1
        samples_done += size
        rate = samples_done / max(time.perf_counter() - t0, 1e-9)
        log(f"chunk {done}/{total} done ({samples_done} samples, {rate:,.0f} samples/s)")
    tallies = []
    for j, (point, samples, *_rest) in enumerate(jobs):
        tally = Tally()
        for k, _size in chunk_bounds(samples, chunk_size(point.N)):
            tally.merge(results[(j, k)])
        tallies.append(tally)
    return tallies
