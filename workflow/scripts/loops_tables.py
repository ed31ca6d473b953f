"""Render a loops study's tables (Markdown, LaTeX, reStructuredText) from its dataset."""

from hyst.combinatorics.tables import report_tables
from hyst.provenance.files import atomic_write_text, read_dataset


def main(dataset, outputs, log_path):
    tables = report_tables(read_dataset(dataset))
    for fmt, path in outputs.items():
        atomic_write_text(path, tables[fmt])
    with open(log_path, "w") as log:
        print(tables["md"], file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(sm.input[0], {"md": sm.output.md, "tex": sm.output.tex, "rst": sm.output.rst}, sm.log[0])
