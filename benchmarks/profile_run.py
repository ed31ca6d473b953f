"""Where a pipeline run's CPU goes, stage by stage, from the files the run leaves behind.

    python benchmarks/profile_run.py [RESULTS]      # default: results

For every stage (the folders of ``RESULTS/benchmarks/``: the sampling jobs of each study
kind, figures, captions, collect, analyse, tables, the comparison page), the number of jobs,
their wall and CPU seconds in all and per job. Snakemake's ``benchmark:`` files time each
job's own process; a job that ran in the run's job server (hyst.pipeline.jobserver) has its
work's CPU in ``job_server.tsv`` instead, and the table adds it, so that a run with and
without the server are measured alike. The job server's own start (its imports and the
kernels' loading, once per run) is in its first line on the console.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

#: The rule of each stage folder that job_server.tsv names by task.
TASK_STAGE = {
    "figure": "figures",
    "caption": "captions",
    "collect": "collect",
    "analyse": "analyse",
    "tables": "tables",
    "comparison": "paper_comparison",
}


def _rows(path: Path):
    with open(path) as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def stage_table(results: Path) -> dict[str, dict[str, float]]:
    """{stage: {jobs, wall_s, cpu_s}} from a run's benchmark files and job-server table."""
    bench = results / "benchmarks"
    table: dict[str, dict[str, float]] = defaultdict(
        lambda: {"jobs": 0, "wall_s": 0.0, "cpu_s": 0.0}
    )
    for path in sorted(bench.rglob("*.tsv")):
        if path.name == "job_server.tsv":
            continue
        stage = path.parent.name if path.parent != bench else path.stem
        for row in _rows(path)[:1]:
            t = table[stage]
            t["jobs"] += 1
            t["wall_s"] += float(row["s"])
            t["cpu_s"] += float(row["cpu_time"] or 0)
    server = bench / "job_server.tsv"
    if server.exists():
        for row in _rows(server):
            task = row["task"]
            if task == "job":  # "job kind=points job=..." -> the kind's folder
                words = dict(w.split("=", 1) for w in row["job"].split()[1:] if "=" in w)
                stage = words.get("kind", "job")
            else:
                stage = TASK_STAGE.get(task, task)
            table[stage]["cpu_s"] += float(row["user_s"]) + float(row["sys_s"])
    return dict(table)


def main(argv=None) -> None:
    args = sys.argv[1:] if argv is None else argv
    results = Path(args[0] if args else "results")
    table = stage_table(results)
    print(f"{'stage':<18} {'jobs':>5} {'wall s':>8} {'CPU s':>8} {'CPU s/job':>10}")
    total = {"jobs": 0, "wall_s": 0.0, "cpu_s": 0.0}
    for stage, t in sorted(table.items(), key=lambda kv: -kv[1]["cpu_s"]):
        per = t["cpu_s"] / t["jobs"] if t["jobs"] else 0.0
        print(f"{stage:<18} {t['jobs']:>5.0f} {t['wall_s']:>8.1f} {t['cpu_s']:>8.1f} {per:>10.2f}")
        for k in total:
            total[k] += t[k]
    per = total["cpu_s"] / total["jobs"] if total["jobs"] else 0.0
    print(
        f"{'all':<18} {total['jobs']:>5.0f} {total['wall_s']:>8.1f} {total['cpu_s']:>8.1f} "
        f"{per:>10.2f}"
    )


if __name__ == "__main__":
    main()
