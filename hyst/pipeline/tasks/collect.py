"""Collect a study's dataset into ``results/datasets/<study>.nc``: the kind's dataset, every
variable and coordinate described (:mod:`hyst.catalogue.variables`), the study's
configuration (less its description) as the attribute ``study_config``."""

from __future__ import annotations

import json

from hyst.catalogue.variables import describe
from hyst.provenance.files import write_dataset, write_log
from hyst.studies import collect


def run(sm) -> None:
    """The dataset of the study ``sm.wildcards.study`` from its jobs' result files."""
    study = json.loads(sm.params.study)
    ds = collect(sm.wildcards.study, study, {"seed": sm.params.seed}, sm.params.results)
    ds.attrs["study_config"] = json.dumps(study, sort_keys=True)
    write_dataset(describe(ds), sm.output[0])
    write_log(
        sm.log[0], f"study {sm.wildcards.study} ({ds.attrs.get('kind')}) -> {sm.output[0]}", ds
    )
