"""What a run will take: every job's expected CPU time and the wall time on a number of cores.

``hyst config check`` prints it, and the console's time left comes from it
(:mod:`hyst.pipeline.progress`). A job's CPU time is

- for a sampling job of a points study: the core-seconds of its points at the measured rates
  (:mod:`hyst.sampling.cost`: per observable group, coupling ensemble and N, with the
  amplitude sweeps of the drive groups growing with N·J0), plus the per-job cost of the
  pipeline (``pipeline_seconds`` of ``benchmarks/rates.json``: what a job of the rule costs
  besides its science, from a measured run);
- for every other job (the other study kinds' jobs, datasets, analyses, figures, captions,
  tables, the comparison page): the measured CPU time per job of its rule (or kind).

The wall time is a list schedule of these jobs on the cores, in the order of their
dependencies (a study's dataset after its jobs, its analysis after it, a figure after its
studies' datasets and analyses, the page last), long jobs first as the workflow starts them,
plus the run's fixed start (Snakemake's DAG and the job server's imports) and, on a first
run, the compilation of the kernels (two processes). Estimates, not promises: measured
within 1.5x of the wall time for the quick, medium and paper presets on the machine the
rates were measured on (``docs/benchmarks.md``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

#: Per-job CPU seconds used where the rates file has no ``pipeline_seconds`` (measured on
#: the quick preset on the 2-core machine of ``benchmarks/rates.json``).
#: Keys: the stages, named as the folders of a run's ``benchmarks/`` (a study kind's jobs by
#: the kind), and the run's fixed ``start`` and first-run ``compile`` (wall seconds: a fresh
#: clone's quick run less its warm rerun, the geometric mean of 73 s (2026-11-28, 182 s
#: against 124 s once numba's inlining shared its copies, scaling the 107 s measured
#: before) and 155 s (2026-12-02, 252 s against 88-107 s; the job server's compile 114 s)).
DEFAULT_PIPELINE_SECONDS = {
    "start": 8.0,
    "compile": 106.0,
    "points": 0.6,
    "pairs": 4.2,
    "networks": 4.4,
    "loops": 5.2,
    "tgraphs": 1.9,
    "collect": 1.3,
    "analyse": 1.8,
    "figures": 2.6,
    "captions": 0.6,
    "tables": 0.8,
    "paper_comparison": 3.2,
}


#: The workflow's rule of each stage (the study kinds' jobs: ``job``, or ``job_long``).
RULES = {
    "collect": "collect",
    "analyse": "analyse",
    "tables": "study_tables",
    "figures": "figure",
    "captions": "caption",
    "paper_comparison": "paper_comparison",
    "manifest": "manifest",
}
#: CPU seconds of the manifest job where benchmarks/rates.json has no measurement: it hashes
#: the run's result files (a few MB for the quick preset) in a fraction of a second.
MANIFEST_SECONDS = 0.5


@dataclass
class RunEstimate:
    """Every job's expected CPU seconds and the run's wall time on ``cores`` cores."""

    cores: int
    jobs: dict[str, float] = field(default_factory=dict)  # first output -> CPU seconds
    rules: dict[str, str] = field(default_factory=dict)  # first output -> the rule that runs it
    stages: dict[str, list] = field(default_factory=dict)  # stage -> [jobs, CPU seconds]
    # (stages named as the folders of a run's benchmarks/: a kind's jobs by the kind)
    wall_seconds: float = 0.0
    compile_seconds: float = 0.0

    @property
    def cpu_seconds(self) -> float:
        """The run's CPU seconds: the sum over its jobs."""
        return sum(self.jobs.values())


def pipeline_seconds(rates: dict | None) -> dict[str, float]:
    """The per-job costs of the pipeline: the rates file's, else the defaults."""
    measured = (rates or {}).get("pipeline_seconds") or {}
    numbers = {k: float(v) for k, v in measured.items() if isinstance(v, int | float)}
    return {**DEFAULT_PIPELINE_SECONDS, **numbers}


def run_estimate(
    config: dict, cores: int, *, compiled: bool = True, rates=None, jobs_plan=None
) -> RunEstimate:
    """The jobs of a validated configuration with their expected CPU seconds, and the run's
    wall time on ``cores`` cores (``compiled``: the kernels are in numba's cache;
    ``jobs_plan``: the configuration's :func:`hyst.studies.plan`, if at hand)."""
    from hyst.sampling.cost import load_rates
    from hyst.studies import KINDS, kind_of, plan
    from hyst.studies.base import StudyKind

    rates = load_rates() if rates is None else rates
    per_job = pipeline_seconds(rates)
    results = config["results"]
    p = plan(config) if jobs_plan is None else jobs_plan
    est = RunEstimate(cores=max(1, int(cores)))
    tasks: list[tuple[str, float, int, list[str], int]] = []  # output, CPU, threads, needs, prio

    def add(stage, output, seconds, needs=(), threads=1, priority=0):
        est.jobs[output] = seconds
        est.rules[output] = RULES.get(stage, "job_long" if priority else "job")
        s = est.stages.setdefault(stage, [0, 0.0])
        s[0] += 1
        s[1] += seconds
        tasks.append((output, seconds, threads, list(needs), priority))

    for kind, jobs in p.jobs.items():
        threads = KINDS[kind].job_resources(config)["threads"]
        for name, job in jobs.items():
            seconds = per_job.get(kind, per_job["points"]) + KINDS[kind].job_seconds(job, rates)
            add(
                kind,
                f"{results}/jobs/{kind}/{name}.json",
                seconds,
                threads=threads,
                priority=1 if job.long else 0,
            )
    analysed = set()
    for name, study in config["studies"].items():
        dataset = f"{results}/datasets/{name}.nc"
        needs = [f"{results}/jobs/{kind}/{job}.json" for kind, job in p.needs[name]]
        add("collect", dataset, per_job["collect"], needs)
        if kind_of(study).analysable(study):
            analysed.add(name)
            add("analyse", f"{results}/analysis/{name}.nc", per_job["analyse"], [dataset])
        if type(kind_of(study)).tables is not StudyKind.tables:  # the kind has tables
            add("tables", f"{results}/tables/{name}.md", per_job["tables"], [dataset])

    def inputs(studies):
        return [f"{results}/datasets/{s}.nc" for s in studies] + [
            f"{results}/analysis/{s}.nc" for s in studies if s in analysed
        ]

    for name, binding in config["figures"].items():
        needs = inputs(binding["studies"])
        add("figures", f"{results}/figures/{name}.png", per_job["figures"], needs)
        add("captions", f"{results}/figures/{name}.caption.rst", per_job["captions"], needs)
    if config["comparison"]:
        studies = sorted({s for b in config["comparison"].values() for s in b["studies"]})
        page = f"{results}/paper_comparison.md"
        add("paper_comparison", page, per_job["paper_comparison"], inputs(studies))
    add(
        "manifest",
        f"{results}/manifest.json",
        per_job.get("manifest", MANIFEST_SECONDS),
        [output for output in est.jobs if "/jobs/" not in output],
    )
    est.compile_seconds = 0.0 if compiled else per_job["compile"]
    est.wall_seconds = per_job["start"] + est.compile_seconds + schedule(tasks, est.cores)
    return est


def schedule(tasks, cores: int) -> float:
    """The makespan of ``tasks`` ((name, CPU seconds, threads, needs, priority)) run as
    Snakemake runs them on ``cores`` cores: a ready job starts when its threads are free,
    higher priority first, then in the order given; a job of t threads takes its CPU
    seconds / t (its points spread over its threads)."""
    order = {t[0]: i for i, t in enumerate(tasks)}
    waiting = {t[0]: set(n for n in t[3] if n in order) for t in tasks}
    info = {t[0]: t for t in tasks}
    dependents: dict[str, list[str]] = {}
    for name, needs in waiting.items():
        for n in needs:
            dependents.setdefault(n, []).append(name)
    ready = [(-info[n][4], order[n], n) for n, needs in waiting.items() if not needs]
    heapq.heapify(ready)
    running: list[tuple[float, str, int]] = []  # (end, name, threads)
    free, now = cores, 0.0
    while ready or running:
        while ready:
            _p, _o, name = ready[0]
            threads = min(max(1, info[name][2]), cores)
            if threads > free:
                break
            heapq.heappop(ready)
            free -= threads
            heapq.heappush(running, (now + info[name][1] / threads, name, threads))
        end, name, threads = heapq.heappop(running)
        now, free = end, free + threads
        for d in dependents.get(name, []):
            waiting[d].discard(name)
            if not waiting[d]:
                heapq.heappush(ready, (-info[d][4], order[d], d))
    return now
