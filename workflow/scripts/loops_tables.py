"""Render a loops study's tables (Markdown, LaTeX, reStructuredText) from its dataset."""

from hyst.combinatorics.tables import report_tables
from hyst.provenance.files import atomic_write_text, read_dataset, write_log

sm = snakemake  # noqa: F821 (injected by Snakemake)
tables = report_tables(read_dataset(sm.input[0]))
for fmt in ("md", "tex", "rst"):
    atomic_write_text(getattr(sm.output, fmt), tables[fmt])
write_log(sm.log[0], tables["md"])
