"""Run one job of a study kind (:mod:`hyst.pipeline.tasks.job`). The job runs in the run's job
server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("job", snakemake)  # noqa: F821 (injected by Snakemake)
