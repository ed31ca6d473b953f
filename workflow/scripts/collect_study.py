"""Merge a study's point files into results/datasets/<study>.nc."""

import json

from hyst.io import write_dataset
from hyst.pipeline import collect, study_specs


def main(name, study, seed, results, output, log_path):
    study = json.loads(study)
    specs = study_specs(name, study, {"seed": seed})
    ds = collect(name, study, specs, results)
    write_dataset(ds, output)
    with open(log_path, "w") as log:
        print(f"study {name}: {len(specs)} points -> {output}", file=log)
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
