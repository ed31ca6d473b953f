"""Write one figure's caption (:mod:`hyst.pipeline.tasks.caption`). The job runs in the run's job
server, or in this process where there is none (hyst.pipeline.jobserver)."""

from hyst.pipeline.jobserver import run_task

run_task("caption", snakemake)  # noqa: F821 (injected by Snakemake)
