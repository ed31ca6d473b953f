"""Run one job of a study kind (thin wrapper over hyst.studies.run_job)."""

import json

from hyst.provenance.files import atomic_write_text
from hyst.studies import run_job


def main(kind, job, name, config, results, manifest, threads, log_path):
    with open(log_path, "w") as log_file:

        def log(line):
            print(line, file=log_file, flush=True)

        info = run_job(
            kind,
            json.loads(job),
            name,
            results,
            config=json.loads(config),
            threads=threads,
            log=log,
        )
        atomic_write_text(manifest, json.dumps({"kind": kind, "job": name, **info}, indent=1))


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.wildcards.kind,
        sm.params.payload,
        sm.wildcards.job,
        sm.params.config,
        sm.params.results,
        sm.output[0],
        sm.threads,
        sm.log[0],
    )
