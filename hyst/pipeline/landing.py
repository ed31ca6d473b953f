"""The landing page of the Snakemake report: what the run was (its configuration file, its
studies with their kinds and samples, its figures) and the verdicts of the comparison with
the paper, as reStructuredText; and the captions the report reads from files
(:class:`CaptionFile`).

``workflow/report/workflow.rst`` renders :class:`RunSummary`, a parameter of the rule
``figure``: Snakemake renders the report's workflow description with Jinja and hands it the
report's files, each with its job's parameters. The summary is read when the report is
made (the verdicts from ``paper_comparison.md``); its ``repr`` and its ``str`` (what the
report lists among a figure's parameters) never change, so that Snakemake's parameter
trigger never re-runs a figure because of it.

Both are parameters of jobs, so each job's process unpickles them before it does anything
else: this module imports nothing heavy at its top (a figure's job would otherwise import
xarray to read its own parameters).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: The line of ``paper_comparison.md`` that counts the verdicts (hyst.comparison).
VERDICTS = re.compile(r"^\*\*(Verdicts of .*)\*\*\s*$", re.M)


def verdict_line(results) -> str | None:
    """The verdict counts that head the comparison page of ``results``, or None (no page)."""
    page = Path(results) / "paper_comparison.md"
    if not page.exists():
        return None
    found = VERDICTS.search(page.read_text())
    if not found:
        return None
    line = found.group(1).rstrip(".")  # the page's own full stop: the summary adds one
    return line.replace("explained below", "explained on the comparison page")


def _samples(study: dict) -> str:
    """A study's kind and sample count, in words ("points, 4,000 samples per point")."""
    from hyst.studies import kind_of  # here: see the module's docstring

    kind = kind_of(study).name
    samples = study.get("samples")
    if samples is None:
        return kind
    per = " per point" if kind == "points" else ""
    return f"{kind}, {samples:,} samples{per}"


def _literal(text: str) -> str:
    """``text`` as an inline literal of reStructuredText."""
    return f"``{text}``"


class CaptionFile:
    """A caption read from a file when the report is built.

    Used as a rule parameter: its ``repr`` is the path (so Snakemake's params
    trigger never sees a change), its ``str`` the file's current text.
    """

    def __init__(self, path):
        self.path = str(path)

    def __repr__(self):
        return f"CaptionFile({self.path!r})"

    def __str__(self):
        p = Path(self.path)
        return p.read_text() if p.exists() else f"(caption {self.path} not rendered yet)"


class RunSummary:
    """What a run was, as reStructuredText (``str``), for the report's landing page."""

    def __init__(self, results, config: dict, configfiles=()):
        self.results = str(results)
        self.config = config
        self.configfiles = [str(f) for f in configfiles or ()]

    def __repr__(self):
        return f"RunSummary({self.results!r})"

    def configuration(self) -> str:
        """The configuration files, as named on the command line (relative where near)."""
        if not self.configfiles:
            return "the paper preset (``config/config.yaml``, no ``--configfile``)"
        names = []
        for f in self.configfiles:
            near = os.path.relpath(f) if os.path.isabs(f) else f
            names.append(_literal(f if near.startswith("..") else near))
        return ", ".join(names)

    def lines(self) -> list[str]:
        """The summary's lines (reStructuredText)."""
        studies = self.config["studies"]
        figures = self.config["figures"]
        out = [
            "This run",
            "--------",
            "",
            f"- **Configuration**: {self.configuration()}; seed {self.config['seed']}; "
            f"results in {_literal(self.results + '/')}.",
            f"- **Studies** ({len(studies)}): "
            + "; ".join(f"{_literal(s)} ({_samples(v)})" for s, v in studies.items())
            + ".",
        ]
        if self.config.get("comparison"):
            verdicts = verdict_line(self.results)
            sections = ", ".join(_literal(s) for s in self.config["comparison"])
            out.append(
                f"- **Comparison with the paper** (sections {sections}): "
                + (f"{verdicts}." if verdicts else "the page is not made yet.")
            )
        out.append(
            f"- **Figures** ({len(figures)}): "
            + "; ".join(f"{_literal(f)} ({b['type']})" for f, b in figures.items())
            + "."
        )
        return out

    @property
    def rst(self) -> str:
        """The summary as reStructuredText (what the landing page shows)."""
        return "\n".join(self.lines()) + "\n"

    def __str__(self):
        # what the report lists among a figure's parameters: a pointer, not the summary
        return "the run's summary (the report's first page)"
