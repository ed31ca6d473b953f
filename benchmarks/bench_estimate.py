"""The run estimate (``hyst config check``) against a run: stage by stage and job by job.

    python benchmarks/bench_estimate.py CONFIG RESULTS [--cores 2] [--wall SECONDS]

For the configuration CONFIG and the results folder RESULTS of a run of it (every job run,
from an empty results folder), prints per stage the jobs, the expected CPU seconds
(:mod:`hyst.pipeline.estimate`) and the measured ones (``benchmarks/profile_run.py``: the
benchmark files and the job server's table), the sampling jobs whose measurement is
furthest from their estimate, and, with ``--wall`` (the run's measured wall time), the
ratio of the expected wall time to it. With ``--calibrate`` it prints the per-job costs of
the pipeline measured in this run, as ``pipeline_seconds`` of ``benchmarks/rates.json``.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from profile_run import stage_table

from hyst.pipeline.config import load
from hyst.pipeline.estimate import run_estimate


def measured_jobs(results: Path) -> dict[str, float]:
    """CPU seconds of each job of a run by its first output (the client's benchmark plus
    its child's row in the job server's table)."""
    out: dict[str, float] = {}
    bench = results / "benchmarks"
    server = {}
    path = bench / "job_server.tsv"
    if path.exists():
        with open(path) as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                server[row["job"]] = float(row["user_s"]) + float(row["sys_s"])
    for tsv in bench.rglob("*.tsv"):
        if tsv.name == "job_server.tsv":
            continue
        with open(tsv) as fh:
            row = next(csv.DictReader(fh, delimiter="\t"))
        stage = tsv.parent.name
        name = tsv.stem
        if stage in ("points", "pairs", "networks", "loops", "tgraphs"):
            key = f"jobs/{stage}/{name}.json"
            child = [v for k, v in server.items() if f"kind={stage}" in k and f"job={name}" in k]
        else:
            key = f"{stage}/{name}"
            child = [v for k, v in server.items() if k.endswith(f"={name}")]
        out[key] = float(row["cpu_time"] or 0) + (child[0] if child else 0.0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("results")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--wall", type=float, default=None)
    ap.add_argument("--calibrate", action="store_true")
    a = ap.parse_args()
    config = load(a.config)
    est = run_estimate(config, a.cores)
    got = stage_table(Path(a.results))
    print(f"{'stage':<14} {'jobs':>5} {'expected CPU s':>15} {'measured CPU s':>15} {'ratio':>7}")
    for stage, (jobs, cpu) in est.stages.items():
        m = got.get(stage, {}).get("cpu_s", float("nan"))
        print(
            f"{stage:<14} {jobs:>5} {cpu:>15.1f} {m:>15.1f} {cpu / m if m else float('nan'):>7.2f}"
        )
    print(f"expected wall time on {a.cores} cores: {est.wall_seconds:.0f} s", end="")
    if a.wall:
        print(f"; measured {a.wall:.0f} s; expected / measured = {est.wall_seconds / a.wall:.2f}")
    else:
        print()
    jobs = measured_jobs(Path(a.results))
    rows = []
    for out, sec in est.jobs.items():
        key = out.split("/", 1)[1] if out.startswith(config["results"] + "/") else out
        if key.startswith("jobs/points/") and key in jobs:
            rows.append((jobs[key] / sec, key, sec, jobs[key]))
    rows.sort()
    if rows:
        print("sampling jobs, measured / expected CPU (lowest and highest):")
        for ratio, key, sec, m in rows[:3] + rows[-3:]:
            print(f"  {ratio:5.2f}  {key}  expected {sec:.1f} s, measured {m:.1f} s")
    if a.calibrate:
        per_job = {
            stage: round(t["cpu_s"] / t["jobs"], 2)
            for stage, t in got.items()
            if t["jobs"] and stage != "points"
        }
        print(json.dumps(per_job, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
