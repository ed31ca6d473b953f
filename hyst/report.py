"""Figure captions for the Snakemake report: what a figure shows, its studies, samples and
fitted small-coupling exponents next to the paper's slopes (all from the datasets)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hyst import catalogue
from hyst.studies import kind_of


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


def quoted_observables() -> list[str]:
    """Observables whose small-coupling exponents captions quote (catalogue: power law)."""
    return [o.name for o in catalogue.analysed() if o.scaling.power_law]


def exponents(analysis, observables=None) -> list[str]:
    """'P ~ (N J0)^k ± dk (paper p) [labels]' for every pooled exponent of an analysis."""
    parts = []
    for obs in observables or quoted_observables():
        var = f"{obs}_pooled_exponent"
        if var not in analysis:
            continue
        values = analysis[var]
        errs = analysis.get(f"{obs}_pooled_exponent_stderr", values * np.nan)
        paper = analysis.get(f"{obs}_paper_slope")
        sym = catalogue.symbol(obs)
        for idx in np.ndindex(values.shape):
            v, e = float(values.values[idx]), float(errs.values[idx])
            at = dict(zip(values.dims, idx, strict=True))
            if not np.isfinite(v):
                parts.append(f"{sym} not determined (too few points below the cut)")
                continue
            label = ", ".join(
                f"{d}={values[d].values[i]}" for d, i in at.items() if values.sizes[d] > 1
            )
            quoted = f"{sym} ~ (N J0)^{v:.2f}±{e:.2f}"
            if paper is not None:
                p = float(paper.isel({d: i for d, i in at.items() if d in paper.dims}).values)
                if np.isfinite(p):
                    quoted += f" (paper {p:.3g})"
            parts.append(f"{quoted}{f' [{label}]' if label else ''}")
    return parts


def figure_caption(name: str, description: str, datasets: dict, analyses: dict) -> str:
    """Caption text: what the figure shows, its studies and samples, fitted exponents."""
    lines = [f"**{name}** — {description}", ""]
    for study, ds in datasets.items():
        kind = kind_of({"kind": ds.attrs.get("kind", "points")})
        lines.append(f"- {kind.caption(study, ds)}")
        if study in analyses:
            exps = exponents(analyses[study])
            if exps:
                lines.append(
                    "  Small-coupling exponents against N J0 (pooled over N, weighted fit): "
                    + "; ".join(exps)
                    + "."
                )
    return "\n".join(lines) + "\n"
