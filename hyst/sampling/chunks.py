"""Sampling points on a Dask client, chunk by chunk.

Every chunk of every point is one task (:func:`hyst.sampling.sampler.sample_chunk`,
serial: the worker threads run chunks side by side); each point's chunk tallies are
merged in chunk order, so the outcome never depends on the cluster or the scheduling.
The client comes from :mod:`hyst.sampling.cluster`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hyst.model import seeds
from hyst.sampling.sampler import Point, chunk_bounds, chunk_size, sample_chunk
from hyst.sampling.tallies import Tally


def _chunk_task(point: Point, seed: int, chunk: int, size: int, groups, records=None) -> Tally:
    return sample_chunk(point, seed, chunk, size, groups, parallel=False, records=records)


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
