"""Sections of the paper-comparison page: the numbers the paper quotes, the small-coupling
slopes of every replica, and the counts of fundamental self-loops (a ``loops`` study)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from hyst import catalogue
from hyst.catalogue import paper
from hyst.comparison.data import (
    SLOPE_UNDETERMINED_ERROR,
    ensemble_text,
    ensembles,
    percent,
    pm,
    point,
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
    """The paper's small-coupling slopes against the pooled fitted exponents."""
    rows = []
    names = [o.name for o in catalogue.analysed() if o.scaling.power_law]
    for study, ana in ctx.analyses.items():
        for obs in names:
            var = f"{obs}_pooled_exponent"
            if var not in ana:
                continue
            values = ana[var]
            errs = ana.get(f"{var}_stderr", values * np.nan)
            paper = ana.get(f"{obs}_paper_slope")
            for idx in np.ndindex(values.shape):
                at = dict(zip(values.dims, idx, strict=True))
                sel = {d: str(values[d].values[i]) for d, i in at.items()}
                p = catalogue.paper_slope(obs, **sel)
                if paper is not None:
                    pv = paper.isel({d: i for d, i in at.items() if d in paper.dims})
                    p = float(pv.values)
                if not np.isfinite(p):
                    continue
                k, dk = float(values.values[idx]), float(errs.values[idx])
                verdict, sigmas = slope_verdict(p, k, dk)
                if verdict == "disagrees":
                    verdict = f"disagrees ({sigmas:.1f} σ)"
                elif verdict == "not determined":
                    verdict += larger_presets(study, ctx.datasets.get(study))
                local, window = _window_columns(ana, obs, idx, k, dk)
                rows.append(
                    (
                        f"`{study}`",
                        catalogue.symbol(obs),
                        ensemble_text(sel),
                        _slope_text(p),
                        pm(k, dk),
                        local,
                        window,
                        verdict,
                    )
                )
    if not rows:
        return [Paragraph("_No analysed study is bound to this section._")]
    rows = _merge_rules(rows)
    plateau_blocks = plateaus(ctx)
    blocks = [
        Paragraph(
            "hyst's exponent is the pooled small-coupling fit of each analysis dataset "
            "(`<observable>_pooled_exponent` ± `_stderr`, `hyst.analysis`); a slope agrees "
            "when it lies within two standard errors, and is undetermined when its standard "
            f"error exceeds {SLOPE_UNDETERMINED_ERROR:g} (it cannot then tell the paper's "
            "slope from its neighbours). Next to it: the mean local slope "
            "d ln P / d ln N J0 of the same curves inside the fit window "
            "(`_pooled_local_slope`), marked ✓ when the fit and the local slopes agree within "
            "two combined standard errors, and the window (the N pooled, the N J0 range). The "
            "paper does not say which P_sl^0 definition its panels show (any of the 2^N "
            "states, or one random start), so its P_sl^0 slope is compared with both."
        ),
        Table(
            (
                "study",
                "quantity",
                "ensemble",
                "paper",
                "hyst (pooled fit)",
                "local slope in the window",
                "window",
                "verdict",
            ),
            tuple(rows),
        ),
        *plateau_blocks,
    ]
    return blocks


def _plateau_statement(sel: dict):
    key = (sel.get("couplings"), sel.get("spans"))
    return paper.PLATEAU_STATEMENTS.get(
        (*key, sel.get("rule")), paper.PLATEAU_STATEMENTS.get((*key, None))
    )


def plateaus(ctx, at: float = 100.0) -> list:
    """The large-coupling statements about 1 − P_sl versus N (N J0 = ``at``)."""
    rows = []
    for study, ds in ctx.datasets.items():
        if "self_loop_probability" not in ds or ds.sizes.get("N", 0) < 3:
            continue
        for sel in ensembles(ds):
            statement = _plateau_statement(sel)
            if statement is None:
                continue
            text, monotone, source = statement
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
                    f"(N = {found[-1][0]}), "
                    + (
                        "decreasing in N"
                        if decays
                        else f"rises at {sum(rises)} of {len(rises)} steps"
                    )
                    + xi,
                    "agrees" if ok else "disagrees",
                    source,
                )
            )
    if not rows:
        return []
    return [
        Paragraph(
            f"Large couplings (N J0 = {at:g}): 1 − P_sl versus N from the datasets; a rise is "
            "a step up by more than two standard errors; ξ is the analysis' decay length of "
            "1 − P_sl ≈ A exp(−N/ξ)."
        ),
        Table(("the paper says", "ensemble", "hyst finds", "verdict", "source"), tuple(rows)),
    ]


#: The presets of the repository, smallest first (``config/`` beside the package, where it
#: is installed from its repository).
PRESETS = ("quick.yaml", "medium.yaml", "config.yaml")


@functools.cache
def _preset_studies() -> dict[str, dict]:
    """The studies of each preset of the repository (read once), {} where there is none."""
    import yaml

    folder = Path(__file__).resolve().parents[2] / "config"
    found = {}
    for name in PRESETS:
        try:
            found[f"config/{name}"] = yaml.safe_load((folder / name).read_text())["studies"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def _preset_samples(study: str) -> list[tuple[str, int]]:
    """(preset file, samples per point) of every preset that has a study of this name."""
    found = []
    for name, studies in _preset_studies().items():
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
