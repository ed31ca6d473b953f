"""Figure captions for the Snakemake report: what a figure shows, its studies, samples and
fitted small-coupling exponents next to the paper's slopes (all from the datasets)."""

from __future__ import annotations

import re

import numpy as np

from hyst import catalogue
from hyst.analysis.power_laws import MIN_EVENTS, PLATEAU_FRACTION
from hyst.studies import kind_of


def quoted_observables() -> list[str]:
    """Observables whose small-coupling exponents captions quote (catalogue: power law)."""
    return [o.name for o in catalogue.analysed() if o.scaling.power_law]


def _same_along(arrays, dim: str) -> bool:
    """Whether every array is identical (bit for bit, NaN equal) at every index of ``dim``."""
    for da in arrays:
        if dim not in da.dims:
            continue
        first = da.isel({dim: 0}).values
        nan = first.dtype.kind == "f"
        for i in range(1, da.sizes[dim]):
            if not np.array_equal(da.isel({dim: i}).values, first, equal_nan=nan):
                return False
    return True


def _exponent_text(analysis, obs: str, at: dict, sym: str) -> str:
    """One observable's quoted exponent at the pooled index ``at`` (dim -> index)."""

    def value(suffix):
        var = f"{obs}_{suffix}"
        if var not in analysis:
            return float("nan")
        da = analysis[var]
        return float(da.isel({d: i for d, i in at.items() if d in da.dims}).values)

    k, dk = value("pooled_exponent"), value("pooled_exponent_stderr")
    if np.isfinite(k):
        curves, n_min = value("pooled_curves"), value("pooled_n_min")
        n_text = f" ({int(curves)} N >= {int(n_min)})" if np.isfinite(n_min) else ""
        return f"{sym} ~ (N J0)^{k:.2f}±{dk:.2f}{n_text}"
    per_n = analysis.get(f"{obs}_exponent")
    if per_n is not None:
        per_n = per_n.isel({d: i for d, i in at.items() if d in per_n.dims}).values
        per_n = per_n[np.isfinite(per_n)]
    p = value("pooled_consistency_p")
    if per_n is not None and per_n.size >= 2 and np.isfinite(p):
        return (
            f"{sym}: per-N exponents {per_n.min():.2f} to {per_n.max():.2f}, inconsistent with "
            f"one exponent (p = {p:.1g}), not pooled"
        )
    return f"{sym} not determined (no N has two points with >= {MIN_EVENTS} events below the cut)"


def exponents(analysis, observables=None) -> list[str]:
    """'P ~ (N J0)^k ± dk, m N (paper p) [labels]' for every pooled exponent of an analysis.

    An exponent identical for every value of a dimension (e.g. P_g^0, f_G, P_RC under the
    four rules, which see the same systems) is quoted once, labelled "every <dim>"."""
    parts = []
    for obs in observables or quoted_observables():
        var = f"{obs}_pooled_exponent"
        if var not in analysis:
            continue
        values = analysis[var]
        related = [analysis[v] for v in analysis.data_vars if str(v).startswith(f"{obs}_pooled_")]
        shared = [d for d in values.dims if values.sizes[d] > 1 and _same_along(related, d)]
        paper = analysis.get(f"{obs}_paper_slope")
        sym = catalogue.symbol(obs)
        dims = [d for d in values.dims if d not in shared]
        for idx in np.ndindex(*(values.sizes[d] for d in dims)):
            at = {**dict(zip(dims, idx, strict=True)), **{d: 0 for d in shared}}
            quoted = _exponent_text(analysis, obs, at, sym)
            if paper is not None:
                p = paper.isel({d: i for d, i in at.items() if d in paper.dims}).values
                if np.isfinite(p).all() and np.unique(p).size == 1:
                    quoted += f" (paper {float(np.ravel(p)[0]):.3g})"
            labels = [
                f"{d}={values[d].values[i]}"
                for d, i in zip(dims, idx, strict=True)
                if values.sizes[d] > 1
            ] + [f"every {d}" for d in shared]
            where = f" [{', '.join(labels)}]" if labels else ""
            parts.append(quoted + where)
    return parts


def figure_caption(
    name: str, description: str, datasets: dict, analyses: dict, descriptions: dict
) -> str:
    """Caption text: what the figure shows (``description``: its type's), its studies (with
    their ``descriptions`` from the configuration) and samples, fitted exponents."""
    lines = [f"**{name}** — {rst_text(description)}", ""]
    for study, ds in datasets.items():
        kind = kind_of({"kind": ds.attrs.get("kind", "points")})
        # "study `name` (description): summary." -- the name a literal, the rest plain text
        head, quoted, rest = kind.caption(study, ds, descriptions.get(study, "")).split("`", 2)
        lines.append(f"- {head}`{quoted}`{rst_text(rest)}")
        if study in analyses:
            exps = exponents(analyses[study])
            if exps:
                lines.append(
                    "  Small-coupling exponents against N J0 (maximum likelihood of the counts "
                    f"in each N's window of >= {MIN_EVENTS} events below "
                    f"{100 * PLATEAU_FRACTION:g} % of the plateau; weighted mean over the N "
                    "whose exponents agree): " + rst_text("; ".join(exps)) + "."
                )
    return "\n".join(lines) + "\n"


#: The characters of plain text that reStructuredText reads as markup (substitutions
#: |x|, emphasis *x*, literals and roles `x`), each escaped by a backslash; and an
#: underscore that ends a word (a reference, x_), escaped too ("P_sl" stays as it is).
RST_MARKUP = re.compile(r"[\\*`|]|_(?![A-Za-z0-9])")


def rst_text(text: str) -> str:
    """Plain text (a configuration's description, a summary, an exponent) as
    reStructuredText that renders as the very same characters: "|d_i|" is not a
    substitution, "*" no emphasis."""
    return RST_MARKUP.sub(lambda m: "\\" + m.group(0), text)
