"""Collect a study's dataset into results/datasets/<study>.nc (thin wrapper)."""

import json

from hyst.provenance.files import write_dataset
from hyst.studies import collect


def main(name, study, seed, results, output, log_path):
    ds = collect(name, json.loads(study), {"seed": seed}, results)
    write_dataset(ds, output)
    with open(log_path, "w") as log:
        print(f"study {name} ({ds.attrs.get('kind')}) -> {output}", file=log)
        print(ds, file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.wildcards.study,
        sm.params.study,
        sm.params.seed,
        sm.params.results,
        sm.output[0],
        sm.log[0],
    )
