"""Run one job of a study kind (thin wrapper over hyst.studies.run_job)."""

import json

from hyst.provenance.files import atomic_write_text
from hyst.studies import run_job

sm = snakemake  # noqa: F821 (injected by Snakemake)
kind, name = sm.wildcards.kind, sm.wildcards.job
with open(sm.log[0], "w") as log_file:
    info = run_job(
        kind,
        json.loads(sm.params.payload),
        name,
        sm.params.results,
        config=json.loads(sm.params.config),
        threads=sm.threads,
        log=lambda line: print(line, file=log_file, flush=True),
    )
atomic_write_text(sm.output[0], json.dumps({"kind": kind, "job": name, **info}, indent=1))
