"""Scaling analysis of one study dataset against N·J0 (over :mod:`hyst.analysis`), with every
variable and coordinate described (:mod:`hyst.catalogue.variables`) and its provenance: the
hyst version, the analysis code's fingerprint, and the dataset analysed (its code
fingerprint and content hash)."""

from __future__ import annotations

from hyst._version import __version__
from hyst.analysis import analyse_study
from hyst.catalogue.variables import describe
from hyst.provenance.files import content_hash, read_dataset, write_dataset, write_log


def preload() -> None:
    """The fits' scipy modules (imported where the fits run)."""
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401


def run(sm) -> None:
    """The analysis of the dataset ``sm.input.dataset``."""
    dataset = read_dataset(sm.input.dataset)
    result = analyse_study(dataset)
    result.attrs.update(
        {
            "hyst_version": __version__,
            "code_fingerprint": sm.params.code,
            "dataset_code_fingerprint": str(dataset.attrs.get("code_fingerprint", "")),
            "dataset_content_hash": content_hash(dataset),
        }
    )
    write_dataset(describe(result), sm.output[0])
    write_log(sm.log[0], f"analysis of {sm.input.dataset} -> {sm.output[0]}", result)
