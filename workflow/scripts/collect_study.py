"""Collect a study's dataset into results/datasets/<study>.nc (thin wrapper)."""

import json

from hyst.provenance.files import write_dataset, write_log
from hyst.studies import collect

sm = snakemake  # noqa: F821 (injected by Snakemake)
ds = collect(
    sm.wildcards.study, json.loads(sm.params.study), {"seed": sm.params.seed}, sm.params.results
)
write_dataset(ds, sm.output[0])
write_log(sm.log[0], f"study {sm.wildcards.study} ({ds.attrs.get('kind')}) -> {sm.output[0]}", ds)
