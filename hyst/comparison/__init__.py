"""Layer 7, the paper-comparison page: every number, slope and statement the paper makes next to
hyst's measured value ± error and a verdict, built from the study datasets, their analyses
and the catalogue's paper facts (no number typed in by hand).

The configuration's ``comparison:`` binds the page's sections to studies (section types:
:mod:`hyst.comparison.registry`); :func:`build_page` assembles them in order, and the
Snakemake rule ``paper_comparison`` writes ``results/paper_comparison.md`` and the HTML
page of the report. Known disagreements are explained with their evidence
(:mod:`hyst.comparison.explain`).
"""

from __future__ import annotations

from dataclasses import dataclass

from hyst.comparison.page import Heading, Page, Paragraph, Table
from hyst.comparison.registry import SECTION_TYPES, SectionType, section_problem

__all__ = [
    "RECORD_SECTIONS",
    "SECTION_TYPES",
    "Context",
    "Heading",
    "Page",
    "Paragraph",
    "SectionType",
    "Table",
    "build_page",
    "read_study",
    "section_problem",
]

#: Section types that read the record variables (the L = 4 records); the others do not, so
#: a study's records are left on disk unless a section of these types is bound to it.
RECORD_SECTIONS = ("l4_large",)


def read_study(path, comparison: dict, study: str):
    """A study dataset as the page needs it: fully loaded, without its record variables
    unless a section reading them is bound to the study (records can be most of a file)."""
    import xarray as xr

    from hyst.catalogue import RECORDS, observables

    keep = any(b["type"] in RECORD_SECTIONS and study in b["studies"] for b in comparison.values())
    with xr.open_dataset(path, engine="netcdf4") as ds:
        if not keep:
            ds = ds.drop_dims([o.dim for o in observables(RECORDS) if o.dim in ds.dims])
        return ds.load()


TITLE = "hyst against the paper"


@dataclass(frozen=True)
class Context:
    """What a section is built from: its bound datasets and analyses ({study: Dataset}) and
    every dataset of the page (for the evidence of known disagreements)."""

    datasets: dict
    analyses: dict
    all_datasets: dict


def build_page(comparison: dict, datasets: dict, analyses: dict) -> Page:
    """The page of a configuration's ``comparison:`` from the bound studies' datasets and
    analyses ({study: Dataset})."""
    from hyst.comparison.values import COMBINATORICS_HOOK

    page = Page(TITLE)
    page.add(
        Paragraph(
            "Every number, slope and statement of the paper that the bound studies measure, "
            "next to hyst's value ± one standard error and a verdict. Values come from the "
            "study datasets and their analyses; the paper's numbers and statements from the "
            "catalogue (`hyst.catalogue`, `hyst.catalogue.paper`). Sections and their studies: "
            + "; ".join(f"{name} ({', '.join(b['studies'])})" for name, b in comparison.items())
            + "."
        )
    )
    for name, binding in comparison.items():
        stype = SECTION_TYPES[binding["type"]]
        ctx = Context(
            {s: datasets[s] for s in binding["studies"]},
            {s: analyses[s] for s in binding["studies"] if s in analyses},
            datasets,
        )
        page.add(Heading(stype.title), Paragraph(f"_{stype.description} (section `{name}`)._"))
        page.add(*stype.function()(ctx))
    if not any(b["type"] == "combinatorics" for b in comparison.values()):
        page.add(Heading(SECTION_TYPES["combinatorics"].title), Paragraph(COMBINATORICS_HOOK))
    from hyst.comparison.findings import findings

    page.blocks[1:1] = findings(page.blocks, datasets)
    page.blocks.insert(0, Paragraph(verdict_summary(page.blocks)))
    return page


#: The verdicts counted at the top of the page, by the words a table's verdict begins with.
#: A "finding" is a paper's number that hyst reproduces where the paper shows it while its
#: own measurement says more (a slope of the crossover, not the small-coupling exponent).
VERDICTS = ("agrees", "finding", "disagrees", "undetermined", "not determined")


def _verdicts(blocks):
    """Every verdict of every table with a "verdict" column, in order."""
    for block in blocks:
        if isinstance(block, Table) and "verdict" in block.header:
            column = block.header.index("verdict")
            yield from (row[column] for row in block.rows)


def verdict_summary(blocks) -> str:
    """One line counting the verdicts of every table with a "verdict" column."""
    counts = dict.fromkeys(VERDICTS, 0)
    explained = 0
    for verdict in _verdicts(blocks):
        kind = next((v for v in VERDICTS if verdict.startswith(v)), verdict)
        counts[kind] = counts.get(kind, 0) + 1
        explained += kind == "disagrees" and "explained below" in verdict
    words = {"agrees": "agree", "disagrees": "disagree"}
    parts = []
    for v, n in counts.items():
        if v == "finding" and n == 0:
            continue
        word = words.get(v, v) if v != "finding" else ("finding" if n == 1 else "findings")
        parts.append(
            f"{n} {word}"
            + (f" ({explained} explained below)" if v == "disagrees" and explained else "")
        )
    return f"**Verdicts of {sum(counts.values())} comparisons: {', '.join(parts)}.**"


def unexplained(blocks) -> list[str]:
    """The verdicts that disagree with the paper without their evidence on the page (every
    "disagrees" is followed by ", explained below" and its paragraph): empty on a page
    whose every disagreement is explained or stated as a finding."""
    return [
        v for v in _verdicts(blocks) if v.startswith("disagrees") and "explained below" not in v
    ]
