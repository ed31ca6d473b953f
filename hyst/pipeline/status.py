"""Where a run stands: for a configuration and its results folder, each study's result
files (points, cells, planes, …) done, stale or missing and its jobs that failed, and each
dataset, figure and table up to date or not, as ``hyst status`` prints it.

A result file is *done* when it carries the provenance the current configuration and code
ask for (the file a rerun would reuse), *stale* when it exists with other provenance (its
code or what determines it changed: a rerun computes it again) and *missing* otherwise. A
job *failed* when its log exists but its manifest does not (it stopped, was cancelled or
killed; a rerun resumes it from its done files). The files Snakemake makes (datasets,
analyses, figures, tables, the comparison page, the run's manifest) are up to date when
Snakemake would not make them again: their status comes from Snakemake itself (a dry run
of the workflow's ``--summary``).
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hyst.studies import kind_of, plan

#: What a unit (result file of a job) can be.
UNIT_STATES = ("done", "stale", "missing")


def _attributes(path: Path) -> dict | None:
    """The global attributes of a NetCDF file (None if it cannot be read)."""
    import netCDF4

    try:
        with netCDF4.Dataset(path) as nc:
            return {k: nc.getncattr(k) for k in nc.ncattrs()}
    except OSError:
        return None


def unit_state(path: Path, expected: dict) -> str:
    """``done``, ``stale`` or ``missing`` (see the module docstring)."""
    if not path.exists():
        return "missing"
    attrs = _attributes(path)
    if attrs is None:
        return "stale"
    for key, value in expected.items():
        if key not in attrs:
            return "stale"
        have = attrs[key]
        if isinstance(value, float) or isinstance(have, float):
            if float(have) != float(value):
                return "stale"
        elif str(have) != str(value):
            return "stale"
    return "done"


@dataclass
class StudyStatus:
    """One study: its kind, its units by state, its jobs and those that failed."""

    name: str
    kind: str
    units: Counter = field(default_factory=Counter)
    jobs: int = 0
    failed: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the console."""
        total = sum(self.units.values())
        states = ", ".join(f"{self.units[s]} {s}" for s in UNIT_STATES if self.units[s])
        failed = f"; {len(self.failed)} of {self.jobs} jobs failed" if self.failed else ""
        return f"study {self.name} ({self.kind}): {total} result files: {states}{failed}"


def study_statuses(config: dict) -> list[StudyStatus]:
    """Every study's status from its result files and job logs (no Snakemake)."""
    results = Path(config["results"])
    p = plan(config)
    out = []
    for name, study in config["studies"].items():
        kind = kind_of(study)
        status = StudyStatus(name, kind.name)
        for kind_name, job_name in p.needs[name]:
            job = p.job(kind_name, job_name)
            status.jobs += 1
            for path, expected in kind.units(job, results):
                status.units[unit_state(Path(path), expected)] += 1
            log = results / "logs" / kind.name / f"{job_name}.log"
            manifest = results / "jobs" / kind.name / f"{job_name}.json"
            if log.exists() and not manifest.exists():
                status.failed.append(job_name)
        out.append(status)
    return out


def snakemake_summary(configfile, workdir=".") -> list[dict]:
    """Snakemake's own view of every file it makes: rows of ``--summary`` (output_file,
    date, rule, status, plan), from a dry run of the repository's Snakefile."""
    from hyst.pipeline.export import repository

    root = repository()
    if root is None:
        raise FileNotFoundError("the Snakefile is not found (hyst is not run from its repository)")
    cmd = [
        sys.executable, "-m", "snakemake", "-s", str(root / "Snakefile"),
        "--directory", str(workdir), "--configfile", str(configfile),
        "--workflow-profile", "none", "--cores", "1", "--summary", "--nolock",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"snakemake --summary failed: {tail}")
    return list(csv.DictReader(io.StringIO(proc.stdout), delimiter="\t"))


def file_statuses(rows: list[dict], results: str) -> dict[str, Counter]:
    """{stage: Counter(up to date / to make)} of the files Snakemake makes, by folder
    (datasets, analysis, figures, tables; the comparison page and the manifest as
    "page" and "manifest"), from :func:`snakemake_summary`'s rows."""
    stages: dict[str, Counter] = {}
    prefix = results.rstrip("/") + "/"
    for row in rows:
        path = row["output_file"]
        if not path.startswith(prefix) or path.startswith(prefix + "jobs/"):
            continue
        rel = path[len(prefix) :]
        stage = rel.split("/")[0] if "/" in rel else rel.split(".")[0]
        state = "up to date" if row["plan"] == "no update" else "to make"
        stages.setdefault(stage, Counter())[state] += 1
    return stages


def to_make(rows: list[dict], results: str) -> list[tuple[str, str]]:
    """(file, why) of the files Snakemake would make, outside the jobs' manifests."""
    prefix = results.rstrip("/") + "/"
    return [
        (row["output_file"], row["status"])
        for row in rows
        if row["plan"] != "no update"
        and row["output_file"].startswith(prefix)
        and not row["output_file"].startswith(prefix + "jobs/")
    ]
