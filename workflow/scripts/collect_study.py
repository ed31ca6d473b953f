"""Collect a study's dataset (:mod:`hyst.pipeline.tasks.collect`). The job runs in the run's job
server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("collect", snakemake)  # noqa: F821 (injected by Snakemake)
