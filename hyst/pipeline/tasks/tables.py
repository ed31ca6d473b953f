"""Render a study's tables (Markdown, LaTeX, reStructuredText) from its dataset: its kind's
(``StudyKind.tables``; the dataset's attribute ``kind`` names it)."""

from __future__ import annotations

from hyst.provenance.files import atomic_write_text, read_dataset, write_log
from hyst.studies import KINDS


def run(sm) -> None:
    """The tables of the dataset ``sm.input[0]``."""
    ds = read_dataset(sm.input[0])
    tables = KINDS[ds.attrs["kind"]].tables(ds)
    for fmt in ("md", "tex", "rst"):
        atomic_write_text(getattr(sm.output, fmt), tables[fmt])
    write_log(sm.log[0], tables["md"])
