"""Render one configured figure (:mod:`hyst.pipeline.tasks.figure`). The job runs in the run's job
server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("figure", snakemake)  # noqa: F821 (injected by Snakemake)
