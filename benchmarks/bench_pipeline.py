"""Overhead of the pipeline over calling the kernels directly, for the same samples.

Takes one sampling batch of a configuration (default: the paper preset's
random-hysteron rule-1 batch, 118 points, 11.8 million systems, or a fraction
of its samples with --fraction) and times

- direct: ``sample_point`` for every point, in-process, numba threads = cores;
- job:    the points kind's ``run`` (Dask LocalCluster, chunk scheduling,
          NetCDF point files), as one Snakemake job runs it;

and prints both and the overhead ratio. Snakemake's own per-job cost
(starting the job's Python, ~2-3 s) comes on top; see docs/benchmarks.md.

    python benchmarks/bench_pipeline.py [--config config/config.yaml] [--fraction 0.1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace

import numba
import yaml

from hyst.pipeline.config import validate
from hyst.sampling.sampler import sample_point
from hyst.studies import KINDS, Job, plan
from hyst.studies.points import PointSpec


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--config", default="config/config.yaml")
    parser.add_argument(
        "--batch", default="random-hysteron-rule1-", help="prefix of the batch name to time"
    )
    parser.add_argument(
        "--fraction", type=float, default=1.0, help="fraction of each point's samples to use"
    )
    args = parser.parse_args(argv)
    config = validate(yaml.safe_load(open(args.config)))
    jobs = plan(config).jobs["points"]
    job = next(j for name, j in sorted(jobs.items()) if name.startswith(args.batch))
    specs = [PointSpec.from_identity(d) for d in job.payload["points"]]
    specs = [replace(s, samples=max(1, int(s.samples * args.fraction))) for s in specs]
    job = Job("points", job.name, {"points": [s.identity() for s in specs]})
    samples = sum(s.samples for s in specs)
    threads = config["resources"]["threads"]
    numba.set_num_threads(threads)
    s0 = specs[0]
    sample_point(s0.point, 16, 1, s0.groups)  # load compiled kernels
    t0 = time.perf_counter()
    for s in specs:
        sample_point(s.point, s.samples, s.seed, s.groups)
    direct = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        KINDS["points"].run(job, tmp, config=config, threads=threads, log=lambda line: None)
        piped = time.perf_counter() - t0
    print(f"job {job.name}: {len(specs)} points, {samples:,} samples, {threads} threads")
    print(f"direct kernels : {direct:8.1f} s  ({samples / direct:,.0f} samples/s)")
    print(f"pipeline batch : {piped:8.1f} s  ({samples / piped:,.0f} samples/s)")
    print(f"overhead       : {100 * (piped / direct - 1):+.1f} %")


if __name__ == "__main__":
    main()
