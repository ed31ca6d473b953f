"""Scaling-collapse analysis of one study dataset (thin wrapper over hyst.analysis)."""

from hyst.analysis import analyse_study
from hyst.io import read_dataset, write_dataset


def main(dataset, output, log_path):
    ds = read_dataset(dataset)
    x = "NJ0" if "NJ0" in ds.dims else "J0"
    result = analyse_study(ds, x=x)
    write_dataset(result, output)
    with open(log_path, "w") as log:
        print(f"analysis of {dataset} -> {output}", file=log)
        print(result, file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(sm.input[0], sm.output[0], sm.log[0])
