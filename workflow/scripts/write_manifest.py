"""The run's manifest (:mod:`hyst.pipeline.tasks.manifest`). The job runs in the run's job
server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("manifest", snakemake)  # noqa: F821 (injected by Snakemake)
