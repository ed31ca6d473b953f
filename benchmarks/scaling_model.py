"""The expected efficiency of a preset's sampling on W Dask workers, from per-task costs.

Every chunk of every sampling job of the preset (``hyst.studies`` plans the jobs; a chunk's
CPU time is its point's estimated cost, ``benchmarks/rates.json`` through
``hyst.sampling.cost``, shared equally by the point's chunks) is dealt, in the order the
jobs submit them (long jobs first), to W one-thread workers, each taking the next chunk
when it is free (Dask's queueing of tasks without dependencies). Two costs are added: the
scheduler handles one task at a time (``--task-ms`` per task: a task cannot start before
the scheduler has dispatched all the tasks before it), and each chunk costs a worker a
round trip (``--round-trip-ms``: the task's message, its result gathered by the job);
each job writes its last point file after its last chunk (``--write-ms``). The efficiency
is the chunks' CPU time over W times the makespan.

    python benchmarks/scaling_model.py [--config config/config.yaml] [--workers 16 64 256]
        [--task-ms 1] [--round-trip-ms 2] [--write-ms 100] [--scales 1 0.5 0.25 ...]

``--scales`` multiplies today's chunk sizes (fewer, larger chunks above 1; more, smaller
ones below): the table shows the efficiency each gives, the last line the largest
efficiency reached and the scale that reaches 80 %.
"""

from __future__ import annotations

import argparse
import heapq
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def chunk_times(config: str, scale: float) -> tuple[list[list[float]], list[float]]:
    """(per job, in submission order, the CPU seconds of each chunk; per job its cost) with
    chunk sizes multiplied by ``scale``."""
    from hyst.pipeline.config import read_yaml, validate
    from hyst.sampling.cost import point_seconds
    from hyst.sampling.sampler import chunk_size
    from hyst.studies import KINDS
    from hyst.studies.points import PointSpec

    cfg = validate(read_yaml(ROOT / config), check_paths=False)
    studies = {n: s for n, s in cfg["studies"].items() if s.get("kind", "points") == "points"}
    jobs, _ = KINDS["points"].jobs(studies, cfg)
    ordered = sorted(jobs.values(), key=lambda j: not j.long)  # long jobs start first
    per_job, costs = [], []
    for job in ordered:
        times = []
        for d in job.payload["points"]:
            spec = PointSpec.from_identity(d)
            size = max(1, round(chunk_size(spec.point.N) * scale))
            chunks = math.ceil(spec.samples / size)
            cost = point_seconds(spec.point, spec.groups, spec.samples)
            times += [cost / chunks] * chunks
        per_job.append(times)
        costs.append(sum(times))
    return per_job, costs


def makespan(per_job, workers: int, task_s: float, round_trip_s: float, write_s: float):
    """Seconds until every chunk is done and every job has written its last point."""
    tasks = [(j, t) for j, times in enumerate(per_job) for t in times]
    free = [0.0] * workers
    heapq.heapify(free)
    last = [0.0] * len(per_job)
    for k, (j, t) in enumerate(tasks):
        start = max(heapq.heappop(free), (k + 1) * task_s)
        end = start + t + round_trip_s
        heapq.heappush(free, end)
        last[j] = max(last[j], end)
    return max(end + write_s for end in last)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument("--workers", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--task-ms", type=float, default=1.0)
    parser.add_argument("--round-trip-ms", type=float, default=2.0)
    parser.add_argument("--write-ms", type=float, default=100.0)
    parser.add_argument(
        "--scales", type=float, nargs="+", default=[4, 2, 1, 0.5, 0.25, 0.125, 0.0625]
    )
    args = parser.parse_args()
    head = f"{'chunk size':>11s} {'chunks':>8s} {'mean chunk s':>13s} {'longest s':>10s}"
    head += "".join(f" {f'E({w})':>8s}" for w in args.workers)
    print(
        f"{args.config}: scheduler {args.task_ms:g} ms per task, round trip "
        f"{args.round_trip_ms:g} ms, point file {args.write_ms:g} ms"
    )
    print(head)
    best = {w: (0.0, None) for w in args.workers}
    for scale in args.scales:
        per_job, costs = chunk_times(args.config, scale)
        work = sum(costs)
        times = [t for job in per_job for t in job]
        row = f"{f'x {scale:g}':>11s} {len(times):8d} {work / len(times):13.3f} {max(times):10.1f}"
        for w in args.workers:
            span = makespan(
                per_job, w, args.task_ms / 1e3, args.round_trip_ms / 1e3, args.write_ms / 1e3
            )
            eff = work / (w * span)
            row += f" {eff:8.0%}"
            if eff > best[w][0]:
                best[w] = (eff, scale)
        print(row)
    print(
        "best: "
        + ", ".join(f"E({w}) = {e:.0%} at chunk size x {s:g}" for w, (e, s) in best.items())
    )


if __name__ == "__main__":
    main()
