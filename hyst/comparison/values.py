"""Sections of the paper-comparison page: the numbers the paper quotes, the small-coupling
slopes of every replica, and the counts of fundamental self-loops (a ``loops`` study)."""

from __future__ import annotations

import json

import numpy as np

from hyst import catalogue
from hyst.analysis.crossover import slope_in_range, window_evidence
from hyst.catalogue import paper
from hyst.comparison.data import (
    SLOPE_UNDETERMINED_ERROR,
    ensemble_text,
    ensembles,
    percent,
    pm,
    point,
    preset_studies,
    slope_verdict,
    value_verdict,
)
from hyst.comparison.explain import Explained
from hyst.comparison.page import Paragraph, Table


def quoted_values(ctx) -> list:
    """Every PaperValue of the catalogue, at its point of the bound studies."""
    rows, explained = [], Explained()
    for o in catalogue.OBSERVABLES:
        for v in o.paper_values:
            sel = {"couplings": v.couplings, "spans": v.spans, "rule": v.rule}
            best = None
            for name, ds in ctx.datasets.items():
                p = point(ds, o.name, sel, v.N, v.NJ0)
                if p is not None and (best is None or p["trials"] > best[1]["trials"]):
                    best = (name, p)
            paper = ("≈ " if v.approximate else "") + percent(v.value, None, 1)
            if best is None:
                rows.append(
                    (
                        o.symbol,
                        ensemble_text(sel),
                        f"N = {v.N}, N J0 = {v.NJ0:g}",
                        paper,
                        "—",
                        "not in the bound studies",
                        v.source,
                    )
                )
                continue
            name, p = best
            verdict, sigmas = value_verdict(v.value, p["value"], p["stderr"])
            if verdict == "disagrees":
                verdict = explained.verdict(f"disagrees ({sigmas:.0f} σ)", v.explanation)
            rows.append(
                (
                    o.symbol,
                    ensemble_text(sel),
                    f"N = {v.N}, N J0 = {v.NJ0:g}",
                    paper,
                    percent(p["value"], p["stderr"]),
                    verdict,
                    f"{v.source}; `{name}`, {int(p['trials']):,} systems",
                )
            )
    head = ("quantity", "ensemble", "point", "paper", "hyst", "verdict", "source")
    return [Table(head, tuple(rows)), *explained.blocks(ctx.all_datasets)]


def slopes(ctx) -> list:
    """The paper's small-coupling slopes against hyst's asymptotic exponents (the pooled fits
    of the analyses) and the local slopes of the same curves where the paper draws its guide
    lines (N J0 in ``paper.DRAWN_RANGE``), with a verdict saying which of the two the
    paper's slope matches, and the evidence below the table for every disagreement (the
    statements about 1 − P_sl at large coupling are the section ``large_coupling``)."""
    low, high = paper.DRAWN_RANGE
    rows, notes = [], {}
    names = [o.name for o in catalogue.analysed() if o.scaling.power_law]
    fits = _pooled_fits(ctx, names)
    for study, ana, obs, idx, at, sel, k, dk in _pooled_exponents(ctx, names):
        ds = ctx.datasets.get(study)
        paper_da = ana.get(f"{obs}_paper_slope")
        p = catalogue.paper_slope(obs, **sel)
        if paper_da is not None:
            pv = paper_da.isel({d: i for d, i in at.items() if d in paper_da.dims})
            p = float(pv.values)
        if not np.isfinite(p):
            continue
        drawn = (
            slope_in_range(ds, obs, sel, low, high)
            if ds is not None and obs in ds and "NJ0" in ds
            else None
        )
        verdict, disagrees = _slope_row_verdict(p, k, dk, drawn)
        # a fit not determined, or too uncertain to decide: the presets that sample more
        for word in ("not determined", "undetermined"):
            if verdict.startswith(word) or f"fit {word}" in verdict:
                verdict = verdict.replace(word, word + larger_presets(study, ds), 1)
                break
        local, window = _window_columns(ana, obs, idx, k, dk)
        row = (
            f"`{study}`",
            catalogue.symbol(obs),
            ensemble_text(sel),
            _slope_text(p),
            f"{pm(k, dk)} (local {local})" if np.isfinite(k) else "—",
            window,
            _drawn_text(drawn),
            verdict,
        )
        if disagrees:
            key = (study, obs, row[3:])
            if key not in notes:
                same = [f for f in fits.get((obs, _ensemble_key(sel)), []) if f[0] != study]
                notes[key] = slope_disagreement(study, ds, obs, sel, p, k, dk, drawn, same)
            evidence, stated = notes[key]
            # no window, N or other study accounts for the difference: hyst's exponent is
            # stated as what it finds (and gathered in the page's opening section)
            said = f"{verdict}, explained below" + (f": {FOUND_EXPONENT}" if stated else "")
            row = (*row[:-1], said)
        rows.append(row)
    if not rows:
        return [Paragraph("_No analysed study is bound to this section._")]
    rows = _merge_rules(rows)
    blocks = [
        Paragraph(
            "Two numbers per slope of the paper. **The small-coupling fit**: hyst's "
            "asymptotic exponent, the pooled maximum-likelihood fit of each analysis dataset "
            "(`<observable>_pooled_exponent` ± `_stderr`, `hyst.analysis`) in the window "
            "where N J0 ≪ 1 (the N pooled, the N J0 range; beside it the mean local slope "
            "d ln P / d ln N J0 inside the window, ✓ when it agrees with the fit). **The "
            f"slope at N J0 {low:g}–{high:g}**: the local slope of the same curves where "
            f"the paper draws its guide lines ({paper.DRAWN_RANGE_SOURCE}), per N between "
            "the ends of the range (points with at least 20 events), pooled over N with an "
            "error that includes their spread, the smallest and largest per-N slope in "
            "brackets (`hyst.analysis.crossover`). A slope agrees when it lies within two "
            "standard errors, and is undetermined when its standard error exceeds "
            f"{SLOPE_UNDETERMINED_ERROR:g}. The verdict says which of the two the paper's "
            "slope matches: **agrees** (the small-coupling fit), **finding** (the slope at "
            f"N J0 {low:g}–{high:g} but not the small-coupling exponent: the paper's guide "
            "line follows the crossover, and hyst's exponent is a number the paper does not "
            "give), **disagrees** (neither; the evidence follows the table). The paper does "
            "not say which P_sl^0 definition its panels show (any of the 2^N states, or one "
            "random start), so its P_sl^0 slope is compared with both."
        ),
        Table(
            (
                "study",
                "quantity",
                "ensemble",
                "paper",
                "small-coupling fit (local slope in its window)",
                "window",
                f"slope at N J0 {low:g}–{high:g} [per N]",
                "verdict",
            ),
            tuple(rows),
        ),
    ]
    for evidence, _stated in notes.values():
        blocks += evidence
    return blocks


def large_coupling(ctx) -> list:
    """The large-coupling statements about 1 − P_sl versus N (N J0 = 100) against the bound
    N sweeps (:func:`plateaus`)."""
    return plateaus(ctx) or [
        Paragraph("_No bound study samples P_sl at N J0 = 100 over three or more N._")
    ]


def _slope_row_verdict(p: float, k: float, dk: float, drawn) -> tuple[str, bool]:
    """(verdict, whether it is a disagreement that needs its evidence) of the paper's slope
    ``p`` against the small-coupling fit k ± dk and the slope in the drawn range."""
    low, high = paper.DRAWN_RANGE
    where = f"N J0 {low:g}–{high:g}"
    fit, fit_sigmas = slope_verdict(p, k, dk)
    if drawn is None:
        shown, shown_sigmas = "not determined", np.nan
    else:
        shown, shown_sigmas = slope_verdict(p, drawn["slope"], drawn["stderr"])
    if fit == "agrees":
        return "agrees", False
    if fit == "disagrees":
        if shown == "agrees":
            return (
                f"finding: the paper's slope is the local slope at {where} (crossover); the "
                f"small-coupling exponent differs by {fit_sigmas:.1f} σ",
                False,
            )
        return f"disagrees ({fit_sigmas:.1f} σ)", True
    if shown == "agrees":
        return f"agrees at {where}; small-coupling fit {fit}", False
    if shown == "disagrees":
        return f"disagrees at {where} ({shown_sigmas:.1f} σ); small-coupling fit {fit}", True
    return fit, False


def _drawn_text(drawn) -> str:
    if drawn is None or not np.isfinite(drawn["slope"]):
        return "—"
    spread = f" [{drawn['lowest']:.2f} … {drawn['highest']:.2f}]" if drawn["curves"] > 1 else ""
    return f"{pm(drawn['slope'], drawn['stderr'])}{spread} ({drawn['curves']} N)"


def _ensemble_key(sel: dict) -> tuple:
    return tuple(sel.get(d) for d in ("couplings", "spans", "rule"))


def _samples(ds) -> int | None:
    try:
        return int(json.loads(ds.attrs["study_config"])["samples"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def _pooled_fits(ctx, names) -> dict:
    """{(observable, (couplings, spans, rule)): [(study, exponent, stderr, samples per
    point)]}: the small-coupling fit of every ensemble of every bound analysis, so that the
    evidence of a slope can name the same ensemble sampled by another study."""
    out: dict = {}
    for study, _ana, obs, _idx, _at, sel, k, dk in _pooled_exponents(ctx, names):
        if np.isfinite(k) and np.isfinite(dk):
            samples = _samples(ctx.datasets.get(study))
            out.setdefault((obs, _ensemble_key(sel)), []).append((study, k, dk, samples))
    return out


def _pooled_exponents(ctx, names):
    """(study, analysis, observable, index, {dim: position}, {dim: label}, exponent, stderr)
    of every ensemble of every pooled small-coupling fit of the bound analyses."""
    for study, ana in ctx.analyses.items():
        for obs in names:
            var = f"{obs}_pooled_exponent"
            if var not in ana:
                continue
            values = ana[var]
            errs = ana.get(f"{var}_stderr", values * np.nan)
            for idx in np.ndindex(values.shape):
                at = dict(zip(values.dims, idx, strict=True))
                sel = {d: str(values[d].values[i]) for d, i in at.items()}
                k, dk = float(values.values[idx]), float(errs.values[idx])
                yield study, ana, obs, idx, at, sel, k, dk


#: The verdict's words for a slope that disagrees where nothing accounts for the difference.
FOUND_EXPONENT = "hyst's exponent is a finding"


def slope_disagreement(study, ds, obs, sel, p, k, dk, drawn, same=()) -> tuple[list, bool]:
    """The evidence for a slope that disagrees with the paper's (blocks), and whether hyst's
    exponent is stated as a finding: the per-N fits and their windows, the fit without the
    top of each window, the trend of the exponents with N, the slopes in the drawn range, the
    same ensemble's fit in other studies (``same``: (study, exponent, stderr, samples per
    point)), and the cause these numbers point to (or hyst's exponent stated as a finding
    where none accounts for the difference)."""
    low, high = paper.DRAWN_RANGE
    head = (
        f"**{catalogue.symbol(obs)}, {ensemble_text(sel)} (study `{study}`): the paper's "
        f"slope {_slope_text(p)}, hyst's small-coupling fit {pm(k, dk)}, the slope at N J0 "
        f"{low:g}–{high:g} {_drawn_text(drawn)}.**"
    )
    if ds is None or obs not in ds:
        return [Paragraph(f"{head} _The dataset is not bound to this section._")], False
    ev = window_evidence(ds, obs, sel)
    lower, trend, pooled = ev["lower"], ev["trend"], ev["pooled"]
    causes = []

    def near(value, err):
        """Within two standard errors of the paper's slope, and closer to it than the fit
        (a check that moves away from the paper's slope explains nothing)."""
        closer = not np.isfinite(k) or abs(value - p) < abs(k - p)
        return np.isfinite(value) and np.isfinite(err) and abs(value - p) <= 2 * err and closer

    if near(lower["exponent"], lower["exponent_stderr"]):
        causes.append(
            "Without the highest point of each window the pooled exponent is "
            f"{pm(lower['exponent'], lower['exponent_stderr'])}, within two standard errors "
            f"of {_slope_text(p)}: the tops of the windows reach the bend toward the plateau."
        )
    bottom = ev["bottom"]
    if near(bottom["exponent"], bottom["exponent_stderr"]):
        slope = pm(bottom["exponent"], bottom["exponent_stderr"])
        more = larger_presets(study, ds) or ""
        causes.append(
            "At the low end of each window (its two smallest N J0, where the points still "
            f"hold 20 events) the local slope is {slope} over {bottom['curves']} N, within "
            f"two standard errors of {_slope_text(p)}: the slope still rises toward small "
            "N J0, and the fit averages it over the window; more systems per point move the "
            "windows down" + (f" (this run{more})." if more else ".")
        )
    b, db = trend["b"], trend["b_stderr"]
    if np.isfinite(b) and abs(b) > 2 * db and near(trend["k_inf"], trend["k_inf_stderr"]):
        causes.append(
            f"The per-N exponents change with N (k_N = k_∞ + b/N over {trend['curves']} N: "
            f"b = {pm(b, db)}); extrapolated to large N the exponent is "
            f"{pm(trend['k_inf'], trend['k_inf_stderr'])}, within two standard errors of "
            f"{_slope_text(p)}: the N pooled are not yet in the large-N regime."
        )
    run = _samples(ds)
    context = []  # the same ensemble elsewhere, where it accounts for nothing
    for other, k2, dk2, samples in same:
        more = samples is not None and run is not None and samples > run
        size = f", {samples:,} systems a point" if samples is not None else ""
        if more and near(k2, dk2):
            causes.append(
                f"The same ensemble sampled with more systems (study `{other}`{size}) gives "
                f"{pm(k2, dk2)}, within two standard errors of {_slope_text(p)}: the "
                "difference is this study's fit window (fewer systems a point put its low end "
                "higher, nearer the bend toward the plateau), not the model."
            )
        else:
            context.append(f"The same ensemble in study `{other}`{size}: {pm(k2, dk2)}.")
    if not np.isfinite(k):
        causes.append(
            "The small-coupling fit is not determined at this size"
            + (larger_presets(study, ds) or "")
            + f"; the slope at N J0 {low:g}–{high:g} is measured, and it is not the paper's."
        )
    stated = np.isfinite(k) and not causes
    if stated:
        causes.append(
            "Neither the top of the windows, their low end nor the N pooled account for the "
            "difference (without the top point: "
            f"{pm(lower['exponent'], lower['exponent_stderr'])}; "
            f"at the low end: {pm(bottom['exponent'], bottom['exponent_stderr'])}; "
            f"extrapolated to large N: {pm(trend['k_inf'], trend['k_inf_stderr'])}). hyst "
            f"finds {pm(k, dk)} in N J0 {pooled['x_min']:.3g}–{pooled['x_max']:.3g} "
            f"(N ≥ {pooled['n_min']:g}), where the paper draws {_slope_text(p)}."
        )
    rows = []
    for n, r in ev["per_N"].items():
        d = (drawn or {}).get("per_N", {}).get(n, {})
        rows.append(
            (
                str(n),
                f"{r['x_min']:.3g}–{r['x_max']:.3g} ({r['points']})"
                if np.isfinite(r["x_min"])
                else "—",
                pm(r["exponent"], r["stderr"]),
                pm(r["lower"], r["lower_stderr"]),
                pm(r["bottom"], r["bottom_stderr"]),
                pm(d.get("slope", np.nan), d.get("stderr", np.nan)),
            )
        )
    return [
        Paragraph(f"{head} {' '.join(causes + context)}"),
        Table(
            (
                "N",
                "window N J0 (points)",
                "exponent",
                "without the window's top point",
                "local slope at the window's low end",
                f"slope at N J0 {low:g}–{high:g}",
            ),
            tuple(rows),
        ),
    ], bool(stated)


def _plateau_statement(sel: dict):
    key = (sel.get("couplings"), sel.get("spans"))
    return paper.PLATEAU_STATEMENTS.get(
        (*key, sel.get("rule")), paper.PLATEAU_STATEMENTS.get((*key, None))
    )


def plateaus(ctx, at: float = 100.0) -> list:
    """The large-coupling statements about 1 − P_sl versus N (N J0 = ``at``), with the
    values of every N below the table for each statement that disagrees."""
    rows, notes = [], []
    for study, ds in ctx.datasets.items():
        if "self_loop_probability" not in ds or ds.sizes.get("N", 0) < 3:
            continue
        for sel in ensembles(ds):
            statement = _plateau_statement(sel)
            if statement is None:
                continue
            text, monotone, source, from_large_n = statement
            found = [
                (int(N), point(ds, "self_loop_probability", sel, int(N), at))
                for N in ds["N"].values
            ]
            found = [(N, p) for N, p in found if p is not None]
            if len(found) < 3:
                continue
            q = np.array([1 - p["value"] for _N, p in found])
            e = np.array([p["stderr"] for _N, p in found])
            rises = [
                b - a > 2 * np.hypot(ea, eb)
                for a, b, ea, eb in zip(q, q[1:], e, e[1:], strict=False)
            ]
            decays = not any(rises) and q[-1] < q[0]
            ok = decays if monotone else any(rises)
            trend = "decreasing in N" if decays else f"rises at {sum(rises)} of {len(rises)} steps"
            if from_large_n and not decays:  # the decay from the N after the last rise on
                start = max(i for i, up in enumerate(rises) if up) + 1
                tail = q[start:]
                ok = tail.size >= 3 and tail[-1] < tail[0]
                trend = f"rises from N = {found[start - 1][0]} to {found[start][0]}, then " + (
                    f"decreasing in N over N = {found[start][0]} … {found[-1][0]}"
                    if ok
                    else f"only {tail.size} N after the last rise"
                )
            ana = ctx.analyses.get(study)
            xi = ""
            if ana is not None and "self_loop_probability_xi" in ana:
                v = ana["self_loop_probability_xi"].sel(
                    {d: x for d, x in sel.items() if d in ana["self_loop_probability_xi"].dims}
                )
                err = ana.get("self_loop_probability_xi_stderr")
                if err is not None:
                    err = err.sel({d: x for d, x in sel.items() if d in err.dims})
                if v.size == 1:
                    xi = f"; ξ = {pm(float(v), float(err) if err is not None else np.nan)}"
            rows.append(
                (
                    text,
                    ensemble_text(sel),
                    f"`{study}`: 1 − P_sl = {q[0]:.3g} (N = {found[0][0]}) … {q[-1]:.3g} "
                    f"(N = {found[-1][0]}), {trend}{xi}",
                    "agrees" if ok else "disagrees, explained below",
                    source,
                )
            )
            if not ok:
                notes.append(_plateau_note(study, sel, text, found, rises, xi))
    if not rows:
        return []
    return [
        Paragraph(
            f"Large couplings (N J0 = {at:g}): 1 − P_sl versus N from the datasets; a rise is "
            "a step up by more than two standard errors; ξ is the analysis' decay length of "
            "1 − P_sl ≈ A exp(−N/ξ)."
        ),
        Table(("the paper says", "ensemble", "hyst finds", "verdict", "source"), tuple(rows)),
        *notes,
    ]


def _plateau_note(study, sel, text, found, rises, xi) -> Paragraph:
    """The evidence of a large-coupling statement that disagrees: 1 − P_sl of every N with
    its error, and the steps up by more than two standard errors."""
    up = [f"N = {found[i][0]} → {found[i + 1][0]}" for i, r in enumerate(rises) if r]
    values = ", ".join(f"{1 - p['value']:.3g} ± {p['stderr']:.1g} (N = {n})" for n, p in found)
    return Paragraph(
        f"**1 − P_sl versus N, {ensemble_text(sel)} (study `{study}`).** The paper says: "
        f"{text}. hyst's values: {values}; "
        + (f"steps up by more than two standard errors: {', '.join(up)}" if up else "no step up")
        + (f"{xi}." if xi else ".")
    )


def _preset_samples(study: str) -> list[tuple[str, int]]:
    """(preset file, samples per point) of every preset that has a study of this name."""
    found = []
    for name, studies in preset_studies().items():
        samples = (studies.get(study) or {}).get("samples")
        if isinstance(samples, int):
            found.append((name, samples))
    return found


def larger_presets(study: str, dataset) -> str:
    """What a "not determined" slope row says of the presets that sample the same study with
    more systems per point than this run did (``: config/medium.yaml samples 40,000 per
    point, config/config.yaml 100,000``), or nothing where none does."""
    try:
        run = int(json.loads(dataset.attrs["study_config"])["samples"])
    except (AttributeError, KeyError, TypeError, ValueError):
        return ""
    more = [(f, n) for f, n in _preset_samples(study) if n > run]
    if not more:
        return ""
    said = [
        f"{f} samples {n:,} per point" if i == 0 else f"{f} {n:,}" for i, (f, n) in enumerate(more)
    ]
    return f" at {run:,} samples per point: {', '.join(said)}"


def _window_columns(ana, obs: str, idx: tuple, k: float, dk: float) -> tuple[str, str]:
    """(local slope in the fit window ± error with ✓ when it agrees with the pooled fit k ± dk,
    the window: the N pooled and the N J0 range) of one pooled fit."""

    def value(name):
        var = ana.get(f"{obs}_pooled_{name}")
        return float(var.values[idx]) if var is not None else np.nan

    slope, err = value("local_slope"), value("local_slope_stderr")
    local = pm(slope, err)
    if np.isfinite(slope) and np.isfinite(k):
        combined = np.hypot(dk if np.isfinite(dk) else 0.0, err if np.isfinite(err) else 0.0)
        local += " ✓" if abs(slope - k) <= 2 * combined else " ✗"
    n_min, curves = value("n_min"), value("curves")
    x_min, x_max = value("x_min"), value("x_max")
    if not (np.isfinite(n_min) and np.isfinite(x_min)):
        return local, "—"
    return local, f"N ≥ {n_min:g} ({curves:g} N), N J0 {x_min:.3g}–{x_max:.3g}"


def _merge_rules(rows: list) -> list:
    """One row for the rules of a study whose fits are identical (the observables that do not
    depend on the race-condition rule: P_g^0, f_G, P_RC), the rules listed together."""
    merged: dict = {}
    for study, obs, ensemble, *rest in rows:
        base, _, rule = ensemble.rpartition(", rule ")
        key = (study, obs, base if base else ensemble, *rest)
        merged.setdefault(key, []).append(rule if base else "")
    out = []
    for (study, obs, base, *rest), rules in merged.items():
        label = (
            base
            if rules == [""]
            else f"{base}, rule{'s' if len(rules) > 1 else ''} " + (", ".join(rules))
        )
        out.append((study, obs, label, *rest))
    return out


def _slope_text(p: float) -> str:
    from hyst.catalogue.labels import fmt_number

    return fmt_number(p)


def combinatorics(ctx) -> list:
    """Counts of fundamental self-loops (M, M_R, M_W per n_e and L) against the paper's."""
    rows = []
    for study, ds in ctx.datasets.items():
        for var in ds.data_vars:
            paper = f"{var}_paper"
            if paper not in ds or ds[var].dims != ("n_e", "L"):
                continue
            for i, n in enumerate(ds["n_e"].values):
                for j, L in enumerate(ds["L"].values):
                    want, have = int(ds[paper].values[i, j]), int(ds[var].values[i, j])
                    if want < 0 or have < 0:
                        continue
                    rows.append(
                        (
                            f"`{study}`",
                            str(var),
                            f"n_e = {n}, L = {L}",
                            f"{want:,}",
                            f"{have:,}",
                            "agrees" if want == have else "disagrees",
                        )
                    )
    if not rows:
        return [Paragraph("_The bound studies hold no counts with the paper's numbers._")]
    return [Table(("study", "count", "cell", "paper", "hyst", "verdict"), tuple(rows))]


COMBINATORICS_HOOK = (
    "The counts of fundamental self-loops (M, M_R, M_W per n_e and L, Appendix E and the "
    "Supplemental's tables) appear here once a study of kind `loops` is bound: add "
    "`combinatorics: {type: combinatorics, studies: [<a loops study>]}` under `comparison:`."
)
