"""Sections of the paper-comparison page: the paper's bounds, parities and limits
(``hyst.catalogue.paper.CLAIMS``, kinds range, even, limit) and the table of ill-defined
conditions per interaction ensemble and rule, all checked against the datasets."""

from __future__ import annotations

import numpy as np
from scipy import stats

from hyst.catalogue import paper
from hyst.catalogue.labels import COUPLING_TITLES
from hyst.comparison.data import curve, ensemble_text, ensembles, histogram
from hyst.comparison.explain import Explained
from hyst.comparison.page import Paragraph, Table

_DIM_WORDS = {"A": "A", "T": "T", "L": "L", "n_potentially_stable": "states"}


def _check_histogram(ds, name, sel, claim) -> tuple[str, bool]:
    """(what hyst finds, agrees) for a range or even claim about a histogram observable."""
    dim = ds[name].dims[-1]
    word = _DIM_WORDS.get(dim, dim)
    total, outside, seen = 0, 0, set()
    for N in ds["N"].values:
        h = histogram(ds, name, sel, N=N)
        values = np.flatnonzero(h)
        seen |= set(int(v) for v in values)
        total += int(h.sum())
        if claim.kind == "range":
            lo, hi = claim.bounds(int(N))
            bad = (values < lo) | (values > hi)
        else:  # even, at least lower
            bad = (values % 2 == 1) | (values < (claim.lower or 0))
        outside += int(h[values[bad]].sum())
    if total == 0:
        return "no samples", True
    span = f"{word} = {min(seen)} … {max(seen)}" if len(seen) > 1 else f"{word} = {min(seen)}"
    if outside == 0:
        return f"all {total:,} within the statement ({span})", True
    return f"{outside:,} of {total:,} outside ({span})", False


def _check_limit(ds, name, sel, claim) -> tuple[str, bool]:
    """(what hyst finds, agrees) for a limit claim about a mean observable."""
    target = claim.lower
    notes, ok = [], True
    deviations = []  # "all": (|y − target| / stderr, N, N J0) of every point
    for N in ds["N"].values:
        _x, xn, y, e = curve(ds, name, sel, N)
        good = np.isfinite(y)
        if not good.any():
            continue
        xn, y, e = xn[good], y[good], np.where(np.isfinite(e[good]), e[good], 0.0)
        if claim.where == "all":
            z = np.abs(y - target) / np.maximum(e, 1e-12)
            deviations += [(float(zk), int(N), float(xk)) for zk, xk in zip(z, xn, strict=True)]
        elif claim.where == "large":
            far, near = abs(y[0] - target), abs(y[-1] - target)
            ok &= bool(near <= 0.25 * far + 3 * e[-1])
            notes.append(
                f"N = {int(N)}: {y[-1]:.3f} at N J0 = {xn[-1]:g} ({y[0]:.3f} at {xn[0]:g})"
            )
        else:  # small: above the target at the smallest coupling
            ok &= bool(y[0] - target > 3 * e[0])
            notes.append(f"N = {int(N)}: {y[0]:.3f} ± {e[0]:.3f} at N J0 = {xn[0]:g}")
    if claim.where == "all":
        return _all_points(deviations)
    if len(notes) > 3:
        notes = [notes[0], "…", notes[-1]]
    return "; ".join(notes), ok


#: Family-wise false-alarm probability of an "equals it at every N J0" claim.
FAMILY_WISE_ALPHA = 0.01


def _all_points(deviations) -> tuple[str, bool]:
    """(what hyst finds, agrees) for a claim that holds at every point: agrees unless the
    largest deviation exceeds the two-sided Bonferroni threshold of ``FAMILY_WISE_ALPHA``
    over all points (3 σ at each of 117 points would fail a true claim 27 % of the time)."""
    if not deviations:
        return "no samples", True
    z, N, x = max(deviations)
    threshold = float(stats.norm.isf(FAMILY_WISE_ALPHA / (2 * len(deviations))))
    return (
        f"largest deviation {z:.1f} σ (N = {N}, N J0 = {x:g}) over {len(deviations)} points; "
        f"threshold {threshold:.1f} σ (1 % family-wise)",
        z <= threshold,
    )


def claims(ctx) -> list:
    """Every range, even and limit claim of the catalogue, where the bound studies hold it."""
    rows, explained = [], Explained()
    for name, items in paper.CLAIMS.items():
        for claim in items:
            if claim.kind not in ("range", "even", "limit"):
                continue
            for study, ds in ctx.datasets.items():
                if name not in ds:
                    continue
                for sel in ensembles(ds):
                    if not claim.matches(sel.get("couplings"), sel.get("spans"), sel.get("rule")):
                        continue
                    check = _check_limit if claim.kind == "limit" else _check_histogram
                    found, ok = check(ds, name, sel, claim)
                    verdict = "agrees" if ok else explained.verdict("disagrees", claim.explanation)
                    rows.append(
                        (
                            claim.text,
                            ensemble_text(sel),
                            f"`{study}`: {found}",
                            verdict,
                            claim.source,
                        )
                    )
    if not rows:
        return [Paragraph("_None of the paper's bounds and limits concern the bound studies._")]
    head = ("the paper says", "ensemble", "hyst finds", "verdict", "source")
    return [Table(head, tuple(rows)), *explained.blocks(ctx.all_datasets)]


# ---- the table of ill-defined conditions ----------------------------------------------------


def _lengths_text(lengths) -> str:
    if not lengths:
        return ""
    ls = sorted(lengths)
    if len(ls) <= 4:
        return "L = " + ", ".join(map(str, ls))
    return f"L = {ls[0]} … {ls[-1]}" + (", odd too" if any(v % 2 for v in ls) else ", even")


def _measure_cell(ds, couplings, rule) -> dict:
    sel = {"couplings": couplings, "rule": rule}
    sub = ds.sel(sel)

    def total(var):
        return int(sub[var].sum()) if var in sub else 0

    hist = histogram(ds, "self_loop_length_hist", sel) if "self_loop_length_hist" in ds else []
    return {
        "systems": total("self_loop_probability_trials"),
        "ill": total("ill_defined_probability_count"),
        "gap_zero": total("gap_probability_at_zero_count"),
        "gap_fraction": float(sub["gap_fraction_sum"].sum()) if "gap_fraction_sum" in sub else 0,
        "loops": total("self_loop_probability_count"),
        "lengths": [int(v) for v in np.flatnonzero(np.asarray(hist))],
    }


def _cell_matches(cell, m) -> bool:
    gaps = m["gap_zero"] > 0 or m["gap_fraction"] > 0
    same = (cell.race_conditions, cell.gaps, cell.self_loops) == (
        m["ill"] > 0,
        gaps,
        m["loops"] > 0,
    )
    if cell.lengths == "L = 2 only":
        same &= m["lengths"] == [2]
    elif cell.lengths == "all L >= 2":
        same &= bool(m["lengths"]) and min(m["lengths"]) == 2 and any(v % 2 for v in m["lengths"])
    return same


def ill_defined_table(ctx) -> list:
    """The Supplemental's table of ill-defined conditions, measured."""
    table = paper.ILL_DEFINED_TABLE
    measured = {}
    for study, ds in ctx.datasets.items():
        for c in (str(v) for v in ds["couplings"].values):
            for r in (str(v) for v in ds["rule"].values):
                measured.setdefault((c, r), (study, _measure_cell(ds, c, r)))
    couplings = [
        c
        for c in ("random", "symmetric", "columns", "rows", "ferro")
        if any(k[0] == c for k in measured)
    ]
    rules = ["0", "1", "1p", "2"]
    grid, details = [], []
    agree = disagree = 0
    for c in couplings:
        row = ["arbitrary (random)" if c == "random" else COUPLING_TITLES.get(c, c)]
        for r in rules:
            if (c, r) not in measured:
                row.append("not measured")
                continue
            study, m = measured[(c, r)]
            gaps = m["gap_zero"] > 0 or m["gap_fraction"] > 0
            flags = [n for n, on in (("RC", m["ill"] > 0), ("G", gaps)) if on]
            if m["loops"]:
                flags.append("SL" + (f" ({_lengths_text(m['lengths'])})" if m["lengths"] else ""))
            found = "/".join(flags) or "—"
            cell = table.get((c, r))
            if cell is None:
                row.append(f"{found} (no paper cell)")
                continue
            ok = _cell_matches(cell, m)
            agree += ok
            disagree += not ok
            row.append(f"{found} — paper: {cell.text()} {'✓' if ok else '✗'}")
            details.append(
                (
                    ensemble_text({"couplings": c, "rule": r}),
                    f"`{study}`",
                    f"{m['systems']:,}",
                    f"{m['ill']:,}",
                    f"{m['gap_zero']:,}",
                    f"{m['loops']:,}",
                    _lengths_text(m["lengths"]) or "—",
                )
            )
        grid.append(tuple(row))
    if not grid:
        return [Paragraph("_No bound study varies the couplings and rules of the table._")]
    return [
        Paragraph(
            "RC: instances with a race condition that rule 0 makes ill-defined; G: gaps (no "
            "stable state at H = 0, or f_G > 0); SL: self-loops in transitions out of "
            "potentially stable states, with the lengths met. Each cell shows hyst's finding, "
            f"the paper's cell ({paper.ILL_DEFINED_TABLE_SOURCE}) and ✓ where they agree: "
            f"{agree} agree, {disagree} disagree."
        ),
        Table(("ensemble", "rule 0", "rule 1", "rule 1′", "rule 2"), tuple(grid)),
        Table(
            (
                "ensemble",
                "study",
                "systems",
                "ill-defined",
                "gap at H = 0",
                "self-loops",
                "lengths",
            ),
            tuple(details),
        ),
    ]
