"""Write one figure's caption for the report (over :mod:`hyst.plotting.captions`)."""

from __future__ import annotations

import json

from hyst.plotting.captions import figure_caption
from hyst.provenance.files import atomic_write_text, opened_datasets, write_log


def run(sm) -> None:
    """The caption of the figure ``sm.wildcards.figure``."""
    with (
        opened_datasets(sm.params.studies, sm.input.datasets) as datasets,
        opened_datasets(sm.params.analysed, sm.input.analysis) as analyses,
    ):
        text = figure_caption(
            sm.wildcards.figure,
            sm.params.description,
            datasets,
            analyses,
            json.loads(sm.params.descriptions),
        )
    atomic_write_text(sm.output[0], text)
    write_log(sm.log[0], text)
