"""Figure captions for the Snakemake report: study, samples, fitted exponents."""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: Observables whose small-coupling exponents are quoted, with their symbols.
QUOTED = {
    "gap_probability_at_zero": "P_g^0",
    "gap_fraction": "f_G",
    "self_loop_probability_at_zero": "P_sl^0",
    "self_loop_probability": "P_sl",
    "race_condition_probability": "P_RC",
}


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


def _exponents(analysis, observables) -> list[str]:
    parts = []
    for obs in observables:
        var = f"{obs}_pooled_exponent"
        if var not in analysis:
            continue
        values = analysis[var]
        errs = analysis.get(f"{obs}_pooled_exponent_stderr", values * np.nan)
        paper = values.attrs.get(
            "paper_slope",
            analysis[f"{obs}_exponent"].attrs.get("paper_slope", np.nan)
            if f"{obs}_exponent" in analysis
            else np.nan,
        )
        for idx in np.ndindex(values.shape):
            v, e = float(values.values[idx]), float(errs.values[idx])
            if not np.isfinite(v):
                parts.append(f"{QUOTED[obs]} not determined (too few points below the cut)")
                continue
            label = ", ".join(
                f"{d}={values[d].values[i]}"
                for d, i in zip(values.dims, idx, strict=True)
                if values.sizes[d] > 1
            )
            quoted = f"{QUOTED[obs]} ~ (N J0)^{v:.2f}±{e:.2f}"
            if np.isfinite(float(paper)):
                quoted += f" (paper {float(paper):.3g})"
            parts.append(f"{quoted}{f' [{label}]' if label else ''}")
    return parts


def figure_caption(name: str, description: str, datasets: dict, analyses: dict) -> str:
    """Caption text: what the figure shows, its studies and samples, fitted exponents."""
    lines = [f"**{name}** — {description}", ""]
    for study, ds in datasets.items():
        samples = ds.attrs.get("samples", "?")
        if "sigma" in ds.dims:
            lines.append(
                f"- {study}: {ds.sizes['pair']} pairs per span, spans "
                f"{', '.join(f'{s:g}' for s in ds.sigma.values)}, Δh^c = "
                f"{ds.attrs.get('delta_h')}."
            )
            continue
        axes = [d for d in ("N", "NJ0", "J0") if d in ds.dims]
        ranges = "; ".join(
            f"{d} = {ds[d].values.min():g}…{ds[d].values.max():g} ({ds.sizes[d]} values)"
            for d in axes
        )
        lines.append(
            f"- study `{study}` ({ds.attrs.get('description', '')}): {samples} "
            f"samples per point; {ranges}."
        )
        if study in analyses:
            exps = _exponents(analyses[study], QUOTED)
            if exps:
                lines.append(
                    "  Small-coupling exponents (pooled over N, weighted fit): "
                    + "; ".join(exps)
                    + "."
                )
    return "\n".join(lines) + "\n"
