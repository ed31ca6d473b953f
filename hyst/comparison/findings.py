"""The opening section of the paper-comparison page: what hyst finds that the paper does not
say, gathered from the page's own verdicts and datasets, each item linked to its evidence
further down the page.

* the small-coupling exponents that differ from the guide lines the paper draws (a slope row
  whose verdict is a finding: the paper's slope is the local slope of the crossover; or a
  slope that disagrees where nothing accounts for the difference: hyst's exponent stated);
* the counterexamples to the paper's statements (a bound or count of a statement's row that
  instances fall outside of, explained below its table);
* the maxima of the large-N curves that do not lie where the paper places them (a peak row
  that disagrees, at the sizes the run samples);
* the first numbers beyond the paper's sizes (1 − P_sl at N J0 = 10^2 for N larger than the
  paper's largest, from a study that samples them).
"""

from __future__ import annotations

import numpy as np

from hyst.catalogue import paper
from hyst.comparison.data import ensemble_text, ensembles, point
from hyst.comparison.page import Heading, Paragraph, Table, anchor
from hyst.comparison.values import FOUND_EXPONENT

TITLE = "What hyst finds that the paper does not say"


def _rows(blocks):
    """(section title, table, row) of every table with a verdict column, in page order."""
    title = ""
    for block in blocks:
        if isinstance(block, Heading):
            title = block.text
        elif isinstance(block, Table) and "verdict" in block.header:
            for row in block.rows:
                yield title, block, row


def _cell(table, row, *names) -> str:
    for name in names:
        for i, head in enumerate(table.header):
            if head.startswith(name):
                return row[i]
    return ""


def _link(title: str) -> str:
    return f"[{title}](#{anchor(title)})"


def findings(blocks, datasets: dict) -> list:
    """The opening section's blocks: a heading and one paragraph per finding (none found:
    a paragraph saying so)."""
    items = []
    for title, table, row in _rows(blocks):
        verdict = _cell(table, row, "verdict")
        if verdict.startswith("finding"):
            items.append(
                f"**{_cell(table, row, 'quantity')}, {_cell(table, row, 'ensemble')}**: "
                f"the small-coupling exponent is {_cell(table, row, 'small-coupling fit')} "
                f"({_cell(table, row, 'window')}); the paper's slope "
                f"{_cell(table, row, 'paper')} is the local slope of the crossover, "
                f"{_cell(table, row, 'slope at')} ({_link(title)})."
            )
    for title, table, row in _rows(blocks):
        if _cell(table, row, "verdict").endswith(FOUND_EXPONENT):
            items.append(
                f"**{_cell(table, row, 'quantity')}, {_cell(table, row, 'ensemble')}**: "
                f"the small-coupling exponent is {_cell(table, row, 'small-coupling fit')} "
                f"({_cell(table, row, 'window')}) where the paper draws slope "
                f"{_cell(table, row, 'paper')}; neither the fit window, the N pooled nor "
                f"another study accounts for the difference ({_link(title)})."
            )
    for title, table, row in _rows(blocks):
        verdict = _cell(table, row, "verdict")
        said = _cell(table, row, "the paper says")
        found = _cell(table, row, "hyst finds")
        if said and verdict.startswith("disagrees") and " outside (" in found:
            items.append(
                f"**A counterexample to “{said}”** ({_cell(table, row, 'ensemble')}): "
                f"{found} ({_link(title)})."
            )
    for title, table, row in _rows(blocks):
        verdict = _cell(table, row, "verdict")
        said = _cell(table, row, "the paper says")
        found = _cell(table, row, "hyst finds")
        if said and verdict.startswith("disagrees") and "J0_max ∝" in found:
            items.append(
                f"**Not as the paper says: “{said}”** ({_cell(table, row, 'ensemble')}): "
                f"{found} ({_link(title)})."
            )
    items += _beyond_sizes(datasets)
    out = [Heading(TITLE)]
    if not items:
        return [*out, Paragraph("_Nothing in the bound studies goes beyond the paper._")]
    lead = Paragraph(
        "Gathered from the sections below, each with a link to its evidence: the "
        "small-coupling exponents that differ from the guide lines the paper draws, the "
        "instances that fall outside the paper's statements, the maxima of the large-N "
        "curves that do not lie where the paper places them (at hyst's sizes), and the "
        "first numbers beyond the paper's sizes."
    )
    return [*out, lead, *(Paragraph(f"- {item}") for item in items)]


def _beyond_sizes(datasets: dict, at: float = 100.0) -> list[str]:
    """1 − P_sl at N J0 = ``at`` for every N beyond the paper's largest, per ensemble of the
    studies that sample P_sl at such N."""
    items = []
    largest = paper.LARGEST_N_SMALL_COUPLING
    for study, ds in datasets.items():
        if "self_loop_probability" not in ds or "NJ0" not in ds.dims:
            continue
        beyond = [int(n) for n in ds["N"].values if n > largest]
        if not beyond:
            continue
        for sel in ensembles(ds):
            found = []
            for n in beyond:
                p = point(ds, "self_loop_probability", sel, n, at)
                if p is not None and np.isfinite(p["value"]):
                    found.append(f"{1 - p['value']:.3g} ± {p['stderr']:.1g} at N = {n}")
            if found:
                items.append(
                    f"**1 − P_sl beyond N = {largest}** ({ensemble_text(sel)}, N J0 = {at:g}, "
                    f"study `{study}`): " + ", ".join(found) + "."
                )
    return items
