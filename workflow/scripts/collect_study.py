"""Collect a study's dataset into results/datasets/<study>.nc (thin wrapper): the kind's
dataset, every variable and coordinate described (hyst.catalogue.variables), the study's
configuration (less its description) as the attribute ``study_config``."""

import json

from hyst.catalogue.variables import describe
from hyst.provenance.files import write_dataset, write_log
from hyst.studies import collect

sm = snakemake  # noqa: F821 (injected by Snakemake)
study = json.loads(sm.params.study)
ds = collect(sm.wildcards.study, study, {"seed": sm.params.seed}, sm.params.results)
ds.attrs["study_config"] = json.dumps(study, sort_keys=True)
write_dataset(describe(ds), sm.output[0])
write_log(sm.log[0], f"study {sm.wildcards.study} ({ds.attrs.get('kind')}) -> {sm.output[0]}", ds)
