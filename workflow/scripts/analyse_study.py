"""Scaling analysis of one study dataset against N·J0 (thin wrapper over hyst.analysis)."""

from hyst.analysis import analyse_study
from hyst.provenance.files import read_dataset, write_dataset


def main(dataset, output, log_path):
    result = analyse_study(read_dataset(dataset))
    write_dataset(result, output)
    with open(log_path, "w") as log:
        print(f"analysis of {dataset} -> {output}", file=log)
        print(result, file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(sm.input.dataset, sm.output[0], sm.log[0])
