"""Scaling analysis of one study dataset against N·J0 (thin wrapper over hyst.analysis)."""

from hyst.analysis import analyse_study
from hyst.provenance.files import read_dataset, write_dataset, write_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
result = analyse_study(read_dataset(sm.input.dataset))
write_dataset(result, sm.output[0])
write_log(sm.log[0], f"analysis of {sm.input.dataset} -> {sm.output[0]}", result)
