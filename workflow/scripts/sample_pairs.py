"""Sample the N = 2 pairs of the (c12, c21)-plane figure into results/datasets/pairs.nc."""

import json

from hyst.io import write_dataset
from hyst.pairs import pairs_dataset


def main(pairs, seed, output, log_path):
    pairs = json.loads(pairs)
    ds = pairs_dataset(pairs["sigma"], pairs["delta_h"], pairs["c_max"], pairs["samples"], seed)
    write_dataset(ds, output)
    with open(log_path, "w") as log:
        print(f"pairs: {pairs} -> {output}", file=log)
        print(ds.self_loop.mean("pair").to_series().to_string(), file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(sm.params.pairs, sm.params.seed, sm.output[0], sm.log[0])
