"""The scaling analysis of a study (:mod:`hyst.pipeline.tasks.analyse`). The job runs in the run's
job server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("analyse", snakemake)  # noqa: F821 (injected by Snakemake)
