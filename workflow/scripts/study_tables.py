"""A study's tables (:mod:`hyst.pipeline.tasks.tables`). The job runs in the run's job server, or
in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("tables", snakemake)  # noqa: F821 (injected by Snakemake)
