"""Write the paper-comparison page (Markdown and HTML) from the bound datasets."""

from __future__ import annotations

import importlib
import json

from hyst.comparison import build_page, read_study
from hyst.comparison.registry import SECTION_TYPES
from hyst.provenance.files import atomic_write_text, read_datasets, write_log


def preload() -> None:
    """Every section type's module."""
    for section in SECTION_TYPES.values():
        importlib.import_module(section.module)


def run(sm) -> None:
    """The page of the configuration's ``comparison:`` sections."""
    comparison = json.loads(sm.params.comparison)
    page = build_page(
        comparison,
        {
            s: read_study(p, comparison, s)
            for s, p in zip(sm.params.studies, sm.input.datasets, strict=True)
        },
        read_datasets(sm.params.analysed, sm.input.analysis),
    )
    atomic_write_text(sm.output.md, page.markdown())
    atomic_write_text(sm.output.html, page.html())
    write_log(sm.log[0], f"paper comparison -> {sm.output.md}, {sm.output.html}")
