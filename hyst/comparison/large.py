"""Sections of the paper-comparison page about large systems: the maxima of <A>, <tau>
and <T> against J0 (with the dip of the constant-column <A> and <A> per rule), and where
the L = 4 self-loops met at any H lie in the rescaled plane."""

from __future__ import annotations

import math

import numpy as np

from hyst import catalogue
from hyst.analysis.peaks import maxima, power_of_n
from hyst.analysis.records import l4_labels, l4_rescaled
from hyst.catalogue import paper
from hyst.comparison.data import (
    curve,
    ensemble_text,
    ensembles,
    larger_runs,
    pm,
    preset_sizes,
)
from hyst.comparison.page import Paragraph, Table

#: A maximum "at J0 ≈ N^p" agrees when the fitted exponent of J0_max ∝ N^p', with two
#: standard errors either side, is within this of p and every J0_max is within ``DECADES``
#: decades of N^p; it disagrees when p' ± 2 errors lies outside p ± this; else undetermined.
EXPONENT_TOLERANCE = 0.35
DECADES = 1.0


def peaks(ctx) -> list:
    """The paper's peak claims against the maxima of the bound J0 sweeps."""
    blocks = []
    summary = []
    notes = []
    for name, items in paper.CLAIMS.items():
        for claim in items:
            if claim.kind != "peak":
                continue
            for study, ds in ctx.datasets.items():
                if name not in ds or "J0" not in ds.dims:
                    continue
                for sel in ensembles(ds):
                    if not claim.matches(sel.get("couplings"), sel.get("spans"), sel.get("rule")):
                        continue
                    rows, verdict, fit, failed = _peak_rows(ds, name, sel, claim)
                    if verdict == "disagrees":
                        verdict = "disagrees, explained below"
                        notes.append(_peak_note(study, ds, name, sel, claim, fit, failed))
                    elif verdict == "undetermined":
                        verdict += larger_runs(study, ds)
                    summary.append(
                        (claim.text, ensemble_text(sel), f"`{study}`: {fit}", verdict, claim.source)
                    )
                    blocks.append(
                        Paragraph(
                            f"**{catalogue.symbol(name)}, {ensemble_text(sel)}** (study `{study}`):"
                        )
                    )
                    header = ("N", "J0 at the maximum (grid)", "refined", "N^p", "maximum")
                    if claim.grows or "increases again" in claim.text:
                        header += ("dip after it (J0: value)", "rises again to")
                    blocks.append(Table(header, tuple(r[: len(header)] for r in rows)))
    rules = _rules_rows(ctx)
    out = []
    if summary:
        out.append(
            Paragraph(
                "The maximum of each curve is its largest grid value (J0 from the study's "
                "grid; refined: vertex of a parabola through it and its neighbours in log J0). "
                f"A claim J0 ≈ N^p agrees when the slope of log J0_max against log N lies, "
                f"with two standard errors either side, inside p ± {EXPONENT_TOLERANCE} and "
                f"every J0_max lies within {DECADES:g} decade of N^p; it disagrees when the "
                "slope with two standard errors lies outside that band, or when a J0_max lies "
                f"further than {DECADES:g} decade from N^p by more than half the J0 grid's "
                "step (its position is then decided by the grid, whatever the error of the "
                "slope), or another check of the claim fails; it is undetermined when the two "
                "standard errors reach both inside and outside the band and every J0_max is "
                "within reach of N^p: the error bar is too large to decide."
            )
        )
        out.append(
            Table(("the paper says", "ensemble", "hyst finds", "verdict", "source"), tuple(summary))
        )
    out += notes
    out += rules
    return (
        out + blocks
        if (summary or rules)
        else [Paragraph("_No bound J0 sweep holds an observable the paper places a maximum on._")]
    )


def _peak_rows(ds, name, sel, claim):
    found = maxima(ds, name, sel)
    ns = sorted(found)
    rows = []
    near = True  # every maximum within DECADES of N^p
    # maxima further than DECADES from N^p by more than the grid's half step: where they lie
    # is decided by the grid alone, whatever the error of the exponent fitted through them
    margin = _half_step_decades(ds)
    far = {}
    for N in ns:
        m = found[N]
        target = float(N) ** claim.power
        off = abs(math.log10(m["x_refined"] / target)) if np.isfinite(m["x_refined"]) else math.inf
        near &= off <= DECADES or _flat(ds, name, sel, N)
        if np.isfinite(off) and off > DECADES + margin and not _flat(ds, name, sel, N):
            far[N] = (off, m["x_refined"] / target)
        rows.append(
            (
                str(N),
                f"{m['x_grid']:.3g}",
                f"{m['x_refined']:.3g}",
                f"{target:.3g}",
                pm(m["y"], m["y_err"]),
                f"{m['dip_x']:.3g}: {pm(m['dip_y'], m['dip_err'])}"
                if np.isfinite(m["dip_x"])
                else "none",
                f"{m['recovery_y']:.2f}" if np.isfinite(m["recovery_y"]) else "—",
            )
        )
    # a curve flat within its errors has no maximum to place: the exponent of J0_max is
    # fitted over the N whose curves peak (a flat curve neither supports nor refutes it)
    flat = [n for n in ns if _flat(ds, name, sel, n)]
    placed = [n for n in ns if n not in flat]
    p, dp = power_of_n(placed, [found[n]["x_refined"] for n in placed])
    # where the maxima lie (their exponent, and their distance from N^p) is measured only
    # as well as the exponent's error allows; the other checks stand on their own
    low, high = claim.power - EXPONENT_TOLERANCE, claim.power + EXPONENT_TOLERANCE
    if not (np.isfinite(p) and np.isfinite(dp)):
        exponent = "undetermined"
    elif low <= p - 2 * dp and p + 2 * dp <= high:
        exponent = "agrees"
    elif p + 2 * dp < low or p - 2 * dp > high:
        exponent = "disagrees"
    else:  # two standard errors reach both inside and outside the band
        exponent = "undetermined"
    ok = True  # the checks that do not depend on where the maxima lie
    failed = []  # what fails, in words
    fit = f"J0_max ∝ N^{pm(p, dp)} (paper: J0 ≈ N^{claim.power:g})"
    if flat:
        fit += (
            f"; flat within its errors at N = {', '.join(map(str, flat))} (no maximum to "
            f"place), the exponent from N = {', '.join(map(str, placed)) or 'none'}"
        )
    if claim.grows:
        tops = [found[n]["y"] for n in ns]
        errs = [found[n]["y_err"] for n in ns]
        grows = all(
            b - a > -2 * math.hypot(ea, eb)
            for a, b, ea, eb in zip(tops, tops[1:], errs, errs[1:], strict=False)
        )
        fit += f"; the maximum {'grows' if grows else 'does not grow'} with N"
        fit += f" ({tops[0]:.2f} at N = {ns[0]} to {tops[-1]:.2f} at N = {ns[-1]})"
        ok &= grows
        if not grows:
            failed.append("the maximum does not grow with N")
    if "increases again" in claim.text:
        dips = sum(np.isfinite(found[n]["dip_x"]) for n in ns)
        fit += f"; a dip and a rise after the maximum at {dips} of {len(ns)} N"
        ok &= dips == len(ns)
        if dips < len(ns):
            failed.append(f"no dip and rise after the maximum at {len(ns) - dips} of {len(ns)} N")
    # a maximum "for intermediate J0" comes down again: where none of the curves that peak
    # does (each stays within two standard errors of its maximum up to the largest J0), the
    # curves rise to a plateau and have no maximum at intermediate J0, wherever it lies
    if "increases again" not in claim.text and placed:
        level = [n for n in placed if not _comes_down(ds, name, sel, n)]
        if len(level) == len(placed) >= 2:
            ok = False
            fit += "; every curve that peaks rises to a plateau (none comes down after it)"
            failed.append(
                f"at N = {', '.join(map(str, level))} the curve does not come down after its "
                "maximum (its value at the largest J0 within two standard errors of it): it "
                "rises to a plateau, with no maximum at intermediate J0"
            )
    if exponent == "disagrees":
        failed.append(
            f"the exponent of J0_max, {pm(p, dp)}, lies with two standard errors outside "
            f"{claim.power:g} ± {EXPONENT_TOLERANCE}"
        )
    if far:
        lo, hi = min(r for _, r in far.values()), max(r for _, r in far.values())
        span = f"{lo:.3g}" if f"{lo:.3g}" == f"{hi:.3g}" else f"{lo:.3g}–{hi:.3g}"
        fit += f"; J0_max = {span} × N^{claim.power:g} at N = {', '.join(map(str, far))}"
        offs = [off for off, _ in far.values()]
        ratios = [ratio for _, ratio in far.values()]
        lo, hi = f"{min(offs):.2f}", f"{max(offs):.2f}"
        failed.append(
            f"at N = {', '.join(map(str, far))} J0_max lies {lo if lo == hi else f'{lo}–{hi}'} "
            f"decades from N^{claim.power:g} (J0_max / N^{claim.power:g} = "
            f"{', '.join(f'{r:.3g}' for r in ratios)}), beyond {DECADES:g} decade and the "
            f"J0 grid's half step ({margin:.3g} decade): decided by the grid, whatever the "
            "error of the exponent"
        )
    elif not near:
        failed.append(f"a J0_max lies more than {DECADES:g} decade from N^{claim.power:g}")
    if flat:
        failed.append(
            f"at N = {', '.join(map(str, flat))} the curve is flat within two standard errors "
            "(its maximum has no position)"
        )
    if not ok or exponent == "disagrees" or far:
        return rows, "disagrees", fit, failed
    if exponent == "undetermined":
        return rows, "undetermined", fit, failed
    return rows, "agrees" if near else "disagrees", fit, failed


def _half_step_decades(ds) -> float:
    """Half the largest spacing of the dataset's J0 grid, in decades: how far a maximum
    placed on the grid (and refined by a parabola) can lie from the true one."""
    x = np.sort(np.asarray(ds["J0"].values, float))
    x = x[np.isfinite(x) & (x > 0)]
    if x.size < 2:
        return math.inf
    return float(np.max(np.diff(np.log10(x)))) / 2


def _comes_down(ds, name, sel, N) -> bool:
    """Whether the curve of one N ends (at its largest J0) more than two standard errors
    below its maximum."""
    _x, _xn, y, e = curve(ds, name, sel, N)
    ok = np.isfinite(y)
    if ok.sum() < 2:
        return False
    y, e = y[ok], np.nan_to_num(e[ok])
    j = int(np.argmax(y))
    return bool(y[j] - y[-1] > 2 * math.hypot(e[j], e[-1]))


def _flat(ds, name, sel, N) -> bool:
    """Whether the curve of one N stays within two standard errors (at least 0.5 % of its
    level) of its largest value at every J0."""
    sub = ds.sel({d: v for d, v in sel.items() if d in ds.dims}).sel(N=N)
    y = np.asarray(sub[name].values, float)
    e = (
        np.asarray(sub[f"{name}_stderr"].values, float)
        if f"{name}_stderr" in sub
        else np.zeros_like(y)
    )
    ok = np.isfinite(y)
    if ok.sum() < 2:
        return False
    top = float(np.max(y[ok]))
    room = 2 * np.hypot(np.nan_to_num(e[ok]), np.nan_to_num(e[ok][np.argmax(y[ok])]))
    return bool(np.all(top - y[ok] <= np.maximum(room, 0.005 * abs(top))))


def _peak_note(study, ds, name, sel, claim, fit, failed) -> Paragraph:
    """Why a peak claim disagrees: which of its checks fail on hyst's curves, the N they
    reach against the paper's, and the presets that sample larger N."""
    ns = sorted(int(n) for n in ds["N"].values)
    largest = paper.LARGEST_N_LARGE
    beyond = [
        f"{preset} samples N = {', '.join(map(str, sizes))}"
        for preset, sizes in preset_sizes(study).items()
        if max(sizes) > ns[-1]
    ]
    return Paragraph(
        f"**{catalogue.symbol(name)}, {ensemble_text(sel)} (study `{study}`).** The paper "
        f"says: {claim.text}. On hyst's curves of N = {', '.join(map(str, ns))}: "
        f"{'; '.join(failed)}. The paper's curves reach N = {largest} "
        f"({paper.LARGE_N_SOURCE}); hyst's reach N = {ns[-1]}"
        + (
            f": {'; '.join(beyond)}, where the statement can be checked at the paper's sizes."
            if beyond
            else "."
        )
    )


def _rules_rows(ctx) -> list:
    """Fig. 4(a): the largest <A> of constant columns against J0, per rule and N."""
    best: dict = {}
    for study, ds in ctx.datasets.items():
        if "avalanche_size" not in ds or "J0" not in ds.dims:
            continue
        for sel in ensembles(ds):
            if sel.get("couplings") != "columns":
                continue
            for N, m in maxima(ds, "avalanche_size", sel).items():
                best.setdefault(sel["rule"], {})[N] = (m, study)
    if len(best) < 2:
        return []
    rules = [r for r in ("0", "1", "1p", "2") if r in best]
    ns = sorted(set.intersection(*(set(best[r]) for r in rules)))
    rows = []
    for N in ns:
        rows.append(
            (
                str(N),
                *(
                    f"{pm(best[r][N][0]['y'], best[r][N][0]['y_err'])} at J0 = "
                    f"{best[r][N][0]['x_grid']:.3g}"
                    for r in rules
                ),
            )
        )
    small = "0" in best and all(best["0"][n][0]["y"] <= 2 for n in ns)
    larger = (
        all(
            best[r][n][0]["y"] > 2 * best["0"][n][0]["y"]
            for r in rules
            if r != "0"
            for n in ns[-1:]
        )
        if "0" in best
        else False
    )
    st = paper.RULES_AVALANCHE_STATEMENT
    verdict = "agrees" if small and larger else "disagrees"
    return [
        Paragraph(
            f'**Constant columns per rule** ({st.source}: "{st.text}"). The largest mean '
            f"avalanche size against J0: {verdict} (rule 0 means <= 2: {small}; the other rules "
            "more than twice as large at the largest N: "
            f"{larger})."
        ),
        Table(("N", *(f"rule {r}".replace("1p", "1′") for r in rules)), tuple(rows)),
    ]


# ---- L = 4 self-loops in large systems ----------------------------------------------------


def _region(x, y):
    """Inside the N = 2 spin region (x y < 0, |x − y| > 1) and the distance to its edge."""
    inside = (x * y < 0) & (np.abs(x - y) > 1)
    distance = np.minimum(np.minimum(np.abs(x), np.abs(y)), (np.abs(x - y) - 1) / math.sqrt(2))
    return inside, distance


def l4_large(ctx, near: float = 0.25) -> list:
    """Where the L = 4 loops met at any H lie in the rescaled plane, per span ensemble."""
    per = {}
    for study, ds in ctx.datasets.items():
        if "l4_c_kl" not in ds:
            continue
        spans = l4_labels(ds, "spans")
        for sp in (str(v) for v in ds["spans"].values):
            m = spans == sp
            x, y = l4_rescaled(ds, m)
            ok = np.isfinite(x) & np.isfinite(y)
            inside, dist = _region(x[ok], y[ok])
            returning = (
                np.asarray(ds["l4_returning"].values)[m][ok] if "l4_returning" in ds else None
            )
            systems = int(ds["saturated_loop_any_probability_trials"].sel(spans=sp).sum())
            per[sp] = dict(
                study=study,
                loops=int(ok.sum()),
                inside=int(inside.sum()),
                systems=systems,
                near=float(np.mean(dist < near)) if ok.any() else math.nan,
                returning=int(returning.sum()) if returning is not None else 0,
                any_loop=float(ds["saturated_loop_any_probability"].sel(spans=sp).mean()),
            )
    if not per:
        return [Paragraph("_No bound study records L = 4 self-loops of large systems._")]
    rows = []
    for sp, d in per.items():
        rows.append(
            (
                sp,
                f"`{d['study']}`",
                f"{d['systems']:,}",
                f"{d['loops']:,} ({d['loops'] / max(d['systems'], 1):.3f} per system)",
                f"{d['returning']:,}",
                f"{d['inside']:,} ({100 * d['inside'] / max(d['loops'], 1):.2f} %)",
                f"{100 * d['near']:.1f} %",
            )
        )
    checks = []
    for st in paper.L4_LARGE_STATEMENTS:
        checks.append((st.text, *_l4_verdict(st.key, per, near)))
    return [
        Paragraph(
            "Distinct L = 4 self-loops of two elements met at any H: on the two main branches "
            "of the saturated loop, driven through their self-loops, and on the returns from "
            "every turning point (`hyst.kernels.drive.saturated_loop_batch`). Rescaled plane: "
            "(c_kl, c_lk)/Δh̃ with Δh̃ = h̃_l − h̃_k > 0; the N = 2 spin region is "
            f"x y < 0, |x − y| > 1; near its edge: within {near:g} of it."
        ),
        Table(
            (
                "spans",
                "study",
                "systems",
                "L = 4 loops",
                "from returns",
                "in the region",
                "near the edge",
            ),
            tuple(rows),
        ),
        Table(("the paper says", "hyst finds", "verdict"), tuple(checks)),
    ]


def _l4_verdict(key, per, near):
    spin, hyst = per.get("spin"), per.get("hysteron")
    if key == "spins_in_region":
        if spin is None:
            return "no spin records", "not checked"
        return f"{spin['inside']:,} of {spin['loops']:,} in the region", (
            "agrees" if spin["inside"] == spin["loops"] else "disagrees"
        )
    if key == "hysterons_in_region":
        if hyst is None:
            return "no hysteron records", "not checked"
        return f"{hyst['inside']:,} of {hyst['loops']:,} in the region", (
            "agrees" if hyst["inside"] == hyst["loops"] else "disagrees"
        )
    if spin is None or hyst is None:
        return "needs spin and hysteron records", "not checked"
    if key == "hysterons_fewer":
        a = spin["loops"] / max(spin["systems"], 1)
        b = hyst["loops"] / max(hyst["systems"], 1)
        return f"{b:.3f} against {a:.3f} loops per system", "agrees" if b < a else "disagrees"
    if key == "hysterons_boundaries":
        return (
            f"{100 * hyst['near']:.1f} % of the hysterons' loops within {near:g} of the edge, "
            f"{100 * spin['near']:.1f} % of the spins'",
            "agrees" if hyst["near"] < spin["near"] else "disagrees",
        )
    return "hyst records the loops met, not the pairs that never loop", "not checked"
