"""Sample one batch of points (thin wrapper over hyst.pipeline.run_batch)."""

import json

from hyst.pipeline import Batch, run_batch


def main(batch, results, manifest, dask, threads, mem_mb, log_path):
    with open(log_path, "w") as log_file:

        def log(line):
            print(line, file=log_file, flush=True)

        batch = Batch.from_json(json.loads(batch))
        run_batch(batch, results, manifest, json.loads(dask), threads, mem_mb, log=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.params.batch,
        sm.params.results,
        sm.output[0],
        sm.params.dask,
        sm.threads,
        sm.params.mem_mb,
        sm.log[0],
    )
