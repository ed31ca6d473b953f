"""Write the paper-comparison page (Markdown and HTML) from the bound datasets (thin wrapper)."""

import json

from hyst.comparison import build_page, read_study
from hyst.provenance.files import atomic_write_text, read_dataset


def main(comparison, studies, datasets, analysed, analyses, md, html, log_path):
    comparison = json.loads(comparison)
    page = build_page(
        comparison,
        {s: read_study(p, comparison, s) for s, p in zip(studies, datasets, strict=True)},
        dict(zip(analysed, map(read_dataset, analyses), strict=True)),
    )
    atomic_write_text(md, page.markdown())
    atomic_write_text(html, page.html())
    with open(log_path, "w") as log:
        print(f"paper comparison -> {md}, {html}", file=log)


if __name__ == "__main__":
    sm = snakemake  # noqa: F821 (injected by Snakemake)
    main(
        sm.params.comparison,
        sm.params.studies,
        list(sm.input.datasets),
        sm.params.analysed,
        list(sm.input.analysis),
        sm.output.md,
        sm.output.html,
        sm.log[0],
    )
